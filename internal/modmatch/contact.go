package modmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Contact details are found on the text as written (not normalised). Each finder returns the
// first detail found, or "". Each looks for what any detail must contain (an '@', a known
// top-level domain after a dot, enough digits) and parses from there, each step bounded, so a
// message costs time linear in its length. Obfuscated addresses and links are parsed from
// their top-level domain leftwards: a dot is written ".", "[.]", "(.)", "(dot)", " dot " (any
// bracket of ()[]{}<>), an at "@", "(at)", "(@)", " at ".

// tlds are the top-level domains a bare domain ("example.com") or an obfuscated address
// ("name at example dot com") must end with to count. Those that are also common words
// (wordTLDs) make a bare domain count only with a path after it ("t.me/name").
var tlds = setOf("com", "net", "org", "info", "biz", "io", "co", "ai", "app", "dev", "xyz", "tv",
	"gg", "ly", "cc", "ws", "fm", "gl", "uk", "ca", "de", "fr", "es", "nl", "ru", "br", "au",
	"jp", "cn", "pl", "se", "ch", "eu", "nz", "mx", "kr", "tk", "ml", "ga", "cf", "gq", "online",
	"site", "top", "club", "shop", "store", "live", "pro", "tech", "link", "click", "vip", "gov",
	"edu", "onion",
	"me", "to", "in", "it", "be", "us", "at", "no", "so", "is")

var wordTLDs = setOf("me", "to", "in", "it", "be", "us", "at", "no", "so", "is")

func setOf(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

func findEmail(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		// A local part before it (and a blank), a domain after (and a blank).
		p := i
		if p > 0 && isBlank(text[p-1]) {
			p--
		}
		l := localPartStart(text, p)
		if l < 0 {
			continue
		}
		j := i + 1
		if j < len(text) && isBlank(text[j]) {
			j++
		}
		if end := plainDomainEnd(text, j); end > 0 {
			return text[l:end]
		}
	}
	// Obfuscated: a domain with a known top-level domain, an at, a local part.
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '.' && c != 'd' && c != 'D' {
			continue
		}
		start, end, ok := domainAt(text, i)
		if !ok {
			continue
		}
		p := atSepBefore(text, start)
		if p < 0 {
			continue
		}
		if l := localPartStart(text, p); l >= 0 {
			return text[l:end]
		}
	}
	return ""
}

// localPartStart returns where the local part of an address that ends at text[p] starts
// (at most 64 bytes, from a letter or digit), or -1.
func localPartStart(text string, p int) int {
	l := p
	for l > 0 && p-l < 64 && isLocalPart(text[l-1]) {
		l--
	}
	for l < p && !isASCIIAlnum(text[l]) {
		l++
	}
	if l == p || !wordStart(text, l) && !isLocalPart(text[l-1]) {
		return -1
	}
	return l
}

// plainDomainEnd returns where the domain name that starts at text[j] ends: labels of
// letters, digits and inner dashes separated by dots, the last of them (not the first) of 2 to
// 24 letters. It returns -1 for none.
func plainDomainEnd(text string, j int) int {
	end := -1
	for n := 0; n < 32; n++ {
		k := j
		for k < len(text) && k-j < 63 && (isASCIIAlnum(text[k]) || text[k] == '-') {
			k++
		}
		if k == j || text[j] == '-' || text[k-1] == '-' {
			break
		}
		if n > 0 && k-j >= 2 && k-j <= 24 && (k == len(text) || !isASCIIAlnum(text[k]) && text[k] != '_' && text[k] != '-') && allLetters(text[j:k]) {
			end = k
		}
		if k >= len(text) || text[k] != '.' {
			break
		}
		j = k + 1
	}
	return end
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

func isLocalPart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._%+-", c) >= 0
}

func findLink(text string) string {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ':': // scheme://
			if !strings.HasPrefix(text[i:], "://") {
				continue
			}
			l := i
			for l > 0 && i-l <= 5 && isASCIILetter(text[l-1]) {
				l--
			}
			if scheme := strings.ToLower(text[l:i]); (scheme == "http" || scheme == "https" || scheme == "ftp") && wordStart(text, l) {
				if e := urlEnd(text, i+3); e > i+3 {
					return text[l:e]
				}
			}
		case 'w', 'W': // www.
			if len(text) >= i+5 && strings.EqualFold(text[i:i+4], "www.") && wordStart(text, i) && isASCIIAlnum(text[i+4]) {
				return text[i:urlEnd(text, i+4)]
			}
		case '.', 'd', 'D':
		default:
			continue
		}
		if start, end, ok := domainAt(text, i); ok && (start == 0 || text[start-1] != '@') {
			tld := strings.ToLower(text[tldStart(text, end):end])
			if end < len(text) && text[end] == '/' {
				return text[start:urlEnd(text, end)]
			}
			if !wordTLDs[tld] {
				return text[start:end]
			}
		}
	}
	return ""
}

// urlEnd returns where a URL that goes on at text[i] ends: at white space or <>"', without
// the punctuation that ends a sentence.
func urlEnd(text string, i int) int {
	for i < len(text) && !isSpaceByte(text[i]) && strings.IndexByte(`<>"'`, text[i]) < 0 {
		i++
	}
	for i > 0 && strings.IndexByte(".,;:!?)]}", text[i-1]) >= 0 {
		i--
	}
	return i
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// domainAt reports whether a dot-like separator at text[i] ('.', or the 'd' of "dot") is
// followed by a known top-level domain and preceded by at least one label, and if so where
// the domain starts and ends.
func domainAt(text string, i int) (start, end int, ok bool) {
	j, k := tldAfter(text, i)
	if j < 0 {
		return 0, 0, false
	}
	start = -1
	for n, p := 0, dotSepBefore(text, j); p >= 0 && n < 16; n, p = n+1, dotSepBefore(text, start) {
		l := p
		for l > 0 && (isASCIIAlnum(text[l-1]) || text[l-1] == '-') && p-l < 63 {
			l--
		}
		if l == p || !isASCIIAlnum(text[l]) || !isASCIIAlnum(text[p-1]) {
			break
		}
		start = l
	}
	if start < 0 || !wordStart(text, start) && text[start-1] != '@' {
		return 0, 0, false
	}
	return start, k, true
}

// tldAfter returns the bounds of the known top-level domain that follows the separator at
// text[i], or -1, -1.
func tldAfter(text string, i int) (int, int) {
	var j int
	switch c := text[i]; {
	case c == '.':
		j = i + 1
		if j < len(text) && isCloser(text[j]) {
			j = skipBlanks(text, j+1)
		}
	case (c == 'd' || c == 'D') && i > 0 && (isBlank(text[i-1]) || isOpener(text[i-1])) && len(text) >= i+3 && strings.EqualFold(text[i:i+3], "dot"):
		j = i + 3
		if j < len(text) && isCloser(text[j]) {
			j++
		}
		k := skipBlanks(text, j)
		if k == j && j == i+3 {
			return -1, -1
		}
		j = k
	default:
		return -1, -1
	}
	k := j
	for k < len(text) && k-j <= 12 && isASCIILetter(text[k]) {
		k++
	}
	if k-j >= 2 && k-j <= 12 && (k == len(text) || !isASCIIAlnum(text[k]) && text[k] != '-' && text[k] != '@') &&
		!(k+1 < len(text) && text[k] == '.' && isASCIIAlnum(text[k+1])) && tlds[strings.ToLower(text[j:k])] {
		if dotSepBefore(text, j) >= 0 {
			return j, k
		}
	}
	return -1, -1
}

func tldStart(text string, end int) int {
	i := end
	for i > 0 && isASCIILetter(text[i-1]) {
		i--
	}
	return i
}

// dotSepBefore returns where the dot-like separator that ends at text[j] starts, or -1.
func dotSepBefore(text string, j int) int {
	if j > 0 && text[j-1] == '.' {
		return j - 1
	}
	p := skipBlanksLeft(text, j)
	closer := p > 0 && isCloser(text[p-1])
	if closer {
		p = skipBlanksLeft(text, p-1)
	}
	switch {
	case closer && p > 0 && text[p-1] == '.':
		p--
	case p >= 3 && strings.EqualFold(text[p-3:p], "dot"):
		p -= 3
	default:
		return -1
	}
	return sepOpen(text, p, j, closer)
}

// atSepBefore returns where the at-like separator that ends at text[j] starts, or -1.
func atSepBefore(text string, j int) int {
	p := skipBlanksLeft(text, j)
	closer := p > 0 && isCloser(text[p-1])
	if closer {
		p = skipBlanksLeft(text, p-1)
	}
	switch {
	case p > 0 && text[p-1] == '@' && closer: // "(@)"
		return sepOpen(text, p-1, j, true)
	case p > 0 && text[p-1] == '@':
		return skipBlanksLeft(text, p-1)
	case p >= 2 && strings.EqualFold(text[p-2:p], "at"):
		p -= 2
	default:
		return -1
	}
	return sepOpen(text, p, j, closer)
}

// sepOpen checks the left side of a separator word ("dot", "at") that starts at text[p] and
// whose separator ends at text[j]: an opening bracket if it was closed by one, or else blanks
// on both sides. It returns where the separator starts, or -1.
func sepOpen(text string, p, j int, closed bool) int {
	if closed {
		p = skipBlanksLeft(text, p)
		if p == 0 || !isOpener(text[p-1]) {
			return -1
		}
		return skipBlanksLeft(text, p-1)
	}
	if p == 0 || !isBlank(text[p-1]) || !isBlank(text[j-1]) {
		return -1
	}
	return skipBlanksLeft(text, p)
}

func skipBlanksLeft(s string, i int) int {
	for i > 0 && isBlank(s[i-1]) {
		i--
	}
	return i
}

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordStart reports whether text[i] starts a word: nothing before it, or not a letter or digit.
func wordStart(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return i == 0 || !isAlnum(r) && r != '_'
}

func isBlank(c byte) bool       { return c == ' ' || c == '\t' }
func isOpener(c byte) bool      { return c == '(' || c == '[' || c == '{' || c == '<' }
func isCloser(c byte) bool      { return c == ')' || c == ']' || c == '}' || c == '>' }
func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

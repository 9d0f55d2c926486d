package modmatch

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Contact details are found on the text as written (not normalised), by small fixed
// expressions checked further in Go. Each finder returns the first detail found, or "".

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

const label = `[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?`

var (
	emailRE = regexp.MustCompile(`(?i)[a-z0-9][a-z0-9._%+\-]*[ \t]?@[ \t]?` + label + `(?:\.` + label + `)*\.[a-z]{2,24}\b`)
	phoneRE = regexp.MustCompile(`(?:\+[ \t]?)?(?:\(\d{1,5}\)|\d)(?:(?:[ \t]|[ \t]?[.\-][ \t]?)?(?:\(\d{1,5}\)|\d))*`)
)

// Each finder first looks for what any match must contain (an '@', a known top-level domain
// after a dot, enough digits), so that ordinary text costs a scan, not a regular expression.
// Obfuscated addresses and links are parsed by hand from their top-level domain leftwards:
// a dot is written ".", "[.]", "(.)", "(dot)", " dot " (any bracket of ()[]{}<>), an at
// "@", "(at)", "(@)", " at ".

func findEmail(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		// The expression runs on a window around the '@': the local part before it (and one
		// space), at most 255 bytes of domain after.
		l := i
		if l > 0 && (text[l-1] == ' ' || text[l-1] == '\t') {
			l--
		}
		for l > 0 && isLocalPart(text[l-1]) {
			l--
		}
		if s := emailRE.FindString(text[l:min(len(text), i+256)]); s != "" {
			return s
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
		l := p
		for l > 0 && isLocalPart(text[l-1]) {
			l--
		}
		if l == p || !isASCIIAlnum(text[l]) || !wordStart(text, l) {
			continue
		}
		return text[l:end]
	}
	return ""
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
			for l > 0 && isASCIILetter(text[l-1]) {
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
	for p := dotSepBefore(text, j); p >= 0; p = dotSepBefore(text, start) {
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

// findPhone finds 7 to 15 digits written as a phone number: groups separated by a space, a
// dot or a dash, area codes in parentheses, a leading +. Digits without any separator count
// only from 10 (a bare 7-digit number is more often an amount or an id). Dates (2024-01-02,
// 02.01.2024), year ranges (1990-2024), decimals (3.14159265), IPv4 addresses and
// dot-grouped thousands (1.000.000) are not phone numbers.
func findPhone(text string) string {
	// phoneRE only matches within spans of digits and the separators, so it runs on the
	// spans with at least 7 digits.
	for i := 0; i < len(text); {
		if !isPhoneByte(text[i]) {
			i++
			continue
		}
		j, digits := i, 0
		for ; j < len(text) && isPhoneByte(text[j]); j++ {
			if '0' <= text[j] && text[j] <= '9' {
				digits++
			}
		}
		if digits >= 7 {
			if s := findPhoneIn(text, i, j); s != "" {
				return s
			}
		}
		i = j
	}
	return ""
}

func isPhoneByte(c byte) bool {
	return '0' <= c && c <= '9' || c == ' ' || c == '\t' || c == '+' || c == '(' || c == ')' || c == '.' || c == '-'
}

// findPhoneIn looks for a phone number in text[from:to].
func findPhoneIn(text string, from, to int) string {
	for _, m := range phoneRE.FindAllStringIndex(text[from:to], 50) {
		start := from + m[0]
		s := strings.TrimRight(text[start:from+m[1]], " \t")
		if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && (isAlnum(r) || r == '.' || r == '-' || r == '/' || r == ':' || r == ',') {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(text[start+len(s):]); start+len(s) < len(text) && (isAlnum(r) || r == '/' || r == ':' || r == ',' && nextIsDigit(text[start+len(s):])) {
			continue
		}
		if isPhone(s) {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func nextIsDigit(s string) bool { return len(s) > 1 && '0' <= s[1] && s[1] <= '9' }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isPhone decides on a candidate phoneRE found.
func isPhone(s string) bool {
	// The digit groups and the separator before each (after the first).
	var groups []string
	var seps []string
	plus, parens := false, false
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && (s[j] < '0' || s[j] > '9') {
			switch s[j] {
			case '+':
				plus = true
			case '(', ')':
				parens = true
			}
			j++
		}
		sep := strings.TrimSpace(strings.Map(func(r rune) rune {
			if r == '(' || r == ')' || r == '+' {
				return -1
			}
			return r
		}, s[i:j]))
		if sep == "" {
			sep = " "
		}
		k := j
		for k < len(s) && '0' <= s[k] && s[k] <= '9' {
			k++
		}
		if k > j {
			if len(groups) > 0 {
				seps = append(seps, sep)
			}
			groups = append(groups, s[j:k])
		}
		i = k
	}
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	if n < 7 || n > 15 {
		return false
	}
	if len(groups) == 1 {
		return plus || n >= 10
	}
	if plus || parens {
		return true
	}
	allSep := func(want string) bool {
		for _, x := range seps {
			if x != want {
				return false
			}
		}
		return true
	}
	switch {
	case len(groups) == 2 && allSep("."): // a decimal
		return false
	case len(groups) == 2 && allSep("-") && isYear(groups[0]) && isYear(groups[1]): // a range of years
		return false
	case len(groups) == 4 && allSep(".") && isOctets(groups): // an IPv4 address
		return false
	case allSep(".") && isThousands(groups):
		return false
	}
	for k := 0; k+2 < len(groups); k++ {
		if seps[k] != " " && seps[k] == seps[k+1] && isDate(groups[k], groups[k+1], groups[k+2]) {
			return false
		}
	}
	return true
}

func isYear(g string) bool {
	return len(g) == 4 && (strings.HasPrefix(g, "19") || strings.HasPrefix(g, "20"))
}

func isOctets(gs []string) bool {
	for _, g := range gs {
		if v, err := strconv.Atoi(g); err != nil || len(g) > 3 || v > 255 {
			return false
		}
	}
	return true
}

func isThousands(gs []string) bool {
	if len(gs[0]) > 3 {
		return false
	}
	for _, g := range gs[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// isDate reports whether three groups read as year-month-day or day-month-year (either
// order of day and month).
func isDate(a, b, c string) bool {
	small := func(g string, max int) bool {
		v, err := strconv.Atoi(g)
		return err == nil && len(g) <= 2 && v >= 1 && v <= max
	}
	dm := func(x, y string) bool {
		return (small(x, 31) && small(y, 12)) || (small(x, 12) && small(y, 31))
	}
	switch {
	case len(a) == 4 && dm(b, c):
		return true
	case (len(c) == 4 || len(c) == 2) && dm(a, b):
		return true
	}
	return false
}

// containsFoldASCII reports whether s contains sub (lower-case ASCII), ignoring ASCII case.
func containsFoldASCII(s, sub string) bool {
	n := len(sub)
outer:
	for i := 0; i+n <= len(s); i++ {
		for j := 0; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				continue outer
			}
		}
		return true
	}
	return false
}

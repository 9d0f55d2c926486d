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

// The separators an address is written with: "@", "(at)", " at "; ".", "[.]", "(dot)", " dot ".
const (
	atSep  = `(?:[ \t]*[(\[{<][ \t]*(?:at|@)[ \t]*[)\]}>][ \t]*|[ \t]+at[ \t]+)`
	dotSep = `(?:\.|[ \t]*[(\[{<][ \t]*(?:dot|\.)[ \t]*[)\]}>][ \t]*|[ \t]+dot[ \t]+)`
	label  = `[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?`
)

var (
	emailRE      = regexp.MustCompile(`(?i)[a-z0-9][a-z0-9._%+\-]*[ \t]?@[ \t]?` + label + `(?:\.` + label + `)*\.[a-z]{2,24}\b`)
	emailObfusRE = regexp.MustCompile(`(?i)\b[a-z0-9][a-z0-9._%+\-]*` + atSep + label + `(?:` + dotSep + label + `)*` + dotSep + `([a-z]{2,24})\b`)
	linkRE       = regexp.MustCompile(`(?i)\b(?:https?://|ftp://|www\.)[^\s<>"']+|\b(?:` + label + dotSep + `)+([a-z]{2,12})\b(/[^\s<>"']*)?`)
	phoneRE      = regexp.MustCompile(`(?:\+[ \t]?)?(?:\(\d{1,5}\)|\d)(?:(?:[ \t]|[ \t]?[.\-][ \t]?)?(?:\(\d{1,5}\)|\d))*`)
)

// Each finder first looks for what any match must contain (an '@', a known top-level domain
// after a dot, enough digits), so that ordinary text costs a scan, not a regular expression.

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
	// Obfuscated, around each top-level domain after a dot-like separator.
	return searchWindows(text, nextDomainHint, 200, 64, func(w string, _ int) string {
		for _, m := range emailObfusRE.FindAllStringSubmatchIndex(w, 20) {
			if tlds[strings.ToLower(w[m[2]:m[3]])] {
				return w[m[0]:m[1]]
			}
		}
		return ""
	})
}

func isLocalPart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._%+-", c) >= 0
}

func findLink(text string) string {
	return searchWindows(text, nextLinkHint, 200, 256, func(w string, at int) string {
		for _, m := range linkRE.FindAllStringSubmatchIndex(w, 20) {
			s := strings.TrimRight(w[m[0]:m[1]], ".,;:!?)]}'\"")
			if m[2] < 0 { // scheme or www.
				return s
			}
			if at+m[0] > 0 && text[at+m[0]-1] == '@' { // the domain of an email address
				continue
			}
			tld := strings.ToLower(w[m[2]:m[3]])
			if !tlds[tld] || (wordTLDs[tld] && m[4] < 0) {
				continue
			}
			return s
		}
		return ""
	})
}

// searchWindows calls find on windows of text around each position next finds (before bytes
// before it, from a word start, and after bytes after it), and returns the first detail one
// finds. After 16 windows, it searches the rest of the text at once.
func searchWindows(text string, next func(text string, from int) int, before, after int, find func(w string, at int) string) string {
	for n, from := 0, 0; from < len(text); n++ {
		a := next(text, from)
		if a < 0 {
			return ""
		}
		lo, hi := max(0, a-before), min(len(text), a+after)
		if n == 16 {
			hi = len(text)
		}
		if lo > 0 {
			if sp := strings.IndexAny(text[lo:a], " \t\n"); sp >= 0 {
				lo += sp + 1
			}
			for lo < a && !utf8.RuneStart(text[lo]) {
				lo++
			}
		}
		for hi < len(text) && !utf8.RuneStart(text[hi]) {
			hi--
		}
		if s := find(text[lo:hi], lo); s != "" || hi == len(text) && n == 16 {
			return s
		}
		from = a + 1
	}
	return ""
}

// nextLinkHint returns the index, from from, of the next "://", "www." or domain hint, or -1.
func nextLinkHint(text string, from int) int {
	for i := from; i < len(text); i++ {
		switch text[i] {
		case ':':
			if strings.HasPrefix(text[i:], "://") {
				return i
			}
		case 'w', 'W':
			if len(text) >= i+4 && containsFoldASCII(text[i:i+4], "www.") {
				return i
			}
		case '.', 'd', 'D':
			if isDomainHint(text, i) {
				return i
			}
		}
	}
	return -1
}

// nextDomainHint returns the index, from from, of the next domain hint, or -1.
func nextDomainHint(text string, from int) int {
	for i := from; i < len(text); i++ {
		if isDomainHint(text, i) {
			return i
		}
	}
	return -1
}

// isDomainHint reports whether a known top-level domain follows a dot-like separator at
// text[i] written in one of the ways dotSep accepts: ".com", "[.]com", "(.) com", " dot com",
// "(dot)com".
func isDomainHint(text string, i int) bool {
	var j int
	switch c := text[i]; {
	case c == '.':
		j = i + 1
		if j < len(text) && isCloser(text[j]) {
			j = skipBlanks(text, j+1)
		}
	case (c == 'd' || c == 'D') && i > 0 && (isBlank(text[i-1]) || isOpener(text[i-1])) && len(text) >= i+3 && containsFoldASCII(text[i:i+3], "dot"):
		j = i + 3
		if j < len(text) && isCloser(text[j]) {
			j++
		}
		k := skipBlanks(text, j)
		if k == j && j == i+3 {
			return false
		}
		j = k
	default:
		return false
	}
	k := j
	for k < len(text) && k-j <= 12 && isASCIILetter(text[k]) {
		k++
	}
	return k-j >= 2 && k-j <= 12 && (k == len(text) || !isASCIILetter(text[k]) && !('0' <= text[k] && text[k] <= '9')) &&
		tlds[strings.ToLower(text[j:k])]
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

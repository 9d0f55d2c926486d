package modmatch

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// phoneRE finds phone number candidates: digits and parenthesised area codes, separated by
// at most a blank, a dot or a dash (with blanks around), after an optional +. At most 24
// units, so a long run of digits makes many short candidates (refused by the boundary check)
// rather than one long one.
var phoneRE = regexp.MustCompile(`(?:\+[ \t]?)?(?:\(\d{1,5}\)|\d)(?:(?:[ \t]|[ \t]?[.\-][ \t]?)?(?:\(\d{1,5}\)|\d)){0,23}`)

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
	for _, m := range phoneRE.FindAllStringIndex(text[from:to], -1) {
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

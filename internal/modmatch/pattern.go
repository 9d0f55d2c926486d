package modmatch

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxProgramLen bounds a pattern's compiled program, in instructions: a short pattern can
// still expand to a large one (`[a-z]{1000}` is a thousand instructions), and the work per
// byte of text grows with it.
const MaxProgramLen = 10_000

// ValidatePattern refuses what Compile would refuse: an empty pattern, one longer than
// MaxPatternLen, one that does not parse as RE2 syntax, one whose program is larger than
// MaxProgramLen instructions, and one that can match an empty string (it would match every
// message, or every message with a word boundary or a line end).
func ValidatePattern(p string) error {
	_, err := compilePattern(p)
	return err
}

func compilePattern(p string) (pattern, error) {
	re, parsed, err := compileRegexp(p)
	if err != nil {
		return pattern{}, err
	}
	return newPattern(re, parsed), nil
}

func compileRegexp(p string) (*regexp.Regexp, *syntax.Regexp, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return nil, nil, &Error{Input: p, Reason: "the pattern is empty"}
	case len(p) > MaxPatternLen:
		return nil, nil, &Error{Input: p, Reason: fmt.Sprintf("the pattern is longer than %d bytes", MaxPatternLen)}
	case !utf8.ValidString(p):
		return nil, nil, &Error{Input: p, Reason: "the pattern is not valid UTF-8"}
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	re = re.Simplify()
	if matchesEmpty(re) {
		return nil, nil, &Error{Input: p, Reason: "the pattern can match an empty string, so it would match almost every message"}
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	if len(prog.Inst) > MaxProgramLen {
		return nil, nil, &Error{Input: p, Reason: fmt.Sprintf("the pattern is too complex (%d instructions compiled, at most %d)", len(prog.Inst), MaxProgramLen)}
	}
	rx, err := regexp.Compile(p)
	if err != nil {
		return nil, nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	return rx, re, nil
}

func syntaxReason(err error) string {
	if se, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s: %q", se.Code, se.Expr)
	}
	return err.Error()
}

// matchesEmpty reports whether re can match an empty string somewhere, reading every
// zero-width assertion (^, $, \b, \A …) as one that may hold.
func matchesEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return matchesEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || matchesEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !matchesEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if matchesEmpty(s) {
				return true
			}
		}
		return false
	}
	return true
}

// pattern is a compiled regular expression with the literals every match of it contains,
// checked first with a substring search: most patterns are skipped without running.
type pattern struct {
	re   *regexp.Regexp
	lits []literal
}

type literal struct {
	s    string
	b    []byte // s, case-folded (appendCaseFolded) if fold
	fold bool   // look for b in the folded text
}

func newPattern(re *regexp.Regexp, parsed *syntax.Regexp) pattern {
	p := pattern{re: re}
	for _, l := range requiredLiterals(parsed) {
		if strings.ContainsRune(l.s, utf8.RuneError) {
			continue // it also matches invalid bytes in the text
		}
		if l.fold {
			l.b = appendCaseFolded(nil, l.s)
		}
		p.lits = append(p.lits, l)
	}
	return p
}

// requiredLiterals returns literals that every match of re contains.
func requiredLiterals(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		return []literal{{s: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []literal
		for _, s := range re.Sub {
			out = append(out, requiredLiterals(s)...)
		}
		return out
	}
	return nil
}

// matches reports whether the pattern matches text; folded returns text case-folded.
func (p *pattern) matches(text string, folded func() []byte) bool {
	for _, l := range p.lits {
		if l.fold {
			if !bytes.Contains(folded(), l.b) {
				return false
			}
		} else if !strings.Contains(text, l.s) {
			return false
		}
	}
	return p.re.MatchString(text)
}

// appendCaseFolded appends s with each rune mapped to the smallest rune of its case-folding orbit
// (unicode.SimpleFold), the equivalence a case-insensitive regular expression matches by.
// Invalid bytes become U+FFFD, as the regular expression reads them.
func appendCaseFolded(b []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b = utf8.AppendRune(b, m)
	}
	return b
}

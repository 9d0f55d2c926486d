package modmatch

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// MaxProgramLen bounds a pattern's compiled program, in instructions: a short pattern can
// still expand to a large one (`(x{1,100}){1,100}`), and the work per byte of text grows
// with it.
const MaxProgramLen = 10_000

// ValidatePattern refuses what Compile would refuse: an empty pattern, one longer than
// MaxPatternLen, one that does not parse as RE2 syntax, one whose program is larger than
// MaxProgramLen instructions, and one that can match an empty string (it would match every
// message, or every message with a word boundary or a line end).
func ValidatePattern(p string) error {
	_, err := compilePattern(p)
	return err
}

func compilePattern(p string) (*regexp.Regexp, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return nil, &Error{Input: p, Reason: "the pattern is empty"}
	case len(p) > MaxPatternLen:
		return nil, &Error{Input: p, Reason: fmt.Sprintf("the pattern is longer than %d bytes", MaxPatternLen)}
	case !utf8.ValidString(p):
		return nil, &Error{Input: p, Reason: "the pattern is not valid UTF-8"}
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	re = re.Simplify()
	if matchesEmpty(re) {
		return nil, &Error{Input: p, Reason: "the pattern can match an empty string, so it would match almost every message"}
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	if len(prog.Inst) > MaxProgramLen {
		return nil, &Error{Input: p, Reason: fmt.Sprintf("the pattern is too complex (%d instructions compiled, at most %d)", len(prog.Inst), MaxProgramLen)}
	}
	rx, err := regexp.Compile(p)
	if err != nil {
		return nil, &Error{Input: p, Reason: "not a valid RE2 regular expression: " + syntaxReason(err)}
	}
	return rx, nil
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

package modmatch

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what Compile accepts.
const (
	MaxPatternLen = 512     // bytes per regex
	MaxKeywordLen = 100     // bytes per keyword
	MaxKeywords   = 100_000 // per Matcher
)

// Rule is one enabled moderation rule's conditions, in the order rules are evaluated.
type Rule struct {
	ID                    string   // returned in a Match
	Keywords              []string // words or phrases from the rule's keyword lists
	Patterns              []string // RE2 regular expressions
	Emails, Phones, Links bool     // contact-detail conditions
}

// Match is one rule that matched: at most one per rule, in the rules' order.
type Match struct {
	RuleID string
	Kind   string // "keyword", "regex", "email", "phone", "link"
	Term   string // the keyword, pattern or detected contact detail that matched
}

// Error says which input Compile refused and why.
type Error struct{ RuleID, Input, Reason string }

func (e *Error) Error() string {
	if e.RuleID == "" {
		return fmt.Sprintf("modmatch: %q: %s", e.Input, e.Reason)
	}
	return fmt.Sprintf("modmatch: rule %s: %q: %s", e.RuleID, e.Input, e.Reason)
}

// Matcher is a compiled set of rules. It is safe for concurrent use.
type Matcher struct {
	rules []compiledRule
}

type compiledRule struct {
	id                    string
	keywords              [][]string // each keyword as its words
	rawKeywords           []string
	patterns              []*regexp.Regexp
	emails, phones, links bool
}

// ValidateKeyword refuses a keyword Compile would refuse.
func ValidateKeyword(k string) error {
	switch {
	case !utf8.ValidString(k):
		return &Error{Input: k, Reason: "not valid UTF-8"}
	case len(k) > MaxKeywordLen:
		return &Error{Input: k, Reason: fmt.Sprintf("longer than %d bytes", MaxKeywordLen)}
	case len(words(k)) == 0:
		return &Error{Input: k, Reason: "has no letters or digits"}
	}
	return nil
}

// ValidatePattern refuses a pattern Compile would refuse.
func ValidatePattern(p string) error {
	_, err := compilePattern(p)
	return err
}

func compilePattern(p string) (*regexp.Regexp, error) {
	switch {
	case p == "":
		return nil, &Error{Input: p, Reason: "empty pattern"}
	case len(p) > MaxPatternLen:
		return nil, &Error{Input: p, Reason: fmt.Sprintf("longer than %d bytes", MaxPatternLen)}
	}
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		return nil, &Error{Input: p, Reason: err.Error()}
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, &Error{Input: p, Reason: err.Error()}
	}
	if re.MatchString("") {
		return nil, &Error{Input: p, Reason: "matches the empty string, so it would match every message"}
	}
	return re, nil
}

// Compile checks and compiles rules. Its error wraps *Error for the first bad input.
func Compile(rules []Rule) (*Matcher, error) {
	m := &Matcher{}
	n := 0
	for _, r := range rules {
		cr := compiledRule{id: r.ID, emails: r.Emails, phones: r.Phones, links: r.Links}
		for _, k := range r.Keywords {
			if err := ValidateKeyword(k); err != nil {
				return nil, withRule(err, r.ID)
			}
			n++
			if n > MaxKeywords {
				return nil, &Error{RuleID: r.ID, Input: k, Reason: fmt.Sprintf("more than %d keywords", MaxKeywords)}
			}
			cr.keywords = append(cr.keywords, words(k))
			cr.rawKeywords = append(cr.rawKeywords, k)
		}
		for _, p := range r.Patterns {
			re, err := compilePattern(p)
			if err != nil {
				return nil, withRule(err, r.ID)
			}
			cr.patterns = append(cr.patterns, re)
		}
		m.rules = append(m.rules, cr)
	}
	return m, nil
}

func withRule(err error, id string) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.RuleID = id
		return &c
	}
	return err
}

// Match returns the rules text matches, at most one Match per rule, in rule order.
func (m *Matcher) Match(text string) []Match {
	ws := words(text)
	var out []Match
	for _, r := range m.rules {
		if mt, ok := r.match(text, ws); ok {
			out = append(out, mt)
		}
	}
	return out
}

func (r *compiledRule) match(text string, ws []string) (Match, bool) {
	for i, k := range r.keywords {
		if containsSeq(ws, k) {
			return Match{RuleID: r.id, Kind: "keyword", Term: r.rawKeywords[i]}, true
		}
	}
	for _, re := range r.patterns {
		if re.MatchString(text) {
			return Match{RuleID: r.id, Kind: "regex", Term: re.String()}, true
		}
	}
	if r.emails {
		if s := emailRE.FindString(text); s != "" {
			return Match{RuleID: r.id, Kind: "email", Term: s}, true
		}
	}
	if r.phones {
		if s := phoneRE.FindString(text); s != "" {
			return Match{RuleID: r.id, Kind: "phone", Term: s}, true
		}
	}
	if r.links {
		if s := linkRE.FindString(text); s != "" {
			return Match{RuleID: r.id, Kind: "link", Term: s}, true
		}
	}
	return Match{}, false
}

var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	phoneRE = regexp.MustCompile(`\+?\d[\d\s().-]{5,18}\d`)
	linkRE  = regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+`)
)

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func containsSeq(ws, k []string) bool {
	for i := 0; i+len(k) <= len(ws); i++ {
		ok := true
		for j := range k {
			if ws[i+j] != k[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

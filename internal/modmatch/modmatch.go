package modmatch

import (
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

// Limits on what Compile accepts and on what Match reads.
const (
	MaxPatternLen = 512      // bytes per regex
	MaxKeywordLen = 100      // bytes per keyword
	MaxKeywords   = 100_000  // per Matcher
	MaxTextLen    = 64 << 10 // bytes of a text Match reads; the rest is not evaluated
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

// The kinds of Match.
const (
	KindKeyword = "keyword"
	KindRegex   = "regex"
	KindEmail   = "email"
	KindPhone   = "phone"
	KindLink    = "link"
)

// Error says which input Compile (or a Validate function, with no RuleID) refused, and why.
type Error struct{ RuleID, Input, Reason string }

func (e *Error) Error() string {
	if e.RuleID == "" {
		return fmt.Sprintf("%q: %s", e.Input, e.Reason)
	}
	return fmt.Sprintf("rule %s: %q: %s", e.RuleID, e.Input, e.Reason)
}

// Matcher is a compiled set of rules. It is safe for concurrent use.
type Matcher struct {
	rules    []compiledRule
	keywords []string // the keywords as given, for Match.Term
	ac       *automaton
	patEnt   []int32 // per automaton pattern, its entries are entries[patEnt[p]:patEnt[p+1]]
	entries  []entry
	reqs     []runReq
	pool     sync.Pool // *normalizer
}

type compiledRule struct {
	id                    string
	patterns              []pattern
	emails, phones, links bool
}

// entry is one keyword of one rule, in one of the two streams.
type entry struct {
	rule         int32
	keyword      int32
	stream       uint8 // 1, 2 or both (3)
	reqLo, reqHi int32 // its runReqs
}

// runReq asks that the text's run at offset off of a keyword occurrence be at least n long:
// a keyword's doubled letter ("ass") needs a doubled letter in the text ("as" does not match).
type runReq struct {
	off int32
	n   uint8
}

// ValidateKeyword refuses what Compile would refuse: a keyword that is not UTF-8, is longer
// than MaxKeywordLen bytes, or has no letter or digit.
func ValidateKeyword(k string) error {
	var n normalizer
	_, err := checkKeyword(&n, k)
	return err
}

// checkKeyword validates k and leaves its two streams in n.
func checkKeyword(n *normalizer, k string) (differ bool, err error) {
	switch {
	case !utf8.ValidString(k):
		return false, &Error{Input: k, Reason: "the keyword is not valid UTF-8"}
	case len(k) > MaxKeywordLen:
		return false, &Error{Input: k, Reason: fmt.Sprintf("the keyword is longer than %d bytes", MaxKeywordLen)}
	}
	differ = n.normalize(k)
	if len(n.s1.b) == 1 && (!differ || len(n.s2.b) == 1) {
		return false, &Error{Input: k, Reason: "the keyword has no letter or digit"}
	}
	return differ, nil
}

// Compile checks and compiles rules. Its error wraps *Error for the first bad input.
func Compile(rules []Rule) (*Matcher, error) {
	m := &Matcher{rules: make([]compiledRule, len(rules))}
	b := newACBuilder()
	type pending struct {
		pat int32
		e   entry
	}
	var ents []pending
	var n normalizer
	for ri, r := range rules {
		cr := &m.rules[ri]
		cr.id, cr.emails, cr.phones, cr.links = r.ID, r.Emails, r.Phones, r.Links
		for _, k := range r.Keywords {
			if len(m.keywords) == MaxKeywords {
				return nil, ruleError(&Error{Input: k, Reason: fmt.Sprintf("more than %d keywords in all rules", MaxKeywords)}, r.ID)
			}
			differ, err := checkKeyword(&n, k)
			if err != nil {
				return nil, ruleError(err, r.ID)
			}
			ki := int32(len(m.keywords))
			m.keywords = append(m.keywords, k)
			add := func(s *stream, which uint8) {
				if len(s.b) == 1 {
					return
				}
				e := entry{rule: int32(ri), keyword: ki, stream: which, reqLo: int32(len(m.reqs))}
				for i, c := range s.b {
					if s.runs[i] > 1 && (c < utf8.RuneSelf || utf8.RuneStart(c)) {
						m.reqs = append(m.reqs, runReq{off: int32(i), n: s.runs[i]})
					}
				}
				e.reqHi = int32(len(m.reqs))
				ents = append(ents, pending{b.add(s.b), e})
			}
			if differ {
				add(&n.s1, 1)
				add(&n.s2, 2)
			} else {
				add(&n.s1, 3)
			}
		}
		for _, p := range r.Patterns {
			re, err := compilePattern(p)
			if err != nil {
				return nil, ruleError(err, r.ID)
			}
			cr.patterns = append(cr.patterns, re)
		}
	}
	if len(ents) > 0 {
		m.ac = b.build()
		// Group the entries by pattern, keeping rule order within a pattern.
		m.patEnt = make([]int32, len(m.ac.patLen)+1)
		for _, p := range ents {
			m.patEnt[p.pat+1]++
		}
		for i := 1; i < len(m.patEnt); i++ {
			m.patEnt[i] += m.patEnt[i-1]
		}
		m.entries = make([]entry, len(ents))
		fill := append([]int32(nil), m.patEnt[:len(m.patEnt)-1]...)
		for _, p := range ents {
			m.entries[fill[p.pat]] = p.e
			fill[p.pat]++
		}
	}
	m.pool.New = func() any { return new(normalizer) }
	return m, nil
}

func ruleError(err error, ruleID string) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.RuleID = ruleID
		return fmt.Errorf("compile moderation rules: %w", &c)
	}
	return err
}

// Match returns the rules text matches, at most one Match per rule, in rule order; nil when
// none does. It reads at most the first MaxTextLen bytes of text.
func (m *Matcher) Match(text string) []Match {
	if m == nil || len(m.rules) == 0 {
		return nil
	}
	if len(text) > MaxTextLen {
		cut := MaxTextLen
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var found []Match // per rule, once anything matched
	nfound := 0
	set := func(rule int, mt Match) {
		if found == nil {
			found = make([]Match, len(m.rules))
		}
		if found[rule].Kind == "" {
			found[rule] = mt
			nfound++
		}
	}

	if m.ac != nil {
		n := m.pool.Get().(*normalizer)
		scan := func(s *stream, which uint8) {
			m.ac.scan(s.b, func(pat int32, end int) bool {
				start := end - int(m.ac.patLen[pat])
				for _, e := range m.entries[m.patEnt[pat]:m.patEnt[pat+1]] {
					if e.stream&which == 0 || (found != nil && found[e.rule].Kind != "") {
						continue
					}
					ok := true
					for _, rq := range m.reqs[e.reqLo:e.reqHi] {
						if s.runs[start+int(rq.off)] < rq.n {
							ok = false
							break
						}
					}
					if ok {
						set(int(e.rule), Match{RuleID: m.rules[e.rule].id, Kind: KindKeyword, Term: m.keywords[e.keyword]})
					}
				}
				return nfound < len(m.rules)
			})
		}
		if n.normalize(text) {
			scan(&n.s1, 1)
			scan(&n.s2, 2)
		} else {
			scan(&n.s1, 3)
		}
		m.pool.Put(n)
	}

	var folded *string
	fold := func() string {
		if folded == nil {
			f := foldString(text)
			folded = &f
		}
		return *folded
	}
	var email, phone, link *string
	detect := func(p **string, find func(string) string) string {
		if *p == nil {
			s := find(text)
			*p = &s
		}
		return **p
	}
	for i := range m.rules {
		if found != nil && found[i].Kind != "" {
			continue
		}
		r := &m.rules[i]
		if mt, ok := r.matchOthers(text, fold, func(kind string) string {
			switch kind {
			case KindEmail:
				return detect(&email, findEmail)
			case KindPhone:
				return detect(&phone, findPhone)
			}
			return detect(&link, findLink)
		}); ok {
			set(i, mt)
		}
	}
	if nfound == 0 {
		return nil
	}
	out := make([]Match, 0, nfound)
	for _, mt := range found {
		if mt.Kind != "" {
			out = append(out, mt)
		}
	}
	return out
}

// matchOthers evaluates a rule's conditions other than keywords: its patterns in order, then
// emails, phones and links.
func (r *compiledRule) matchOthers(text string, folded func() string, contact func(kind string) string) (Match, bool) {
	for i := range r.patterns {
		if p := &r.patterns[i]; p.matches(text, folded) {
			return Match{RuleID: r.id, Kind: KindRegex, Term: p.re.String()}, true
		}
	}
	for _, c := range [...]struct {
		on   bool
		kind string
	}{{r.emails, KindEmail}, {r.phones, KindPhone}, {r.links, KindLink}} {
		if c.on {
			if s := contact(c.kind); s != "" {
				return Match{RuleID: r.id, Kind: c.kind, Term: s}, true
			}
		}
	}
	return Match{}, false
}

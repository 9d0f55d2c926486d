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
	pool     sync.Pool // *evaluation
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
// than MaxKeywordLen bytes, or has no letter, digit or emoji.
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
		return false, &Error{Input: k, Reason: "the keyword has no letter, digit or emoji"}
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
			pt, err := compilePattern(p)
			if err != nil {
				return nil, ruleError(err, r.ID)
			}
			cr.patterns = append(cr.patterns, pt)
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
	m.pool.New = func() any { return new(evaluation) }
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
	ev := m.pool.Get().(*evaluation)
	ev.reset(m, text)
	defer m.pool.Put(ev)
	defer ev.release()

	if m.ac != nil {
		n := &ev.n
		if n.normalize(text) {
			ev.scan(&n.s1, 1)
			ev.scan(&n.s2, 2)
		} else {
			ev.scan(&n.s1, 3)
		}
	}
	for i := range m.rules {
		if ev.nfound == len(m.rules) {
			break
		}
		if ev.found[i].Kind == "" {
			ev.matchOthers(i)
		}
	}
	if ev.nfound == 0 {
		return nil
	}
	out := make([]Match, 0, ev.nfound)
	for _, mt := range ev.found {
		if mt.Kind != "" {
			out = append(out, mt)
		}
	}
	return out
}

// evaluation is the state of one Match, pooled with its buffers.
type evaluation struct {
	m       *Matcher
	text    string
	n       normalizer
	found   []Match // per rule, what matched first
	nfound  int
	folded  []byte // text case-folded, once a pattern needs it
	foldOK  bool
	contact [3]string // email, phone, link found in text, once a rule asks
	checked [3]bool
}

func (ev *evaluation) reset(m *Matcher, text string) {
	ev.m, ev.text, ev.nfound, ev.foldOK, ev.checked = m, text, 0, false, [3]bool{}
	if cap(ev.found) < len(m.rules) {
		ev.found = make([]Match, len(m.rules))
	}
	ev.found = ev.found[:len(m.rules)]
	clear(ev.found)
}

// release drops what refers to the text, so that a pooled evaluation does not keep it.
func (ev *evaluation) release() {
	ev.text, ev.contact = "", [3]string{}
	clear(ev.found)
}

func (ev *evaluation) set(rule int, mt Match) {
	if ev.found[rule].Kind == "" {
		ev.found[rule] = mt
		ev.nfound++
	}
}

// scan runs the keyword automaton over one reading of the text; which is the reading's bit
// (1, 2, or 3 for both when they are the same).
func (ev *evaluation) scan(s *stream, which uint8) {
	m := ev.m
	m.ac.scan(s.b, func(pat int32, end int) bool {
		start := end - int(m.ac.patLen[pat])
	entries:
		for _, e := range m.entries[m.patEnt[pat]:m.patEnt[pat+1]] {
			if e.stream&which == 0 || ev.found[e.rule].Kind != "" {
				continue
			}
			for _, rq := range m.reqs[e.reqLo:e.reqHi] {
				if s.runs[start+int(rq.off)] < rq.n {
					continue entries
				}
			}
			ev.set(int(e.rule), Match{RuleID: m.rules[e.rule].id, Kind: KindKeyword, Term: m.keywords[e.keyword]})
		}
		return ev.nfound < len(m.rules)
	})
}

// matchOthers evaluates rule i's conditions other than keywords: its patterns in order, then
// emails, phones and links.
func (ev *evaluation) matchOthers(i int) {
	r := &ev.m.rules[i]
	for j := range r.patterns {
		if p := &r.patterns[j]; p.matches(ev.text, ev.fold) {
			ev.set(i, Match{RuleID: r.id, Kind: KindRegex, Term: p.re.String()})
			return
		}
	}
	for k, c := range [...]struct {
		on   bool
		kind string
		find func(string) string
	}{{r.emails, KindEmail, findEmail}, {r.phones, KindPhone, findPhone}, {r.links, KindLink, findLink}} {
		if !c.on {
			continue
		}
		if !ev.checked[k] {
			ev.contact[k], ev.checked[k] = c.find(ev.text), true
		}
		if s := ev.contact[k]; s != "" {
			ev.set(i, Match{RuleID: r.id, Kind: c.kind, Term: s})
			return
		}
	}
}

// fold returns the text case-folded (appendCaseFolded), computed once.
func (ev *evaluation) fold() []byte {
	if !ev.foldOK {
		ev.folded, ev.foldOK = appendCaseFolded(ev.folded[:0], ev.text), true
	}
	return ev.folded
}

package modmatch

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustCompile(tb testing.TB, rules []Rule) *Matcher {
	tb.Helper()
	m, err := Compile(rules)
	if err != nil {
		tb.Fatalf("Compile: %v", err)
	}
	return m
}

// keywordMatches reports whether a matcher of the one keyword matches text.
func keywordMatches(tb testing.TB, keyword, text string) bool {
	tb.Helper()
	m := mustCompile(tb, []Rule{{ID: "r", Keywords: []string{keyword}}})
	return m.Match(text) != nil
}

func TestKeywordNormalisation(t *testing.T) {
	tests := []struct {
		keyword, text string
		want          bool
	}{
		// Case and accents, both ways, and compatibility forms.
		{"bad", "that is BAD", true},
		{"cafe", "un Café noir", true},
		{"Café", "a CAFE", true},
		{"naïve", "so naive", true},
		{"naive", "NAÏVE", true},
		{"strasse", "die Straße", true},
		{"ore", "ØRE", true},
		{"bad", "ｂａｄ", true},      // fullwidth
		{"bad", "𝐛𝐚𝐝 news", true}, // mathematical bold
		{"lodz", "Łódź", true},
		// Cyrillic and Greek lookalikes, in words that mix them with Latin letters only.
		{"paypal", "p\u0430yp\u0430l", true}, // Cyrillic а
		{"paypal", "\u0420\u0410YPAL", true}, // Cyrillic Р and А, capitals
		{"cop", "\u0441\u043e\u0440", false}, // the Russian word сор
		{"hello", "h\u03b5llo", true},        // Greek ε
		// Whole words and phrases.
		{"very rude", "you are VERY,   rude!", true},
		{"very rude", "very\nrude", true},
		{"very rude", "veryrude", false},
		{"very rude", "every rude", false},
		{"bad", "a bad day", true},
		{"abad", "a bad day", false},
		{"bad", "bad!", true},
		{"bad", "(bad)", true},
		{"bob", "@bob hello", true},
		{"bad", "joe@bad.com", true},
		// Spacing and punctuation inside a word.
		{"bad", "so b a d", true},
		{"bad", "so b.a.d", true},
		{"bad", "so b-a-d", true},
		{"bad", "so b_a_d", true},
		{"bad", "so b * a * d", true},
		{"shit", "sh.it", true},
		{"shit", "s h ! t", true},
		{"bad", "b\na\nd", false}, // lines are not joined
		{"bad", "b    a    d", false},
		// Repeated letters, and keywords with a double letter of their own.
		{"bad", "baaaaad", true},
		{"bad", "bbbaaadddd", true},
		{"ass", "ass", true},
		{"ass", "asssss", true},
		{"ass", "a s s", true},
		{"ass", "as", false},
		{"ass", "a s", false},
		{"hello", "heeellllooo", true},
		{"hello", "helo", false},
		{"kill", "kil", false},
		// Leetspeak, with 1, l, i, | and ! one class.
		{"hello", "h3ll0", true},
		{"hello", "he11o", true},
		{"hello", "HE||0", true},
		{"ass", "a55", true},
		{"ass", "@ss", true},
		{"ass", "a$$", true},
		{"shit", "sh!t", true},
		{"shit", "$hit", true},
		{"shit", "5h1t", true},
		{"idiot", "id!0t", true},
		{"lol", "l0l", true},
		{"lol", "1o1", true},
		{"leet", "1337", false}, // a number stays a number
		{"ass", "455", false},
		{"b@d", "bad", true},
		{"b@d", "b@d", true},
		{"a55", "ass", true},
		// Numbers are words of digits, not collapsed.
		{"420", "420", true},
		{"420", "4200", false},
		{"100", "1000", false},
		{"100", "100%", true},
		// Scripts without spaces: each character is a word.
		{"坏蛋", "你是坏蛋", true},
		{"坏蛋", "你是坏人", false},
		{"哈哈", "哈哈哈", true},
		// Emoji are words of their own.
		{"🍆", "nice 🍆!", true},
		{"🍆", "🍆🍆🍆", true},
		{"👍", "ok 👍🏽", true},
		{"👨‍👩‍👧", "family: 👨‍👩‍👧", true},
		{"🍆", "nice", false},
		// Scunthorpe and friends: never a substring.
		{"cunt", "Scunthorpe", false},
		{"cunt", "S c u n t h o r p e", false},
		{"ass", "class", false},
		{"ass", "cl@ss", false},
		{"ass", "bass", false},
		{"ass", "assassin", false},
		{"ass", "passage", false},
		{"sex", "Sussex", false},
		{"tit", "title", false},
		{"tit", "t i t l e", false},
		{"cum", "cucumber", false},
		{"hell", "hello", false},
		{"hell", "shell", false},
		{"cock", "peacock", false},
		{"bad", "badge", false},
		{"bad", "b a d g e", false},
		{"nazi", "a Nazir", false},
		{"penis", "Penistone", false},
		{"arse", "Arsenal won", false},
		{"sex", "Middlesex", false},
		{"cock", "Cockburn", false},
		{"shit", "shiitake", false},
		{"shit", "Matsushita", false},
		{"rape", "grape juice", false},
		{"rapist", "my therapist", false},
		{"rapist", "the-rapist", true}, // a dash separates words (reading 1)
		{"anal", "analysis", false},
		{"dick", "Dickens", false},
		{"butt", "button", false},
		{"cialis", "specialist", false},
		{"ass", "a ss", false},
		{"ass", "as s", false},
	}
	for _, tt := range tests {
		if got := keywordMatches(t, tt.keyword, tt.text); got != tt.want {
			t.Errorf("keyword %q in %q: matched %v, want %v", tt.keyword, tt.text, got, tt.want)
		}
	}
}

func TestMatchRulesInOrder(t *testing.T) {
	m := mustCompile(t, []Rule{
		{ID: "kw", Keywords: []string{"spam", "scam", "buy now"}},
		{ID: "re", Patterns: []string{`(?i)free\s+money`, `\d{4}-\d{4}`}},
		{ID: "contacts", Emails: true, Phones: true, Links: true},
		{ID: "kw-and-re", Keywords: []string{"scam"}, Patterns: []string{`scam`}},
		{ID: "empty"},
	})
	tests := []struct {
		text string
		want []Match
	}{
		{"hello there", nil},
		{"", nil},
		{"a scam, a spam", []Match{
			{"kw", "keyword", "scam"}, // the first in the text
			{"kw-and-re", "keyword", "scam"},
		}},
		{"BUY  NOW: free   money", []Match{
			{"kw", "keyword", "buy now"},
			{"re", "regex", `(?i)free\s+money`},
		}},
		{"Free money, mail joe@example.com or call 555-123-4567", []Match{
			{"re", "regex", `(?i)free\s+money`},
			{"contacts", "email", "joe@example.com"},
		}},
		{"call 555-123-4567", []Match{{"contacts", "phone", "555-123-4567"}}},
		{"see www.example.com", []Match{{"contacts", "link", "www.example.com"}}},
		{"scammer", []Match{{"kw-and-re", "regex", "scam"}}}, // a pattern is not a whole word
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, m.Match(tt.text)); diff != "" {
			t.Errorf("Match(%q) -want +got:\n%s", tt.text, diff)
		}
	}
}

func TestMatchEmptyMatcher(t *testing.T) {
	for _, m := range []*Matcher{nil, mustCompile(t, nil), mustCompile(t, []Rule{{ID: "x"}})} {
		if got := m.Match("anything at all, joe@example.com"); got != nil {
			t.Errorf("Match = %v, want nil", got)
		}
	}
}

func TestSameKeywordManyRules(t *testing.T) {
	var rules []Rule
	var want []Match
	for i := range 70 {
		id := fmt.Sprint("r", i)
		rules = append(rules, Rule{ID: id, Keywords: []string{"other", "Bad", "b a d"}})
		want = append(want, Match{id, "keyword", "Bad"})
	}
	m := mustCompile(t, rules)
	if diff := cmp.Diff(want, m.Match("so bad")); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

func TestMatchReadsAtMostMaxTextLen(t *testing.T) {
	m := mustCompile(t, []Rule{{ID: "r", Keywords: []string{"needle"}, Patterns: []string{"haystack"}}})
	pad := strings.Repeat("é ", MaxTextLen/3-4) // 2-byte runes, so the cut falls inside one
	if got := m.Match(pad + " needle"); len(got) != 1 {
		t.Errorf("needle inside the limit: %v", got)
	}
	pad = strings.Repeat("é ", MaxTextLen/3+1)
	if got := m.Match(pad + " needle haystack"); got != nil {
		t.Errorf("needle past the limit: %v", got)
	}
}

func TestValidateKeyword(t *testing.T) {
	tests := []struct {
		keyword string
		ok      bool
	}{
		{"bad", true},
		{"a", true},
		{"Café au lait", true},
		{"42", true},
		{"坏", true},
		{strings.Repeat("a", MaxKeywordLen), true},
		{strings.Repeat("a", MaxKeywordLen+1), false},
		{"", false},
		{"   ", false},
		{"!!!", false},
		{"@$!|", false},
		{"🍆", true},
		{"...", false},
		{"\xff\xfe", false},
	}
	for _, tt := range tests {
		err := ValidateKeyword(tt.keyword)
		var e *Error
		if tt.ok && err != nil || !tt.ok && !errors.As(err, &e) {
			t.Errorf("ValidateKeyword(%q) = %v, want ok %v", tt.keyword, err, tt.ok)
		}
	}
}

func TestValidatePattern(t *testing.T) {
	tests := []struct {
		pattern string
		reason  string // a part of Error.Reason; "" for accepted
	}{
		{`(?i)buy\s+now`, ""},
		{`\bfoo\b`, ""},
		{`(a+)+$`, ""},
		{`(x|x|x)*y`, ""},
		{`^hello`, ""},
		{`a{2,}`, ""},
		{"", "empty"},
		{"  ", "empty"},
		{strings.Repeat("a", MaxPatternLen+1), "longer than"},
		{"(", "not a valid RE2"},
		{`a(?=b)`, "not a valid RE2"}, // lookahead is not RE2
		{`\1`, "not a valid RE2"},
		{`a{1001}`, "not a valid RE2"},
		{`a*`, "empty string"},
		{`x?`, "empty string"},
		{`\b`, "empty string"},
		{`^`, "empty string"},
		{`(?m)^$`, "empty string"},
		{`a|`, "empty string"},
		{`(a*)+`, "empty string"},
		{`(?:a{0,5}b?)`, "empty string"},
		{`a{1000}b{1000}c{1000}d{1000}e{1000}f{1000}g{1000}h{1000}i{1000}j{1000}k`, "too complex"},
		{"\xff", "UTF-8"},
	}
	for _, tt := range tests {
		err := ValidatePattern(tt.pattern)
		if tt.reason == "" {
			if err != nil {
				t.Errorf("ValidatePattern(%q) = %v, want nil", tt.pattern, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("ValidatePattern(%q) = %v, want a reason with %q", tt.pattern, err, tt.reason)
		}
	}
}

func TestCompileErrorNamesRule(t *testing.T) {
	tests := []struct {
		rule  Rule
		input string
	}{
		{Rule{ID: "bad-re", Patterns: []string{"ok", "("}}, "("},
		{Rule{ID: "empty-re", Patterns: []string{"a*"}}, "a*"},
		{Rule{ID: "bad-kw", Keywords: []string{"fine", "!!!"}}, "!!!"},
		{Rule{ID: "long-kw", Keywords: []string{strings.Repeat("x", 101)}}, strings.Repeat("x", 101)},
	}
	for _, tt := range tests {
		_, err := Compile([]Rule{{ID: "ok", Keywords: []string{"fine"}, Patterns: []string{"fine"}}, tt.rule})
		var e *Error
		if !errors.As(err, &e) || e.RuleID != tt.rule.ID || e.Input != tt.input {
			t.Errorf("Compile(%v) = %v, want *Error naming %s and %q", tt.rule.ID, err, tt.rule.ID, tt.input)
			continue
		}
		if !strings.Contains(err.Error(), tt.rule.ID) {
			t.Errorf("error %q does not name rule %s", err, tt.rule.ID)
		}
	}
}

func TestCompileTooManyKeywords(t *testing.T) {
	kws := make([]string, MaxKeywords/2+1)
	for i := range kws {
		kws[i] = fmt.Sprint("w", i)
	}
	_, err := Compile([]Rule{{ID: "a", Keywords: kws}, {ID: "b", Keywords: kws}})
	var e *Error
	if !errors.As(err, &e) || e.RuleID != "b" {
		t.Fatalf("Compile of %d keywords = %v, want *Error naming rule b", 2*len(kws), err)
	}
}

func TestConcurrentMatch(t *testing.T) {
	m := mustCompile(t, []Rule{
		{ID: "kw", Keywords: []string{"bad", "very rude", "ass"}},
		{ID: "re", Patterns: []string{`(?i)free\s+money`}},
		{ID: "c", Emails: true, Phones: true, Links: true},
	})
	texts := map[string]int{
		"hello":                          0,
		"so b a d":                       1,
		"free money at joe@example.eu":   2,
		"a55 and free money":             2,
		"Café, no problem":               0,
		"very   rude, call 555 123 4567": 2,
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				for text, want := range texts {
					if got := m.Match(text); len(got) != want {
						t.Errorf("goroutine %d round %d: Match(%q) = %v, want %d matches", g, i, text, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestPatternPrefilter(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{`(?i)kelvin`, "\u212Aelvin", true}, // Kelvin sign folds to k
		{`(?i)kelvin`, "KELVIN", true},
		{`(?i)kelvin`, "kelvi", false},
		{`(?i)straße`, "STRAẞE", true},
		{`(?i)σx`, "ςX", true},
		{`kelvin`, "Kelvin", false},
		{`(?i)(bit|eth)coin\s+doubler`, "ETHCOIN   Doubler", true},
		{`x\x{FFFD}`, "x\xff", true}, // an invalid byte reads as U+FFFD
	}
	for _, tt := range tests {
		m := mustCompile(t, []Rule{{ID: "p", Patterns: []string{tt.pattern}}})
		if got := m.Match(tt.text) != nil; got != tt.want {
			t.Errorf("pattern %q on %q: matched %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

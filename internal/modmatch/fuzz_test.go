package modmatch

import (
	"strings"
	"testing"
)

var fuzzPatterns = func() []pattern {
	var ps []pattern
	for _, s := range []string{`(?i)kelvin`, `(?i)straße`, `(?i)buy\s+now`, `a+b`, `(?i)σ+x`, `(?i)ǅ`, `x\x{FFFD}`, `(?i)[a-z]+ing\b`} {
		p, err := compilePattern(s)
		if err != nil {
			panic(err)
		}
		ps = append(ps, p)
	}
	return ps
}()

// FuzzMatch checks that Match never panics, that normalisation keeps a run length per byte,
// and that a matched keyword still matches when its case or spacing changes.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"\u212Aelvin", "STRAẞE", "ς x", "ǆ", "x\xff", "bad", "hello", "ass", "b a d", "Café", "h3ll0!", "@bob x@y.com", "哈哈", "\xff", "a\u0301", "555-123-4567"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, text, keyword string) {
		rules := []Rule{{ID: "fixed", Keywords: []string{"bad", "very rude", "ass"}, Emails: true, Phones: true, Links: true}}
		if ValidateKeyword(keyword) == nil {
			rules = append(rules, Rule{ID: "fuzz", Keywords: []string{keyword}})
		}
		m, err := Compile(rules)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		m.Match(text)
		if ValidateKeyword(keyword) == nil {
			for _, in := range []string{keyword, "well " + keyword + " done", "(" + keyword + ")\n" + text} {
				if got := m.Match(in); len(got) == 0 || got[len(got)-1].RuleID != "fuzz" {
					t.Errorf("keyword %q does not match %q", keyword, in)
				}
			}
		}

		// The literal prefilter never skips a pattern that matches.
		for i := range fuzzPatterns {
			p := &fuzzPatterns[i]
			var folded []byte
			fold := func() []byte { return appendCaseFolded(folded[:0], text) }
			if got, want := p.matches(text, fold), p.re.MatchString(text); got != want {
				t.Errorf("pattern %q on %q: matches %v, regexp %v", p.re, text, got, want)
			}
		}

		var n normalizer
		streams := []*stream{&n.s1}
		if n.normalize(text) {
			streams = append(streams, &n.s2)
		}
		for _, s := range streams {
			if len(s.b) != len(s.runs) || s.b[0] != ' ' || s.b[len(s.b)-1] != ' ' {
				t.Fatalf("stream %q, runs %v", s.b, s.runs)
			}
		}

		// A word of ASCII letters made from the keyword, then written in other ways.
		var w []byte
		for i := 0; i < len(keyword) && len(w) < 12; i++ {
			w = append(w, 'a'+keyword[i]%26)
		}
		if len(w) < 2 {
			return
		}
		word := string(w)
		wm := mustCompile(t, []Rule{{ID: "w", Keywords: []string{word}}})
		spaced := strings.Join(strings.Split(word, ""), " ")
		for _, variant := range []string{
			word,
			strings.ToUpper(word),
			spaced,
			strings.ToUpper(spaced),
			strings.Join(strings.Split(word, ""), "."),
			strings.Join(strings.Split(word, ""), "-"),
			strings.Join(strings.Split(word, ""), " _ "),
		} {
			for _, text := range []string{variant, "well " + variant + " then", "(" + variant + ")!", "ok, " + variant + "."} {
				if wm.Match(text) == nil {
					t.Errorf("keyword %q does not match %q", word, text)
				}
			}
		}
	})
}

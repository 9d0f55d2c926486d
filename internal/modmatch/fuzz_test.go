package modmatch

import (
	"strings"
	"testing"
)

// FuzzMatch checks that Match never panics, that normalisation keeps a run length per byte,
// and that a matched keyword still matches when its case or spacing changes.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"bad", "hello", "ass", "b a d", "Café", "h3ll0!", "@bob x@y.com", "哈哈", "\xff", "a\u0301", "555-123-4567"} {
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
		if ValidateKeyword(keyword) == nil && m.Match(keyword) == nil {
			// A keyword matches itself, unless its own readings of '@' differ in a way
			// that splits it (stream 1 reads "a@b" as two words).
			if !strings.Contains(keyword, "@") {
				t.Errorf("keyword %q does not match itself", keyword)
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

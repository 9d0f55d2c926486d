package modmatch

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchBasic(t *testing.T) {
	m, err := Compile([]Rule{
		{ID: "r1", Keywords: []string{"bad", "very rude"}},
		{ID: "r2", Patterns: []string{`(?i)buy\s+now`}},
		{ID: "r3", Emails: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []Match
	}{
		{"hello", nil},
		{"that is BAD", []Match{{"r1", "keyword", "bad"}}},
		{"you are very  rude", []Match{{"r1", "keyword", "very rude"}}},
		{"badge", nil},
		{"Buy  now at a@b.com", []Match{{"r2", "regex", `(?i)buy\s+now`}, {"r3", "email", "a@b.com"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, m.Match(tt.text)); diff != "" {
			t.Errorf("Match(%q) -want +got:\n%s", tt.text, diff)
		}
	}
}

func TestCompileErrorNamesRule(t *testing.T) {
	for _, r := range []Rule{
		{ID: "bad-re", Patterns: []string{"("}},
		{ID: "empty-re", Patterns: []string{"a*"}},
		{ID: "bad-kw", Keywords: []string{"!!!"}},
	} {
		_, err := Compile([]Rule{{ID: "ok", Keywords: []string{"fine"}}, r})
		var e *Error
		if !errors.As(err, &e) || e.RuleID != r.ID {
			t.Errorf("Compile(%v) = %v, want *Error naming %s", r, err, r.ID)
		}
	}
}

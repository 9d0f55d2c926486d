package chat

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestConversationID(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"cometchat-uid-3", "cometchat-uid-2", "cometchat-uid-2_user_cometchat-uid-3"},
		{"alice", "bob", "alice_user_bob"},
		{"bob", "alice", "alice_user_bob"},
		{"a", "a", "a_user_a"},
	} {
		if got := ConversationID(tc.a, tc.b); got != tc.want {
			t.Errorf("%s, %s: got %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNormalizeID(t *testing.T) {
	for in, want := range map[string]bool{"Alice_1-x": true, "": false, "a b": false, "a.b": false, "é": false,
		"\u212aelvin": false, "\u0130": false, "\u212a": false, "a\u017f": false,
		strings.Repeat("a", 100): true, strings.Repeat("a", 101): false} {
		if _, ok := NormalizeID(in); ok != want {
			t.Errorf("%q: got %v", in, ok)
		}
	}
	if id, _ := NormalizeID("SuperHero6"); id != "superhero6" {
		t.Errorf("not lower-cased: %s", id)
	}
}

func TestValidateReaction(t *testing.T) {
	for r, ok := range map[string]bool{
		"👍": true, "👩‍👩‍👧‍👦": true, "👋🏿": true, "❤️": true, ":reaction": true, "+1": true, "a/b": true,
		strings.Repeat("😀", 64): true, strings.Repeat("😀", 65): false, "": false, "a\x00": false,
		"\n": false, "\x7f": false, "\xff": false, "\u0085": false,
	} {
		if err := ValidateReaction(r); (err == nil) != ok {
			t.Errorf("%q: got %v", r, err)
		}
	}
}

// FuzzValidateReaction: whatever is accepted can be used as a summary entry — valid UTF-8,
// 1 to 64 characters, and free of the control characters the store uses as separators.
func FuzzValidateReaction(f *testing.F) {
	for _, s := range []string{"👍", "a\x1eb", "\x1f", ":r", strings.Repeat("x", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, r string) {
		if ValidateReaction(r) != nil {
			return
		}
		n := utf8.RuneCountInString(r)
		if !utf8.ValidString(r) || n < 1 || n > MaxReactionLen || strings.IndexFunc(r, unicode.IsControl) >= 0 {
			t.Fatalf("accepted %q", r)
		}
	})
}

// FuzzCleanData: accepted message data is a compact JSON object within the limit, with the
// generated keys removed and the sender's own keys kept.
func FuzzCleanData(f *testing.F) {
	for _, s := range []string{`{"text":"hi"}`, `{"entities":{"x":1},"text":"a"}`, `{"a":1,"a":2}`, `[]`, `{`, `null`, `{"reactions":[]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, fields, err := cleanData(json.RawMessage(in))
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(out, &obj) != nil {
			t.Fatalf("%q → %q: not a JSON object", in, out)
		}
		if len(out) > MaxMessageDataBytes {
			t.Fatalf("%q → %d bytes", in, len(out))
		}
		for k := range obj {
			if reservedDataKeys[k] {
				t.Fatalf("%q → kept generated key %q", in, k)
			}
			if _, ok := fields[k]; !ok {
				t.Fatalf("%q → key %q missing from fields", in, k)
			}
		}
	})
}

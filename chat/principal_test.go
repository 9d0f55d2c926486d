package chat

import "testing"

// TestSeesPrivate: metadata.@private is the user's own and the app's; another user never
// reads it, whatever credential its client holds.
func TestSeesPrivate(t *testing.T) {
	full := Principal{Scope: ScopeFullAccess}
	authOnly := Principal{Scope: ScopeAuthOnly}
	token := Principal{TokenHash: "h", Actor: "ann"}
	for _, tc := range []struct {
		name string
		p    Principal
		uid  string
		want bool
	}{
		{"fullAccess key, no one acting", full, "ann", true},
		{"fullAccess key acting as the user", full.ActingAs("ANN"), "ann", true},
		{"fullAccess key acting as another user", full.ActingAs("bob"), "ann", false},
		{"fullAccess key acting as a bad uid", full.ActingAs("a b"), "ann", false},
		{"authOnly key", authOnly, "ann", false},
		{"authOnly key acting as the user", authOnly.ActingAs("ann"), "ann", true},
		{"the user's token", token, "ann", true},
		{"another user's token", token, "bob", false},
		{"a token whatever onBehalfOf says", token.ActingAs("bob"), "bob", false},
		{"no credential", Principal{}, "ann", false},
	} {
		if got := tc.p.SeesPrivate(tc.uid); got != tc.want {
			t.Errorf("%s: SeesPrivate(%q) = %v, want %v", tc.name, tc.uid, got, tc.want)
		}
	}
}

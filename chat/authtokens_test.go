package chat

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewAuthTokenShape(t *testing.T) {
	tok, v := newAuthToken("demo", "cometchat-uid-1", 1630306819)
	if !regexp.MustCompile(`^cometchat-uid-1_1630306819[0-9a-f]{30}$`).MatchString(v) {
		t.Fatalf("token %q is not {uid}_{10-digit time}{30 hex}", v)
	}
	if tok.Hash != HashKey(v) || strings.Contains(tok.Hash, v) || tok.UID != "cometchat-uid-1" || tok.AppID != "demo" {
		t.Errorf("record %+v", tok)
	}
	if got := tok.Masked(); got != "cometchat-uid-1_1630"+strings.Repeat("*", 32)+v[len(v)-4:] {
		t.Errorf("masked %q", got)
	}
	if uid, ok := tokenUID(v); !ok || uid != "cometchat-uid-1" {
		t.Errorf("tokenUID(%q) = %q, %v", v, uid, ok)
	}
	if _, v2 := newAuthToken("demo", "cometchat-uid-1", 1630306819); v2 == v {
		t.Error("two tokens made in the same second are equal")
	}
}

func TestTokenUID(t *testing.T) {
	secret := "1630306819" + strings.Repeat("ab", 15)
	for _, tc := range []struct {
		in, uid string
		ok      bool
	}{
		{"a_" + secret, "a", true},
		{"a_b_" + secret, "a_b", true}, // a uid may hold "_": the secret is the last 40
		{strings.Repeat("u", 100) + "_" + secret, strings.Repeat("u", 100), true},
		{strings.Repeat("u", 101) + "_" + secret, "", false},
		{"_" + secret, "", false},
		{secret, "", false},
		{"A_" + secret, "", false}, // tokens are made with the lower-cased uid
		{"a b_" + secret, "", false},
		{"a-" + secret, "", false},
		{"a_" + strings.ToUpper(secret), "", false},
		{"a_" + secret[1:], "", false},
		{"a_" + secret + "0", "", false},
		{"", "", false},
		{"\u212a_" + secret, "", false},
	} {
		uid, ok := tokenUID(tc.in)
		if uid != tc.uid || ok != tc.ok {
			t.Errorf("tokenUID(%q) = %q, %v; want %q, %v", tc.in, uid, ok, tc.uid, tc.ok)
		}
	}
}

// TestTTLCacheGeneration: a lookup that read the database before an eviction on this node
// must not put what it read back, or a deleted key or token would work again for a TTL.
func TestTTLCacheGeneration(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newTTLCache[string](time.Second, func() time.Time { return now })
	gen := c.generation()
	c.put("a", "x", gen)
	if v, ok := c.get("a"); !ok || v != "x" {
		t.Fatalf("get a = %q, %v", v, ok)
	}
	stale := c.generation() // a lookup starts
	c.evict("a")            // a delete on this node
	c.put("a", "x", stale)  // the lookup ends
	if _, ok := c.get("a"); ok {
		t.Fatal("a lookup that raced an eviction put its stale entry back")
	}
	c.put("b", "y", c.generation())
	c.put("c", "z", c.generation())
	c.evictIf(func(v string) bool { return v == "y" })
	if _, ok := c.get("b"); ok {
		t.Error("evictIf left b")
	}
	if _, ok := c.get("c"); !ok {
		t.Error("evictIf dropped c")
	}
	now = now.Add(2 * time.Second)
	if _, ok := c.get("c"); ok {
		t.Error("an entry outlived its TTL")
	}
}

package console_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// htmx is committed as npm publishes it (htmx.org@2.0.11, dist/htmx.min.js), after one
// header line naming it: no build step makes it, so this checks that nobody edited it.
// To update: cd /tmp && npm pack htmx.org@2, put the header line (with the new version)
// before the new dist/htmx.min.js, and change both constants and docs/console.md.
const (
	htmxHeader = "/*! htmx 2.0.11 — npm htmx.org@2.0.11 (dist/htmx.min.js), https://htmx.org — Zero-Clause BSD licence, see LICENSE-htmx */\n"
	htmxSHA256 = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"
)

func TestHtmxAsset(t *testing.T) {
	b, err := os.ReadFile("assets/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := bytes.CutPrefix(b, []byte(htmxHeader))
	if !ok {
		t.Fatalf("assets/htmx.min.js does not start with the header %q", htmxHeader)
	}
	if sum := sha256.Sum256(rest); hex.EncodeToString(sum[:]) != htmxSHA256 {
		t.Fatalf("assets/htmx.min.js is not npm's htmx.org@2.0.11 dist/htmx.min.js: sha256 %x", sum)
	}
}

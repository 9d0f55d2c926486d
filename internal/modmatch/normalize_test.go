package modmatch

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestDecomposeIsNFKD: decomposing rune by rune gives what NFKD of the rune does, less
// non-spacing marks, for every rune (Hangul syllables excepted, kept whole).
func TestDecomposeIsNFKD(t *testing.T) {
	var n normalizer
	bad := 0
	for r := rune(0x80); r <= unicode.MaxRune && bad < 10; r++ {
		if !utf8.ValidRune(r) || 0xAC00 <= r && r <= 0xD7A3 {
			continue
		}
		s := string(r)
		var want []rune
		for _, d := range norm.NFKD.String(s) {
			if !unicode.Is(unicode.Mn, d) {
				want = appendFolded(want, d)
			}
		}
		n.decompose(s)
		if string(n.runes) != string(want) {
			t.Errorf("decompose(%U %q) = %q, want %q", r, s, string(n.runes), string(want))
			bad++
		}
	}
}

func TestStreams(t *testing.T) {
	tests := []struct {
		text, s1, s2 string // s2 "" when it is the same as s1
	}{
		{"", " ", ""},
		{"Café au lait", " cafe au iait ", ""},
		{"b a d", " b a d ", " bad "},
		{"b.a.d", " b a d ", " bad "},
		{"a bad", " a bad ", ""},
		{"baaaad", " bad ", ""},
		{"h3ll0 w0rld!", " heio worid ", ""},
		{"@bob joe@bad.com", " bob joe bad com ", " abob joeabadcom "},
		{"sh.it", " sh it ", " shit "},
		{"455 a55", " 455 as ", ""},
		{"哈哈哈", " 哈 哈 哈 ", ""},
		{"Straße ØRE", " strase ore ", ""},
		{"2024-01-02", " 2024 01 02 ", " 20240102 "},
		{"!!! ... $$$", " ", ""},
	}
	for _, tt := range tests {
		var n normalizer
		differ := n.normalize(tt.text)
		got2 := ""
		if differ {
			got2 = string(n.s2.b)
		}
		if string(n.s1.b) != tt.s1 || got2 != tt.s2 {
			t.Errorf("normalize(%q) = %q, %q; want %q, %q", tt.text, n.s1.b, got2, tt.s1, tt.s2)
		}
	}
}

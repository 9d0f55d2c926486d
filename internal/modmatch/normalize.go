package modmatch

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The normalisation described in the package comment. A text (or a keyword) becomes two
// streams (the comment's two readings) of canonical words: " w1 w2 w3 ", one space before,
// between and after the words. Stream 1 splits at '@'; stream 2 reads '@' as a letter and
// joins obfuscated words. Each byte of a stream has the run length of the canonical rune it
// belongs to (repeated runes are collapsed to one, and the count kept), so a keyword's
// doubled letter can ask for a run of at least two.

// token is a maximal run of word runes in normalizer.runes, with what separated it from the
// previous token.
type token struct {
	start, end int32
	sepLen     int32 // runes of separator before this token (0: adjacent CJK characters)
	sepSpace   bool  // the separator before holds white space
	sepNL      bool  // the separator before holds a line break
	cjk        bool  // one character of a script written without spaces, or an emoji
}

// stream is one normalised reading of a text.
type stream struct {
	b    []byte  // " w1 w2 "
	runs []uint8 // run length of the rune each byte belongs to (capped at 255)
}

func (s *stream) reset() {
	s.b = append(s.b[:0], ' ')
	s.runs = append(s.runs[:0], 1)
}

func (s *stream) equal(o *stream) bool {
	return string(s.b) == string(o.b) && string(s.runs) == string(o.runs)
}

// normalizer holds the scratch space of one normalisation; reuse it through a pool.
type normalizer struct {
	runes []rune
	toks  []token
	word  []rune
	s1    stream
	s2    stream
}

// Rune classes.
const (
	classSep = iota
	classWord
	classCJK
)

func classOf(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '@', r == '$', r == '!', r == '|':
			return classWord
		}
		return classSep
	}
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
		unicode.Khmer, unicode.Myanmar, unicode.So):
		return classCJK // each one a word; So: emoji and other pictographs
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.Is(unicode.Mc, r):
		return classWord
	}
	return classSep
}

// appendFolded appends r lower-cased, with the letters that have no decomposition spelled in
// ASCII (ß → ss, ø → o, ł → l …). Non-spacing marks are dropped by the caller.
func appendFolded(dst []rune, r rune) []rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, r)
	}
	r = unicode.ToLower(r)
	switch r {
	case 'ß':
		return append(dst, 's', 's')
	case 'æ':
		return append(dst, 'a', 'e')
	case 'œ':
		return append(dst, 'o', 'e')
	case 'þ':
		return append(dst, 't', 'h')
	case 'ø':
		r = 'o'
	case 'ł':
		r = 'l'
	case 'đ', 'ð':
		r = 'd'
	case 'ı':
		r = 'i'
	case 'ħ':
		r = 'h'
	case 'ŧ':
		r = 't'
	}
	return append(dst, r)
}

// decompose fills n.runes with text compatibility-decomposed (NFKD, rune by rune),
// lower-cased and folded, without non-spacing marks (so without the order of marks NFKD
// would restore). Hangul syllables are left whole.
func (n *normalizer) decompose(text string) {
	runes := n.runes[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			runes = appendFolded(runes, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if d := norm.NFKD.PropertiesString(text[i : i+size]).Decomposition(); r != utf8.RuneError && d != nil {
			for len(d) > 0 {
				dr, ds := utf8.DecodeRune(d)
				d = d[ds:]
				if !unicode.Is(unicode.Mn, dr) {
					runes = appendFolded(runes, dr)
				}
			}
		} else if !unicode.Is(unicode.Mn, r) {
			runes = appendFolded(runes, r)
		}
		i += size
	}
	n.runes = runes
}

// tokenize splits n.runes into tokens.
func (n *normalizer) tokenize() {
	toks := n.toks[:0]
	defer func() { n.toks = toks }()
	var sepLen int32
	var sepSpace, sepNL bool
	inWord := false
	for i, r := range n.runes {
		switch classOf(r) {
		case classWord:
			if inWord {
				toks[len(toks)-1].end = int32(i) + 1
				continue
			}
			toks = append(toks, token{start: int32(i), end: int32(i) + 1, sepLen: sepLen, sepSpace: sepSpace, sepNL: sepNL})
			inWord = true
		case classCJK:
			toks = append(toks, token{start: int32(i), end: int32(i) + 1, sepLen: sepLen, sepSpace: sepSpace, sepNL: sepNL, cjk: true})
			inWord = false
		default:
			inWord = false
			sepLen++
			if unicode.IsSpace(r) {
				sepSpace = true
				if r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029 {
					sepNL = true
				}
			}
			continue
		}
		sepLen, sepSpace, sepNL = 0, false, false
	}
}

// leet maps the symbols and digits that stand for letters, and l to i (so that 1, l, i and |
// are one class), in a word that has at least one letter.
func leet(r rune) rune {
	switch r {
	case '0':
		return 'o'
	case '1', 'l', '!', '|':
		return 'i'
	case '3':
		return 'e'
	case '4', '@':
		return 'a'
	case '5', '$':
		return 's'
	case '7':
		return 't'
	case '8':
		return 'b'
	}
	return r
}

// homoglyph returns the Latin letter a Cyrillic or Greek lower-case letter looks like (itself
// or its capital), or 0. It is applied only in words that also have a Latin letter ("pаypal"
// with a Cyrillic а), so Russian and Greek words are left alone.
func homoglyph(r rune) rune {
	switch r {
	case 'а', 'α':
		return 'a'
	case 'в', 'β':
		return 'b'
	case 'с', 'ϲ':
		return 'c'
	case 'ԁ':
		return 'd'
	case 'е', 'ε':
		return 'e'
	case 'һ', 'н', 'η':
		return 'h'
	case 'і', 'ι':
		return 'i'
	case 'ј':
		return 'j'
	case 'к', 'κ':
		return 'k'
	case 'ӏ':
		return 'l'
	case 'м':
		return 'm'
	case 'о', 'ο':
		return 'o'
	case 'р', 'ρ':
		return 'p'
	case 'ԛ':
		return 'q'
	case 'ѕ':
		return 's'
	case 'т', 'τ':
		return 't'
	case 'υ':
		return 'u'
	case 'ν':
		return 'v'
	case 'ԝ':
		return 'w'
	case 'х', 'χ':
		return 'x'
	case 'у', 'γ':
		return 'y'
	}
	return 0
}

func isLeetSymbol(r rune) bool { return r == '@' || r == '$' || r == '!' || r == '|' }

// emitWord appends one canonical word to s: trimmed of '!' and '|' at its ends; if it has a
// letter, leetspeak read as letters and runs of one rune collapsed; if not (a number), only
// its digits, as they are.
func emitWord(s stream, w []rune) stream {
	b, runs := s.b, s.runs
	for len(w) > 0 && (w[0] == '!' || w[0] == '|') {
		w = w[1:]
	}
	for len(w) > 0 && (w[len(w)-1] == '!' || w[len(w)-1] == '|') {
		w = w[:len(w)-1]
	}
	hasLetter, hasDigit, latin, lookalike := false, false, false, false
	for _, r := range w {
		switch {
		case 'a' <= r && r <= 'z':
			hasLetter, latin = true, true
		case r >= utf8.RuneSelf && homoglyph(r) != 0:
			hasLetter, lookalike = true, true
		case isLeetSymbol(r):
		case r < utf8.RuneSelf && '0' <= r && r <= '9', r >= utf8.RuneSelf && unicode.IsDigit(r):
			hasDigit = true
		default:
			hasLetter = true
		}
	}
	if !hasLetter && !hasDigit {
		return s
	}
	var last rune = -1
	lastAt := -1
	var enc [utf8.UTFMax]byte
	mixed := latin && lookalike
	for _, r := range w {
		if mixed && r >= utf8.RuneSelf {
			if h := homoglyph(r); h != 0 {
				r = h
			}
		}
		if hasLetter {
			r = leet(r)
		} else if isLeetSymbol(r) {
			continue
		}
		if r == last && hasLetter {
			for i := lastAt; i < len(runs); i++ {
				if runs[i] < 255 {
					runs[i]++
				}
			}
			continue
		}
		last, lastAt = r, len(b)
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
			runs = append(runs, 1)
			continue
		}
		k := utf8.EncodeRune(enc[:], r)
		b = append(b, enc[:k]...)
		for range k {
			runs = append(runs, 1)
		}
	}
	b = append(b, ' ')
	runs = append(runs, 1)
	return stream{b, runs}
}

// normalize reads text into n.s1 and n.s2 and reports whether stream 2 differs from stream 1;
// when it does not, n.s2 is left as it was.
func (n *normalizer) normalize(text string) (differ bool) {
	n.decompose(text)
	n.tokenize()

	// Stream 1: each token, split at '@'.
	n.s1.reset()
	s1 := n.s1
	hasAt := false
	for _, t := range n.toks {
		w := n.runes[t.start:t.end]
		from := 0
		for i, r := range w {
			if r == '@' {
				hasAt = true
				s1 = emitWord(s1, w[from:i])
				from = i + 1
			}
		}
		s1 = emitWord(s1, w[from:])
	}
	n.s1 = s1

	// Stream 2: '@' is a letter, and tokens are joined where the separator looks like an
	// obfuscation: between two single characters (≤ 3 runes, no line break: "b a d", "b.a.d"),
	// or inside a word (≤ 2 runes, no white space: "sh.it", "f-ck"). Built only when it
	// differs.
	joined := false
	for i := 1; i < len(n.toks) && !joined; i++ {
		joined = n.joins(n.toks[i-1], n.toks[i])
	}
	if !joined && !hasAt {
		return false
	}
	n.s2.reset()
	s2 := n.s2
	n.word = n.word[:0]
	for i, t := range n.toks {
		if i > 0 && !n.joins(n.toks[i-1], t) {
			s2 = emitWord(s2, n.word)
			n.word = n.word[:0]
		}
		n.word = append(n.word, n.runes[t.start:t.end]...)
	}
	s2 = emitWord(s2, n.word)
	n.s2 = s2
	return !n.s1.equal(&n.s2)
}

func (n *normalizer) joins(prev, t token) bool {
	if prev.cjk || t.cjk || t.sepLen == 0 || t.sepNL {
		return false
	}
	if prev.end-prev.start == 1 && t.end-t.start == 1 && t.sepLen <= 3 {
		return true
	}
	return !t.sepSpace && t.sepLen <= 2
}

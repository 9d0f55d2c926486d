package chat

import (
	"encoding/json"
	"unicode/utf8"
)

// Stored JSON (user metadata, message data) is kept as the text the client sent, so its
// strings are checked here rather than by a decoder: encoding/json turns invalid UTF-8 in a
// decoded string into U+FFFD, but json.RawMessage keeps the raw bytes, and so would the
// database. Two rules:
//   - Raw invalid UTF-8 is refused. A JSON text exchanged between systems must be UTF-8
//     (RFC 8259 §8.1); what is not cannot be read back by a strict parser.
//   - An escaped lone surrogate ("\ud800") is valid JSON, and decodes to U+FFFD in Go as in
//     many parsers; natter stores it as "\ufffd", so that what it writes back names only
//     Unicode characters (strict parsers and PostgreSQL's jsonb refuse lone surrogates).

// replacementEscape replaces an escaped lone surrogate.
const replacementEscape = `\ufffd`

// RepairJSONText returns b with each invalid UTF-8 sequence replaced by U+FFFD and each
// escaped lone surrogate by \ufffd, and whether b needed no repair (then b itself is
// returned). b need not be valid JSON; the result is valid JSON when b is.
func RepairJSONText(b []byte) ([]byte, bool) {
	var out []byte // nil until the first repair
	done := 0      // b[:done] is in out, or needs no copy while out is nil
	inString := false
	for i := 0; i < len(b); {
		c := b[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(append(out, b[done:i]...), "\uFFFD"...)
				i++
				done = i
				continue
			}
			i += size
			continue
		}
		switch {
		case c == '"':
			inString = !inString
			i++
		case c == '\\' && inString:
			if i+1 < len(b) && b[i+1] == 'u' {
				r, ok := hex4(b, i+2)
				switch {
				case !ok:
					i += 2
				case r >= 0xD800 && r < 0xDC00: // high surrogate: a low one must follow
					if lo, ok := hex4(b, i+8); ok && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' && lo >= 0xDC00 && lo < 0xE000 {
						i += 12
						continue
					}
					fallthrough
				case r >= 0xDC00 && r < 0xE000: // a low surrogate on its own
					out = append(append(out, b[done:i]...), replacementEscape...)
					i += 6
					done = i
				default:
					i += 6
				}
				continue
			}
			if i+1 < len(b) && b[i+1] >= utf8.RuneSelf {
				i++ // not JSON; the byte after the backslash is checked as UTF-8 all the same
				continue
			}
			i += 2 // the escaped character cannot end the string
		default:
			i++
		}
	}
	if out == nil {
		return b, true
	}
	return append(out, b[min(done, len(b)):]...), false
}

// hex4 parses the four hex digits at b[i:i+4].
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// storedJSON checks raw, a JSON value the client sent for field, for what natter can store:
// valid UTF-8 throughout. It returns raw with escaped lone surrogates replaced by \ufffd.
func (f fieldErrors) storedJSON(field string, raw json.RawMessage) (json.RawMessage, bool) {
	if !utf8.Valid(raw) {
		f.add(field, "The "+field+" must be valid UTF-8.")
		return nil, false
	}
	out, _ := RepairJSONText(raw)
	return out, true
}

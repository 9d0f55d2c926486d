package chat

import (
	"regexp"
	"strconv"
	"unicode/utf8"
)

// Error messages may quote what a request sent only when it is short and plain, so an error
// body never carries back a path segment, a header value or a key (docs/security.md): a uid
// or app id only when well-formed, a message id only as the integer natter parsed, never a
// string shaped like an API key, and a body value cut short.

// keyShaped reports whether s has the shape of an API key: 40 hex characters (a uid or an
// app id of that shape is well-formed, but is never quoted).
func keyShaped(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// quotableID reports whether a uid natter parsed and lower-cased may be quoted.
func quotableID(id string) bool { return id != "" && idPattern.MatchString(id) && !keyShaped(id) }

var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// detailField is the details key for a key k of an object field: "field.k" when k is a
// plain name that may be echoed, else the field itself.
func detailField(field, k string) string {
	if namePattern.MatchString(k) && !keyShaped(k) {
		return field + "." + k
	}
	return field
}

// maxQuoted bounds a body value quoted in an error message, in characters.
const maxQuoted = 32

// brief quotes s for an error message, cut to maxQuoted characters.
func brief(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == maxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

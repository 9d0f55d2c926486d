package chat

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits shared by several aggregates; each aggregate's own are in its file. They are the
// hosted service's documented limits, and natter's own where it documents none.
const (
	MaxIDLen        = 100 // uid, guid, role id
	MaxTags         = 25
	MaxTagLen       = 100
	MaxSearchKeyLen = 100
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

// NormalizeID lower-cases a uid, guid or role id and reports whether it is valid. The id is
// checked as sent, before it is lower-cased: some non-ASCII letters lower-case to ASCII (the
// Kelvin sign to k, İ to i), and must not pass for the uid they fold to.
func NormalizeID(id string) (string, bool) {
	ok := idPattern.MatchString(id)
	return strings.ToLower(id), ok
}

// fieldErrors collects validation failures per field, in the hosted service's shape.
type fieldErrors map[string][]string

func (f fieldErrors) add(field, msg string) { f[field] = append(f[field], msg) }

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return Invalid(f)
}

func (f fieldErrors) id(field, v string, required bool) string {
	if v == "" {
		if required {
			f.add(field, "The "+field+" field is required.")
		}
		return ""
	}
	id, ok := NormalizeID(v)
	if !ok {
		f.add(field, "The "+field+" may only contain letters, numbers, underscores and hyphens, and must be at most 100 characters long.")
	}
	return id
}

func (f fieldErrors) text(field, v string, max int, required bool) {
	switch {
	case v == "" && required:
		f.add(field, "The "+field+" field is required.")
	case !utf8.ValidString(v):
		f.add(field, "The "+field+" must be valid UTF-8.")
	case strings.IndexByte(v, 0) >= 0: // PostgreSQL cannot store it; SQLite must not differ
		f.add(field, "The "+field+" may not contain the NUL character.")
	case utf8.RuneCountInString(v) > max:
		f.add(field, "The "+field+" may not be greater than "+strconv.Itoa(max)+" characters.")
	}
}

func (f fieldErrors) tags(field string, tags []string) []string {
	if len(tags) > MaxTags {
		f.add(field, "The "+field+" may not have more than "+strconv.Itoa(MaxTags)+" items.")
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		if t == "" || utf8.RuneCountInString(t) > MaxTagLen || !utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0 {
			f.add(field, "Each tag must be 1 to "+strconv.Itoa(MaxTagLen)+" characters long.")
			return nil
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// metadata checks that raw is a JSON object of valid UTF-8 within the size limit and returns
// it compacted (utf8.go).
func (f fieldErrors) metadata(field string, raw json.RawMessage) []byte {
	return f.jsonObject(field, raw, MaxMetadataBytes)
}

// jsonObject checks that raw is a JSON object of valid UTF-8 of at most max bytes once
// compacted, and returns it compacted.
func (f fieldErrors) jsonObject(field string, raw json.RawMessage, max int) []byte {
	raw, ok := f.storedJSON(field, raw)
	if !ok {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil || buf.Len() == 0 || buf.Bytes()[0] != '{' {
		f.add(field, "The "+field+" must be a JSON object.")
		return nil
	}
	if buf.Len() > max {
		f.add(field, "The "+field+" may not be greater than "+strconv.Itoa(max)+" bytes.")
		return nil
	}
	return buf.Bytes()
}

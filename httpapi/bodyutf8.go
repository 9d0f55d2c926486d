package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
)

// A request body must be UTF-8 (RFC 8259 §8.1). encoding/json would decode invalid bytes in
// a string field as U+FFFD, silently changing what the client sent, and json.RawMessage
// fields would keep them raw; either way natter would store something other than what the
// client meant. So decodeJSON refuses such a body, naming the fields that hold the bytes.

// errInvalidUTF8 is the error for a body that is not valid UTF-8: a validation error naming
// each field of v (a pointer to a request struct) whose value holds invalid bytes, at any
// depth, or a plain bad request when the bytes are elsewhere.
func errInvalidUTF8(body []byte, v any) error {
	details := map[string][]string{}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) == nil {
		fields := jsonFields(v)
		for k, raw := range top {
			if name, ok := fields[strings.ToLower(k)]; ok && !utf8.Valid(raw) {
				details[name] = []string{"The " + name + " must be valid UTF-8."}
			}
		}
	}
	if len(details) == 0 {
		return chat.Errorf(chat.CodeBadRequest, "The request body must be valid UTF-8.")
	}
	return chat.Invalid(details)
}

// jsonFields maps the lower-cased JSON names of v's struct fields to their names, as
// encoding/json matches keys to fields case-insensitively.
func jsonFields(v any) map[string]string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]string{}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[strings.ToLower(name)] = name
		}
	}
	return out
}

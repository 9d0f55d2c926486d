package chat

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRepairJSONText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"k":"v"}`, `{"k":"v"}`},
		{"{\"k\":\"\xff\"}", "{\"k\":\"\uFFFD\"}"},
		{"{\"k\":\"\xe2\x82\"}", "{\"k\":\"\uFFFD\uFFFD\"}"},
		{"{\"k\":\"\xed\xa0\x80\"}", "{\"k\":\"\uFFFD\uFFFD\uFFFD\"}"}, // a raw surrogate is not UTF-8
		{`{"k":"\ud800"}`, `{"k":"\ufffd"}`},
		{`{"k":"\uDC00x"}`, `{"k":"\ufffdx"}`},
		{`{"k":"\ud83d\ude00"}`, `{"k":"\ud83d\ude00"}`},
		{`{"k":"\uD83D\uDE00"}`, `{"k":"\uD83D\uDE00"}`},
		{`{"k":"\ud800\ud800\udc00"}`, `{"k":"\ufffd\ud800\udc00"}`},
		{`{"k":"\ud800\u0041"}`, `{"k":"\ufffd\u0041"}`},
		{`{"k":"\\ud800"}`, `{"k":"\\ud800"}`}, // an escaped backslash, then text
		{`{"\ud800":1}`, `{"\ufffd":1}`},
		{`{"k":"\ud8`, `{"k":"\ud8`},
		{`"\ud800`, `"\ufffd`},
		{`\ud800`, `\ud800`}, // outside a string it is not an escape
		{"", ""},
	} {
		got, clean := RepairJSONText([]byte(tc.in))
		if string(got) != tc.want || clean != (tc.in == tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, clean, tc.want)
		}
	}
}

// loneSurrogateEscape finds escaped surrogates in JSON text whose escaped backslashes are
// removed; a match without its second group is a lone surrogate.
var loneSurrogateEscape = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}`)

func hasLoneSurrogate(b []byte) bool {
	for _, m := range loneSurrogateEscape.FindAllSubmatch(bytes.ReplaceAll(b, []byte(`\\`), nil), -1) {
		if m[1] == nil {
			return true
		}
	}
	return false
}

// storable reports what natter may store and write: valid UTF-8, valid JSON, an object, and
// no escaped lone surrogate.
func storable(b []byte) bool {
	return utf8.Valid(b) && json.Valid(b) && len(b) > 0 && b[0] == '{' && !hasLoneSurrogate(b)
}

// FuzzStoredJSON holds the UTF-8 rules of stored JSON (utf8.go) on any input: the repair
// yields valid UTF-8 without lone surrogates and means what encoding/json reads in the
// original; metadata and message data are refused, naming the field, when not UTF-8, and
// are storable whenever accepted.
func FuzzStoredJSON(f *testing.F) {
	for _, s := range []string{
		`{"k":"v"}`, `{}`, `null`, `[]`, `"s"`, `{"text":"hi"}`, `{"customData":{"a":[1,{"b":null}]}}`,
		"{\"k\":\"\xff\"}", "{\"k\":\"\xe2\x82\"}", "{\"x\":\"\xc0\x80\"}", "{\"\xfe\":1}", "{\"a\":[{\"b\":\"\xed\xa0\x80\"}]}",
		`{"k":"\ud800"}`, `{"k":"\udc00"}`, `{"k":"\ud83d\ude00"}`, `{"k":"\uD800\uDC00"}`, `{"k":"\ud800\ud800\udc00"}`,
		`{"k":"\ud800\u0041"}`, `{"k":"\\ud800"}`, `{"k":"\\\ud800"}`, `{"\ud800":"\udfff","\ud801":2}`, `{"k":"\u0000"}`,
		`{"k":"\ud8`, `{"k":"\`, `{"text":"\udbff\udfff x \ud800"}`, "{\"k\":\"\xf4\x90\x80\x80\"}", `{"k":1} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, clean := RepairJSONText(b)
		if !utf8.Valid(out) || hasLoneSurrogate(out) && json.Valid(b) {
			t.Fatalf("repair of %q is %q", b, out)
		}
		if clean != bytes.Equal(out, b) || clean && !utf8.Valid(b) {
			t.Fatalf("repair of %q is %q, clean %v", b, out, clean)
		}
		if again, ok := RepairJSONText(out); !ok || !bytes.Equal(again, out) {
			t.Fatalf("repair is not idempotent: %q, then %q", out, again)
		}
		if json.Valid(b) {
			var want, got any
			if json.Unmarshal(b, &want) != nil || json.Unmarshal(out, &got) != nil || !reflect.DeepEqual(want, got) {
				t.Fatalf("repair of %q changed its meaning: %q", b, out)
			}
		}

		fe := fieldErrors{}
		meta := fe.metadata("metadata", b)
		switch {
		case !utf8.Valid(b) && (meta != nil || len(fe["metadata"]) == 0):
			t.Fatalf("metadata %q not refused: %q %v", b, meta, fe)
		case len(fe) == 0 && !storable(meta):
			t.Fatalf("metadata %q accepted as %q", b, meta)
		}

		data, _, err := cleanData(b)
		empty := len(b) == 0 || string(b) == "null"
		switch {
		case !utf8.Valid(b) && !empty && (err == nil || len(err.(*Error).Details["data"]) == 0):
			t.Fatalf("data %q not refused: %q %v", b, data, err)
		case err == nil && !storable(data):
			t.Fatalf("data %q accepted as %q", b, data)
		case err == nil && !empty && strings.TrimSpace(string(b))[0] != '{':
			t.Fatalf("data %q is not an object", b)
		}
	})
}

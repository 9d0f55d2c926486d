package httpapi_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// loneSurrogate finds escaped surrogates in JSON text whose escaped backslashes are removed:
// a high surrogate with its low one (fine), or a lone one of either kind.
var loneSurrogate = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}`)

// strictJSON fails t unless body is what a strict parser accepts: valid UTF-8, valid JSON,
// and no escaped lone surrogate (which names no Unicode character).
func strictJSON(t *testing.T, what string, body []byte) {
	t.Helper()
	if !utf8.Valid(body) {
		t.Errorf("%s: not UTF-8: %q", what, body)
		return
	}
	if !json.Valid(body) {
		t.Errorf("%s: not JSON: %s", what, body)
		return
	}
	for _, m := range loneSurrogate.FindAllStringSubmatch(strings.ReplaceAll(string(body), `\\`, ""), -1) {
		if m[1] == "" { // not a high surrogate with its low one
			t.Errorf("%s: escaped lone surrogate %s: %s", what, m[0], body)
		}
	}
}

// TestInvalidUTF8IsRefused sends raw invalid UTF-8 in every stored string, at any depth: each
// request is refused with 400 naming the field, and nothing is written. The database used
// to keep the bytes (SQLite), or fail with a 500 (PostgreSQL refuses them in text columns).
func TestInvalidUTF8IsRefused(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("u2", "U2")
		e.mustUser("u3", "U3")
		before := e.snapshot()
		for _, tc := range []struct {
			name, method, path, body, field string
		}{
			{"create, metadata", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U1\",\"metadata\":{\"k\":\"\xff\"}}", "metadata"},
			{"create, deep metadata", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U1\",\"metadata\":{\"a\":[{\"b\":{\"c\":\"ok \xed\xa0\x80\"}}]}}", "metadata"},
			{"create, metadata key", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U1\",\"metadata\":{\"\xfe\":1}}", "metadata"},
			{"create, name", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U\xff1\"}", "name"},
			{"create, tags", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U1\",\"tags\":[\"a\",\"\xc3\"]}", "tags"},
			{"create, statusMessage and avatar", "POST", "/v3/users", "{\"uid\":\"u1\",\"name\":\"U1\",\"statusMessage\":\"\x80\",\"avatar\":\"\xc0\xaf\"}", "statusMessage"},
			{"create, uid", "POST", "/v3/users", "{\"uid\":\"u\xff1\",\"name\":\"U1\"}", "uid"},
			{"update, metadata", "PUT", "/v3/users/u2", "{\"metadata\":{\"k\":\"\xe2\x82\"}}", "metadata"},
			{"update, name", "PUT", "/v3/users/u2", "{\"name\":\"\xe2\x82\"}", "name"},
			{"update, metadata key case", "PUT", "/v3/users/u2", "{\"Metadata\":{\"k\":\"\xe2\x82\"}}", "metadata"},
			{"send, data", "POST", "/v3/messages", "{\"receiver\":\"u3\",\"receiverType\":\"user\",\"category\":\"message\",\"type\":\"text\",\"data\":{\"text\":\"hi\",\"x\":\"\xc0\x80\"}}", "data"},
			{"send, text", "POST", "/v3/messages", "{\"receiver\":\"u3\",\"receiverType\":\"user\",\"category\":\"message\",\"type\":\"text\",\"data\":{\"text\":\"\xf8\x88\x80\x80\x80\"}}", "data"},
			{"send, customData", "POST", "/v3/messages", "{\"receiver\":\"u3\",\"receiverType\":\"user\",\"category\":\"custom\",\"type\":\"t\",\"data\":{\"customData\":{\"k\":[\"\xff\"]}}}", "data"},
			{"send, muid", "POST", "/v3/messages", "{\"receiver\":\"u3\",\"receiverType\":\"user\",\"category\":\"message\",\"type\":\"text\",\"data\":{\"text\":\"hi\"},\"muid\":\"\xff\"}", "muid"},
			{"api key, name", "POST", "/v3/apikeys", "{\"name\":\"k\xff\",\"scope\":\"authOnly\"}", "name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(request{method: tc.method, path: tc.path, body: tc.body, headers: map[string]string{"onBehalfOf": "u2"}})
				var env struct {
					Error struct {
						Code    string              `json:"code"`
						Details map[string][]string `json:"details"`
					} `json:"error"`
				}
				json.Unmarshal(r.body, &env)
				if r.status != 400 || env.Error.Code != "ERR_BAD_REQUEST" || len(env.Error.Details[tc.field]) == 0 {
					t.Errorf("got %d %s, want 400 ERR_BAD_REQUEST with details.%s", r.status, r.body, tc.field)
				}
				strictJSON(t, "error body", r.body)
			})
		}
		if e.snapshot() != before {
			t.Error("a refused request wrote")
		}
		// Not in a field of the request: still not a JSON text, still refused.
		if r := e.do(request{method: "POST", path: "/v3/users", body: "{\"uid\":\"u1\",\"name\":\"U1\",\"ignored\":\"\xff\"}"}); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
			t.Errorf("invalid UTF-8 in an unknown key: %d %s", r.status, r.body)
		}
	})
}

// TestNULIsRefused: U+0000 in a string field cannot be stored by PostgreSQL (it answered 500)
// and is refused on both databases alike. Escaped inside metadata it is JSON text and kept.
func TestNULIsRefused(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("u2", "U2")
		for _, tc := range []struct{ method, path, body, field string }{
			{"POST", "/v3/users", `{"uid":"u1","name":"U\u00001"}`, "name"},
			{"POST", "/v3/users", `{"uid":"u1","name":"U1","tags":["a\u0000"]}`, "tags"},
			{"PUT", "/v3/users/u2", `{"statusMessage":"\u0000"}`, "statusMessage"},
			{"POST", "/v3/apikeys", `{"name":"k\u0000","scope":"authOnly"}`, "name"},
		} {
			r := e.do(request{method: tc.method, path: tc.path, body: tc.body})
			if r.status != 400 || r.code != "ERR_BAD_REQUEST" || !strings.Contains(string(r.body), `"`+tc.field+`":`) {
				t.Errorf("%s %s %s: got %d %s", tc.method, tc.path, tc.body, r.status, r.body)
			}
		}
		if r := e.do(request{method: "GET", path: "/v3/users?searchKey=a%00"}); r.status != 400 {
			t.Errorf("searchKey with NUL: %d %s", r.status, r.body)
		}
		r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "u2"},
			body: `{"receiver":"u2","receiverType":"user","category":"custom","type":"t\u0000","data":{"customData":{}}}`})
		if r.status != 400 || r.code != "ERR_INVALID_MESSAGE_TYPE" {
			t.Errorf("type with NUL: %d %s", r.status, r.body)
		}
		r = e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"u1","name":"U1","metadata":{"k\u0000":"\u0000"}}`})
		if r.status != 200 || !strings.Contains(string(r.body), `"metadata":{"k\u0000":"\u0000"}`) {
			t.Errorf("escaped NUL in metadata: %d %s", r.status, r.body)
		}
	})
}

// TestEscapedLoneSurrogates: "\ud800" is valid JSON and decodes to U+FFFD, in typed fields as
// in stored JSON; natter stores and returns \ufffd for it, never the lone surrogate.
func TestEscapedLoneSurrogates(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"u1","name":"a\ud800b","metadata":{"k":"\ud800","\uDC00":["\ud83d\ude00","x\udbff"]}}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		strictJSON(t, "create", r.body)
		e.mustUser("u2", "U2")
		r = e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "u1"},
			body: `{"receiver":"u2","receiverType":"user","category":"message","type":"text","data":{"text":"\udfff","m":{"\ud800":"\ud800\u0041"}}}`})
		if r.status != 200 {
			t.Fatalf("send: %d %s", r.status, r.body)
		}
		strictJSON(t, "send", r.body)
		strictJSON(t, "get user", e.do(request{method: "GET", path: "/v3/users/u1"}).body)
		var meta, data string
		if err := e.raw.QueryRow("SELECT metadata FROM users WHERE uid = 'u1'").Scan(&meta); err != nil {
			t.Fatal(err)
		}
		if err := e.raw.QueryRow("SELECT data FROM messages").Scan(&data); err != nil {
			t.Fatal(err)
		}
		if want := `{"k":"\ufffd","\ufffd":["\ud83d\ude00","x\ufffd"]}`; meta != want {
			t.Errorf("stored metadata %s, want %s", meta, want)
		}
		if want := `{"text":"\ufffd","m":{"\ufffd":"\ufffd\u0041"}}`; data != want {
			t.Errorf("stored data %s, want %s", data, want)
		}
	})
}

package httpapi_test

import (
	"strings"
	"testing"
)

// TestErrorBodiesEchoNoPathValue holds docs/security.md's promise: an error body never
// carries back a path segment, a header value or a key. It names a uid only when the uid is
// well-formed (and not shaped like a key), a message id only as the integer natter parsed,
// and quotes body values only briefly. 404s used to quote the id from the path, up to 10,000
// characters.
func TestErrorBodiesEchoNoPathValue(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		m := e.mustText("alice", "bob", "hi")
		long := strings.Repeat("a", 10000)
		digits := strings.Repeat("9", 10000)
		key := e.full
		secrets := []string{long[:100], digits[:100], key, "kelvin", "x" + strings.Repeat("y", 200)}
		for _, r := range []request{
			{method: "GET", path: "/v3/messages/" + long},
			{method: "GET", path: "/v3/messages/" + digits},
			{method: "GET", path: "/v3/messages/" + key},
			{method: "DELETE", path: "/v3/messages/" + long},
			{method: "GET", path: "/v3/messages/" + long + "/reactions"},
			{method: "POST", path: "/v3/messages/" + long + "/reactions/x", headers: map[string]string{"onBehalfOf": "alice"}},
			{method: "GET", path: "/v3/users/" + long},
			{method: "GET", path: "/v3/users/" + key},
			{method: "GET", path: "/v3/users/" + strings.ToUpper(key)},
			{method: "GET", path: "/v3/users/%E2%84%AAelvin"},
			{method: "PUT", path: "/v3/users/" + long, body: `{"name":"x"}`},
			{method: "DELETE", path: "/v3/users/" + long + "?permanent=true"},
			{method: "DELETE", path: "/v3/users/" + key},
			{method: "GET", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": long}},
			{method: "GET", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": key}},
			{method: "POST", path: "/v3/messages/" + m.ID + "/reactions/x", headers: map[string]string{"onBehalfOf": long}},
			{method: "POST", path: "/v3/messages/" + m.ID + "/reactions/x", headers: map[string]string{"onBehalfOf": key}},
			{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "alice"},
				body: `{"receiver":"` + long + `","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`},
			{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "alice"},
				body: `{"receiver":"` + key + `","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`},
			{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "alice"},
				body: `{"receiver":"bob","receiverType":"user","category":"message","type":"x` + strings.Repeat("y", 5000) + `","data":{"text":"hi"}}`},
			{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "alice"},
				body: `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi","x` + strings.Repeat("y", 5000) + `":1,"x` + strings.Repeat("y", 5000) + `":2}}`},
			{method: "GET", path: "/v3/users/alice", headers: map[string]string{"appId": long}},
			{method: "GET", path: "/v3/users/alice", headers: map[string]string{"appId": key}},
			{method: "GET", path: "/v3/apikeys/" + key + "x"},
		} {
			got := e.do(r)
			if got.status < 400 {
				t.Errorf("%s %.60s: %d, want an error", r.method, r.path, got.status)
				continue
			}
			for _, s := range secrets {
				if strings.Contains(string(got.body), s) {
					t.Errorf("%s %.60s: %d body echoes %.20s…: %.300s", r.method, r.path, got.status, s, got.body)
				}
			}
			if len(got.body) > 600 {
				t.Errorf("%s %.60s: %d body of %d bytes: %.300s", r.method, r.path, got.status, len(got.body), got.body)
			}
		}
		// Well-formed identifiers are still named, as the hosted service names them.
		if r := e.do(request{method: "GET", path: "/v3/users/nobody"}); !strings.Contains(string(r.body), "The UID nobody does not exist") {
			t.Errorf("unknown uid: %s", r.body)
		}
		if r := e.do(request{method: "GET", path: "/v3/messages/0099"}); !strings.Contains(string(r.body), "The message with id 99 does not exist") {
			t.Errorf("unknown message: %s", r.body)
		}
		addr := e.srv.Listener.Addr().String()
		for _, target := range []string{"/v3/users", "/v3/nothing"} {
			if status, body := rawRequest(t, addr, "K"+key, target, key); status < 400 || strings.Contains(body, key) {
				t.Errorf("method made of a key on %s: %d %s", target, status, body)
			}
		}
	})
}

package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

const sendBody = `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`

func (e *env) sendOnce(key, from, body string) response {
	e.t.Helper()
	return e.do(request{method: "POST", path: "/v3/messages", body: body,
		headers: map[string]string{"Idempotency-Key": key, "onBehalfOf": from}})
}

func TestIdempotencyKey(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		messages := func() int { return e.count("SELECT COUNT(*) FROM messages") }

		first := e.sendOnce("retry-1", "alice", sendBody)
		if first.status != 200 || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d %s", first.status, first.body)
		}
		again := e.sendOnce("retry-1", "alice", sendBody)
		if again.status != 200 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry: %d %s, replayed %q; want the first answer %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.body)
		}
		if n := messages(); n != 1 {
			t.Fatalf("%d messages after a retry, want 1", n)
		}
		// The same key with another request is refused (the /v3.0 alias is another path), and
		// so are malformed keys; none of them writes.
		before := e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"another body", request{body: strings.Replace(sendBody, "hi", "ho", 1), headers: map[string]string{"onBehalfOf": "alice"}}, 409, "ERR_IDEMPOTENCY_KEY_REUSED"},
			{"another sender", request{body: sendBody, headers: map[string]string{"onBehalfOf": "bob"}}, 409, "ERR_IDEMPOTENCY_KEY_REUSED"},
			{"another path", request{path: "/v3.0/messages", body: sendBody, headers: map[string]string{"onBehalfOf": "alice"}}, 409, "ERR_IDEMPOTENCY_KEY_REUSED"},
			{"key too long", request{body: sendBody, headers: map[string]string{"onBehalfOf": "alice", "Idempotency-Key": strings.Repeat("k", 256)}}, 400, "ERR_BAD_REQUEST"},
			{"key with a space", request{body: sendBody, headers: map[string]string{"onBehalfOf": "alice", "Idempotency-Key": "a b"}}, 400, "ERR_BAD_REQUEST"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := tc.r
				r.method = "POST"
				if r.path == "" {
					r.path = "/v3/messages"
				}
				if _, ok := r.headers["Idempotency-Key"]; !ok {
					r.headers["Idempotency-Key"] = "retry-1"
				}
				got := e.do(r)
				if got.status != tc.status || got.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", got.status, got.code, tc.status, tc.code, got.body)
				}
				if after := e.snapshot(); after != before {
					t.Fatalf("something was written")
				}
			})
		}

		t.Run("key sent twice", func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.srv.URL+"/v3/messages", strings.NewReader(sendBody))
			req.Header.Set("apikey", e.full)
			req.Header.Set("onBehalfOf", "alice")
			req.Header.Set("Content-Type", "application/json")
			req.Header["Idempotency-Key"] = []string{"retry-1", "retry-1"}
			res, err := e.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 400 || e.snapshot() != before {
				t.Fatalf("got %d, or something was written", res.StatusCode)
			}
		})

		// A refusal is an answer too: its retry gets it again and writes nothing.
		bad := e.sendOnce("retry-2", "alice", `{"receiver":"nobody","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`)
		badAgain := e.sendOnce("retry-2", "alice", `{"receiver":"nobody","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}`)
		if bad.status != 404 || badAgain.status != 404 || !bytes.Equal(bad.body, badAgain.body) || badAgain.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("refusal and its retry: %d %s / %d %s", bad.status, bad.body, badAgain.status, badAgain.body)
		}
		// Another app's key of the same name is its own.
		_, otherKey := e.newApp("other", "eu")
		r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"zed","name":"Zed"}`,
			headers: map[string]string{"apikey": otherKey, "Idempotency-Key": "retry-1"}})
		if r.status != 200 {
			t.Fatalf("another app, same key: %d %s", r.status, r.body)
		}
		// Reads ignore the header.
		if r := e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"Idempotency-Key": "read-1"}}); r.status != 200 ||
			e.count("SELECT COUNT(*) FROM idempotency_keys WHERE key = 'read-1'") != 0 {
			t.Fatalf("a read with a key: %d", r.status)
		}

		// Concurrent retries of one key: one message, and every caller gets its answer.
		var wg sync.WaitGroup
		bodies := make([][]byte, 8)
		for i := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bodies[i] = postRaw(t, e.http, e.srv.URL, e.full, "burst-1", "alice", sendBody)
			}()
		}
		wg.Wait()
		for _, b := range bodies {
			if !bytes.Equal(b, bodies[0]) || !bytes.Contains(b, []byte(`"data"`)) {
				t.Fatalf("concurrent retries answered differently:\n%s\n%s", bodies[0], b)
			}
		}
		if n := messages(); n != 2 {
			t.Fatalf("%d messages after 8 concurrent sends with one key, want 2 in all", n)
		}
	})
}

// postRaw sends a message with a key and returns the body of a 200.
func postRaw(t *testing.T, hc *http.Client, base, apikey, key, from, body string) []byte {
	req, _ := http.NewRequest("POST", base+"/v3/messages", strings.NewReader(body))
	req.Header.Set("apikey", apikey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("onBehalfOf", from)
	req.Header.Set("Idempotency-Key", key)
	res, err := hc.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Errorf("status %d: %s", res.StatusCode, b)
	}
	return b
}

// Two nodes on one PostgreSQL: concurrent retries of one key give one message, and a node
// that never saw the key (a restarted one) replays its answer from the database.
func TestIdempotencyKeyTwoNodes(t *testing.T) {
	e := newEnv(t, "postgres", chat.Config{})
	second := e.secondNode(chat.Config{})
	e.mustUser("alice", "Alice")
	e.mustUser("bob", "Bob")
	var wg sync.WaitGroup
	bodies := make([][]byte, 10)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := e.srv.URL
			if i%2 == 1 {
				base = second
			}
			bodies[i] = postRaw(t, e.http, base, e.full, "two-nodes", "alice", sendBody)
		}()
	}
	wg.Wait()
	for _, b := range bodies {
		if !bytes.Equal(b, bodies[0]) {
			t.Fatalf("answers differ:\n%s\n%s", bodies[0], b)
		}
	}
	if n := e.count("SELECT COUNT(*) FROM messages"); n != 1 {
		t.Fatalf("%d messages, want 1", n)
	}
	third := e.secondNode(chat.Config{})
	if b := postRaw(t, e.http, third, e.full, "two-nodes", "alice", sendBody); !bytes.Equal(b, bodies[0]) {
		t.Fatalf("a fresh node's answer %s, want %s", b, bodies[0])
	}
}

// A retry while the first request is unanswered waits for its answer; a first request whose
// node died between its write and its answer (its claim left unanswered, as after kill -9)
// is not run again: the retry answers 409 ERR_IDEMPOTENCY_KEY_IN_USE and writes nothing.
func TestIdempotencyKeyUnanswered(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		first := e.sendOnce("k1", "alice", sendBody)
		// As if the answer had not been stored yet: the retry waits, and gets it once stored.
		if _, err := e.raw.Exec(`UPDATE idempotency_keys SET status = 0, body = NULL`); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(300 * time.Millisecond)
			q := `UPDATE idempotency_keys SET status = 200, body = $1`
			if e.backend == "sqlite" {
				q = `UPDATE idempotency_keys SET status = 200, body = ?1`
			}
			if _, err := e.raw.Exec(q, first.body); err != nil {
				t.Error(err)
			}
		}()
		start := time.Now()
		again := e.sendOnce("k1", "alice", sendBody)
		if again.status != 200 || !bytes.Equal(again.body, first.body) || time.Since(start) < 250*time.Millisecond {
			t.Fatalf("retry during the first: %d %s after %v", again.status, again.body, time.Since(start))
		}
		// The first request's node died after writing: its claim is two minutes old, unanswered.
		if _, err := e.raw.Exec(`UPDATE idempotency_keys SET status = 0, body = NULL, created_at = created_at - 120`); err != nil {
			t.Fatal(err)
		}
		before := e.snapshot()
		r := e.sendOnce("k1", "alice", sendBody)
		if r.status != 409 || r.code != "ERR_IDEMPOTENCY_KEY_IN_USE" || r.header.Get("Retry-After") != "1" {
			t.Fatalf("retry of a dead request: %d %s %v", r.status, r.body, r.header)
		}
		if e.snapshot() != before || e.count("SELECT COUNT(*) FROM messages") != 1 {
			t.Fatalf("the retry of a dead request wrote")
		}
	})
}

// After 24 hours a key is forgotten: the same key runs as a new request.
func TestIdempotencyKeyExpires(t *testing.T) {
	var now atomic.Int64
	now.Store(testClock.Unix())
	e := newEnvWith(t, "sqlite", chat.Config{Now: func() time.Time { return time.Unix(now.Load(), 0) }}, httpapi.Options{})
	e.mustUser("alice", "Alice")
	e.mustUser("bob", "Bob")
	e.sendOnce("day-1", "alice", sendBody)
	now.Add(int64(23 * time.Hour / time.Second))
	if r := e.sendOnce("day-1", "alice", sendBody); r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after 23 h: not replayed (%d)", r.status)
	}
	now.Add(int64(2 * time.Hour / time.Second))
	if r := e.sendOnce("day-1", "alice", sendBody); r.status != 200 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after 25 h: %d, replayed %q", r.status, r.header.Get("Idempotent-Replayed"))
	}
	if n := e.count("SELECT COUNT(*) FROM messages"); n != 2 {
		t.Fatalf("%d messages, want 2", n)
	}
}

// TestIdempotencySecretsAndTokens: an operation that answers a secret takes no key (natter
// would have to keep the secret to replay it), and an auth token's keys are its user's.
func TestIdempotencySecretsAndTokens(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		before := e.snapshot()
		for _, r := range []request{
			{method: "POST", path: "/v3/apikeys", body: `{"name":"k","scope":"fullAccess"}`},
			{method: "POST", path: "/v3/users/alice/auth_tokens", body: `{}`},
			{method: "POST", path: "/v3/users", body: `{"uid":"carol","name":"Carol","withAuthToken":true}`},
		} {
			r.headers = map[string]string{"Idempotency-Key": "secret-1"}
			if res := e.do(r); res.status != 400 || res.code != "ERR_BAD_REQUEST" {
				t.Errorf("%s %s with a key: %d %s", r.method, r.path, res.status, res.body)
			}
		}
		if e.snapshot() != before {
			t.Fatal("a refused request wrote")
		}
		// Two users' apps pick the same key: each gets its own message; a retry replays its own.
		aliceTok, bobTok := e.mustToken("alice"), e.mustToken("bob")
		send := func(tok, to string) response {
			return e.do(request{method: "POST", path: "/v3/messages", body: `{"receiver":"` + to + `","receiverType":"user","data":{"text":"hi"}}`,
				headers: map[string]string{"apikey": "", "authToken": tok, "Idempotency-Key": "same"}})
		}
		a1, b1, a2 := send(aliceTok, "bob"), send(bobTok, "alice"), send(aliceTok, "bob")
		if a1.status != 200 || b1.status != 200 || a2.status != 200 || string(a1.body) != string(a2.body) || a2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("token keys: %d %s / %d %s / %d %s", a1.status, a1.body, b1.status, b1.body, a2.status, a2.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM messages`); n != 2 {
			t.Fatalf("%d messages, want 2", n)
		}
	})
}

package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// TestIdempotencyKill9: natter is killed (SIGKILL) after a message sent with an
// Idempotency-Key is written and before its answer is stored and sent. A retry of that
// request, on a restarted node, does not send the message again: it answers 409
// ERR_IDEMPOTENCY_KEY_IN_USE, and the database holds one message.
//
// The gap between the write and the answer is made wide by a trigger that makes storing the
// answer (an UPDATE of the key's row) sleep for 5 s. The retry comes while the dead claim is
// recent, so it first waits its 5 s for an answer that never comes.
func TestIdempotencyKill9(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	dbURL := pgtest.URL(t)
	db := openDB(t, dbURL)
	hc, _ := newHTTPClient(t)
	ctx := context.Background()
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--database", dbURL, "--access-log=false"}
	node := startNatter(t, "node", env, args...)
	c := client.New(node.base(), key, client.WithHTTPClient(hc))
	for _, uid := range []string{"alice", "bob"} {
		if _, err := c.CreateUser(ctx, client.CreateUserRequest{UID: uid, Name: uid}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`CREATE FUNCTION natter_test_stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$`,
		`CREATE TRIGGER natter_test_stall BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION natter_test_stall()`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	send := func(base string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/v3/messages", strings.NewReader(
			`{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"once"}}`))
		req.Header.Set("apikey", key)
		req.Header.Set("onBehalfOf", "alice")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "kill-9")
		res, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	type answer struct {
		status int
		body   string
	}
	answered := make(chan answer, 1)
	go func() { status, body := send(node.base()); answered <- answer{status, body} }()

	messages := func() int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM messages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(20 * time.Second)
	for messages() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the message was not written within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	node.kill() // the message is written; its answer is stuck behind the trigger
	select {
	case a := <-answered:
		if a.status != 0 {
			t.Fatalf("the killed request was answered: %d %s", a.status, a.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the killed request's client did not notice the kill")
	}
	if _, err := db.Exec(`DROP TRIGGER natter_test_stall ON idempotency_keys`); err != nil {
		t.Fatal(err)
	}

	restarted := startNatter(t, "node (restarted)", env, args...)
	status, body := send(restarted.base())
	if status != http.StatusConflict || !strings.Contains(body, "ERR_IDEMPOTENCY_KEY_IN_USE") {
		t.Fatalf("retry after kill -9: %d %s, want 409 ERR_IDEMPOTENCY_KEY_IN_USE", status, body)
	}
	if n := messages(); n != 1 {
		t.Fatalf("%d messages after the retry, want 1", n)
	}
}

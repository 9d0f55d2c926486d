package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/webhook"
)

// Webhooks that never lose an event (docs/webhooks.md), with real natter processes: several
// nodes sharing one outbox, a node killed with deliveries in hand, PostgreSQL stopped under
// load, and an endpoint that fails for a while. The receiver is an HTTP server in the test
// process; it records every request it gets. What must hold in every test:
//
//   - every committed change's event reaches the receiver, and no event exists for a change
//     that did not commit;
//   - an event keeps its id (X-Natter-Event-Id) across attempts, nodes and restarts, so a
//     receiver may see an event twice (at-least-once) but never one change under two ids;
//   - an attempt (event id, X-Natter-Attempt) is made once: two nodes never send the same one;
//   - every request is signed with the webhook's secret.
//
// The nodes run with a short retry schedule (--webhook-retry-base 200ms) and attempt timeout
// (2 s, so a lease lasts 2·2 s + 5 s = 9 s), so that the whole file runs in about a minute.

// hookNodeArgs are `natter serve`'s arguments for these tests; later flags win, so extra
// may override these.
func hookNodeArgs(db string, extra ...string) []string {
	return append([]string{"serve", "--addr", "127.0.0.1:0", "--database", db, "--access-log=false",
		"--webhook-allow-private", "--webhook-retry-base", "200ms", "--webhook-timeout", "2s",
		"--key-cache-ttl", "1s", "--rate-limit-core", "0", "--rate-limit-standard", "0"}, extra...)
}

// Special answers of the receiver, besides HTTP statuses.
const (
	answerHang   = -1 // hold the request until released, then drop the connection unanswered
	answerHangUp = -2 // drop the connection at once, unanswered
)

// hookReq is one request the receiver got.
type hookReq struct {
	at      time.Time
	eventID string
	attempt int
	trigger string
	subject string // what the event is about: "msg:<id>" or "rx:<messageId>:<uid>:<reaction>"
	text    string // a message_sent's data.text
	conv    string // the message's conversationId (message_sent)
	status  int    // what the receiver answered; 0: nothing (hung or hung up)
	bad     string // why the request is malformed or its signature wrong; empty when fine
}

func (r hookReq) accepted() bool { return r.status >= 200 && r.status <= 299 }

// hookReceiver is the webhook endpoint. answer decides each request's answer (200 when nil);
// n counts the requests from 1.
type hookReceiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	secret  []byte
	reqs    []hookReq
	answer  func(r hookReq, n int) int
	delay   time.Duration // before each answer
	release chan struct{} // closed to let hung requests go
}

func newHookReceiver(t *testing.T) *hookReceiver {
	rc := &hookReceiver{release: make(chan struct{})}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.releaseHung()
		rc.srv.CloseClientConnections()
		rc.srv.Close()
	})
	return rc
}

func (rc *hookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	q := hookReq{at: time.Now(), eventID: r.Header.Get(webhook.HeaderEventID), trigger: r.Header.Get(webhook.HeaderTrigger)}
	q.attempt, _ = strconv.Atoi(r.Header.Get(webhook.HeaderAttempt))
	var env struct {
		Trigger string
		Data    struct {
			Message *struct {
				ID             string
				ConversationID string
				Data           struct{ Text string }
			}
			Reaction *struct{ MessageID, UID, Reaction string }
		}
	}
	switch {
	case err != nil:
		q.bad = "reading the body: " + err.Error()
	case json.Unmarshal(body, &env) != nil:
		q.bad = "body is not JSON: " + string(body)
	case env.Trigger != q.trigger:
		q.bad = fmt.Sprintf("trigger %q in the body, %q in the header", env.Trigger, q.trigger)
	case env.Data.Message != nil:
		q.subject, q.text, q.conv = "msg:"+env.Data.Message.ID, env.Data.Message.Data.Text, env.Data.Message.ConversationID
	case env.Data.Reaction != nil:
		x := env.Data.Reaction
		q.subject = "rx:" + x.MessageID + ":" + x.UID + ":" + x.Reaction
	default:
		q.bad = "neither a message nor a reaction: " + string(body)
	}
	rc.mu.Lock()
	if q.bad == "" {
		if err := webhook.Verify(rc.secret, r.Header.Get(webhook.HeaderTimestamp), r.Header.Get(webhook.HeaderSignature), body, 5*time.Minute, time.Now()); err != nil {
			q.bad = "signature: " + err.Error()
		}
	}
	status := http.StatusOK
	if rc.answer != nil {
		status = rc.answer(q, len(rc.reqs)+1)
	}
	if status > 0 {
		q.status = status
	}
	rc.reqs = append(rc.reqs, q)
	release, delay := rc.release, rc.delay
	rc.mu.Unlock()
	time.Sleep(delay)
	switch status {
	case answerHang:
		select {
		case <-release:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // no answer: the attempt's outcome stays unknown to natter
	case answerHangUp:
		panic(http.ErrAbortHandler)
	case http.StatusFound:
		w.Header().Set("Location", "/elsewhere") // natter follows no redirect: a failure
	}
	w.WriteHeader(status)
}

func (rc *hookReceiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = []byte(s)
}

func (rc *hookReceiver) setAnswer(f func(r hookReq, n int) int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.answer = f
}

// releaseHung lets the hung requests go (unanswered).
func (rc *hookReceiver) releaseHung() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	select {
	case <-rc.release:
	default:
		close(rc.release)
	}
}

func (rc *hookReceiver) requests() []hookReq {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// acceptedSubjects is the set of subjects with at least one accepted request.
func (rc *hookReceiver) acceptedSubjects() map[string]bool {
	got := map[string]bool{}
	for _, q := range rc.requests() {
		if q.accepted() {
			got[q.subject] = true
		}
	}
	return got
}

// waitAccepted waits until every subject in want has been accepted.
func (rc *hookReceiver) waitAccepted(t *testing.T, want []string, within time.Duration) {
	t.Helper()
	waitUntil(t, within, "every event delivered", func() (bool, string) {
		got := rc.acceptedSubjects()
		var missing []string
		for _, s := range want {
			if !got[s] {
				missing = append(missing, s)
			}
		}
		return len(missing) == 0, fmt.Sprintf("%d of %d not delivered yet, e.g. %.5q", len(missing), len(want), missing)
	})
}

// waitUntil polls cond until it holds, and fails the test with cond's last account of the
// state when within passes first.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %s", what, within, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitNonePending waits until the webhook's log has no pending delivery: every attempt has
// been made and recorded, so a duplicate would have arrived already.
func waitNonePending(t *testing.T, c *client.Client, webhookID string, within time.Duration) {
	t.Helper()
	waitUntil(t, within, "no pending delivery in the log", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ds, err := c.ListDeliveries(ctx, webhookID, client.DeliveriesParams{State: "pending", Limit: 100})
		if err != nil {
			return false, err.Error()
		}
		if len(ds) > 0 {
			return false, fmt.Sprintf("%d pending, e.g. %+v", len(ds), ds[0])
		}
		return true, ""
	})
}

// hookAccount is what the requests say, checked against the rules every test shares: each
// request well-formed and signed, each (event id, attempt) sent once, each event id about
// one subject and each subject under one event id.
type hookAccount struct {
	requests  int
	accepted  map[string]int // subject → accepted requests
	eventOf   map[string]string
	redundant int // accepted requests beyond the first of their event: at-least-once's duplicates
}

func checkHookRequests(t *testing.T, reqs []hookReq) hookAccount {
	t.Helper()
	a := hookAccount{requests: len(reqs), accepted: map[string]int{}, eventOf: map[string]string{}}
	subjectOf := map[string]string{}
	attempts := map[string]int{}
	bad := 0
	for _, q := range reqs {
		if q.bad != "" {
			if bad++; bad <= 5 {
				t.Errorf("request %s attempt %d: %s", q.eventID, q.attempt, q.bad)
			}
			continue
		}
		if q.eventID == "" || q.attempt < 1 {
			t.Errorf("request for %s without an event id or attempt number: %q, %d", q.subject, q.eventID, q.attempt)
			continue
		}
		k := q.eventID + "#" + strconv.Itoa(q.attempt)
		if attempts[k]++; attempts[k] == 2 {
			t.Errorf("attempt %d of %s (%s) was sent twice: two nodes made the same attempt", q.attempt, q.eventID, q.subject)
		}
		if s, ok := subjectOf[q.eventID]; ok && s != q.subject {
			t.Errorf("event %s is about %s and about %s", q.eventID, s, q.subject)
		}
		subjectOf[q.eventID] = q.subject
		if e, ok := a.eventOf[q.subject]; ok && e != q.eventID {
			t.Errorf("%s was sent under two event ids, %s and %s: a receiver could not de-duplicate it", q.subject, e, q.eventID)
		}
		a.eventOf[q.subject] = q.eventID
		if q.accepted() {
			if a.accepted[q.subject]++; a.accepted[q.subject] > 1 {
				a.redundant++
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d malformed or badly signed requests in all", bad)
	}
	return a
}

// hookApp is a node on a database with users and a webhook: node A creates them, then the
// other nodes start, so that none of them has cached the app's subscriptions before the
// webhook existed.
type hookApp struct {
	key   string
	env   []string
	nodes []*natterProc
	cs    []*client.Client // one per node
	rc    *hookReceiver
	wh    *client.Webhook
}

func startHookApp(t *testing.T, db string, nodes, users int, triggers []string, extra ...string) *hookApp {
	t.Helper()
	ctx := context.Background()
	hc, _ := newHTTPClient(t)
	a := &hookApp{key: randomKey(), rc: newHookReceiver(t)}
	a.env = []string{"NATTER_API_KEY=" + a.key, "NATTER_APP_ID=e2e"}
	args := hookNodeArgs(db, extra...)
	start := func(i int) {
		n := startNatter(t, "node "+string(rune('A'+i)), a.env, args...)
		a.nodes = append(a.nodes, n)
		a.cs = append(a.cs, client.New(n.base(), a.key, client.WithHTTPClient(hc)))
	}
	start(0)
	for u := range users {
		if _, err := a.cs[0].CreateUser(ctx, client.CreateUserRequest{UID: hookUID(u), Name: hookUID(u)}); err != nil {
			t.Fatal(err)
		}
	}
	url := a.rc.srv.URL + "/natter"
	wh, err := a.cs[0].CreateWebhook(ctx, client.WebhookRequest{WebhookURL: &url, Triggers: &triggers})
	if err != nil {
		t.Fatal(err)
	}
	a.wh = wh
	a.rc.setSecret(wh.SigningSecret)
	for i := 1; i < nodes; i++ {
		start(i)
	}
	return a
}

func hookUID(i int) string { return fmt.Sprintf("u%02d", i) }

// send sends a text message and returns its id.
func hookSend(ctx context.Context, c *client.Client, sender, receiver, text string) (string, error) {
	m, err := c.OnBehalfOf(sender).SendMessage(ctx, client.SendMessageRequest{Receiver: receiver, ReceiverType: "user",
		Category: "message", Type: "text", Data: map[string]any{"text": text}})
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// attemptsDelivered reads natter_webhook_attempts_total{outcome="delivered"} from a node's
// /metrics.
func attemptsDelivered(t *testing.T, hc *http.Client, n *natterProc) int {
	t.Helper()
	status, body, _ := getStatus(hc, n.debugBase()+"/metrics", 10*time.Second)
	if status != 200 {
		t.Fatalf("%s /metrics: HTTP %d %.200s", n.name, status, body)
	}
	m := regexp.MustCompile(`(?m)^natter_webhook_attempts_total\{outcome="delivered"\} (\d+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s /metrics has no delivered attempts counter", n.name)
	}
	v, _ := strconv.Atoi(m[1])
	return v
}

// TestWebhookTwoNodes: two nodes on one PostgreSQL share the outbox. Messages and reactions
// sent through both nodes each reach the receiver exactly once: with an endpoint that always
// answers 200 there is no reason for a second attempt, so none is made, and the nodes'
// own counts of delivered attempts add up to the events.
func TestWebhookTwoNodes(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	const messages = 200
	a := startHookApp(t, pgtest.URL(t), 2, 16, []string{"message_sent", "message_reaction_added"}, "--debug-addr", "127.0.0.1:0")
	ctx := context.Background()
	ids := make([]string, messages)
	var want []string
	var mu sync.Mutex
	// 64 conversations (u00–u07 → u08–u15), through node A and node B in turn.
	bounded(messages, 8, func(i int) {
		id, err := hookSend(ctx, a.cs[i%2], hookUID(i%8), hookUID(8+(i/8)%8), fmt.Sprintf("two-%d", i))
		if err != nil {
			t.Errorf("send %d: %v", i, err)
			return
		}
		mu.Lock()
		ids[i], want = id, append(want, "msg:"+id)
		mu.Unlock()
	})
	if t.Failed() {
		t.FailNow()
	}
	// The receiver reacts, through the other node: the reaction batchers' own path.
	bounded(messages, 8, func(i int) {
		uid := hookUID(8 + (i/8)%8)
		if _, err := a.cs[(i+1)%2].OnBehalfOf(uid).AddReaction(ctx, ids[i], "👍"); err != nil {
			t.Errorf("react to %s: %v", ids[i], err)
			return
		}
		mu.Lock()
		want = append(want, "rx:"+ids[i]+":"+uid+":👍")
		mu.Unlock()
	})
	if t.Failed() {
		t.FailNow()
	}
	a.rc.waitAccepted(t, want, 60*time.Second)
	waitNonePending(t, a.cs[0], a.wh.ID, 30*time.Second)

	reqs := a.rc.requests()
	acct := checkHookRequests(t, reqs)
	if len(reqs) != len(want) || acct.redundant != 0 {
		t.Errorf("%d requests for %d events (%d redundant), want exactly one each", len(reqs), len(want), acct.redundant)
	}
	for _, q := range reqs {
		if q.attempt != 1 {
			t.Errorf("%s (%s) came with attempt %d, want 1: every endpoint answer was 200", q.eventID, q.subject, q.attempt)
		}
	}
	for s := range acct.accepted {
		if !slices.Contains(want, s) {
			t.Errorf("an event about %s, which nobody sent", s)
		}
	}
	hc, _ := newHTTPClient(t)
	nA, nB := attemptsDelivered(t, hc, a.nodes[0]), attemptsDelivered(t, hc, a.nodes[1])
	t.Logf("%d events, %d requests; node A delivered %d, node B %d", len(want), len(reqs), nA, nB)
	if nA+nB != len(want) {
		t.Errorf("the nodes count %d + %d delivered attempts, want %d in all", nA, nB, len(want))
	}
}

// TestWebhookKill9: a node is killed (SIGKILL) while it holds deliveries whose endpoint has
// not answered yet, and other events wait behind them. Started again, natter delivers every
// event: the held ones once their leases end, as a next attempt under the same event id;
// an event of another conversation at once, without waiting for those leases; and each
// conversation still in order.
//
// The killed node holds fewer deliveries than the webhook's cap on attempts in flight (a
// quarter of --webhook-workers, 4): leases count against it until they end, since nobody
// can tell a dead node's attempt from a slow one, so a node killed holding the whole cap
// stalls that webhook for a lease (2·timeout + 5 s).
func TestWebhookKill9(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	const convs, perConv = 3, 6
	dbURL := pgtest.URL(t)
	db := openDB(t, dbURL)
	// A longer attempt timeout: the node must still hold the hung attempts when it is killed.
	// Its leases last 2·3 s + 5 s = 11 s.
	a := startHookApp(t, dbURL, 1, 2*convs+2, []string{"message_sent"}, "--webhook-timeout", "3s")
	a.rc.setAnswer(func(hookReq, int) int { return answerHang })
	ctx := context.Background()

	// convs conversations (u0i → u0(convs+i)), each sent in order.
	sent := make([][]string, convs+1)
	send := func(c *client.Client, conv, n int, tag string) {
		for j := range n {
			id, err := hookSend(ctx, c, hookUID(conv), hookUID(convs+conv), fmt.Sprintf("%s-%d-%d", tag, conv, j))
			if err != nil {
				t.Errorf("send %s %d/%d: %v", tag, conv, j, err)
				return
			}
			sent[conv] = append(sent[conv], id)
		}
	}
	var wg sync.WaitGroup
	for i := range convs {
		wg.Add(1)
		go func() { defer wg.Done(); send(a.cs[0], i, perConv, "before") }()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Each conversation's first event is in flight (the rest wait for it): kill the node
	// while the endpoint holds them.
	waitUntil(t, 20*time.Second, "the node posts each conversation's first event", func() (bool, string) {
		n := len(a.rc.requests())
		return n >= convs, fmt.Sprintf("%d requests", n)
	})
	a.nodes[0].kill()
	tKill := time.Now()
	// The killed node's leases, by event: nobody may attempt these before they end.
	leaseEnd := map[string]time.Time{}
	rows, err := db.Query(`SELECT event_id, lease_until FROM webhook_deliveries WHERE state = 0 AND leased_by <> '' AND lease_until > $1`, tKill.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, until int64
		if err := rows.Scan(&id, &until); err != nil {
			t.Fatal(err)
		}
		leaseEnd["evt_"+strconv.FormatInt(id, 10)] = time.UnixMilli(until)
	}
	rows.Close()
	for _, q := range a.rc.requests() {
		if _, ok := leaseEnd[q.eventID]; !ok {
			t.Fatalf("the endpoint holds %s, which the killed node had not leased", q.eventID)
		}
	}
	if len(leaseEnd) < convs {
		t.Fatalf("%d deliveries leased by the killed node, want at least %d", len(leaseEnd), convs)
	}
	a.rc.setAnswer(nil)
	a.rc.releaseHung()

	restarted := startNatter(t, "node A (restarted)", a.env, hookNodeArgs(dbURL, "--webhook-timeout", "3s")...)
	hc, _ := newHTTPClient(t)
	c := client.New(restarted.base(), a.key, client.WithHTTPClient(hc))
	for i := range convs { // more events behind the held ones, from the new process
		send(c, i, 2, "after")
	}
	send(c, convs, 1, "other") // a conversation the dead node held nothing of
	if t.Failed() {
		t.FailNow()
	}
	var want []string
	for _, ids := range sent {
		for _, id := range ids {
			want = append(want, "msg:"+id)
		}
	}
	a.rc.waitAccepted(t, want, 45*time.Second)
	waitNonePending(t, c, a.wh.ID, 20*time.Second)

	reqs := a.rc.requests()
	acct := checkHookRequests(t, reqs)
	if len(acct.accepted) != len(want) {
		t.Errorf("%d events accepted, want %d", len(acct.accepted), len(want))
	}
	var firstRedelivery, other time.Time
	for _, q := range reqs {
		end, held := leaseEnd[q.eventID]
		switch {
		case q.subject == "msg:"+sent[convs][0] && q.accepted():
			other = q.at
		case held && q.status != 0: // not the dead node's own attempt, which hung
			if q.attempt < 2 {
				t.Errorf("%s was attempted again as attempt %d, want 2 or more: the killed node's attempt counts", q.eventID, q.attempt)
			}
			if q.at.Before(end) {
				t.Errorf("%s was attempted again %v before the dead node's lease on it ended", q.eventID, end.Sub(q.at))
			}
			if firstRedelivery.IsZero() || q.at.Before(firstRedelivery) {
				firstRedelivery = q.at
			}
		}
	}
	if !other.Before(firstRedelivery) {
		t.Errorf("the other conversation's event arrived %v after the kill, after the held ones (%v): the dead node's leases held it up",
			other.Sub(tKill), firstRedelivery.Sub(tKill))
	}
	checkConversationOrder(t, reqs, messageSubjects(sent[:convs]))
	t.Logf("killed with %d deliveries leased; the other conversation's event delivered %v after the kill, the held ones from %v; %d requests, %d redundant",
		len(leaseEnd), other.Sub(tKill).Round(time.Millisecond),
		firstRedelivery.Sub(tKill).Round(time.Millisecond), len(reqs), acct.redundant)
}

// checkConversationOrder: for each conversation (the subjects of its events in the order
// they were committed), the requests about them come in that order: while one is not yet
// accepted, no request for a later one, and once it is, none for an earlier one (the same
// one again is at-least-once). Requests for other subjects are ignored.
func checkConversationOrder(t *testing.T, reqs []hookReq, convs [][]string) {
	t.Helper()
	for c, subjects := range convs {
		index := map[string]int{}
		for i, s := range subjects {
			index[s] = i
		}
		next, last := 0, -1 // next: the first event not yet accepted
		var seq []int
		for _, q := range reqs {
			i, ok := index[q.subject]
			if !ok {
				continue
			}
			seq = append(seq, i)
			if i < last || i > next {
				t.Errorf("conversation %d: a request for its event %d out of order (the one before was for %d, event %d not yet accepted): requests in order %v",
					c, i, last, next, seq)
				break
			}
			last = i
			if q.accepted() && i == next {
				next++
			}
		}
		if next != len(subjects) {
			t.Errorf("conversation %d: %d of its %d events accepted in order: requests %v", c, next, len(subjects), seq)
		}
	}
}

// messageSubjects turns conversations' message ids into their message_sent subjects.
func messageSubjects(convs [][]string) [][]string {
	out := make([][]string, len(convs))
	for i, ids := range convs {
		for _, id := range ids {
			out[i] = append(out[i], "msg:"+id)
		}
	}
	return out
}

// TestWebhookPostgresOutage: PostgreSQL stops for a few seconds while messages are sent and
// reacted to. Afterwards every change natter acknowledged has its event delivered, a change
// that failed has none, unless it committed before its answer was lost (then it has one: the
// event goes with the change), and the outbox holds an event for every message stored and
// for nothing else.
func TestWebhookPostgresOutage(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	const workers = 4
	srv := pgtest.NewServer(t)
	dbURL := srv.URL()
	db := openDB(t, dbURL)
	// Attempts time out after 1 s, so leases last 2·1 s + 5 s = 7 s.
	a := startHookApp(t, dbURL, 1, 2*workers, []string{"message_sent", "message_reaction_added"}, "--webhook-timeout", "1s")
	node := a.nodes[0]
	// A slow endpoint: the outbox has a backlog when PostgreSQL stops, and attempts are in
	// flight, whose outcome natter cannot record until it is back (it makes them again once
	// their leases end, under the same event ids).
	a.rc.mu.Lock()
	a.rc.delay = 50 * time.Millisecond
	a.rc.mu.Unlock()

	// One conversation per worker (u0w → u0(workers+w)): send a message, and the receiver
	// reacts to it once it is acknowledged.
	type change struct {
		worker  int
		subject string // "msg:<id>" once known, or "rx:…"
		text    string // a message's text, to find it when its send failed
		status  int
		code    string
	}
	var (
		mu      sync.Mutex
		changes []change
	)
	loadCtx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := a.cs[0]
			for n := 0; loadCtx.Err() == nil; n++ {
				rctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
				ch := change{worker: w, text: fmt.Sprintf("out-%d-%d", w, n)}
				id, err := hookSend(rctx, c, hookUID(w), hookUID(workers+w), ch.text)
				ch.status, ch.code = apiErr(err)
				if err == nil {
					ch.subject = "msg:" + id
				}
				mu.Lock()
				changes = append(changes, ch)
				mu.Unlock()
				if err == nil {
					uid := hookUID(workers + w)
					_, err := c.OnBehalfOf(uid).AddReaction(rctx, id, "r")
					rx := change{worker: w, subject: "rx:" + id + ":" + uid + ":r"}
					rx.status, rx.code = apiErr(err)
					mu.Lock()
					changes = append(changes, rx)
					mu.Unlock()
				}
				cancel()
				select {
				case <-loadCtx.Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
	}
	time.Sleep(time.Second) // normal operation first
	srv.Stop()
	tStopped := time.Now()
	time.Sleep(3 * time.Second)
	srv.Start()
	tStarted := time.Now()
	hc, _ := newHTTPClient(t)
	waitUntil(t, 20*time.Second, "natter ready again", func() (bool, string) {
		s, body, _ := getStatus(hc, node.base()+"/readyz", 5*time.Second)
		return s == 200, fmt.Sprintf("/readyz %d %.100s", s, body)
	})
	time.Sleep(1500 * time.Millisecond) // normal operation again
	stopLoad()
	wg.Wait()

	// What is stored: the messages (by text) and the reactions.
	stored := map[string]string{} // text → "msg:<id>"
	rows, err := db.Query(`SELECT id, data FROM messages WHERE app_id = 'e2e' AND category = 'message'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var data string
		if err := rows.Scan(&id, &data); err != nil {
			t.Fatal(err)
		}
		var d struct{ Text string }
		json.Unmarshal([]byte(data), &d)
		stored[d.Text] = "msg:" + strconv.FormatInt(id, 10)
	}
	rows.Close()
	storedRx := map[string]bool{}
	rows, err = db.Query(`SELECT message_id, uid, reaction FROM reactions WHERE app_id = 'e2e'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var mid int64
		var uid, r string
		if err := rows.Scan(&mid, &uid, &r); err != nil {
			t.Fatal(err)
		}
		storedRx["rx:"+strconv.FormatInt(mid, 10)+":"+uid+":"+r] = true
	}
	rows.Close()
	var want []string
	for _, s := range stored {
		want = append(want, s)
	}
	for s := range storedRx {
		want = append(want, s)
	}
	a.rc.waitAccepted(t, want, 60*time.Second)
	waitNonePending(t, a.cs[0], a.wh.ID, 30*time.Second)
	tDone := time.Now()

	// The outbox itself: one message_sent event per stored message, none for anything else.
	var orphans, eventless int
	if err := db.QueryRow(`SELECT
		(SELECT COUNT(*) FROM webhook_events e WHERE e.trigger = 'message_sent' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = e.message_id)),
		(SELECT COUNT(*) FROM messages m WHERE m.category = 'message' AND (SELECT COUNT(*) FROM webhook_events e WHERE e.trigger = 'message_sent' AND e.message_id = m.id) <> 1)`).
		Scan(&orphans, &eventless); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 || eventless != 0 {
		t.Errorf("outbox: %d message_sent events without their message, %d messages without exactly one event", orphans, eventless)
	}

	reqs := a.rc.requests()
	acct := checkHookRequests(t, reqs)
	for s := range acct.accepted {
		if !slices.Contains(want, s) {
			t.Errorf("an event about %s, which is not stored: a change that did not commit", s)
		}
	}
	outcomes := map[string]int{}
	committedAnyway := 0
	committed := make([][]string, workers) // each conversation's changes, in commit order
	for _, ch := range lockedCopy(&mu, &changes) {
		k := "200"
		if ch.status != 200 {
			k = fmt.Sprintf("%d %s", ch.status, ch.code)
			if len(k) > 60 {
				k = k[:60]
			}
		}
		outcomes[k]++
		subject := ch.subject
		if subject == "" {
			subject = stored[ch.text] // a message whose send failed: stored after all?
		}
		switch {
		case ch.status == 200:
			committed[ch.worker] = append(committed[ch.worker], subject)
			if acct.accepted[subject] == 0 {
				t.Errorf("%s was acknowledged but its event never arrived", subject)
			}
		case subject != "" && (stored[ch.text] != "" || storedRx[subject]):
			committedAnyway++ // its answer was lost after the commit: delivered with the rest
			committed[ch.worker] = append(committed[ch.worker], subject)
		case subject != "" && acct.accepted[subject] > 0:
			t.Errorf("%s failed (%d %s) and is not stored, but its event arrived", subject, ch.status, ch.code)
		case subject == "":
			for _, q := range reqs {
				if q.text == ch.text {
					t.Errorf("message %q failed (%d %s) and is not stored, but an event about it arrived", ch.text, ch.status, ch.code)
					break
				}
			}
		}
	}
	checkConversationOrder(t, reqs, committed)
	failed := 0
	for k, n := range outcomes {
		if k != "200" {
			failed += n
		}
	}
	if failed == 0 {
		t.Errorf("no change failed while PostgreSQL was down: the outage was not exercised (outcomes %v)", outcomes)
	}
	t.Logf("PostgreSQL down %v; changes: %v (%d failed but committed); %d stored messages, %d reactions; %d requests, %d redundant; all delivered %v after PostgreSQL started",
		tStarted.Sub(tStopped).Round(time.Millisecond), outcomes, committedAnyway, len(stored), len(storedRx), len(reqs), acct.redundant,
		tDone.Sub(tStarted).Round(time.Millisecond))
	t.Logf("natter stderr, WARN/ERROR lines grouped:\n%s", groupLogLines(node.stderrLines()))
}

// lockedCopy copies a slice under its mutex.
func lockedCopy[T any](mu *sync.Mutex, s *[]T) []T {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(*s)
}

// TestWebhookFailingEndpoint: the endpoint fails for a while (500, 503, 429, a redirect, a
// dropped connection), then recovers. Every event arrives, each conversation's in the order
// sent: no message's event before the previous one's was accepted, retries included. On
// SQLite with one node, and on PostgreSQL with two nodes taking turns.
func TestWebhookFailingEndpoint(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			const convs, perConv, refusals = 6, 6, 3
			db, nodes := "sqlite:"+filepath.Join(t.TempDir(), "natter.db"), 1
			if backend == "postgres" {
				db, nodes = pgtest.URL(t), 2
			}
			a := startHookApp(t, db, nodes, 2*convs, []string{"message_sent"})
			failures := []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusFound, answerHangUp}
			a.rc.setAnswer(func(_ hookReq, n int) int { return failures[n%len(failures)] })
			ctx := context.Background()

			sent := make([][]string, convs)
			var wg sync.WaitGroup
			for i := range convs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range perConv {
						id, err := hookSend(ctx, a.cs[i%nodes], hookUID(i), hookUID(convs+i), fmt.Sprintf("fail-%d-%d", i, j))
						if err != nil {
							t.Errorf("send %d/%d: %v", i, j, err)
							return
						}
						sent[i] = append(sent[i], id)
					}
				}()
			}
			wg.Wait()
			if t.Failed() {
				t.FailNow()
			}
			// Recover once every conversation's first event has been refused a few times.
			convOf := map[string]int{}
			for i, ids := range sent {
				convOf["msg:"+ids[0]] = i
			}
			waitUntil(t, 30*time.Second, fmt.Sprintf("every conversation refused %d times", refusals), func() (bool, string) {
				n := make([]int, convs)
				for _, q := range a.rc.requests() {
					if i, ok := convOf[q.subject]; ok {
						n[i]++
					}
				}
				return slices.Min(n) >= refusals, fmt.Sprintf("refusals per conversation %v", n)
			})
			a.rc.setAnswer(nil)
			tRecovered := time.Now()

			var want []string
			for _, ids := range sent {
				for _, id := range ids {
					want = append(want, "msg:"+id)
				}
			}
			a.rc.waitAccepted(t, want, 60*time.Second)
			waitNonePending(t, a.cs[0], a.wh.ID, 30*time.Second)
			tDone := time.Now()

			reqs := a.rc.requests()
			acct := checkHookRequests(t, reqs)
			checkConversationOrder(t, reqs, messageSubjects(sent))
			// Each event's attempts are numbered 1, 2, 3 … in the order they arrived.
			byEvent := map[string][]int{}
			for _, q := range reqs {
				byEvent[q.eventID] = append(byEvent[q.eventID], q.attempt)
			}
			for e, as := range byEvent {
				for i, n := range as {
					if n != i+1 {
						t.Errorf("%s: attempts %v, want 1, 2, 3 …", e, as)
						break
					}
				}
			}
			// The log agrees: everything delivered, the first events after several attempts.
			log, err := a.cs[0].ListDeliveries(ctx, a.wh.ID, client.DeliveriesParams{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			retried := 0
			for _, d := range log {
				if d.State != "delivered" || d.LastStatus != 200 {
					t.Errorf("log: %+v, want delivered with 200", d)
				}
				if d.Attempts > refusals {
					retried++
				}
			}
			if len(log) != len(want) || retried < convs {
				t.Errorf("log: %d entries (want %d), %d delivered after more than %d attempts (want at least %d)", len(log), len(want), retried, refusals, convs)
			}
			perEvent := make([]int, 0, len(byEvent))
			for _, as := range byEvent {
				perEvent = append(perEvent, len(as))
			}
			sort.Ints(perEvent)
			t.Logf("%d events, %d requests (%d redundant); attempts per event from %d to %d; all delivered %v after the endpoint recovered",
				len(want), len(reqs), acct.redundant, perEvent[0], perEvent[len(perEvent)-1], tDone.Sub(tRecovered).Round(time.Millisecond))
		})
	}
}

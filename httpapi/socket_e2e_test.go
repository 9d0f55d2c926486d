package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/realtime"
)

// A socket test client speaking the client SDK's frames (docs/realtime.md).

type wsClient struct {
	t     *testing.T
	ws    *websocket.Conn
	uid   string
	token string
	jwt   string
	c     *client.Client // acts with the user's auth token
	frams chan map[string]json.RawMessage
	err   chan error
}

// login makes an auth token for uid and starts its session (PUT /me).
func (e *env) login(uid string) (token string, me *client.Me) {
	e.t.Helper()
	tok, err := e.auth.CreateAuthToken(e.ctx(), uid, client.CreateAuthTokenRequest{})
	if err != nil {
		e.t.Fatalf("auth token for %s: %v", uid, err)
	}
	uc := client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithAuthToken(tok.AuthToken))
	me, err = uc.Me(e.ctx())
	if err != nil {
		e.t.Fatalf("PUT /me as %s: %v", uid, err)
	}
	return tok.AuthToken, me
}

// dial opens a socket without authenticating.
func (e *env) dial() *websocket.Conn {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx(), loadedWait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+"/", nil)
	if err != nil {
		e.t.Fatalf("dial: %v", err)
	}
	ws.SetReadLimit(1 << 20)
	e.t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func authFrame(app, uid, jwt, presence string) string {
	b, _ := json.Marshal(map[string]any{"appId": app, "deviceId": "dev-" + uid, "type": "auth", "sender": uid,
		"body": map[string]any{"auth": jwt, "deviceId": "dev-" + uid, "presenceSubscription": presence}})
	return string(b)
}

// connect logs uid in and opens an authenticated socket that reads frames in the background.
func (e *env) connect(uid, presence string) *wsClient {
	e.t.Helper()
	tok, me := e.login(uid)
	ws := e.dial()
	w := &wsClient{t: e.t, ws: ws, uid: uid, token: tok, jwt: me.JWT, frams: make(chan map[string]json.RawMessage, 100), err: make(chan error, 1),
		c: client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithAuthToken(tok))}
	w.send(authFrame("demo", uid, me.JWT, presence))
	ack := w.readRaw()
	var body struct {
		Code   string `json:"code"`
		Status string `json:"status"`
	}
	json.Unmarshal(ack["body"], &body)
	if typ := str(ack["type"]); typ != "auth" || body.Code != "200" || body.Status != "OK" {
		e.t.Fatalf("auth ack for %s: %v", uid, ack)
	}
	go func() {
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				w.err <- err
				close(w.frams)
				return
			}
			var f map[string]json.RawMessage
			json.Unmarshal(data, &f)
			w.frams <- f
		}
	}()
	return w
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func (w *wsClient) send(frame string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		w.t.Fatalf("%s: write: %v", w.uid, err)
	}
}

func (w *wsClient) readRaw() map[string]json.RawMessage {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loadedWait)
	defer cancel()
	_, data, err := w.ws.Read(ctx)
	if err != nil {
		w.t.Fatalf("%s: read: %v", w.uid, err)
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		w.t.Fatalf("%s: frame is not JSON: %s", w.uid, data)
	}
	return f
}

// next waits for the next frame of type typ (other types are skipped).
func (w *wsClient) next(typ string) map[string]json.RawMessage {
	w.t.Helper()
	timeout := time.After(loadedWait)
	for {
		select {
		case f, ok := <-w.frams:
			if !ok {
				w.t.Fatalf("%s: socket closed while waiting for %q: %v", w.uid, typ, <-w.err)
			}
			if str(f["type"]) == typ {
				return f
			}
		case <-timeout:
			w.t.Fatalf("%s: no %q frame within %v", w.uid, typ, loadedWait)
		}
	}
}

// sync returns once the server has handled every frame sent before: it answers a ping
// after them.
func (w *wsClient) sync() {
	w.t.Helper()
	w.send(`{"action":"ping"}`)
	for {
		if f := w.next(""); str(f["action"]) == "pong" {
			return
		}
	}
}

// presence waits for a presence frame about uid with the action.
func (w *wsClient) presence(uid, action string) {
	w.t.Helper()
	for {
		f := w.next("presence")
		if str(f["sender"]) == uid && strings.Contains(string(f["body"]), `"action":"`+action+`"`) {
			return
		}
	}
}

// quiet asserts no frame of type typ arrives within d.
func (w *wsClient) quiet(typ string, d time.Duration) {
	w.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case f, ok := <-w.frams:
			if !ok {
				return
			}
			if str(f["type"]) == typ {
				w.t.Errorf("%s: unexpected %q frame: %v", w.uid, typ, f)
			}
		case <-timeout:
			return
		}
	}
}

func realtimeEnv(t *testing.T, backend string, opt realtime.HubOptions) *env {
	return newEnvHub(t, backend, chat.Config{}, httpapi.Options{}, &opt)
}

func TestSocketEvents(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{})
			for _, u := range []string{"alice", "bob", "carol"} {
				e.mustUser(u, strings.ToUpper(u))
			}
			bob := e.connect("bob", "ALL_USERS")
			carol := e.connect("carol", "")
			alice := e.connect("alice", "")
			bob.presence("alice", "online") // carol's comes first
			// The three open sockets are GET /stats's concurrent users.
			if st, err := e.c.UsageMetrics(e.ctx(), testClock.Add(-time.Hour), testClock.Add(time.Hour)); err != nil || st.Metrics.ConcurrentUsers != 3 {
				t.Errorf("GET /stats with three sockets open: %+v %v, want 3 concurrent users", st, err)
			}

			// A one-to-one message reaches the receiver, with the sending session's device id.
			m, err := alice.c.SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "text", Data: map[string]any{"text": "hi bob"}})
			if err != nil {
				t.Fatal(err)
			}
			f := bob.next("message")
			var body client.Message
			json.Unmarshal(f["body"], &body)
			if body.ID != m.ID || str(f["sender"]) != "alice" || str(f["receiver"]) != "bob" || str(f["appId"]) != "demo" {
				t.Errorf("bob's message frame %v, want message %s from alice", f, m.ID)
			}
			carol.quiet("message", 200*time.Millisecond)

			// A reaction, then the same reaction again (no change: no event), then its removal.
			if _, err := alice.c.AddReaction(e.ctx(), m.ID, "🎉"); err != nil {
				t.Fatal(err)
			}
			r := bob.next("reaction")
			var rb struct {
				Action, ID, MessageID, UID, Reaction string
				ReactedBy                            client.User
			}
			json.Unmarshal(r["body"], &rb)
			if rb.Action != "message_reaction_added" || rb.MessageID != m.ID || rb.UID != "alice" || rb.Reaction != "🎉" || rb.ID == "" || rb.ReactedBy.UID != "alice" {
				t.Errorf("reaction frame body %+v", rb)
			}
			if _, err := alice.c.AddReaction(e.ctx(), m.ID, "🎉"); err != nil {
				t.Fatal(err)
			}
			if _, err := alice.c.RemoveReaction(e.ctx(), m.ID, "🎉"); err != nil {
				t.Fatal(err)
			}
			r = bob.next("reaction")
			json.Unmarshal(r["body"], &rb)
			if rb.Action != "message_reaction_removed" {
				t.Errorf("after a repeated add and a removal, frame %s, want the removal (a no-op add publishes nothing)", r["body"])
			}

			// An edit and a deletion reach bob as their action messages.
			if _, err := alice.c.EditMessage(e.ctx(), m.ID, client.EditMessageRequest{Data: map[string]any{"text": "hi bob!"}}); err != nil {
				t.Fatal(err)
			}
			if ed := bob.next("message"); !strings.Contains(string(ed["body"]), `"action":"edited"`) || !strings.Contains(string(ed["body"]), "hi bob!") {
				t.Errorf("edit frame %s, want the edited action with the new text", ed["body"])
			}
			extra := e.mustText("alice", "bob", "oops")
			bob.next("message")
			if _, err := alice.c.DeleteMessage(e.ctx(), extra.ID, false); err != nil {
				t.Fatal(err)
			}
			if del := bob.next("message"); !strings.Contains(string(del["body"]), `"action":"deleted"`) {
				t.Errorf("delete frame %s, want the deleted action", del["body"])
			}

			// Typing is relayed with the server's idea of the sender.
			alice.send(`{"appId":"demo","receiver":"bob","receiverType":"user","deviceId":"x","type":"typing_indicator","sender":"mallory","body":{"action":"started","user":{"uid":"mallory"}}}`)
			ty := bob.next("typing_indicator")
			if str(ty["sender"]) != "alice" || !strings.Contains(string(ty["body"]), `"uid":"alice"`) || strings.Contains(string(ty["body"]), "mallory") {
				t.Errorf("typing frame %v, want alice's, whatever the frame claimed", ty)
			}

			// Typing to a user who blocked the typist goes nowhere, as a message would; once
			// unblocked it is relayed again (carol's first typing frame is the second one).
			if _, err := e.c.BlockUsers(e.ctx(), "carol", []string{"alice"}); err != nil {
				t.Fatal(err)
			}
			alice.send(`{"receiver":"carol","receiverType":"user","type":"typing_indicator","body":{"action":"started"}}`)
			alice.sync()
			if _, err := e.c.UnblockUsers(e.ctx(), "carol", []string{"alice"}); err != nil {
				t.Fatal(err)
			}
			alice.send(`{"receiver":"carol","receiverType":"user","type":"typing_indicator","body":{"action":"ended"}}`)
			if ty := carol.next("typing_indicator"); !strings.Contains(string(ty["body"]), `"action":"ended"`) {
				t.Errorf("carol's first typing frame %s, want the one sent after she unblocked alice", ty["body"])
			}

			// A read receipt sent on the socket moves bob's read marker and reaches alice.
			bob.send(`{"appId":"demo","receiver":"alice","receiverType":"user","deviceId":"dev-bob","type":"receipts","sender":"bob","body":{"action":"read","messageId":"` + m.ID + `"}}`)
			rc := alice.next("receipts")
			if !strings.Contains(string(rc["body"]), `"action":"read"`) || !strings.Contains(string(rc["body"]), `"messageId":"`+m.ID+`"`) {
				t.Errorf("receipt frame %v", rc)
			}
			got, err := e.c.OnBehalfOf("alice").GetMessage(e.ctx(), m.ID)
			if err != nil || got.ReadAt == 0 {
				t.Errorf("after bob's read receipt, the message's readAt = %v (err %v), want set", got, err)
			}

			// Group messages and member changes reach every member.
			if _, err := e.c.CreateGroup(e.ctx(), client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
				Members: &client.MemberLists{Participants: []string{"bob"}}}); err != nil {
				t.Fatal(err)
			}
			bob.next("message") // the "added" action message
			if _, err := e.c.OnBehalfOf("alice").AddMembers(e.ctx(), "crew", client.MemberLists{Participants: []string{"carol"}}); err != nil {
				t.Fatal(err)
			}
			for _, w := range []*wsClient{bob, carol} {
				a := w.next("message")
				if !strings.Contains(string(a["body"]), `"action":"added"`) {
					t.Errorf("%s: member change frame %s, want the added action", w.uid, a["body"])
				}
			}
			gm, err := alice.c.SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "crew", ReceiverType: "group", Category: "message", Type: "text", Data: map[string]any{"text": "all hands"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []*wsClient{bob, carol} {
				g := w.next("message")
				if !strings.Contains(string(g["body"]), `"id":"`+gm.ID+`"`) {
					t.Errorf("%s: group frame %s, want message %s", w.uid, g["body"], gm.ID)
				}
			}

			// Presence: available while a socket is open, offline with lastActiveAt after.
			u, err := e.c.GetUser(e.ctx(), "carol")
			if err != nil || u.Status != "available" {
				t.Errorf("carol with an open socket: %+v %v, want available", u, err)
			}
			carol.ws.Close(websocket.StatusNormalClosure, "")
			bob.presence("carol", "offline")
			u, err = e.c.GetUser(e.ctx(), "carol")
			if err != nil || u.Status != "offline" || u.LastActiveAt == 0 {
				t.Errorf("carol after closing: %+v %v, want offline with lastActiveAt", u, err)
			}
			list, err := e.c.ListUsers(e.ctx(), client.ListUsersParams{Status: "available"})
			if err != nil {
				t.Fatal(err)
			}
			var avail []string
			for _, u := range list.Users {
				avail = append(avail, u.UID)
			}
			if strings.Join(avail, ",") != "alice,bob" && strings.Join(avail, ",") != "bob,alice" {
				t.Errorf("available users %v, want alice and bob", avail)
			}
		})
	}
}

// TestSocketRefusals: bad input on a socket closes or refuses that socket with a reason,
// and another socket keeps working.
func TestSocketRefusals(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{AuthTimeout: 300 * time.Millisecond, FramesPerSecond: 5, FrameBurst: 5})
			e.mustUser("alice", "Alice")
			e.mustUser("bob", "Bob")
			bob := e.connect("bob", "")
			_, me := e.login("alice")
			other, otherKey := e.newApp("other", "us")
			_ = otherKey
			if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "alice", Name: "Other Alice"}); err != nil {
				t.Fatal(err)
			}
			otherTok, err := other.CreateAuthToken(e.ctx(), "alice", client.CreateAuthTokenRequest{})
			if err != nil {
				t.Fatal(err)
			}
			otherMe, err := client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithAuthToken(otherTok.AuthToken)).Me(e.ctx())
			if err != nil {
				t.Fatal(err)
			}
			revokedTok, revokedMe := e.login("alice")
			if _, err := e.c.DeleteAuthToken(e.ctx(), "alice", revokedTok); err != nil {
				t.Fatal(err)
			}
			tampered := me.JWT[:len(me.JWT)-2] + "AA"

			cases := []struct {
				name   string
				frames []string
				binary bool
				status websocket.StatusCode
				reason string // part of the close reason
			}{
				{name: "garbage first frame", frames: []string{"hello?"}, status: websocket.StatusPolicyViolation, reason: "auth frame"},
				{name: "no auth frame in time", status: websocket.StatusPolicyViolation, reason: "no auth frame"},
				{name: "tampered jwt", frames: []string{authFrame("demo", "alice", tampered, "")}, status: websocket.StatusPolicyViolation, reason: "not valid"},
				{name: "empty jwt", frames: []string{authFrame("demo", "alice", "", "")}, status: websocket.StatusPolicyViolation, reason: "not valid"},
				{name: "another app's jwt", frames: []string{authFrame("demo", "alice", otherMe.JWT, "")}, status: websocket.StatusPolicyViolation, reason: "this app"},
				{name: "jwt of a deleted token", frames: []string{authFrame("demo", "alice", revokedMe.JWT, "")}, status: websocket.StatusPolicyViolation, reason: "auth token"},
				{name: "jwt of another user", frames: []string{authFrame("demo", "bob", me.JWT, "")}, status: websocket.StatusPolicyViolation, reason: "sender"},
				{name: "garbage after auth", frames: []string{authFrame("demo", "alice", me.JWT, ""), "{not json"}, status: websocket.StatusInvalidFramePayloadData, reason: "JSON"},
				{name: "binary frame", frames: []string{authFrame("demo", "alice", me.JWT, "")}, binary: true, status: websocket.StatusUnsupportedData, reason: "JSON text"},
				{name: "oversized frame", frames: []string{authFrame("demo", "alice", me.JWT, ""), `{"type":"typing_indicator","body":"` + strings.Repeat("x", 20000) + `"}`}, status: websocket.StatusMessageTooBig},
				{name: "ping flood", frames: append([]string{authFrame("demo", "alice", me.JWT, "")}, strings.Split(strings.Repeat(`{"action":"ping","ack":"true"}`+"\n", 30), "\n")[:30]...), status: websocket.StatusPolicyViolation, reason: "too many frames"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					ws := e.dial()
					ctx, cancel := context.WithTimeout(e.ctx(), 5*time.Second)
					defer cancel()
					for _, f := range c.frames {
						if err := ws.Write(ctx, websocket.MessageText, []byte(f)); err != nil {
							break // the server may already have closed it
						}
					}
					if c.binary {
						ws.Write(ctx, websocket.MessageBinary, []byte{1, 2, 3})
					}
					var err error
					for err == nil {
						_, _, err = ws.Read(ctx)
					}
					var ce websocket.CloseError
					if !errors.As(err, &ce) {
						t.Fatalf("socket ended with %v, want a close frame", err)
					}
					if ce.Code != c.status || !strings.Contains(ce.Reason, c.reason) {
						t.Errorf("closed with %d %q, want %d with %q", ce.Code, ce.Reason, c.status, c.reason)
					}
				})
			}
			// bob's socket still works.
			if _, err := e.c.OnBehalfOf("alice").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "text", Data: map[string]any{"text": "still there?"}}); err != nil {
				t.Fatal(err)
			}
			bob.next("message")
			bob.send(`{"action":"ping","ack":"true"}`)
			if f := bob.next(""); len(f) == 0 {
				t.Error("no pong")
			}

			// A node full of sockets refuses the next before upgrading.
			full := realtimeEnv(t, b, realtime.HubOptions{MaxConns: 1})
			full.mustUser("alice", "Alice")
			full.connect("alice", "")
			if r := full.do(request{method: "GET", path: "/", headers: map[string]string{"Upgrade": "websocket", "Connection": "Upgrade",
				"Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}}); r.status != 503 || r.code != "ERR_SERVICE_UNAVAILABLE" {
				t.Errorf("a socket past --max-sockets: %d %s, want 503", r.status, r.code)
			}

			// The session endpoints are for auth tokens only.
			for _, r := range []request{{method: "PUT", path: "/v3/me", body: "{}"}, {method: "GET", path: "/v3/me"}, {method: "DELETE", path: "/v3/me"}} {
				if got := e.do(r); got.status != 403 || got.code != "AUTH_ERR_NO_ACCESS" {
					t.Errorf("%s %s with an API key: %d %s, want 403 AUTH_ERR_NO_ACCESS", r.method, r.path, got.status, got.code)
				}
			}
			if got := e.do(request{method: "PUT", path: "/v3/me", body: "[1]", headers: map[string]string{"apikey": "", "authToken": bob.token}}); got.status != 400 {
				t.Errorf("PUT /me with a non-object body: %d, want 400", got.status)
			}
			if got := e.do(request{method: "PUT", path: "/v3/me", body: "{}", headers: map[string]string{"apikey": "", "authToken": bob.token, "Idempotency-Key": "k1"}}); got.status != 400 {
				t.Errorf("PUT /me with an Idempotency-Key: %d, want 400 (its answer holds secrets natter does not keep)", got.status)
			}
			if _, err := bob.c.Logout(e.ctx()); err != nil {
				t.Fatal(err)
			}
			if _, err := bob.c.Me(e.ctx()); err == nil {
				t.Error("PUT /me after logout succeeded")
			}
		})
	}
}

// TestSocketCredentialExpiry: a socket credential older than its lifetime is refused, and
// PUT /me hands out a fresh one.
func TestSocketCredentialExpiry(t *testing.T) {
	var now atomic.Int64
	now.Store(testClock.Unix())
	e := newEnvHub(t, "sqlite", chat.Config{Now: func() time.Time { return time.Unix(now.Load(), 0) }}, httpapi.Options{}, &realtime.HubOptions{})
	e.mustUser("alice", "Alice")
	tok, me := e.login("alice")
	now.Add(int64(chat.SocketTokenTTL/time.Second) + 1)
	ws := e.dial()
	ctx, cancel := context.WithTimeout(e.ctx(), 5*time.Second)
	defer cancel()
	ws.Write(ctx, websocket.MessageText, []byte(authFrame("demo", "alice", me.JWT, "")))
	_, ack, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(ack), `"status":"ERROR"`) || !strings.Contains(string(ack), "expired") {
		t.Fatalf("auth with an expired credential: %s %v, want an ERROR ack saying it expired", ack, err)
	}
	_, _, err = ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("after the refusal: %v, want a 1008 close", err)
	}
	fresh, err := client.New(e.srv.URL, "", client.WithHTTPClient(e.http), client.WithAuthToken(tok)).Me(e.ctx())
	if err != nil || fresh.JWT == me.JWT {
		t.Fatalf("PUT /me again: %v, want a new credential", err)
	}
	w := e.dial()
	w.Write(ctx, websocket.MessageText, []byte(authFrame("demo", "alice", fresh.JWT, "")))
	if _, ack, err := w.Read(ctx); err != nil || !strings.Contains(string(ack), `"code":"200"`) {
		t.Errorf("auth with the fresh credential: %s %v", ack, err)
	}
}

// TestSocketEventRightAfterAck: an event published as soon as the client holds its auth ack
// reaches it; the socket is registered before the ack goes out.
func TestSocketEventRightAfterAck(t *testing.T) {
	e := realtimeEnv(t, "sqlite", realtime.HubOptions{})
	e.mustUser("alice", "Alice")
	e.mustUser("bob", "Bob")
	for i := range 20 {
		bob := e.connect("bob", "")
		m := e.mustText("alice", "bob", "right after the ack "+strconv.Itoa(i))
		if f := bob.next("message"); !strings.Contains(string(f["body"]), `"id":"`+m.ID+`"`) {
			t.Fatalf("round %d: frame %s, want message %s", i, f["body"], m.ID)
		}
		bob.ws.Close(websocket.StatusNormalClosure, "")
	}
}

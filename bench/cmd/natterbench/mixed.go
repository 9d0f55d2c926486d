package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/bench/internal/sdksock"
)

// mixedKinds are the kinds of request of the mixed scenario, "a day in an app", with their
// shares in percent: 70 reads, 20 sends, 10 reactions and receipts.
var mixedKinds = []struct {
	name  string
	share int
}{
	{"history", 30},
	{"conversations", 10},
	{"get-message", 30},
	{"send-message", 20},
	{"add-reaction", 5},
	{"mark-read", 5},
}

// mixedScenario sends each request as one of mixedKinds, drawn at random by its share. The
// kinds are the single-kind scenarios' requests, but for two: a single-message read is a
// user's (onBehalfOf a participant, as the SDK reads), and the reactions are
// mixedReactions. The webhook and the sockets that run beside it are mixedEnv's.
func mixedScenario(base string, d *seedData, env *mixedEnv) *scenario {
	getAs := &scenario{method: http.MethodGet, next: func(w *worker) {
		m := &d.msgs[w.rng.IntN(len(d.msgs))]
		w.behalf[0] = m.sender
		if w.rng.IntN(2) == 1 {
			w.behalf[0] = m.receiver
		}
		w.path = append(append(w.path, "/v3/messages/"...), m.id...)
	}}
	// The read receipt of the SDK's markAsRead: the receiver marks the conversation read up
	// to a message it received (natter accepts one that moves no marker, as the SDK sends).
	markRead := &scenario{method: http.MethodPost, next: func(w *worker) {
		m := &d.msgs[w.rng.IntN(len(d.msgs))]
		w.behalf[0] = m.receiver
		w.path = append(append(w.path, "/v3/users/"...), m.sender...)
		w.path = append(w.path, "/conversation/read"...)
		w.body = append(append(append(w.body, `{"messageId":`...), m.id...), '}')
	}}
	byKind := map[string]*scenario{
		"history":       historyScenario(base, d),
		"conversations": conversationsScenario(base, d),
		"get-message":   getAs,
		"send-message":  sendMessageScenario(base, d),
		"add-reaction":  reactionScenario("mixed's reactions", base, d, mixedReactions),
		"mark-read":     markRead,
	}
	var names []string
	var pick [100]int // a percent → its kind
	var subs []*scenario
	at := 0
	for i, k := range mixedKinds {
		names = append(names, k.name)
		subs = append(subs, byKind[k.name])
		for range k.share {
			pick[at] = i
			at++
		}
	}
	if at != len(pick) {
		panic("mixedKinds' shares do not add up to 100")
	}
	reactions := byKind["add-reaction"]
	return &scenario{
		name: "mixed", base: base, method: http.MethodGet, kinds: names,
		next: func(w *worker) {
			k := pick[w.rng.IntN(len(pick))]
			w.kind, w.method = k, subs[k].method
			subs[k].next(w)
		},
		notes: reactions.notes,
		verify: func(ctx context.Context, a *api, res result) (string, error) {
			var sent uint64
			for _, k := range res.kinds {
				if k.name == "send-message" {
					sent = k.okAll
				}
			}
			return env.finish(ctx, a, sent)
		},
	}
}

// mixedEnv is what runs beside the mixed scenario's requests: one webhook subscribed to
// message_sent, delivered to a receiver in this process that answers 204 at once, and
// sockets open for some seeded users, logged in as the SDK logs in, reading every frame and
// pinging every 15 s as the SDK does.
type mixedEnv struct {
	hook      *http.Server
	hookID    string
	delivered atomic.Uint64 // message_sent deliveries
	others    atomic.Uint64 // deliveries of any other trigger (none expected)
	socks     []*websocket.Conn
	uids      []string
	users     int // seeded users, for the share of sends a socket sees
	frames    atomic.Uint64
	stopPing  chan struct{}
	pinging   sync.WaitGroup
	closeOnce sync.Once
}

// mixedPing is the SDK's keep-alive period; natter closes a socket silent for 45 s.
const mixedPing = 15 * time.Second

// startMixed starts the receiver, subscribes the webhook and opens a socket for each of the
// first sockets seeded users. natter must allow webhooks to private addresses
// (NATTER_WEBHOOK_ALLOW_PRIVATE): the receiver is on the loopback.
func startMixed(ctx context.Context, a *api, host string, d *seedData, sockets, conns int) (_ *mixedEnv, err error) {
	e := &mixedEnv{stopPing: make(chan struct{})}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("mixed: webhook receiver: %w", err)
	}
	e.hook = &http.Server{Handler: http.HandlerFunc(e.receive), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	go e.hook.Serve(ln)
	var wh struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	body := map[string]any{"webhookURL": "http://" + ln.Addr().String() + "/hook", "triggers": []string{"message_sent"}}
	if err := a.do(ctx, http.MethodPost, "/v3/webhooks", "", body, &wh); err != nil {
		return nil, fmt.Errorf("mixed: subscribe the webhook: %w", err)
	}
	e.hookID = wh.Data.ID

	e.uids, e.users = d.users[:min(sockets, len(d.users))], len(d.users)
	e.socks = make([]*websocket.Conn, len(e.uids))
	onFrame := func([]byte) { e.frames.Add(1) }
	err = parallel(ctx, len(e.uids), conns, func(ctx context.Context, i int) error {
		uid := e.uids[i]
		var tok struct {
			Data struct {
				AuthToken string `json:"authToken"`
			} `json:"data"`
		}
		if err := a.do(ctx, http.MethodPost, "/v3/users/"+uid+"/auth_tokens", "", map[string]any{}, &tok); err != nil {
			return err
		}
		var me struct {
			Data struct {
				JWT string `json:"jwt"`
			} `json:"data"`
		}
		if err := a.doAs(ctx, http.MethodPut, "/v3/me", "", tok.Data.AuthToken, map[string]any{"platform": "natterbench"}, &me); err != nil {
			return err
		}
		ws, err := sdksock.Open(ctx, a.base, "", uid, me.Data.JWT, onFrame)
		if err != nil {
			return err
		}
		e.socks[i] = ws
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mixed: open the sockets: %w", err)
	}
	e.pinging.Add(1)
	go e.ping()
	return e, nil
}

func (e *mixedEnv) receive(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if bytes.Contains(b, []byte(`"trigger":"message_sent"`)) {
		e.delivered.Add(1)
	} else {
		e.others.Add(1)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (e *mixedEnv) ping() {
	defer e.pinging.Done()
	t := time.NewTicker(mixedPing)
	defer t.Stop()
	for {
		select {
		case <-e.stopPing:
			return
		case <-t.C:
		}
		for _, ws := range e.socks {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			ws.Write(ctx, websocket.MessageText, sdksock.Ping)
			cancel()
		}
	}
}

// finish waits (up to 30 s) for the webhook to receive the sends natter answered, then
// closes the sockets, unsubscribes the webhook and stops the receiver; it says what the
// receiver and the sockets got.
func (e *mixedEnv) finish(ctx context.Context, a *api, sent uint64) (string, error) {
	atEnd, start := e.delivered.Load(), time.Now()
	for e.delivered.Load() < sent && time.Since(start) < 30*time.Second && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	drained, took := e.delivered.Load(), time.Since(start)
	frames := e.frames.Load()
	e.closeSockets()
	err := a.do(ctx, http.MethodDelete, "/v3/webhooks/"+e.hookID, "", nil, nil)
	e.hookID = ""
	e.close()
	if err != nil {
		return "", fmt.Errorf("mixed: unsubscribe the webhook: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "mixed: the message_sent webhook had %d deliveries by the window's end for the %d sends natter answered 2xx (warmup included)", atEnd, sent)
	if drained >= sent {
		fmt.Fprintf(&b, ", all %d within %.1f s after it", drained, took.Seconds())
	} else {
		fmt.Fprintf(&b, ", only %d after waiting %.0f s", drained, took.Seconds())
	}
	if n := e.others.Load(); n > 0 {
		fmt.Fprintf(&b, "; %d deliveries of other triggers", n)
	}
	online := float64(len(e.uids)) / float64(max(e.users, 1))
	fmt.Fprintf(&b, ". %d sockets were open, one for each of the first %d seeded users (so about %.0f%% of the sends had a user with a socket at one end), and received %d frames, warmup included. Shares: %s.",
		len(e.socks), len(e.uids), 100*(1-(1-online)*(1-online)), frames, formatShares())
	return b.String(), nil
}

func (e *mixedEnv) closeSockets() {
	select {
	case <-e.stopPing:
	default:
		close(e.stopPing)
	}
	e.pinging.Wait()
	for i, ws := range e.socks {
		if ws != nil {
			ws.CloseNow()
			e.socks[i] = nil
		}
	}
}

// close releases what finish would have, for a run that stops early; the webhook, if still
// subscribed, goes with natter's database.
func (e *mixedEnv) close() {
	e.closeOnce.Do(func() {
		e.closeSockets()
		if e.hook != nil {
			e.hook.Close()
		}
	})
}

// formatShares is mixedKinds as "history 30%, …".
func formatShares() string {
	var b bytes.Buffer
	for i, k := range mixedKinds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.name + " " + strconv.Itoa(k.share) + "%")
	}
	return b.String()
}

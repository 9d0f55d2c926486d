package httpapi_test

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/realtime"
)

// TestSocketIdleGoroutines: an idle socket that has pinged and had its pong holds one
// goroutine, its reader: no writer while nothing is queued, and nothing of the HTTP request
// that opened it (bench/README.md, "Real time", has what that is worth in memory).
func TestSocketIdleGoroutines(t *testing.T) {
	e := realtimeEnv(t, "sqlite", realtime.HubOptions{})
	e.mustUser("bob", "Bob")
	_, me := e.login("bob")
	ctx, cancel := context.WithTimeout(e.ctx(), 30*time.Second)
	defer cancel()
	open := func() *websocket.Conn {
		ws := e.dial()
		if err := ws.Write(ctx, websocket.MessageText, []byte(authFrame("demo", "bob", me.JWT, ""))); err != nil {
			t.Fatal(err)
		}
		if _, ack, err := ws.Read(ctx); err != nil || !strings.Contains(string(ack), `"code":"200"`) {
			t.Fatalf("auth: %s %v", ack, err)
		}
		if err := ws.Write(ctx, websocket.MessageText, []byte(`{"action":"ping","ack":"true"}`)); err != nil {
			t.Fatal(err)
		}
		if _, pong, err := ws.Read(ctx); err != nil || !strings.Contains(string(pong), `"pong"`) {
			t.Fatalf("ping: %s %v", pong, err)
		}
		return ws
	}
	open() // the first socket of the user sets its presence; later ones are the same
	base := steadyGoroutines()
	const n = 40
	for range n {
		open() // the test's client side runs no goroutine per socket
	}
	if got := settledGoroutines(base + n); got > base+n {
		t.Errorf("%d idle sockets hold %d goroutines, want %d", n, got-base, n)
	}
}

// steadyGoroutines returns the goroutine count once it holds for 100 ms (up to loadedWait).
func steadyGoroutines() int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(loadedWait); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}

// settledGoroutines waits up to loadedWait for the goroutine count to come down to want
// and returns it.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(loadedWait)
	for {
		got := runtime.NumGoroutine()
		if got <= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSocketOrder: a socket's frames arrive in the order the hub delivered them, whether its
// writer was already running or started for the frame.
func TestSocketOrder(t *testing.T) {
	e := realtimeEnv(t, "sqlite", realtime.HubOptions{})
	e.mustUser("alice", "Alice")
	e.mustUser("bob", "Bob")
	bob := e.connect("bob", "")
	var want []string
	for i := range 30 {
		want = append(want, e.mustText("alice", "bob", "in order "+strconv.Itoa(i)).ID)
	}
	for i, id := range want {
		if f := bob.next("message"); !strings.Contains(string(f["body"]), `"id":"`+id+`"`) {
			t.Fatalf("message %d: frame %s, want message %s", i, f["body"], id)
		}
	}
}

// TestSocketShutdown: closing the hub sends every open socket a going-away close frame, and
// its sockets are gone once Close returns; over TLS too, where a socket's read waits with a
// buffer (the connection's own) rather than on the poller.
func TestSocketShutdown(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "TLS"}[tls], func(t *testing.T) {
			e := newEnv(t, "sqlite", chat.Config{})
			bus := chat.NewLocalBus()
			defer bus.Close()
			hub := realtime.NewHub(e.svc, bus, realtime.HubOptions{}, nil)
			srv := httptest.NewUnstartedServer(httpapi.New(e.svc, httpapi.Options{Hub: hub, Domain: "natter.test"}))
			url, opts := "ws", &websocket.DialOptions{}
			if tls {
				srv.StartTLS()
				url, opts.HTTPClient = "wss", srv.Client()
			} else {
				srv.Start()
			}
			defer srv.Close()
			url += strings.TrimPrefix(strings.TrimPrefix(srv.URL, "https"), "http") + "/"
			e.mustUser("bob", "Bob")
			_, me := e.login("bob")
			ctx, cancel := context.WithTimeout(e.ctx(), 30*time.Second)
			defer cancel()
			var socks []*websocket.Conn
			for range 3 {
				ws, _, err := websocket.Dial(ctx, url, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer ws.CloseNow()
				for _, f := range []struct{ send, want string }{
					{authFrame("demo", "bob", me.JWT, ""), `"code":"200"`},
					{`{"action":"ping","ack":"true"}`, `"pong"`},
				} {
					ws.Write(ctx, websocket.MessageText, []byte(f.send))
					if _, got, err := ws.Read(ctx); err != nil || !strings.Contains(string(got), f.want) {
						t.Fatalf("sent %s: got %s %v, want %s", f.send, got, err, f.want)
					}
				}
				socks = append(socks, ws)
			}
			if hub.Open() != 3 {
				t.Fatalf("the hub holds %d sockets, want 3", hub.Open())
			}
			closed := make(chan error, len(socks))
			for _, ws := range socks {
				go func() {
					_, _, err := ws.Read(ctx)
					closed <- err
				}()
			}
			hub.Close()
			if hub.Open() != 0 {
				t.Errorf("after Close the hub holds %d sockets, want 0", hub.Open())
			}
			for range socks {
				if err := <-closed; websocket.CloseStatus(err) != websocket.StatusGoingAway {
					t.Errorf("a socket at shutdown: %v, want a 1001 close", err)
				}
			}
		})
	}
}

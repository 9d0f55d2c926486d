//go:build unix

package httpapi_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/realtime"
)

// TestSlowSocket: a socket that stops reading is dropped once its queue is full; the sender
// and a socket that reads are not held up.
func TestSlowSocket(t *testing.T) {
	e := realtimeEnv(t, "sqlite", realtime.HubOptions{QueueLen: 2, WriteTimeout: time.Second})
	e.mustUser("alice", "Alice")
	e.mustUser("bob", "Bob")
	fast := e.connect("bob", "")
	// bob's second device authenticates and then never reads.
	_, me := e.login("bob")
	ctx, cancel := context.WithTimeout(e.ctx(), 60*time.Second)
	defer cancel()
	// A small receive buffer, so that what the stalled socket does not read backs up into
	// the server within a few megabytes.
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8192) })
	}}
	slow, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+"/", &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	slow.SetReadLimit(1 << 20)
	slow.Write(ctx, websocket.MessageText, []byte(authFrame("demo", "bob", me.JWT, "")))
	if _, ack, err := slow.Read(ctx); err != nil || !strings.Contains(string(ack), `"code":"200"`) {
		t.Fatalf("slow socket's auth: %s %v", ack, err)
	}
	text := strings.Repeat("z", 9000)
	t0 := time.Now()
	const n = 800
	for i := range n {
		if _, err := e.c.OnBehalfOf("alice").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user",
			Category: "message", Type: "text", Data: map[string]any{"text": text}}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		fast.next("message")
	}
	t.Logf("%d sends of 9 kB with a stalled socket took %v", n, time.Since(t0).Round(time.Millisecond))
	// The stalled socket was dropped: reading it now ends in an error after what was
	// buffered, well before the n messages.
	read := 0
	for {
		if _, _, err := slow.Read(ctx); err != nil {
			break
		}
		read++
	}
	if read >= n {
		t.Errorf("the stalled socket got all %d messages; want it dropped", read)
	}
}

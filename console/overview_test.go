package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestOverview: the overview counts what the app has, from the same figures as the API
// (users, groups, today's messages in the chart and its table, and the requests refused
// over the rate limits).
func TestOverview(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		p := principal(t, e)
		for _, uid := range []string{"ann", "ben"} {
			if _, err := e.svc.CreateUser(ctx, p, chat.UserCreate{UID: uid, Name: uid}); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := e.svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "g", Name: "G", Type: "public"}); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := e.svc.SendMessage(ctx, p.ActingAs("ann"), chat.MessageSend{Receiver: "ben", ReceiverType: "user",
				Category: "message", Type: "text", Data: []byte(`{"text":"hi"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		// Import is limited to 2 a minute: the third and fourth are refused and counted.
		for i := range 4 {
			d, err := e.svc.TakeRate(ctx, p, chat.RateImport)
			if err != nil || d.Allowed != (i < 2) {
				t.Fatalf("take %d: %+v %v", i, d, err)
			}
		}
		// ben has a socket open on some node: his presence says so.
		if _, err := e.svc.Presence().SetOnline(ctx, "demo", "node-b", []string{"ben"}, e.svc.Now(), e.svc.Now()+60); err != nil {
			t.Fatal(err)
		}
		c := e.browser(t)
		e.signIn(t, c, "demo", e.full)
		code, page := e.get(t, c, "/console/")
		if code != 200 {
			t.Fatalf("overview: %d", code)
		}
		for _, want := range []string{`<dd id="users-count">2</dd>`, `<dd id="groups-count">1</dd>`, "<dt>Messages today</dt><dd>3</dd>",
			"3 messages in 14 days; the busiest day had 3.", `<dd id="dead-count"><a href="/console/webhooks">0</a></dd>`,
			`<dt>Rate-limit rejections today</dt><dd id="ratelimited-count">2</dd>`, "<td>3</td><td>2</td></tr></tbody>",
			`<dd id="online-count">1</dd>`} {
			if !strings.Contains(page, want) {
				t.Errorf("the overview lacks %s:\n%s", want, page)
			}
		}
	})
}

package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/notify"
)

// pushFake is a custom push provider's webhook: it records what natter posts, and fails
// the first attempts fail says.
type pushFake struct {
	srv  *httptest.Server
	mu   sync.Mutex
	n    int
	fail func(n int) bool
	got  []customPost
}

type customPost struct {
	Trigger string `json:"trigger"`
	Data    struct {
		Channel string `json:"channel"`
		To      struct {
			UID string `json:"uid"`
		} `json:"to"`
		Title string `json:"title"`
		Body  string `json:"body"`
		Event struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		} `json:"event"`
	} `json:"data"`
	AppID string `json:"appId"`
}

func newPushFake(t *testing.T) *pushFake {
	f := &pushFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.n++
		if f.fail != nil && f.fail(f.n) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var p customPost
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("custom provider body: %v", err)
		}
		f.got = append(f.got, p)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// received waits until the fake has n notifications, then a little longer for any extra.
func (f *pushFake) received(t *testing.T, n int) []customPost {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f.mu.Lock()
		got := slices.Clone(f.got)
		f.mu.Unlock()
		if len(got) >= n {
			time.Sleep(300 * time.Millisecond)
			f.mu.Lock()
			defer f.mu.Unlock()
			return slices.Clone(f.got)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// notifyEnv is an env on the real clock whose custom providers may post to loopback, with
// this node's notification workers on a short schedule.
func notifyEnv(t *testing.T, backend string, endpoints notify.Endpoints) *env {
	return notifyEnvWith(t, backend, notify.ClientConfig{AllowPrivate: true, Endpoints: endpoints})
}

// notifyEnvWith is notifyEnv with the providers' client settings.
func notifyEnvWith(t *testing.T, backend string, cc notify.ClientConfig) *env {
	return notifyEnvConfig(t, backend, chat.Config{}, cc)
}

// notifyEnvConfig is notifyEnvWith with the service's settings too.
func notifyEnvConfig(t *testing.T, backend string, cfg chat.Config, cc notify.ClientConfig) *env {
	cfg.WebhookAllowPrivate, cfg.Now = true, time.Now
	e := newEnv(t, backend, cfg)
	runNotifyWorker(t, e, notify.WorkerConfig{Poll: 20 * time.Millisecond, Backoff: 50 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, Timeout: 2 * time.Second, Client: cc})
	return e
}

// runNotifyWorker runs this node's notification workers with wc until the test ends.
func runNotifyWorker(t *testing.T, e *env, wc notify.WorkerConfig) {
	ctx, cancel := context.WithCancel(context.Background())
	w := notify.NewWorker(e.svc, wc)
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// logs reads the whole notification log for filter, oldest first.
func (e *env) logs(filter url.Values) []client.NotificationLog {
	e.t.Helper()
	filter.Set("limit", "1000")
	got, _, err := e.c.ListNotificationLogs(e.ctx(), filter)
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Reverse(got)
	return got
}

// decisions are a log's records as "recipient channel provider triggered/reason", sorted.
func decisions(ls []client.NotificationLog) []string {
	var out []string
	for _, l := range ls {
		s := fmt.Sprintf("%s %s %s attempt %d", l.Recipient, l.Channel, l.Provider, l.Attempt)
		switch {
		case l.Attempt > 0 && l.Success:
			s += " sent"
		case l.Attempt > 0:
			s += " failed " + l.Reason
		case l.NotificationTriggered:
			s += " triggered"
		default:
			s += " no: " + l.Reason
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestNotificationsThroughCustomPush(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat", "dan", "eve", "fay"} {
				e.mustUser(u, u)
			}
			e.mustGroup("g", "ann", "bob", "cat", "dan", "eve", "fay")
			// Before any provider: the send writes no notification event.
			e.send("ann", "bob", "user", "before a provider")
			if n := e.count(`SELECT COUNT(*) FROM notification_events`); n != 0 {
				t.Fatalf("%d notification events without a provider", n)
			}
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL + "/push"), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// bob mutes the group; cat wants no group messages; dan only mentions; eve has a
			// socket open; fay gets everything.
			if _, err := e.c.MuteConversations(e.ctx(), "bob", []client.MutedConversation{{ID: "g", Type: "group",
				Until: time.Now().Add(time.Hour).UnixMilli()}}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "cat", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupMessages: ptr(1)}}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "dan", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupMessages: ptr(3)}}); err != nil {
				t.Fatal(err)
			}
			e.rawExec(`UPDATE users SET status = 'available' WHERE uid = 'eve'`)
			hello := e.send("ann", "g", "group", "hello all")
			mention := e.send("ann", "g", "group", "hi <@uid:dan>")
			direct := e.send("ann", "bob", "user", "just you")
			got := fake.received(t, 4)
			var sent []string
			for _, p := range got {
				if p.Trigger != "push-notification-payload-generated" || p.Data.Channel != "push" || p.AppID != "demo" {
					t.Errorf("post: %+v", p)
				}
				sent = append(sent, p.Data.To.UID+" "+p.Data.Event.Message.ID)
			}
			sort.Strings(sent)
			want := []string{"bob " + direct, "dan " + mention, "fay " + hello, "fay " + mention}
			sort.Strings(want)
			if !slices.Equal(sent, want) {
				t.Fatalf("notified %q, want %q", sent, want)
			}
			for _, p := range got {
				if p.Data.To.UID == "bob" && (p.Data.Title != "ann" || p.Data.Body != "just you") {
					t.Errorf("one-to-one push rendered %q / %q", p.Data.Title, p.Data.Body)
				}
			}
			// The log: a decision per recipient, and the attempt that sent.
			gotLog := decisions(e.logs(url.Values{"messageId": {hello}}))
			wantLog := []string{
				"bob push custom attempt 0 no: MUTE_PREFERENCE",
				"cat push custom attempt 0 no: MESSAGES_PREFERENCE",
				"dan push custom attempt 0 no: notMentioned",
				"eve push custom attempt 0 no: online",
				"fay push custom attempt 0 triggered",
				"fay push custom attempt 1 sent",
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Errorf("log of %s:\n%q\nwant\n%q", hello, gotLog, wantLog)
			}
			// Filters and the cursor.
			if ls := e.logs(url.Values{"success": {"true"}}); len(ls) != 4 {
				t.Errorf("%d successful attempts, want 4", len(ls))
			}
			if ls := e.logs(url.Values{"reason": {"online"}, "receiver": {"g"}}); len(ls) != 2 || ls[0].Recipient != "eve" {
				t.Errorf("online in g: %+v", ls)
			}
			if ls := e.logs(url.Values{"channel": {"sms"}}); len(ls) != 0 {
				t.Errorf("sms records: %+v", ls)
			}
			all := e.logs(url.Values{})
			page, next, err := e.c.ListNotificationLogs(e.ctx(), url.Values{"limit": {"3"}})
			if err != nil || len(page) != 3 || next == nil || next.Affix != "prepend" || page[0].LogID != all[len(all)-1].LogID {
				t.Fatalf("first page: %v %+v %+v", err, page, next)
			}
			older, _, err := e.c.ListNotificationLogs(e.ctx(), url.Values{"limit": {"3"}, "logId": {next.LogID}, "affix": {next.Affix}})
			if err != nil || len(older) != 3 || older[0].LogID != all[len(all)-4].LogID {
				t.Fatalf("older page: %v %+v", err, older)
			}
			newer, _, err := e.c.ListNotificationLogs(e.ctx(), url.Values{"logId": {all[0].LogID}, "affix": {"append"}, "limit": {"2"}})
			if err != nil || len(newer) != 2 || newer[0].LogID != all[1].LogID {
				t.Fatalf("newer page: %v %+v", err, newer)
			}
			// Another app sees none of it.
			other, _ := e.newApp("other", "us")
			if ls, _, err := other.ListNotificationLogs(e.ctx(), url.Values{}); err != nil || len(ls) != 0 {
				t.Errorf("another app's log: %v %+v", err, ls)
			}
			if n := e.count(`SELECT COUNT(*) FROM notification_events`) + e.count(`SELECT COUNT(*) FROM notification_sends`); n != 0 {
				t.Errorf("%d events and sends left", n)
			}
		})
	}
}

func TestNotificationRetriesThenSends(t *testing.T) {
	backends := []string{"sqlite", "postgres"}
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			fake.fail = func(n int) bool { return n <= 2 } // an outage: two 503s
			e.mustUser("ann", "ann")
			e.mustUser("bob", "bob")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			id := e.send("ann", "bob", "user", "are you there")
			if got := fake.received(t, 1); len(got) != 1 || got[0].Data.To.UID != "bob" {
				t.Fatalf("got %+v", got)
			}
			gotLog := decisions(e.logs(url.Values{"messageId": {id}}))
			wantLog := []string{
				"bob push custom attempt 0 triggered",
				"bob push custom attempt 1 failed retry",
				"bob push custom attempt 2 failed retry",
				"bob push custom attempt 3 sent",
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Errorf("log:\n%q\nwant\n%q", gotLog, wantLog)
			}
			for _, l := range e.logs(url.Values{"messageId": {id}, "success": {"false"}, "notificationTriggered": {"true"}}) {
				if l.Attempt > 0 && l.Status != 503 {
					t.Errorf("a failed attempt's status: %+v", l)
				}
			}
		})
	}
}

// rawExec runs a statement on the test's own connection, which has no busy timeout:
// SQLite's writer (the workers' leases) may hold the database a moment.
func (e *env) rawExec(query string, args ...any) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := e.raw.Exec(query, args...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReactionNotifications(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat", "dan"} {
				e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
			}
			e.mustGroup("g", "ann", "bob", "cat", "dan")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// cat wants reactions on every message; dan keeps the default (its own messages).
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "cat", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupReactions: ptr(3)}}); err != nil {
				t.Fatal(err)
			}
			id := e.send("bob", "g", "group", "lunch?")
			fake.received(t, 3) // the message: ann, cat, dan
			react := func(method string) {
				e.ok(request{method: method, path: "/v3/messages/" + id + "/reactions/ok", headers: obo("ann")})
			}
			react("POST")
			react("POST")   // again: a no-op, no event
			react("DELETE") // a removal notifies no one
			got := fake.received(t, 5)[3:]
			var to []string
			for _, p := range got {
				to = append(to, p.Data.To.UID)
				if p.Data.Title != "Ann @ Group g" || p.Data.Body != "Reacted ok to: lunch?" {
					t.Errorf("reaction push %q / %q", p.Data.Title, p.Data.Body)
				}
			}
			sort.Strings(to)
			if !slices.Equal(to, []string{"bob", "cat"}) {
				t.Fatalf("reaction notified %q, want bob and cat", to)
			}
			gotLog := decisions(e.logs(url.Values{"trigger": {chat.TriggerReactionAdded}}))
			wantLog := []string{
				"bob push custom attempt 0 triggered",
				"bob push custom attempt 1 sent",
				"cat push custom attempt 0 triggered",
				"cat push custom attempt 1 sent",
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Errorf("reaction log:\n%q\nwant\n%q", gotLog, wantLog)
			}
			ls := e.logs(url.Values{"reactionSender": {"ann"}, "reactionReceiver": {"bob"}})
			if len(ls) != 2 || ls[0].ReactionID == 0 || ls[1].ReactionID != ls[0].ReactionID {
				t.Fatalf("ann's reactions notified to bob: %+v", ls)
			}
			if ls := e.logs(url.Values{"reactionId": {strconv.FormatInt(ls[0].ReactionID, 10)}}); len(ls) != 4 {
				t.Errorf("the reaction's records: %+v", ls)
			}
			if ls := e.logs(url.Values{"reactionSender": {"bob"}}); len(ls) != 0 {
				t.Errorf("bob reacted to nothing: %+v", ls)
			}
		})
	}
}

func TestMemberChangeNotifications(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat", "dan"} {
				e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
			}
			e.mustGroup("g", "ann", "bob", "cat")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// cat wants to hear of joins and departures; bob keeps the default (nothing).
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "cat", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupMemberJoined: ptr(2), GroupMemberLeft: ptr(2)}}); err != nil {
				t.Fatal(err)
			}
			e.ok(request{method: "POST", path: "/v3/groups/g/members", headers: obo("dan"), body: `{}`})
			e.ok(request{method: "DELETE", path: "/v3/groups/g/members", headers: obo("dan")})
			got := fake.received(t, 2)
			var bodies []string
			for _, p := range got {
				if p.Data.To.UID != "cat" || p.Data.Title != "Group g" {
					t.Errorf("member change pushed %+v", p)
				}
				bodies = append(bodies, p.Data.Body)
			}
			sort.Strings(bodies)
			if !slices.Equal(bodies, []string{"Dan joined", "Dan left"}) {
				t.Fatalf("pushes %q", bodies)
			}
			gotLog := decisions(e.logs(url.Values{"receiver": {"g"}}))
			wantLog := []string{
				"cat push custom attempt 0 triggered", "cat push custom attempt 0 triggered",
				"cat push custom attempt 1 sent", "cat push custom attempt 1 sent",
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Errorf("log:\n%q\nwant\n%q", gotLog, wantLog)
			}
			if ls := e.logs(url.Values{"trigger": {chat.TriggerMemberJoined}, "sender": {"dan"}}); len(ls) != 2 {
				t.Errorf("the join's records: %+v", ls)
			}
			if ls := e.logs(url.Values{"member": {"dan"}}); len(ls) != 4 || ls[0].Member != "dan" {
				t.Errorf("the records about dan: %+v", ls)
			}
			if ls := e.logs(url.Values{"member": {"bob"}}); len(ls) != 0 {
				t.Errorf("records about bob: %+v", ls)
			}
		})
	}
}

// TestNotificationMisconfiguredProvider: a provider that refuses natter's credentials is not
// retried: the attempt is logged with its status, and the send is over.
func TestNotificationMisconfiguredProvider(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t) // counts the requests the refusing provider gets
			refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fake.mu.Lock()
				fake.n++
				fake.mu.Unlock()
				w.WriteHeader(http.StatusUnauthorized)
			}))
			t.Cleanup(refused.Close)
			e.mustUser("ann", "ann")
			e.mustUser("bob", "bob")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(refused.URL), UseBasicAuth: ptr(true), BasicAuthUsername: ptr("natter"), BasicAuthPassword: ptr("wrong")}); err != nil {
				t.Fatal(err)
			}
			id := e.send("ann", "bob", "user", "anyone?")
			deadline := time.Now().Add(20 * time.Second)
			for len(e.logs(url.Values{"messageId": {id}})) < 2 {
				if time.Now().After(deadline) {
					t.Fatal("no attempt logged")
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond) // a retry would come within the test's back-off
			gotLog := decisions(e.logs(url.Values{"messageId": {id}}))
			want := []string{"bob push custom attempt 0 triggered", "bob push custom attempt 1 failed misconfigured"}
			if !slices.Equal(gotLog, want) {
				t.Fatalf("log:\n%q\nwant\n%q", gotLog, want)
			}
			if ls := e.logs(url.Values{"messageId": {id}, "success": {"false"}}); len(ls) != 2 || ls[0].Status != 401 && ls[1].Status != 401 {
				t.Errorf("the attempt's status: %+v", ls)
			}
			if n := e.count(`SELECT COUNT(*) FROM notification_sends`); n != 0 {
				t.Errorf("%d sends left", n)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if fake.n != 1 {
				t.Errorf("%d requests, want 1", fake.n)
			}
		})
	}
}

// TestPushWhenOnline: with --notify-push-online a user with an open socket is pushed too.
func TestPushWhenOnline(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnvConfig(t, b, chat.Config{PushWhenOnline: true}, notify.ClientConfig{AllowPrivate: true})
			fake := newPushFake(t)
			e.mustUser("ann", "ann")
			e.mustUser("eve", "eve")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			e.rawExec(`UPDATE users SET status = 'available' WHERE uid = 'eve'`)
			e.send("ann", "eve", "user", "you are online")
			if got := fake.received(t, 1); len(got) != 1 || got[0].Data.To.UID != "eve" {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

// TestNotificationWake: a message, a reaction and a member change committed on this node
// wake its notification workers, so each push leaves at once; the workers here never poll.
func TestNotificationWake(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, b, chat.Config{WebhookAllowPrivate: true, Now: time.Now})
			runNotifyWorker(t, e, notify.WorkerConfig{Poll: time.Hour, Timeout: 2 * time.Second, Client: notify.ClientConfig{AllowPrivate: true}})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
			}
			e.mustGroup("g", "ann", "bob")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "bob", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupMemberJoined: ptr(2)}}); err != nil {
				t.Fatal(err)
			}
			id := e.send("ann", "bob", "user", "wake up")
			e.ok(request{method: "POST", path: "/v3/messages/" + id + "/reactions/ok", headers: obo("bob")})
			e.ok(request{method: "POST", path: "/v3/groups/g/members", headers: obo("cat"), body: `{}`})
			got := fake.received(t, 3)
			var what []string
			for _, p := range got {
				what = append(what, p.Data.To.UID+": "+p.Data.Body)
			}
			sort.Strings(what)
			if want := []string{"ann: Reacted ok to: wake up", "bob: Cat joined", "bob: wake up"}; !slices.Equal(what, want) {
				t.Errorf("pushed %q, want %q", what, want)
			}
		})
	}
}

// TestQuotedAndInteractiveNotifications: a quoted reply is decided by the recipients'
// quoted-replies preference (not the messages one), and an interactive message is pushed
// with its type's template, default or privacy as the recipient's choice says.
func TestQuotedAndInteractiveNotifications(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, strings.ToUpper(u[:1])+u[1:])
			}
			e.mustGroup("g", "ann", "bob", "cat")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// cat hears of messages but not of quoted replies, and chose the privacy templates.
			if _, err := e.c.UpdateNotificationPreferences(e.ctx(), "cat", client.NotificationPreferencesUpdate{
				GroupPreferences: &client.GroupPreferencesUpdate{GroupQuotedReplies: ptr(1)}, UsePrivacyTemplate: ptr(true)}); err != nil {
				t.Fatal(err)
			}
			id := e.send("bob", "g", "group", "lunch?")
			fake.received(t, 2) // ann, cat
			q := e.quoted("ann", "g", "group", "yes", `"`+id+`"`)
			got := fake.received(t, 3)
			if p := got[2]; p.Data.To.UID != "bob" || p.Data.Body != "yes" || p.Data.Event.Message.ID != q["id"] {
				t.Errorf("quoted reply push: %+v", p.Data)
			}
			form := e.interactiveForm("bob", "g", "group", `{"type":"none","elementIds":[]}`, false)
			got = fake.received(t, 5)[3:]
			bodies := map[string]string{}
			for _, p := range got {
				if p.Data.Event.Message.ID != form {
					t.Errorf("push of another message: %+v", p.Data)
				}
				bodies[p.Data.To.UID] = p.Data.Title + " / " + p.Data.Body
			}
			if want := map[string]string{"ann": "Bob @ Group g / 📝 Has sent a form", "cat": "Bob @ Group g / New form"}; !maps.Equal(bodies, want) {
				t.Errorf("interactive pushes %q, want %q", bodies, want)
			}
			gotLog := decisions(e.logs(url.Values{"messageId": {q["id"].(string)}}))
			wantLog := []string{
				"bob push custom attempt 0 triggered",
				"bob push custom attempt 1 sent",
				"cat push custom attempt 0 no: MESSAGES_PREFERENCE",
			}
			if !slices.Equal(gotLog, wantLog) {
				t.Errorf("quoted reply log:\n%q\nwant\n%q", gotLog, wantLog)
			}
		})
	}
}

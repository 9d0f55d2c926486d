package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkAddReaction measures the add-reaction operation end to end in one process: HTTP, auth,
// the write transaction and the read-back, on a real SQLite file. The load harness under
// bench/ measures the same against a bare handler; this one is for pprof:
//
//	go test ./httpapi -run '^$' -bench AddReaction -cpuprofile cpu.prof
func BenchmarkAddReaction(b *testing.B) { benchAddReaction(b, false) }

// BenchmarkAddReactionByToken is BenchmarkAddReaction as a client app makes it: each user's
// auth token instead of the API key and onBehalfOf.
func BenchmarkAddReactionByToken(b *testing.B) { benchAddReaction(b, true) }

// BenchmarkAddReactionWebhook is BenchmarkAddReaction with a webhook subscribed to
// message_reaction_added: each add also writes its outbox event and delivery.
func BenchmarkAddReactionWebhook(b *testing.B) { benchAddReactionWith(b, benchSQLite(b), false, true) }

// BenchmarkOutboxPostgres is the outbox's cost on PostgreSQL: add-reaction and send-message
// without and with a subscribed webhook, on the test PostgreSQL server (internal/pgtest):
//
//	go test ./httpapi -run '^$' -bench OutboxPostgres -count 6
func BenchmarkOutboxPostgres(b *testing.B) {
	for _, webhook := range []bool{false, true} {
		name := map[bool]string{false: "", true: "-webhook"}[webhook]
		b.Run("add-reaction"+name, func(b *testing.B) { benchAddReactionWith(b, pgtest.URL(b), false, webhook) })
		b.Run("send-message"+name, func(b *testing.B) { benchSendOn(b, pgtest.URL(b), webhook) })
	}
}

func benchSQLite(b *testing.B) string { return "sqlite:" + filepath.Join(b.TempDir(), "b.db") }

func benchAddReaction(b *testing.B, byToken bool) {
	benchAddReactionWith(b, benchSQLite(b), byToken, false)
}

func benchAddReactionWith(b *testing.B, dbURL string, byToken, webhook bool) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{MaxReactions: 0})
	defer svc.Close(ctx) // before db.Close: saves the usage it counted
	_, keys, err := svc.CreateApp(ctx, chat.AppCreate{ID: "demo", Region: "us"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	defer srv.Close()
	p := chat.Principal{App: chat.App{ID: "demo", Region: "us"}}
	if webhook {
		benchWebhook(b, svc, p, chat.TriggerReactionAdded)
	}
	const users, messages = 1000, 1000
	for i := 0; i < users; i++ {
		if _, err := svc.CreateUser(ctx, p, chat.UserCreate{UID: fmt.Sprint("u", i), Name: "User"}); err != nil {
			b.Fatal(err)
		}
	}
	tokens := make([]string, users)
	for i := range tokens {
		if byToken {
			t, err := svc.CreateAuthToken(ctx, p, fmt.Sprint("u", i), chat.AuthTokenCreate{})
			if err != nil {
				b.Fatal(err)
			}
			tokens[i] = t.Value
		}
	}
	var ids []int64
	for i := 0; i < messages; i++ {
		m, err := svc.SendMessage(ctx, p.ActingAs(fmt.Sprint("u", i%users)), chat.MessageSend{Receiver: fmt.Sprint("u", (i+1)%users),
			ReceiverType: "user", Category: "message", Type: "text", Data: []byte(`{"text":"hello"}`)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	hc := &http.Client{Transport: tr}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			mi := int(i) % messages
			u := mi % users
			if i%2 == 0 {
				u = (mi + 1) % users
			}
			// Like bench/'s harness: up to 20 distinct reactions per message, most adds new.
			reaction := reactionSet[int(i/int64(messages))%len(reactionSet)]
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s/v3/messages/%d/reactions/%s", srv.URL, ids[mi], url.PathEscape(reaction)), nil)
			if byToken {
				req.Header.Set("authToken", tokens[u])
				req.Header.Set("appId", "demo")
			} else {
				req.Header.Set("apikey", keys[0].Value)
				req.Header.Set("onBehalfOf", fmt.Sprint("u", u))
			}
			res, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
}

// BenchmarkSendMessage measures sending a one-to-one text message end to end in one process
// (HTTP, auth, the write and the answer) on a real SQLite file, 16 senders per CPU at once as
// BenchmarkAddReaction does; BenchmarkSendMessageWebhook the same with a webhook subscribed to
// message_sent, so that each send also writes its outbox event (no worker delivers during
// the run: the figure is the outbox's cost on the send path):
//
//	go test ./httpapi -run '^$' -bench SendMessage -count 6
func BenchmarkSendMessage(b *testing.B) { benchSend(b, false) }

func BenchmarkSendMessageWebhook(b *testing.B) { benchSend(b, true) }

func benchSend(b *testing.B, webhook bool) { benchSendOn(b, benchSQLite(b), webhook) }

// benchServer is natter on dbURL with the app demo, served by httptest: the service, the
// server and the app's fullAccess key, all closed when the benchmark ends.
func benchServer(b *testing.B, dbURL string) (*chat.Service, *httptest.Server, string) {
	b.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := chat.New(db, chat.Config{})
	b.Cleanup(func() { svc.Close(ctx) }) // before db.Close: saves the usage it counted
	_, keys, err := svc.CreateApp(ctx, chat.AppCreate{ID: "demo", Region: "us"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	b.Cleanup(srv.Close)
	return svc, srv, keys[0].Value
}

func benchSendOn(b *testing.B, dbURL string, webhook bool) {
	ctx := context.Background()
	svc, srv, key := benchServer(b, dbURL)
	p := chat.Principal{App: chat.App{ID: "demo", Region: "us"}}
	if webhook {
		benchWebhook(b, svc, p, chat.TriggerMessageSent)
	}
	const users = 1000
	for i := 0; i < users; i++ {
		if _, err := svc.CreateUser(ctx, p, chat.UserCreate{UID: fmt.Sprint("u", i), Name: "User"}); err != nil {
			b.Fatal(err)
		}
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	hc := &http.Client{Transport: tr}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			u := int(n.Add(1)) % users
			body := fmt.Sprintf(`{"receiver":"u%d","receiverType":"user","category":"message","type":"text","data":{"text":"hello"}}`, (u+1)%users)
			req, _ := http.NewRequest("POST", srv.URL+"/v3/messages", strings.NewReader(body))
			req.Header.Set("apikey", key)
			req.Header.Set("onBehalfOf", fmt.Sprint("u", u))
			req.Header.Set("Content-Type", "application/json")
			res, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
}

var reactionSet = []string{"👍", "❤️", "😂", "😮", "😢", "🙏", "🔥", "🎉", "👀", "💯", ":reaction", "+1", "ok", "👍🏽", "👩‍💻", "🇫🇷", "✅", "❌", "🤔", "🚀"}

// BenchmarkMiddleware runs a request through the whole middleware chain in process — request
// id and log, CORS, body cap, routing, authentication (the key cache warm), rate limit and
// metrics — to a route that answers without touching the database (a 501), with each of them
// off and on, so the cost of the chain shows apart from the database's:
//
//	go test ./httpapi -run '^$' -bench Middleware -benchmem
func BenchmarkMiddleware(b *testing.B) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "b.db"), sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		name string
		cfg  chat.Config
		opt  httpapi.Options
	}{
		{"bare", chat.Config{}, httpapi.Options{}},
		{"ratelimit", chat.Config{RateLimits: chat.RateLimits{Core: 1 << 40, Standard: 1 << 40}}, httpapi.Options{}},
		{"ratelimit+cors", chat.Config{RateLimits: chat.RateLimits{Core: 1 << 40, Standard: 1 << 40}}, httpapi.Options{CORSOrigins: []string{"https://app.example.com"}}},
		{"ratelimit+cors+metrics", chat.Config{RateLimits: chat.RateLimits{Core: 1 << 40, Standard: 1 << 40}}, httpapi.Options{CORSOrigins: []string{"https://app.example.com"}, Metrics: benchMetrics(b)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			svc := chat.New(db, tc.cfg)
			defer svc.Close(ctx)
			key := benchKey(b, svc, tc.name)
			h := httpapi.New(svc, tc.opt)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", "/v3/moderation/messages", nil) // refused by decision: always a 501
					req.Header.Set("apikey", key)
					req.Header.Set("Origin", "https://app.example.com")
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusNotImplemented {
						b.Errorf("status %d", rec.Code)
						return
					}
				}
			})
		})
	}
}

// benchKey creates an app (named after the sub-benchmark) and returns its fullAccess key.
func benchKey(b *testing.B, svc *chat.Service, name string) string {
	b.Helper()
	id := "b-" + strings.ReplaceAll(name, "+", "-")
	_, keys, err := svc.CreateApp(context.Background(), chat.AppCreate{ID: id, Region: "us"})
	if errors.Is(err, chat.ErrAlreadyExists) { // b.Run runs the body more than once
		_, keys, err = svc.CreateApp(context.Background(), chat.AppCreate{ID: fmt.Sprintf("%s-%d", id, b.N), Region: "us"})
	}
	if err != nil {
		b.Fatal(err)
	}
	return keys[0].Value
}

func benchMetrics(b *testing.B) *httpapi.Metrics {
	m, err := httpapi.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	return m
}

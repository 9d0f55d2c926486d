package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/notify"
	"github.com/natter-chat/natter/sqlstore"
)

// notifyBench is an app with a group of members users ("u0" owns it), on a real database,
// served over HTTP, with a custom push provider posting to a local fake when push is set.
type notifyBench struct {
	svc       *chat.Service
	srv       *httptest.Server
	key       string
	delivered atomic.Int64
}

func newNotifyBench(b *testing.B, dbURL string, members int, push bool) *notifyBench {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := chat.New(db, chat.Config{WebhookAllowPrivate: true})
	b.Cleanup(func() { svc.Close(ctx) })
	_, keys, err := svc.CreateApp(ctx, chat.AppCreate{ID: "demo", Region: "us"})
	if err != nil {
		b.Fatal(err)
	}
	nb := &notifyBench{svc: svc, key: keys[0].Value}
	nb.srv = httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	b.Cleanup(nb.srv.Close)
	p := chat.Principal{App: chat.App{ID: "demo", Region: "us"}}
	for i := range members {
		if _, err := svc.CreateUser(ctx, p, chat.UserCreate{UID: fmt.Sprint("u", i), Name: "User"}); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := svc.CreateGroup(ctx, p, chat.GroupCreate{GUID: "g", Name: "G", Type: "public", Owner: "u0"}); err != nil {
		b.Fatal(err)
	}
	for i := 1; i < members; i += chat.MaxMembersPerCall {
		var uids []string
		for j := i; j < min(i+chat.MaxMembersPerCall, members); j++ {
			uids = append(uids, fmt.Sprint("u", j))
		}
		if _, err := svc.AddMembers(ctx, p, "g", chat.MemberLists{Participants: uids}); err != nil {
			b.Fatal(err)
		}
	}
	if push {
		fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			nb.delivered.Add(1)
		}))
		b.Cleanup(fake.Close)
		url, on, basic := fake.URL, true, false
		if _, err := chat.Custom(chat.ChannelPush).Create(ctx, svc, p, chat.CustomProviderInput{Enabled: &on, WebhookURL: &url, UseBasicAuth: &basic}); err != nil {
			b.Fatal(err)
		}
	}
	return nb
}

func (nb *notifyBench) send(b *testing.B, hc *http.Client, text string) {
	body := `{"receiver":"g","receiverType":"group","category":"message","type":"text","data":{"text":"` + text + `"}}`
	req, _ := http.NewRequest("POST", nb.srv.URL+"/v3/messages", strings.NewReader(body))
	req.Header.Set("apikey", nb.key)
	req.Header.Set("onBehalfOf", "u0")
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Fatalf("status %d", res.StatusCode)
	}
}

// BenchmarkNotifySendPath is send-message to a group of 1,000 members, one sender after
// another, without and with a push provider: with one, the send also writes its
// notification event, and nothing else (no worker runs; the decisions are the workers'):
//
//	go test ./httpapi -run '^$' -bench NotifySendPath -count 6
func BenchmarkNotifySendPath(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, push := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/provider=%v", backend, push), func(b *testing.B) {
				dbURL := benchSQLite(b)
				if backend == "postgres" {
					dbURL = pgtest.URL(b)
				}
				nb := newNotifyBench(b, dbURL, 1000, push)
				hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					nb.send(b, hc, fmt.Sprint("hello ", i))
				}
			})
		}
	}
}

// BenchmarkNotifyDelivery sends b.N messages to a group of 200 members with a custom push
// provider, and one node's workers decide and deliver them to a local fake: the figures are
// decisions and deliveries per second, from the first send to the last delivery.
//
//	go test ./httpapi -run '^$' -bench NotifyDelivery -benchtime 20x
func BenchmarkNotifyDelivery(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			dbURL := benchSQLite(b)
			if backend == "postgres" {
				dbURL = pgtest.URL(b)
			}
			const members = 200
			nb := newNotifyBench(b, dbURL, members, true)
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			ctx, cancel := context.WithCancel(context.Background())
			w := notify.NewWorker(nb.svc, notify.WorkerConfig{Poll: 5 * time.Millisecond,
				Client: notify.ClientConfig{AllowPrivate: true}})
			done := make(chan struct{})
			go func() { w.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			driver, dsn := "sqlite", strings.TrimPrefix(dbURL, "sqlite:")
			if backend == "postgres" {
				driver, dsn = "pgx", dbURL
			}
			raw, err := sql.Open(driver, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				nb.send(b, hc, fmt.Sprint("hello ", i))
			}
			want := int64(b.N * (members - 1))
			deadline := time.Now().Add(5 * time.Minute)
			var decided float64 // seconds until every event is expanded: a decision per member
			for nb.delivered.Load() < want {
				if decided == 0 {
					var left int
					if err := raw.QueryRow(`SELECT COUNT(*) FROM notification_events`).Scan(&left); err == nil && left == 0 {
						decided = time.Since(start).Seconds()
					}
				}
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d delivered", nb.delivered.Load(), want)
				}
				time.Sleep(time.Millisecond)
			}
			took := time.Since(start).Seconds()
			b.StopTimer()
			if decided == 0 {
				decided = took
			}
			b.ReportMetric(float64(want)/decided, "decisions/s")
			b.ReportMetric(float64(nb.delivered.Load())/took, "deliveries/s")
		})
	}
}

package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkSendMessageNoWebhook measures POST /messages end to end on a SQLite file, one-to-one text
// messages among 1000 users; BenchmarkSendMessageWebhook the same with a webhook subscribed
// to message_sent, so that each send also writes its outbox event (no worker delivers
// during the run: the figure is the outbox's cost on the send path):
//
//	go test ./httpapi -run '^$' -bench 'SendMessage(No)?Webhook|AddReaction$|AddReactionWebhook' -count 6
func BenchmarkSendMessageNoWebhook(b *testing.B) { benchSend(b, false) }

func BenchmarkSendMessageWebhook(b *testing.B) { benchSend(b, true) }

func benchSend(b *testing.B, webhook bool) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "b.db"), sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{})
	_, keys, err := svc.CreateApp(ctx, chat.AppCreate{ID: "demo", Region: "us"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	defer srv.Close()
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
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			body := fmt.Sprintf(`{"receiver":"u%d","receiverType":"user","category":"message","type":"text","data":{"text":"hello %d"}}`, (i+1)%users, i)
			req, _ := http.NewRequest("POST", srv.URL+"/v3/messages", strings.NewReader(body))
			req.Header.Set("apikey", keys[0].Value)
			req.Header.Set("onBehalfOf", fmt.Sprint("u", i%users))
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

// benchWebhook subscribes a webhook of the app to trigger.
func benchWebhook(b *testing.B, svc *chat.Service, p chat.Principal, trigger string) {
	if _, err := svc.CreateWebhook(context.Background(), p, chat.WebhookCreate{URL: "https://hooks.example.com/bench", Triggers: []string{trigger}}); err != nil {
		b.Fatal(err)
	}
}

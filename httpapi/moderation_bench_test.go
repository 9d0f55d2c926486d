package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// BenchmarkSendModerated is a one-to-one send end to end on SQLite, with no moderation
// rules and with an enabled rule whose keyword list holds 10,000 keywords (plus a pattern
// and the contact-detail checks); the texts pass, so every send is evaluated and stored:
//
//	go test ./httpapi -run '^$' -bench SendModerated -benchtime 3s
func BenchmarkSendModerated(b *testing.B) {
	b.Run("none", func(b *testing.B) { benchSendModerated(b, 0) })
	b.Run("keywords-10000", func(b *testing.B) { benchSendModerated(b, 10_000) })
}

func benchSendModerated(b *testing.B, keywords int) {
	ctx := context.Background()
	svc, srv, key := benchServer(b, benchSQLite(b))
	p := chat.Principal{App: chat.App{ID: "demo", Region: "us"}}
	const users = 1000
	for i := 0; i < users; i++ {
		if _, err := svc.CreateUser(ctx, p, chat.UserCreate{UID: fmt.Sprint("u", i), Name: "User"}); err != nil {
			b.Fatal(err)
		}
	}
	if keywords > 0 {
		terms := make([]string, keywords)
		for i := range terms {
			terms[i] = fmt.Sprintf("badword%d", i)
		}
		if _, err := svc.Moderation().CreateKeywordList(ctx, p, chat.KeywordListInput{ID: "big", Name: "Big", Terms: terms}); err != nil {
			b.Fatal(err)
		}
		if _, err := svc.Moderation().CreateRule(ctx, p, chat.RuleInput{ID: "r", Name: "R", Conditions: []chat.Condition{
			{Category: "word", IsKeywordsReferencePresent: true, Value: []string{"big"}},
			{Category: "pattern", Value: []string{`(?i)buy\s+now`}},
			{Category: "contact", Value: []string{"email", "phone", "link"}},
		}, Action: []string{chat.ActionBlockMessage}}); err != nil {
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
			body := fmt.Sprintf(`{"receiver":"u%d","receiverType":"user","data":{"text":"hello there, see you at the usual place around five, ok?"}}`, (u+1)%users)
			req, _ := http.NewRequest("POST", srv.URL+"/v3/messages", strings.NewReader(body))
			req.Header.Set("apikey", key)
			req.Header.Set("onBehalfOf", fmt.Sprint("u", u))
			req.Header.Set("Content-Type", "application/json")
			res, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			out, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || strings.Contains(string(out), `"moderation"`) {
				b.Errorf("status %d: %.200s", res.StatusCode, out)
				return
			}
		}
	})
}

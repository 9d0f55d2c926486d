package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/dataimport"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// BenchmarkImportMessages measures one data import batch of 1,000 one-to-one and group
// messages (dataimport.Run, what natter import --database and the endpoint both run),
// without HTTP, on SQLite and PostgreSQL; ns/op is per batch, and items/s is reported:
//
//	go test ./httpapi -run '^$' -bench ImportMessages -cpuprofile cpu.prof
func BenchmarkImportMessages(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchImport(b, benchSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchImport(b, pgtest.URL(b)) })
}

func benchImport(b *testing.B, dbURL string) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL, sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
	defer svc.Close(ctx)
	if _, _, err := svc.CreateApp(ctx, chat.AppCreate{ID: "bench", Region: "us"}); err != nil {
		b.Fatal(err)
	}
	p, err := svc.OperatorPrincipal(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	const users = 1000
	var batch []dataimport.Item
	for i := range users {
		batch = append(batch, dataimport.Item{Key: fmt.Sprintf("u%d", i), Raw: json.RawMessage(fmt.Sprintf(`{"name":"User %d"}`, i))})
	}
	batch = append(batch[:0:0], batch...)
	if _, err := dataimport.Run(ctx, svc, p, "users", batch); err != nil {
		b.Fatal(err)
	}
	groups := []dataimport.Item{{Key: "g", Raw: json.RawMessage(`{"name":"G","type":"public"}`)}}
	if _, err := dataimport.Run(ctx, svc, p, "groups", groups); err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ResetTimer()
	for b.Loop() {
		msgs := make([]dataimport.Item, chat.MaxImportItems)
		for j := range msgs {
			n++
			to := fmt.Sprintf(`"receiverType":"user","receiver":"u%d"`, (n+1+n%7)%users)
			if n%3 == 0 {
				to = `"receiverType":"group","receiver":"g"`
			}
			msgs[j] = dataimport.Item{Key: fmt.Sprintf("m%d", n), Raw: json.RawMessage(fmt.Sprintf(
				`{"sender":"u%d",%s,"data":{"text":"message %d"},"sentAt":%d,"readAt":%d}`, n%users, to, n, 1_600_000_000+n, 1_600_000_000+n))}
		}
		res, err := dataimport.Run(ctx, svc, p, "messages", msgs)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				b.Fatal(r.Key, r.Err)
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}

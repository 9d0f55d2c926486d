package sqlstore_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestProviderDefaults: the database never holds two defaults of a kind, and concurrent
// first creates (the rule is the service's, in its transaction) make exactly one default.
func TestProviderDefaults(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := open(t, backend)
			if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
				t.Fatal(err)
			}
			insert := func(id string, def bool) error {
				return db.Transact(ctx, func(tx chat.Tx) error {
					return tx.InsertProvider(chat.Provider{AppID: "a", Kind: chat.ProviderAPNs, ID: id, Default: def, Enabled: true, Settings: []byte(`{}`)})
				})
			}
			if err := insert("one", true); err != nil {
				t.Fatal(err)
			}
			if err := insert("two", true); !errors.Is(err, chat.ErrAlreadyExists) {
				t.Fatalf("a second default: %v", err)
			}
			if err := insert("two", false); err != nil {
				t.Fatal(err)
			}
			if err := db.Transact(ctx, func(tx chat.Tx) error { return tx.SetDefaultProvider("a", chat.ProviderAPNs, "two") }); err != nil {
				t.Fatal(err)
			}
			if p, err := db.DefaultProvider(ctx, "a", chat.ProviderAPNs); err != nil || p.ID != "two" {
				t.Fatalf("default: %+v %v", p, err)
			}
			if err := db.Transact(ctx, func(tx chat.Tx) error { return tx.SetDefaultProvider("a", chat.ProviderAPNs, "ghost") }); !errors.Is(err, chat.ErrNotFound) {
				t.Fatalf("an unknown default: %v", err)
			}

			svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
			t.Cleanup(func() { svc.Close(context.Background()) })
			app, err := db.App(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			rk, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				t.Fatal(err)
			}
			der, _ := x509.MarshalPKCS8PrivateKey(rk)
			sa := chat.ServiceAccount{ProjectID: "natter-test-1", ClientEmail: "x@natter-test-1.iam.gserviceaccount.com",
				PrivateKey: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := chat.FCM.Create(ctx, svc, chat.Principal{App: app}, chat.FCMProviderInput{ProviderID: fmt.Sprint("p", i), ServiceAccount: &sa}); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			ps, err := db.Providers(ctx, "a", chat.ProviderFCM)
			if err != nil || len(ps) != 8 {
				t.Fatalf("%d providers, %v", len(ps), err)
			}
			n := 0
			for _, p := range ps {
				if p.Default {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d defaults among concurrent first creates", n)
			}
		})
	}
}

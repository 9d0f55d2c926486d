package main

import (
	"database/sql"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The usage figures a node holds (GET /stats) are saved when it stops on SIGTERM, with no
// save by timer or stats request before; a kill -9 loses what it counted since its last save.
func TestStopSavesUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		signal syscall.Signal
		exit   int
		want   int
	}{
		{"SIGTERM saves everything", syscall.SIGTERM, 0, 3},
		{"kill -9 loses what was not saved yet", syscall.SIGKILL, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "natter.db")
			p, addr := startServe(t, db, nil, "--stats-flush-interval", "1h")
			b := parseBanner(t, p)
			a := newAPI(t, addr, b.AppID, b.Region, b.FullKey)
			a.createUser("alice")
			a.createUser("bob")
			for range 3 {
				a.want(a.do("POST", "/v3/messages", map[string]any{"receiver": "bob", "receiverType": "user", "data": map[string]any{"text": "hi"}},
					"onBehalfOf", "alice"), 200, "", "send")
			}
			if code := p.stopWith(t, tc.signal, 10*time.Second); code != tc.exit {
				t.Fatalf("exit status %d, want %d\nstderr:\n%s", code, tc.exit, p.stderr)
			}
			raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			var sent int
			if err := raw.QueryRow(`SELECT COALESCE(SUM(messages_sent), 0) FROM usage_buckets`).Scan(&sent); err != nil {
				t.Fatal(err)
			}
			if sent != tc.want {
				t.Errorf("messages sent saved: %d, want %d", sent, tc.want)
			}
		})
	}
}

package sqlstore_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// TestOutboxWakes: on PostgreSQL a node's notice wakes the other node's workers and not its
// own; on SQLite (one node) there is nothing to notify.
func TestOutboxWakes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lite, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if notify := lite.OutboxWakes(ctx, "a", func() {}, nil); notify != nil {
		t.Error("SQLite: a notifier, want none")
	}

	url := pgtest.URL(t)
	var dbs [2]*sqlstore.DB
	for i := range dbs {
		if dbs[i], err = sqlstore.Open(ctx, url, sqlstore.Options{}); err != nil {
			t.Fatal(err)
		}
		defer dbs[i].Close()
	}
	var woken [2]atomic.Int64
	notifyA := dbs[0].OutboxWakes(ctx, "a", func() { woken[0].Add(1) }, nil)
	dbs[1].OutboxWakes(ctx, "b", func() { woken[1].Add(1) }, nil)
	// The listeners connect in the background: notify until b is woken.
	for deadline := time.Now().Add(20 * time.Second); woken[1].Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("node b never woken by a's notices")
		}
		notifyA()
	}
	time.Sleep(200 * time.Millisecond)
	if n := woken[0].Load(); n != 0 {
		t.Errorf("node a woken %d times by its own notices, want 0", n)
	}
}

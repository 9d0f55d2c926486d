package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/internal/racedetect"
)

// TestCancelledWriteRunsToItsEnd: a request that gives up while its write transaction runs
// (a client that hangs up) neither aborts the transaction nor, on SQLite, the group commit
// it shares with other requests: its write and theirs all land. Before every write went
// through wtx, its statement ran with the request's context, and SQLite's interrupt rolled
// back the whole group commit mid-flight.
func TestCancelledWriteRunsToItsEnd(t *testing.T) {
	// Counts to a million before inserting: long enough to be cancelled mid-way (about a
	// second; under -race, which runs SQLite some thirty times slower, a tenth of it takes
	// longer still).
	count := 1_000_000
	if racedetect.Enabled {
		count /= 10
	}
	slow := map[string]string{
		"sqlite": fmt.Sprintf(`INSERT INTO users (app_id, uid, name, created_at) SELECT 'a', 'slow', 'n', x FROM
			(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) SELECT max(x) AS x FROM c)`, count),
		"postgres": `INSERT INTO users (app_id, uid, name, created_at) SELECT 'a', 'slow', 'n', 0 FROM pg_sleep(0.3)`,
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			db := openWithApp(t, backend)
			// On SQLite, hold the writer so that the three writes queue into one batch.
			release := func() {}
			queued := func(int) {}
			if e, ok := db.eng.(*sqliteEngine); ok {
				hold, holding := make(chan struct{}), make(chan struct{})
				go e.batch.Do(ctx, func(*sql.Tx) error { close(holding); <-hold; return nil })
				<-holding
				release = func() { close(hold) }
				queued = func(n int) {
					for e.batch.Queued() < n {
						time.Sleep(time.Millisecond)
					}
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, 3)
			create := func(i int, uid string) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: chat.DefaultRole})
				}()
				queued(i + 1)
			}
			create(0, "before")
			cctx, cancel := context.WithCancel(ctx)
			started := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[1] = db.transact(cctx, func(tx *wtx) error {
					close(started)
					_, err := tx.exec(slow[backend])
					return err
				})
			}()
			queued(2)
			create(2, "after")
			release()
			<-started
			time.Sleep(50 * time.Millisecond) // the slow statement is running
			cancel()
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("write %d: %v", i, err)
				}
			}
			for _, uid := range []string{"before", "slow", "after"} {
				if _, err := db.User(ctx, "a", uid); err != nil {
					t.Errorf("user %s: %v", uid, err)
				}
			}
		})
	}
}

// openWithApp opens a fresh database of backend, closed when the test ends, with app "a".
func openWithApp(t *testing.T, backend string) *DB {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	if backend == "postgres" {
		url = pgtest.URL(t)
	}
	db, err := Open(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateApp(context.Background(), chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	return db
}

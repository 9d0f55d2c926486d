package commit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestBatcher: jobs queued together share a commit; a job that fails uncleanly leaves
// nothing while the others commit; a clean refusal is answered as itself; a panic reaches its
// caller and costs the others nothing.
func TestBatcher(t *testing.T) {
	w, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "b.db")+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(`CREATE TABLE t (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var aborts atomic.Int32
	b := NewBatcher(w, func() { aborts.Add(1) }, func() {})
	defer b.Close()
	insert := func(k string) func(*sql.Tx) error {
		return func(tx *sql.Tx) error { _, err := tx.Exec(`INSERT INTO t VALUES (?)`, k); return err }
	}
	errRule := errors.New("refused by a rule")
	jobs := map[string]func(*sql.Tx) error{
		"ok1": insert("a"),
		"ok2": insert("b"),
		// writes, then fails: must leave no "c"
		"unclean": func(tx *sql.Tx) error {
			if err := insert("c")(tx); err != nil {
				return err
			}
			return errors.New("late failure")
		},
		"dup":   func(tx *sql.Tx) error { insert("d")(tx); return insert("d")(tx) }, // unique violation after a write
		"clean": func(*sql.Tx) error { return Refuse(errRule) },
		"panic": func(tx *sql.Tx) error { insert("e")(tx); panic("boom") },
		"ok3":   insert("f"),
	}
	// Hold the writer so that every job queues into one batch.
	hold, holding := make(chan struct{}), make(chan struct{})
	go b.Do(context.Background(), func(*sql.Tx) error { close(holding); <-hold; return nil })
	<-holding
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]string{}
	for name, fn := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					mu.Lock()
					got[name] = fmt.Sprint("panic: ", p)
					mu.Unlock()
				}
			}()
			err := b.Do(context.Background(), fn)
			mu.Lock()
			got[name] = fmt.Sprint(err)
			mu.Unlock()
		}()
	}
	for len(b.queue.jobs) < len(jobs) {
		runtimeGosched()
	}
	close(hold)
	wg.Wait()
	want := map[string]string{"ok1": "<nil>", "ok2": "<nil>", "ok3": "<nil>", "unclean": "late failure",
		"clean": errRule.Error(), "panic": "panic: boom"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %q, want %q", name, got[name], w)
		}
	}
	if got["dup"] == "<nil>" {
		t.Errorf("dup: no error")
	}
	var keys string
	rows, _ := w.Query(`SELECT k FROM t ORDER BY k`)
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys += k
	}
	rows.Close()
	if keys != "abf" {
		t.Fatalf("committed %q, want abf: failed jobs must leave nothing", keys)
	}
	// unclean, dup and panic each rolled a transaction back, and each rollback is reported
	// so that state kept beside the database can forget it.
	if n := aborts.Load(); n != 3 {
		t.Errorf("aborted hook ran %d times, want 3", n)
	}
}

func runtimeGosched() { runtime.Gosched() }

// TestBatcherCloseAnswersEveryone: callers racing a close each get an answer — their
// write, or sql.ErrConnDone — and none waits forever for a loop that has stopped.
func TestBatcherCloseAnswersEveryone(t *testing.T) {
	w, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "c.db")+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	b := NewBatcher(w, func() {}, func() {})
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if err := b.Do(context.Background(), func(*sql.Tx) error { return nil }); err != nil {
					if !errors.Is(err, sql.ErrConnDone) {
						t.Errorf("after close: %v", err)
					}
					return
				}
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	b.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("callers still waiting 10 s after close")
	}
}

package sqlstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/sqlstore"
)

// One writer per SQLite file: a second Open of the same file is refused while the first is
// open, even in the same process, and a Shared open (natter apps create) is not. Closing
// frees the file. (cmd/natter tests the same across processes, kill -9 included.)
func TestSQLiteWriterLock(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly": // sqlite_lock_flock.go
	default:
		t.Skipf("no writer lock on %s", runtime.GOOS)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "locked.db")
	first, err := sqlstore.Open(ctx, "sqlite:"+path, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			first.Close()
		}
	})

	second, err := sqlstore.Open(ctx, "sqlite:"+path, sqlstore.Options{})
	if err == nil {
		second.Close()
		t.Fatal("a second Open of a SQLite file in use succeeded")
	}
	if !errors.Is(err, sqlstore.ErrDatabaseInUse) {
		t.Errorf("second Open: %v, want ErrDatabaseInUse", err)
	}
	for _, want := range []string{path + ".lock", "process " + strconv.Itoa(os.Getpid()), "natter serve"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %q: %v", want, err)
		}
	}

	shared, err := sqlstore.Open(ctx, "sqlite:"+path, sqlstore.Options{Shared: true})
	if err != nil {
		t.Fatalf("a Shared Open beside the writer: %v", err)
	}
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	// A Shared open does not release the writer's lock when it closes.
	if again, err := sqlstore.Open(ctx, "sqlite:"+path, sqlstore.Options{}); !errors.Is(err, sqlstore.ErrDatabaseInUse) {
		if again != nil {
			again.Close()
		}
		t.Fatalf("after a Shared open closed, a second writer: %v, want ErrDatabaseInUse", err)
	}

	closed = true
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := sqlstore.Open(ctx, "sqlite:"+path, sqlstore.Options{})
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	third.Close()
}

// What SQLite reports as "unable to open database file" is named with its path and cause.
func TestSQLitePathErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"missing directory", filepath.Join(dir, "missing", "a.db"), []string{filepath.Join(dir, "missing", "a.db"), "directory " + filepath.Join(dir, "missing") + " does not exist"}},
		{"parent is a file", filepath.Join(file, "a.db"), []string{filepath.Join(file, "a.db"), "not a directory"}},
		{"path is a directory", dir, []string{dir, "is a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sqlstore.Open(ctx, "sqlite:"+tc.path, sqlstore.Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
		})
	}
}

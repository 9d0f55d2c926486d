package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/internal/blobstore"
)

// TestOpenFiles: the files directory is beside a SQLite file unless set, created on first
// start; PostgreSQL without one stores no files.
func TestOpenFiles(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "chat.db")
	for _, c := range []struct {
		name, dir, database, want string // want "": no store
	}{
		{"beside SQLite", "", "sqlite:" + db, db + ".files"},
		{"beside a SQLite URI", "", "sqlite:file:" + db + "?mode=rwc", db + ".files"},
		{"set", filepath.Join(tmp, "shared"), "postgres://u@h/db", filepath.Join(tmp, "shared")},
		{"PostgreSQL unset", "", "postgres://u@h/db", ""},
		{"SQLite in memory", "", "sqlite::memory:", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := openFiles(c.dir, c.database)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if s != nil {
					t.Fatalf("a store: %v", s)
				}
				return
			}
			d, ok := s.(*blobstore.Disk)
			if !ok || d.Dir() != c.want {
				t.Fatalf("store %v, want a disk in %s", s, c.want)
			}
			if fi, err := os.Stat(c.want); err != nil || !fi.IsDir() {
				t.Errorf("%s not created: %v", c.want, err)
			}
		})
	}
}

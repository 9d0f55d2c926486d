// Package chattest is the service-level rig of natter's tests: a chat.Service on a real
// store (a temporary SQLite file, or a copy of a migrated PostgreSQL database), with an app,
// and a recorder of the changes the service announces. chat's own tests (package chat_test)
// use it to prove a rule against a store without HTTP; httpapi's and the console's tests
// build their servers on it. A package that uses it on PostgreSQL calls pgtest.Main from its
// TestMain.
package chattest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/sqlstore"
)

// Backends are the databases every rule runs on.
var Backends = []string{"sqlite", "postgres"}

// migrated is the migrated PostgreSQL database each rig's is copied from: migrating costs
// about half a second a database, a copy a fraction of that.
var migrated = pgtest.NewTemplate(func(ctx context.Context, url string) error {
	db, err := sqlstore.Open(ctx, url, sqlstore.Options{})
	if err != nil {
		return err
	}
	return db.Close()
})

// sqliteTemplate is a SQLite file migrated once per test binary, which each rig's database
// is a copy of. Migrating a fresh file was over a third of httpapi's CPU under -race (SQLite
// parses every migration's DDL, and the detector instruments its parser): 300 of 819
// CPU-seconds on 2026-11-28. A copy is a few hundred kilobytes.
var sqliteTemplate struct {
	once sync.Once
	path string
	err  error
}

// sqliteURL copies the template into t's temporary directory and returns the copy's URL.
func sqliteURL(t testing.TB) string {
	t.Helper()
	sqliteTemplate.once.Do(func() {
		dir, err := os.MkdirTemp("", "natter-chattest-")
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		pgtest.AfterAll(func() { os.RemoveAll(dir) })
		path := filepath.Join(dir, "template.db")
		db, err := sqlstore.Open(context.Background(), "sqlite:"+path, sqlstore.Options{})
		if err == nil {
			err = db.Close() // the last connection's close checkpoints the WAL into the file
		}
		sqliteTemplate.path, sqliteTemplate.err = path, err
	})
	if sqliteTemplate.err != nil {
		t.Fatalf("chattest: migrate the SQLite template: %v", sqliteTemplate.err)
	}
	if _, err := os.Stat(sqliteTemplate.path + "-wal"); err == nil {
		t.Fatal("chattest: the SQLite template kept a WAL file; a copy of the file alone would miss what it holds")
	}
	dst := filepath.Join(t.TempDir(), "natter.db")
	body, err := os.ReadFile(sqliteTemplate.path)
	if err == nil {
		err = os.WriteFile(dst, body, 0o644)
	}
	if err != nil {
		t.Fatalf("chattest: copy the SQLite template: %v", err)
	}
	return "sqlite:" + dst
}

// Rig is a Service on a store of its own, with the app "demo" in region us.
type Rig struct {
	Backend string // "sqlite" or "postgres"
	DBURL   string // the store's URL, as sqlstore.Open takes it
	DB      *sqlstore.DB
	Svc     *chat.Service
	App     chat.App
	FullKey string // the app's fullAccess key
	AuthKey string // its authOnly key
}

// DatabaseURL is a new database of backend for t, dropped (PostgreSQL) or removed (SQLite)
// when t ends.
func DatabaseURL(t testing.TB, backend string) string {
	t.Helper()
	switch backend {
	case "sqlite":
		return sqliteURL(t)
	case "postgres":
		return migrated.URL(t)
	}
	t.Fatalf("chattest: no backend %q", backend)
	return ""
}

// Open opens a store of backend for t and a Service on it with cfg, and creates the app
// "demo" in region us; everything closes when t ends, the service before the store.
func Open(t testing.TB, backend string, cfg chat.Config) *Rig {
	t.Helper()
	r := &Rig{Backend: backend, DBURL: DatabaseURL(t, backend)}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, r.DBURL, sqlstore.Options{})
	if err != nil {
		t.Fatalf("chattest: open %s: %v", backend, err)
	}
	t.Cleanup(func() { db.Close() })
	r.DB = db
	r.Svc = chat.New(db, cfg)
	t.Cleanup(func() { r.Svc.Close(context.Background()) }) // before db.Close: cleanups run last first
	app, keys, err := r.Svc.CreateApp(ctx, chat.AppCreate{ID: "demo", Region: "us"})
	if err != nil {
		t.Fatalf("chattest: create app: %v", err)
	}
	r.App, r.FullKey, r.AuthKey = app, keys[0].Value, keys[1].Value
	return r
}

// Each runs f on a rig of every backend, as parallel subtests named for them.
func Each(t *testing.T, cfg chat.Config, f func(t *testing.T, r *Rig)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, Open(t, b, cfg))
		})
	}
}

// Principal is the app's principal with the full key's scope, acting as uid ("" for none),
// as an API key with onBehalfOf makes it.
func (r *Rig) Principal(t testing.TB, uid string) chat.Principal {
	t.Helper()
	p, err := r.Svc.Authenticate(context.Background(), chat.Credentials{APIKey: r.FullKey})
	if err != nil {
		t.Fatalf("chattest: authenticate: %v", err)
	}
	return p.ActingAs(uid)
}

// Users creates users by uid, each named for its uid.
func (r *Rig) Users(t testing.TB, uids ...string) {
	t.Helper()
	p := r.Principal(t, "")
	for _, uid := range uids {
		if _, err := r.Svc.CreateUser(context.Background(), p, chat.UserCreate{UID: uid, Name: uid}); err != nil {
			t.Fatalf("chattest: create user %s: %v", uid, err)
		}
	}
}

// Recorder keeps every change a service announces.
type Recorder struct {
	mu      sync.Mutex
	changes []chat.Change
}

// Record subscribes a new Recorder to svc's feed.
func Record(svc *chat.Service) *Recorder {
	r := &Recorder{}
	svc.Subscribe(func(cs []chat.Change) {
		r.mu.Lock()
		r.changes = append(r.changes, cs...)
		r.mu.Unlock()
	})
	return r
}

// Changes are the changes announced so far, in order.
func (r *Recorder) Changes() []chat.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]chat.Change(nil), r.changes...)
}

// Reset forgets the changes recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.changes = nil
	r.mu.Unlock()
}

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// One natter serve per SQLite file: a second serve, or a migrate, on a file another natter
// serves refuses to start and says which file and why; apps create still runs beside it. The
// lock dies with its holder: after kill -9, a new serve starts on the file at once.
func TestOneServerPerSQLiteFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil)
	b := parseBanner(t, p)
	pid := strconv.Itoa(p.cmd.Process.Pid)

	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + db},
		{"migrate", "--database", "sqlite:" + db},
	} {
		t.Run(args[0], func(t *testing.T) {
			stdout, stderr, code := runNatter(t, nil, args...)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			for _, want := range []string{"sqlite database " + db + " is in use", "process " + pid, db + ".lock"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if stdout != "" || strings.Contains(stderr, "natter listening") {
				t.Errorf("it started anyway; stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		})
	}
	if _, stderr, code := runNatter(t, nil, "apps", "create", "--id", "beside", "--region", "us", "--database", "sqlite:"+db); code != 0 {
		t.Fatalf("apps create beside serve: exit status %d\n%s", code, stderr)
	}
	a := newAPI(t, addr, "demo", "us", b.FullKey)
	a.createUser("alice")

	if code := p.stopWith(t, syscall.SIGKILL, 10*time.Second); code != -1 {
		t.Fatalf("exit status %d after SIGKILL, want -1 (killed)", code)
	}
	p2, addr2 := startServe(t, db, nil)
	a2 := newAPI(t, addr2, "demo", "us", b.FullKey)
	if users := list(t, a2.do("GET", "/v3/users", nil)); len(users) != 1 || str(t, users[0], "uid") != "alice" {
		t.Errorf("after kill -9 and a new start, users are %s, want alice", users)
	}
	if code := p2.stop(t, 10*time.Second); code != 0 {
		t.Fatalf("exit status %d after SIGTERM", code)
	}
	if _, stderr, code := runNatter(t, nil, "migrate", "--database", "sqlite:"+db); code != 0 {
		t.Errorf("migrate after serve stopped: exit status %d\n%s", code, stderr)
	}
}

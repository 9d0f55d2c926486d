package pgserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

func lookupBinaries() (*binaries, error) {
	if !platformSupported {
		return nil, unavailable("throwaway servers need a Unix system (%s)", runtime.GOOS)
	}
	dir, err := binDir()
	if err != nil {
		return nil, err
	}
	b := &binaries{dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, unavailable("running as root, and PostgreSQL refuses root, but there is no postgres account to run it as (%v)", err)
		}
		b.asUser = true
		b.uid, _ = strconv.Atoi(u.Uid)
		b.gid, _ = strconv.Atoi(u.Gid)
	}
	return b, nil
}

// binDir prefers $NATTER_PG_BIN, then the newest Debian-style /usr/lib/postgresql/N/bin, then
// PATH (resolving symlinks, since pg_ctl looks for postgres next to itself).
func binDir() (string, error) {
	if d := os.Getenv("NATTER_PG_BIN"); d != "" {
		if err := hasBinaries(d); err != nil {
			return "", unavailable("NATTER_PG_BIN=%s: %v", d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasBinaries(d) == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && hasBinaries(filepath.Dir(p)) == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", unavailable("no initdb, pg_ctl and postgres in /usr/lib/postgresql/*/bin or on PATH")
}

func hasBinaries(dir string) error {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("no %s: %w", name, err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", filepath.Join(dir, name))
		}
	}
	return nil
}

// command runs a PostgreSQL program as the server account, in dir, with PG* variables
// removed so that the caller's PGDATA, PGPORT and friends cannot redirect it.
func (b *binaries) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(b.dir, name), args...)
	cmd.Dir = dir // root's working directory may be unreadable for postgres
	cmd.SysProcAttr = sysProcAttr(b.asUser, b.uid, b.gid)
	cmd.Env = CleanEnv()
	cmd.Env = append(cmd.Env, "LC_ALL=C") // log text we match on, e.g. "could not bind"
	return cmd
}

// CleanEnv returns this process's environment without the PG* (libpq), LC_* and LANG*
// variables, for running PostgreSQL programs, servers or clients, that the caller's PGHOST,
// PGPASSWORD, PGOPTIONS and friends must not redirect or reconfigure.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			env = append(env, kv)
		}
	}
	return env
}

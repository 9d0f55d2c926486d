package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrDatabaseInUse is what Open returns (wrapped, with the file and the holder named) when
// another process holds a SQLite file's writer lock.
var ErrDatabaseInUse = errors.New("in use by another natter process")

// sqliteLock is the writer lock on a SQLite file: an flock(2) on "<file>.lock" beside it.
// natter serve keeps the messages it changes reactions on in memory (sqlite_hot.go), so a second
// process writing the same file would make it answer stale counts; natter migrate changes the
// schema under a running server. Both take the lock and refuse to start without it. The
// kernel drops the lock when its holder exits, however it exits, so nothing stale is left to
// clean up; the lock file itself stays, holding the last holder's pid.
type sqliteLock struct {
	f *os.File
}

// lockSQLite takes the writer lock of the SQLite file at path, or fails at once with an error
// wrapping ErrDatabaseInUse.
func lockSQLite(path string) (*sqliteLock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sqlite database %s: create its lock file: %w", absPath(path), err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sqlite database %s: lock %s: %w", absPath(path), absPath(name), err)
	}
	if !ok {
		holder := "another process"
		if b, err := io.ReadAll(io.LimitReader(f, 32)); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("sqlite database %s is %w (%s holds its lock file %s). natter serve and "+
			"natter migrate each need the file to themselves; natter apps create may run beside serve. "+
			"Stop the other process, or use another --database", absPath(path), ErrDatabaseInUse, holder, absPath(name))
	}
	// The pid is for the message above only; the lock is the flock, not the file's content.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &sqliteLock{f: f}, nil
}

// release drops the lock.
func (l *sqliteLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close() // closing the last descriptor drops the flock
}

// checkSQLitePath explains up front what SQLite would report only as "unable to open
// database file": a directory that does not exist, or a path that is not a file.
func checkSQLitePath(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("sqlite database %s: the directory %s does not exist (natter creates the file, not its directory)", absPath(path), absPath(dir))
	case err != nil:
		return fmt.Errorf("sqlite database %s: %w", absPath(path), err)
	case !fi.IsDir():
		return fmt.Errorf("sqlite database %s: %s is not a directory", absPath(path), absPath(dir))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("sqlite database %s: that is a directory, not a database file", absPath(path))
	}
	return nil
}

// MissingError is Open's refusal of a SQLite file that does not exist, under
// Options.MustExist. Path is absolute.
type MissingError struct{ Path string }

func (e *MissingError) Error() string { return "sqlite database " + e.Path + " does not exist" }

// absPath is path made absolute for messages, or path itself if that fails.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// openSQLiteLocked is openSQLite behind the checks of the path and, unless opt.Shared, the
// writer lock, which the engine releases last when it closes.
func openSQLiteLocked(ctx context.Context, path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if err := checkSQLitePath(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); opt.MustExist && errors.Is(err, os.ErrNotExist) {
		return nil, &MissingError{Path: absPath(path)}
	}
	var lock *sqliteLock
	if !opt.Shared {
		var err error
		if lock, err = lockSQLite(path); err != nil {
			return nil, err
		}
	}
	db, err := openSQLite(ctx, path, opt, lock)
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("sqlite database %s: %w", absPath(path), err)
	}
	return db, nil
}

// Package pgserver runs throwaway PostgreSQL servers from the local PostgreSQL binaries, for
// tests (through internal/pgtest) and for the load-benchmark harness (bench/).
//
// Start runs initdb into a new temporary directory, starts postgres on a free loopback port,
// and waits until it accepts connections; Close stops it and deletes the directory. The
// binaries come from $NATTER_PG_BIN, else the newest /usr/lib/postgresql/*/bin, else PATH.
// PostgreSQL refuses to run as root, so under root the server runs as the postgres account.
//
// A server is tied to the process that started it: on Linux the kernel sends postgres
// SIGQUIT when that process dies (Pdeathsig), and every Start sweeps up the directories, and
// stops the servers, of earlier processes that died without calling Close.
//
// When there is no PostgreSQL to run (no binaries, no postgres account under root, not a Unix
// system) Start returns an error that matches ErrUnavailable with errors.Is (and is an
// *UnavailableError), so that callers can tell "not installed" from "broken" and decide
// whether to skip or fail.
package pgserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrUnavailable is matched (errors.Is) by the error Start returns when there is no
// PostgreSQL to run here.
var ErrUnavailable = errors.New("PostgreSQL binaries not available")

// UnavailableError says why there is no PostgreSQL to run here. It matches ErrUnavailable.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return ErrUnavailable.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrUnavailable) hold.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

func unavailable(format string, args ...any) error {
	return &UnavailableError{fmt.Sprintf(format, args...)}
}

// DefaultTempPrefix names the temporary directories of servers started without
// Options.TempPrefix.
const DefaultTempPrefix = "natter-pgserver-"

// DefaultStartTimeout bounds initdb and each start when Options.StartTimeout is zero; a loaded
// machine can be slow.
const DefaultStartTimeout = 2 * time.Minute

// DefaultSettings returns the postgresql.conf settings a server gets unless Options.Settings
// overrides them: no durability (the data is deleted with the server), and room for many
// connections.
func DefaultSettings() map[string]string {
	return map[string]string{
		"fsync":              "off",
		"synchronous_commit": "off",
		"full_page_writes":   "off",
		"max_connections":    "300",
		"shared_buffers":     "128MB",
	}
}

// Options configure Start. The zero value is a server with DefaultSettings.
type Options struct {
	// Settings are postgresql.conf parameters applied over DefaultSettings, written as
	// "name = value" (so string values need their own single quotes). An empty value removes
	// a default. listen_addresses, unix_socket_directories and port are the server's own.
	Settings map[string]string
	// TempPrefix names the temporary directory (DefaultTempPrefix when empty). Start sweeps
	// stale directories with this prefix, DefaultTempPrefix and internal/pgtest's.
	TempPrefix string
	// StartTimeout bounds initdb, and each start and stop (DefaultStartTimeout when zero).
	StartTimeout time.Duration
}

var settingName = regexp.MustCompile(`^[a-z_][a-z0-9_.]*$`)

// binaries is a PostgreSQL installation and the account to run it as.
type binaries struct {
	dir      string // holds initdb, pg_ctl and postgres
	asUser   bool   // this process runs as root, so servers run as uid/gid
	uid, gid int
}

var (
	findOnce  sync.Once
	foundBins *binaries
	findErr   error
)

func findBinaries() (*binaries, error) {
	findOnce.Do(func() { foundBins, findErr = lookupBinaries() })
	return foundBins, findErr
}

// Server is one throwaway PostgreSQL: a data directory in a temporary directory, and the
// postgres process while it runs. Its methods are safe for concurrent use.
type Server struct {
	bin     *binaries
	dir     string // temporary directory, removed by Close
	data    string
	log     string
	port    int
	timeout time.Duration
	conf    []string // the "name = value" lines written to postgresql.conf

	versionOnce sync.Once
	versionStr  string

	mu     sync.Mutex
	pid    int
	exited chan struct{} // closed when the running postgres has exited; nil when stopped
	closed bool
}

// Start creates, configures and starts a server on a free loopback port, and waits until it
// accepts connections.
func Start(opts Options) (*Server, error) {
	settings := DefaultSettings()
	for k, v := range opts.Settings {
		switch {
		case !settingName.MatchString(k):
			return nil, fmt.Errorf("pgserver: bad setting name %q", k)
		case k == "listen_addresses" || k == "unix_socket_directories" || k == "port":
			return nil, fmt.Errorf("pgserver: setting %s is the server's own", k)
		case strings.ContainsAny(v, "\n\r#"):
			return nil, fmt.Errorf("pgserver: setting %s: value %q has a newline or '#'", k, v)
		case v == "":
			delete(settings, k)
		default:
			settings[k] = v
		}
	}
	prefix := opts.TempPrefix
	if prefix == "" {
		prefix = DefaultTempPrefix
	}
	if strings.ContainsAny(prefix, `/\*?[`) {
		return nil, fmt.Errorf("pgserver: bad TempPrefix %q", prefix)
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	sweepStaleOnce(os.TempDir(), prefix)
	dir, err := os.MkdirTemp("", prefix+"*")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "server.log"), timeout: timeout}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s.conf = append(s.conf, k+" = "+settings[k])
	}
	if err := s.create(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) create() error {
	if err := writeOwner(s.dir); err != nil {
		return err
	}
	if s.bin.asUser {
		if err := os.Chown(s.dir, s.bin.uid, s.bin.gid); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	out, err := s.bin.command(ctx, s.dir, "initdb", "-D", s.data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb in %s: %v\n%s", s.dir, err, tail(out))
	}
	conf := "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '" + socketDir(s.dir) + "'\n" +
		strings.Join(s.conf, "\n") + "\n"
	f, err := os.OpenFile(filepath.Join(s.data, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A port can only be reserved by binding it, so pick a free one and retry when another
	// process wins the race for it before postgres binds.
	for attempt := 1; ; attempt++ {
		s.port, err = freePort()
		if err != nil {
			return err
		}
		err = s.Start()
		if err == nil || !errors.Is(err, errPortInUse) || attempt == 5 {
			return err
		}
	}
}

// socketDir keeps the Unix socket next to the data, unless the path would exceed the ~107
// byte limit of socket addresses (a long TMPDIR); clients connect over TCP anyway.
func socketDir(dir string) string {
	if len(dir)+len("/.s.PGSQL.65535") >= 100 {
		return ""
	}
	return dir
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var errPortInUse = errors.New("port in use")

// Start starts the stopped server again, on the same port and data, and waits until it
// accepts connections. Starting a running server does nothing.
//
// It runs postgres itself rather than through pg_ctl so that postgres stays this process's
// child and Pdeathsig can tie its life to this process's.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("pgserver: Start after Close")
	}
	if s.exited != nil {
		return nil
	}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	logStart, _ := logf.Seek(0, 2)
	cmd := s.bin.command(context.Background(), s.dir, "postgres", "-D", s.data, "-p", strconv.Itoa(s.port))
	cmd.Stdout, cmd.Stderr = logf, logf
	setPdeathsig(cmd.SysProcAttr)
	started, exited := make(chan error, 1), make(chan struct{})
	go func() {
		// Pdeathsig fires when the thread that forked postgres exits, not the process. Go may
		// retire idle threads, so start from a locked thread and hold it until postgres exits.
		runtime.LockOSThread()
		defer close(exited)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.pid, s.exited = cmd.Process.Pid, exited

	err = s.waitReady(exited)
	if err == nil {
		return nil
	}
	cmd.Process.Kill()
	<-exited
	s.exited, s.pid = nil, 0
	logText := s.logTail(logStart)
	if strings.Contains(logText, "could not create any TCP/IP sockets") {
		err = fmt.Errorf("%w: %v", errPortInUse, err)
	}
	return fmt.Errorf("%w\nserver log %s:\n%s", err, s.log, logText)
}

// waitReady polls until our postgres answers on s.port. It checks data_directory because
// if the port was taken, another server may answer there while ours is failing to bind.
func (s *Server) waitReady(exited chan struct{}) error {
	deadline := time.Now().Add(s.timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("postgres exited during startup (last connection error: %v)", lastErr)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var dataDir string
		conn, err := pgx.Connect(ctx, s.AdminURL())
		if err == nil {
			err = conn.QueryRow(ctx, "SHOW data_directory").Scan(&dataDir)
			conn.Close(ctx)
			if err == nil && dataDir != s.data {
				err = fmt.Errorf("port %d is served by another server (data_directory %s)", s.port, dataDir)
			}
		}
		cancel()
		if err == nil {
			return nil
		}
		lastErr = err
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("postgres did not accept connections within %v: %v", s.timeout, lastErr)
}

// Stop shuts the server down as pg_ctl stop -m fast does: it disconnects clients, and rolls
// back their transactions. Stopping a stopped server does nothing.
func (s *Server) Stop() error { return s.stop("fast") }

// stop shuts the server down with pg_ctl in the given mode ("fast" or "immediate") and waits
// for the process to exit; it kills postgres if pg_ctl fails.
func (s *Server) stop(mode string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout+10*time.Second)
	defer cancel()
	out, err := s.bin.command(ctx, s.dir, "pg_ctl", "stop", "-D", s.data, "-m", mode, "-w",
		"-t", strconv.Itoa(int(s.timeout.Seconds()))).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("pg_ctl stop -m %s: %v\n%s", mode, err, tail(out))
		signalPID(s.pid, os.Kill)
	}
	select {
	case <-s.exited:
	case <-time.After(s.timeout):
		signalPID(s.pid, os.Kill)
		<-s.exited
	}
	s.exited, s.pid = nil, 0
	return err
}

// Close stops the server at once (immediate shutdown) and deletes its directory. Closing a
// closed server does nothing.
func (s *Server) Close() error {
	err := s.stop("immediate")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return err
	}
	s.closed = true
	return errors.Join(err, os.RemoveAll(s.dir))
}

// Port is the loopback TCP port the server listens on (127.0.0.1).
func (s *Server) Port() int { return s.port }

// Dir is the server's temporary directory: data/ (PGDATA), server.log and the Unix socket.
func (s *Server) Dir() string { return s.dir }

// DataDir is the data directory (PGDATA).
func (s *Server) DataDir() string { return s.data }

// LogPath is the server's log file.
func (s *Server) LogPath() string { return s.log }

// BinDir is the directory of the PostgreSQL programs the server runs from; client programs
// of the same version (psql, pgbench) are usually there too.
func (s *Server) BinDir() string { return s.bin.dir }

// Settings returns the postgresql.conf settings the server was given, besides its own
// listen_addresses and unix_socket_directories, as sorted "name = value" lines.
func (s *Server) Settings() []string { return append([]string(nil), s.conf...) }

// PID is the postmaster's process id while the server runs, else 0. Its backends are its
// children.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid
}

// AdminURL is the URL of the server's postgres database, as the postgres superuser; run
// CREATE DATABASE there.
func (s *Server) AdminURL() string { return s.URL("postgres") }

// URL is the URL of database db on the server, as the postgres superuser, over TCP.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDatabase creates an empty database named name on the server and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	return CreateDatabase(ctx, s.AdminURL(), name)
}

// Version is what postgres --version says, e.g. "postgres (PostgreSQL) 15.18 (Debian …)".
func (s *Server) Version() string {
	s.versionOnce.Do(func() {
		out, err := s.bin.command(context.Background(), s.dir, "postgres", "--version").Output()
		s.versionStr = strings.TrimSpace(string(out))
		if err != nil || s.versionStr == "" {
			s.versionStr = "PostgreSQL"
		}
	})
	return s.versionStr
}

var dbName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CreateDatabase creates an empty database named name (lower-case letters, digits and
// underscores, at most 63) on the server that adminURL connects to, and returns a URL for it:
// adminURL with its path replaced. It copies template0, so the database is empty even if
// someone added objects to template1 on a shared server.
func CreateDatabase(ctx context.Context, adminURL, name string) (string, error) {
	return CreateDatabaseFrom(ctx, adminURL, name, "template0")
}

// CreateDatabaseFrom is CreateDatabase copying database template instead of template0: a
// copy of a migrated schema costs a fraction of migrating again. Nothing may be connected
// to template meanwhile (PostgreSQL refuses the copy).
func CreateDatabaseFrom(ctx context.Context, adminURL, name, template string) (string, error) {
	au, err := url.Parse(adminURL)
	if err != nil || (au.Scheme != "postgres" && au.Scheme != "postgresql") {
		return "", fmt.Errorf("want a postgres:// URL, have %q", redact(adminURL))
	}
	for _, n := range []string{name, template} {
		if !dbName.MatchString(n) {
			return "", fmt.Errorf("bad database name %q: want [a-z_][a-z0-9_]*, at most 63 characters", n)
		}
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", redact(adminURL), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template); err != nil {
		return "", fmt.Errorf("create database %s on %s: %w", name, redact(adminURL), err)
	}
	du := *au
	du.Path, du.RawPath = "/"+name, ""
	return du.String(), nil
}

// DropDatabase drops database name, if it exists, on the server that adminURL connects to,
// disconnecting its clients first (WITH (FORCE), PostgreSQL 13 or newer).
func DropDatabase(ctx context.Context, adminURL, name string) error {
	if !dbName.MatchString(name) {
		return fmt.Errorf("bad database name %q", name)
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err == nil {
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(ctx)
	}
	return err
}

func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// logTail returns the end of what the server logged since offset from.
func (s *Server) logTail(from int64) string {
	b, err := os.ReadFile(s.log)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	if from <= int64(len(b)) {
		b = b[from:]
	}
	return tail(b)
}

// tail returns the last lines of b, enough to show why PostgreSQL failed.
func tail(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return "\t" + strings.Join(lines, "\n\t")
}

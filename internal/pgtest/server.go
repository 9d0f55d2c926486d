package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// dirPrefix names the temporary directories of throwaway servers, so that a later run can find
// the ones an earlier, killed, run left behind.
const dirPrefix = "natter-pgtest-"

// unavailableError means there is no PostgreSQL to run here; URL and NewServer skip on it
// (fail under CI) instead of reporting a broken server.
type unavailableError struct{ why string }

func (e *unavailableError) Error() string { return e.why }

func unavailable(format string, args ...any) error {
	return &unavailableError{fmt.Sprintf(format, args...)}
}

// binaries is a PostgreSQL installation and the account to run it as.
type binaries struct {
	dir      string // holds initdb, pg_ctl and postgres
	asUser   bool   // the test runs as root, so servers run as uid/gid
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
func (b *binaries) command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(b.dir, name), args...)
	cmd.Dir = dir // root's working directory may be unreadable for postgres
	cmd.SysProcAttr = sysProcAttr(b.asUser, b.uid, b.gid)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C") // log text we match on, e.g. "could not bind"
	return cmd
}

// server is one throwaway PostgreSQL: a data directory in a temporary directory, and the
// postgres process while it runs.
type server struct {
	bin  *binaries
	dir  string // temporary directory, removed by destroy
	data string
	log  string
	port int

	mu     sync.Mutex
	pid    int
	exited chan struct{} // closed when the running postgres has exited; nil when stopped
}

// startupTimeout bounds initdb and each start; a loaded CI machine can be slow.
const startupTimeout = 2 * time.Minute

// newServer creates, configures and starts a server on a free loopback port.
func newServer() (*server, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	sweepOnce.Do(sweepStale)
	dir, err := os.MkdirTemp("", dirPrefix+"*")
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "server.log")}
	if err := s.create(); err != nil {
		s.destroy()
		return nil, err
	}
	return s, nil
}

func (s *server) create() error {
	if err := writeOwner(s.dir); err != nil {
		return err
	}
	if s.bin.asUser {
		if err := os.Chown(s.dir, s.bin.uid, s.bin.gid); err != nil {
			return err
		}
	}
	out, err := s.bin.command(s.dir, "initdb", "-D", s.data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb in %s: %v\n%s", s.dir, err, tail(out))
	}
	// Durability is worthless for a database that is deleted after the tests.
	conf := `
listen_addresses = '127.0.0.1'
unix_socket_directories = '` + socketDir(s.dir) + `'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
shared_buffers = 128MB
`
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
		err = s.start()
		if err == nil || !errors.Is(err, errPortInUse) || attempt == 5 {
			return err
		}
	}
}

// socketDir keeps the Unix socket next to the data, unless the path would exceed the ~107
// byte limit of socket addresses (a long TMPDIR); tests connect over TCP anyway.
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

// start runs postgres on s.port and waits until it accepts connections. It starts postgres
// itself rather than through pg_ctl so that it stays our child and Pdeathsig can tie its life
// to the test binary's.
func (s *server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited != nil {
		return nil
	}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	logStart, _ := logf.Seek(0, 2)
	cmd := s.bin.command(s.dir, "postgres", "-D", s.data, "-p", strconv.Itoa(s.port))
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
	s.exited = nil
	logText := s.logTail(logStart)
	if strings.Contains(logText, "could not create any TCP/IP sockets") {
		err = fmt.Errorf("%w: %v", errPortInUse, err)
	}
	return fmt.Errorf("%w\nserver log %s:\n%s", err, s.log, logText)
}

// waitReady polls until our postgres answers on s.port. It checks data_directory because
// if the port was taken, another server (say another test binary's) may answer there while
// ours is failing to bind.
func (s *server) waitReady(exited chan struct{}) error {
	deadline := time.Now().Add(startupTimeout)
	var lastErr error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("postgres exited during startup (last connection error: %v)", lastErr)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var dataDir string
		conn, err := pgx.Connect(ctx, s.adminURL())
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
	return fmt.Errorf("postgres did not accept connections within %v: %v", startupTimeout, lastErr)
}

// stop shuts the server down with pg_ctl in the given mode ("fast" or "immediate") and waits
// for the process to exit; it kills postgres if pg_ctl fails.
func (s *server) stop(mode string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited == nil {
		return nil
	}
	out, err := s.bin.command(s.dir, "pg_ctl", "stop", "-D", s.data, "-m", mode, "-w",
		"-t", strconv.Itoa(int(startupTimeout.Seconds()))).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("pg_ctl stop -m %s: %v\n%s", mode, err, tail(out))
		signalPID(s.pid, os.Kill)
	}
	select {
	case <-s.exited:
	case <-time.After(startupTimeout):
		signalPID(s.pid, os.Kill)
		<-s.exited
	}
	s.exited = nil
	return err
}

// destroy stops the server at once and deletes everything it had.
func (s *server) destroy() error {
	err := s.stop("immediate")
	return errors.Join(err, os.RemoveAll(s.dir))
}

func (s *server) adminURL() string { return s.url("postgres") }

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

func (s *server) version() string {
	out, err := s.bin.command(s.dir, "postgres", "--version").Output()
	if err != nil {
		return "PostgreSQL"
	}
	return strings.TrimSpace(string(out))
}

// logTail returns the end of what the server logged since offset from.
func (s *server) logTail(from int64) string {
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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// natterProc is a natter serve child process.
type natterProc struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	logPath string
	logFile *os.File
	done    chan struct{}
	waitErr error
}

// isLoopbackHost reports whether host (a name or an IP, without port) is the loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// checkDatabase accepts sqlite:PATH and postgres URLs whose host is the loopback or a Unix
// socket, so the harness never puts load on another machine.
func checkDatabase(db string) error {
	if strings.HasPrefix(db, "sqlite:") {
		return nil
	}
	u, err := url.Parse(db)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("-database must be sqlite:PATH or postgres://…, got %q", db)
	}
	hosts := []string{}
	if u.Host != "" {
		for _, hp := range strings.Split(u.Host, ",") {
			h := hp
			if hh, _, err := net.SplitHostPort(hp); err == nil {
				h = hh
			}
			hosts = append(hosts, h)
		}
	}
	if h := u.Query().Get("host"); h != "" {
		hosts = append(hosts, h)
	}
	for _, h := range hosts {
		if h == "" || strings.HasPrefix(h, "/") || isLoopbackHost(h) {
			continue
		}
		return fmt.Errorf("-database host %q is not the loopback; only loopback may be load-tested", h)
	}
	return nil
}

// freePort asks the kernel for an unused port on host.
func freePort(host string) (string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startNatter runs `natter serve` on a free loopback port and waits until /readyz answers
// 200. The child gets this process's environment minus every NATTER_* variable, then the
// harness's settings (harnessEnv after the fixed ones), then the -natter-env overrides.
// database, when not empty, is passed as --database (otherwise harnessEnv names it, as
// NATTER_DATABASE_URL).
func startNatter(ctx context.Context, bin, host, database, apiKey string, harnessEnv, extraEnv []string, logPath string) (*natterProc, error) {
	addr, err := freePort(host)
	if err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NATTER_") {
			env = append(env, kv)
		}
	}
	// Rate limits stay on, as in production, but so high that no scenario reaches them:
	// their cost is measured, not their refusals. -natter-env NATTER_RATE_LIMIT_STANDARD=0
	// (and _CORE=0) measures without them.
	env = append(env, "NATTER_API_KEY="+apiKey, "NATTER_ACCESS_LOG=false", "NATTER_MAX_REACTIONS=0",
		"NATTER_RATE_LIMIT_STANDARD=1000000000", "NATTER_RATE_LIMIT_CORE=1000000000")
	env = append(env, harnessEnv...)
	env = append(env, extraEnv...)

	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr}
	if database != "" {
		args = append(args, "--database", database)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setPdeathsig(cmd.SysProcAttr)
	p := &natterProc{cmd: cmd, base: "http://" + addr, logPath: logPath, logFile: logFile, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started natter exits, not the process; Go
		// may retire idle threads, so start from a locked thread and hold it until natter
		// exits (as internal/pgserver does for postgres).
		runtime.LockOSThread()
		defer close(p.done)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
	}()
	if err := <-started; err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start natter: %w", err)
	}

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.done:
			return nil, fmt.Errorf("natter exited before it was ready (%v); log:\n%s", p.waitErr, tail(logPath, 20))
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get(p.base + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				client.CloseIdleConnections()
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("natter not ready at %s/readyz after 30s (last: %v); log:\n%s", p.base, err, tail(logPath, 20))
		}
	}
}

// stop sends SIGTERM and waits up to 30 s for a clean exit; after that it kills natter. It
// returns an error unless natter exited with status 0.
func (p *natterProc) stop() error {
	defer p.logFile.Close()
	select {
	case <-p.done:
		return fmt.Errorf("natter had already exited: %v", p.waitErr)
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("SIGTERM natter: %w", err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return errors.New("natter did not exit within 30s of SIGTERM; killed")
	}
	if p.waitErr != nil {
		return fmt.Errorf("natter exited with %v after SIGTERM; log:\n%s", p.waitErr, tail(p.logPath, 20))
	}
	return nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

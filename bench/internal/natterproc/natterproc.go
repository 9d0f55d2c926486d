// Package natterproc starts and stops natter serve processes for the load tools under
// bench/, and holds the small figures helpers they share.
package natterproc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Spec is one natter serve process to start.
type Spec struct {
	Bin, Dir, DB string
	Key, AppID   string   // the first-start API key and app (NATTER_API_KEY, NATTER_APP_ID)
	Args         []string // more flags after --addr, --database and the rate limits off
	// Env is added to the environment; with OwnEnv the caller's NATTER_ variables are
	// left out, so that the tool's flags alone configure natter.
	Env    []string
	OwnEnv bool
	// Log, when set, gets natter's log lines (its stderr), for a tool to show when
	// something went wrong.
	Log io.Writer
}

// Proc is a started natter.
type Proc struct {
	Cmd  *exec.Cmd
	Base string // http://host:port
}

var listening = regexp.MustCompile(`msg="natter listening" addr=(\S+)`)

// Start runs natter serve on a loopback port and waits (up to a minute) until it listens.
// The kernel stops it should the tool die (Linux).
func Start(ctx context.Context, s Spec) (*Proc, error) {
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--database", s.DB, "--access-log=false",
		"--rate-limit-core", "0", "--rate-limit-standard", "0"}, s.Args...)
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Dir
	for _, kv := range os.Environ() {
		if !s.OwnEnv || !strings.HasPrefix(kv, "NATTER_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "NATTER_API_KEY="+s.Key, "NATTER_APP_ID="+s.AppID) // later wins
	cmd.Env = append(cmd.Env, s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setPdeathsig(cmd.SysProcAttr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if s.Log != nil {
				s.Log.Write(append(sc.Bytes(), '\n'))
			}
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addr:
		return &Proc{Cmd: cmd, Base: "http://" + a}, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("natter did not start")
	}
}

// Stop interrupts natter and kills it if it has not stopped within grace.
func (p *Proc) Stop(grace time.Duration) {
	p.Cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		p.Cmd.Process.Kill()
	}
}

// Pct is the p-th quantile (0 to 1) of ds.
func Pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// Ms is d in milliseconds with one decimal.
func Ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}

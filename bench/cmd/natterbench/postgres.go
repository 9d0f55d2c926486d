package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/natter-chat/natter/internal/pgserver"
)

// pgSettings tune the throwaway server for a benchmark on a small machine. They come on top
// of pgserver's throwaway defaults (fsync, synchronous_commit and full_page_writes off), and
// natter and pgbench share the one server, so both run under exactly the same settings.
var pgSettings = map[string]string{
	"max_connections": "300",
	"shared_buffers":  "256MB",
	// Log every autovacuum and autoanalyze, to tell what else the server did during a row.
	"log_autovacuum_min_duration": "0",
}

const (
	natterDBName  = "natterbench"
	pgbenchDBName = "natterbench_pgbench"
	// pgbenchTable is pgbench's single-row insert target. Autovacuum is off for it: an
	// append-only table needs no vacuum, and a vacuum of it would otherwise wake up during
	// natter's scenarios, after pgbench's run, and take their CPU.
	pgbenchTable = `CREATE TABLE pgbench_insert (id bigserial PRIMARY KEY, a int, b text) WITH (autovacuum_enabled = off)`
	// pgbenchScript is the transaction pgbench repeats: one single-row INSERT (autocommit).
	pgbenchScript = "\\set aid random(1, 1000000)\nINSERT INTO pgbench_insert (a, b) VALUES (:aid, 'x');\n"
	// pgbenchSampling is the fraction of transactions pgbench logs, for latency percentiles
	// (logging all of them would cost pgbench noticeable CPU at tens of thousands per second).
	pgbenchSampling = 0.1
)

// pgBench is the -postgres mode's throwaway PostgreSQL server, with a database for natter and
// one for pgbench.
type pgBench struct {
	srv       *pgserver.Server
	natterURL string
	pgbench   string // the pgbench binary
	version   string // pgbench --version
	dir       string // the harness's temporary directory: pgbench's script and logs
	script    string
}

// startPostgres starts the throwaway server and prepares both databases. On error it has
// already cleaned up.
func startPostgres(ctx context.Context, tmp string, needPgbench bool) (p *pgBench, err error) {
	p = &pgBench{dir: tmp}
	t0 := time.Now()
	p.srv, err = pgserver.Start(pgserver.Options{Settings: pgSettings})
	if errors.Is(err, pgserver.ErrUnavailable) {
		return nil, fmt.Errorf("-postgres: %w; install the postgresql package (Debian: apt-get install postgresql postgresql-contrib)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("-postgres: start PostgreSQL: %w", err)
	}
	defer func() {
		if err != nil {
			p.srv.Close()
		}
	}()
	logf("%s started in %v on 127.0.0.1:%d (pid %d, data in %s)", p.srv.Version(), time.Since(t0).Round(time.Millisecond),
		p.srv.Port(), p.srv.PID(), p.srv.Dir())
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if p.natterURL, err = p.srv.CreateDatabase(ctx, natterDBName); err != nil {
		return nil, err
	}
	if !needPgbench {
		return p, nil
	}
	if p.pgbench, err = findPgbench(p.srv.BinDir()); err != nil {
		return nil, err
	}
	out, err := exec.Command(p.pgbench, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", p.pgbench, err)
	}
	p.version = strings.TrimSpace(string(out))
	benchURL, err := p.srv.CreateDatabase(ctx, pgbenchDBName)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, benchURL)
	if err != nil {
		return nil, err
	}
	_, err = conn.Exec(ctx, pgbenchTable)
	conn.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("create pgbench's table: %w", err)
	}
	p.script = filepath.Join(tmp, "insert.sql")
	if err := os.WriteFile(p.script, []byte(pgbenchScript), 0o644); err != nil {
		return nil, err
	}
	return p, nil
}

// findPgbench prefers the pgbench next to the server's binaries (same version), then
// Debian's /usr/bin/pgbench wrapper, then PATH.
func findPgbench(binDir string) (string, error) {
	for _, p := range []string{filepath.Join(binDir, "pgbench"), "/usr/bin/pgbench"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("-postgres: no pgbench in %s, /usr/bin or PATH; install postgresql-contrib (or the postgresql-client package that has it)", binDir)
}

// close copies the server's log to logCopy (when not empty), then stops the server and
// deletes its directory.
func (p *pgBench) close(logCopy string) error {
	var cpErr error
	if logCopy != "" {
		var b []byte
		if b, cpErr = os.ReadFile(p.srv.LogPath()); cpErr == nil {
			cpErr = os.WriteFile(logCopy, b, 0o644)
		}
	}
	return errors.Join(p.srv.Close(), cpErr)
}

// description names the server and its settings for the report.
func (p *pgBench) description() string {
	v := p.srv.Version()
	if i := strings.Index(v, "PostgreSQL) "); i >= 0 {
		v = "PostgreSQL " + v[i+len("PostgreSQL) "):]
	}
	return fmt.Sprintf("throwaway %s on 127.0.0.1:%d (%s)", v, p.srv.Port(), strings.Join(p.srv.Settings(), ", "))
}

// pgbenchArgs is pgbench's command line for one run of secs seconds; logPrefix, when set,
// turns on its sampled per-transaction log.
func (p *pgBench) pgbenchArgs(conns, secs int, logPrefix string) []string {
	args := []string{"-n", "-c", strconv.Itoa(conns), "-j", strconv.Itoa(min(2, conns)), "-T", strconv.Itoa(secs),
		"-M", "prepared", "-f", p.script, "-h", "127.0.0.1", "-p", strconv.Itoa(p.srv.Port()), "-U", "postgres"}
	if logPrefix != "" {
		args = append(args, "-l", "--sampling-rate", strconv.FormatFloat(pgbenchSampling, 'f', -1, 64), "--log-prefix", logPrefix)
	}
	return append(args, pgbenchDBName)
}

// pgbenchCommandLine is the measured run's command line, for the report.
func (p *pgBench) pgbenchCommandLine(conns int, d time.Duration) string {
	return "pgbench " + strings.Join(p.pgbenchArgs(conns, wholeSeconds(d), "<log>"), " ")
}

func wholeSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// runPgbench runs pgbench's single-row insert against the server: an unrecorded warmup run,
// then the measured one, each with conns clients. Its figures come from pgbench's own output
// (tps without the initial connection time, failed transactions) and its sampled log
// (latency percentiles); the CPU columns cover the measured run's whole life, connections
// included, with pgbench's CPU (from its rusage) in the bench column.
func (p *pgBench) runPgbench(ctx context.Context, cfg loadConfig) (result, error) {
	// pgbench's backends exit after it does; wait for them (up to 5 s) so that each sample
	// sees a settled server, and the measured run's backends are in the second one.
	children := childCount(cfg.pgPID)
	settle := func() {
		for deadline := time.Now().Add(5 * time.Second); childCount(cfg.pgPID) > children && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if cfg.warmup > 0 {
		if _, _, err := p.pgbenchOnce(ctx, p.pgbenchArgs(cfg.conns, wholeSeconds(cfg.warmup), "")); err != nil {
			return result{}, fmt.Errorf("warmup: %w", err)
		}
		settle()
	}
	logPrefix := filepath.Join(p.dir, "pgbench_log")
	before := sampleCPU(0, cfg.pgPID)
	out, usage, err := p.pgbenchOnce(ctx, p.pgbenchArgs(cfg.conns, wholeSeconds(cfg.duration), logPrefix))
	if err == nil {
		settle()
	}
	after := sampleCPU(0, cfg.pgPID)
	if err != nil {
		return result{}, err
	}
	res := result{name: "pgbench-insert", status: map[int]uint64{}, dials: int64(cfg.conns)}
	if err := parsePgbench(out, &res); err != nil {
		return result{}, fmt.Errorf("%w; pgbench said:\n%s", err, out)
	}
	h, sampled, err := readPgbenchLogs(logPrefix)
	if err != nil {
		return result{}, err
	}
	if h.n > 0 {
		res.p50, res.p99, res.mean, res.max = h.quantile(0.50), h.quantile(0.99), h.mean(), time.Duration(h.max)
	}
	_, res.benchCPU, res.busyCPU = after.since(before)
	res.pgCPU = after.pgSince(before)
	if wall := after.at.Sub(before.at).Seconds(); wall > 0 {
		res.benchCPU += usage.Seconds() / wall
	}
	res.notes = fmt.Sprintf("pgbench-insert: `%s` (%s), script `%s`: %d transactions, %d failed; "+
		"pgbench's initial connection time %s ms, its latency average %s ms; p50/p99/mean/max from %d transactions sampled (%.0f%%) in its log.",
		p.pgbenchCommandLine(cfg.conns, cfg.duration), p.version, strings.ReplaceAll(strings.TrimSpace(pgbenchScript), "\n", " "),
		res.requests, res.errors, res.pgConnMS, res.pgLatMS, sampled, 100*pgbenchSampling)
	return res, nil
}

// pgbenchOnce runs pgbench and returns its output and CPU time. It fails when pgbench exits
// non-zero (a client aborted on an error, or it could not connect).
func (p *pgBench) pgbenchOnce(ctx context.Context, args []string) (string, time.Duration, error) {
	cmd := exec.CommandContext(ctx, p.pgbench, args...)
	cmd.Dir = p.dir
	cmd.Env = pgserver.CleanEnv() // no PGHOST, PGOPTIONS, … from the caller
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", 0, ctx.Err()
	}
	var usage time.Duration
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			usage = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	if err != nil {
		return string(out), usage, fmt.Errorf("pgbench %s: %v\n%s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), usage, nil
}

var (
	pgbenchTPS       = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
	pgbenchProcessed = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
	pgbenchFailed    = regexp.MustCompile(`(?m)^number of failed transactions: ([0-9]+)`)
	pgbenchLatency   = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
	pgbenchConnTime  = regexp.MustCompile(`(?m)^initial connection time = ([0-9.]+) ms`)
)

// parsePgbench fills res from pgbench's summary: tps (without initial connection time), the
// transactions processed and failed (PostgreSQL 15's pgbench prints failures; older ones
// abort the client, which makes pgbench exit non-zero).
func parsePgbench(out string, res *result) error {
	m := pgbenchTPS.FindStringSubmatch(out)
	if m == nil {
		return errors.New(`no "tps = … (without initial connection time)" in pgbench's output`)
	}
	tps, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return err
	}
	m = pgbenchProcessed.FindStringSubmatch(out)
	if m == nil {
		return errors.New(`no "number of transactions actually processed" in pgbench's output`)
	}
	res.requests, _ = strconv.ParseUint(m[1], 10, 64)
	if m = pgbenchFailed.FindStringSubmatch(out); m != nil {
		res.errors, _ = strconv.ParseUint(m[1], 10, 64)
		res.requests += res.errors // like the natter rows: requests include errors
	}
	res.rps = tps
	if tps > 0 {
		// pgbench's measured time: the run less its initial connection time.
		res.elapsed = time.Duration(float64(res.requests-res.errors) / tps * float64(time.Second))
	}
	res.pgLatMS, res.pgConnMS = "?", "?"
	if m = pgbenchLatency.FindStringSubmatch(out); m != nil {
		res.pgLatMS = m[1]
	}
	if m = pgbenchConnTime.FindStringSubmatch(out); m != nil {
		res.pgConnMS = m[1]
	}
	if res.errors > 0 {
		res.firstErr = fmt.Sprintf("pgbench reported %d failed transactions", res.errors)
	}
	return nil
}

// readPgbenchLogs merges pgbench's per-transaction logs (prefix.PID and prefix.PID.THREAD,
// one line per sampled transaction: client_id transaction_no time_µs script_no epoch µs)
// into a histogram. Failed or skipped transactions have a word for time and are left out.
func readPgbenchLogs(prefix string) (*hist, uint64, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil {
		return nil, 0, err
	}
	h := &hist{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseUint(fields[2], 10, 64)
			if err != nil {
				continue
			}
			h.record(time.Duration(us) * time.Microsecond)
		}
		err = sc.Err()
		fh.Close()
		os.Remove(f)
		if err != nil {
			return nil, 0, err
		}
	}
	return h, h.n, nil
}

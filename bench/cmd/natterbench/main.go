// Command natterbench is natter's load-benchmark harness. It starts natter on a loopback
// port over a fresh SQLite file (or, with -postgres, a throwaway PostgreSQL server it starts
// itself, or a given loopback PostgreSQL URL), seeds users and messages through the REST API,
// drives closed-loop HTTP/1.1 load at a few endpoints and at a bare net/http handler (the
// machine's ceiling), with -postgres also runs pgbench's single-row insert against the same
// server, and prints requests/s and latency percentiles. Run it through bench/run.sh; see
// bench/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// defaultAPIKey is the fullAccess key natter is started with (NATTER_API_KEY).
const defaultAPIKey = "be7c4a11d00dfeedbe7c4a11d00dfeedbe7c4a11"

// defaultNatterDBConns is natter's PostgreSQL pool size (NATTER_DB_MAX_CONNS) in -postgres mode.
const defaultNatterDBConns = 16

var (
	allScenarios = []string{"bare", "pgbench-insert", "add-reaction", "send-message", "get-message", "history", "conversations", "mixed", "group-send", "group-reaction",
		"long-get", "long-history", "long-send", "long-reaction", "hub-conversations"}
	defaultScenarios  = []string{"bare", "add-reaction", "send-message", "get-message", "group-send", "group-reaction"}
	postgresScenarios = []string{"bare", "pgbench-insert", "add-reaction", "send-message", "get-message", "group-send", "group-reaction"}
)

type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*s = append(*s, v)
	return nil
}

type options struct {
	natterBin   string
	database    string
	postgres    bool // start a throwaway PostgreSQL server for natter and pgbench
	natterConns int  // NATTER_DB_MAX_CONNS; 0 leaves natter's default
	host        string
	apiKey      string
	duration    time.Duration
	warmup      time.Duration
	conns       int
	users       int
	messages    int
	seedConns   int
	sockets     int // open during mixed
	longMsgs    int // issue 39's long conversation (shapes.go)
	hubConvs    int // the hub's conversations besides the long one (shapes.go)
	maxRequests uint64
	scenarios   []string
	out         string
	natterEnv   stringList
	command     string
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("natterbench", flag.ContinueOnError)
	fs.StringVar(&o.natterBin, "natter", "", "path to a built natter binary (required; bench/run.sh builds one)")
	fs.StringVar(&o.database, "database", "", "natter's database: empty for a fresh SQLite file in a temp dir, or a loopback postgres://… URL of an EMPTY database")
	fs.BoolVar(&o.postgres, "postgres", false, "start a throwaway PostgreSQL server, run natter on it, and compare with pgbench's single-row insert on the same server")
	fs.IntVar(&o.natterConns, "natter-db-conns", defaultNatterDBConns, "natter's database pool size, NATTER_DB_MAX_CONNS (1 to 256); set with -postgres, otherwise only when given")
	fs.StringVar(&o.host, "host", "127.0.0.1", "loopback address natter and the bare server listen on")
	fs.StringVar(&o.apiKey, "api-key", defaultAPIKey, "fullAccess key natter is started with (NATTER_API_KEY)")
	fs.DurationVar(&o.duration, "duration", 15*time.Second, "measured time per scenario (1s to 120s)")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unrecorded warmup per scenario, on the same connections (0 to 10s)")
	fs.IntVar(&o.conns, "conns", 64, "concurrent connections, one closed loop each (1 to 512)")
	fs.IntVar(&o.users, "users", 2000, "users to seed (2 to 100000)")
	fs.IntVar(&o.messages, "messages", 10000, "one-to-one messages to seed (1 to 1000000); 10000 gives 400000 (message, participant, reaction) triples, so that add-reaction keeps adding new rows at ~20k requests/s")
	fs.IntVar(&o.seedConns, "seed-conns", 8, "concurrent requests while seeding (1 to 64)")
	fs.IntVar(&o.sockets, "sockets", 200, "real-time sockets open during mixed, one for each of the first seeded users (0 to 5000; no more than -users are opened)")
	fs.IntVar(&o.longMsgs, "long-messages", 20000, "messages in the long conversation the long-* scenarios use (100 to 1000000)")
	fs.IntVar(&o.hubConvs, "hub-conversations", 1000, "conversations of the hub besides the long one, for hub-conversations (1 to 100000)")
	fs.Uint64Var(&o.maxRequests, "max-requests", 5_000_000, "request cap per scenario, warmup included (1 to 50000000)")
	scen := fs.String("scenarios", "", "comma-separated scenarios to run, in the order given: some of "+strings.Join(allScenarios, ", ")+
		" (default "+strings.Join(defaultScenarios, ",")+"; with -postgres "+strings.Join(postgresScenarios, ",")+")")
	fs.StringVar(&o.out, "out", "bench/out/results.md", "Markdown report path (its directory is created)")
	fs.Var(&o.natterEnv, "natter-env", "extra KEY=VALUE for natter's environment (repeatable; applied last)")
	fs.StringVar(&o.command, "command", "", "the command line to print in the report (bench/run.sh sets it)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !o.postgres && !set["natter-db-conns"] {
		o.natterConns = 0 // natter's own default, as before -natter-db-conns existed
	}
	switch {
	case o.natterBin == "":
		return o, errors.New("-natter is required")
	case o.duration < time.Second || o.duration > 120*time.Second:
		return o, errors.New("-duration must be 1s to 120s")
	case o.warmup < 0 || o.warmup > 10*time.Second:
		return o, errors.New("-warmup must be 0 to 10s")
	case o.conns < 1 || o.conns > 512:
		return o, errors.New("-conns must be 1 to 512")
	case o.users < 2 || o.users > 100_000:
		return o, errors.New("-users must be 2 to 100000")
	case o.messages < 1 || o.messages > 1_000_000:
		return o, errors.New("-messages must be 1 to 1000000")
	case o.seedConns < 1 || o.seedConns > 64:
		return o, errors.New("-seed-conns must be 1 to 64")
	case o.sockets < 0 || o.sockets > 5000:
		return o, errors.New("-sockets must be 0 to 5000")
	case o.longMsgs < 100 || o.longMsgs > 1_000_000:
		return o, errors.New("-long-messages must be 100 to 1000000")
	case o.hubConvs < 1 || o.hubConvs > 100_000:
		return o, errors.New("-hub-conversations must be 1 to 100000")
	case o.maxRequests < 1 || o.maxRequests > 50_000_000:
		return o, errors.New("-max-requests must be 1 to 50000000")
	case !isLoopbackHost(o.host):
		return o, fmt.Errorf("-host %q is not a loopback address; only loopback may be load-tested", o.host)
	case len(o.apiKey) < 16:
		return o, errors.New("-api-key must be at least 16 characters")
	case set["natter-db-conns"] && (o.natterConns < 1 || o.natterConns > 256):
		return o, errors.New("-natter-db-conns must be 1 to 256")
	case o.postgres && o.database != "":
		return o, errors.New("-postgres starts its own server; do not give -database with it")
	}
	if o.database != "" {
		if err := checkDatabase(o.database); err != nil {
			return o, err
		}
	}
	for _, kv := range o.natterEnv {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "NATTER_") && k != "GOMAXPROCS" && k != "GOGC" && k != "GOMEMLIMIT" && k != "GODEBUG" {
			return o, fmt.Errorf("-natter-env %q: only NATTER_* and GOMAXPROCS/GOGC/GOMEMLIMIT/GODEBUG may be set", kv)
		}
	}
	if !set["scenarios"] {
		*scen = strings.Join(defaultScenarios, ",")
		if o.postgres {
			*scen = strings.Join(postgresScenarios, ",")
		}
	}
	for _, s := range strings.Split(*scen, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		known := false
		for _, a := range allScenarios {
			known = known || a == s
		}
		if !known {
			return o, fmt.Errorf("-scenarios: unknown scenario %q (want some of %s)", s, strings.Join(allScenarios, ","))
		}
		o.scenarios = append(o.scenarios, s)
	}
	if len(o.scenarios) == 0 {
		return o, errors.New("-scenarios is empty")
	}
	if o.runs("pgbench-insert") {
		switch {
		case !o.postgres:
			return o, errors.New("-scenarios pgbench-insert needs -postgres (pgbench runs against the harness's own PostgreSQL server)")
		case o.duration%time.Second != 0:
			return o, fmt.Errorf("-duration %v: with pgbench-insert it must be whole seconds (pgbench -T)", o.duration)
		}
	}
	if o.command == "" {
		o.command = strings.Join(os.Args, " ")
	}
	return o, nil
}

// runs reports whether scenario name is to be run.
func (o options) runs(name string) bool {
	for _, s := range o.scenarios {
		if s == name {
			return true
		}
	}
	return false
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "natterbench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "natterbench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "natterbench: "+format+"\n", args...)
}

func run(ctx context.Context, o options) (err error) {
	started := time.Now()
	machine := getMachineInfo()
	machine.loadStart = loadAvg1()
	if machine.loadStart > 0.5 {
		logf("warning: the machine is busy (1-minute load average %.2f on %d CPUs); figures will be noisy", machine.loadStart, machine.nproc)
	}
	tmp, err := os.MkdirTemp("", "natterbench-")
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	outDir := filepath.Dir(o.out)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	var pg *pgBench
	var natterEnv []string // the harness's additions to natter's environment
	database := o.database
	if o.postgres {
		logf("starting a throwaway PostgreSQL server")
		if pg, err = startPostgres(ctx, tmp, o.runs("pgbench-insert")); err != nil {
			return err
		}
		defer func() {
			// After natter has stopped (defers run last-in, first-out).
			pgLog := filepath.Join(outDir, "postgres.log")
			if closeErr := pg.close(pgLog); closeErr != nil {
				logf("stopping PostgreSQL: %v", closeErr)
				if err == nil {
					err = closeErr
				}
			} else {
				logf("PostgreSQL stopped and its directory removed; its log is %s", pgLog)
			}
		}()
		natterEnv = append(natterEnv, "NATTER_DATABASE_URL="+pg.natterURL)
	} else if database == "" {
		database = "sqlite:" + filepath.Join(tmp, "natter.db")
	}
	if o.natterConns > 0 {
		natterEnv = append(natterEnv, "NATTER_DB_MAX_CONNS="+strconv.Itoa(o.natterConns))
	}
	if o.runs("mixed") {
		// mixed's webhook receiver listens on the loopback, which natter refuses by default.
		natterEnv = append(natterEnv, "NATTER_WEBHOOK_ALLOW_PRIVATE=true")
	}
	shownDB := redactDB(database)
	if pg != nil {
		shownDB = pg.natterURL + " via NATTER_DATABASE_URL, " + pg.description()
	}
	logPath := filepath.Join(outDir, "natter.log")

	logf("starting natter (%s) on %s, database %s", o.natterBin, o.host, shownDB)
	nat, err := startNatter(ctx, o.natterBin, o.host, database, o.apiKey, natterEnv, o.natterEnv, logPath)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			if stopErr := nat.stop(); stopErr != nil && err == nil {
				err = stopErr
			}
		}
	}()
	logf("natter ready at %s (pid %d); its log is %s", nat.base, nat.cmd.Process.Pid, logPath)

	a := newAPI(nat.base, o.apiKey, o.seedConns)
	if err := a.do(ctx, "GET", "/v3/users?perPage=1", "", nil, nil); err != nil {
		return fmt.Errorf("the API key is not accepted; NATTER_API_KEY only takes effect on an empty database: %w", err)
	}
	tag := "nb" + strconv.FormatInt(time.Now().Unix(), 36)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	seedStart := time.Now()
	logf("seeding %d users and %d messages (%d concurrent)", o.users, o.messages, o.seedConns)
	data, err := seed(ctx, a, tag, o.users, o.messages, o.seedConns, rng)
	var group groupData
	if err == nil && (o.runs("group-send") || o.runs("group-reaction")) {
		logf("seeding a %d-member group with %d messages", groupSize, groupMsgs)
		group, err = seedGroup(ctx, a, tag, &data, o.seedConns)
	}
	var shapes shapeData
	if err == nil && o.runsShapes() {
		logf("seeding issue 39's shapes: a %d-message conversation, its user in %d conversations", o.longMsgs, o.hubConvs+1)
		shapeStart := time.Now()
		shapes, err = seedShapes(ctx, a, tag, o.longMsgs, o.hubConvs, o.seedConns)
		logf("shapes seeded in %v", time.Since(shapeStart).Round(time.Millisecond))
	}
	a.client.CloseIdleConnections() // the load's own connections start from nothing
	if err != nil {
		return err
	}
	seedTook := time.Since(seedStart)
	logf("seeded in %v (%.0f requests/s)", seedTook.Round(time.Millisecond), float64(o.users+o.messages)/seedTook.Seconds())

	bare, bareBase, err := startBare(o.host)
	if err != nil {
		return fmt.Errorf("start the bare server: %w", err)
	}
	defer bare.Close()

	cfg := loadConfig{conns: o.conns, duration: o.duration, warmup: o.warmup, maxRequests: o.maxRequests, apiKey: o.apiKey}
	if pg != nil {
		cfg.pgPID = pg.srv.PID()
	}
	var results []result
	for _, name := range o.scenarios {
		var sc *scenario
		c := cfg
		switch name {
		case "pgbench-insert":
			warm := "no warmup"
			if o.warmup > 0 {
				warm = fmt.Sprintf("after an unrecorded %ds run", wholeSeconds(o.warmup))
			}
			logf("running %s: %s (%s)", name, pg.pgbenchCommandLine(o.conns, o.duration), warm)
			res, err := pg.runPgbench(ctx, c)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			logf("  %s: %.0f tps, p50 %s ms, p99 %s ms, %d failed", name, res.rps, ms(res.p50), ms(res.p99), res.errors)
			results = append(results, res)
			continue
		case "bare":
			sc = bareScenario(bareBase, &data)
		case "add-reaction":
			sc, c.natterPID = addReactionScenario(nat.base, &data), nat.cmd.Process.Pid
		case "send-message":
			sc, c.natterPID = sendMessageScenario(nat.base, &data), nat.cmd.Process.Pid
		case "get-message":
			sc, c.natterPID = getMessageScenario(nat.base, &data), nat.cmd.Process.Pid
		case "history":
			sc, c.natterPID = historyScenario(nat.base, &data), nat.cmd.Process.Pid
		case "conversations":
			sc, c.natterPID = conversationsScenario(nat.base, &data), nat.cmd.Process.Pid
		case "mixed":
			logf("mixed: subscribing a webhook to message_sent and opening %d sockets", o.sockets)
			env, err := startMixed(ctx, a, o.host, &data, o.sockets, o.seedConns)
			if err != nil {
				return err
			}
			defer env.close()
			a.client.CloseIdleConnections()
			sc, c.natterPID = mixedScenario(nat.base, &data, env), nat.cmd.Process.Pid
		case "group-send":
			sc, c.natterPID = groupSendScenario(nat.base, &group), nat.cmd.Process.Pid
		case "group-reaction":
			sc, c.natterPID = groupReactionScenario(nat.base, &group), nat.cmd.Process.Pid
		case "long-get":
			sc, c.natterPID = longGetScenario(nat.base, &shapes), nat.cmd.Process.Pid
		case "long-history":
			sc, c.natterPID = longHistoryScenario(nat.base, &shapes), nat.cmd.Process.Pid
		case "long-send":
			sc, c.natterPID = longSendScenario(nat.base, &shapes), nat.cmd.Process.Pid
		case "long-reaction":
			sc, c.natterPID = longReactionScenario(nat.base, &shapes), nat.cmd.Process.Pid
		case "hub-conversations":
			sc, c.natterPID = hubConversationsScenario(nat.base, &shapes), nat.cmd.Process.Pid
		}
		logf("running %s: %d conns, %v warmup + %v", name, o.conns, o.warmup, o.duration)
		var waits *waitSampler
		if pg != nil && name != "bare" {
			waits = startWaits(ctx, pg.natterURL)
		}
		res, err := runScenario(ctx, sc, c)
		waitNote := waits.stop(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if waitNote != "" {
			logf("  %s", waitNote)
			res.notes = strings.TrimSpace(res.notes + "\n" + waitNote)
		}
		logf("  %s: %.0f req/s, p50 %s ms, p99 %s ms, %d errors", name, res.rps, ms(res.p50), ms(res.p99), res.errors)
		if sc.verify != nil {
			note, err := sc.verify(ctx, a, res)
			if err != nil {
				return err
			}
			logf("  %s", note)
			res.notes = strings.TrimSpace(res.notes + "\n" + note)
		}
		results = append(results, res)
	}

	bare.Close()
	stopped = true
	stopErr := nat.stop()
	if stopErr != nil {
		logf("stopping natter: %v", stopErr)
	} else {
		logf("natter stopped with SIGTERM and exited 0")
	}

	rep := report{opts: o, machine: machine, results: results, database: shownDB, postgres: pg != nil,
		seedTook: seedTook, total: time.Since(started), natterExit: stopErr, loadEnd: loadAvg1()}
	fmt.Print(rep.text())
	if err := os.WriteFile(o.out, []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	logf("wrote %s", o.out)
	if stopErr != nil {
		return stopErr
	}
	return nil
}

// redactDB hides a PostgreSQL password in printed URLs.
func redactDB(db string) string {
	if i := strings.Index(db, "://"); i >= 0 {
		if at := strings.Index(db[i+3:], "@"); at >= 0 {
			cred := db[i+3 : i+3+at]
			if user, _, ok := strings.Cut(cred, ":"); ok {
				return db[:i+3] + user + ":***" + db[i+3+at:]
			}
		}
	}
	return db
}

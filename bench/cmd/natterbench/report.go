package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// Targets for add-reaction on the 2-core reference machine (bench/README.md).
const (
	targetRatio        = 0.25 // of the bare handler, on SQLite
	targetPgbenchRatio = 0.50 // of pgbench's single-row insert, on PostgreSQL (-postgres)
	targetP99          = 20 * time.Millisecond
)

type report struct {
	opts       options
	machine    machineInfo
	results    []result
	database   string
	seedTook   time.Duration
	total      time.Duration
	natterExit error
	loadEnd    float64
	postgres   bool // -postgres: a throwaway server, PostgreSQL CPU column, pgbench comparison
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
}

func (r report) bareRPS() float64 {
	for _, x := range r.results {
		if x.name == "bare" {
			return x.rps
		}
	}
	return 0
}

func (r report) pgbenchRPS() float64 {
	for _, x := range r.results {
		if x.name == "pgbench-insert" {
			return x.rps
		}
	}
	return 0
}

func (r report) ratio(x result) string { return ratioOf(x.rps, r.bareRPS()) }

func ratioOf(v, base float64) string {
	if base == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v/base)
}

func cores(f float64) string { return fmt.Sprintf("%.2f", f) }

func (r report) natterCPU(x result) string {
	if x.name == "bare" || x.name == "pgbench-insert" {
		return "–"
	}
	return cores(x.natterCPU)
}

// rows is the main table: header first. -postgres adds the vs pgbench and postgres CPU
// columns.
func (r report) rows() [][]string {
	head := []string{"scenario", "requests/s", "p50 ms", "p99 ms", "errors", "vs bare"}
	if r.postgres {
		head = append(head, "vs pgbench")
	}
	head = append(head, "natter CPU")
	if r.postgres {
		head = append(head, "postgres CPU")
	}
	rows := [][]string{append(head, "bench CPU", "other CPU")}
	for _, x := range r.results {
		errs := fmt.Sprint(x.errors)
		if s := statusSummary(x); s != "" {
			errs += " (" + s + ")"
		}
		row := []string{x.name, fmt.Sprintf("%.0f", x.rps), ms(x.p50), ms(x.p99), errs, r.ratio(x)}
		if r.postgres {
			row = append(row, ratioOf(x.rps, r.pgbenchRPS()))
		}
		row = append(row, r.natterCPU(x))
		if r.postgres {
			row = append(row, cores(x.pgCPU))
		}
		rows = append(rows, append(row, cores(x.benchCPU), cores(max(0, x.busyCPU-x.natterCPU-x.pgCPU-x.benchCPU))))
	}
	return rows
}

func (r report) detailRows() [][]string {
	rows := [][]string{{"scenario", "requests", "window s", "mean ms", "max ms", "CPU µs/req", "vs bare per CPU", "server µs/req", "× bare", "conns dialed", "stopped by"}}
	var bare float64
	for _, x := range r.results {
		if x.name == "bare" {
			bare = cpuPerReq(x)
		}
	}
	bareServer := bare // the bare row's server shares the harness's process: its whole CPU
	for _, x := range r.results {
		by := "duration"
		if x.capped {
			by = "-max-requests"
		}
		c, vs := cpuPerReq(x), "n/a"
		if c > 0 && bare > 0 {
			vs = fmt.Sprintf("%.1f%%", 100*bare/c)
		}
		sv, times := serverPerReq(x), "n/a"
		if x.name == "bare" {
			sv = bareServer
		}
		if sv > 0 && bareServer > 0 && x.name != "pgbench-insert" {
			times = fmt.Sprintf("%.1f", sv/bareServer)
		}
		rows = append(rows, []string{x.name, fmt.Sprint(x.requests), fmt.Sprintf("%.2f", x.elapsed.Seconds()),
			ms(x.mean), ms(x.max), fmt.Sprintf("%.0f", c), vs, fmt.Sprintf("%.0f", sv), times, fmt.Sprint(x.dials), by})
	}
	return rows
}

// kindRows splits the mixed rows by kind of request: header first; nil without a mixed row.
func (r report) kindRows() [][]string {
	var rows [][]string
	for _, x := range r.results {
		if len(x.kinds) == 0 {
			continue
		}
		if rows == nil {
			rows = [][]string{{"scenario", "kind", "share", "requests/s", "p50 ms", "p99 ms", "mean ms", "errors"}}
		}
		for _, k := range x.kinds {
			rows = append(rows, []string{x.name, k.name, fmt.Sprintf("%.1f%%", 100*float64(k.requests)/float64(max(x.requests, 1))),
				fmt.Sprintf("%.0f", float64(k.requests)/x.elapsed.Seconds()), ms(k.p50), ms(k.p99), ms(k.mean), fmt.Sprint(k.errors)})
		}
	}
	return rows
}

// cpuPerReq is the CPU time, in µs, natter, PostgreSQL (if any) and the load generator spent
// per request: a figure that other load on the machine disturbs far less than requests/s.
func cpuPerReq(x result) float64 {
	if x.rps == 0 {
		return 0
	}
	return (x.natterCPU + x.pgCPU + x.benchCPU) / x.rps * 1e6
}

// serverPerReq is the CPU time, in µs, the server side spent per request: natter, plus
// PostgreSQL on PostgreSQL, without the load generator. Issue 39 states its targets as this
// figure over the bare row's (whose server shares the harness's process, so its figure is
// the harness's whole CPU: the bare handler and the generator together).
func serverPerReq(x result) float64 {
	if x.rps == 0 {
		return 0
	}
	return (x.natterCPU + x.pgCPU) / x.rps * 1e6
}

// targets checks add-reaction against the README's targets.
func (r report) targets() []string {
	var x *result
	for i := range r.results {
		if r.results[i].name == "add-reaction" {
			x = &r.results[i]
		}
	}
	if x == nil {
		return []string{"add-reaction was not run; targets not checked."}
	}
	mark := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	var out []string
	if r.postgres {
		// On PostgreSQL the ceiling that counts is the database's own insert rate.
		if p := r.pgbenchRPS(); p > 0 {
			at := ""
			if r.opts.conns != 64 {
				at = fmt.Sprintf(" (this run used %d connections; the target is stated for 64)", r.opts.conns)
			}
			out = append(out, fmt.Sprintf("%s  add-reaction requests/s ≥ 50%% of pgbench-insert tps at %d connections: %.1f%% (%.0f vs %.0f)%s",
				mark(x.rps/p >= targetPgbenchRatio), r.opts.conns, 100*x.rps/p, x.rps, p, at))
		} else {
			out = append(out, "n/a   add-reaction vs pgbench-insert: pgbench-insert was not run")
		}
		if b := r.bareRPS(); b > 0 {
			out = append(out, fmt.Sprintf("info  add-reaction requests/s vs bare: %.1f%% (the ≥ 25%% target applies to SQLite runs)", 100*x.rps/b))
		}
	} else if b := r.bareRPS(); b > 0 {
		out = append(out, fmt.Sprintf("%s  add-reaction requests/s ≥ 25%% of bare: %.1f%%", mark(x.rps/b >= targetRatio), 100*x.rps/b))
	} else {
		out = append(out, "n/a   add-reaction vs bare: bare was not run")
	}
	out = append(out,
		fmt.Sprintf("%s  add-reaction p99 ≤ 20 ms: %s ms", mark(x.p99 <= targetP99), ms(x.p99)),
		fmt.Sprintf("%s  add-reaction errors = 0: %d", mark(x.errors == 0), x.errors))
	for _, y := range r.results {
		if y.name == "pgbench-insert" {
			out = append(out, fmt.Sprintf("%s  pgbench-insert failed transactions = 0: %d", mark(y.errors == 0), y.errors))
		}
	}
	return out
}

func (r report) notes() []string {
	var out []string
	for _, x := range r.results {
		if x.notes != "" {
			out = append(out, strings.Split(x.notes, "\n")...)
		}
		if x.warmErrs > 0 {
			out = append(out, fmt.Sprintf("%s: %d warmup requests failed (not counted in the table).", x.name, x.warmErrs))
		}
		if x.firstErr != "" {
			out = append(out, fmt.Sprintf("%s: first error: %s", x.name, x.firstErr))
		}
		if x.name != "pgbench-insert" && x.dials > int64(r.opts.conns) {
			out = append(out, fmt.Sprintf("%s: %d connections dialed for %d loops: some keep-alive connections were closed and redialed "+
				"(net/http's client drops a connection when its request write is not confirmed within 50 ms of the response, which CPU starvation can cause).", x.name, x.dials, r.opts.conns))
		}
	}
	if busy := r.machine.loadStart; busy > 0.5 {
		out = append(out, fmt.Sprintf("The machine was not idle: 1-minute load average %.2f at the start and %.2f at the end on %d CPUs. "+
			"requests/s and latencies are depressed by the other load (see the other CPU column); CPU µs/req is less disturbed, though not immune.",
			r.machine.loadStart, r.loadEnd, r.machine.nproc))
	}
	if r.natterExit != nil {
		out = append(out, "natter did not stop cleanly: "+r.natterExit.Error())
	} else {
		out = append(out, "natter stopped on SIGTERM with exit status 0.")
	}
	return out
}

// cpuLegend explains the CPU columns, its sentences joined by sep.
func (r report) cpuLegend(sep string) string {
	if !r.postgres {
		return strings.Join([]string{"CPU columns are cores used during the measured window (CPU-seconds per second, from /proc):",
			"natter = the natter process, bench = this process (load generator; the bare server in the bare row, the webhook receiver and the sockets in the mixed row),",
			"other = the rest of the machine. CPU µs/req = (natter + bench CPU) per request; vs bare per CPU compares it with the bare row's.",
			"server µs/req = natter's CPU alone per request (the bare row: its whole CPU, handler and generator); × bare = server µs/req ÷ the bare row's, issue 39's measure."}, sep)
	}
	return strings.Join([]string{"CPU columns are cores used during the measured window (CPU-seconds per second, from /proc):",
		"natter = the natter process; postgres = the postmaster and all its backends and workers, summed;",
		"bench = this process (load generator; the bare server in the bare row, the webhook receiver and the sockets in the mixed row), in the pgbench-insert row pgbench's own CPU",
		"(from its rusage; that row's window is pgbench's whole run, connections included); other = the rest of the machine.",
		"CPU µs/req = (natter + postgres + bench CPU) per request; vs bare per CPU compares it with the bare row's.",
		"server µs/req = (natter + postgres CPU) per request (the bare row: its whole CPU, handler and generator); × bare = server µs/req ÷ the bare row's, issue 39's measure.",
		"vs pgbench = requests/s ÷ pgbench-insert's tps (without initial connection time)."}, sep)
}

func (r report) settings() string {
	o := r.opts
	env := "none"
	if len(o.natterEnv) > 0 {
		env = strings.Join(o.natterEnv, " ")
	}
	pool := "natter's default"
	if o.natterConns > 0 {
		pool = fmt.Sprintf("NATTER_DB_MAX_CONNS=%d", o.natterConns)
	}
	mixed := ""
	if o.runs("mixed") {
		mixed = fmt.Sprintf(", %d sockets and one webhook during mixed", min(o.sockets, o.users))
	}
	return fmt.Sprintf("conns %d, %v warmup + %v measured per scenario, %d users, %d messages seeded in %v%s, database %s, natter pool %s, extra natter env: %s; total run %v",
		o.conns, o.warmup, o.duration, o.users, o.messages, r.seedTook.Round(time.Millisecond), mixed, r.database, pool, env, r.total.Round(time.Second))
}

func (r report) machineLine() string {
	m := r.machine
	return fmt.Sprintf("nproc %d (GOMAXPROCS %d), %s, %s, Linux %s, %s, load average %.2f at start / %.2f at end",
		m.nproc, m.gomaxprocs, m.cpuModel, m.goVersion, m.kernel, m.date, m.loadStart, r.loadEnd)
}

func (r report) text() string {
	var b strings.Builder
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range r.rows() {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range r.detailRows() {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	if rows := r.kindRows(); rows != nil {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	b.WriteString("\nTargets (add-reaction" + r.targetsOn() + "):\n")
	for _, t := range r.targets() {
		b.WriteString("  " + t + "\n")
	}
	b.WriteString("\nNotes:\n")
	for _, n := range r.notes() {
		b.WriteString("  " + n + "\n")
	}
	b.WriteString("\n" + r.cpuLegend("\n") + "\n")
	b.WriteString("\nSettings: " + r.settings() + "\n")
	b.WriteString("Machine:  " + r.machineLine() + "\n")
	b.WriteString("Command:  " + r.opts.command + "\n\n")
	return b.String()
}

func mdTable(b *strings.Builder, rows [][]string) {
	for i, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if i == 0 {
			seps := make([]string, len(row))
			for j := range seps {
				seps[j] = "---"
				if j > 0 {
					seps[j] = "---:"
				}
			}
			b.WriteString("| " + strings.Join(seps, " | ") + " |\n")
		}
	}
}

func (r report) markdown() string {
	var b strings.Builder
	b.WriteString("# natter load benchmark\n\n")
	fmt.Fprintf(&b, "Command: `%s`  \nDate: %s\n\n", r.opts.command, r.machine.date)
	mdTable(&b, r.rows())
	b.WriteString("\n")
	mdTable(&b, r.detailRows())
	if rows := r.kindRows(); rows != nil {
		b.WriteString("\n")
		mdTable(&b, rows)
	}
	b.WriteString("\n" + r.cpuLegend(" ") + "\n")
	b.WriteString("\n## Targets (add-reaction" + r.targetsOn() + ")\n\n")
	for _, t := range r.targets() {
		b.WriteString("- " + t + "\n")
	}
	b.WriteString("\n## Notes\n\n")
	for _, n := range r.notes() {
		b.WriteString("- " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	b.WriteString("\n## Settings\n\n" + r.settings() + "\n")
	m := r.machine
	fmt.Fprintf(&b, "\n## Machine\n\n- nproc: %d (GOMAXPROCS %d)\n- CPU: %s\n- Go: %s\n- Linux: %s\n- Date: %s\n- 1-minute load average: %.2f at start, %.2f at end\n",
		m.nproc, m.gomaxprocs, m.cpuModel, m.goVersion, m.kernel, m.date, m.loadStart, r.loadEnd)
	return b.String()
}

func (r report) targetsOn() string {
	if r.postgres {
		return ", PostgreSQL"
	}
	return ""
}

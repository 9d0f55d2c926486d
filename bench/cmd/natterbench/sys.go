package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc's CPU times; 100 on every mainstream
// architecture (sysconf(_SC_CLK_TCK) would need cgo).
const clockTick = 100

// cpuSample is the CPU time, in clock ticks, used so far by natter, by PostgreSQL (in
// -postgres mode), by this process, and by the whole machine (busy = everything but idle and
// iowait).
type cpuSample struct {
	at                        time.Time
	natter, pg, self, busy    uint64
	natterOK, pgOK, machineOK bool
}

// sampleCPU samples natter's process (natterPID > 0) and PostgreSQL's postmaster and its
// children (pgPID > 0).
func sampleCPU(natterPID, pgPID int) cpuSample {
	s := cpuSample{at: time.Now()}
	if natterPID > 0 {
		s.natter, s.natterOK = procTicks(strconv.Itoa(natterPID))
	}
	if pgPID > 0 {
		s.pg, s.pgOK = pgTicks(pgPID)
	}
	s.self, _ = procTicks("self")
	s.busy, s.machineOK = machineBusy()
	return s
}

// since returns the cores used (CPU seconds per wall second) between b and s.
func (s cpuSample) since(b cpuSample) (natter, self, busy float64) {
	wall := s.at.Sub(b.at).Seconds()
	if wall <= 0 {
		return 0, 0, 0
	}
	cores := func(d uint64) float64 { return float64(d) / clockTick / wall }
	if s.natterOK && b.natterOK {
		natter = cores(s.natter - b.natter)
	}
	self = cores(s.self - b.self)
	if s.machineOK && b.machineOK {
		busy = cores(s.busy - b.busy)
	}
	return natter, self, busy
}

// pgSince returns the cores PostgreSQL used between b and s.
func (s cpuSample) pgSince(b cpuSample) float64 {
	wall := s.at.Sub(b.at).Seconds()
	if wall <= 0 || !s.pgOK || !b.pgOK {
		return 0
	}
	return float64(s.pg-b.pg) / clockTick / wall
}

// procStat reads /proc/<pid>/stat's ppid, utime+stime and cutime+cstime (the CPU of waited-for
// children).
func procStat(pid string) (ppid int, self, children uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces; fields after it
	// start at 3, so ppid (4) is the 2nd after the ')', utime (14), stime (15), cutime (16)
	// and cstime (17) the 12th to 15th.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, 0, 0, false
	}
	var v [4]uint64
	for j := range v {
		if v[j], err = strconv.ParseUint(f[11+j], 10, 64); err != nil {
			return 0, 0, 0, false
		}
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, v[0] + v[1], v[2] + v[3], err == nil
}

// procTicks reads utime+stime of /proc/<pid>/stat.
func procTicks(pid string) (uint64, bool) {
	_, t, _, ok := procStat(pid)
	return t, ok
}

// childCount is how many processes have ppid as their parent.
func childCount(ppid int) int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range dirs {
		if name := d.Name(); name[0] >= '0' && name[0] <= '9' {
			if p, _, _, ok := procStat(name); ok && p == ppid {
				n++
			}
		}
	}
	return n
}

// pgTicks is the CPU time of a PostgreSQL server: its postmaster's, including the backends and
// workers that have exited (the postmaster waits for them, so they are in its cutime and
// cstime), plus that of the postmaster's live children.
//
// A child reaped while /proc is being scanned would be missed (gone from /proc, but not yet in
// the cutime read before the scan) or counted twice, so the scan is repeated until the
// postmaster's cutime+cstime is the same before and after it. That matters after pgbench,
// whose 64 backends exit just as the sample is taken.
func pgTicks(postmaster int) (uint64, bool) {
	pm := strconv.Itoa(postmaster)
	for attempt := 0; attempt < 50; attempt++ {
		_, self, exited, ok := procStat(pm)
		if !ok {
			return 0, false
		}
		dirs, err := os.ReadDir("/proc")
		if err != nil {
			return 0, false
		}
		var live uint64
		for _, d := range dirs {
			name := d.Name()
			if name[0] < '0' || name[0] > '9' {
				continue
			}
			if ppid, t, c, ok := procStat(name); ok && ppid == postmaster {
				live += t + c
			}
		}
		if _, _, exited2, ok := procStat(pm); ok && exited2 == exited {
			return self + exited + live, true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0, false
}

// machineBusy sums the non-idle columns of /proc/stat's "cpu" line.
func machineBusy() (uint64, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, false
	}
	var busy uint64
	for i, v := range fields[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest times are already in user
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	return busy, true
}

// machineInfo is what the report says about where it ran.
type machineInfo struct {
	nproc      int
	gomaxprocs int
	cpuModel   string
	goVersion  string
	kernel     string
	date       string
	loadStart  float64
}

// loadAvg1 is the 1-minute load average.
func loadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func getMachineInfo() machineInfo {
	m := machineInfo{nproc: runtime.NumCPU(), gomaxprocs: runtime.GOMAXPROCS(0), cpuModel: "unknown",
		goVersion: runtime.Version(), date: time.Now().UTC().Format("2006-01-02 15:04:05 UTC")}
	if out, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			m.nproc = n
		}
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpuModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if out, err := exec.Command("go", "version").Output(); err == nil {
		m.goVersion = strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	return m
}

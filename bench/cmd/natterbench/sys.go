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

// cpuSample is the CPU time, in clock ticks, used so far by natter, by this process, and by
// the whole machine (busy = everything but idle and iowait).
type cpuSample struct {
	at                  time.Time
	natter, self, busy  uint64
	natterOK, machineOK bool
}

func sampleCPU(natterPID int) cpuSample {
	s := cpuSample{at: time.Now()}
	if natterPID > 0 {
		s.natter, s.natterOK = procTicks(strconv.Itoa(natterPID))
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

// procTicks reads utime+stime of /proc/<pid>/stat.
func procTicks(pid string) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces; fields after it
	// start at 3, so utime (14) and stime (15) are the 12th and 13th after the ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	return u + st, err1 == nil && err2 == nil
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

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// firsts are the first/ programs, each built to dir/<name> (none is the baseline: a Go
// process that parses its flags and exits).
var firsts = []string{"none", "modernc", "ncruces", "zombiezen", "ncrucessql", "mattn"}

// first runs the first/ programs, each in a fresh process, rounds times, alternating: cold
// times process start to first history page (wall from fork to exit, CPU from the child's
// rusage); mem reads the memory each prints after -warm 1000 more pages.
func first(mode, dir, path, app, conv string, rounds int) {
	var progs []string
	for _, p := range firsts {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			progs = append(progs, p)
		}
	}
	wall, cpus := map[string][]float64{}, map[string][]float64{}
	mem := map[string]map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, p := range progs {
			args := []string{"-db", path, "-app", app, "-conversation", conv}
			if mode == "mem" {
				args = append(args, "-warm", "1000")
			}
			cmd := exec.Command(filepath.Join(dir, p), args...)
			cmd.Stderr = os.Stderr
			t := time.Now()
			out, err := cmd.Output()
			must(err)
			wall[p] = append(wall[p], float64(time.Since(t))/1e6)
			cpus[p] = append(cpus[p], float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/1e6)
			if mem[p] == nil {
				mem[p] = map[string][]float64{}
			}
			for _, f := range strings.Fields(string(out)) {
				k, v, _ := strings.Cut(f, "=")
				x, _ := strconv.ParseFloat(v, 64)
				mem[p][k] = append(mem[p][k], x)
			}
		}
	}
	med := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	size := func(p string) float64 {
		fi, err := os.Stat(filepath.Join(dir, p))
		must(err)
		return float64(fi.Size()) / (1 << 20)
	}
	if mode == "cold" {
		fmt.Printf("| program | start to first page: wall ms (min / median / max of %d) | CPU ms | binary MB (+ over none) |\n|---|---:|---:|---:|\n", rounds)
		for _, p := range progs {
			fmt.Printf("| %s | %s | %s | %.1f (+%.1f) |\n", p, spread(wall[p], "%.1f"), spread(cpus[p], "%.1f"), size(p), size(p)-size("none"))
		}
		return
	}
	fmt.Printf("| program | Go heap in use kB | Go runtime from the OS kB | RSS kB | peak RSS kB |  (medians of %d, after 1,001 pages)\n|---|---:|---:|---:|---:|\n", rounds)
	for _, p := range progs {
		m := mem[p]
		fmt.Printf("| %s | %.0f | %.0f | %.0f | %.0f |\n", p, med(m["heap_alloc_kb"]), med(m["go_sys_kb"]), med(m["rss_kb"]), med(m["hwm_kb"]))
	}
}

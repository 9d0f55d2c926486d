package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pgbench15Output is PostgreSQL 15's pgbench summary for a -T run with a custom script.
const pgbench15Output = `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: /tmp/natterbench-1/insert.sql
scaling factor: 1
query mode: prepared
number of clients: 64
number of threads: 2
maximum number of tries: 1
duration: 3 s
number of transactions actually processed: 64700
number of failed transactions: 3 (0.005%)
latency average = 2.894 ms
initial connection time = 168.796 ms
tps = 22112.345678 (without initial connection time)
`

func TestParsePgbench(t *testing.T) {
	var res result
	if err := parsePgbench(pgbench15Output, &res); err != nil {
		t.Fatal(err)
	}
	if res.rps != 22112.345678 || res.requests != 64703 || res.errors != 3 || res.pgLatMS != "2.894" || res.pgConnMS != "168.796" {
		t.Fatalf("parsed %+v", res)
	}
	if d := res.elapsed.Seconds(); d < 2.92 || d > 2.93 {
		t.Fatalf("window %v, want about 2.926 s", res.elapsed)
	}
	if res.firstErr == "" {
		t.Error("no first error for failed transactions")
	}
	if err := parsePgbench(strings.Replace(pgbench15Output, "tps =", "tps:", 1), &res); err == nil {
		t.Error("output without tps parsed")
	}
}

func TestReadPgbenchLogs(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "pgbench_log")
	os.WriteFile(prefix+".123", []byte("0 1 1500 0 1700000000 1\n1 7 2500 0 1700000000 2\n"), 0o644)
	os.WriteFile(prefix+".123.1", []byte("33 2 failed 0 1700000000 3\n34 5 500 0 1700000000 4\n"), 0o644)
	h, n, err := readPgbenchLogs(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || time.Duration(h.max) < 2490*time.Microsecond || time.Duration(h.min) > 510*time.Microsecond {
		t.Fatalf("n %d, min %v, max %v", n, time.Duration(h.min), time.Duration(h.max))
	}
	if left, _ := filepath.Glob(prefix + ".*"); len(left) != 0 {
		t.Errorf("logs left behind: %v", left)
	}
}

func TestParseFlagsPostgres(t *testing.T) {
	o, err := parseFlags([]string{"-natter", "x", "-postgres"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.scenarios, ",") != strings.Join(postgresScenarios, ",") || o.natterConns != defaultNatterDBConns {
		t.Fatalf("-postgres: scenarios %v, natter conns %d", o.scenarios, o.natterConns)
	}
	o, err = parseFlags([]string{"-natter", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.scenarios, ",") != strings.Join(defaultScenarios, ",") || o.natterConns != 0 {
		t.Fatalf("SQLite: scenarios %v, natter conns %d", o.scenarios, o.natterConns)
	}
	if o, err = parseFlags([]string{"-natter", "x", "-natter-db-conns", "4"}); err != nil || o.natterConns != 4 {
		t.Fatalf("explicit -natter-db-conns: %d, %v", o.natterConns, err)
	}
	for _, args := range [][]string{
		{"-scenarios", "pgbench-insert"},
		{"-postgres", "-duration", "1500ms"},
		{"-postgres", "-database", "postgres://127.0.0.1/x"},
		{"-postgres", "-natter-db-conns", "0"},
	} {
		if _, err := parseFlags(append([]string{"-natter", "x"}, args...)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if _, err := parseFlags([]string{"-natter", "x", "-postgres", "-duration", "1500ms", "-scenarios", "add-reaction"}); err != nil {
		t.Errorf("fractional -duration without pgbench-insert: %v", err)
	}
}

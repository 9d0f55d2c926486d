package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/pgtest"
)

// BenchmarkReads is the read paths of issue 29 end to end in one process, one request at a
// time, for pprof:
//
//	go test ./httpapi -run '^$' -bench Reads/sqlite -cpuprofile cpu.prof
//
// conversations: GET /v3/conversations?perPage=50 for u0, a party of 1,000 one-to-one
// conversations of two messages each (u0's, then the reply), in an app with 5,000 other
// messages; history: the newest 50 of u0's 102 messages with u1; get-message: GET
// /v3/messages/{id} on behalf of a participant.
func BenchmarkReads(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			url := benchSQLite(b)
			pgCPU := func() time.Duration { return 0 }
			if backend == "postgres" {
				url = pgtest.URL(b)
				pgCPU = postgresCPU(b, url)
			}
			ctx := context.Background()
			svc, srv, key := benchServer(b, url)
			p := chat.Principal{App: chat.App{ID: "demo", Region: "us"}}
			const convs = 1000
			for i := 0; i <= convs; i++ {
				if _, err := svc.CreateUser(ctx, p, chat.UserCreate{UID: fmt.Sprint("u", i), Name: "User"}); err != nil {
					b.Fatal(err)
				}
			}
			var last int64
			for i := 1; i <= convs; i++ {
				for _, pair := range [][2]string{{"u0", fmt.Sprint("u", i)}, {fmt.Sprint("u", i), "u0"}} {
					m, err := svc.SendMessage(ctx, p.ActingAs(pair[0]), chat.MessageSend{Receiver: pair[1], ReceiverType: "user",
						Category: "message", Type: "text", Data: []byte(`{"text":"hello"}`)})
					if err != nil {
						b.Fatal(err)
					}
					last = m.ID
				}
			}
			// A longer conversation of u0 and u1 for history.
			for i := range 100 {
				from, to := "u0", "u1"
				if i%2 == 1 {
					from, to = to, from
				}
				if _, err := svc.SendMessage(ctx, p.ActingAs(from), chat.MessageSend{Receiver: to, ReceiverType: "user",
					Category: "message", Type: "text", Data: []byte(`{"text":"hello"}`)}); err != nil {
					b.Fatal(err)
				}
			}
			// The rest of the app: 5,000 messages between the other users.
			for i := range 5000 {
				a, c := 1+i%convs, 1+(i*7919+1)%convs
				if a == c {
					continue
				}
				if _, err := svc.SendMessage(ctx, p.ActingAs(fmt.Sprint("u", a)), chat.MessageSend{Receiver: fmt.Sprint("u", c), ReceiverType: "user",
					Category: "message", Type: "text", Data: []byte(`{"text":"hello"}`)}); err != nil {
					b.Fatal(err)
				}
			}
			if backend == "postgres" {
				// Statistics, as autovacuum gives a live database once its tables have grown.
				// Without them, the generic plans each pooled connection keeps after its fifth
				// execution of a statement are made for the empty tables of the seeding's
				// first seconds (a conversation page's ids joined to every conversation of the
				// app, a page's messages found by scanning the app's): 4.6 ms of PostgreSQL CPU
				// per conversation page rather than 0.x.
				analyze(b, url)
			}
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			get := func(b *testing.B, path string) {
				req, _ := http.NewRequest("GET", srv.URL+path, nil)
				req.Header.Set("apikey", key)
				req.Header.Set("onBehalfOf", "u0")
				cpu0, pg0 := cpuTime(), pgCPU()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := hc.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Fatalf("status %d", res.StatusCode)
					}
				}
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				if backend == "postgres" {
					b.ReportMetric(float64((pgCPU()-pg0).Microseconds())/float64(b.N), "pg-cpu-µs/op")
				}
			}
			b.Run("conversations", func(b *testing.B) { get(b, "/v3/conversations?perPage=50") })
			b.Run("get-message", func(b *testing.B) { get(b, fmt.Sprint("/v3/messages/", last)) })
			b.Run("history", func(b *testing.B) { get(b, "/v3/users/u1/messages?affix=prepend&limit=50") })
		})
	}
}

// postgresCPU returns a function giving the CPU time so far of the PostgreSQL server at url:
// its postmaster's children that are alive (the backends, which the store's pool keeps, and
// the background processes) plus those that exited (the postmaster's cutime and cstime),
// read from /proc. The server's process id is the first line of its data directory's
// postmaster.pid.
func postgresCPU(b *testing.B, url string) func() time.Duration {
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var dir string
	if err := db.QueryRow(`SHOW data_directory`).Scan(&dir); err != nil {
		b.Fatal(err)
	}
	pidFile, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		b.Skipf("postgres CPU: %v", err)
	}
	postmaster, _ := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	tick := float64(time.Second) / 100 // USER_HZ
	// stat is a process's fields after its command: [1] is the parent, [11:15] utime,
	// stime, cutime, cstime.
	stat := func(pid string) []string {
		raw, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return nil
		}
		s := string(raw)
		return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	}
	ticks := func(f []string, i int) int64 { n, _ := strconv.ParseInt(f[i], 10, 64); return n }
	return func() time.Duration {
		var total int64
		if f := stat(strconv.Itoa(postmaster)); f != nil {
			total += ticks(f, 11) + ticks(f, 12) + ticks(f, 13) + ticks(f, 14)
		}
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			if f := stat(p.Name()); len(f) > 12 && f[1] == strconv.Itoa(postmaster) {
				total += ticks(f, 11) + ticks(f, 12)
			}
		}
		return time.Duration(float64(total) * tick)
	}
}

func analyze(b *testing.B, url string) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the process's CPU time so far (user and system): the server's and the
// client's, both in this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Command importbench measures natter import: it generates a JSON Lines export of users,
// groups, members and one-to-one and group messages (bench/README.md, "Data import"), then
// times `natter import --database` of it into a fresh SQLite file and, with -postgres, a
// throwaway PostgreSQL. With -gen FILE it only writes the export.
//
//	go run ./bench/cmd/importbench -messages 1000000 -postgres
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/natter-chat/natter/internal/pgserver"
)

type genOptions struct {
	users, groups, members, messages int
	groupShare                       float64
}

func main() {
	var g genOptions
	flag.IntVar(&g.users, "users", 10_000, "users")
	flag.IntVar(&g.groups, "groups", 200, "groups")
	flag.IntVar(&g.members, "members", 50, "members per group")
	flag.IntVar(&g.messages, "messages", 1_000_000, "messages")
	flag.Float64Var(&g.groupShare, "group-share", 0.3, "share of messages sent to groups (the rest one-to-one)")
	gen := flag.String("gen", "", "only write the export to this file")
	sqlite := flag.Bool("sqlite", true, "import into a fresh SQLite file")
	postgres := flag.Bool("postgres", false, "import into a throwaway PostgreSQL too")
	natter := flag.String("natter", "", "the natter binary (default: go build ./cmd/natter into a temporary directory)")
	batch := flag.Int("batch", 1000, "items per batch")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up on a run after this long")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *gen != "" {
		if err := writeExport(*gen, g); err != nil {
			fail(err)
		}
		return
	}
	tmp, err := os.MkdirTemp("", "natter-importbench-")
	if err != nil {
		fail(err)
	}
	cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
	defer cleanup()
	if *natter == "" {
		*natter = filepath.Join(tmp, "natter")
		logf("building natter")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", *natter, "./cmd/natter").CombinedOutput(); err != nil {
			fail(fmt.Errorf("go build: %v\n%s", err, out))
		}
	}
	file := filepath.Join(tmp, "export.jsonl")
	t0 := time.Now()
	if err := writeExport(file, g); err != nil {
		fail(err)
	}
	fi, _ := os.Stat(file)
	logf("export: %d users, %d groups, %d members, %d messages; %.1f MB, written in %v",
		g.users, g.groups, g.groups*g.members, g.messages, float64(fi.Size())/1e6, time.Since(t0).Round(time.Millisecond))

	if *sqlite {
		run(ctx, *natter, "sqlite:"+filepath.Join(tmp, "natter.db"), file, *batch, *timeout)
	}
	if *postgres {
		srv, err := pgserver.Start(pgserver.Options{Settings: map[string]string{"shared_buffers": "256MB"}})
		if err != nil {
			fail(fmt.Errorf("start PostgreSQL: %w", err))
		}
		cleanups = append(cleanups, func() { srv.Close() })
		logf("%s on 127.0.0.1:%d", srv.Version(), srv.Port())
		url, err := srv.CreateDatabase(ctx, "importbench")
		if err != nil {
			fail(err)
		}
		run(ctx, *natter, url, file, *batch, *timeout)
	}
}

// run creates the app and times the import.
func run(ctx context.Context, natter, dbURL, file string, batch int, timeout time.Duration) {
	name := strings.SplitN(dbURL, ":", 2)[0]
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	create := exec.CommandContext(ctx, natter, "apps", "create", "--id", "bench", "--region", "us", "--database", dbURL, "--create-database")
	if out, err := create.CombinedOutput(); err != nil {
		fail(fmt.Errorf("%s: apps create: %v\n%s", name, err, out))
	}
	cmd := exec.CommandContext(ctx, natter, "import", "--database", dbURL, "--app", "bench", "--batch", fmt.Sprint(batch),
		"--progress-every", "15s", "--state", file+"."+name+".state", file)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	logf("%s: natter import --database … --batch %d", name, batch)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("%s: import: %v", name, err))
	}
	logf("%s: done in %v (wall clock, process start to exit)", name, time.Since(t0).Round(time.Millisecond))
}

// writeExport writes the export: users, then groups, members, and messages in sentAt order
// (several messages share a second).
func writeExport(path string, g genOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := generate(w, g); err != nil {
		return err
	}
	return w.Flush()
}

func generate(w io.Writer, g genOptions) error {
	r := rand.New(rand.NewPCG(1, 2))
	uid := func(i int) string { return fmt.Sprintf("u%06d", i) }
	guid := func(i int) string { return fmt.Sprintf("g%04d", i) }
	const start = 1_600_000_000
	for i := range g.users {
		fmt.Fprintf(w, `{"kind":"user","uid":%q,"name":"User %d","createdAt":%d,"metadata":{"n":%d}}`+"\n", uid(i), i, start-1000, i)
	}
	members := make([][]int, g.groups)
	for i := range g.groups {
		fmt.Fprintf(w, `{"kind":"group","guid":%q,"name":"Group %d","type":"public","owner":%q,"createdAt":%d}`+"\n",
			guid(i), i, uid(i%g.users), start-500)
		for j := range min(g.members, g.users) {
			u := (i*g.members + j) % g.users
			members[i] = append(members[i], u)
			scope := "participant"
			if j == 0 {
				scope = "admin"
			}
			fmt.Fprintf(w, `{"kind":"member","guid":%q,"uid":%q,"scope":%q,"joinedAt":%d}`+"\n", guid(i), uid(u), scope, start-400)
		}
	}
	for i := range g.messages {
		sentAt := start + i/3
		if g.groups > 0 && r.Float64() < g.groupShare {
			gi := r.IntN(g.groups)
			s := members[gi][r.IntN(len(members[gi]))]
			fmt.Fprintf(w, `{"kind":"message","muid":"m%07d","sender":%q,"receiverType":"group","receiver":%q,"category":"message","type":"text","data":{"text":"group message %d, imported from elsewhere"},"sentAt":%d}`+"\n",
				i, uid(s), guid(gi), i, sentAt)
			continue
		}
		a := r.IntN(g.users)
		b := (a + 1 + r.IntN(g.users-1)) % g.users
		fmt.Fprintf(w, `{"kind":"message","muid":"m%07d","sender":%q,"receiverType":"user","receiver":%q,"category":"message","type":"text","data":{"text":"message %d, imported from elsewhere"},"sentAt":%d,"deliveredAt":%d,"readAt":%d}`+"\n",
			i, uid(a), uid(b), i, sentAt, sentAt+5, sentAt+60)
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "importbench: "+format+"\n", args...)
}

// cleanups run on exit, failure included, last first: the PostgreSQL server, then the
// temporary directory.
var cleanups []func()

func cleanup() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "importbench:", err)
	cleanup()
	os.Exit(1)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/dataimport"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/sqlstore"
)

// importFile is a small export: users, a group as a hosted body line, members and history.
const importFile = `{"kind": "user", "uid": "alice", "name": "Alice", "createdAt": 1673421419}
{"kind": "user", "uid": "bob", "name": "Bob"}
{"kind": "user", "uid": "carol", "name": "Carol"}

{"groups": {"hikers": {"guid": "hikers", "name": "Hikers", "type": "public", "owner": "alice"}}}
{"kind": "member", "memberId": "hikers_member_alice", "guid": "hikers", "uid": "alice", "scope": "admin"}
{"kind": "member", "guid": "hikers", "uid": "bob"}
{"kind": "message", "muid": "m1", "sender": "alice", "receiverType": "user", "receiver": "bob", "data": {"text": "1"}, "sentAt": 1674104348}
{"kind": "message", "muid": "m2", "sender": "bob", "receiverType": "user", "receiver": "alice", "data": {"text": "2"}, "sentAt": 1674104349}
{"kind": "message", "muid": "m3", "sender": "alice", "receiverType": "group", "receiver": "hikers", "data": {"text": "3"}, "sentAt": 1674104350}
{"kind": "message", "muid": "m4", "sender": "nobody", "receiverType": "group", "receiver": "hikers", "data": {"text": "4"}, "sentAt": 1674104351}
{"kind": "message", "muid": "m5", "sender": "bob", "receiverType": "group", "receiver": "hikers", "data": {"text": "5"}, "sentAt": 1674104352}
`

func runIn(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// summaryRow reads one kind's counts from the summary.
func summaryRow(t *testing.T, out, kind string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + kind + `\s+(\d+)\s+(\d+)\s+(\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s row in the summary:\n%s", kind, out)
	}
	return m[1] + "/" + m[2] + "/" + m[3]
}

func TestImportDirect(t *testing.T) {
	dir := t.TempDir()
	dbURL := "sqlite:" + filepath.Join(dir, "natter.db")
	file := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(file, []byte(importFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runIn(t, nil, "apps", "create", "--id", "shop", "--region", "eu", "--database", dbURL, "--create-database"); err != nil {
		t.Fatalf("apps create: %v %s", err, stderr)
	}
	args := []string{"import", "--database", dbURL, "--app", "shop", "--batch", "2", "--progress-every", "1ns"}

	// Interrupted after two batches: the state file says where.
	out, stderr, err := runIn(t, nil, append(args, "--max-batches", "2", file)...)
	if err != nil {
		t.Fatalf("first run: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(out, "stopped at byte") || summaryRow(t, out, "users") != "3/0/0" || summaryRow(t, out, "groups") != "0/0/0" {
		t.Errorf("first run summary:\n%s", out)
	}
	var st importState
	b, _ := os.ReadFile(file + ".state")
	if json.Unmarshal(b, &st) != nil || st.Offset == 0 || st.Offset >= st.Size {
		t.Fatalf("state after two batches: %s", b)
	}
	// Plain progress lines when not on a terminal, no terminal escapes.
	if !strings.Contains(stderr, "natter import: ") || !strings.Contains(stderr, "items/s") || strings.Contains(stderr, "\r") {
		t.Errorf("progress lines:\n%q", stderr)
	}

	// Resumed: the rest, with the one bad message refused.
	out, stderr, err = runIn(t, nil, append(args, file)...)
	if err != nil {
		t.Fatalf("resume: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(stderr, "resuming") || summaryRow(t, out, "users") != "0/0/0" || summaryRow(t, out, "groups") != "1/0/0" ||
		summaryRow(t, out, "members") != "2/0/0" || summaryRow(t, out, "messages") != "4/0/1" || !strings.Contains(out, "items/s") {
		t.Errorf("resumed run:\n%s\n%s", out, stderr)
	}
	if !strings.Contains(stderr, `message "m4": ERR_UID_NOT_FOUND`) {
		t.Errorf("the refused item is not reported:\n%s", stderr)
	}

	// From the start again (no state): everything is there already.
	os.Remove(file + ".state")
	out, _, err = runIn(t, nil, append(args, file)...)
	if err != nil || summaryRow(t, out, "users") != "0/3/0" || summaryRow(t, out, "messages") != "0/4/1" {
		t.Errorf("re-import: %v\n%s", err, out)
	}

	db, err := sqlstore.Open(context.Background(), dbURL, sqlstore.Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := chat.New(db, chat.Config{StatsFlushInterval: -1}).Group(context.Background(), chat.Principal{App: chat.App{ID: "shop"}, Scope: chat.ScopeFullAccess}, "hikers")
	if err != nil || g.MembersCount != 2 {
		t.Errorf("hikers: %+v %v", g, err)
	}
}

func TestImportHTTP(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "natter.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
	_, keys, err := svc.CreateApp(ctx, chat.AppCreate{ID: "shop", Region: "eu"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{}))
	defer srv.Close()
	file := filepath.Join(dir, "export.jsonl")
	os.WriteFile(file, []byte(importFile), 0o600)
	out, stderr, err := runIn(t, map[string]string{"NATTER_IMPORT_KEY": keys[0].Value}, "import", "--url", srv.URL, "--app", "shop", file)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	if summaryRow(t, out, "users") != "3/0/0" || summaryRow(t, out, "messages") != "4/0/1" {
		t.Errorf("summary:\n%s", out)
	}
	if strings.Contains(stderr, keys[0].Value) || strings.Contains(out, keys[0].Value) {
		t.Error("the key was printed")
	}
	// Usage mistakes.
	for _, args := range [][]string{
		{"import", file},
		{"import", "--url", srv.URL, file},
		{"import", "--database", "sqlite:x", file},
		{"import", "--url", srv.URL, "--key", "k", "--batch", "1001", file},
		{"import", "--url", srv.URL, "--key", "k"},
	} {
		if _, _, err := runIn(t, nil, args...); err != errUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// cancelAfter is a sender that cancels the import's context after its first batch, as a
// Ctrl-C during that batch would.
type cancelAfter struct {
	sender
	cancel context.CancelFunc
}

func (c cancelAfter) send(ctx context.Context, kind string, items []dataimport.Item) ([]dataimport.Outcome, error) {
	res, err := c.sender.send(ctx, kind, items)
	c.cancel()
	return res, err
}

// An interrupt finishes the batch in flight, records it, and says how to resume.
func TestImportInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "natter.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
	if _, _, err := svc.CreateApp(ctx, chat.AppCreate{ID: "shop", Region: "eu"}); err != nil {
		t.Fatal(err)
	}
	p, err := svc.OperatorPrincipal(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "export.jsonl")
	os.WriteFile(file, []byte(importFile), 0o600)
	o := importOptions{file: file, state: file + ".state", batch: 2, every: time.Hour}
	cctx, cancel := context.WithCancel(ctx)
	var stdout, stderr bytes.Buffer
	err = runImport(cctx, o, cancelAfter{dbSender{svc, p}, cancel}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v", err)
	}
	if summaryRow(t, stdout.String(), "users") != "2/0/0" || !strings.Contains(stdout.String(), "run the same command again") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	var st importState
	b, _ := os.ReadFile(o.state)
	if json.Unmarshal(b, &st) != nil || st.Counts["users"].Imported != 2 {
		t.Fatalf("state: %s", b)
	}
	// The state's offset is where the third user's line starts.
	if want := int64(strings.Index(importFile, `{"kind": "user", "uid": "carol"`)); st.Offset != want {
		t.Errorf("offset %d, want %d", st.Offset, want)
	}
	stdout.Reset()
	if err := runImport(ctx, o, dbSender{svc, p}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if summaryRow(t, stdout.String(), "users") != "1/0/0" || summaryRow(t, stdout.String(), "messages") != "4/0/1" {
		t.Errorf("resumed:\n%s", stdout.String())
	}
}

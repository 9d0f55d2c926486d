package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/chattest"
	"github.com/natter-chat/natter/internal/contract"
	"github.com/natter-chat/natter/internal/pgtest"
	"github.com/natter-chat/natter/realtime"
	"github.com/natter-chat/natter/sqlstore"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	parallelByDefault(4)
	pgtest.Main(m)
}

// parallelByDefault runs perCPU parallel tests per CPU at once, unless -parallel says
// otherwise. go test's default is one per CPU, which suits tests that compute; these mostly
// wait on PostgreSQL's round trips and their own servers, so twice or four times that many
// keep the CPUs busy (measured: docs/testing.md).
func parallelByDefault(perCPU int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0)))
	}
}

// testClock is the fixed clock of every test server, so golden files can hold times.
var testClock = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

const testDomain = "natter.test"

// env is one natter server over real HTTP on one real database, with an app and its keys.
type env struct {
	t       *testing.T
	backend string
	dbURL   string
	srv     *httptest.Server
	svc     *chat.Service
	app     chat.App
	full    string // fullAccess key
	authKey string // authOnly key
	c       *client.Client
	auth    *client.Client
	http    *http.Client  // validates every response against api/openapi.yaml
	raw     *sql.DB       // for asserting what is (not) written
	hub     *realtime.Hub // with a hub (newEnvHub), else nil
}

var (
	specOnce sync.Once
	spec     *contract.Spec
	specErr  error
)

func loadSpec(t testing.TB) *contract.Spec {
	specOnce.Do(func() { spec, specErr = contract.Load(filepath.Join("..", "api", "openapi.yaml")) })
	if specErr != nil {
		t.Fatalf("load openapi: %v", specErr)
	}
	return spec
}

// backends runs f once per database: SQLite on a temp file, and PostgreSQL. The test runs
// in parallel with the package's other parallel tests: each has its own server, database
// and app, so the only thing they share is the machine.
func backends(t *testing.T, f func(t *testing.T, e *env)) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, newEnv(t, b, chat.Config{}))
		})
	}
}

func newEnv(t *testing.T, backend string, cfg chat.Config) *env {
	t.Helper()
	return newEnvWith(t, backend, cfg, httpapi.Options{})
}

// newEnvWith is newEnv with the HTTP layer's options (the domain is the tests' own).
func newEnvWith(t *testing.T, backend string, cfg chat.Config, opt httpapi.Options) *env {
	t.Helper()
	return newEnvHub(t, backend, cfg, opt, nil)
}

// newEnvHub is newEnvWith with real time when hubOpt is not nil.
func newEnvHub(t *testing.T, backend string, cfg chat.Config, opt httpapi.Options, hubOpt *realtime.HubOptions) *env {
	t.Helper()
	opt.Domain = testDomain
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testClock }
	}
	if cfg.MaxReactions == 0 {
		cfg.MaxReactions = chat.DefaultMaxReactions
	} else if cfg.MaxReactions < 0 {
		cfg.MaxReactions = 0
	}
	rig := chattest.Open(t, backend, cfg)
	db, svc, dbURL := rig.DB, rig.Svc, rig.DBURL
	var hub *realtime.Hub
	if hubOpt != nil {
		bus := db.NewBus(nil)
		hub = realtime.NewHub(svc, bus, *hubOpt, nil)
		opt.Hub = hub
		t.Cleanup(func() { hub.Close(); bus.Close() }) // before the database closes: cleanups run last first
	}
	srv := httptest.NewServer(httpapi.New(svc, opt))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: loadSpec(t).Transport(t, http.DefaultTransport), Timeout: 30 * time.Second}
	driver, dsn := "sqlite", strings.TrimPrefix(dbURL, "sqlite:")
	if backend == "postgres" {
		driver, dsn = "pgx", dbURL
	}
	if backend == "sqlite" {
		// The server's writer holds the file's lock now and then: the tests' own writes wait
		// for it, as the server's connections do, rather than fail with SQLITE_BUSY.
		dsn += "?_pragma=busy_timeout(10000)"
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	e := &env{t: t, backend: backend, dbURL: dbURL, srv: srv, svc: svc, app: rig.App, full: rig.FullKey, authKey: rig.AuthKey, http: hc, raw: raw, hub: hub}
	e.c = client.New(srv.URL, e.full, client.WithHTTPClient(hc))
	e.auth = client.New(srv.URL, e.authKey, client.WithHTTPClient(hc))
	return e
}

// newApp creates another app on the same server and returns a client for it.
func (e *env) newApp(id string, region chat.Region) (*client.Client, string) {
	e.t.Helper()
	_, keys, err := e.svc.CreateApp(context.Background(), chat.AppCreate{ID: id, Region: region})
	if err != nil {
		e.t.Fatal(err)
	}
	return client.New(e.srv.URL, keys[0].Value, client.WithHTTPClient(e.http)), keys[0].Value
}

func (e *env) ctx() context.Context { return context.Background() }

func (e *env) mustUser(uid, name string) *client.User {
	e.t.Helper()
	u, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: uid, Name: name})
	if err != nil {
		e.t.Fatalf("create user %s: %v", uid, err)
	}
	return u
}

// mustRole creates roles with their ids as names.
func (e *env) mustRole(roles ...string) {
	e.t.Helper()
	for _, r := range roles {
		if _, err := e.c.CreateRole(e.ctx(), client.CreateRoleRequest{Role: r, Name: r}); err != nil {
			e.t.Fatalf("create role %s: %v", r, err)
		}
	}
}

func (e *env) mustText(from, to, text string) *client.Message {
	e.t.Helper()
	m, err := e.c.OnBehalfOf(from).SendMessage(e.ctx(), client.SendMessageRequest{Receiver: to, ReceiverType: "user",
		Category: "message", Type: "text", Data: map[string]any{"text": text}})
	if err != nil {
		e.t.Fatalf("send %s→%s: %v", from, to, err)
	}
	return m
}

// request is a raw HTTP call for shapes the client will not produce.
type request struct {
	method, path string
	host         string // default: the server's address, so the app comes from the key
	base         string // default: this env's server; another node's URL
	headers      map[string]string
	body         string
}

// response is what came back, with the error envelope decoded when there is one.
type response struct {
	status int
	header http.Header
	body   []byte
	code   string
}

func (e *env) do(r request) response {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	base := e.srv.URL
	if r.base != "" {
		base = r.base
	}
	req, err := http.NewRequest(r.method, base+r.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	if _, ok := r.headers["apikey"]; !ok {
		req.Header.Set("apikey", e.full)
	}
	for k, v := range r.headers {
		if name, ok := strings.CutPrefix(k, "raw:"); ok { // sent with exactly this name
			req.Header.Del(name)
			req.Header[name] = []string{v}
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	if r.body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, body: b}
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil {
		out.code = env.Error.Code
	}
	return out
}

// snapshot is every row of every table, to assert that a failed request wrote nothing.
func (e *env) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, region, name FROM apps ORDER BY id",
		"SELECT hash, app_id, name, scope, updated_at FROM api_keys ORDER BY hash",
		"SELECT app_id, uid, name, avatar, link, role, status_message, COALESCE(metadata, ''), updated_at, deactivated_at, deleted_at FROM users ORDER BY app_id, uid",
		"SELECT app_id, uid, tag, pos FROM user_tags ORDER BY app_id, uid, tag",
		"SELECT id, app_id, sender, receiver, category, type, data, updated_at, deleted_at, target_uid, pinned_at, pinned_by, quoted_id FROM messages ORDER BY id",
		"SELECT app_id, uid, message_id, saved_at FROM saved_messages ORDER BY app_id, uid, message_id",
		"SELECT app_id, message_id, uid, element_id, interacted_at FROM message_interactions ORDER BY app_id, message_id, uid, element_id",
		"SELECT app_id, message_id, uid, completed_at FROM message_goals ORDER BY app_id, message_id, uid",
		"SELECT app_id, key, uid, name, mime_type, size FROM files ORDER BY app_id, key",
		"SELECT app_id, uid, conversation_id, pinned_at FROM conversation_markers WHERE pinned_at > 0 ORDER BY app_id, uid, conversation_id",
		"SELECT app_id, kind, target, position, pinned_at FROM system_pinned_conversations ORDER BY app_id, position",
		"SELECT app_id, guid, name, type, password_hash, icon, description, COALESCE(metadata, ''), owner, members_count, updated_at, updated_by FROM groups ORDER BY app_id, guid",
		"SELECT app_id, guid, tag, pos FROM group_tags ORDER BY app_id, guid, tag",
		"SELECT app_id, guid, uid, scope, joined_at FROM group_members ORDER BY app_id, guid, uid",
		"SELECT app_id, guid, uid, banned_at, banned_by FROM group_bans ORDER BY app_id, guid, uid",
		"SELECT id, app_id, message_id, uid, reaction FROM reactions ORDER BY id",
		"SELECT message_id, reaction, count, first_id FROM reaction_counts ORDER BY message_id, reaction",
		"SELECT hash, app_id, uid, platform, user_agent, COALESCE(app_info, ''), created_at FROM auth_tokens ORDER BY hash",
		"SELECT app_id, uid, friend_uid, created_at FROM friends ORDER BY app_id, uid, friend_uid",
		"SELECT app_id, role, name, description, COALESCE(metadata, ''), COALESCE(list_users, ''), COALESCE(send_messages_to, ''), updated_at FROM roles ORDER BY app_id, role",
		"SELECT app_id, role, permission, value, updated_at FROM role_permissions ORDER BY app_id, role, permission",
		"SELECT app_id, role, feature, created_at FROM role_features ORDER BY app_id, role, feature",
		"SELECT app_id, guid, scope, permission, value, updated_at FROM scope_permissions ORDER BY app_id, guid, scope, permission",
		"SELECT app_id, settings, updated_at FROM notification_settings ORDER BY app_id",
		"SELECT app_id, uid, COALESCE(preferences, ''), timezone, email, phno, updated_at FROM notification_users ORDER BY app_id, uid",
		"SELECT app_id, uid, conversation_type, conversation_id, until_ms FROM notification_mutes ORDER BY app_id, uid, conversation_type, conversation_id",
		"SELECT app_id, kind, id, is_default, enabled, settings, secret_hint, created_at, updated_at FROM notification_providers ORDER BY app_id, kind, id",
		"SELECT app_id, token, auth_hash, uid, platform, kind, provider_id, timezone, created_at, updated_at FROM push_tokens ORDER BY app_id, token",
		"SELECT app_id, uid, name, icon, is_active, url, header_names, instruction, COALESCE(metadata, ''), history_length, timeout_seconds, updated_at FROM agents ORDER BY app_id, uid",
		"SELECT app_id, agent_uid, message_id, reply_id FROM agent_jobs ORDER BY id",
		"SELECT app_id, kind, key, digest, ref FROM import_keys ORDER BY app_id, kind, key",
		"SELECT app_id, version FROM moderation_state ORDER BY app_id",
		"SELECT app_id, id, name, description, updated_at FROM moderation_reasons ORDER BY app_id, id",
		"SELECT app_id, id, name, terms, revision FROM moderation_keyword_lists ORDER BY app_id, id",
		"SELECT app_id, id, name, enabled, conditions, action, revision FROM moderation_rules ORDER BY app_id, id",
		"SELECT app_id, rule_id, revision FROM moderation_rule_revisions ORDER BY app_id, rule_id, revision",
		"SELECT app_id, message_id, status, reviewed_at FROM moderation_flagged ORDER BY app_id, message_id",
		"SELECT app_id, message_id, uid, reason_id, remark FROM moderation_flags ORDER BY app_id, message_id, uid",
		"SELECT id, app_id, rule_id, status, message_id FROM moderation_blocked ORDER BY id",
		"SELECT app_id, session_id, type, status, started_at, ended_at, audio_seconds, video_seconds, since, participants, has_transcription FROM calls ORDER BY app_id, session_id",
		"SELECT app_id, session_id, uid, state, is_joined, joined_at, left_at, audio_seconds, video_seconds FROM call_participants ORDER BY app_id, session_id, uid",
		"SELECT app_id, session_id, tid, transcript_url FROM call_transcriptions ORDER BY app_id, session_id, tid",
	} {
		rows, err := e.raw.Query(q)
		if err != nil {
			e.t.Fatalf("snapshot %q: %v", q, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				e.t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// count runs a COUNT query on the raw database.
func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	if e.backend == "sqlite" {
		query = strings.NewReplacer("$1", "?1", "$2", "?2", "$3", "?3").Replace(query)
	}
	var n int
	if err := e.raw.QueryRow(query, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// golden compares a JSON body with testdata/golden/name.json, after replacing volatile
// values (API keys) listed in replace. -update rewrites the file.
func golden(t *testing.T, name string, body []byte, replace ...string) {
	t.Helper()
	for i := 0; i+1 < len(replace); i += 2 {
		body = bytes.ReplaceAll(body, []byte(replace[i]), []byte(replace[i+1]))
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("golden %s: response is not JSON: %v\n%s", name, err, body)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test ./httpapi -run %s -update)", name, err, t.Name())
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("golden %s mismatch (-want +got):\n%s", name, diff)
	}
}

// apiErr asserts that err is a client error with this status and code.
func apiErr(t *testing.T, err error, status int, code string) {
	t.Helper()
	ce, ok := err.(*client.Error)
	if !ok {
		t.Fatalf("got error %v (%T), want %d %s", err, err, status, code)
	}
	if ce.Status != status || ce.Code != code {
		t.Fatalf("got %d %s (%s), want %d %s", ce.Status, ce.Code, ce.Message, status, code)
	}
}

func defaultConfigWithTTL(ttl time.Duration) chat.Config { return chat.Config{KeyCacheTTL: ttl} }

// secondNode starts another server over the same database, as a second natter process
// would, and returns its URL. On SQLite it opens the file Shared, past the writer lock that
// stops a second natter serve: tests use it for keys, which apps create may add beside serve.
func (e *env) secondNode(cfg chat.Config) string {
	e.t.Helper()
	return e.secondNodeWith(cfg, httpapi.Options{})
}

// secondNodeWith is secondNode with the HTTP layer's options.
func (e *env) secondNodeWith(cfg chat.Config, opt httpapi.Options) string {
	e.t.Helper()
	opt.Domain = testDomain
	db, err := sqlstore.Open(context.Background(), e.dbURL, sqlstore.Options{Shared: true})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testClock }
	}
	svc := chat.New(db, cfg)
	e.t.Cleanup(func() { svc.Close(context.Background()) })
	srv := httptest.NewServer(httpapi.New(svc, opt))
	e.t.Cleanup(srv.Close)
	return srv.URL
}

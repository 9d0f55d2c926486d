package main

// The command line as a user meets it: help, usage errors, and messages that name the
// setting at fault without Go's internals.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every command's --help exits 0 with a description on stdout; serve's lists the variables
// that only the environment sets.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:", "natter apps keys create"}},
		{[]string{"serve", "--help"}, []string{"natter serve — run the chat server", "-database", "NATTER_DATABASE_URL",
			"NATTER_APP_ID", "NATTER_APP_REGION", "NATTER_API_KEY", "16 to 256 visible ASCII characters"}},
		{[]string{"serve", "-h"}, []string{"natter serve — run the chat server"}},
		{[]string{"apps", "--help"}, []string{"natter apps create", "natter apps keys create"}},
		{[]string{"apps", "create", "--help"}, []string{"natter apps create — create an app", "-region", "shown only then"}},
		{[]string{"apps", "keys", "create", "--help"}, []string{"natter apps keys create — add an API key", "-scope", "SHA-256"}},
		{[]string{"migrate", "--help"}, []string{"natter migrate — apply the database migrations", "-database"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runNatter(t, nil, tc.args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit status %d, stderr %q; want 0 and nothing on stderr", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("help does not say %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// Usage mistakes exit 2 and say what is missing.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apps"}, "natter apps: missing subcommand"},
		{[]string{"apps", "keys"}, "natter apps keys: missing subcommand"},
		{[]string{"apps", "frobnicate"}, `natter apps: unknown subcommand "frobnicate"`},
		{[]string{"apps", "keys", "create", "--scope", "authOnly"}, "--app is required"},
		{[]string{"serve", "stray"}, `unexpected argument "stray"`},
		{[]string{"migrate", "--no-such-flag"}, "no-such-flag"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runNatter(t, nil, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit status %d, want 2 and %q on stderr; stdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
		})
	}
}

// Refusals name the flag or variable at fault and the rule, never a Go map or a driver error.
func TestErrorMessages(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "natter.db")
	if _, stderr, code := runNatter(t, nil, "apps", "create", "--id", "shop", "--region", "eu", "--database", db, "--create-database"); code != 0 {
		t.Fatalf("apps create: exit status %d\n%s", code, stderr)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "a.db")
	typo := filepath.Join(dir, "natter.bd")
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"unknown region", nil, []string{"apps", "create", "--id", "x", "--region", "mars", "--database", db},
			[]string{"natter: apps create: --region: The region must be one of us, eu, in.\n"}},
		{"bad id and region", nil, []string{"apps", "create", "--id", "Not_OK!", "--region", "mars", "--database", db},
			[]string{"--id: The appId must be 1 to 63 lowercase letters", "; --region: The region must be one of us, eu, in\n"}},
		{"duplicate app", nil, []string{"apps", "create", "--id", "shop", "--region", "us", "--database", db},
			[]string{`natter: apps create: The app "shop", or one of its keys, already exists.` + "\n"}},
		{"short NATTER_API_KEY", map[string]string{"NATTER_API_KEY": "mysecret"}, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "k1.db")},
			[]string{"natter: create the first app: NATTER_API_KEY: A chosen API key must be 16 to 256 visible ASCII characters"}},
		{"NATTER_API_KEY with spaces", map[string]string{"NATTER_API_KEY": "my secret key of some length"}, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "k2.db")},
			[]string{"NATTER_API_KEY: A chosen API key must be 16 to 256 visible ASCII characters", "without spaces"}},
		{"bad NATTER_APP_REGION", map[string]string{"NATTER_APP_REGION": "mars"}, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "k3.db")},
			[]string{"NATTER_APP_REGION: The region must be one of us, eu, in."}},
		{"bad CORS origin", nil, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "c1.db"), "--cors-origins", "https://ok.example, app.example.com"},
			[]string{`natter: --cors-origins: "app.example.com" is not an origin such as https://app.example.com, nor *`}},
		{"bad per-app rate limit", map[string]string{"NATTER_RATE_LIMIT_APPS": "shop:premium=5"}, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "r1.db")},
			[]string{`natter: --rate-limit-apps: "premium=5": the class must be core, standard or import`}},
		{"negative rate limit", nil, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + filepath.Join(dir, "r2.db"), "--rate-limit-core", "-1"},
			[]string{"natter: --rate-limit-core, --rate-limit-standard and --rate-limit-import must be 0 or more"}},
		{"unknown app for a key", nil, []string{"apps", "keys", "create", "--app", "nope", "--database", db},
			[]string{`natter: apps keys create: The app "nope" does not exist.`}},
		{"bad scope", nil, []string{"apps", "keys", "create", "--app", "shop", "--scope", "root", "--database", db},
			[]string{"natter: apps keys create: --scope: The scope must be one of authOnly, fullAccess."}},
		{"serve, missing directory", nil, []string{"serve", "--addr", "127.0.0.1:0", "--database", "sqlite:" + missing},
			[]string{"sqlite database " + missing + ": the directory " + filepath.Dir(missing) + " does not exist"}},
		{"migrate, missing directory", nil, []string{"migrate", "--database", "sqlite:" + missing}, []string{missing, "does not exist"}},
		{"apps create, missing directory", nil, []string{"apps", "create", "--id", "x", "--region", "us", "--database", "sqlite:" + missing}, []string{missing, "does not exist"}},
		{"apps create, no such file", nil, []string{"apps", "create", "--id", "x", "--region", "us", "--database", "sqlite:" + typo},
			[]string{"natter: apps create: sqlite database " + typo + " does not exist; natter serve creates it on its first start, or add --create-database"}},
		{"apps keys create, no such file", nil, []string{"apps", "keys", "create", "--app", "shop", "--database", "sqlite:" + typo},
			[]string{"natter: apps keys create: sqlite database " + typo + ` does not exist, so it has no app "shop"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runNatter(t, tc.env, tc.args...)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			for _, internal := range []string{"map[", "constraint", "UNIQUE", "(1555)", "ERR_", "(14)"} {
				if strings.Contains(stderr, internal) {
					t.Errorf("stderr shows Go or driver internals (%q):\n%s", internal, stderr)
				}
			}
			if stdout != "" || strings.Contains(stderr, "natter listening") {
				t.Errorf("it went ahead anyway; stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after the refusal (%v): a mistyped --database made a new database", typo, err)
			}
		})
	}
}

// natter apps keys create adds a key to an app beside the running server, prints it once as
// JSON and says it will not be shown again; the key works on that server.
func TestAppsKeysCreate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "natter.db")
	p, addr := startServe(t, db, nil)
	parseBanner(t, p)
	for _, tc := range []struct {
		args       []string
		scope      string
		name       string
		listStatus int // GET /v3/users with the new key
	}{
		{nil, "fullAccess", "Command-line key", 200},
		{[]string{"--scope", "authOnly", "--name", "for the sign-up service"}, "authOnly", "for the sign-up service", 403},
	} {
		t.Run(tc.scope, func(t *testing.T) {
			args := append([]string{"apps", "keys", "create", "--app", "demo", "--database", "sqlite:" + db}, tc.args...)
			stdout, stderr, code := runNatter(t, nil, args...)
			if code != 0 {
				t.Fatalf("exit status %d\n%s", code, stderr)
			}
			var k struct {
				AppID     string `json:"appId"`
				APIKey    string `json:"apiKey"`
				Name      string `json:"name"`
				Scope     string `json:"scope"`
				CreatedAt int64  `json:"createdAt"`
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&k); err != nil {
				t.Fatalf("printed no key JSON (%v):\n%s", err, stdout)
			}
			if k.AppID != "demo" || !hexKeyRE.MatchString(k.APIKey) || k.Scope != tc.scope || k.Name != tc.name || k.CreatedAt == 0 {
				t.Errorf("printed %+v, want a %s key of demo named %q", k, tc.scope, tc.name)
			}
			if !strings.Contains(stderr, "shown only now") {
				t.Errorf("stderr does not say the key is shown only now:\n%s", stderr)
			}
			a := newAPI(t, addr, "demo", "us", k.APIKey)
			// At most the key cache's TTL: a request that began 5 s after the key was made
			// knows it, however late it answers on a loaded machine.
			deadline := time.Now().Add(5 * time.Second)
			began := time.Now()
			r := a.do("GET", "/v3/users", nil)
			for r.Status == 401 && began.Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				began = time.Now()
				r = a.do("GET", "/v3/users", nil)
			}
			a.want(r, tc.listStatus, "", "list users with the new key")
		})
	}
}

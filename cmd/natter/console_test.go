package main

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The console as the README promises it: served by natter serve at /console, printed at the
// first start, on the bare address but not on the API's host names, and gone with
// --console off.
func TestServeConsole(t *testing.T) {
	get := func(t *testing.T, addr, host, path string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Host = host
		res, err := httpClient(t, addr, false).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	t.Run("on", func(t *testing.T) {
		p, addr := startServe(t, filepath.Join(t.TempDir(), "natter.db"), nil)
		_, port, _ := net.SplitHostPort(addr)
		b := parseBanner(t, p)
		if want := "Open the web console at http://127.0.0.1:" + port + "/console"; !strings.Contains(b.Text, want) {
			t.Errorf("the banner does not say %q:\n%s", want, b.Text)
		}
		code, h, body := get(t, addr, addr, "/console/signin")
		if code != 200 || !strings.Contains(body, "fullAccess") || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("the console's sign-in page: %d %v", code, h)
		}
		if code, _, _ := get(t, addr, addr, "/console/assets/htmx.min.js"); code != 200 {
			t.Errorf("htmx: %d", code)
		}
		if code, h, _ := get(t, addr, "demo.api-us.localhost:"+port, "/console/signin"); code != 404 || h.Get("Content-Security-Policy") != "" ||
			!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("on the API's host name: %d %v, want the API's 404", code, h)
		}

		// Sign in, refused and then done: neither the key nor the session reaches the log.
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
		signIn := func(key string) (int, string) {
			res, err := c.Get("http://" + addr + "/console/signin")
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
			if tok == nil {
				t.Fatalf("no sign-in token:\n%s", page)
			}
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/console/signin",
				strings.NewReader(url.Values{"csrf": {tok[1]}, "appId": {"demo"}, "apiKey": {key}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", "http://"+addr)
			res, err = c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			page, _ = io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(page)
		}
		if code, _ := signIn("not-a-real-key-but-secret-0123456789"); code != 401 {
			t.Errorf("a wrong key: %d, want 401", code)
		}
		if code, page := signIn(b.FullKey); code != 200 || !strings.Contains(page, "Overview") {
			t.Errorf("sign-in: %d\n%s", code, page)
		}
		var session string
		for _, ck := range jar.Cookies(&url.URL{Scheme: "http", Host: addr, Path: "/console/"}) {
			if ck.Name == "natter_console" {
				session = ck.Value
			}
		}
		if session == "" || strings.Contains(session, b.FullKey) {
			t.Fatalf("session cookie %q", session)
		}
		if code := p.stop(t, 10*time.Second); code != 0 {
			t.Errorf("exit status %d after SIGTERM", code)
		}
		stderr := p.stderr.String()
		if !strings.Contains(stderr, "console sign-in") || !strings.Contains(stderr, "console request") {
			t.Errorf("the log lacks the sign-in or the console's access log:\n%s", stderr)
		}
		for _, s := range []string{b.FullKey, b.FullKey[:20], "not-a-real-key-but-secret", session[:30]} {
			if strings.Contains(stderr, s) {
				t.Errorf("stderr holds %s:\n%s", s, stderr)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		p, addr := startServe(t, filepath.Join(t.TempDir(), "natter.db"), map[string]string{"NATTER_CONSOLE": "off"})
		if b := parseBanner(t, p); strings.Contains(b.Text, "console") {
			t.Errorf("the banner mentions the console that is off:\n%s", b.Text)
		}
		if code, h, _ := get(t, addr, addr, "/console/signin"); code != 404 || h.Get("Content-Security-Policy") != "" {
			t.Errorf("--console off: %d %v, want the API's 404", code, h)
		}
	})
}

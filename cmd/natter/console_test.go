package main

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
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

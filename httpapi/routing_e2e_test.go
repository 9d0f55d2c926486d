package httpapi_test

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// TestNoRouteShapeRedirects walks every route and not-yet pattern with its slash variants
// (trailing slash added or removed, a slash doubled, the last segment dropped) under every
// method, and holds each answer to the contract: never a redirect, always JSON, the error
// envelope on every failure and Allow on every 405. The standard mux's trailing-slash
// redirect once leaked through as a 307. Routing is the same on both databases, so this runs
// on SQLite only.
func TestNoRouteShapeRedirects(t *testing.T) {
	e := newEnv(t, "sqlite", chat.Config{})
	e.mustUser("u1", "U1")
	e.mustUser("u2", "U2")
	e.mustText("u1", "u2", "hi")
	hc := &http.Client{Transport: e.http.Transport, Timeout: e.http.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	var patterns []string
	for _, r := range httpapi.Routes() {
		_, p, _ := strings.Cut(r, " ")
		patterns = append(patterns, p)
	}
	for _, p := range httpapi.NotYetPatterns {
		if _, after, found := strings.Cut(p, " "); found {
			p = after
		}
		patterns = append(patterns, p)
	}
	params := regexp.MustCompile(`\{[^}]*\}`)
	paths := map[string]bool{}
	add := func(p string) {
		for _, prefix := range []string{"/v3", "/v3.0"} {
			paths[prefix+p] = true
		}
	}
	for _, p := range patterns {
		p = params.ReplaceAllStringFunc(p, func(s string) string {
			switch s {
			case "{id}":
				return "1"
			case "{uid}":
				return "u1"
			case "{apiKey}":
				return strings.Repeat("ab", 20)
			}
			return "x"
		})
		base := strings.TrimSuffix(p, "/")
		segs := strings.Split(strings.TrimPrefix(base, "/"), "/")
		for i := 1; i <= len(segs); i++ { // the path and each of its ancestors
			q := "/" + strings.Join(segs[:i], "/")
			add(q)
			add(q + "/")
			add(q + "//")
			add(q + "/x")
			if j := strings.LastIndex(q, "/"); j > 0 {
				add(q[:j] + "/" + q[j:]) // a doubled slash inside
			}
		}
	}
	add("")
	add("/")
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)

	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}
	n := 0
	for _, p := range sorted {
		for _, m := range methods {
			n++
			req, err := http.NewRequest(m, e.srv.URL+p, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("apikey", e.full)
			req.Header.Set("onBehalfOf", "u1")
			res, err := hc.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode >= 300 && res.StatusCode < 400 || res.Header.Get("Location") != "" {
				t.Errorf("%s %s: %d Location %q", m, p, res.StatusCode, res.Header.Get("Location"))
				continue
			}
			if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
				t.Errorf("%s %s: %d Content-Type %q", m, p, res.StatusCode, res.Header.Get("Content-Type"))
				continue
			}
			if res.StatusCode == http.StatusMethodNotAllowed && res.Header.Get("Allow") == "" {
				t.Errorf("%s %s: 405 without Allow", m, p)
			}
			if m == "HEAD" {
				continue
			}
			var env struct {
				Data  json.RawMessage `json:"data"`
				Error *struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &env); err != nil {
				t.Errorf("%s %s: %d not JSON: %s", m, p, res.StatusCode, body)
				continue
			}
			if res.StatusCode >= 400 && (env.Error == nil || env.Error.Code == "") {
				t.Errorf("%s %s: %d without the error envelope: %s", m, p, res.StatusCode, body)
			}
			if res.StatusCode == 200 && env.Data == nil {
				t.Errorf("%s %s: 200 without data: %s", m, p, body)
			}
		}
	}
	t.Logf("%d requests over %d paths", n, len(sorted))

	// The case of the report: once 307 to ".../reactions/", now 405 (docs/api-decisions.md).
	for _, m := range []string{"POST", "DELETE"} {
		r := e.do(request{method: m, path: "/v3/messages/1/reactions", headers: map[string]string{"onBehalfOf": "u1"}})
		if r.status != 405 || r.code != "ERR_METHOD_NOT_ALLOWED" || r.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /v3/messages/1/reactions: %d %v %s", m, r.status, r.header, r.body)
		}
	}
}

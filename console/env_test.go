package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/console"
	"github.com/natter-chat/natter/internal/chattest"
	"github.com/natter-chat/natter/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clock is the tests' settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// env is a console over a real database, in front of a stand-in for the API that answers
// every other request 404 "api".
type env struct {
	svc     *chat.Service
	srv     *httptest.Server
	clock   *clock
	app     chat.App
	full    string // the app's fullAccess key
	authKey string // its authOnly key
	other   string // another app's fullAccess key

	pubMu     sync.Mutex
	published []chat.Message // the messages the feed announced that sockets show
	reactions []string       // "uid reaction messageID" of each reaction it announced
}

// sent is the data of each message the feed announced that sockets show, in order.
func (e *env) sent() []string {
	e.pubMu.Lock()
	defer e.pubMu.Unlock()
	var out []string
	for _, m := range e.published {
		out = append(out, string(m.Data))
	}
	return out
}

func newEnv(t *testing.T, backend string) *env {
	t.Helper()
	e := &env{clock: &clock{t: time.Now()}}
	// Private webhook URLs are allowed: the browser test delivers to a local receiver. The
	// import limit is low so the overview test can exceed it (the console takes no rate).
	rig := chattest.Open(t, backend, chat.Config{Now: e.clock.now, MaxReactions: chat.DefaultMaxReactions, WebhookAllowPrivate: true,
		RateLimits: chat.RateLimits{Import: 2}})
	e.svc = rig.Svc
	ctx := context.Background()
	e.app, e.full, e.authKey = rig.App, rig.FullKey, rig.AuthKey
	_, keys, err := e.svc.CreateApp(ctx, chat.AppCreate{ID: "other", Region: "eu"})
	if err != nil {
		t.Fatal(err)
	}
	e.other = keys[0].Value
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "api", http.StatusNotFound) })
	// What the console's writes announce, as the socket hub hears it: the console publishes
	// nothing itself.
	e.svc.Subscribe(func(changes []chat.Change) {
		e.pubMu.Lock()
		defer e.pubMu.Unlock()
		for _, c := range changes {
			switch {
			case c.Kind == chat.ChangeMessage && c.Message != nil && c.Message.ID != 0 && c.Message.Moderation == "":
				e.published = append(e.published, *c.Message)
			case c.Kind == chat.ChangeReaction && c.Effect != chat.ReactionUnchanged:
				e.reactions = append(e.reactions, fmt.Sprintf("%s %s %d", c.Actor, c.Subject, c.MessageID))
			}
		}
	})
	e.srv = httptest.NewServer(console.New(e.svc, console.Options{Domain: "natter.test"}).Wrap(api))
	t.Cleanup(e.srv.Close)
	return e
}

// browser is an HTTP client with a cookie jar that does not follow redirects.
func (e *env) browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var hiddenCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// get fetches a console page and returns its status and body.
func (e *env) get(t *testing.T, c *http.Client, path string) (int, string) {
	t.Helper()
	res, err := c.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// post submits a form as a same-origin browser would (Origin and Sec-Fetch-Site set).
func (e *env) post(t *testing.T, c *http.Client, path string, form url.Values, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(strings.NewReader(string(b)))
	return res
}

// signIn signs c in with key and returns the session's CSRF token.
func (e *env) signIn(t *testing.T, c *http.Client, appID, key string) (*http.Response, string) {
	t.Helper()
	_, body := e.get(t, c, "/console/signin")
	m := hiddenCSRF.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no sign-in token in %s", body)
	}
	res := e.post(t, c, "/console/signin", url.Values{"csrf": {m[1]}, "appId": {appID}, "apiKey": {key}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		return res, ""
	}
	code, body := e.get(t, c, "/console/")
	if code != http.StatusOK {
		t.Fatalf("overview after sign-in: %d %s", code, body)
	}
	m = hiddenCSRF.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on the overview: %s", body)
	}
	return res, m[1]
}

func body(res *http.Response) string {
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// burstResult counts a burst's answers.
type burstResult struct {
	accepted, refused int
}

// burst sends n requests, request i to bases[i % len(bases)], from par goroutines, and checks
// that every answer is a success or a well-formed 429 for a limit of limit.
func (e *env) burst(bases []string, n, par, limit int, mk func(i int) (method, path, body string)) burstResult {
	e.t.Helper()
	var accepted, refused atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				method, path, body := mk(i)
				req, _ := http.NewRequest(method, bases[i%len(bases)]+path, strings.NewReader(body))
				req.Header.Set("apikey", e.full)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				res, err := e.http.Do(req)
				if err != nil {
					e.t.Error(err)
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if got := res.Header.Get("X-Rate-Limit"); got != strconv.Itoa(limit) {
					e.t.Errorf("%s %s → %d: X-Rate-Limit %q, want %d", method, path, res.StatusCode, got, limit)
				}
				rem, err := strconv.Atoi(res.Header.Get("X-Rate-Limit-Remaining"))
				if err != nil || rem < 0 || rem >= limit {
					e.t.Errorf("X-Rate-Limit-Remaining %q", res.Header.Get("X-Rate-Limit-Remaining"))
				}
				switch res.StatusCode {
				case http.StatusOK:
					accepted.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
					var env struct{ Error struct{ Code string } }
					json.Unmarshal(b, &env)
					retry, err1 := strconv.Atoi(res.Header.Get("Retry-After"))
					_, err2 := strconv.ParseInt(res.Header.Get("X-Rate-Limit-Reset"), 10, 64)
					if env.Error.Code != "ERR_TOO_MANY_REQUESTS" || err1 != nil || retry < 1 || retry > 60 || err2 != nil || rem != 0 {
						e.t.Errorf("429: code %q, Retry-After %q, X-Rate-Limit-Reset %q, remaining %d", env.Error.Code,
							res.Header.Get("Retry-After"), res.Header.Get("X-Rate-Limit-Reset"), rem)
					}
				default:
					e.t.Errorf("%s %s → %d %s", method, path, res.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	return burstResult{int(accepted.Load()), int(refused.Load())}
}

func createUserReq(prefix string) func(i int) (string, string, string) {
	return func(i int) (string, string, string) {
		return "POST", "/v3/users", fmt.Sprintf(`{"uid":"%s%d","name":"U"}`, prefix, i)
	}
}

// One node counts exactly: a burst over the limit lets the limit through and refuses the
// rest with 429 and its headers, having written nothing for them; core and standard
// operations have limits of their own.
func TestRateLimitOneNode(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := newEnvWith(t, backend, chat.Config{RateLimits: chat.RateLimits{Core: 20, Standard: 30}}, httpapi.Options{})
			got := e.burst([]string{e.srv.URL}, 35, 8, 20, createUserReq("u"))
			if got != (burstResult{20, 15}) {
				t.Errorf("core burst: %+v, want 20 accepted and 15 refused", got)
			}
			if n := e.count("SELECT COUNT(*) FROM users"); n != 20 {
				t.Errorf("%d users written, want 20", n)
			}
			got = e.burst([]string{e.srv.URL}, 40, 8, 30, func(int) (string, string, string) { return "GET", "/v3/users", "" })
			if got != (burstResult{30, 10}) {
				t.Errorf("standard burst: %+v, want 30 accepted and 10 refused", got)
			}
			// The refusals are counted for the app, for the console's overview.
			days, err := e.svc.Console().DailyMessages(e.ctx(), chat.Principal{App: e.app}, 1)
			if err != nil || len(days) != 1 || days[0].RateLimited != 25 {
				t.Errorf("refusals counted: %+v, %v; want 25 today", days, err)
			}
			// An unauthenticated request is not counted and carries no limit.
			r := e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"apikey": "no-such-key-0123456789"}})
			if r.status != 401 || r.header.Get("X-Rate-Limit") != "" {
				t.Errorf("unauthenticated: %d, X-Rate-Limit %q", r.status, r.header.Get("X-Rate-Limit"))
			}
			// Another app has limits of its own: this one's core limit is spent.
			other, _ := e.newApp("other", "eu")
			if _, err := other.CreateUser(e.ctx(), client.CreateUserRequest{UID: "x1", Name: "X"}); err != nil {
				t.Errorf("another app: %v", err)
			}
		})
	}
}

// Two nodes on one PostgreSQL hold the limit to within 1 %, never over it, and every refused
// request wrote nothing.
func TestRateLimitTwoNodes(t *testing.T) {
	cfg := chat.Config{RateLimits: chat.RateLimits{Core: 400, Standard: 2000}}
	e := newEnvWith(t, "postgres", cfg, httpapi.Options{})
	second := e.secondNodeWith(cfg, httpapi.Options{})
	nodes := []string{e.srv.URL, second}

	got := e.burst(nodes, 800, 16, 400, createUserReq("n"))
	if got.accepted > 400 || got.accepted < 396 || got.accepted+got.refused != 800 {
		t.Errorf("core burst on two nodes: %+v, want 396 to 400 accepted of 800", got)
	}
	if n := e.count("SELECT COUNT(*) FROM users"); n != got.accepted {
		t.Errorf("%d users written, %d accepted", n, got.accepted)
	}
	got = e.burst(nodes, 2400, 16, 2000, func(int) (string, string, string) { return "GET", "/v3/users?perPage=1", "" })
	if got.accepted > 2000 || got.accepted < 1980 {
		t.Errorf("standard burst on two nodes: %+v, want 1980 to 2000 accepted", got)
	}
	if n := e.count("SELECT COUNT(*) FROM rate_counters"); n != 2 {
		t.Errorf("%d shared counters, want one per class used", n)
	}
}

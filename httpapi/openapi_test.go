package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/httpapi"
)

const openAPIPath = "../api/openapi.yaml"

// TestOpenAPIDescribesEveryRoute keeps api/openapi.yaml and the route table in step: every
// route is an operation of the spec, and every operation is a route.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	spec := loadSpec(t) // loaded once per test binary: it takes seconds
	routes, ops := httpapi.Routes(), spec.Operations()
	if len(routes) == 0 || len(ops) == 0 {
		t.Fatalf("%d routes, %d operations", len(routes), len(ops))
	}
	for _, r := range routes {
		if !slices.Contains(ops, r) {
			t.Errorf("route %q is not described in %s", r, openAPIPath)
		}
	}
	for _, op := range ops {
		if !slices.Contains(routes, op) {
			t.Errorf("%s describes %q, which is not a route in httpapi/routes.go", openAPIPath, op)
		}
	}
	seen := map[string]bool{}
	for _, op := range ops {
		if seen[op] {
			t.Errorf("operation %q is listed twice", op)
		}
		seen[op] = true
	}
}

// recordingTB is a testing.TB that records Errorf instead of failing the test.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := r.errs
	r.errs = nil
	return errs
}

// driftCase is one canned response for TestOpenAPIValidatorCatchesDrift.
type driftCase struct {
	name        string
	method      string
	path        string
	status      int
	contentType string // default application/json
	noRequestID bool
	requestID   string // default abc123
	body        string
	wantErr     string // "" when the response conforms; else a fragment of the report
}

// TestOpenAPIValidatorCatchesDrift proves the contract transport flags responses that break
// the spec and passes ones that keep it, leaving the body readable either way.
func TestOpenAPIValidatorCatchesDrift(t *testing.T) {
	spec := loadSpec(t) // loaded once per test binary: it takes seconds
	const (
		user         = `{"uid":"alice","name":"Alice","status":"offline","role":"default","createdAt":1795000000}`
		entities     = `"entities":{"sender":{"entity":{"uid":"alice","name":"Alice","role":"default","status":"offline"},"entityType":"user"},"receiver":{"entity":{"uid":"bob","name":"Bob","role":"default","status":"offline","conversationId":"alice_user_bob"},"entityType":"user"}}`
		messageHead  = `"id":"7","conversationId":"alice_user_bob","sender":"alice","receiverType":"user","receiver":"bob","category":"message","type":"text"`
		messageTimes = `"sentAt":1795000000,"updatedAt":1795000000`
		notFound     = `{"error":{"message":"The requested API does not exist.","devMessage":"The requested API does not exist.","source":"chat-api","code":"ERR_API_NOT_FOUND"}}`
		notAllowed   = `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_METHOD_NOT_ALLOWED"}}`
		noKey        = `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"AUTH_ERR_EMPTY_APIKEY"}}`
	)
	message := func(data string) string {
		return `{"data":{` + messageHead + `,"data":` + data + `,` + messageTimes + `}}`
	}
	cases := []driftCase{
		{name: "valid user", method: "GET", path: "/v3/users/alice", status: 200, body: `{"data":` + user + `}`},
		{name: "valid user under /v3.0", method: "GET", path: "/v3.0/users/alice", status: 200, body: `{"data":` + user + `}`},
		{name: "all-digit request id", method: "GET", path: "/v3/users/alice", status: 200, requestID: "1234567890123456",
			body: `{"data":` + user + `}`},
		{name: "user without uid", method: "GET", path: "/v3/users/alice", status: 200,
			body: `{"data":{"name":"Alice","status":"offline","role":"default","createdAt":1795000000}}`, wantErr: "uid"},
		{name: "user with an unknown key", method: "GET", path: "/v3.0/users/alice", status: 200,
			body: `{"data":` + strings.TrimSuffix(user, "}") + `,"nickname":"al"}}`, wantErr: "nickname"},
		{name: "time as a string", method: "GET", path: "/v3/users/alice", status: 200,
			body: `{"data":` + strings.Replace(user, "1795000000", `"1795000000"`, 1) + `}`, wantErr: "createdAt"},
		{name: "wrong content type", method: "GET", path: "/v3/users/alice", status: 200, contentType: "text/plain",
			body: `{"data":` + user + `}`, wantErr: "text/plain"},
		{name: "no X-Request-Id", method: "GET", path: "/v3/users/alice", status: 200, noRequestID: true,
			body: `{"data":` + user + `}`, wantErr: "X-Request-Id"},
		{name: "undocumented status", method: "GET", path: "/v3/users/alice", status: 409,
			body: `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_MESSAGE_ACTION_NOT_ALLOWED"}}`, wantErr: "409"},
		{name: "valid error", method: "GET", path: "/v3/users/nobody", status: 404,
			body: `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_UID_NOT_FOUND"}}`},
		{name: "error code of another status", method: "GET", path: "/v3/users/nobody", status: 404,
			body: `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"AUTH_ERR_NO_ACCESS"}}`, wantErr: "code"},
		{name: "error with an unknown key", method: "GET", path: "/v3/users/nobody", status: 404,
			body: `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_UID_NOT_FOUND","status":404}}`, wantErr: "status"},
		{name: "valid message with reactions", method: "POST", path: "/v3/messages/7/reactions/%F0%9F%91%8D", status: 200,
			body: message(`{"text":"hi","x-own":1,` + entities + `,"reactions":[{"reaction":"👍","count":1,"reactedByMe":true}]}`)},
		{name: "reactedByMe false", method: "POST", path: "/v3/messages/7/reactions/a%2Fb", status: 200,
			body: message(`{"text":"hi",` + entities + `,"reactions":[{"reaction":"a/b","count":1,"reactedByMe":false}]}`), wantErr: "reactedByMe"},
		{name: "message id as a number", method: "GET", path: "/v3/messages/7", status: 200,
			body: strings.Replace(message(`{`+entities+`}`), `"id":"7"`, `"id":7`, 1), wantErr: "id"},
		{name: "action message without by", method: "DELETE", path: "/v3/messages/7", status: 200,
			body:    `{"data":{"id":"8","conversationId":"alice_user_bob","sender":"alice","receiverType":"user","receiver":"bob","category":"action","type":"message","data":{"action":"deleted","entities":{"for":{"entity":{"uid":"bob","name":"Bob","role":"default","status":"offline"},"entityType":"user"}}},` + messageTimes + `}}`,
			wantErr: "by"},
		{name: "unknown path answered 404", method: "GET", path: "/v3/nothing", status: 404, body: notFound},
		{name: "unknown path answered 200", method: "GET", path: "/v3/nothing", status: 200, body: `{"data":{}}`, wantErr: "unknown path"},
		{name: "known path, other method, no Allow", method: "PATCH", path: "/v3/users", status: 405, body: notAllowed, wantErr: "Allow"},
		{name: "known path, other method, 404's code", method: "PATCH", path: "/v3/users", status: 405, body: notFound, wantErr: "ERR_METHOD_NOT_ALLOWED"},
		{name: "feature natter lacks, no key", method: "GET", path: "/v3/calls", status: 401, body: noKey},
		{name: "feature natter lacks, 401 with another code", method: "GET", path: "/v3/calls", status: 401, body: notFound, wantErr: "code"},
		{name: "empty reaction routed", method: "POST", path: "/v3/messages/7/reactions/", status: 400,
			body: `{"error":{"message":"m","devMessage":"m","source":"chat-api","details":{"reaction":["The reaction may not be empty."]},"code":"ERR_BAD_REQUEST"}}`},
		{name: "empty reaction not routed", method: "GET", path: "/v3/messages/7/reactions/", status: 405, body: notAllowed},
		{name: "empty uid not routed", method: "GET", path: "/v3/users/", status: 404, body: notFound},
		{name: "empty uid, a method of no operation, not routed", method: "POST", path: "/v3/users/", status: 404, body: notFound},
		{name: "empty reaction, wrong shape", method: "DELETE", path: "/v3.0/messages/7/reactions/", status: 200,
			body: message(`{"text":"hi"}`), wantErr: "entities"},
		{name: "outside the API", method: "GET", path: "/healthz", status: 200, body: `{"status":"ok"}`},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := cases[slices.IndexFunc(cases, func(c driftCase) bool { return c.name == r.Header.Get("X-Case") })]
		ct := c.contentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		if !c.noRequestID {
			id := c.requestID
			if id == "" {
				id = "abc123"
			}
			w.Header().Set("X-Request-Id", id)
		}
		if c.status == http.StatusMethodNotAllowed && !strings.Contains(c.wantErr, "Allow") {
			w.Header().Set("Allow", "GET, POST")
		}
		w.WriteHeader(c.status)
		io.WriteString(w, c.body+"\n")
	}))
	defer srv.Close()

	rec := &recordingTB{TB: t}
	hc := &http.Client{Transport: spec.Transport(rec, http.DefaultTransport)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Case", c.name)
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || string(body) != c.body+"\n" {
				t.Errorf("caller read %q, %v; want the body the server sent", body, err)
			}
			errs := rec.take()
			switch {
			case c.wantErr == "" && len(errs) > 0:
				t.Errorf("conforming response flagged:\n%s", strings.Join(errs, "\n"))
			case c.wantErr != "" && len(errs) == 0:
				t.Errorf("drift not flagged (want a report mentioning %q)", c.wantErr)
			case c.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), c.wantErr):
				t.Errorf("report does not mention %q:\n%s", c.wantErr, strings.Join(errs, "\n"))
			}
			if len(errs) > 0 {
				t.Logf("report: %s", errs[0])
			}
		})
	}
}

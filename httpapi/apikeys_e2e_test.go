package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
)

func TestAPIKeys(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		r := e.do(request{method: "POST", path: "/v3/apikeys", body: `{"name":"ops","scope":"fullAccess"}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		k, err := e.c.GetAPIKey(e.ctx(), strings.Split(strings.Split(string(r.body), `"apiKey":"`)[1], `"`)[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(k.APIKey) != 40 || strings.Trim(k.APIKey, "0123456789abcdef") != "" || k.Scope != "fullAccess" {
			t.Fatalf("key: %+v", k)
		}
		golden(t, "apikey_create", r.body, k.APIKey, "KEY")
		ops := client.New(e.srv.URL, k.APIKey, client.WithHTTPClient(e.http))

		// Lists mask every key; the default scope is authOnly.
		def, err := e.c.CreateAPIKey(e.ctx(), "login", "")
		if err != nil || def.Scope != "authOnly" {
			t.Fatalf("default scope: %+v %v", def, err)
		}
		l, err := e.c.ListAPIKeys(e.ctx(), client.ListAPIKeysParams{})
		if err != nil || l.Pagination.Total != 4 {
			t.Fatalf("list: %+v %v", l, err)
		}
		for _, x := range l.Keys {
			if strings.Count(x.APIKey, "*") != 32 || strings.Contains(x.APIKey, k.APIKey[4:36]) {
				t.Errorf("list shows a key unmasked: %q", x.APIKey)
			}
		}
		if l, _ := e.c.ListAPIKeys(e.ctx(), client.ListAPIKeysParams{Scope: "fullAccess", SearchKey: "OP"}); l == nil || len(l.Keys) != 1 || l.Keys[0].Name != "ops" {
			t.Errorf("filtered list: %+v", l)
		}

		// A key may not change or delete itself; another fullAccess key may.
		name := "renamed"
		_, err = ops.UpdateAPIKey(e.ctx(), k.APIKey, &name, nil)
		apiErr(t, err, 403, "ERR_APIKEY_NO_SELF_ACTION")
		_, err = ops.DeleteAPIKey(e.ctx(), k.APIKey)
		apiErr(t, err, 403, "ERR_APIKEY_NO_SELF_ACTION")
		scope := "authOnly"
		up, err := e.c.UpdateAPIKey(e.ctx(), k.APIKey, &name, &scope)
		if err != nil || up.Name != name || up.Scope != "authOnly" || up.UpdatedAt == 0 {
			t.Fatalf("update: %+v %v", up, err)
		}
		_, err = ops.ListUsers(e.ctx(), client.ListUsersParams{})
		apiErr(t, err, 403, "AUTH_ERR_NO_ACCESS") // the scope change took effect at once on this node
		ack, err := e.c.DeleteAPIKey(e.ctx(), k.APIKey)
		if err != nil || !ack.Success || strings.Contains(ack.Message, k.APIKey) {
			t.Fatalf("delete: %+v %v", ack, err)
		}
		_, err = ops.CreateUser(e.ctx(), client.CreateUserRequest{UID: "x", Name: "x"})
		apiErr(t, err, 401, "AUTH_ERR_APIKEY_NOT_FOUND")
		_, err = e.c.GetAPIKey(e.ctx(), k.APIKey)
		apiErr(t, err, 404, "ERR_APIKEY_NOT_FOUND")
		_, err = e.c.DeleteAPIKey(e.ctx(), k.APIKey)
		apiErr(t, err, 404, "ERR_APIKEY_NOT_FOUND")

		// At most 25 keys per app, even when created at once.
		have := 3
		errs := make(chan error, 30)
		for i := 0; i < 30; i++ {
			go func() { _, err := e.c.CreateAPIKey(e.ctx(), fmt.Sprint("k", i), "authOnly"); errs <- err }()
		}
		created := 0
		for i := 0; i < 30; i++ {
			if err := <-errs; err == nil {
				created++
			} else {
				apiErr(t, err, 400, "ERR_BAD_REQUEST")
			}
		}
		if have+created != 25 || e.count("SELECT COUNT(*) FROM api_keys WHERE app_id = 'demo'") != 25 {
			t.Fatalf("created %d more keys over %d", created, have)
		}
		for _, tc := range []struct{ body, field string }{
			{`{}`, "name"},
			{`{"name":"` + strings.Repeat("n", 51) + `"}`, "name"},
			{`{"name":"x","scope":"root"}`, "scope"},
		} {
			r := e.do(request{method: "PUT", path: "/v3/apikeys/" + def.APIKey, body: tc.body})
			if tc.body == `{}` {
				r = e.do(request{method: "POST", path: "/v3/apikeys", body: tc.body})
			}
			if r.status != 400 || !strings.Contains(string(r.body), `"`+tc.field+`":[`) {
				t.Errorf("%s: %d %s", tc.body, r.status, r.body)
			}
		}
	})
}

func TestKeyCacheBoundsStaleness(t *testing.T) {
	// Two services on one database stand for two nodes: a key deleted through one stops
	// working on the other within the cache TTL.
	e := newEnv(t, "sqlite", defaultConfigWithTTL(300*time.Millisecond))
	k, err := e.c.CreateAPIKey(e.ctx(), "temp", "fullAccess")
	if err != nil {
		t.Fatal(err)
	}
	node2 := e.secondNode(defaultConfigWithTTL(300 * time.Millisecond))
	c2 := client.New(node2, k.APIKey, client.WithHTTPClient(e.http))
	if _, err := c2.ListUsers(e.ctx(), client.ListUsersParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.DeleteAPIKey(e.ctx(), k.APIKey); err != nil {
		t.Fatal(err)
	}
	// A request that began 2 s after the deletion must fail: when it ends does not count (on
	// a loaded machine a request begun in time may answer late, from the cache as it was).
	deadline := time.Now().Add(2 * time.Second)
	for {
		began := time.Now()
		_, err := c2.ListUsers(e.ctx(), client.ListUsersParams{})
		if err != nil {
			apiErr(t, err, 401, "AUTH_ERR_APIKEY_NOT_FOUND")
			return
		}
		if began.After(deadline) {
			t.Fatal("deleted key still works on the second node after 2s with a 300ms cache")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

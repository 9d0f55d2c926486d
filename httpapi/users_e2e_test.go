package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

func TestUserLifecycle(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustRole("manager")
		r := e.do(request{method: "POST", path: "/v3/users", body: `{"uid":"Superhero6","name":"Barry Allen","link":"http://placehold.it",
			"avatar":"http://placehold.it/120x120&text=image1","metadata":{"externalId":"1849031","@private":{"email":"b@example.com"}},
			"role":"manager","tags":["Engineer","manager"],"statusMessage":"running"}`})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		golden(t, "user_create", r.body)
		golden(t, "user_get", e.do(request{method: "GET", path: "/v3/users/SUPERHERO6"}).body)

		name := "The Flash"
		u, err := e.c.UpdateUser(e.ctx(), "superhero6", client.UpdateUserRequest{Name: &name, Tags: &[]string{"hero"}, Unset: []string{"avatar", "metadata"}})
		if err != nil {
			t.Fatal(err)
		}
		if u.Name != name || u.Avatar != "" || u.Metadata != nil || strings.Join(u.Tags, ",") != "hero" || u.UpdatedAt == 0 || u.Link == "" {
			t.Fatalf("update: got %+v", u)
		}

		// Deactivated users are not found, but listed on request, and come back.
		e.mustUser("other", "Other")
		got, err := e.c.DeactivateUsers(e.ctx(), []string{"superhero6", "nobody"})
		if err != nil || strings.Join(got, ",") != "superhero6" {
			t.Fatalf("deactivate: %v %v", got, err)
		}
		_, err = e.c.GetUser(e.ctx(), "superhero6")
		apiErr(t, err, 404, "ERR_UID_NOT_FOUND")
		listed := func(p client.ListUsersParams) string {
			t.Helper()
			l, err := e.c.ListUsers(e.ctx(), p)
			if err != nil {
				t.Fatal(err)
			}
			var uids []string
			for _, u := range l.Users {
				uids = append(uids, u.UID)
			}
			return strings.Join(uids, ",")
		}
		if got := listed(client.ListUsersParams{}); got != "other" {
			t.Errorf("list: %s", got)
		}
		if got := listed(client.ListUsersParams{WithDeactivated: true}); got != "other,superhero6" {
			t.Errorf("list withDeactivated: %s", got)
		}
		if got := listed(client.ListUsersParams{OnlyDeactivated: true}); got != "superhero6" {
			t.Errorf("list onlyDeactivated: %s", got)
		}
		_, err = e.c.UpdateUser(e.ctx(), "superhero6", client.UpdateUserRequest{Name: &name})
		apiErr(t, err, 404, "ERR_UID_NOT_FOUND")
		back, err := e.c.ReactivateUsers(e.ctx(), []string{"superhero6"})
		if err != nil || strings.Join(back, ",") != "superhero6" {
			t.Fatalf("reactivate: %v %v", back, err)
		}
		if _, err := e.c.GetUser(e.ctx(), "superhero6"); err != nil {
			t.Fatal(err)
		}

		// Soft delete keeps the uid taken; permanent delete frees it.
		ack, err := e.c.DeleteUser(e.ctx(), "superhero6", false)
		if err != nil || !ack.Success || ack.Message != "User with superhero6 has been deleted successfully." {
			t.Fatalf("delete: %+v %v", ack, err)
		}
		_, err = e.c.GetUser(e.ctx(), "superhero6")
		apiErr(t, err, 404, "ERR_UID_NOT_FOUND")
		_, err = e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "superhero6", Name: "again"})
		apiErr(t, err, 400, "ERR_UID_ALREADY_EXISTS")
		if _, err := e.c.DeleteUser(e.ctx(), "superhero6", true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "superhero6", Name: "again"}); err != nil {
			t.Fatal(err)
		}
		_, err = e.c.DeleteUser(e.ctx(), "ghost", false)
		apiErr(t, err, 404, "ERR_UID_NOT_FOUND")
	})
}

func TestListUsers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustRole("admin")
		for i, spec := range []struct {
			uid, name, role string
			tags            []string
		}{
			{"u1", "Ann", "default", []string{"red"}},
			{"u2", "bob", "admin", []string{"blue", "red"}},
			{"u3", "Annie", "admin", nil},
			{"x4", "Carl", "default", []string{"blue"}},
			{"x5", "an_d%", "default", nil},
		} {
			if _, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: spec.uid, Name: spec.name, Role: spec.role, Tags: spec.tags}); err != nil {
				t.Fatalf("user %d: %v", i, err)
			}
		}
		for _, tc := range []struct {
			name string
			p    client.ListUsersParams
			want string
		}{
			{"all by name", client.ListUsersParams{}, "x5,u1,u3,u2,x4"},
			{"searchKey prefix on name and uid, case-insensitive", client.ListUsersParams{SearchKey: "AN"}, "x5,u1,u3"},
			{"searchKey in uid only", client.ListUsersParams{SearchKey: "x", SearchIn: []string{"uid"}}, "x5,x4"},
			{"LIKE wildcards are literal", client.ListUsersParams{SearchKey: "an_d%"}, "x5"},
			{"roles", client.ListUsersParams{Roles: []string{"admin"}}, "u3,u2"},
			{"tags match any", client.ListUsersParams{Tags: []string{"blue"}}, "u2,x4"},
			{"status", client.ListUsersParams{Status: "available"}, ""},
			{"page 2 of 2", client.ListUsersParams{PerPage: 3, Page: 2}, "u2,x4"},
		} {
			l, err := e.c.ListUsers(e.ctx(), tc.p)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var uids []string
			for _, u := range l.Users {
				uids = append(uids, u.UID)
				if !tc.p.WithTags && u.Tags != nil {
					t.Errorf("%s: tags listed without withTags", tc.name)
				}
			}
			if got := strings.Join(uids, ","); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
		r := e.do(request{method: "GET", path: "/v3/users?perPage=2&page=2&withTags=true"})
		golden(t, "user_list_page", r.body)

		// On a user's behalf, each user carries its conversation with that user.
		r = e.do(request{method: "GET", path: "/v3/users?searchKey=u", headers: map[string]string{"onBehalfOf": "U2"}})
		if r.status != 200 || !strings.Contains(string(r.body), `"uid":"u1","name":"Ann","status":"offline","role":"default","createdAt":`) ||
			strings.Count(string(r.body), `"conversationId":`) != 3 || !strings.Contains(string(r.body), `"conversationId":"u1_user_u2"`) {
			t.Fatalf("on behalf of u2: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "GET", path: "/v3/users", headers: map[string]string{"onBehalfOf": "ghost"}}); r.status != 404 {
			t.Fatalf("on behalf of an unknown user: %d %s", r.status, r.body)
		}
	})
}

func TestUserValidation(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("taken", "Taken")
		long := strings.Repeat("a", 101)
		tags26 := `[` + strings.TrimSuffix(strings.Repeat(`"t",`, 26), ",") + `]`
		bigMeta := `{"k":"` + strings.Repeat("x", 5200) + `"}`
		for _, tc := range []struct {
			name, method, path, body string
			status                   int
			code, field              string
		}{
			{"missing uid and name", "POST", "/v3/users", `{}`, 400, "ERR_BAD_REQUEST", "uid"},
			{"empty body", "POST", "/v3/users", ``, 400, "ERR_BAD_REQUEST", "name"},
			{"invalid uid characters", "POST", "/v3/users", `{"uid":"a b","name":"x"}`, 400, "ERR_BAD_REQUEST", "uid"},
			{"uid with a dot", "POST", "/v3/users", `{"uid":"a.b","name":"x"}`, 400, "ERR_BAD_REQUEST", "uid"},
			{"uid over 100", "POST", "/v3/users", `{"uid":"` + long + `","name":"x"}`, 400, "ERR_BAD_REQUEST", "uid"},
			{"name over 100", "POST", "/v3/users", `{"uid":"n","name":"` + long + `"}`, 400, "ERR_BAD_REQUEST", "name"},
			{"avatar over 3000", "POST", "/v3/users", `{"uid":"n","name":"x","avatar":"` + strings.Repeat("a", 3001) + `"}`, 400, "ERR_BAD_REQUEST", "avatar"},
			{"26 tags", "POST", "/v3/users", `{"uid":"n","name":"x","tags":` + tags26 + `}`, 400, "ERR_BAD_REQUEST", "tags"},
			{"tag over 100", "POST", "/v3/users", `{"uid":"n","name":"x","tags":["` + long + `"]}`, 400, "ERR_BAD_REQUEST", "tags"},
			{"metadata not an object", "POST", "/v3/users", `{"uid":"n","name":"x","metadata":[1]}`, 400, "ERR_BAD_REQUEST", "metadata"},
			{"metadata over 5 KB", "POST", "/v3/users", `{"uid":"n","name":"x","metadata":` + bigMeta + `}`, 400, "ERR_BAD_REQUEST", "metadata"},
			{"name of the wrong type", "POST", "/v3/users", `{"uid":"n","name":5}`, 400, "ERR_BAD_REQUEST", "name"},
			{"malformed JSON", "POST", "/v3/users", `{"uid":"n",`, 400, "ERR_BAD_REQUEST", ""},
			{"two JSON values", "POST", "/v3/users", `{"uid":"n","name":"x"} {}`, 400, "ERR_BAD_REQUEST", ""},
			{"duplicate uid, other case", "POST", "/v3/users", `{"uid":"TAKEN","name":"x"}`, 400, "ERR_UID_ALREADY_EXISTS", ""},
			{"update unknown unset", "PUT", "/v3/users/taken", `{"unset":["name"]}`, 400, "ERR_BAD_REQUEST", "unset"},
			{"update empty name", "PUT", "/v3/users/taken", `{"name":""}`, 400, "ERR_BAD_REQUEST", "name"},
			{"update unknown user", "PUT", "/v3/users/ghost", `{"name":"x"}`, 404, "ERR_UID_NOT_FOUND", ""},
			{"get invalid uid", "GET", "/v3/users/a%20b", ``, 404, "ERR_UID_NOT_FOUND", ""},
			{"list perPage over 1000", "GET", "/v3/users?perPage=1001", ``, 400, "ERR_BAD_REQUEST", "perPage"},
			{"list page 0", "GET", "/v3/users?page=0", ``, 400, "ERR_BAD_REQUEST", "page"},
			{"list bad boolean", "GET", "/v3/users?withTags=maybe", ``, 400, "ERR_BAD_REQUEST", "withTags"},
			{"list bad status", "GET", "/v3/users?status=busy", ``, 400, "ERR_BAD_REQUEST", "status"},
			{"list bad searchIn", "GET", "/v3/users?searchKey=a&searchIn=email", ``, 400, "ERR_BAD_REQUEST", "searchIn"},
			{"deactivate nothing", "DELETE", "/v3/users", `{"uidsToDeactivate":[]}`, 400, "ERR_BAD_REQUEST", "uidsToDeactivate"},
			{"deactivate invalid uid", "DELETE", "/v3/users", `{"uidsToDeactivate":["a b"]}`, 400, "ERR_BAD_REQUEST", "uidsToDeactivate"},
			{"reactivate wrong type", "PUT", "/v3/users", `{"uidsToActivate":"taken"}`, 400, "ERR_BAD_REQUEST", "uidsToActivate"},
			{"delete bad permanent", "DELETE", "/v3/users/taken?permanent=perhaps", ``, 400, "ERR_BAD_REQUEST", "permanent"},
			{"withAuthToken not a boolean", "POST", "/v3/users", `{"uid":"n","name":"x","withAuthToken":"yes"}`, 400, "ERR_BAD_REQUEST", "withAuthToken"},
			{"withAuthToken with a taken uid", "POST", "/v3/users", `{"uid":"taken","name":"x","withAuthToken":true}`, 400, "ERR_UID_ALREADY_EXISTS", ""},
			{"withAuthToken with an invalid user", "POST", "/v3/users", `{"uid":"a b","name":"x","withAuthToken":true}`, 400, "ERR_BAD_REQUEST", "uid"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: tc.method, path: tc.path, body: tc.body})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if tc.field != "" && (!strings.Contains(string(r.body), `"details":{`) || !strings.Contains(string(r.body), `"`+tc.field+`":[`)) {
					t.Errorf("details do not name %s: %s", tc.field, r.body)
				}
				if after := e.snapshot(); after != before {
					t.Errorf("a failed request wrote:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		}
	})
}

func TestUserConcurrentCreateSameUID(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		const n = 20
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			go func() {
				_, err := e.c.CreateUser(e.ctx(), client.CreateUserRequest{UID: "race", Name: fmt.Sprint(i)})
				errs <- err
			}()
		}
		ok := 0
		for i := 0; i < n; i++ {
			if err := <-errs; err == nil {
				ok++
			} else if ce, _ := err.(*client.Error); ce == nil || ce.Code != "ERR_UID_ALREADY_EXISTS" || ce.Status != http.StatusBadRequest {
				t.Errorf("unexpected error: %v", err)
			}
		}
		if ok != 1 || e.count("SELECT COUNT(*) FROM users WHERE uid = 'race'") != 1 {
			t.Fatalf("%d creates succeeded", ok)
		}
	})
}

// TestListUsersCursor: every user list carries the hosted service's cursor object, and
// updatedAt with affix pages by change time, nothing skipped.
func TestListUsersCursor(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			var now atomic.Int64
			e := newEnv(t, b, chat.Config{Now: func() time.Time { return time.Unix(now.Load(), 0) }})
			for i, uid := range []string{"u1", "u2", "u3"} {
				now.Store(int64(1000 * (i + 1)))
				e.mustUser(uid, strings.ToUpper(uid))
			}
			now.Store(4000)
			name := "U1 again"
			if _, err := e.c.UpdateUser(e.ctx(), "u1", client.UpdateUserRequest{Name: &name}); err != nil {
				t.Fatal(err)
			}
			type list struct {
				Data []struct{ UID string }
				Meta struct {
					Cursor struct {
						UpdatedAt int64
						Affix     string
					}
				}
				Cursor struct {
					UpdatedAt int64
					Affix     string
				}
			}
			for _, tc := range []struct {
				query, want string
				cursor      int64
				affix       string
			}{
				{"", "u1,u2,u3", 4000, "append"},
				{"?updatedAt=2000", "u2,u3,u1", 4000, "append"},
				{"?updatedAt=3000&affix=prepend", "u3,u2", 2000, "prepend"},
				{"?updatedAt=4000&affix=append", "u1", 4000, "append"},
				{"?updatedAt=5000", "", 5000, "append"},
			} {
				r := e.do(request{method: "GET", path: "/v3/users" + tc.query})
				var l list
				if err := json.Unmarshal(r.body, &l); err != nil || r.status != 200 {
					t.Fatalf("%s: %d %s", tc.query, r.status, r.body)
				}
				var uids []string
				for _, u := range l.Data {
					uids = append(uids, u.UID)
				}
				if got := strings.Join(uids, ","); got != tc.want || l.Meta.Cursor != l.Cursor ||
					l.Cursor.UpdatedAt != tc.cursor || l.Cursor.Affix != tc.affix {
					t.Errorf("%s: %q, cursor %+v (meta %+v); want %q, {%d %s}", tc.query, got, l.Cursor, l.Meta.Cursor, tc.want, tc.cursor, tc.affix)
				}
			}
			// The Go client follows the cursor.
			l, err := e.c.ListUsers(e.ctx(), client.ListUsersParams{UpdatedAt: 3000, Affix: "prepend"})
			if err != nil || len(l.Users) != 2 || l.Users[0].UID != "u3" || l.Cursor != (client.UserCursor{UpdatedAt: 2000, Affix: "prepend"}) {
				t.Errorf("client: %+v %v", l, err)
			}
			for _, q := range []string{"?affix=sideways", "?updatedAt=-1", "?updatedAt=soon"} {
				if r := e.do(request{method: "GET", path: "/v3/users" + q}); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
					t.Errorf("%s: %d %s", q, r.status, r.body)
				}
			}
		})
	}
}

// TestUserListSDKFilters: the filters the SDK's UsersRequestBuilder sends from setUIDs,
// friendsOnly and hideBlockedUsers narrow GET /users (natter once ignored them and listed
// everyone); the last two are the acting user's.
func TestUserListSDKFilters(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat", "dan", "eve"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/users/ann/friends", body: `{"accepted":["bob","cat"]}`})
		e.ok(request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["cat","dan"]}`})
		e.ok(request{method: "POST", path: "/v3/users/eve/blockedusers", body: `{"blockedUids":["ann"]}`})
		for _, tc := range []struct{ query, want string }{
			{"uids=BOB,eve,ghost", "bob,eve"},
			{"friendsOnly=1", "bob,cat"},
			{"hideBlockedUsers=1", "ann,bob,eve"}, // eve blocked ann, not the other way
			{"friendsOnly=true&hideBlockedUsers=true", "bob"},
			{"hideBlockedUsers=1&uids=cat,dan,eve&per_page=1&page=1", "eve"},
			{"friendsOnly=false&hideBlockedUsers=0", "ann,bob,cat,dan,eve"},
		} {
			l, meta := e.list(request{method: "GET", path: "/v3/users?" + tc.query, headers: obo("ann")})
			if got := uids(l, "uid"); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.query, got, tc.want)
			}
			if total := meta["pagination"].(map[string]any)["total"]; total != float64(len(strings.Split(tc.want, ","))) {
				t.Errorf("%s: total %v", tc.query, total)
			}
		}
		before := e.snapshot()
		for _, q := range []string{"friendsOnly=true", "hideBlockedUsers=true", "uids=a%20b", "friendsOnly=maybe"} {
			if r := e.do(request{method: "GET", path: "/v3/users?" + q}); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
				t.Errorf("%s, as no one: %d %s", q, r.status, r.body)
			}
		}
		if e.snapshot() != before {
			t.Error("a refused list wrote")
		}
	})
}

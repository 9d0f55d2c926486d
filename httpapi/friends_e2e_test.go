package httpapi_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

func friendsOf(t *testing.T, e *env, uid string, p client.ListFriendsParams) string {
	t.Helper()
	l, err := e.c.ListFriends(e.ctx(), uid, p)
	if err != nil {
		t.Fatalf("list friends of %s: %v", uid, err)
	}
	var uids []string
	for _, u := range l.Users {
		uids = append(uids, u.UID)
	}
	return strings.Join(uids, ",")
}

func TestFriends(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range [][2]string{{"alice", "Alice"}, {"bob", "Bob"}, {"carol", "Carol"}, {"dave", "Dave"}, {"erin", "Erin"}} {
			e.mustUser(u[0], u[1])
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"dave"}); err != nil {
			t.Fatal(err)
		}
		// Per-uid results: made, self, unknown, deactivated; repeats and case folded.
		r := e.do(request{method: "POST", path: "/v3/users/Alice/friends",
			body: `{"accepted":["bob","CAROL","alice","nobody","Bob","dave"],"addToConversations":true}`})
		if r.status != 200 {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		golden(t, "friends_add", r.body)
		if got := friendsOf(t, e, "alice", client.ListFriendsParams{}); got != "bob,carol" {
			t.Fatalf("alice's friends: %s", got)
		}
		// Symmetric.
		for _, uid := range []string{"bob", "carol"} {
			if got := friendsOf(t, e, uid, client.ListFriendsParams{}); got != "alice" {
				t.Fatalf("%s's friends: %s", uid, got)
			}
		}
		// Already friends, from either side.
		res, err := e.c.AddFriends(e.ctx(), "bob", []string{"alice", "erin"})
		if err != nil || res["alice"].Code != "ERR_ALREADY_FRIEND" || res["alice"].Success || !res["erin"].Success || len(res) != 2 {
			t.Fatalf("add again: %+v %v", res, err)
		}
		// List: search, paging, the cursor and tags as in GET /users.
		r = e.do(request{method: "GET", path: "/v3/users/bob/friends?perPage=1&page=2"})
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		golden(t, "friends_list_page", r.body)
		if got := friendsOf(t, e, "bob", client.ListFriendsParams{SearchKey: "ER"}); got != "erin" {
			t.Errorf("search: %s", got)
		}
		if got := friendsOf(t, e, "bob", client.ListFriendsParams{SearchKey: "ali", SearchIn: []string{"name"}}); got != "alice" {
			t.Errorf("search by name: %s", got)
		}
		// A deactivated friend is not listed while deactivated, and comes back.
		if _, err := e.c.AddFriends(e.ctx(), "erin", []string{"carol"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"carol"}); err != nil {
			t.Fatal(err)
		}
		if got := friendsOf(t, e, "erin", client.ListFriendsParams{}); got != "bob" {
			t.Errorf("with a deactivated friend: %s", got)
		}
		if _, err := e.c.ReactivateUsers(e.ctx(), []string{"carol"}); err != nil {
			t.Fatal(err)
		}
		if got := friendsOf(t, e, "erin", client.ListFriendsParams{}); got != "bob,carol" {
			t.Errorf("reactivated friend: %s", got)
		}

		// Remove is all or nothing.
		before := e.snapshot()
		r = e.do(request{method: "DELETE", path: "/v3/users/alice/friends", body: `{"friends":["bob","erin"]}`})
		if r.status != 404 || r.code != "ERR_NOT_A_FRIEND" || !strings.Contains(string(r.body), "erin") {
			t.Fatalf("remove with a non-friend: %d %s", r.status, r.body)
		}
		r = e.do(request{method: "DELETE", path: "/v3/users/alice/friends", body: `{"friends":["bob","nobody"]}`})
		if r.status != 404 || r.code != "ERR_NOT_A_FRIEND" {
			t.Fatalf("remove with an unknown uid: %d %s", r.status, r.body)
		}
		if e.snapshot() != before {
			t.Fatal("a refused remove removed something")
		}
		ack, err := e.c.RemoveFriends(e.ctx(), "ALICE", []string{"Bob"})
		if err != nil || !ack.Success || ack.Message != "Removed friends successfully for uid alice." {
			t.Fatalf("remove: %+v %v", ack, err)
		}
		if got := friendsOf(t, e, "alice", client.ListFriendsParams{}); got != "carol" {
			t.Errorf("after remove: %s", got)
		}
		if got := friendsOf(t, e, "bob", client.ListFriendsParams{}); got != "erin" {
			t.Errorf("after remove, the other side: %s", got)
		}
		_, err = e.c.RemoveFriends(e.ctx(), "alice", []string{"bob"})
		apiErr(t, err, 404, "ERR_NOT_A_FRIEND")

		// Deleted users take their friendships along, soft-deleted or purged.
		if _, err := e.c.DeleteUser(e.ctx(), "carol", false); err != nil {
			t.Fatal(err)
		}
		if got := friendsOf(t, e, "alice", client.ListFriendsParams{}); got != "" {
			t.Errorf("with a deleted friend: %s", got)
		}
		if n := e.count(`SELECT COUNT(*) FROM friends WHERE uid = 'carol' OR friend_uid = 'carol'`); n != 0 {
			t.Errorf("a deleted user left %d friend rows", n)
		}
		_, err = e.c.ListFriends(e.ctx(), "carol", client.ListFriendsParams{})
		apiErr(t, err, 404, "ERR_UID_NOT_FOUND")
		if _, err := e.c.DeleteUser(e.ctx(), "erin", true); err != nil {
			t.Fatal(err)
		}
		if n := e.count(`SELECT COUNT(*) FROM friends WHERE uid = 'erin' OR friend_uid = 'erin'`); n != 0 {
			t.Errorf("a purged user left %d friend rows", n)
		}
	})
}

func TestFriendsBadInput(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		e.mustUser("gone", "Gone")
		if _, err := e.c.AddFriends(e.ctx(), "alice", []string{"bob", "gone"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.DeactivateUsers(e.ctx(), []string{"gone"}); err != nil {
			t.Fatal(err)
		}
		tok := e.mustToken("alice")
		many := make([]string, chat.MaxFriendsPerCall+1)
		for i := range many {
			many[i] = fmt.Sprintf(`"u%d"`, i)
		}
		key := e.full
		for _, tc := range []struct {
			name, method, path, body string
			headers                  map[string]string
			status                   int
			code, field              string
		}{
			{"add without accepted", "POST", "/v3/users/alice/friends", `{}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add with an empty body", "POST", "/v3/users/alice/friends", ``, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add an empty list", "POST", "/v3/users/alice/friends", `{"accepted":[]}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add 26", "POST", "/v3/users/alice/friends", `{"accepted":[` + strings.Join(many, ",") + `]}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add a malformed uid", "POST", "/v3/users/alice/friends", `{"accepted":["bob","a b"]}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add an empty uid", "POST", "/v3/users/alice/friends", `{"accepted":[""]}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add a string", "POST", "/v3/users/alice/friends", `{"accepted":"bob"}`, nil, 400, "ERR_BAD_REQUEST", "accepted"},
			{"add to an unknown user", "POST", "/v3/users/nobody/friends", `{"accepted":["bob"]}`, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"add to a deactivated user", "POST", "/v3/users/gone/friends", `{"accepted":["bob"]}`, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"add to a malformed uid", "POST", "/v3/users/a%20b/friends", `{"accepted":["bob"]}`, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"add to a key-shaped uid", "POST", "/v3/users/" + key + "/friends", `{"accepted":["bob"]}`, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"add with the authOnly key", "POST", "/v3/users/alice/friends", `{"accepted":["bob"]}`, map[string]string{"apikey": e.authKey}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"add with a token", "POST", "/v3/users/alice/friends", `{"accepted":["bob"]}`, map[string]string{"apikey": "", "authToken": tok}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"list an unknown user's", "GET", "/v3/users/nobody/friends", ``, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"list a deactivated user's", "GET", "/v3/users/gone/friends", ``, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"list perPage 1001", "GET", "/v3/users/alice/friends?perPage=1001", ``, nil, 400, "ERR_BAD_REQUEST", "perPage"},
			{"list bad searchIn", "GET", "/v3/users/alice/friends?searchKey=a&searchIn=email", ``, nil, 400, "ERR_BAD_REQUEST", "searchIn"},
			{"list with a token", "GET", "/v3/users/alice/friends", ``, map[string]string{"apikey": "", "authToken": tok}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"remove without friends", "DELETE", "/v3/users/alice/friends", `{}`, nil, 400, "ERR_BAD_REQUEST", "friends"},
			{"remove 26", "DELETE", "/v3/users/alice/friends", `{"friends":[` + strings.Join(many, ",") + `]}`, nil, 400, "ERR_BAD_REQUEST", "friends"},
			{"remove a malformed uid", "DELETE", "/v3/users/alice/friends", `{"friends":["bob","a b"]}`, nil, 400, "ERR_BAD_REQUEST", "friends"},
			{"remove oneself", "DELETE", "/v3/users/alice/friends", `{"friends":["alice"]}`, nil, 404, "ERR_NOT_A_FRIEND", ""},
			{"remove from an unknown user", "DELETE", "/v3/users/nobody/friends", `{"friends":["bob"]}`, nil, 404, "ERR_UID_NOT_FOUND", ""},
			{"remove with a token", "DELETE", "/v3/users/alice/friends", `{"friends":["bob"]}`, map[string]string{"apikey": "", "authToken": tok}, 403, "AUTH_ERR_NO_ACCESS", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.snapshot()
				r := e.do(request{method: tc.method, path: tc.path, body: tc.body, headers: tc.headers})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if tc.field != "" && !strings.Contains(string(r.body), `"`+tc.field+`":[`) {
					t.Errorf("details do not name %s: %s", tc.field, r.body)
				}
				if strings.Contains(string(r.body), key) || strings.Contains(string(r.body), tok) {
					t.Errorf("the error echoes a credential: %s", r.body)
				}
				if e.snapshot() != before {
					t.Error("a refused request wrote")
				}
			})
		}
		// A deactivated friend can still be removed: the friendship is there.
		if _, err := e.c.RemoveFriends(e.ctx(), "alice", []string{"gone"}); err != nil {
			t.Fatalf("remove a deactivated friend: %v", err)
		}
	})
}

// seedFriends gives uid n friends uid-f0…, written straight into the database a few hundred
// rows per statement (the uids are plain, so they go in as literals).
func seedFriends(t *testing.T, e *env, uid string, n int) {
	t.Helper()
	for from := 0; from < n; from += 250 {
		var users, friends []string
		for i := from; i < min(n, from+250); i++ {
			f := fmt.Sprintf("%s-f%d", uid, i)
			users = append(users, fmt.Sprintf("('demo', '%s', '%s', 1)", f, f))
			friends = append(friends, fmt.Sprintf("('demo', '%s', '%s', 1), ('demo', '%s', '%s', 1)", uid, f, f, uid))
		}
		for _, q := range []string{
			"INSERT INTO users (app_id, uid, name, created_at) VALUES " + strings.Join(users, ", "),
			"INSERT INTO friends (app_id, uid, friend_uid, created_at) VALUES " + strings.Join(friends, ", "),
		} {
			if _, err := e.raw.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestFriendLimit: a user has at most MaxFriends friends; a friendship that would take
// either side past it is refused for that uid alone, and the limit holds under concurrent
// adds.
func TestFriendLimit(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"full", "near", "a", "b", "c"} {
			e.mustUser(u, u)
		}
		seedFriends(t, e, "full", chat.MaxFriends)
		res, err := e.c.AddFriends(e.ctx(), "a", []string{"full", "b"})
		if err != nil || res["full"].Code != "ERR_FAILED_TO_ADD_FRIEND" || !strings.Contains(res["full"].Message, "full") || !res["b"].Success {
			t.Fatalf("adding a user at the limit: %+v %v", res, err)
		}
		res, err = e.c.AddFriends(e.ctx(), "full", []string{"c"})
		if err != nil || res["c"].Code != "ERR_FAILED_TO_ADD_FRIEND" {
			t.Fatalf("a user at the limit adding: %+v %v", res, err)
		}
		// A deleted friend frees its place.
		if _, err := e.c.DeleteUser(e.ctx(), "full-f0", false); err != nil {
			t.Fatal(err)
		}
		if res, err := e.c.AddFriends(e.ctx(), "full", []string{"c"}); err != nil || !res["c"].Success {
			t.Fatalf("after a friend was deleted: %+v %v", res, err)
		}

		// near has MaxFriends-3 friends; 12 concurrent adds of one new friend each: exactly
		// 3 are made.
		seedFriends(t, e, "near", chat.MaxFriends-3)
		var wg sync.WaitGroup
		var mu sync.Mutex
		made := 0
		for i := range 12 {
			uid := fmt.Sprintf("new%d", i)
			e.mustUser(uid, uid)
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := e.c.AddFriends(e.ctx(), uid, []string{"near"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if res["near"].Success {
					made++
				} else if res["near"].Code != "ERR_FAILED_TO_ADD_FRIEND" {
					t.Errorf("%s: %+v", uid, res)
				}
			}()
		}
		wg.Wait()
		if n := e.count(`SELECT COUNT(*) FROM friends WHERE uid = 'near'`); made != 3 || n != chat.MaxFriends {
			t.Errorf("%d made, near has %d friends; want 3 and %d", made, n, chat.MaxFriends)
		}
	})
}

// TestConcurrentFriendAdds: two users adding each other at once, over and over, end as one
// friendship, never a deadlock or a duplicate.
func TestConcurrentFriendAdds(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for i := range 10 {
			a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
			e.mustUser(a, a)
			e.mustUser(b, b)
			var wg sync.WaitGroup
			results := make([]map[string]client.FriendResult, 2)
			for j, pair := range [][2]string{{a, b}, {b, a}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := e.c.AddFriends(e.ctx(), pair[0], []string{pair[1], "a0", "b0"})
					if err != nil {
						t.Error(err)
					}
					results[j] = res
				}()
			}
			wg.Wait()
			if results[0][b].Success == results[1][a].Success {
				t.Fatalf("pair %d: %+v %+v, want exactly one made", i, results[0], results[1])
			}
			if n := e.count(`SELECT COUNT(*) FROM friends WHERE uid = $1 AND friend_uid = $2`, a, b); n != 1 {
				t.Fatalf("pair %d: %d rows", i, n)
			}
		}
	})
}

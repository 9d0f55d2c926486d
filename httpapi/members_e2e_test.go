package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
)

func TestAddMembers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "a1", "m1", "p1", "p2", "b1", "both", "gone"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "DELETE", path: "/v3/users/gone"})
		e.mustGroup("g", "olga")
		r := e.do(request{method: "POST", path: "/v3/groups/g/members", body: `{"admins":["a1","BOTH"],"moderators":["m1"],
			"participants":["p1","p2","p1","both","ghost","gone","bad uid"],"usersToBan":["b1","both"]}`})
		if r.status != 200 {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		golden(t, "group_add_members", r.body)
		var res struct {
			Data map[string]map[string]struct {
				Success bool
				Error   struct{ Code string }
				Data    struct {
					Sender string
					Data   struct {
						Action   string
						Entities struct {
							For struct{ Entity struct{ MembersCount int } }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(r.body, &res); err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]string{ // list → uid → "" for success, else the code
			"admins":       {"a1": "", "both": ""},
			"moderators":   {"m1": ""},
			"participants": {"p1": "", "p2": "", "both": "ERR_BAD_REQUEST", "ghost": "ERR_UID_NOT_FOUND", "gone": "ERR_UID_NOT_FOUND", "bad uid": "ERR_UID_NOT_FOUND"},
			"usersToBan":   {"b1": "", "both": "ERR_BAD_REQUEST"},
		}
		for list, uids := range want {
			for uid, code := range uids {
				got, ok := res.Data[list][uid]
				switch {
				case !ok:
					t.Errorf("%s has no result for %s", list, uid)
				case code == "" && !got.Success, code != "" && (got.Success || got.Error.Code != code):
					t.Errorf("%s[%s] = %+v, want %q", list, uid, got, code)
				}
			}
			if len(res.Data[list]) != len(uids) {
				t.Errorf("%s: %d results, want %d", list, len(res.Data[list]), len(uids))
			}
		}
		if a := res.Data["participants"]["p2"].Data; a.Sender != "app_system" || a.Data.Action != "added" || a.Data.Entities.For.Entity.MembersCount != 6 {
			t.Errorf("p2's action: %+v", a)
		}
		// The member wins over the ban: both is an admin and not banned.
		e.assertMembersCount("g", 6)
		if n := e.count(`SELECT COUNT(*) FROM group_members WHERE uid = 'both' AND scope = 'admin'`); n != 1 {
			t.Error("both is not an admin")
		}
		if n := e.count(`SELECT COUNT(*) FROM group_bans`); n != 1 {
			t.Errorf("%d bans, want 1 (b1)", n)
		}

		// Listing, filtered by scope, paged.
		data, meta := e.list(request{method: "GET", path: "/v3/groups/g/members?scopes=admin,moderator&perPage=2"})
		p := meta["pagination"].(map[string]any)
		if p["total"] != 4.0 || len(data) != 2 || data[0]["uid"] != "a1" || data[0]["scope"] != "admin" || data[0]["joinedAt"] == nil {
			t.Fatalf("members: %v %v", data, meta)
		}
		data, meta = e.list(request{method: "GET", path: "/v3/groups/g/members", headers: obo("p1")})
		if meta["pagination"].(map[string]any)["total"] != 6.0 || len(data) != 6 {
			t.Fatalf("all members: %v", meta)
		}
		for _, m := range data {
			if m["uid"] != "p1" && m["conversationId"] != chat.ConversationID("p1", m["uid"].(string)) {
				t.Errorf("member %v without the viewer's conversationId", m)
			}
		}
		r = e.do(request{method: "GET", path: "/v3/groups/g/members", headers: obo("b1")})
		if r.status != 403 || r.code != "ERR_NOT_A_MEMBER" {
			t.Fatalf("banned user lists members: %d %s", r.status, r.body)
		}
		banned, _ := e.list(request{method: "GET", path: "/v3/groups/g/bannedusers"})
		if len(banned) != 1 || banned[0]["uid"] != "b1" {
			t.Fatalf("banned: %v", banned)
		}
	})
}

func TestMemberChanges(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "ann", "mo", "pat", "pia", "eve"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"g","name":"G","type":"public",
			"members":{"admins":["ann"],"moderators":["mo"],"participants":["pat","pia"]}}`})

		// A moderator changes participants only.
		s := e.ok(request{method: "PUT", path: "/v3/groups/g/members/pat", headers: obo("ann"), body: `{"scope":"moderator"}`})
		if s["guid"] != "g" || s["uid"] != "pat" || s["scope"] != "moderator" || s["joinedAt"] == nil {
			t.Fatalf("scope: %v", s)
		}
		e.ok(request{method: "DELETE", path: "/v3/groups/g/members/pia", headers: obo("mo")})
		e.ok(request{method: "POST", path: "/v3/groups/g/bannedusers/eve", headers: obo("mo")})
		e.ok(request{method: "DELETE", path: "/v3/groups/g/bannedusers/eve", headers: obo("mo")})
		e.ok(request{method: "POST", path: "/v3/groups/g/bannedusers/pat", headers: obo("ann")})
		e.assertMembersCount("g", 3) // olga, ann, mo
		// A scope change without a scope makes a participant, as the hosted spec's default.
		s = e.ok(request{method: "PUT", path: "/v3/groups/g/members/ann", body: `{}`})
		if s["scope"] != "participant" {
			t.Fatalf("default scope: %v", s)
		}

		m := e.ok(request{method: "GET", path: "/v3/messages/" + lastAction(e, "g"), headers: obo("olga")})
		d := m["data"].(map[string]any)
		if d["action"] != "scopeChanged" || fmt.Sprint(d["extras"]) != "map[scope:map[new:participant old:admin]]" {
			t.Fatalf("scope change action: %v", d)
		}
		ents := d["entities"].(map[string]any)
		if ents["on"].(map[string]any)["entity"].(map[string]any)["uid"] != "ann" || ents["for"].(map[string]any)["entityType"] != "group" {
			t.Fatalf("entities: %v", ents)
		}

		// A row per code with its status; who may do what to whom is chat's TestMemberRules,
		// against the store without HTTP.
		before := e.snapshot()
		for _, tc := range []struct {
			name, method, path, obo, body string
			status                        int
			code                          string
		}{
			{"moderator promotes", "PUT", "/v3/groups/g/members/ann", "mo", `{"scope":"admin"}`, 403, "ERR_GROUP_NO_SCOPE_CLEARANCE"},
			{"moderator kicks itself", "DELETE", "/v3/groups/g/members/mo", "mo", "", 403, "ERR_GROUP_NO_SELF_ACTION"},
			{"app kicks the owner", "DELETE", "/v3/groups/g/members/olga", "", "", 403, "ERR_GROUP_NO_SCOPE_CLEARANCE"},
			{"same scope", "PUT", "/v3/groups/g/members/mo", "", `{"scope":"moderator"}`, 400, "ERR_SAME_SCOPE"},
			{"bad scope", "PUT", "/v3/groups/g/members/mo", "", `{"scope":"owner"}`, 400, "ERR_BAD_REQUEST"},
			{"scope of a non-member", "PUT", "/v3/groups/g/members/eve", "", `{"scope":"admin"}`, 403, "ERR_NOT_A_MEMBER"},
			{"kick an unknown user", "DELETE", "/v3/groups/g/members/ghost", "", "", 404, "ERR_UID_NOT_FOUND"},
			{"kick in an unknown group", "DELETE", "/v3/groups/nope/members/mo", "", "", 404, "ERR_GUID_NOT_FOUND"},
			{"ban twice", "POST", "/v3/groups/g/bannedusers/pat", "", "", 409, "ERR_ALREADY_BANNED"},
			{"unban a user not banned", "DELETE", "/v3/groups/g/bannedusers/eve", "", "", 409, "ERR_NOT_A_BANNED_USER"},
			{"banned user rejoins", "POST", "/v3/groups/g/members", "pat", `{}`, 403, "ERR_BANNED_GROUPMEMBER"},
			{"banned user is added", "POST", "/v3/groups/g/members", "", `{"participants":["pat"]}`, 200, ""},
			{"add: no lists", "POST", "/v3/groups/g/members", "", `{}`, 400, "ERR_BAD_REQUEST"},
			{"add: by a participant", "POST", "/v3/groups/g/members", "ann", `{"participants":["eve"]}`, 403, "ERR_GROUP_NO_CLEARANCE"},
			{"add: lists not arrays", "POST", "/v3/groups/g/members", "", `{"participants":"eve"}`, 400, "ERR_BAD_REQUEST"},
			{"ban: authOnly key", "POST", "/v3/groups/g/bannedusers/eve", "", "", 403, "AUTH_ERR_NO_ACCESS"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.obo != "" {
					h["onBehalfOf"] = tc.obo
				}
				if tc.name == "ban: authOnly key" {
					h["apikey"] = e.authKey
				}
				r := e.do(request{method: tc.method, path: tc.path, headers: h, body: tc.body})
				if r.status != tc.status || r.code != tc.code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tc.status, tc.code, r.body)
				}
				if tc.status == 200 { // an add answers per member: the refusal is inside
					if !strings.Contains(string(r.body), `"code":"ERR_BANNED_GROUPMEMBER"`) {
						t.Fatalf("add of a banned user: %s", r.body)
					}
				}
				if after := e.snapshot(); after != before {
					t.Fatal("a refused request changed the database")
				}
			})
		}
	})
}

// lastAction is the id of the newest action message of a group.
func lastAction(e *env, guid string) string {
	e.t.Helper()
	return fmt.Sprint(e.count(`SELECT MAX(id) FROM messages WHERE conversation_id = $1 AND category = 'action'`, "group_"+guid))
}

func TestGroupMessages(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "mo", "pat", "eve", "bob"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"g","name":"G","type":"public",
			"members":{"moderators":["mo"],"participants":["pat","bob"]}}`})
		send := func(from, text string) response {
			return e.do(request{method: "POST", path: "/v3/messages", headers: obo(from),
				body: `{"receiver":"G","receiverType":"group","category":"message","type":"text","data":{"text":"` + text + `"}}`})
		}
		r := send("pat", "hello group")
		if r.status != 200 {
			t.Fatalf("send: %d %s", r.status, r.body)
		}
		golden(t, "group_message_send", r.body)
		viaClient, err := e.c.OnBehalfOf("mo").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "g", ReceiverType: "group", Data: map[string]any{"text": "hi"}})
		if err != nil || viaClient.Data.Entities.Receiver.Group == nil || viaClient.Data.Entities.Receiver.Group.GUID != "g" ||
			viaClient.Data.Entities.Receiver.Group.MembersCount != 4 || viaClient.ConversationID != "group_g" {
			t.Fatalf("group message through the client: %+v %v", viaClient, err)
		}
		var m struct{ Data struct{ ID string } }
		json.Unmarshal(r.body, &m)
		id := m.Data.ID

		// Members read and react; anyone else is refused.
		for _, u := range []string{"olga", "mo", "bob"} {
			e.ok(request{method: "POST", path: "/v3/messages/" + id + "/reactions/%F0%9F%91%8D", headers: obo(u)})
		}
		g := e.ok(request{method: "GET", path: "/v3/messages/" + id, headers: obo("bob")})
		rs := g["data"].(map[string]any)["reactions"].([]any)
		if len(rs) != 1 || rs[0].(map[string]any)["count"] != 3.0 || rs[0].(map[string]any)["reactedByMe"] != true {
			t.Fatalf("reactions: %v", rs)
		}
		e.ok(request{method: "POST", path: "/v3/groups/g/bannedusers/bob", headers: obo("mo")})
		before := e.snapshot()
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"non-member sends", request{method: "POST", path: "/v3/messages", headers: obo("eve"), body: `{"receiver":"g","receiverType":"group","data":{"text":"x"}}`}, 403, "ERR_NOT_A_MEMBER"},
			{"banned user sends", request{method: "POST", path: "/v3/messages", headers: obo("bob"), body: `{"receiver":"g","receiverType":"group","data":{"text":"x"}}`}, 403, "ERR_BANNED_GROUPMEMBER"},
			{"send to an unknown group", request{method: "POST", path: "/v3/messages", headers: obo("pat"), body: `{"receiver":"nope","receiverType":"group","data":{"text":"x"}}`}, 404, "ERR_GUID_NOT_FOUND"},
			{"non-member reads", request{method: "GET", path: "/v3/messages/" + id, headers: obo("eve")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"banned user reads", request{method: "GET", path: "/v3/messages/" + id, headers: obo("bob")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"non-member reacts", request{method: "POST", path: "/v3/messages/" + id + "/reactions/x", headers: obo("eve")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"banned user reacts", request{method: "POST", path: "/v3/messages/" + id + "/reactions/x", headers: obo("bob")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"banned user removes its reaction", request{method: "DELETE", path: "/v3/messages/" + id + "/reactions/%F0%9F%91%8D", headers: obo("bob")}, 403, "ERR_MESSAGE_NO_ACCESS"},
			{"non-member lists reactions", request{method: "GET", path: "/v3/messages/" + id + "/reactions", headers: obo("eve")}, 403, "ERR_MESSAGE_NO_ACCESS"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.r)
				if r.code != tc.code || r.status != tc.status {
					t.Fatalf("%d %s, want %s: %s", r.status, r.code, tc.code, r.body)
				}
				if after := e.snapshot(); after != before {
					t.Fatal("a refused request changed the database")
				}
			})
		}
		// The sender deletes; so may a moderator, not another participant.
		r = send("olga", "from the owner")
		json.Unmarshal(r.body, &m)
		r = e.do(request{method: "DELETE", path: "/v3/messages/" + m.Data.ID, headers: obo("pat")})
		if r.status != 403 || r.code != "ERR_MESSAGE_NOT_A_SENDER" {
			t.Fatalf("participant deletes the owner's message: %d %s", r.status, r.body)
		}
		del := e.ok(request{method: "DELETE", path: "/v3/messages/" + id, headers: obo("mo")})
		ents := del["data"].(map[string]any)["entities"].(map[string]any)
		if del["receiverType"] != "group" || del["conversationId"] != "group_g" || ents["for"].(map[string]any)["entityType"] != "group" {
			t.Fatalf("delete action: %v", del)
		}
	})
}

// TestGroupReactionRaces: 100 members react at once, and 60 distinct reactions race a cap
// of 50, on both databases; the 100 again across two nodes on one PostgreSQL.
func TestGroupReactionRaces(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		groupRace(t, e, []string{e.srv.URL})
	})
	t.Run("postgres, two nodes", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "postgres", chat.Config{})
		groupRace(t, e, []string{e.srv.URL, e.secondNode(chat.Config{})})
	})
}

func groupRace(t *testing.T, e *env, nodes []string) {
	const n = 100
	var uids []string
	for i := range n {
		uid := fmt.Sprintf("u%03d", i)
		e.mustUser(uid, uid)
		uids = append(uids, uid)
	}
	e.mustUser("owner", "Owner")
	for i := 0; i < n; i += 25 { // 25 per call
		p, _ := json.Marshal(uids[i : i+25])
		if i == 0 {
			e.ok(request{method: "POST", path: "/v3/groups", headers: obo("owner"), body: `{"guid":"storm","name":"Storm","type":"public","members":{"participants":` + string(p) + `}}`})
			continue
		}
		e.ok(request{method: "POST", path: "/v3/groups/storm/members", body: `{"participants":` + string(p) + `}`})
	}
	e.assertMembersCount("storm", n+1)
	sendIn := func() string {
		var m struct{ Data struct{ ID string } }
		json.Unmarshal(e.do(request{method: "POST", path: "/v3/messages", headers: obo("owner"),
			body: `{"receiver":"storm","receiverType":"group","data":{"text":"react!"}}`}).body, &m)
		return m.Data.ID
	}
	race := func(id string, reaction func(i int) string, users int) {
		var wg sync.WaitGroup
		for i := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.do(request{base: nodes[i%len(nodes)], method: "POST", path: "/v3/messages/" + id + "/reactions/" + reaction(i), headers: obo(uids[i])})
				if r.status != 200 && r.code != "ERR_REACTION_LIMIT_EXCEEDED" {
					t.Errorf("%s: %d %s", uids[i], r.status, r.body)
				}
			}()
		}
		wg.Wait()
	}
	id := sendIn()
	race(id, func(int) string { return "%F0%9F%94%A5" }, n)
	if c := e.count(`SELECT count FROM reaction_counts WHERE message_id = $1`, id); c != n {
		t.Fatalf("count %d, want %d", c, n)
	}
	if rows := e.count(`SELECT COUNT(*) FROM reactions WHERE message_id = $1`, id); rows != n {
		t.Fatalf("%d rows, want %d", rows, n)
	}
	for _, u := range []string{uids[0], uids[57]} {
		m := e.ok(request{method: "GET", path: "/v3/messages/" + id, headers: obo(u)})
		if r := m["data"].(map[string]any)["reactions"].([]any)[0].(map[string]any); r["reactedByMe"] != true || r["count"] != float64(n) {
			t.Fatalf("%s sees %v", u, r)
		}
	}
	if len(nodes) > 1 {
		return
	}
	id = sendIn()
	race(id, func(i int) string { return fmt.Sprintf("r%02d", i) }, 60)
	if d := e.count(`SELECT COUNT(*) FROM reaction_counts WHERE message_id = $1`, id); d != chat.DefaultMaxReactions {
		t.Fatalf("%d distinct reactions, want %d", d, chat.DefaultMaxReactions)
	}
}

// TestMembershipRace: 200 concurrent adds, kicks and bans on one group leave its count
// equal to its member rows, nobody both banned and a member, and the owner an admin. No
// more than inFlight run at once: they race as much as 200 would, and on a machine the rest
// of the suite keeps busy (CI, -race) none waits its request deadline out behind the others.
func TestMembershipRace(t *testing.T) {
	const inFlight = 16
	backends(t, func(t *testing.T, e *env) {
		const users = 40
		var uids []string
		for i := range users {
			uid := fmt.Sprintf("m%02d", i)
			e.mustUser(uid, uid)
			uids = append(uids, uid)
		}
		e.mustUser("owner", "Owner")
		e.mustGroup("g", "owner")
		var wg sync.WaitGroup
		slots := make(chan struct{}, inFlight)
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				uid := uids[(i*7)%users]
				var r response
				switch i % 4 {
				case 0, 1:
					r = e.do(request{method: "POST", path: "/v3/groups/g/members", body: `{"participants":["` + uid + `"]}`})
				case 2:
					r = e.do(request{method: "DELETE", path: "/v3/groups/g/members/" + uid})
				case 3:
					if i%8 == 3 {
						r = e.do(request{method: "POST", path: "/v3/groups/g/bannedusers/" + uid})
					} else {
						r = e.do(request{method: "DELETE", path: "/v3/groups/g/bannedusers/" + uid})
					}
				}
				if r.status >= 500 {
					t.Errorf("%d %s", r.status, r.body)
				}
			}()
		}
		wg.Wait()
		rows := e.count(`SELECT COUNT(*) FROM group_members WHERE guid = 'g'`)
		e.assertMembersCount("g", rows)
		if both := e.count(`SELECT COUNT(*) FROM group_members m JOIN group_bans b ON b.app_id = m.app_id AND b.guid = m.guid AND b.uid = m.uid`); both != 0 {
			t.Fatalf("%d users both banned and members", both)
		}
		if n := e.count(`SELECT COUNT(*) FROM group_members WHERE guid = 'g' AND uid = 'owner' AND scope = 'admin'`); n != 1 {
			t.Fatal("the owner is no longer an admin")
		}
	})
}

// TestGroupLimits: a full group has no vacancy, and a user in 2,000 groups joins no more.
func TestGroupLimits(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, backend, chat.Config{MaxGroupMembers: 3})
			for _, u := range []string{"olga", "p1", "p2", "p3", "busy"} {
				e.mustUser(u, u)
			}
			r := e.do(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"small","name":"S","type":"public","members":{"participants":["p1","p2","p3"]}}`})
			if r.status != 200 || !strings.Contains(string(r.body), `"p3":{"success":false,"error":{`) || !strings.Contains(string(r.body), `"code":"ERR_NO_VACANCY"`) {
				t.Fatalf("create past the cap: %d %s", r.status, r.body)
			}
			e.assertMembersCount("small", 3)
			r = e.do(request{method: "POST", path: "/v3/groups/small/members", headers: obo("busy"), body: `{}`})
			if r.status != 403 || r.code != "ERR_NO_VACANCY" {
				t.Fatalf("join a full group: %d %s", r.status, r.body)
			}

			// busy is already in 2,000 groups (written directly: 2,000 creates would only be slow).
			tx, err := e.raw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			ph := "?"
			if backend == "postgres" {
				ph = "$1"
			}
			for i := range chat.MaxGroupsPerUser {
				guid := fmt.Sprintf("many-%04d", i)
				if _, err := tx.Exec(`INSERT INTO groups (app_id, guid, name, type, members_count, created_at) VALUES ('demo', `+ph+`, 'M', 'public', 1, 1)`, guid); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(`INSERT INTO group_members (app_id, guid, uid, scope, joined_at) VALUES ('demo', `+ph+`, 'busy', 'participant', 1)`, guid); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			e.mustGroup("one-more", "olga")
			before := e.snapshot()
			r = e.do(request{method: "POST", path: "/v3/groups/one-more/members", headers: obo("busy"), body: `{}`})
			if r.status != 403 || r.code != "ERR_PLAN_QUOTA_RESTRICTION" {
				t.Fatalf("join a 2,001st group: %d %s", r.status, r.body)
			}
			r = e.do(request{method: "POST", path: "/v3/groups", headers: obo("busy"), body: `{"guid":"mine","name":"M","type":"public"}`})
			if r.status != 403 || r.code != "ERR_PLAN_QUOTA_RESTRICTION" {
				t.Fatalf("create a 2,001st group: %d %s", r.status, r.body)
			}
			if e.snapshot() != before {
				t.Fatal("a refused request changed the database")
			}
		})
	}
}

// TestPurgedMember: deleting a user for good ends its memberships and bans and keeps every
// group's count exact; a group it owned is the app's.
func TestPurgedMember(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "pat", "bob"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"g1","name":"G1","type":"public","members":{"participants":["pat"],"usersToBan":["bob"]}}`})
		e.ok(request{method: "POST", path: "/v3/groups", headers: obo("pat"), body: `{"guid":"g2","name":"G2","type":"public","members":{"participants":["olga"]}}`})
		e.ok(request{method: "DELETE", path: "/v3/users/pat", body: `{"permanent":true}`})
		e.ok(request{method: "DELETE", path: "/v3/users/bob?permanent=true"})
		e.assertMembersCount("g1", 1)
		e.assertMembersCount("g2", 1)
		if n := e.count(`SELECT COUNT(*) FROM group_bans`); n != 0 {
			t.Fatalf("%d bans left", n)
		}
		g := e.ok(request{method: "GET", path: "/v3/groups/g2"})
		if g["owner"] != nil {
			t.Fatalf("g2 still owned: %v", g)
		}
	})
}

// TestMemberSearch: searchKey, which the SDK's GroupMembersRequestBuilder and
// BannedMembersRequestBuilder send from setSearchKeyword, is a case-insensitive prefix of a
// member's or banned user's uid or name; the total counts what it matches.
func TestMemberSearch(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for uid, name := range map[string]string{"ann": "Ann Lee", "bob": "Bob Ann", "anna": "Zed", "carl": "Carl_", "dan": "Annie", "eve": "Eve"} {
			e.mustUser(uid, name)
		}
		e.mustGroup("g", "ann", "bob", "anna", "carl")
		for _, uid := range []string{"dan", "eve"} {
			e.ok(request{method: "POST", path: "/v3/groups/g/bannedusers/" + uid})
		}
		for _, tc := range []struct{ path, want string }{
			{"/v3/groups/g/members?searchKey=ANN", "ann,anna"}, // uid or name prefix, any case
			{"/v3/groups/g/members?searchKey=bob%20a", "bob"},  // the name's start, not a word's
			{"/v3/groups/g/members?searchKey=carl_", "carl"},   // _ is itself, not a wildcard
			{"/v3/groups/g/members?searchKey=c%25", ""},        // nor is %
			{"/v3/groups/g/members?searchKey=an&scopes=participant", "anna"},
			{"/v3/groups/g/bannedusers?searchKey=ann", "dan"},
			{"/v3/groups/g/bannedusers?searchKey=e", "eve"},
			{"/v3/groups/g/members?searchKey=", "ann,anna,bob,carl"},
		} {
			l, meta := e.list(request{method: "GET", path: tc.path, headers: obo("ann")})
			if got := uids(l, "uid"); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
			}
			if total := meta["pagination"].(map[string]any)["total"]; total != float64(len(l)) {
				t.Errorf("%s: total %v for %d", tc.path, total, len(l))
			}
		}
		// Paged as the SDK pages: per_page and page.
		var pages []string
		for page := 1; page <= 2; page++ {
			l, _ := e.list(request{method: "GET", path: "/v3/groups/g/members?searchKey=a&per_page=1&page=" + strconv.Itoa(page), headers: obo("ann")})
			pages = append(pages, uids(l, "uid"))
		}
		if strings.Join(pages, "|") != "ann|anna" {
			t.Errorf("searched members by pages of 1: %v", pages)
		}
		r := e.do(request{method: "GET", path: "/v3/groups/g/bannedusers?searchKey=" + strings.Repeat("x", 101)})
		if r.status != 400 || !strings.Contains(string(r.body), `"searchKey"`) {
			t.Errorf("a searchKey too long: %d %s", r.status, r.body)
		}
	})
}

// TestBannedUsersMembersOnly: a group's ban list is read as its member list is — by the app,
// or by a member; a user outside the group (a private one included) or banned from it is
// refused, as for /members and /messages.
func TestBannedUsersMembersOnly(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "pat", "eve", "bob"} {
			e.mustUser(u, u)
		}
		for _, typ := range []string{"private", "public"} {
			g := "g" + typ
			e.ok(request{method: "POST", path: "/v3/groups", headers: obo("olga"), body: `{"guid":"` + g + `","name":"G","type":"` + typ + `",
				"members":{"participants":["pat"],"usersToBan":["bob"]}}`})
			for _, who := range []string{"", "olga", "pat"} {
				h := map[string]string{}
				if who != "" {
					h = obo(who)
				}
				banned, _ := e.list(request{method: "GET", path: "/v3/groups/" + g + "/bannedusers", headers: h})
				if len(banned) != 1 || banned[0]["uid"] != "bob" {
					t.Fatalf("%s: %q reads %v", g, who, banned)
				}
			}
			for _, who := range []string{"eve", "bob"} {
				for _, path := range []string{"bannedusers", "members", "messages"} {
					r := e.do(request{method: "GET", path: "/v3/groups/" + g + "/" + path, headers: obo(who)})
					if r.status != 403 || strings.Contains(string(r.body), `"uid":"bob"`) {
						t.Errorf("%s: %s reads /%s: %d %s", g, who, path, r.status, r.body)
					}
				}
				r := e.do(request{method: "GET", path: "/v3/groups/" + g + "/bannedusers", headers: obo(who)})
				if r.code != "ERR_NOT_A_MEMBER" {
					t.Errorf("%s: %s reads the bans: %s, want ERR_NOT_A_MEMBER", g, who, r.code)
				}
			}
		}
	})
}

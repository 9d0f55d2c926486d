package httpapi_test

import (
	"encoding/json"
	"testing"
)

// The membership answers CometChat's client SDKs (4.2.0 and 3.0.13) parse rather than pass
// through: a shape they do not expect makes them throw inside their own callback, and the
// app's promise never settles (docs/api-decisions.md, Groups).

// TestJoinAnswersJoinedAction: joining answers the joined action message, with the group as
// the join left it in data.entities.for.entity, and it is the message the history records.
func TestJoinAnswersJoinedAction(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("olga", "Olga")
		e.mustUser("eve", "Eve")
		e.mustGroup("g", "olga")
		m := e.ok(request{method: "POST", path: "/v3/groups/g/members", headers: obo("eve"), body: `{}`})
		if m["category"] != "action" || m["type"] != "groupMember" || dig(m, "data", "action") != "joined" || m["sender"] != "eve" || m["receiver"] != "g" {
			t.Fatalf("join answer: %v", m)
		}
		if dig(m, "data", "entities", "for", "entity", "guid") != "g" || dig(m, "data", "entities", "for", "entity", "membersCount") != 2.0 ||
			dig(m, "data", "entities", "on", "entity", "uid") != "eve" {
			t.Fatalf("join answer's entities: %v", m["data"])
		}
		l := e.messages(request{method: "GET", path: "/v3/groups/g/messages?affix=prepend&limit=1", headers: obo("olga")})
		if len(l.Data) != 1 || l.Data[0].ID != m["id"] {
			t.Fatalf("the group's last message is not the join's answer %v: %+v", m["id"], l.Data)
		}
		if n := e.membersCount("g"); n != 2 {
			t.Fatalf("membersCount %d after the join", n)
		}
	})
}

// dig is the value at path in nested JSON objects, nil where there is none.
func dig(v any, path ...string) any {
	for _, k := range path {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

// TestPutMembers: the SDKs' addMembersToGroup (PUT) adds as POST does and answers all four
// lists.
func TestPutMembers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"olga", "bob", "pat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "olga", "pat")
		r := e.do(request{method: "PUT", path: "/v3/groups/g/members", headers: obo("olga"), body: `{"participants":["bob","pat"]}`})
		if r.status != 200 {
			t.Fatalf("PUT members: %d %s", r.status, r.body)
		}
		var out struct {
			Data map[string]map[string]struct {
				Success bool
				Data    struct{ Data struct{ Action string } }
				Error   struct{ Code string }
			}
		}
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"admins", "moderators", "participants", "usersToBan"} {
			if out.Data[l] == nil {
				t.Errorf("no %s in %s", l, r.body)
			}
		}
		if p := out.Data["participants"]; !p["bob"].Success || p["bob"].Data.Data.Action != "added" || p["pat"].Success || p["pat"].Error.Code != "ERR_ALREADY_JOINED" {
			t.Errorf("participants: %s", r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM group_members WHERE guid = 'g' AND uid = 'bob' AND scope = 'participant'`); n != 1 {
			t.Errorf("bob is not a participant: %d", n)
		}
		before := e.snapshot()
		for _, tc := range []struct {
			name, as, body, code string
			status               int
		}{
			{"no list (never a join)", "bob", `{}`, "ERR_BAD_REQUEST", 400},
			{"no body", "olga", ``, "ERR_BAD_REQUEST", 400},
			{"malformed", "olga", `{"participants":`, "ERR_BAD_REQUEST", 400},
			{"by a participant", "pat", `{"participants":["olga"]}`, "ERR_GROUP_NO_CLEARANCE", 403},
		} {
			var h map[string]string
			if tc.as != "" {
				h = obo(tc.as)
			}
			if r := e.do(request{method: "PUT", path: "/v3/groups/g/members", headers: h, body: tc.body}); r.status != tc.status || r.code != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
			}
		}
		if e.snapshot() != before {
			t.Error("a refused add wrote something")
		}
	})
}

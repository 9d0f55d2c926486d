package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/client"
)

// The list filters the hosted file added on operations natter already served (issue 38):
// ranges of times, counts, senders, blocks and agents.

// keys lists the key of each entry of a list, in the order listed.
func (e *env) keys(path, key string, headers map[string]string) []string {
	e.t.Helper()
	data, _ := e.list(request{method: "GET", path: path, headers: headers})
	out := []string{}
	for _, d := range data {
		out = append(out, fmt.Sprint(d[key]))
	}
	return out
}

// listRefusal is a request a list refuses with 400, naming the parameter.
type listRefusal struct {
	name, path, field string
	headers           map[string]string
}

func (e *env) refuses(t *testing.T, cases []listRefusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(request{method: "GET", path: tc.path, headers: tc.headers})
			if r.status != 400 || r.code != "ERR_BAD_REQUEST" {
				t.Fatalf("got %d %s, want 400 ERR_BAD_REQUEST: %s", r.status, r.code, r.body)
			}
			if !strings.Contains(string(r.body), `"details":{"`+tc.field+`":[`) {
				t.Errorf("details do not name %s: %s", tc.field, r.body)
			}
		})
	}
}

func TestUserListRanges(t *testing.T) {
	callBackends(t, func(t *testing.T, e *env, tick func(int64)) {
		t0 := testClock.Unix()
		e.mustUser("u1", "A") // t0
		tick(10)
		e.mustUser("u2", "B") // t0+10
		tick(10)
		e.mustUser("u3", "C") // t0+20
		tick(10)
		e.ok(request{method: "PUT", path: "/v3/users/u1", body: `{"name":"A2"}`}) // updated at t0+30
		at := func(q string, a ...any) string { return "/v3/users?" + fmt.Sprintf(q, a...) }
		for _, tc := range []struct {
			path string
			want []string
		}{
			{at("createdAt[from]=%d", t0+10), []string{"u2", "u3"}},
			{at("createdAt[to]=%d", t0+10), []string{"u1", "u2"}},
			{at("createdAt%%5Bfrom%%5D=%d&createdAt%%5Bto%%5D=%d", t0+10, t0+10), []string{"u2"}}, // brackets encoded
			{at("createdAt[from]=%d", t0+21), []string{}},
			{at("updatedAt[from]=0"), []string{"u1"}}, // never updated: in no range
			{at("updatedAt[to]=%d", t0+29), []string{}},
			{at("updatedAt[from]=%d&updatedAt[to]=%d", t0+30, t0+30), []string{"u1"}},
			{at("status=available,offline"), []string{"u1", "u2", "u3"}},
			{at("status=available"), []string{}}, // no one is connected
			{at("status=offline&createdAt[from]=%d&searchKey=c", t0), []string{"u3"}},
		} {
			if got := e.keys(tc.path, "uid", nil); !cmp.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
			}
		}
		e.refuses(t, []listRefusal{
			{"from not a number", "/v3/users?createdAt[from]=yesterday", "createdAt[from]", nil},
			{"to a fraction", "/v3/users?updatedAt[to]=1.5", "updatedAt[to]", nil},
			{"from after to", at("createdAt[from]=%d&createdAt[to]=%d", t0+1, t0), "createdAt[from]", nil},
			{"negative", "/v3/users?createdAt[from]=-1", "createdAt[from]", nil},
			{"past the year 9999", "/v3/users?updatedAt[to]=253402300800", "updatedAt[to]", nil},
			{"beyond int64", "/v3/users?createdAt[to]=99999999999999999999", "createdAt[to]", nil},
			{"unknown status", "/v3/users?status=available,busy", "status", nil},
		})
	})
}

func TestGroupListFilters(t *testing.T) {
	callBackends(t, func(t *testing.T, e *env, tick func(int64)) {
		t0 := testClock.Unix()
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g1", "ann") // t0, 1 member
		tick(10)
		e.mustGroup("g2", "ann", "bob", "cat") // t0+10, 3 members
		tick(10)
		e.mustGroup("g3", "ann", "bob") // t0+20, 2 members
		tick(10)
		e.ok(request{method: "PUT", path: "/v3/groups/g1", body: `{"name":"One"}`}) // updated at t0+30
		at := func(q string, a ...any) string { return "/v3/groups?sortBy=guid&" + fmt.Sprintf(q, a...) }
		for _, tc := range []struct {
			path string
			want []string
		}{
			{at("guid=G2"), []string{"g2"}},
			{at("guid=ghost"), []string{}},
			{at("guids=g3,ghost,g1"), []string{"g1", "g3"}},
			{at("guid=g1&guids=g2,g3"), []string{}}, // both must hold
			{at("createdAt[from]=%d", t0+10), []string{"g2", "g3"}},
			{at("createdAt[from]=%d&createdAt[to]=%d", t0, t0+10), []string{"g1", "g2"}},
			{at("updatedAt[from]=0"), []string{"g1"}}, // never updated: in no range
			{at("updatedAt[from]=%d", t0+31), []string{}},
			{at("membersCount[gte]=2"), []string{"g2", "g3"}},
			{at("membersCount[lte]=2"), []string{"g1", "g3"}},
			{at("membersCount[eq]=3"), []string{"g2"}},
			{at("membersCount[gte]=2&membersCount[lte]=2"), []string{"g3"}},
			{at("membersCount[gt]=1&membersCount[lt]=3"), []string{"g3"}},
			{at("membersCount[eq]=0"), []string{}},
			{at("membersCount[gte]=2&guids=g1,g2&createdAt[to]=%d", t0+20), []string{"g2"}},
		} {
			if got := e.keys(tc.path, "guid", nil); !cmp.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
			}
		}
		// On a user's behalf the filters narrow what it may see: cat does not see g3's
		// members count differently, nor private groups it has not joined.
		if got := e.keys("/v3/groups?sortBy=guid&membersCount[gte]=2&hasJoined=true", "guid", obo("cat")); !cmp.Equal(got, []string{"g2"}) {
			t.Errorf("cat's groups of 2 or more: %v", got)
		}
		e.refuses(t, []listRefusal{
			{"malformed guid", "/v3/groups?guid=a%20b", "guid", nil},
			{"malformed guids", "/v3/groups?guids=g1,a%20b", "guids", nil},
			{"count not a number", "/v3/groups?membersCount[gte]=two", "membersCount[gte]", nil},
			{"negative count", "/v3/groups?membersCount[eq]=-1", "membersCount[eq]", nil},
			{"gte above lte", "/v3/groups?membersCount[gte]=3&membersCount[lte]=2", "membersCount[gte]", nil},
			{"from after to", at("updatedAt[from]=%d&updatedAt[to]=%d", t0+1, t0), "updatedAt[from]", nil},
			{"time not a number", "/v3/groups?createdAt[to]=now", "createdAt[to]", nil},
		})
	})
}

func TestMessageListNewFilters(t *testing.T) {
	callBackends(t, func(t *testing.T, e *env, tick func(int64)) {
		t0 := testClock.Unix()
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		m1 := e.mustText("ann", "bob", "one").ID // t0
		tick(10)
		m2 := e.mustText("bob", "ann", "two").ID // t0+10
		tick(10)
		m3 := e.mustText("cat", "ann", "three").ID // t0+20
		tick(10)
		e.ok(request{method: "PUT", path: "/v3/messages/" + m1, headers: obo("ann"), body: `{"data":{"text":"one, edited"}}`}) // t0+30
		tick(10)
		e.ok(request{method: "DELETE", path: "/v3/messages/" + m2, headers: obo("bob")}) // t0+40
		msgs := func(q string, a ...any) string {
			return "/v3/messages?categories=message&" + fmt.Sprintf(q, a...)
		}
		for _, tc := range []struct {
			path    string
			headers map[string]string
			want    []string
		}{
			{msgs("senders=ann,CAT,ghost"), nil, []string{m1, m3}},
			{msgs("senders=ann&sender=bob"), nil, []string{}}, // both must hold
			{msgs("sentAt[from]=%d&sentAt[to]=%d", t0+10, t0+20), nil, []string{m2, m3}},
			{msgs("sentAt[to]=%d&affix=prepend", t0), nil, []string{m1}},
			{msgs("updatedAt[from]=0"), nil, []string{m1, m2}}, // edited, deleted; m3 never updated
			{msgs("updatedAt[from]=%d", t0+35), nil, []string{m2}},
			{msgs("updatedAt[to]=%d", t0+35), nil, []string{m1}},
			{msgs("editedAt[from]=0"), nil, []string{m1}},
			{msgs("editedAt[to]=%d", t0+29), nil, []string{}},
			{msgs("editedAt[from]=%d&editedAt[to]=%d&senders=ann", t0+30, t0+30), nil, []string{m1}},
			{msgs("hideQuotedMessages=true"), nil, []string{m1, m2, m3}},
			// On bob's behalf only its conversations: cat's message to ann is not one.
			{msgs("senders=ann,cat"), obo("bob"), []string{m1}},
			// The conversation lists take hideQuotedMessages, and ignore the filters the hosted
			// file gives GET /messages alone.
			{"/v3/users/bob/messages?categories=message&senders=cat&editedAt[from]=1&hideQuotedMessages=true", obo("ann"), []string{m1, m2}},
		} {
			if got := e.keys(tc.path, "id", tc.headers); !cmp.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
			}
		}
		e.refuses(t, []listRefusal{
			{"malformed sender", "/v3/messages?senders=ann,a%20b", "senders", nil},
			{"sentAt not a number", "/v3/messages?sentAt[from]=soon", "sentAt[from]", nil},
			{"editedAt from after to", "/v3/messages?editedAt[from]=5&editedAt[to]=4", "editedAt[from]", nil},
			{"updatedAt negative", "/v3/messages?updatedAt[to]=-1", "updatedAt[to]", nil},
			{"hideQuotedMessages not a boolean", "/v3/messages?hideQuotedMessages=maybe", "hideQuotedMessages", nil},
			{"hideQuotedMessages on a conversation", "/v3/users/bob/messages?hideQuotedMessages=2", "hideQuotedMessages", obo("ann")},
			{"hideQuotedMessages on a group", "/v3/groups/nope/messages?hideQuotedMessages=x", "hideQuotedMessages", nil},
		})
	})
}

func TestConversationListBlocksAndAgents(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat", "dan"} {
			e.mustUser(u, u)
		}
		url := "https://agent.example.com/agent"
		if _, err := e.c.CreateAgent(e.ctx(), client.AgentRequest{UID: ptr("bot"), Name: ptr("Bot"),
			IntegrationMeta: &client.AgentMeta{URL: url}}); err != nil {
			t.Fatal(err)
		}
		e.mustText("ann", "bob", "hi bob")
		e.mustText("cat", "ann", "hi ann")
		e.ok(request{method: "POST", path: "/v3/bots/bot/messages", body: `{"receiver":"ann","receiverType":"user","category":"message","type":"text","data":{"text":"beep"}}`})
		e.mustText("dan", "ann", "hi from dan")
		e.mustGroup("g", "ann", "bob")
		// ann blocks bob and dan; cat blocks ann, which leaves ann's list alone.
		e.ok(request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["bob","dan"]}`})
		e.ok(request{method: "POST", path: "/v3/users/cat/blockedusers", body: `{"blockedUids":["ann"]}`})
		ann := obo("ann")
		convs := func(q string) string { return "/v3/conversations?" + q }
		all := []string{"group_g", "ann_user_dan", "ann_user_bot", "ann_user_cat", "ann_user_bob"}
		for _, tc := range []struct {
			path    string
			headers map[string]string
			want    []string
		}{
			{convs(""), ann, []string{"group_g", "ann_user_bot", "ann_user_cat"}},
			{convs("includeBlockedUsers=true"), ann, all},
			{convs("includeBlockedUsers=false&conversationType=user"), ann, []string{"ann_user_bot", "ann_user_cat"}}, // the filtered path
			{convs("includeBlockedUsers=true&conversationType=user&searchKey=b"), ann, []string{"ann_user_bot", "ann_user_bob"}},
			{convs(""), obo("bob"), []string{"group_g", "ann_user_bob"}},                                          // blocked by ann: bob still lists it
			{convs(""), nil, []string{"group_g", "ann_user_dan", "ann_user_bot", "ann_user_cat", "ann_user_bob"}}, // the app's: no viewer, no blocks
			{convs("onlyAgentic=true"), ann, []string{"ann_user_bot"}},
			{convs("hideAgentic=true"), ann, []string{"group_g", "ann_user_cat"}},
			{convs("hideAgentic=true&includeBlockedUsers=true"), ann, []string{"group_g", "ann_user_dan", "ann_user_cat", "ann_user_bob"}},
			{convs("onlyAgentic=true"), nil, []string{"ann_user_bot"}},
			{convs("onlyAgentic=true"), obo("bot"), []string{}}, // the agent's own list: ann is no agent
		} {
			if got := e.keys(tc.path, "conversationId", tc.headers); !cmp.Equal(got, tc.want) {
				t.Errorf("%s as %v: %v, want %v", tc.path, tc.headers, got, tc.want)
			}
		}
		// Pages skip the blocked ones and the total leaves them out, on the fast path too.
		var got []string
		for page := 1; page <= 4; page++ {
			data, meta := e.list(request{method: "GET", path: fmt.Sprintf("/v3/conversations?perPage=1&page=%d", page), headers: ann})
			for _, d := range data {
				got = append(got, d["conversationId"].(string))
			}
			if total := meta["pagination"].(map[string]any)["total"]; total != float64(3) {
				t.Errorf("page %d: total %v, want 3", page, total)
			}
		}
		if want := []string{"group_g", "ann_user_bot", "ann_user_cat"}; !cmp.Equal(got, want) {
			t.Errorf("paged one by one: %v, want %v", got, want)
		}
		if _, meta := e.list(request{method: "GET", path: "/v3/conversations?includeBlockedUsers=true", headers: ann}); meta["pagination"].(map[string]any)["total"] != float64(5) {
			t.Errorf("total with the blocked: %v, want 5", meta["pagination"])
		}
		// withBlockedInfo: the blocks between each user and ann, both ways.
		l, err := e.c.OnBehalfOf("ann").ListConversations(e.ctx(), client.ListConversationsParams{IncludeBlockedUsers: true, WithBlockedInfo: true})
		if err != nil {
			t.Fatal(err)
		}
		blocks := map[string]string{}
		for _, c := range l.Conversations {
			if c.With != nil {
				blocks[c.With.UID] = fmt.Sprintf("byMe=%v at=%v hasBlockedMe=%v", c.With.BlockedByMe, c.With.BlockedByMeAt > 0, c.With.HasBlockedMe)
			} else if c.Group == nil {
				t.Errorf("%s: neither a user nor a group", c.ConversationID)
			}
		}
		want := map[string]string{
			"bob": "byMe=true at=true hasBlockedMe=false",
			"dan": "byMe=true at=true hasBlockedMe=false",
			"cat": "byMe=false at=false hasBlockedMe=true",
			"bot": "byMe=false at=false hasBlockedMe=false",
		}
		if diff := cmp.Diff(want, blocks); diff != "" {
			t.Errorf("blocks (-want +got):\n%s", diff)
		}
		// Without withBlockedInfo the conversation lists carry no block fields.
		r := e.do(request{method: "GET", path: "/v3/conversations?includeBlockedUsers=true", headers: ann})
		if strings.Contains(string(r.body), "blockedByMe") || strings.Contains(string(r.body), "hasBlockedMe") {
			t.Errorf("block fields without withBlockedInfo: %s", r.body)
		}
		e.refuses(t, []listRefusal{
			{"hide and only agentic", "/v3/conversations?hideAgentic=true&onlyAgentic=true", "onlyAgentic", ann},
			{"withBlockedInfo without a user", "/v3/conversations?withBlockedInfo=true", "withBlockedInfo", nil},
			{"includeBlockedUsers not a boolean", "/v3/conversations?includeBlockedUsers=yes", "includeBlockedUsers", ann},
			{"onlyAgentic not a boolean", "/v3/conversations?onlyAgentic=1x", "onlyAgentic", ann},
		})
	})
}

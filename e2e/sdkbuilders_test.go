package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// TestClientSDKBuilders drives every request builder of the official SDK to its last page
// against natter on SQLite (issue 27: a list that refuses what the SDK sends, or pages so
// the SDK re-reads or skips, breaks the UI Kits built on it).
func TestClientSDKBuilders(t *testing.T) {
	sdkDir(t)
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	node, cert := tlsNode(t, "node", env, "serve", "--addr", "127.0.0.1:0", "--database", "sqlite:"+filepath.Join(t.TempDir(), "natter.db"), "--access-log=false")
	runSDKBuilders(t, node, cert, key)
}

// TestClientSDKBuildersPostgres is TestClientSDKBuilders on PostgreSQL.
func TestClientSDKBuildersPostgres(t *testing.T) {
	sdkDir(t)
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	node, cert := tlsNode(t, "node", env, "serve", "--addr", "127.0.0.1:0", "--database", pgtest.URL(t), "--access-log=false")
	runSDKBuilders(t, node, cert, key)
}

// builderData is what runSDKBuilders creates: enough of everything that each list has two
// pages or more at the limits e2e/sdk/builders.cjs sets.
type builderData struct {
	userTexts   []string // alice and bob's texts, oldest first (a custom, a deleted and thread replies besides)
	groupTexts  []string // the texts in crew, oldest first (custom, deleted and action messages besides)
	parent      string   // the thread's parent: alice and bob's first text
	threadTexts []string // its replies, a deleted one left out
	reacted     string   // crew's first text, reacted to six times, five of them 👍
}

func runSDKBuilders(t *testing.T, node *natterProc, cert, key string) {
	dir := sdkDir(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(cert), 0o644); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	base := "https://" + node.host()
	admin := client.New(base, key, client.WithHTTPClient(hc))
	d := createBuilderData(t, admin)

	spec, _ := json.Marshal(map[string]string{"user": "bob", "group": "crew", "parent": d.parent,
		"subscribe": d.groupTexts[0], "unsubscribe": d.userTexts[1],
		"reactionMessage": d.reacted, "reaction": "👍", "receiptMessage": d.groupTexts[0]})
	alice := startSDKUser(t, dir, caFile, node.host(), "e2e", key, "alice", "builders", "NATTER_BUILDERS="+string(spec))
	alice.wait("done", nil, 120*time.Second)

	// get reads data as alice; rest reads a list in one page, for the order the SDK's pages
	// must add up to.
	get := func(path string, data any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+"/v3"+path, nil)
		req.Header.Set("apikey", key)
		req.Header.Set("onBehalfOf", "alice")
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body := struct {
			Data any `json:"data"`
		}{data}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
	}
	rest := func(path, idKey string) []string {
		t.Helper()
		var data []map[string]any
		get(path, &data)
		var ids []string
		for _, x := range data {
			ids = append(ids, fmt.Sprint(x[idKey]))
		}
		return ids
	}
	seq := func(prefix string, from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("%s%02d", prefix, i))
		}
		return out
	}
	bannedREST := rest("/groups/crew/bannedusers?perPage=100", "uid")
	if !sameSet(bannedREST, append(seq("u", 6, 9), "dave")) {
		t.Errorf("REST banned list %v, want u06…u09 and dave", bannedREST)
	}
	bannedSearchREST := rest("/groups/crew/bannedusers?perPage=100&searchKey=User", "uid")
	if !sameSet(bannedSearchREST, seq("u", 6, 9)) {
		t.Errorf("REST banned list searched for User: %v, want u06…u09", bannedSearchREST)
	}
	usersREST := rest("/users?perPage=100", "uid")
	if !sameSet(usersREST, append([]string{"alice", "bob", "carol", "dave"}, seq("u", 1, 10)...)) {
		t.Errorf("REST users list %v, want alice, bob, carol, dave, u01…u10", usersREST)
	}
	convsREST := rest("/conversations?perPage=100", "conversationId")
	wantConvs := []string{"alice_user_bob", "alice_user_carol", "alice_user_u01", "alice_user_u02", "alice_user_u03", "alice_user_u04",
		"group_crew", "group_g01", "group_g02"}
	if !sameSet(convsREST, wantConvs) {
		t.Errorf("REST conversations %v, want %v", convsREST, wantConvs)
	}
	unreadREST := rest("/groups/crew/messages?unread=true&limit=100&affix=prepend", "id")
	if len(unreadREST) < 3 {
		t.Errorf("REST unread list %v: want the crew texts after the read mark", unreadREST)
	}
	emoji := "%F0%9F%91%8D"
	// Message lists read backwards (fetchPrevious) have each page oldest first: they are
	// compared oldest first, the pages taken from the last one read.
	type want struct {
		ids      []string
		backward bool
	}
	wants := map[string]want{
		"messagesUser":        {d.userTexts, true},
		"messagesUserNext":    {d.userTexts[1:], false}, // after the first (the thread's parent)
		"messagesGroup":       {d.groupTexts, true},
		"messagesGroupUnread": {unreadREST, true},
		"messagesThread":      {d.threadTexts, true},
		"conversations":       {convsREST, false},
		"conversationsUser":   {rest("/conversations?conversationType=user&perPage=100", "conversationId"), false},
		"users":               {usersREST, false},
		"usersNamed":          {[]string{"bob", "carol", "dave", "u01"}, false}, // u08, u09: blocked
		"groups":              {append([]string{"crew"}, seq("g", 1, 5)...), false},
		"groupsJoined":        {[]string{"crew", "g01", "g02"}, false},
		"members":             {append([]string{"alice", "bob", "carol"}, seq("u", 1, 5)...), false},
		"membersParticipants": {append([]string{"bob", "carol"}, seq("u", 1, 5)...), false},
		"membersSearch":       {seq("u", 1, 5), false},
		"banned":              {bannedREST, false},
		"bannedSearch":        {bannedSearchREST, false},
		"blocked":             {seq("u", 8, 10), false},
		"reactions":           {rest("/messages/"+d.reacted+"/reactions?limit=100", "id"), false},
		"reactionsOne":        {rest("/messages/"+d.reacted+"/reactions/"+emoji+"?limit=100", "id"), false},
		"threads":             {rest("/threads?limit=100", "id"), false},
	}
	if ids := wants["threads"].ids; !sameSet(ids, []string{d.parent, d.groupTexts[0]}) {
		t.Errorf("REST threads %v: want the thread alice is in and the one she subscribed to", ids)
	}
	if n := len(wants["conversationsUser"].ids); n != 6 {
		t.Errorf("REST user conversations: %d, want 6", n)
	}
	if n := len(wants["reactions"].ids); n != 6 {
		t.Errorf("REST reactions: %d, want 6", n)
	}
	if n := len(wants["reactionsOne"].ids); n != 5 {
		t.Errorf("REST 👍 reactions: %d, want 5", n)
	}

	seen := map[string]bool{}
	for _, e := range alice.events() {
		switch e["ev"] {
		case "http":
			if st, _ := strconv.Atoi(e["status"]); st >= 400 {
				t.Errorf("the SDK's %s %s was answered %s", e["method"], e["path"], e["status"])
			}
		case "list":
			name := e["name"]
			seen[name] = true
			w, ok := wants[name]
			if !ok {
				t.Errorf("unexpected list %q", name)
				continue
			}
			var pages [][]string
			if err := json.Unmarshal([]byte(e["pages"]), &pages); err != nil {
				t.Errorf("%s: pages %s: %v", name, e["pages"], err)
				continue
			}
			if e["error"] != "" {
				t.Errorf("%s: %s after pages %v", name, e["error"], pages)
				continue
			}
			if len(pages) < 2 {
				t.Errorf("%s: %d page(s) %v: the data should make two or more", name, len(pages), pages)
			}
			var got []string
			if w.backward {
				for i := len(pages) - 1; i >= 0; i-- {
					got = append(got, pages[i]...)
				}
			} else {
				for _, p := range pages {
					got = append(got, p...)
				}
			}
			if !slices.Equal(got, w.ids) {
				t.Errorf("%s: the SDK read %v (pages %v), want %v", name, got, pages, w.ids)
			}
			t.Logf("%s: %d items in %d pages", name, len(got), len(pages))
		case "receipts":
			seen["receipts"] = true
			checkReceipts(t, e, d.groupTexts[0])
		}
	}
	for name := range wants {
		if !seen[name] {
			t.Errorf("%s: the SDK did not report the list", name)
		}
	}
	if !seen["receipts"] {
		t.Error("getMessageReceipts: not reported")
	}
}

// checkReceipts: crew's first text was read by bob and delivered to carol; getMessageReceipts
// reads them from the message's receipts.data.
func checkReceipts(t *testing.T, e map[string]string, id string) {
	t.Helper()
	if e["error"] != "" {
		t.Errorf("getMessageReceipts: %s", e["error"])
		return
	}
	var items []string
	json.Unmarshal([]byte(e["items"]), &items)
	for _, want := range []string{"bob:read", "carol:delivery"} {
		if !slices.Contains(items, want) {
			t.Errorf("getMessageReceipts(%s) = %v, want %s among them", id, items, want)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func createBuilderData(t *testing.T, admin *client.Client) builderData {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	users := []string{"alice", "bob", "carol", "dave"}
	for i := 1; i <= 10; i++ {
		users = append(users, fmt.Sprintf("u%02d", i))
	}
	for _, uid := range users {
		name := uid
		if uid[0] == 'u' {
			name = "User " + uid[1:]
		}
		_, err := admin.CreateUser(ctx, client.CreateUserRequest{UID: uid, Name: name})
		must(err)
	}
	_, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
		Members: &client.MemberLists{Participants: []string{"bob", "carol", "u01", "u02", "u03", "u04", "u05"}}})
	must(err)
	for i := 1; i <= 5; i++ {
		_, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: fmt.Sprintf("g%02d", i), Name: fmt.Sprintf("Group %02d", i),
			Type: "public", Owner: "u01"})
		must(err)
	}
	as := admin.OnBehalfOf
	for _, g := range []string{"g01", "g02"} {
		_, err := as("alice").JoinGroup(ctx, g, "")
		must(err)
	}
	for _, uid := range []string{"u06", "u07", "u08", "u09", "dave"} {
		_, err := admin.BanUser(ctx, "crew", uid)
		must(err)
	}
	_, err = admin.BlockUsers(ctx, "alice", []string{"u08", "u09", "u10"})
	must(err)

	send := func(from, to, receiverType, typ string) string {
		t.Helper()
		cat, data := "message", map[string]any{"text": "from " + from}
		if typ != "text" {
			cat, data = "custom", map[string]any{"customData": map[string]any{"n": 1}}
		}
		m, err := as(from).SendMessage(ctx, client.SendMessageRequest{Receiver: to, ReceiverType: receiverType, Category: cat, Type: typ, Data: data})
		must(err)
		return m.ID
	}
	del := func(id string) {
		_, err := admin.DeleteMessage(ctx, id, false)
		must(err)
	}
	var d builderData
	for i := 0; i < 7; i++ {
		from, to := "alice", "bob"
		if i%2 == 1 {
			from, to = to, from
		}
		d.userTexts = append(d.userTexts, send(from, to, "user", "text"))
		if i == 3 {
			send("bob", "alice", "user", "location") // not among the types asked for
			del(send("alice", "bob", "user", "text"))
		}
	}
	d.parent = d.userTexts[0]
	for i := 0; i < 5; i++ {
		from, to := "alice", "bob"
		if i%2 == 1 {
			from, to = to, from
		}
		m, err := as(from).SendThreadMessage(ctx, d.parent, client.SendMessageRequest{Receiver: to, ReceiverType: "user",
			Category: "message", Type: "text", Data: map[string]any{"text": "reply"}})
		must(err)
		d.threadTexts = append(d.threadTexts, m.ID)
		if i == 2 {
			m, err := as("bob").SendThreadMessage(ctx, d.parent, client.SendMessageRequest{Receiver: "alice", ReceiverType: "user",
				Category: "message", Type: "text", Data: map[string]any{"text": "gone"}})
			must(err)
			del(m.ID)
		}
	}
	crew := []string{"alice", "bob", "carol", "u01", "u02", "u03", "u04"}
	for i, from := range crew {
		d.groupTexts = append(d.groupTexts, send(from, "crew", "group", "text"))
		if i == 2 {
			send("bob", "crew", "group", "location")
			del(send("carol", "crew", "group", "text"))
		}
	}
	for _, uid := range []string{"carol", "u01", "u02", "u03", "u04"} {
		send("alice", uid, "user", "text")
	}
	for _, g := range []string{"g01", "g02"} {
		send("alice", g, "group", "text")
	}
	d.reacted = d.groupTexts[0]
	for _, uid := range []string{"alice", "bob", "carol", "u01", "u02"} {
		_, err := as(uid).AddReaction(ctx, d.reacted, "👍")
		must(err)
	}
	_, err = as("bob").AddReaction(ctx, d.reacted, "❤️")
	must(err)
	// alice has read crew up to its third text; bob has read the first, carol has it.
	_, err = as("alice").MarkGroupConversation(ctx, "crew", client.MarkRead, d.groupTexts[2])
	must(err)
	_, err = as("bob").MarkGroupConversation(ctx, "crew", client.MarkRead, d.groupTexts[0])
	must(err)
	_, err = as("carol").MarkGroupConversation(ctx, "crew", client.MarkDelivered, d.groupTexts[0])
	must(err)
	return d
}

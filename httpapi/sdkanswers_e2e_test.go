package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Answers CometChat's client SDKs (4.2.0 and 3.0.13) parse rather than pass through (unread
// counts), and the form they send media messages in (docs/api-decisions.md, Messages and
// Message lists).

// unreadCounts decodes an unread-count answer, sorted by entityId.
func unreadCounts(t *testing.T, r response) []map[string]any {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("unread counts: %d %s", r.status, r.body)
	}
	var out struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || out.Data == nil {
		t.Fatalf("unread counts: not a list: %v %s", err, r.body)
	}
	slices.SortFunc(out.Data, func(a, b map[string]any) int { return strings.Compare(a["entityId"].(string), b["entityId"].(string)) })
	return out.Data
}

func countsString(cs []map[string]any) string {
	var parts []string
	for _, c := range cs {
		b, _ := json.Marshal(c)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, " ")
}

// TestUnreadCountShapes: every unread count the SDKs ask for answers a list of
// {entityId, entityType, count}, scoped to the acting user, with the conversation list's
// counts; refused filters are 400 naming the parameter.
func TestUnreadCountShapes(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		for _, s := range []string{"b1", "b2", "b3"} {
			e.send("bob", "ann", "user", s)
		}
		e.send("cat", "g", "group", "c1")
		e.send("cat", "g", "group", "c2")
		e.send("ann", "bob", "user", "mine") // ann's own: never hers to read
		const sdk = "unread=1&count=1&hideMessagesFromBlockedUsers=0"
		get := func(as, path string) response {
			return e.do(request{method: "GET", path: path, headers: obo(as)})
		}
		for _, tc := range []struct{ name, as, path, want string }{
			{"ForUser", "ann", "/v3/users/bob/messages?" + sdk + "&uid=bob", `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"ForGroup", "ann", "/v3/groups/g/messages?" + sdk + "&guid=g", `{"count":2,"entityId":"g","entityType":"group"}`},
			{"ForUser, nothing unread", "ann", "/v3/users/cat/messages?" + sdk + "&uid=cat", ``},
			{"ForUser, the uid's case", "ann", "/v3/users/BOB/messages?" + sdk, `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"all", "ann", "/v3/messages?" + sdk, `{"count":3,"entityId":"bob","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"all users", "ann", "/v3/messages?" + sdk + "&receiverType=user", `{"count":3,"entityId":"bob","entityType":"user"}`},
			{"all groups", "ann", "/v3/messages?" + sdk + "&receiverType=group", `{"count":2,"entityId":"g","entityType":"group"}`},
			{"an unknown receiverType", "ann", "/v3/messages?" + sdk + "&receiverType=room", ``},
			{"paging is ignored", "ann", "/v3/messages?" + sdk + "&per_page=1&affix=prepend&hideReplies=1", `{"count":3,"entityId":"bob","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"bob's own", "bob", "/v3/messages?" + sdk, `{"count":1,"entityId":"ann","entityType":"user"} {"count":2,"entityId":"g","entityType":"group"}`},
			{"cat's own", "cat", "/v3/messages?" + sdk, ``},
		} {
			if got := countsString(unreadCounts(t, get(tc.as, tc.path))); got != tc.want {
				t.Errorf("%s: %s\n got %s\nwant %s", tc.name, tc.path, got, tc.want)
			}
		}
		// The counts are the conversation list's.
		for _, c := range e.conversations(request{method: "GET", path: "/v3/conversations", headers: obo("ann")}) {
			want := map[string]string{"ann_user_bob": "3", "group_g": "2"}[c.ConversationID]
			if c.UnreadMessageCount != want {
				t.Errorf("conversation %s lists %s unread, the counts say %s", c.ConversationID, c.UnreadMessageCount, want)
			}
		}
		// Read up to date, a conversation leaves the counts; a block hides its user's messages.
		e.ok(request{method: "POST", path: "/v3/users/bob/conversation/read", headers: obo("ann")})
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?"+sdk))); got != `{"count":2,"entityId":"g","entityType":"group"}` {
			t.Errorf("after reading bob's: %s", got)
		}
		e.ok(request{method: "POST", path: "/v3/blockedusers", headers: obo("ann"), body: `{"blockedUids":["cat"]}`})
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?unread=1&count=1&hideMessagesFromBlockedUsers=1"))); got != `` {
			t.Errorf("hiding blocked users: %s", got)
		}
		if got := countsString(unreadCounts(t, get("ann", "/v3/groups/g/messages?unread=1&count=1&hideMessagesFromBlockedUsers=1"))); got != `` {
			t.Errorf("ForGroup hiding blocked users: %s", got)
		}
		if got := countsString(unreadCounts(t, get("ann", "/v3/messages?"+sdk))); got != `{"count":2,"entityId":"g","entityType":"group"}` {
			t.Errorf("not hiding blocked users: %s", got)
		}
		// unread alone is not read on /messages: the list as before.
		if l := e.messages(request{method: "GET", path: "/v3/messages?unread=1&limit=100", headers: obo("ann")}); len(l.Data) < 6 {
			t.Errorf("unread alone on /messages: %d messages", len(l.Data))
		}

		before := e.snapshot()
		for _, tc := range []struct{ name, as, path, field string }{
			{"count without unread", "ann", "/v3/messages?count=1", "count"},
			{"count without unread, one conversation", "ann", "/v3/users/bob/messages?count=1", "count"},
			{"a filter that narrows the count", "ann", "/v3/messages?" + sdk + "&categories=message", "categories"},
			{"a sender", "ann", "/v3/messages?" + sdk + "&sender=bob", "sender"},
			{"one conversation by id", "ann", "/v3/messages?" + sdk + "&conversationId=ann_user_bob", "conversationId"},
			{"senders", "ann", "/v3/messages?" + sdk + "&senders=bob,cat", "senders"},
			{"a sent range", "ann", "/v3/messages?" + sdk + "&sentAt[from]=1", "sentAt"},
			{"an edited range", "ann", "/v3/messages?" + sdk + "&editedAt[to]=1", "editedAt"},
			{"a bad boolean", "ann", "/v3/messages?unread=1&count=maybe", "count"},
			{"the app has no unread messages", "", "/v3/messages?" + sdk, "onBehalfOf"},
			{"nor in a group", "", "/v3/groups/g/messages?" + sdk, "onBehalfOf"},
		} {
			var h map[string]string
			if tc.as != "" {
				h = obo(tc.as)
			}
			r := e.do(request{method: "GET", path: tc.path, headers: h})
			var env struct {
				Error struct {
					Details map[string][]string `json:"details"`
				} `json:"error"`
			}
			json.Unmarshal(r.body, &env)
			if r.status != 400 || r.code != "ERR_BAD_REQUEST" || env.Error.Details[tc.field] == nil {
				t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.status, r.body, tc.field)
			}
		}
		if e.snapshot() != before {
			t.Error("a refused count wrote something")
		}
	})
}

// form builds a multipart/form-data body of fields (name, value pairs) and files (name,
// file name, content triples).
func form(t *testing.T, fields []string, files ...string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		w.WriteField(fields[i], fields[i+1])
	}
	for i := 0; i+2 < len(files); i += 3 {
		f, err := w.CreateFormFile(files[i], files[i+1])
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(files[i+2]))
	}
	w.Close()
	return b.String(), w.FormDataContentType()
}

// TestMultipartSend: a media message in multipart/form-data, as SDK 3 sends every one, is
// the JSON send; a file in it is refused as not served yet, and nothing is sent.
func TestMultipartSend(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "Ann")
		e.mustUser("bob", "Bob")
		send := func(path, body, ct string) response {
			return e.do(request{method: "POST", path: path, headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
		}
		// SDK 3's image by URL, exactly as it sends it.
		body, ct := form(t, []string{"type", "image", "receiverType", "user", "category", "message", "data", `{"url":"https://example.com/a.png"}`, "receiver", "bob"})
		r := send("/v3/messages", body, ct)
		var m struct {
			Data struct {
				ID, Type, Category, Receiver, ParentID string
				Tags                                   []string
				Data                                   struct {
					URL         string
					Text        string
					Attachments []struct{ URL string }
				}
			}
		}
		if json.Unmarshal(r.body, &m); r.status != 200 || m.Data.Type != "image" || m.Data.Category != "message" || m.Data.Receiver != "bob" || m.Data.Data.URL != "https://example.com/a.png" {
			t.Fatalf("SDK 3's image: %d %s", r.status, r.body)
		}
		// With attachments, a caption, tags and metadata, as SDK 3 sends them.
		body, ct = form(t, []string{"type", "image", "receiverType", "user", "category", "message",
			"data", `{"url":"","attachments":[{"extension":"png","mimeType":"image/png","name":"b.png","url":"https://example.com/b.png","size":12}],"text":"cap","metadata":{"k":1}}`,
			"caption", "cap", "tags[]", "t1,t2", "receiver", "bob", "muid", "m-1"})
		r = send("/v3/messages", body, ct)
		if json.Unmarshal(r.body, &m); r.status != 200 || m.Data.Data.Text != "cap" || len(m.Data.Data.Attachments) != 1 || !slices.Equal(m.Data.Tags, []string{"t1", "t2"}) {
			t.Fatalf("SDK 3's image with attachments: %d %s", r.status, r.body)
		}
		id := m.Data.ID
		if n := e.count(`SELECT COUNT(*) FROM messages WHERE muid = 'm-1' AND type = 'image'`); n != 1 {
			t.Errorf("muid: %d rows", n)
		}
		// A thread reply the same way.
		body, ct = form(t, []string{"type", "image", "receiverType", "user", "category", "message", "data", `{"url":"https://example.com/c.png"}`, "receiver", "bob"})
		r = send("/v3/messages/"+id+"/thread", body, ct)
		if json.Unmarshal(r.body, &m); r.status != 200 || m.Data.ParentID != id {
			t.Fatalf("a multipart thread reply: %d %s", r.status, r.body)
		}

		before := e.snapshot()
		big := strings.Repeat("x", 70<<10)
		for _, tc := range []struct {
			name, body, ct, code string
			status               int
		}{
			{"a file", func() string {
				b, _ := form(t, []string{"type", "image", "receiverType", "user", "category", "message", "data", `{}`, "receiver", "bob"}, "files[]", "a.png", "\x89PNG")
				return b
			}(), "", "ERR_NOT_IMPLEMENTED", 501},
			{"a file before the fields", func() string {
				b, _ := form(t, nil, "files[]", "a.png", "\x89PNG")
				return b
			}(), "", "ERR_NOT_IMPLEMENTED", 501},
			{"data not JSON", func() string {
				b, _ := form(t, []string{"type", "image", "receiverType", "user", "receiver", "bob", "data", `{url:`})
				return b
			}(), "", "ERR_BAD_REQUEST", 400},
			{"no media", func() string {
				b, _ := form(t, []string{"type", "image", "receiverType", "user", "receiver", "bob", "data", `{}`})
				return b
			}(), "", "ERR_EMPTY_MESSAGE_FILE", 400},
			{"no boundary", "--x\r\n", "multipart/form-data", "ERR_BAD_REQUEST", 400},
			{"truncated", "--b\r\nContent-Disposition: form-data; name=\"receiver\"\r\n\r\nbob", "multipart/form-data; boundary=b", "ERR_BAD_REQUEST", 400},
			{"over the cap", func() string {
				b, _ := form(t, []string{"receiver", "bob", "data", `{"url":"` + big + `"}`})
				return b
			}(), "", "ERR_BAD_REQUEST", 413},
		} {
			ct := tc.ct
			if ct == "" {
				ct = "multipart/form-data; boundary=" + boundaryOf(tc.body)
			}
			r := send("/v3/messages", tc.body, ct)
			if r.status != tc.status || r.code != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
			}
		}
		// Over the cap without a declared length: the parts are read as they come, and the
		// cap still holds.
		body, ct = form(t, []string{"receiver", "bob", "data", `{"url":"` + big + `"}`})
		req, _ := http.NewRequest("POST", e.srv.URL+"/v3/messages", io.MultiReader(strings.NewReader(body)))
		req.Header.Set("apikey", e.full)
		req.Header.Set("onBehalfOf", "ann")
		req.Header.Set("Content-Type", ct)
		res, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 413 || !strings.Contains(string(b), "ERR_BAD_REQUEST") {
			t.Errorf("chunked over the cap: %d %s", res.StatusCode, b)
		}
		if e.snapshot() != before {
			t.Error("a refused send wrote something")
		}
	})
}

// boundaryOf is the boundary of a multipart body: its first line without the dashes.
func boundaryOf(body string) string {
	line, _, _ := strings.Cut(body, "\r\n")
	return strings.TrimPrefix(line, "--")
}

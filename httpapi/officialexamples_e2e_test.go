package httpapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/notify"
)

// officialExamples are the key/type skeletons of the hosted OpenAPI files' response examples
// (testdata/official-examples.json).
type officialExamples struct {
	Operations []struct {
		Name     string          `json:"name"`
		Source   string          `json:"source"`
		Skeleton json.RawMessage `json:"skeleton"`
	} `json:"operations"`
}

// notOfficial lists, per operation, the paths of official keys natter leaves out on purpose,
// and why. A path is the key path in the skeleton, array items as [].
var notOfficial = map[string]map[string]string{
	"notifications-logs": notOfficialLog,
	"list-rule-keywords": {
		".data[].__v": "The hosted store's document version (a MongoDB detail); natter's lists have revisionId for their revisions.",
	},
	"import-messages": {
		".data.3117.data.data.entities.sender.entity.metadata":   importEntityMetadata,
		".data.3117.data.data.entities.receiver.entity.metadata": importEntityMetadata,
	},
	"list-group-members": {
		".cursor": "The members list pages by page number only (meta.pagination); natter serves no updatedAt cursor for it, and a cursor it would not accept back would mislead a client.",
	},
	"chat-api-list-flagged-messages": {
		".data[].data.entities.receiver.entity.lastActiveAt": neverOnline,
		".data[].data.entities.sender.entity.lastActiveAt":   neverOnline,
		".data[].data.metadata.@injected":                    "What the hosted extensions (link preview) inject into a message's metadata; natter runs no extensions.",
	},
	"list-all-threads": func() map[string]string {
		m := map[string]string{
			".data[].data.moderation":           notModerated,
			".data[].lastReply.data.moderation": notModerated,
		}
		for _, msg := range []string{".data[]", ".data[].lastReply"} {
			m[msg+".data.entities.receiver.entity.lastActiveAt"] = neverOnline
			m[msg+".data.entities.sender.entity.lastActiveAt"] = neverOnline
			m[msg+".data.entities.sender.entity.tags"] = "A message's entities are the same in every answer natter gives, without the user's tags, as the hosted message examples but this one have them."
		}
		for _, k := range []string{"muid", "editedBy", "editedAt", "deliveredAt", "readAt", "deletedAt"} {
			m[".data[].lastReply."+k] = "natter leaves out a message's key that has no value (the example's null or empty string) in every answer, as the contract's Message says."
		}
		return m
	}(),
}

// neverOnline is why the scenarios' users have no lastActiveAt: natter sets it when a user's
// socket comes or goes (presence); the users made over REST have never had one.
const neverOnline = "The scenario's users were made over REST and never had a socket open; natter gives lastActiveAt to a user once presence has seen it."

// notModerated is why a thread's messages have no data.moderation: natter writes it on a
// message a rule held or a review list shows (docs/moderation.md), and the scenario's passed
// no rule; the example's parent was held, its reply approved by an app with moderation on.
const notModerated = "natter writes data.moderation only on a message a moderation rule held or a review list shows; the scenario's app has no rules."

// pendingOfficial are the official keys natter does not answer yet because the feature they
// belong to is being built elsewhere, by operation and key path: a short list, each naming
// the issue. Unlike notOfficial, an entry must still be missing: once natter answers the key,
// the test fails until the entry goes.
var pendingOfficial = map[string]map[string]string{}

// importEntityMetadata is why an imported message's users come without metadata.
const importEntityMetadata = "A message's entities are the same in every answer natter gives (GET /messages/{id}, lists, the socket, an import): users without their metadata, as the hosted message examples have them; only the import example shows it."

// notOfficialLog is what natter's notification log leaves out.
var notOfficialLog = func() map[string]string {
	m := map[string]string{
		".meta.previous": "natter pages the log by logId (many records share a message, so a messageId cannot say where a page ended); meta.next gives logId and affix when a page is full.",
		".meta.next":     "Given (with logId and affix, not messageId) only when a page is full; the scenario's page is not.",
	}
	for _, k := range []string{"payload", "contentAvailable", "mutableContent", "topic", "alert", "priority", "pushType", "sound", "collapseId", "expiry", "type"} {
		m[".data[].payload."+k] = "natter's log keeps no payload (what a provider was sent): payload is an empty object."
	}
	return m
}()

// shapeDiff compares an answer with an example's skeleton: every key the skeleton has is in
// the answer with the same JSON type; an array's items are compared with the skeleton's item
// (the first item of the answer's array, which each scenario below arranges to be the kind
// the example shows). Extra keys in the answer are fine.
func shapeDiff(skel, got any, path string, out *[]string) {
	switch s := skel.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want an object, got %s", path, jsonType(got)))
			return
		}
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, ok := g[k]
			if !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			shapeDiff(s[k], v, path+"."+k, out)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want an array, got %s", path, jsonType(got)))
			return
		}
		if len(s) == 0 {
			return
		}
		if len(g) == 0 {
			*out = append(*out, fmt.Sprintf("%s[]: the answer's array is empty, nothing to compare", path))
			return
		}
		shapeDiff(s[0], g[0], path+"[]", out)
	case string:
		if t := jsonType(got); t != s {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", path, s, t))
		}
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// answeredElsewhere are the operations whose situation another test sets up (it needs
// another server configuration), by that test's name.
var answeredElsewhere = map[string]string{
	"notifications-logs": "TestOfficialNotificationLog",
}

// readOfficial reads testdata/official-examples.json.
func readOfficial(t *testing.T) officialExamples {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "official-examples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex officialExamples
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// compareOfficial reports where an answer (body) differs from an example's skeleton, but
// for the paths notOfficial excuses.
func compareOfficial(t *testing.T, name, source string, skeleton json.RawMessage, body []byte) {
	t.Helper()
	var skel, got any
	if err := json.Unmarshal(skeleton, &skel); err != nil {
		t.Fatalf("%s: skeleton: %v", name, err)
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: answer: %v", name, err)
	}
	var diffs []string
	shapeDiff(skel, got, "", &diffs)
	missing := map[string]bool{}
	for _, d := range diffs {
		path, _, _ := strings.Cut(d, ":")
		if _, ok := notOfficial[name][path]; ok {
			continue
		}
		if _, ok := pendingOfficial[name][path]; ok && strings.HasSuffix(d, ": missing") {
			missing[path] = true
			continue
		}
		t.Errorf("%s (%s): %s", name, source, d)
	}
	for path := range pendingOfficial[name] {
		if !missing[path] {
			t.Errorf("%s: %s is answered now; take it out of pendingOfficial", name, path)
		}
	}
}

// TestOfficialExamples drives natter into each example's situation and compares its answer
// with the example's keys and types.
func TestOfficialExamples(t *testing.T) {
	ex := readOfficial(t)
	backends(t, func(t *testing.T, e *env) {
		must := func(r request) []byte {
			t.Helper()
			res := e.do(r)
			if res.status != 200 {
				t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
			}
			return res.body
		}
		as := func(uid string) map[string]string { return map[string]string{"onBehalfOf": uid} }
		// Users with every optional field the examples show, updated so they have updatedAt.
		for _, uid := range []string{"alice", "bob"} {
			must(request{method: "POST", path: "/v3/users", body: `{"uid":"` + uid + `","name":"` + uid + `","avatar":"https://example.com/` + uid +
				`.png","link":"https://example.com/` + uid + `","metadata":{"email":"` + uid + `@example.com","contactNumber":"0123"}}`})
			must(request{method: "PUT", path: "/v3/users/" + uid, body: `{"name":"` + strings.ToUpper(uid[:1]) + uid[1:] + `"}`})
		}
		must(request{method: "POST", path: "/v3/users/alice/friends", body: `{"accepted":["bob"]}`})
		// A one-to-one message with metadata that bob has read, then edited with tags.
		var sent struct{ Data struct{ ID string } }
		json.Unmarshal(must(request{method: "POST", path: "/v3/messages", headers: as("alice"),
			body: `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi","metadata":{"key1":"val1"}}}`}), &sent)
		must(request{method: "POST", path: "/v3/users/alice/conversation/read", headers: as("bob"), body: `{"messageId":` + sent.Data.ID + `}`})
		answers := map[string][]byte{}
		answers["get-message-details"] = must(request{method: "GET", path: "/v3/messages/" + sent.Data.ID, headers: as("alice")})
		// The one-to-one lists, before the edit adds an action to the conversation.
		answers["user-list-user-messages"] = must(request{method: "GET", path: "/v3/users/bob/messages", headers: as("alice")})
		answers["list-all-messages"] = must(request{method: "GET", path: "/v3/messages?receiverType=user"})
		answers["update-message"] = must(request{method: "PUT", path: "/v3/messages/" + sent.Data.ID, headers: as("alice"),
			body: `{"data":{"text":"hi again"},"tags":["t6"]}`})
		// A group, updated, with a message, then bob added: its last message is a groupMember action.
		must(request{method: "POST", path: "/v3/groups", headers: as("alice"),
			body: `{"guid":"proj","name":"Project","type":"public","icon":"https://example.com/g.png","description":"about"}`})
		must(request{method: "PUT", path: "/v3/groups/proj", headers: as("alice"), body: `{"name":"Project 1"}`})
		must(request{method: "POST", path: "/v3/messages", headers: as("alice"),
			body: `{"receiver":"proj","receiverType":"group","category":"message","type":"text","data":{"text":"hello","metadata":{"key1":"val1"}}}`})
		answers["user-list-group-messages"] = must(request{method: "GET", path: "/v3/groups/proj/messages", headers: as("alice")})
		must(request{method: "POST", path: "/v3/groups/proj/members", headers: as("alice"), body: `{"participants":["bob"]}`})
		answers["list-all-conversations"] = must(request{method: "GET", path: "/v3/conversations", headers: as("alice")})
		answers["list-all-friends"] = must(request{method: "GET", path: "/v3/users/alice/friends"})
		// As bob, so that the first member (alice) has a conversation with the viewer.
		answers["list-group-members"] = must(request{method: "GET", path: "/v3/groups/proj/members", headers: as("bob")})

		// Calls: one with metadata as the SDK's initiateCall sends it (Call.setMetadata puts it
		// at the top and in data), answered and ended; then one without, answered and ended.
		call := func(body string) string {
			var m struct {
				Data struct {
					Data struct {
						Entities struct {
							On struct {
								Entity struct{ SessionID string }
							}
						}
					}
				}
			}
			json.Unmarshal(must(request{method: "POST", path: "/v3/calls", headers: as("alice"), body: body}), &m)
			sid := m.Data.Data.Entities.On.Entity.SessionID
			must(request{method: "PUT", path: "/v3/calls/" + sid, headers: as("bob"), body: `{"status":"ongoing"}`})
			must(request{method: "PUT", path: "/v3/calls/" + sid, headers: as("alice"), body: `{"status":"ended"}`})
			return sid
		}
		withMeta := call(`{"receiver":"bob","receiverType":"user","type":"audio","category":"call","status":"initiated",` +
			`"metadata":{"key":{"one":"two"}},"data":{"metadata":{"key":{"one":"two"}}}}`)
		answers["user-list-user-call-messages"] = must(request{method: "GET", path: "/v3/users/bob/messages?categories=call", headers: as("alice")})
		if res := e.do(request{method: "POST", path: "/v3/calls", headers: as("alice"),
			body: `{"receiver":"bob","receiverType":"user","type":"audio","metadata":"x"}`}); res.status != 400 {
			t.Errorf("metadata that is not an object: %d %s", res.status, res.body)
		}
		plain := call(`{"receiver":"bob","receiverType":"user","type":"audio","category":"call","status":"initiated"}`)
		answers["retrieve-call-details"] = must(request{method: "GET", path: "/v3/calls/" + plain})
		answers["list-calls"] = must(request{method: "GET", path: "/v3/calls"})
		// The metadata stays with the call: in its record, and in every one of its messages.
		var rec struct {
			Data struct{ MetaData json.RawMessage }
		}
		json.Unmarshal(must(request{method: "GET", path: "/v3/calls/" + withMeta}), &rec)
		if string(rec.Data.MetaData) != `{"key":{"one":"two"}}` {
			t.Errorf("call record metaData %s", rec.Data.MetaData)
		}
		var calls struct {
			Data []struct {
				Data struct {
					Action   string
					Metadata json.RawMessage
					Entities struct {
						On struct {
							Entity struct {
								SessionID string
								Data      struct{ Metadata json.RawMessage }
							}
						}
					}
				}
			}
		}
		json.Unmarshal(answers["user-list-user-call-messages"], &calls)
		if len(calls.Data) != 3 {
			t.Errorf("call messages: %s", answers["user-list-user-call-messages"])
		}
		for _, m := range calls.Data {
			if on := m.Data.Entities.On.Entity; on.SessionID != withMeta || string(on.Data.Metadata) != `{"key":{"one":"two"}}` ||
				string(m.Data.Metadata) != `{"key":{"one":"two"}}` {
				t.Errorf("%s call message: metadata %s, on %s", m.Data.Action, m.Data.Metadata, on.Data.Metadata)
			}
		}

		// A user's preferences, changed; the SendGrid provider, with replies allowed.
		answers["notifications-push-update-preferences"] = must(request{method: "PATCH", path: "/v3/notifications/v1/preferences?uid=alice",
			body: `{"usePrivacyTemplate":true}`})
		answers["notifications-email-save-sendgrid-details"] = must(request{method: "POST", path: sendGridPath,
			body: `{"sendGridApiKey":"` + sendGridKey + `","sendGridTemplateID":"d-8284bb9646a040499d5cfa28d272a094","sendGridUnsubscribeGroupID":"33832",` +
				`"senderName":"Emailer","senderEmail":"noreply@em123.example.com","allowEmailReplies":true,"senderEmailForReplies":"reply@em123.example.com"}`})

		// An imported one-to-one message, as the hosted example has it (users updated, so
		// that their entities have updatedAt).
		for _, uid := range []string{"s12", "r123"} {
			must(request{method: "POST", path: "/v3/users", body: `{"uid":"` + uid + `","name":"` + uid + `","avatar":"https://example.com/a.png","metadata":{"key":"value"}}`})
			must(request{method: "PUT", path: "/v3/users/" + uid, body: `{"name":"User ` + uid + `"}`})
		}
		answers["import-messages"] = must(request{method: "POST", path: "/v3/data_import/messages", body: `{"messages":{"3117":{"muid":"3117",` +
			`"sender":"s12","receiverType":"user","receiver":"r123","type":"text","category":"message","data":{"text":"Hi there,",` +
			`"attachments":[{"name":"a.webp","extension":"webp","size":"350.2","mimeType":"image/webp","url":"https://example.com/a.webp"}],` +
			`"metadata":{"key":"value"},"custodata":{"key":"value"}},"sentAt":1674104348,"deliveredAt":1674224684,"readAt":1674224684,"tags":["tag1"]}}}`})

		// A keyword list, listed and read.
		must(request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"profane-word-list-1","name":"profane word list",` +
			`"description":"Profane word list","category":"word","searchTerms":["a","b","c"]}`})
		answers["list-rule-keywords"] = must(request{method: "GET", path: "/v3/moderation/keywords"})
		answers["get-rule-keyword"] = must(request{method: "GET", path: "/v3/moderation/keywords/profane-word-list-1"})

		// Receipts say who: bob read alice's message; in the group, bob read hers too and
		// the sender is never her own recipient.
		var got struct {
			Data struct {
				Receipts struct {
					Data []struct {
						Recipient           struct{ UID string }
						DeliveredAt, ReadAt int64
					}
				}
			}
		}
		json.Unmarshal(answers["get-message-details"], &got)
		if r := got.Data.Receipts.Data; len(r) != 1 || r[0].Recipient.UID != "bob" || r[0].ReadAt == 0 || r[0].DeliveredAt == 0 {
			t.Errorf("one-to-one receipts: %+v", r)
		}
		var groupMsg struct{ Data []struct{ ID string } }
		json.Unmarshal(answers["user-list-group-messages"], &groupMsg)
		gid := groupMsg.Data[len(groupMsg.Data)-1].ID
		must(request{method: "POST", path: "/v3/groups/proj/conversation/read", headers: as("bob"), body: `{"messageId":` + gid + `}`})
		got.Data.Receipts.Data = nil
		json.Unmarshal(must(request{method: "GET", path: "/v3/messages/" + gid, headers: as("alice")}), &got)
		if r := got.Data.Receipts.Data; len(r) != 1 || r[0].Recipient.UID != "bob" || r[0].ReadAt == 0 {
			t.Errorf("group receipts: %+v", r)
		}

		// The newest file's additions (issue 38). bob flags alice's message; alice replies in
		// its thread, and lists the thread and the threads she follows.
		must(request{method: "POST", path: "/v3/messages/" + sent.Data.ID + "/flagged", headers: as("bob"),
			body: `{"id":"spam","remark":"He is spamming me"}`})
		answers["chat-api-list-flagged-messages"] = must(request{method: "GET", path: "/v3/moderation/flagged-messages"})
		answers["send-thread-message"] = must(request{method: "POST", path: "/v3/messages/" + sent.Data.ID + "/thread", headers: as("alice"),
			body: `{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"in thread","metadata":{"key1":"val1"}}}`})
		answers["list-all-thread-messages"] = must(request{method: "GET", path: "/v3/messages/" + sent.Data.ID + "/thread?limit=10", headers: as("alice")})
		answers["list-all-threads"] = must(request{method: "GET", path: "/v3/threads", headers: as("alice")})
		answers["chat-api-create-reasons"] = must(request{method: "POST", path: "/v3/moderation/reasons",
			body: `{"id":"unfiltered-content","name":"RawContent","description":"Content delivered without moderation or filtering."}`})
		answers["chat-api-get-reasons-details"] = must(request{method: "GET", path: "/v3/moderation/reasons/spam"})
		var flagged struct {
			Data []struct {
				ID           string
				FlaggedCount int
				FlaggedBy    []struct{ UID, Name, ReasonID, ReasonName, Remark string }
			}
		}
		json.Unmarshal(answers["chat-api-list-flagged-messages"], &flagged)
		if f := flagged.Data; len(f) != 1 || f[0].ID != sent.Data.ID || f[0].FlaggedCount != 1 || len(f[0].FlaggedBy) != 1 ||
			f[0].FlaggedBy[0].UID != "bob" || f[0].FlaggedBy[0].Name != "Bob" || f[0].FlaggedBy[0].ReasonID != "spam" ||
			f[0].FlaggedBy[0].ReasonName != "Spam" || f[0].FlaggedBy[0].Remark != "He is spamming me" {
			t.Errorf("flagged list: %s", answers["chat-api-list-flagged-messages"])
		}

		for _, op := range ex.Operations {
			if by, ok := answeredElsewhere[op.Name]; ok {
				if _, dup := answers[op.Name]; dup {
					t.Errorf("%s: answered here and by %s", op.Name, by)
				}
				continue
			}
			body, ok := answers[op.Name]
			if !ok {
				t.Errorf("%s: no scenario answers it", op.Name)
				continue
			}
			compareOfficial(t, op.Name, op.Source, op.Skeleton, body)
		}
	})
}

// TestShapeDiff checks the comparison itself: what it must catch and what it lets through.
func TestShapeDiff(t *testing.T) {
	var skel, got any
	json.Unmarshal([]byte(`{"a":"string","b":{"c":"number"},"d":[{"e":"boolean"}],"f":[]}`), &skel)
	json.Unmarshal([]byte(`{"a":1,"b":{"x":1},"d":[{"e":true,"extra":1}],"f":[1],"g":2}`), &got)
	var diffs []string
	shapeDiff(skel, got, "", &diffs)
	want := []string{".a: want string, got number", ".b.c: missing"}
	if !slices.Equal(diffs, want) {
		t.Fatalf("diffs %q, want %q", diffs, want)
	}
}

// TestOfficialNotificationLog sets up the notification log example's situation — a reaction
// to a message by a member who muted the group, who is therefore not notified — and
// compares the record with the example, and checks that the hosted filter values find it.
func TestOfficialNotificationLog(t *testing.T) {
	ex := readOfficial(t)
	var op *struct {
		Name     string          `json:"name"`
		Source   string          `json:"source"`
		Skeleton json.RawMessage `json:"skeleton"`
	}
	for i := range ex.Operations {
		if ex.Operations[i].Name == "notifications-logs" {
			op = &ex.Operations[i]
		}
	}
	if op == nil {
		t.Fatal("no notifications-logs example")
	}
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := notifyEnv(t, b, notify.Endpoints{})
			fake := newPushFake(t)
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, u)
			}
			e.mustGroup("g", "ann", "bob", "cat")
			if _, err := e.c.CreateCustomProvider(e.ctx(), client.ChannelPush, client.CustomProviderRequest{IsEnabled: ptr(true),
				WebhookURL: ptr(fake.srv.URL), UseBasicAuth: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			// bob's message is pushed to ann and cat; then bob mutes the group, and ann's
			// reaction to his message is not pushed to him.
			id := e.send("bob", "g", "group", "lunch?")
			fake.received(t, 2)
			if _, err := e.c.MuteConversations(e.ctx(), "bob", []client.MutedConversation{{ID: "g", Type: "group",
				Until: time.Now().Add(time.Hour).UnixMilli()}}); err != nil {
				t.Fatal(err)
			}
			e.ok(request{method: "POST", path: "/v3/messages/" + id + "/reactions/ok", headers: obo("ann")})
			var body []byte
			for deadline := time.Now().Add(10 * time.Second); ; {
				res := e.do(request{method: "GET", path: "/v3/notifications/v1/logs?trigger=message_reaction_added&reason=MUTE_PREFERENCE"})
				var page struct{ Data []json.RawMessage }
				if res.status != 200 || json.Unmarshal(res.body, &page) != nil {
					t.Fatalf("logs: %d %s", res.status, res.body)
				}
				if len(page.Data) > 0 {
					body = res.body
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no muted reaction record")
				}
				time.Sleep(20 * time.Millisecond)
			}
			compareOfficial(t, op.Name, op.Source, op.Skeleton, body)
			var rec struct {
				Data []struct {
					Trigger, Reason, ReactionSender, ReactionReceiver, Recipient string
					MessageID                                                    json.Number
				}
			}
			json.Unmarshal(body, &rec)
			if r := rec.Data[0]; len(rec.Data) != 1 || r.Trigger != "message_reaction_added" || r.Reason != "MUTE_PREFERENCE" ||
				r.ReactionSender != "ann" || r.ReactionReceiver != "bob" || r.Recipient != "bob" || r.MessageID.String() != id {
				t.Errorf("the muted reaction's record: %s", body)
			}
			// The hosted values filter; natter's own still do; a contradiction finds nothing.
			for _, c := range []struct {
				query string
				want  int
			}{
				{"reason=muted", 1},
				{"reason=MUTE_PREFERENCE&channel=push", 1},
				{"trigger=after_message&notificationTriggered=true", 2},
				{"trigger=message_sent&notificationTriggered=true", 2},
				{"reason=MESSAGES_PREFERENCE", 0},
				{"reason=MISSING_EMAIL&channel=push", 0},
				{"reason=TIMED_OUT", 0},
			} {
				var page struct {
					Data []struct{ Trigger string }
				}
				res := e.do(request{method: "GET", path: "/v3/notifications/v1/logs?" + c.query})
				json.Unmarshal(res.body, &page)
				n := 0
				for _, r := range page.Data {
					if c.want > 0 && strings.HasPrefix(c.query, "trigger=") && r.Trigger != "after_message" {
						t.Errorf("%s: trigger %q", c.query, r.Trigger)
					}
					n++
				}
				// Decisions only: each triggered decision is followed by its attempt's record.
				if strings.Contains(c.query, "notificationTriggered=true") {
					n /= 2
				}
				if res.status != 200 || n != c.want {
					t.Errorf("%s: %d records (%d), want %d: %s", c.query, n, res.status, c.want, res.body)
				}
			}
		})
	}
}

package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
)

// sent is a send's answer: the message's id (for a held message the id moderators review
// it by) and its moderation status, if any.
type sent struct {
	status int
	code   string
	id     string
	mod    string
	body   string
}

func (e *env) sendText(from, to, receiverType, text string) sent {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"receiver": to, "receiverType": receiverType, "data": map[string]any{"text": text}})
	r := e.do(request{method: "POST", path: "/v3/messages", headers: obo(from), body: string(body)})
	var m struct {
		Data struct {
			ID   string
			Data struct{ Moderation struct{ Status string } }
		}
	}
	json.Unmarshal(r.body, &m)
	out := sent{r.status, r.code, m.Data.ID, m.Data.Data.Moderation.Status, string(r.body)}
	if out.mod == "pending" {
		blocked, _ := e.list(request{method: "GET", path: "/v3/moderation/blocked-messages?limit=100"})
		found := false
		for _, b := range blocked {
			if msg, _ := b["message"].(map[string]any); msg != nil && msg["id"] == out.id {
				found = true
				if b["id"] != out.id {
					e.t.Fatalf("the held message %s is listed with id %v", out.id, b["id"])
				}
			}
		}
		if !found {
			e.t.Fatalf("the held message %s is not in the blocked list: %v", out.id, blocked)
		}
	}
	return out
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not an id: %q", s)
	}
	return n
}

// multipartKeywords posts (or puts) a keyword list as the hosted multipart upload.
func (e *env) multipartKeywords(method, path string, fields map[string]string, csv string) response {
	e.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if csv != "" {
		f, _ := w.CreateFormFile("file", "words.csv")
		io.WriteString(f, csv)
	}
	w.Close()
	req, _ := http.NewRequest(method, e.srv.URL+path, &b)
	req.Header.Set("apikey", e.full)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, body: body}
	var env struct{ Error struct{ Code string } }
	if json.Unmarshal(body, &env) == nil {
		out.code = env.Error.Code
	}
	return out
}

func TestModeration(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob")
		hello := e.send("ann", "bob", "user", "hello")

		// Reasons: the defaults, then the app's own.
		reasons, meta := e.list(request{method: "GET", path: "/v3/moderation/reasons"})
		if len(reasons) != 5 || reasons[0]["id"] != "spam" || reasons[0]["default"] != true || meta["current"] == nil {
			t.Fatalf("default reasons: %v %v", reasons, meta)
		}
		e.ok(request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"Scam","name":"Scam","description":"Money"}`})
		if got := e.ok(request{method: "PUT", path: "/v3/moderation/reasons/scam", body: `{"name":"Scams"}`}); got["name"] != "Scams" || got["description"] != "Money" {
			t.Fatalf("update reason: %v", got)
		}
		if got := e.ok(request{method: "GET", path: "/v3/moderation/reasons/scam"}); got["name"] != "Scams" || got["default"] != false {
			t.Fatalf("get reason: %v", got)
		}
		e.ok(request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"gone","name":"Gone"}`})
		e.ok(request{method: "DELETE", path: "/v3/moderation/reasons/gone"})

		// Keyword lists, as JSON and as the multipart upload.
		e.ok(request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"bad-words","name":"Bad","searchTerms":["darn"," heck ","darn"]}`})
		r := e.multipartKeywords("POST", "/v3/moderation/keywords", map[string]string{"id": "more", "name": "More", "searchTerms": "foo,bar"}, "baz,qux\nquux\n")
		var kl struct{ Data map[string]any }
		json.Unmarshal(r.body, &kl)
		if r.status != 200 || kl.Data["isCSV"] != true || fmt.Sprint(kl.Data["searchTerms"]) != "[foo bar baz qux quux]" {
			t.Fatalf("multipart keyword list: %d %s", r.status, r.body)
		}
		r = e.multipartKeywords("PUT", "/v3/moderation/keywords/more", map[string]string{"name": "More", "searchTerms": "zap"}, "")
		json.Unmarshal(r.body, &kl)
		if r.status != 200 || !strings.HasSuffix(kl.Data["revisionId"].(string), "_more_2") || fmt.Sprint(kl.Data["searchTerms"]) != "[zap]" {
			t.Fatalf("multipart keyword update: %d %s", r.status, r.body)
		}
		if got := e.ok(request{method: "GET", path: "/v3/moderation/keywords/bad-words"}); fmt.Sprint(got["searchTerms"]) != "[darn heck]" {
			t.Fatalf("keyword list: %v", got)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/moderation/keywords"}); len(l) != 2 {
			t.Fatalf("keyword lists: %v", l)
		}

		// Rules: a keyword list blocks, a pattern drops.
		rule := e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"Keywords","enabled":true,
			"conditions":[{"entity":"message","operand":"text","category":"word","operator":"contains","isKeywordsReferencePresent":true,"value":["bad-words"]}],
			"action":["blockMessage"],"filters":[]}`}) // an empty filters list limits nothing: accepted
		if rule["revisionId"] != e.app.ID+"_kw_1" || rule["active"] != true {
			t.Fatalf("create rule: %v", rule)
		}
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"sales","name":"Sales","conditions":[{"category":"pattern","value":["(?i)buy\\s+now"]}],"action":["dropMessage"]}`})

		// A message that passes is sent as ever; a blocked one comes back to its sender only.
		if s := e.sendText("ann", "bob", "user", "fine words"); s.status != 200 || s.mod != "" {
			t.Fatalf("a clean send: %+v", s)
		}
		held := e.sendText("ann", "bob", "user", "oh DARN it")
		if held.status != 200 || held.mod != "pending" || held.id == "" {
			t.Fatalf("a blocked send: %+v", held)
		}
		gheld := e.sendText("bob", "g", "group", "what the h-3-c-k")
		if gheld.status != 200 || gheld.mod != "pending" {
			t.Fatalf("a blocked group send (spacing and leetspeak): %+v", gheld)
		}
		before := e.snapshot()
		if s := e.sendText("ann", "bob", "user", "BUY   now!"); s.status != 400 || s.code != "ERR_MESSAGE_DROPPED" {
			t.Fatalf("a dropped send: %+v", s)
		}
		if e.snapshot() != before {
			t.Fatal("a dropped send wrote")
		}
		for _, who := range []string{"ann", "bob"} {
			if l := e.messages(request{method: "GET", path: "/v3/messages?limit=100", headers: obo(who)}); strings.Contains(l.texts(), "DARN") || strings.Contains(l.texts(), "h-3-c-k") {
				t.Fatalf("%s sees a held message: %s", who, l.texts())
			}
		}
		if c := e.conversation(request{method: "GET", path: "/v3/users/ann/conversation", headers: obo("bob")}); c.UnreadMessageCount != "2" {
			t.Fatalf("bob's unread count counts a held message: %+v", c)
		}

		// The blocked list; approving sends, rejecting does not; a review is final.
		blocked, _ := e.list(request{method: "GET", path: "/v3/moderation/blocked-messages"})
		if len(blocked) != 2 || blocked[0]["ruleId"] != "kw" || blocked[0]["status"] != "pending" || blocked[1]["id"] != held.id {
			t.Fatalf("blocked list: %v", blocked)
		}
		// A held message's id comes from the messages' sequence: no other message has it, the
		// next send's is past it, and approval delivers it under the same id.
		later := e.sendText("ann", "bob", "user", "after the held one")
		if heldID, laterID := mustInt(t, held.id), mustInt(t, later.id); laterID <= heldID {
			t.Fatalf("the next send's id %d is not past the held message's %d", laterID, heldID)
		}
		if r := e.do(request{method: "GET", path: "/v3/messages/" + held.id, headers: obo("ann")}); r.status != 404 {
			t.Fatalf("a held message is readable before approval: %d %s", r.status, r.body)
		}
		e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"approved"}`})
		if l := e.messages(request{method: "GET", path: "/v3/users/ann/messages?limit=100", headers: obo("bob")}); !strings.Contains(l.texts(), "oh DARN it") {
			t.Fatalf("an approved message is not delivered: %s", l.texts())
		}
		if m := e.ok(request{method: "GET", path: "/v3/messages/" + held.id, headers: obo("bob")}); m["id"] != held.id || fmt.Sprint(m["data"].(map[string]any)["text"]) != "oh DARN it" {
			t.Fatalf("the approved message does not keep its id %s: %v", held.id, m)
		}
		e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + gheld.id, body: `{"status":"rejected"}`})
		if l := e.messages(request{method: "GET", path: "/v3/groups/g/messages", headers: obo("ann")}); strings.Contains(l.texts(), "h-3-c-k") {
			t.Fatalf("a rejected message is delivered: %s", l.texts())
		}
		blocked, _ = e.list(request{method: "GET", path: "/v3/moderation/blocked-messages?limit=1"})
		if len(blocked) != 1 || blocked[0]["status"] != "rejected" {
			t.Fatalf("blocked list after review: %v", blocked)
		}

		// Approval sends as the sender now: a sender who could not send now is refused, and
		// the message stays pending until someone rejects it.
		e.mustGroup("g3", "ann", "bob")
		kicked := e.sendText("bob", "g3", "group", "darn it all")
		blockedPair := e.sendText("bob", "ann", "user", "darn you")
		if kicked.mod != "pending" || blockedPair.mod != "pending" {
			t.Fatalf("not held: %+v %+v", kicked, blockedPair)
		}
		e.ok(request{method: "DELETE", path: "/v3/groups/g3/members/bob"})
		e.ok(request{method: "POST", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["bob"]}`})
		for _, tt := range []struct{ id, code string }{{kicked.id, "ERR_NOT_A_MEMBER"}, {blockedPair.id, "ERR_BLOCKED_SENDER"}} {
			before := e.snapshot()
			if r := e.do(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + tt.id, body: `{"status":"approved"}`}); r.code != tt.code {
				t.Fatalf("approving %s: %d %s, want %s", tt.id, r.status, r.body, tt.code)
			}
			if e.snapshot() != before {
				t.Fatalf("a refused approval of %s wrote", tt.id)
			}
			e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + tt.id, body: `{"status":"rejected"}`})
		}
		e.ok(request{method: "DELETE", path: "/v3/users/ann/blockedusers", body: `{"blockedUids":["bob"]}`})

		// Edits are checked too; one that breaks a rule is refused and changes nothing.
		before = e.snapshot()
		if r := e.do(request{method: "PUT", path: "/v3/messages/" + hello, headers: obo("ann"), body: `{"data":{"text":"heck"}}`}); r.status != 400 || r.code != "ERR_MESSAGE_DROPPED" {
			t.Fatalf("a blocked edit: %d %s", r.status, r.body)
		}
		if e.snapshot() != before {
			t.Fatal("a refused edit wrote")
		}

		// A new revision per update; the revisions; a disabled rule lets all through.
		rule = e.ok(request{method: "PUT", path: "/v3/moderation/rules/kw", body: `{"name":"Keywords","enabled":false,
			"conditions":[{"category":"word","isKeywordsReferencePresent":true,"value":["bad-words"]}],"action":["blockMessage"]}`})
		if rule["revisionId"] != e.app.ID+"_kw_2" || rule["enabled"] != false {
			t.Fatalf("update rule: %v", rule)
		}
		revs, _ := e.list(request{method: "GET", path: "/v3/moderation/rules/kw/revisions"})
		if len(revs) != 2 || revs[0]["active"] != true || revs[1]["active"] != false || revs[1]["enabled"] != true {
			t.Fatalf("revisions: %v", revs)
		}
		if s := e.sendText("ann", "bob", "user", "darn"); s.status != 200 || s.mod != "" {
			t.Fatalf("a disabled rule still blocks: %+v", s)
		}
		if rules, _ := e.list(request{method: "GET", path: "/v3/moderation/rules"}); len(rules) != 2 {
			t.Fatalf("rules: %v", rules)
		}

		// Flagging and review.
		e.ok(request{method: "POST", path: "/v3/messages/" + hello + "/flagged", headers: obo("bob"), body: `{"reasonId":"spam","remark":"hm"}`})
		e.ok(request{method: "POST", path: "/v3/messages/" + hello + "/flagged", headers: obo("ann"), body: `{"reasonId":"scam"}`})
		flagged, _ := e.list(request{method: "GET", path: "/v3/moderation/flagged-messages"})
		if len(flagged) != 1 || flagged[0]["id"] != hello || len(flagged[0]["flags"].([]any)) != 2 || flagged[0]["status"] != "pending" {
			t.Fatalf("flagged list: %v", flagged)
		}
		e.ok(request{method: "PATCH", path: "/v3/moderation/flagged-messages/" + hello, body: `{"status":"disapproved"}`})
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + hello, headers: obo("bob")}); got["deletedBy"] != "app_system" {
			t.Fatalf("a disapproved message is not deleted: %v", got)
		}
		reviewed, _ := e.list(request{method: "GET", path: "/v3/moderation/reviewed-messages"})
		if len(reviewed) != 1 || reviewed[0]["status"] != "disapproved" {
			t.Fatalf("reviewed list: %v", reviewed)
		}
		if l, _ := e.list(request{method: "GET", path: "/v3/moderation/flagged-messages"}); len(l) != 0 {
			t.Fatalf("a reviewed message is still flagged: %v", l)
		}
		other := e.send("bob", "ann", "user", "keep me")
		e.ok(request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("ann"), body: `{"reasonId":"other"}`})
		e.ok(request{method: "PATCH", path: "/v3/moderation/flagged-messages/" + other, body: `{"status":"approved"}`})
		if got := e.ok(request{method: "GET", path: "/v3/messages/" + other, headers: obo("ann")}); got["deletedAt"] != nil {
			t.Fatalf("an approved message was deleted: %v", got)
		}

		// Deletes.
		e.ok(request{method: "DELETE", path: "/v3/moderation/rules/sales"})
		if s := e.sendText("ann", "bob", "user", "buy now"); s.status != 200 {
			t.Fatalf("a deleted rule still drops: %+v", s)
		}
		if r := e.do(request{method: "GET", path: "/v3/moderation/rules/sales/revisions"}); r.status != 404 || r.code != "ERR_RULE_NOT_FOUND" {
			t.Fatalf("revisions of a deleted rule: %d %s", r.status, r.body)
		}
		e.ok(request{method: "DELETE", path: "/v3/moderation/keywords/more"})

		// Refusals: a row per code with its status, and what only HTTP decides (bodies, ids in
		// the path, query parameters). What moderation refuses and to whom is chat's
		// TestModerationRules, against the store without HTTP.
		long := strings.Repeat("x", 513)
		auth := map[string]string{"apikey": e.authKey}
		tooManyFilters := strings.TrimSuffix(strings.Repeat(`{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":"a"},`, 11), ",")
		e.refused(t, []refusal{
			{"reason without id", request{method: "POST", path: "/v3/moderation/reasons", body: `{"name":"x"}`}, 400, "ERR_BAD_REQUEST", "id"},
			{"reason without name", request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"x"}`}, 400, "ERR_BAD_REQUEST", "name"},
			{"reason bad id", request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"a b","name":"x"}`}, 400, "ERR_BAD_REQUEST", "id"},
			{"reason again", request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":"scam","name":"x"}`}, 400, "ERR_REASON_ALREADY_EXISTS", ""},
			{"reason malformed", request{method: "POST", path: "/v3/moderation/reasons", body: `{"id":`}, 400, "ERR_BAD_REQUEST", ""},
			{"unknown reason", request{method: "GET", path: "/v3/moderation/reasons/nope"}, 404, "ERR_REASON_NOT_FOUND", ""},
			{"update default reason", request{method: "PUT", path: "/v3/moderation/reasons/spam", body: `{"name":"x"}`}, 403, "ERR_DEFAULT_REASON", ""},
			{"update reason empty", request{method: "PUT", path: "/v3/moderation/reasons/scam", body: `{}`}, 400, "ERR_BAD_REQUEST", "name"},

			{"flag twice", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("ann"), body: `{"reasonId":"spam"}`}, 409, "ERR_MESSAGE_ALREADY_FLAGGED", ""},
			{"flag unseen", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("cat"), body: `{"reasonId":"spam"}`}, 403, "ERR_MESSAGE_NO_ACCESS", ""},
			{"flag without reason", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("bob"), body: `{}`}, 400, "ERR_BAD_REQUEST", "reasonId"},
			{"flag long remark", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("bob"), body: `{"reasonId":"spam","remark":"` + strings.Repeat("r", 1001) + `"}`}, 400, "ERR_BAD_REQUEST", "remark"},
			{"flag unknown message", request{method: "POST", path: "/v3/messages/99999/flagged", headers: obo("bob"), body: `{"reasonId":"spam"}`}, 404, "ERR_MESSAGE_ID_NOT_FOUND", ""},
			{"flag without onBehalfOf", request{method: "POST", path: "/v3/messages/" + other + "/flagged", body: `{"reasonId":"spam"}`}, 400, "ERR_BAD_REQUEST", ""},
			{"flag as unknown user", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: obo("zed"), body: `{"reasonId":"spam"}`}, 404, "ERR_UID_NOT_FOUND", ""},

			{"review flagged twice", request{method: "PATCH", path: "/v3/moderation/flagged-messages/" + hello, body: `{"status":"approved"}`}, 409, "ERR_ALREADY_REVIEWED", ""},
			{"review unflagged", request{method: "PATCH", path: "/v3/moderation/flagged-messages/99999", body: `{"status":"approved"}`}, 404, "ERR_FLAGGED_MESSAGE_NOT_FOUND", ""},
			{"review flagged bad id", request{method: "PATCH", path: "/v3/moderation/flagged-messages/x", body: `{"status":"approved"}`}, 404, "ERR_FLAGGED_MESSAGE_NOT_FOUND", ""},
			{"review flagged bad status", request{method: "PATCH", path: "/v3/moderation/flagged-messages/" + other, body: `{"status":"rejected"}`}, 400, "ERR_BAD_REQUEST", "status"},
			{"review blocked twice", request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"rejected"}`}, 409, "ERR_ALREADY_REVIEWED", ""},
			{"review blocked unknown", request{method: "PATCH", path: "/v3/moderation/blocked-messages/99999", body: `{"status":"approved"}`}, 404, "ERR_BLOCKED_MESSAGE_NOT_FOUND", ""},
			{"review blocked bad status", request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"disapproved"}`}, 400, "ERR_BAD_REQUEST", "status"},
			{"review blocked bad id", request{method: "PATCH", path: "/v3/moderation/blocked-messages/-1", body: `{"status":"approved"}`}, 404, "ERR_BLOCKED_MESSAGE_NOT_FOUND", ""},
			{"blocked list bad limit", request{method: "GET", path: "/v3/moderation/blocked-messages?limit=101"}, 400, "ERR_BAD_REQUEST", "limit"},
			{"flagged list bad before", request{method: "GET", path: "/v3/moderation/flagged-messages?before=x"}, 400, "ERR_BAD_REQUEST", "before"},

			{"rule malformed", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","conditions":{}}`}, 400, "ERR_BAD_REQUEST", "conditions"},
			{"rule without conditions", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions"},
			{"rule without action", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"word","value":["a"]}]}`}, 400, "ERR_BAD_REQUEST", "action"},
			{"rule unknown action", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["ban"]}`}, 400, "ERR_BAD_REQUEST", "action"},
			{"rule unknown category", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"ai","value":["a"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule media", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"operand":"image","isMediaPresent":true,"category":"word","value":["violence_greaterThan_30"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule operator", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"operator":"equals","category":"word","value":["a"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule empty value", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"word","value":[]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule bad regex", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"pattern","value":["(unclosed"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule backreference", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"pattern","value":["(a)\\1"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule long regex", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"pattern","value":["` + long + `"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule bad contact", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"contact","value":["fax"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule bad keyword", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"word","value":["!!!"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions[0]"},
			{"rule unknown list", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"x","name":"x","conditions":[{"category":"word","isKeywordsReferencePresent":true,"value":["nope"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "conditions"},
			{"rule again", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"]}`}, 400, "ERR_RULE_ALREADY_EXISTS", ""},
			{"rule unknown", request{method: "GET", path: "/v3/moderation/rules/nope"}, 404, "ERR_RULE_NOT_FOUND", ""},
			{"update unknown rule", request{method: "PUT", path: "/v3/moderation/rules/nope", body: `{"name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"]}`}, 404, "ERR_RULE_NOT_FOUND", ""},
			{"update rule other id", request{method: "PUT", path: "/v3/moderation/rules/kw", body: `{"id":"other","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"]}`}, 400, "ERR_BAD_REQUEST", "id"},
			{"delete unknown rule", request{method: "DELETE", path: "/v3/moderation/rules/nope"}, 404, "ERR_RULE_NOT_FOUND", ""},
			{"rule filter unknown field", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"field":"role","operator":"equals","value":"default","type":"sender"}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter empty", request{method: "PUT", path: "/v3/moderation/rules/kw", body: `{"name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[{}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter unknown operator", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":"a"},{"type":"sender","entity":"user","operand":"uid","operator":"like","value":"a"}]}`}, 400, "ERR_BAD_REQUEST", "filters[1]"},
			{"rule filter unknown operand", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"type":"receiver","entity":"group","operand":"uid","operator":"equals","value":"a"}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter group sender", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"type":"sender","entity":"group","operand":"guid","operator":"equals","value":"g"}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter value not a string", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"type":"sender","entity":"user","operand":"createdAt","operator":"lessThan","value":1700000000}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter bad time", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` +
				`{"type":"sender","entity":"user","operand":"createdAt","operator":"lessThan","value":"soon"}]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule filter not an object", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":["role"]}`}, 400, "ERR_BAD_REQUEST", "filters[0]"},
			{"rule too many filters", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":[` + tooManyFilters + `]}`}, 400, "ERR_BAD_REQUEST", "filters"},
			{"rule filters not a list", request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"x","conditions":[{"category":"word","value":["a"]}],"action":["blockMessage"],"filters":"role"}`}, 400, "ERR_BAD_REQUEST", "filters"},

			{"keywords without terms", request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"k","name":"k","searchTerms":[]}`}, 400, "ERR_BAD_REQUEST", "searchTerms"},
			{"keywords bad term", request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"k","name":"k","searchTerms":["` + long + `"]}`}, 400, "ERR_BAD_REQUEST", "searchTerms"},
			{"keywords category", request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"k","name":"k","category":"image","searchTerms":["a"]}`}, 400, "ERR_BAD_REQUEST", "category"},
			{"keywords again", request{method: "POST", path: "/v3/moderation/keywords", body: `{"id":"bad-words","name":"k","searchTerms":["a"]}`}, 400, "ERR_KEYWORD_ALREADY_EXISTS", ""},
			{"keywords unknown", request{method: "GET", path: "/v3/moderation/keywords/nope"}, 404, "ERR_KEYWORD_NOT_FOUND", ""},
			{"update unknown keywords", request{method: "PUT", path: "/v3/moderation/keywords/nope", body: `{"name":"k","searchTerms":["a"]}`}, 404, "ERR_KEYWORD_NOT_FOUND", ""},
			{"delete keywords in use", request{method: "DELETE", path: "/v3/moderation/keywords/bad-words"}, 409, "ERR_KEYWORD_IN_USE", ""},
			{"delete unknown keywords", request{method: "DELETE", path: "/v3/moderation/keywords/nope"}, 404, "ERR_KEYWORD_NOT_FOUND", ""},

			{"authOnly rules", request{method: "GET", path: "/v3/moderation/rules", headers: auth}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"authOnly reasons", request{method: "GET", path: "/v3/moderation/reasons", headers: auth}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"authOnly flag", request{method: "POST", path: "/v3/messages/" + other + "/flagged", headers: map[string]string{"apikey": e.authKey, "onBehalfOf": "bob"}, body: `{"reasonId":"spam"}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"authOnly review", request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, headers: auth, body: `{"status":"approved"}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
			{"authOnly keywords", request{method: "POST", path: "/v3/moderation/keywords", headers: auth, body: `{"id":"k","name":"k","searchTerms":["a"]}`}, 403, "AUTH_ERR_NO_ACCESS", ""},
		})

		// An oversized keyword list: one keyword over the cap, as JSON and as a CSV upload.
		many := make([]string, 10_001)
		for i := range many {
			many[i] = fmt.Sprintf("w%d", i)
		}
		body, _ := json.Marshal(map[string]any{"id": "big", "name": "Big", "searchTerms": many})
		if r := e.do(request{method: "POST", path: "/v3/moderation/keywords", body: string(body)}); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
			t.Fatalf("an oversized keyword list: %d %.200s", r.status, r.body)
		}
		if r := e.multipartKeywords("POST", "/v3/moderation/keywords", map[string]string{"id": "big", "name": "Big"}, strings.Join(many, "\n")); r.status != 400 || r.code != "ERR_BAD_REQUEST" {
			t.Fatalf("an oversized CSV upload: %d %.200s", r.status, r.body)
		}
		if r := e.multipartKeywords("POST", "/v3/moderation/keywords", map[string]string{"id": "big", "name": "Big"}, strings.Repeat("x", 3<<20)); r.status != 413 {
			t.Fatalf("an upload over the body cap: %d %.200s", r.status, r.body)
		}
		if e.count(`SELECT COUNT(*) FROM moderation_keyword_lists WHERE id = 'big'`) != 0 {
			t.Fatal("an oversized list was stored")
		}
	})
}

// canonJSON is JSON with its objects' keys sorted, as a decoded map marshals.
func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestModerationFilters: a rule with filters holds a message only from or to whom its
// filters name, on send and on edit; its filters are stored with each revision and read back
// as sent.
func TestModerationFilters(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		e.mustGroup("h", "ann", "bob", "cat")
		annToBob := e.send("ann", "bob", "user", "hello")
		annToG := e.send("ann", "g", "group", "hello")

		senderAnn := `{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":"ann"}`
		rule := e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"f","name":"Ann's words",
			"conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"],"filters":[` + senderAnn + `]}`})
		want := canonJSON(t, `[`+senderAnn+`]`)
		if got, _ := json.Marshal(rule["filters"]); string(got) != want {
			t.Fatalf("created rule's filters: %s, want %s", got, want)
		}
		if s := e.sendText("ann", "bob", "user", "oh darn"); s.status != 200 || s.mod != "pending" {
			t.Fatalf("the filtered sender's message was not held: %+v", s)
		}
		if s := e.sendText("cat", "bob", "user", "oh darn"); s.status != 200 || s.mod != "" {
			t.Fatalf("another sender's message was held: %+v", s)
		}

		// A new revision limits the rule to group g's messages (and senders named in or
		// starting with a): ann's and cat's messages to bob pass, ann's to g is held, to h not.
		inG := `{"type":"receiver","entity":"group","operand":"guid","operator":"in","value":"x, G"}`
		startsA := `{"type":"sender","entity":"user","operand":"name","operator":"startsWith","value":"a"}`
		rule = e.ok(request{method: "PUT", path: "/v3/moderation/rules/f", body: `{"name":"Ann's words in g",
			"conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"],"filters":[` + inG + `,` + startsA + `]}`})
		if got, _ := json.Marshal(rule["filters"]); string(got) != canonJSON(t, `[`+inG+`,`+startsA+`]`) {
			t.Fatalf("updated rule's filters: %s", got)
		}
		if s := e.sendText("ann", "bob", "user", "oh darn"); s.status != 200 || s.mod != "" {
			t.Fatalf("a message outside the group was held: %+v", s)
		}
		if s := e.sendText("ann", "g", "group", "oh darn"); s.status != 200 || s.mod != "pending" {
			t.Fatalf("ann's message to g was not held: %+v", s)
		}
		if s := e.sendText("cat", "g", "group", "oh darn"); s.status != 200 || s.mod != "" {
			t.Fatalf("cat's message to g was held: %+v", s)
		}
		if s := e.sendText("ann", "h", "group", "oh darn"); s.status != 200 || s.mod != "" {
			t.Fatalf("ann's message to h was held: %+v", s)
		}

		// Edits: the rule refuses ann's edit in g, not her edit of a message to bob.
		if r := e.do(request{method: "PUT", path: "/v3/messages/" + annToG, headers: obo("ann"), body: `{"data":{"text":"darn"}}`}); r.status != 400 || r.code != "ERR_MESSAGE_DROPPED" {
			t.Fatalf("an edit the filtered rule covers: %d %s", r.status, r.body)
		}
		if r := e.do(request{method: "PUT", path: "/v3/messages/" + annToBob, headers: obo("ann"), body: `{"data":{"text":"darn"}}`}); r.status != 200 {
			t.Fatalf("an edit the filtered rule leaves out: %d %s", r.status, r.body)
		}

		// Reads return the filters as sent: the rule, the list, each revision its own.
		if got, _ := json.Marshal(e.ok(request{method: "GET", path: "/v3/moderation/rules/f"})["filters"]); string(got) != canonJSON(t, `[`+inG+`,`+startsA+`]`) {
			t.Fatalf("read rule's filters: %s", got)
		}
		revs, _ := e.list(request{method: "GET", path: "/v3/moderation/rules/f/revisions"})
		if len(revs) != 2 {
			t.Fatalf("revisions: %v", revs)
		}
		if got, _ := json.Marshal(revs[1]["filters"]); string(got) != want {
			t.Fatalf("first revision's filters: %s, want %s", got, want)
		}
		// A rule saved without filters answers none, as before filters.
		plain := e.ok(request{method: "PUT", path: "/v3/moderation/rules/f", body: `{"name":"all","conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`})
		if _, ok := plain["filters"]; ok {
			t.Fatalf("a rule without filters: %v", plain)
		}
		if s := e.sendText("cat", "bob", "user", "oh darn"); s.status != 200 || s.mod != "pending" {
			t.Fatalf("the unfiltered revision did not hold cat's message: %+v", s)
		}
	})
}

// TestModerationPathologicalPattern: a pattern that backtracking engines take exponential
// time on costs RE2 linear time; a send against it stays fast.
func TestModerationPathologicalPattern(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"evil","name":"Evil","conditions":[
			{"category":"pattern","value":["(a+)+$","(a|aa)+b","(.*a){20}"]},{"category":"contact","value":["email","phone","link"]}],"action":["blockMessage"]}`})
		text := strings.Repeat("a", 4000) + "!"
		start := time.Now()
		s := e.sendText("ann", "bob", "user", text)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("a send against a pathological pattern took %v", d)
		}
		if s.status != 200 {
			t.Fatalf("send: %+v", s)
		}
		if s := e.sendText("ann", "bob", "user", "write to me at ann@example.com"); s.mod != "pending" {
			t.Fatalf("an email passed a contact rule: %+v", s)
		}
	})
}

// TestModerationWebhookEvents: each moderation trigger is written in its change's
// transaction, only while subscribed, and rendered with the message.
func TestModerationWebhookEvents(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			e.mustUser("ann", "ann")
			e.mustUser("bob", "bob")
			e.ok(request{method: "POST", path: "/v3/webhooks", body: `{"id":"w","webhookURL":"` + rc.srv.URL + `/hook","triggers":
				["moderation_engine_approved","moderation_engine_blocked","moderation_manual_approved"]}`})
			// No enabled rules: a send is not "approved by the engine".
			e.send("ann", "bob", "user", "before")
			e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"K","conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`})
			e.send("ann", "bob", "user", "clean")
			held := e.sendText("ann", "bob", "user", "darn")
			e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"approved"}`})
			got := rc.wait(t, 3)
			byTrigger := map[string]string{}
			for _, d := range got {
				var env struct {
					Trigger string
					Data    struct {
						Message struct {
							Data struct {
								Text       string
								Moderation struct{ Status string }
							}
						}
					}
				}
				json.Unmarshal(d.body, &env)
				byTrigger[env.Trigger] = env.Data.Message.Data.Text + "/" + env.Data.Message.Data.Moderation.Status
			}
			want := map[string]string{"moderation_engine_approved": "clean/", "moderation_engine_blocked": "darn/pending", "moderation_manual_approved": "darn/"}
			if fmt.Sprint(byTrigger) != fmt.Sprint(want) || len(got) != 3 {
				t.Fatalf("events: %v (%d)", byTrigger, len(got))
			}
		})
	}
}

// TestModerationOtherNode: a rule made on one node applies on another once that node's
// cache expires (its KeyCacheTTL), and a change on a node applies there at once.
func TestModerationOtherNode(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		other := e.secondNode(chat.Config{KeyCacheTTL: 300 * time.Millisecond})
		sendOn := func(base, text string) string {
			t.Helper()
			r := e.do(request{method: "POST", path: "/v3/messages", base: base, headers: obo("ann"),
				body: `{"receiver":"bob","receiverType":"user","data":{"text":"` + text + `"}}`})
			var m struct {
				Data struct {
					Data struct{ Moderation struct{ Status string } }
				}
			}
			json.Unmarshal(r.body, &m)
			if r.status != 200 {
				t.Fatalf("send on %s: %d %s", base, r.status, r.body)
			}
			return m.Data.Data.Moderation.Status
		}
		sendOn(other, "warm the cache")
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"K","conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`})
		if got := sendOn(e.srv.URL, "darn"); got != "pending" {
			t.Fatalf("the changing node did not apply its rule at once: %q", got)
		}
		time.Sleep(400 * time.Millisecond)
		if got := sendOn(other, "darn"); got != "pending" {
			t.Fatalf("the other node did not apply the rule after its TTL: %q", got)
		}
		e.ok(request{method: "DELETE", path: "/v3/moderation/rules/kw"})
		time.Sleep(400 * time.Millisecond)
		if got := sendOn(other, "darn"); got != "" {
			t.Fatalf("the other node still applies a deleted rule: %q", got)
		}
	})
}

// TestModerationReviewRace: moderators approving one blocked message at once send it once;
// users flagging at once each flag once.
func TestModerationReviewRace(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"K","conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`})
		held := e.sendText("ann", "bob", "user", "darn it")
		const n = 8
		statuses := make(chan response, n)
		for range n {
			go func() {
				statuses <- e.do(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"approved"}`})
			}()
		}
		got := map[int]int{}
		for range n {
			r := <-statuses
			got[r.status]++
			if r.status >= 500 {
				t.Logf("%s", r.body)
			}
		}
		if got[200] != 1 || got[409] != n-1 {
			t.Fatalf("concurrent approvals: %v", got)
		}
		if c := e.count(`SELECT COUNT(*) FROM messages WHERE data LIKE '%darn it%'`); c != 1 {
			t.Fatalf("the approved message was sent %d times", c)
		}
		msg := e.send("ann", "bob", "user", "plain")
		codes := make(chan string, n)
		for range n {
			go func() {
				codes <- e.do(request{method: "POST", path: "/v3/messages/" + msg + "/flagged", headers: obo("bob"), body: `{"reasonId":"spam"}`}).code
			}()
		}
		flags := map[string]int{}
		for range n {
			flags[<-codes]++
		}
		if flags[""] != 1 || flags["ERR_MESSAGE_ALREADY_FLAGGED"] != n-1 {
			t.Fatalf("concurrent flags: %v", flags)
		}
	})
}

// TestBlockedReviewByMessageID: a held message is reviewed by its message id, as the hosted
// API does (PATCH /moderation/blocked-messages/{messageId}; its list's items have only
// message.id), never by the id of natter's entry, which would name another held message.
// An id no pending message of the app was held under is refused and changes nothing.
func TestBlockedReviewByMessageID(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob"} {
			e.mustUser(u, u)
		}
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"Keywords","enabled":true,
			"conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`})
		plain := e.send("ann", "bob", "user", "hello")
		// Held by hand (sendText also checks the list's id), so that this test is about the
		// review alone.
		type heldSend struct{ id string }
		var held []heldSend
		for i := range 4 {
			r := e.do(request{method: "POST", path: "/v3/messages", headers: obo("ann"),
				body: fmt.Sprintf(`{"receiver":"bob","receiverType":"user","data":{"text":"darn %d"}}`, i)})
			var m struct {
				Data struct {
					ID   string
					Data struct{ Moderation struct{ Status string } }
				}
			}
			json.Unmarshal(r.body, &m)
			if r.status != 200 || m.Data.Data.Moderation.Status != "pending" || m.Data.ID == "" {
				t.Fatalf("not held: %d %s", r.status, r.body)
			}
			held = append(held, heldSend{m.Data.ID})
		}
		status := func() map[string]string {
			t.Helper()
			l, _ := e.list(request{method: "GET", path: "/v3/moderation/blocked-messages?limit=100"})
			out := map[string]string{}
			for _, b := range l {
				out[b["message"].(map[string]any)["id"].(string)] = b["status"].(string)
			}
			return out
		}

		// Approving the second held message by its id sends that message, and only it.
		r := e.do(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held[1].id, body: `{"status":"approved"}`})
		if r.status != 200 || !strings.Contains(string(r.body), "The message with id "+held[1].id+" has been approved.") {
			t.Fatalf("approve %s: %d %s", held[1].id, r.status, r.body)
		}
		if m := e.ok(request{method: "GET", path: "/v3/messages/" + held[1].id, headers: obo("bob")}); fmt.Sprint(m["data"].(map[string]any)["text"]) != "darn 1" {
			t.Fatalf("message %s after its approval: %v", held[1].id, m)
		}
		want := map[string]string{held[0].id: "pending", held[1].id: "approved", held[2].id: "pending", held[3].id: "pending"}
		if got := status(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after approving %s: %v, want %v", held[1].id, got, want)
		}
		// Rejecting keeps the entry known by its message id.
		e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held[2].id, body: `{"status":"rejected"}`})
		want[held[2].id] = "rejected"
		if got := status(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after rejecting %s: %v, want %v", held[2].id, got, want)
		}
		// The list pages by message id.
		if l, _ := e.list(request{method: "GET", path: "/v3/moderation/blocked-messages?limit=2&before=" + held[2].id}); len(l) != 2 ||
			l[0]["id"] != held[1].id || l[1]["id"] != held[0].id {
			t.Fatalf("page before %s: %v", held[2].id, l)
		}

		// Another app's held message.
		_, otherKey := e.newApp("other", "eu")
		other := map[string]string{"apikey": otherKey}
		for _, u := range []string{"ann", "bob"} {
			if r := e.do(request{method: "POST", path: "/v3/users", headers: other, body: `{"uid":"` + u + `","name":"` + u + `"}`}); r.status != 200 {
				t.Fatalf("other app's user: %d %s", r.status, r.body)
			}
		}
		if r := e.do(request{method: "POST", path: "/v3/moderation/rules", headers: other, body: `{"id":"kw","name":"K","enabled":true,
			"conditions":[{"category":"word","value":["darn"]}],"action":["blockMessage"]}`}); r.status != 200 {
			t.Fatalf("other app's rule: %d %s", r.status, r.body)
		}
		r = e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"apikey": otherKey, "onBehalfOf": "ann"},
			body: `{"receiver":"bob","receiverType":"user","data":{"text":"darn elsewhere"}}`})
		var om struct{ Data struct{ ID string } }
		json.Unmarshal(r.body, &om)
		if r.status != 200 || om.Data.ID == "" || !strings.Contains(string(r.body), `"pending"`) {
			t.Fatalf("other app's held send: %d %s", r.status, r.body)
		}

		// The entry ids, the old addressing: none may review anything unless it is also the
		// id of a held message of the app.
		var entries []string
		for _, h := range held {
			entries = append(entries, fmt.Sprint(e.count(`SELECT id FROM moderation_blocked WHERE app_id = $1 AND message_id = $2`, e.app.ID, mustInt(t, h.id))))
		}

		before := e.snapshot()
		cases := []struct {
			name, id, status string
			code             string
		}{
			{"a message sent unheld", plain, "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"approved already, approve", held[1].id, "approved", "ERR_ALREADY_REVIEWED"},
			{"approved already, reject", held[1].id, "rejected", "ERR_ALREADY_REVIEWED"},
			{"rejected already, approve", held[2].id, "approved", "ERR_ALREADY_REVIEWED"},
			{"rejected already, reject", held[2].id, "rejected", "ERR_ALREADY_REVIEWED"},
			{"another app's held message", om.Data.ID, "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"no message", "99999999", "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"zero", "0", "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"negative", "-3", "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"not a number", "abc", "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
			{"too big", "99999999999999999999", "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"},
		}
		ids := map[string]bool{plain: true, om.Data.ID: true}
		for _, h := range held {
			ids[h.id] = true
		}
		for i, en := range entries {
			if !ids[en] {
				cases = append(cases, struct{ name, id, status, code string }{fmt.Sprintf("entry id of held message %d", i), en, "approved", "ERR_BLOCKED_MESSAGE_NOT_FOUND"})
			}
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + tc.id, body: `{"status":"` + tc.status + `"}`})
				wantStatus := 404
				if tc.code == "ERR_ALREADY_REVIEWED" {
					wantStatus = 409
				}
				if r.status != wantStatus || r.code != tc.code {
					t.Fatalf("%s: %d %s, want %d %s", tc.id, r.status, r.body, wantStatus, tc.code)
				}
				if e.snapshot() != before {
					t.Fatal("a refused review changed the database")
				}
			})
		}
		if got := status(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after the refusals: %v, want %v", got, want)
		}
		if r := e.do(request{method: "GET", path: "/v3/messages/" + om.Data.ID, headers: map[string]string{"apikey": otherKey}}); r.status != 404 {
			t.Fatalf("the other app's held message was sent: %d %s", r.status, r.body)
		}
	})
}

// TestModerationServiceRefused: the hosted moderation service's five operations
// (/moderation/messages*) answer 501 ERR_NOT_IMPLEMENTED, saying to send through POST
// /messages, to every credential natter accepts, after authentication; nothing is written
// (not the message, not the users and group its details would have created), and the send
// it points to does moderate.
func TestModerationServiceRefused(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		e.mustUser("bob", "Bob")
		id := e.sendText("alice", "bob", "user", "hello").id
		token := e.mustToken("alice")
		body := `{"category":"message","type":"text","data":{"text":"Hey"},"sender":"newbie","receiver":"bob","receiverType":"user",` +
			`"senderUserDetails":{"uid":"newbie","name":"New"},"receiverGroupDetails":{"guid":"g","name":"G","type":"public"}}`
		before := e.snapshot()
		for _, tc := range []struct {
			name    string
			r       request
			status  int
			code    string
			message string
		}{
			{"send", request{method: "POST", path: "/v3/moderation/messages", body: body}, 501, "ERR_NOT_IMPLEMENTED", "POST /messages"},
			{"list", request{method: "GET", path: "/v3/moderation/messages?moderationStatus=pending"}, 501, "ERR_NOT_IMPLEMENTED", "POST /messages"},
			{"get", request{method: "GET", path: "/v3.0/moderation/messages/" + id}, 501, "ERR_NOT_IMPLEMENTED", "POST /messages"},
			{"update", request{method: "PUT", path: "/v3/moderation/messages/" + id, body: `{"data":{"text":"x"}}`}, 501, "ERR_NOT_IMPLEMENTED", "POST /messages"},
			{"delete", request{method: "DELETE", path: "/v3/moderation/messages/" + id}, 501, "ERR_NOT_IMPLEMENTED", "POST /messages"},
			{"unknown id", request{method: "GET", path: "/v3/moderation/messages/999999"}, 501, "ERR_NOT_IMPLEMENTED", ""},
			{"authOnly key", request{method: "POST", path: "/v3/moderation/messages", body: body, headers: map[string]string{"apikey": e.authKey}}, 501, "ERR_NOT_IMPLEMENTED", ""},
			{"auth token", request{method: "GET", path: "/v3/moderation/messages", headers: map[string]string{"apikey": "", "authToken": token}}, 501, "ERR_NOT_IMPLEMENTED", ""},
			{"no key", request{method: "POST", path: "/v3/moderation/messages", body: body, headers: map[string]string{"apikey": ""}}, 401, "AUTH_ERR_EMPTY_APIKEY", ""},
			{"unknown key", request{method: "GET", path: "/v3/moderation/messages/" + id, headers: map[string]string{"apikey": strings.Repeat("0", 40)}}, 401, "AUTH_ERR_APIKEY_NOT_FOUND", ""},
			{"malformed body", request{method: "POST", path: "/v3/moderation/messages", body: `{`}, 501, "ERR_NOT_IMPLEMENTED", ""},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code || !strings.Contains(string(r.body), tc.message) {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.status, r.body, tc.status, tc.code)
			}
		}
		if e.snapshot() != before {
			t.Error("a refused moderation-service call wrote")
		}
		// Campaigns, a separate product on the same host, are no route of natter's.
		if r := e.do(request{method: "GET", path: "/v3/campaigns"}); r.status != 404 || r.code != "ERR_API_NOT_FOUND" {
			t.Errorf("campaigns: %d %s", r.status, r.body)
		}
	})
}

// TestModerationInteractive: a rule on text reads an interactive message's visible text
// (a card's text and button labels, a form's title), not its ids or addresses: a keyword on
// a button holds the message, a pattern drops it, an id or a URL that matches passes.
func TestModerationInteractive(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("ann", "ann")
		e.mustUser("bob", "bob")
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"kw","name":"Keywords","conditions":[
			{"category":"word","operator":"contains","value":["darn"]}],"action":["blockMessage"]}`})
		e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"sales","name":"Sales","conditions":[
			{"category":"pattern","value":["(?i)buy\\s+now"]}],"action":["dropMessage"]}`})
		card := func(text, button, id, url string) response {
			return e.do(request{method: "POST", path: "/v3/messages", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user",
				"category":"interactive","type":"card","data":{"interactiveData":{"text":"` + text + `","imageUrl":"` + url + `",
				"buttons":[{"elementType":"button","elementId":"` + id + `","buttonText":"` + button + `",
				"action":{"actionType":"urlNavigation","url":"` + url + `"}}]}}}`})
		}
		status := func(r response) string {
			var m struct {
				Data struct {
					Data struct{ Moderation struct{ Status string } }
				}
			}
			json.Unmarshal(r.body, &m)
			return fmt.Sprintf("%d %s %s", r.status, r.code, m.Data.Data.Moderation.Status)
		}
		for _, tc := range []struct {
			name string
			r    response
			want string
		}{
			{"clean", card("Lunch?", "Yes", "yes", "https://example.com/a"), "200  "},
			{"a keyword on a button", card("Lunch?", "Darn yes", "yes", "https://example.com/a"), "200  pending"},
			{"a keyword in the text", card("oh darn", "Yes", "yes", "https://example.com/a"), "200  pending"},
			{"a pattern in the text", card("Buy now", "Yes", "yes", "https://example.com/a"), "400 ERR_MESSAGE_DROPPED "},
			{"a keyword in an id and a URL", card("Lunch?", "Yes", "darn", "https://darn.example.com/darn"), "200  "},
		} {
			if got := status(tc.r); got != tc.want {
				t.Errorf("%s: %s, want %s: %s", tc.name, got, tc.want, tc.r.body)
			}
		}
		// The held ones reach only the moderators' list; bob sees the clean ones.
		if l := e.messages(request{method: "GET", path: "/v3/messages?limit=100", headers: obo("bob")}); len(l.Data) != 2 {
			t.Errorf("bob sees %d messages, want the 2 that passed", len(l.Data))
		}
	})
}

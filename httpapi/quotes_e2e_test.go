package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/realtime"
)

// quoted sends a text from → to that quotes the message quoted, and answers the message.
func (e *env) quoted(from, to, receiverType, text, quoted string) map[string]any {
	e.t.Helper()
	return e.ok(request{method: "POST", path: "/v3/messages", headers: obo(from),
		body: `{"receiver":"` + to + `","receiverType":"` + receiverType + `","data":{"text":"` + text + `"},"quotedMessageId":` + quoted + `}`})
}

// quoteOf is a message's "quotedMessageId/quoted message's text", "-" when it quotes none.
func quoteOf(m map[string]any) string {
	id, _ := m["quotedMessageId"].(string)
	if id == "" {
		if m["quotedMessage"] != nil {
			return "quotedMessage without quotedMessageId"
		}
		return "-"
	}
	q, _ := m["quotedMessage"].(map[string]any)
	if q == nil {
		return id + "/-"
	}
	data, _ := q["data"].(map[string]any)
	text, _ := data["text"].(string)
	if q["id"] != id {
		return id + "/wrong id " + q["id"].(string)
	}
	if _, ok := q["quotedMessage"]; ok {
		return id + "/quoted message quotes"
	}
	if _, ok := data["entities"].(map[string]any)["sender"]; !ok {
		return id + "/no sender entity"
	}
	if q["deletedAt"] != nil {
		text += " (deleted)"
	}
	return id + "/" + text
}

func TestQuotedReplies(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob")
		hi := e.send("ann", "bob", "user", "hi")
		other := e.send("ann", "cat", "user", "elsewhere")
		plan := e.send("ann", "g", "group", "plan")
		gone := e.send("bob", "ann", "user", "to delete")
		e.ok(request{method: "DELETE", path: "/v3/messages/" + gone, headers: obo("bob")})

		// The answer carries the quoted message, a string id or a number alike.
		r := e.quoted("bob", "ann", "user", "hello back", `"`+hi+`"`)
		if got := quoteOf(r); got != hi+"/hi" {
			t.Fatalf("the send's answer: %s\n%v", got, r)
		}
		r2 := e.quoted("bob", "g", "group", "agreed", plan)
		if got := quoteOf(r2); got != plan+"/plan" {
			t.Fatalf("a group send quoting by a number: %s", got)
		}
		reply := r["id"].(string)

		// Every later read: the message, the history, the conversation's last message.
		if got := quoteOf(e.ok(request{method: "GET", path: "/v3/messages/" + reply, headers: obo("ann")})); got != hi+"/hi" {
			t.Errorf("GET /messages/{id}: %s", got)
		}
		page, _ := e.list(request{method: "GET", path: "/v3/users/bob/messages", headers: obo("ann")})
		var quotes []string
		for _, m := range page {
			quotes = append(quotes, quoteOf(m))
		}
		if got, want := strings.Join(quotes, " "), "- - - "+hi+"/hi"; got != want { // hi, the deletion's action, the deleted, the reply
			t.Errorf("history: %s, want %s", got, want)
		}
		page, _ = e.list(request{method: "GET", path: "/v3/users/bob/messages?hideQuotedMessages=true", headers: obo("ann")})
		if got := quoteOf(page[len(page)-1]); got != hi+"/-" {
			t.Errorf("hideQuotedMessages=true: %s, want the id without the message", got)
		}
		convs, _ := e.list(request{method: "GET", path: "/v3/conversations", headers: obo("ann")})
		for _, c := range convs {
			if c["conversationId"] == "ann_user_bob" {
				if got := quoteOf(c["lastMessage"].(map[string]any)); got != hi+"/hi" {
					t.Errorf("the conversation's lastMessage: %s", got)
				}
			}
		}
		cl, err := e.c.OnBehalfOf("ann").GetMessage(e.ctx(), reply)
		if err != nil || cl.QuotedMessageID != hi || cl.QuotedMessage == nil || cl.QuotedMessage.Data.Text != "hi" {
			t.Errorf("the client's message: %+v %v", cl, err)
		}

		// An edit's action, read later, shows its message's quote.
		e.ok(request{method: "PUT", path: "/v3/messages/" + reply, headers: obo("bob"), body: `{"data":{"text":"hello again"}}`})
		page, _ = e.list(request{method: "GET", path: "/v3/users/ann/messages", headers: obo("bob")})
		on := page[len(page)-1]["data"].(map[string]any)["entities"].(map[string]any)["on"].(map[string]any)["entity"].(map[string]any)
		if got := quoteOf(on); got != hi+"/hi" {
			t.Errorf("the edit action's message: %s", got)
		}

		// A quoted message deleted later shows as deleted; the quoting message is unchanged.
		e.ok(request{method: "DELETE", path: "/v3/messages/" + hi, headers: obo("ann")})
		if got := quoteOf(e.ok(request{method: "GET", path: "/v3/messages/" + reply, headers: obo("bob")})); got != hi+"/hi (deleted)" {
			t.Errorf("after the quoted message's deletion: %s", got)
		}

		// One deleted for good leaves the id, and no message.
		e.ok(request{method: "DELETE", path: "/v3/messages/" + plan, headers: obo("ann"), body: `{"permanent":true}`})
		if got := quoteOf(e.ok(request{method: "GET", path: "/v3/messages/" + r2["id"].(string), headers: obo("bob")})); got != plan+"/-" {
			t.Errorf("after the quoted message's permanent deletion: %s", got)
		}

		// What may not be quoted is refused alike, never telling of another message.
		_, otherKey := e.newApp("other", "us")
		e.mustUser("zed", "zed")
		foreign := e.do(request{method: "POST", path: "/v3/users", headers: map[string]string{"apikey": otherKey}, body: `{"uid":"x","name":"x"}`})
		if foreign.status != 200 {
			t.Fatalf("other app's user: %s", foreign.body)
		}
		var fm struct{ Data struct{ ID string } }
		res := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"apikey": otherKey, "onBehalfOf": "x"},
			body: `{"receiver":"x","receiverType":"user","data":{"text":"mine"}}`})
		json.Unmarshal(res.body, &fm)
		send := func(quoted string) request {
			return request{method: "POST", path: "/v3/messages", headers: obo("bob"),
				body: `{"receiver":"ann","receiverType":"user","data":{"text":"q"},"quotedMessageId":` + quoted + `}`}
		}
		e.refused(t, []refusal{
			{"another conversation's", send(`"` + other + `"`), 404, "ERR_MESSAGE_ID_NOT_FOUND", "quotedMessageId"},
			{"another app's", send(`"` + fm.Data.ID + `"`), 404, "ERR_MESSAGE_ID_NOT_FOUND", "quotedMessageId"},
			{"deleted", send(`"` + gone + `"`), 404, "ERR_MESSAGE_ID_NOT_FOUND", "quotedMessageId"},
			{"unknown", send(`"999999"`), 404, "ERR_MESSAGE_ID_NOT_FOUND", "quotedMessageId"},
			{"not an id", send(`"abc"`), 400, "ERR_BAD_REQUEST", "quotedMessageId"},
			{"negative", send(`-3`), 400, "ERR_BAD_REQUEST", "quotedMessageId"},
			{"an object", send(`{}`), 400, "ERR_BAD_REQUEST", "quotedMessageId"},
		})
		for _, none := range []string{`null`, `""`, `0`} {
			if got := quoteOf(e.quoted("bob", "ann", "user", "plain", none)); got != "-" {
				t.Errorf("quotedMessageId %s: %s, want no quote", none, got)
			}
		}
	})
}

// interactiveForm is a form to `to` whose goal is goal, sent by from.
func (e *env) interactiveForm(from, to, receiverType, goal string, allowSender bool) string {
	e.t.Helper()
	allow := "false"
	if allowSender {
		allow = "true"
	}
	r := e.ok(request{method: "POST", path: "/v3/messages", headers: obo(from), body: `{"receiver":"` + to + `","receiverType":"` + receiverType + `",
		"category":"interactive","type":"form","data":{"interactionGoal":` + goal + `,"allowSenderInteraction":` + allow + `,
		"interactions":[{"elementId":"forged","interactedAt":1}],
		"interactiveData":{"title":"Form","formFields":[{"elementType":"textInput","elementId":"name","label":"Name"}],
		"submitElement":{"elementType":"button","elementId":"submit","buttonText":"Submit"}}}}`})
	if data := r["data"].(map[string]any); data["interactions"] != nil {
		e.t.Fatalf("a sent data.interactions is kept: %v", data)
	}
	return r["id"].(string)
}

// interactionsOf is uid's data.interactions of message id, as "element element".
func (e *env) interactionsOf(uid, id string) string {
	e.t.Helper()
	m, err := e.c.OnBehalfOf(uid).GetMessage(e.ctx(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, i := range m.Data.Interactions {
		out = append(out, i.ElementID)
	}
	return strings.Join(out, " ")
}

func TestInteractiveMessages(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{})
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, u)
			}
			e.mustGroup("g", "ann", "bob")
			form := e.interactiveForm("ann", "bob", "user", `{"type":"allOf","elementIds":["name","submit"]}`, false)
			group := e.interactiveForm("ann", "g", "group", `{"type":"anyAction"}`, true)
			text := e.send("ann", "bob", "user", "plain")
			annSocket := e.connect("ann", "")
			bobSocket := e.connect("bob", "")

			// A quoted reply reaches the socket with its quoted message.
			e.quoted("bob", "ann", "user", "which form?", `"`+form+`"`)
			var frame struct {
				QuotedMessageID string
				QuotedMessage   struct {
					ID       string
					Category string
				}
			}
			json.Unmarshal(annSocket.next("message")["body"], &frame)
			if frame.QuotedMessageID != form || frame.QuotedMessage.ID != form || frame.QuotedMessage.Category != "interactive" {
				t.Errorf("the quoted reply's frame: %+v", frame)
			}

			// Interactions are recorded per user, and each element once.
			bob := e.c.OnBehalfOf("bob")
			if ack, err := bob.MarkInteracted(e.ctx(), form, "name"); err != nil || !ack.Success ||
				ack.Message != "The message id "+form+" has been marked as interacted for the user bob." {
				t.Fatalf("mark interacted: %+v %v", ack, err)
			}
			if got := e.interactionsOf("bob", form); got != "name" {
				t.Errorf("bob's interactions: %q", got)
			}
			if got := e.interactionsOf("ann", form); got != "" {
				t.Errorf("ann's interactions with bob's: %q", got)
			}
			annSocket.quiet("interaction_completed", 200*time.Millisecond)
			// The SDK's request: PATCH with one element; completing the goal tells both.
			e.ok(request{method: "PATCH", path: "/v3/messages/" + form + "/interacted", headers: obo("bob"), body: `{"interactions":["submit","name"]}`})
			for _, w := range []*wsClient{annSocket, bobSocket} {
				f := w.next("interaction_completed")
				var body struct {
					User         struct{ UID string }
					MessageID    string
					Interactions []struct {
						ElementID    string
						InteractedAt int64
					}
				}
				json.Unmarshal(f["body"], &body)
				if body.User.UID != "bob" || body.MessageID != form || len(body.Interactions) != 2 || str(f["receiver"]) != "bob" ||
					str(f["receiverType"]) != "user" {
					t.Errorf("%s's interaction_completed: %s", w.uid, f["body"])
				}
			}
			if got := e.interactionsOf("bob", form); got != "name submit" {
				t.Errorf("bob's interactions after the goal: %q", got)
			}
			page, _ := e.list(request{method: "GET", path: "/v3/users/ann/messages", headers: obo("bob")})
			if is := page[0]["data"].(map[string]any)["interactions"].([]any); len(is) != 2 {
				t.Errorf("the history's data.interactions: %v", is)
			}
			// The lists keep what the reader completed: bob's form, not the group's form.
			for _, tc := range []struct{ uid, path, want string }{
				{"bob", "/v3/users/ann/messages?onlyInteractionGoalCompleted=1", form},
				{"bob", "/v3/groups/g/messages?onlyInteractionGoalCompleted=true", ""},
				{"ann", "/v3/users/bob/messages?onlyInteractionGoalCompleted=true", ""},
			} {
				page, _ := e.list(request{method: "GET", path: tc.path, headers: obo(tc.uid)})
				var ids []string
				for _, m := range page {
					ids = append(ids, m["id"].(string))
				}
				if got := strings.Join(ids, ","); got != tc.want {
					t.Errorf("%s %s: %q, want %q", tc.uid, tc.path, got, tc.want)
				}
			}
			// Again: nothing more completes, the first time stays.
			e.ok(request{method: "PATCH", path: "/v3/messages/" + form + "/interacted", headers: obo("bob"), body: `{"interactions":["submit"]}`})
			bobSocket.quiet("interaction_completed", 200*time.Millisecond)
			// The sender of a message allowing it interacts too.
			if _, err := e.c.OnBehalfOf("ann").MarkInteracted(e.ctx(), group, "submit"); err != nil {
				t.Errorf("the sender, allowed: %v", err)
			}
			if page, _ := e.list(request{method: "GET", path: "/v3/groups/g/messages?onlyInteractionGoalCompleted=true", headers: obo("ann")}); len(page) != 1 || page[0]["id"] != group {
				t.Errorf("ann's completed goals in g: %v", page)
			}
			if n := e.count(`SELECT COUNT(*) FROM message_goals`); n != 2 {
				t.Errorf("%d goals completed, want 2: bob's form, ann's group form", n)
			}

			patch := func(uid, id, body string) request {
				return request{method: "PATCH", path: "/v3/messages/" + id + "/interacted", headers: obo(uid), body: body}
			}
			e.refused(t, []refusal{
				{"undeclared element", patch("bob", form, `{"interactions":["nope"]}`), 400, "ERR_BAD_REQUEST", "interactions"},
				{"one undeclared among declared", patch("bob", group, `{"interactions":["name","nope"]}`), 400, "ERR_BAD_REQUEST", "interactions"},
				{"no interactions", patch("bob", form, `{}`), 400, "ERR_BAD_REQUEST", "interactions"},
				{"empty interactions", patch("bob", form, `{"interactions":[]}`), 400, "ERR_BAD_REQUEST", "interactions"},
				{"empty element", patch("bob", form, `{"interactions":[""]}`), 400, "ERR_BAD_REQUEST", "interactions"},
				{"not a list", patch("bob", form, `{"interactions":"name"}`), 400, "ERR_BAD_REQUEST", ""},
				{"not interactive", patch("bob", text, `{"interactions":["name"]}`), 400, "ERR_BAD_REQUEST", ""},
				{"no onBehalfOf", request{method: "PATCH", path: "/v3/messages/" + form + "/interacted", body: `{"interactions":["name"]}`}, 400, "ERR_BAD_REQUEST", "onBehalfOf"},
				{"a user who may not see it", patch("cat", form, `{"interactions":["name"]}`), 403, "ERR_MESSAGE_NO_ACCESS", ""},
				{"a non-member of the group", patch("cat", group, `{"interactions":["name"]}`), 403, "ERR_MESSAGE_NO_ACCESS", ""},
				{"the sender, not allowed", patch("ann", form, `{"interactions":["name"]}`), 403, "ERR_PERMISSION_DENIED", ""},
				{"unknown message", patch("bob", "999999", `{"interactions":["name"]}`), 404, "ERR_MESSAGE_ID_NOT_FOUND", ""},
				{"not an id", patch("bob", "abc", `{"interactions":["name"]}`), 404, "ERR_MESSAGE_ID_NOT_FOUND", ""},
			})

			// Sends that are refused.
			sendForm := func(typ, data string) request {
				return request{method: "POST", path: "/v3/messages", headers: obo("ann"),
					body: `{"receiver":"bob","receiverType":"user","category":"interactive","type":"` + typ + `","data":` + data + `}`}
			}
			e.refused(t, []refusal{
				{"unknown type", sendForm("poll", `{"interactiveData":{}}`), 400, "ERR_INVALID_MESSAGE_TYPE", ""},
				{"no interactiveData", sendForm("card", `{}`), 400, "ERR_BAD_REQUEST", "data.interactiveData"},
				{"interactiveData not an object", sendForm("card", `{"interactiveData":[1]}`), 400, "ERR_BAD_REQUEST", "data.interactiveData"},
				{"unknown goal", sendForm("card", `{"interactiveData":{"buttons":[{"elementId":"b"}]},"interactionGoal":{"type":"most"}}`), 400, "ERR_BAD_REQUEST", "data.interactionGoal.type"},
				{"goal on undeclared", sendForm("card", `{"interactiveData":{"buttons":[{"elementId":"b"}]},"interactionGoal":{"type":"anyOf","elementIds":["c"]}}`), 400, "ERR_BAD_REQUEST", "data.interactionGoal.elementIds"},
				{"allowSenderInteraction not a boolean", sendForm("card", `{"interactiveData":{},"allowSenderInteraction":"yes"}`), 400, "ERR_BAD_REQUEST", "data.allowSenderInteraction"},
			})
			// An interactive message counts in its conversation as messages do: bob has read
			// nothing of ann's, the form and the text.
			convs, _ := e.list(request{method: "GET", path: "/v3/conversations", headers: obo("bob")})
			for _, c := range convs {
				if c["conversationId"] == "ann_user_bob" && fmt.Sprint(c["unreadMessageCount"]) != "2" {
					t.Errorf("bob's conversation with ann: %v unread, want 2 (the form and the text)", c["unreadMessageCount"])
				}
			}

			// A message deleted for good takes its interactions and goals with it.
			e.ok(request{method: "DELETE", path: "/v3/messages/" + form, body: `{"permanent":true}`})
			if n := e.count(`SELECT COUNT(*) FROM message_interactions WHERE message_id = ` + form); n != 0 {
				t.Errorf("%d interactions left of a purged message", n)
			}
			if n := e.count(`SELECT COUNT(*) FROM message_goals WHERE message_id = ` + form); n != 0 {
				t.Errorf("%d goals left of a purged message", n)
			}
		})
	}
}

// TestInteractiveSearch: searchKey finds an interactive message by the text its readers see
// (a form's title, a field's label, its button's text), on every message list, and not by
// its interactiveData's keys, ids or element kinds.
func TestInteractiveSearch(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		for _, u := range []string{"ann", "bob"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob")
		form := e.interactiveForm("ann", "bob", "user", `{"type":"none","elementIds":[]}`, false)
		gform := e.interactiveForm("ann", "g", "group", `{"type":"none","elementIds":[]}`, false)
		text := e.send("ann", "bob", "user", "please submit the report")
		ids := func(path string) string {
			var out []string
			for _, m := range e.messages(request{method: "GET", path: path, headers: obo("bob")}).Data {
				out = append(out, m.ID)
			}
			return strings.Join(out, ",")
		}
		for _, tc := range []struct{ path, want string }{
			{"/v3/messages?searchKey=SUBMIT", strings.Join([]string{form, gform, text}, ",")}, // the button's text, and a text
			{"/v3/messages?searchKey=form", form + "," + gform},                               // the title
			{"/v3/messages?searchKey=Name", form + "," + gform},                               // a label (its elementId is name too)
			{"/v3/users/ann/messages?searchKey=submit", form + "," + text},
			{"/v3/groups/g/messages?searchKey=submit", gform},
			{"/v3/messages?searchKey=textInput", ""},    // an element kind
			{"/v3/messages?searchKey=elementId", ""},    // a key
			{"/v3/messages?searchKey=formFields", ""},   // a key
			{"/v3/messages?searchKey=nothing+here", ""}, // nothing
		} {
			if got := ids(tc.path); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
			}
		}
	})
}

// TestQuotedEditDeleteAnswers: the answer to an edit or a deletion of a quoted reply, and
// its socket frame, carry the on message's quotedMessage, as the action read later does.
func TestQuotedEditDeleteAnswers(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := realtimeEnv(t, b, realtime.HubOptions{})
			for _, u := range []string{"ann", "bob"} {
				e.mustUser(u, u)
			}
			hi := e.send("ann", "bob", "user", "hi")
			reply := e.quoted("bob", "ann", "user", "hello back", `"`+hi+`"`)["id"].(string)
			annSocket := e.connect("ann", "")
			on := func(action map[string]any) map[string]any {
				d, _ := action["data"].(map[string]any)
				en, _ := d["entities"].(map[string]any)
				o, _ := en["on"].(map[string]any)
				m, _ := o["entity"].(map[string]any)
				return m
			}
			frameOn := func() map[string]any {
				var body map[string]any
				json.Unmarshal(annSocket.next("message")["body"], &body)
				return on(body)
			}
			edited := e.ok(request{method: "PUT", path: "/v3/messages/" + reply, headers: obo("bob"), body: `{"data":{"text":"hello again"}}`})
			if got := quoteOf(on(edited)); got != hi+"/hi" {
				t.Errorf("the edit's answer: %s\n%v", got, edited)
			}
			if got := quoteOf(frameOn()); got != hi+"/hi" {
				t.Errorf("the edit's frame: %s", got)
			}
			deleted := e.ok(request{method: "DELETE", path: "/v3/messages/" + reply, headers: obo("bob")})
			if got := quoteOf(on(deleted)); got != hi+"/hi" {
				t.Errorf("the deletion's answer: %s\n%v", got, deleted)
			}
			if got := quoteOf(frameOn()); got != hi+"/hi" {
				t.Errorf("the deletion's frame: %s", got)
			}
			// A message that quotes nothing is answered as before.
			plain := e.send("bob", "ann", "user", "plain")
			if got := quoteOf(on(e.ok(request{method: "DELETE", path: "/v3/messages/" + plain, headers: obo("bob")}))); got != "-" {
				t.Errorf("a plain message's deletion: %s", got)
			}
		})
	}
}

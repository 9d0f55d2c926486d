package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGoalCompleted(t *testing.T) {
	done := func(ids ...string) []Interaction {
		var out []Interaction
		for _, id := range ids {
			out = append(out, Interaction{ElementID: id, InteractedAt: 1})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		goal InteractionGoal
		done []Interaction
		want bool
	}{
		{"anyAction, none yet", InteractionGoal{Type: GoalAnyAction}, nil, false},
		{"anyAction, any element", InteractionGoal{Type: GoalAnyAction}, done("x"), true},
		{"anyOf, another element", InteractionGoal{Type: GoalAnyOf, ElementIDs: []string{"a", "b"}}, done("x"), false},
		{"anyOf, one of them", InteractionGoal{Type: GoalAnyOf, ElementIDs: []string{"a", "b"}}, done("x", "b"), true},
		{"oneOf as anyOf", InteractionGoal{Type: GoalOneOf, ElementIDs: []string{"a"}}, done("a"), true},
		{"allOf, some", InteractionGoal{Type: GoalAllOf, ElementIDs: []string{"a", "b"}}, done("a"), false},
		{"allOf, all", InteractionGoal{Type: GoalAllOf, ElementIDs: []string{"a", "b"}}, done("b", "x", "a"), true},
		{"allOf of nothing never", InteractionGoal{Type: GoalAllOf}, done("a"), false},
		{"none never", InteractionGoal{Type: GoalNone, ElementIDs: []string{"a"}}, done("a"), false},
		{"unknown never", InteractionGoal{Type: "most"}, done("a"), false},
	} {
		if got := GoalCompleted(tc.goal, tc.done); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDeclaredElements(t *testing.T) {
	data := json.RawMessage(`{"interactiveData":{"title":"T","formFields":[{"elementId":"name"},{"elementId":"age","options":[{"elementId":"nested"}]}],
		"submitElement":{"elementId":"submit"},"buttons":[{"elementId":"name"},{"elementId":""},{"elementId":3}]},
		"interactionGoal":{"type":"allOf","elementIds":["submit"]},"allowSenderInteraction":true}`)
	in := parseInteractive(data)
	want := Interactive{Elements: []string{"name", "age", "nested", "submit"}, Goal: InteractionGoal{Type: GoalAllOf, ElementIDs: []string{"submit"}},
		AllowSenderInteraction: true}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("parseInteractive (-want +got):\n%s", diff)
	}
	if got := parseInteractive(json.RawMessage(`{"interactiveData":{}}`)).Goal.Type; got != GoalNone {
		t.Errorf("no goal: %q, want none", got)
	}
}

func TestValidateInteractiveSend(t *testing.T) {
	form := `"interactiveData":{"formFields":[{"elementId":"a"}],"submitElement":{"elementId":"s"}}`
	for _, tc := range []struct {
		name, typ, data string
		code            Code
		detail          string
	}{
		{"a form", "form", `{` + form + `,"interactionGoal":{"type":"allOf","elementIds":["a","s"]},"allowSenderInteraction":false}`, "", ""},
		{"a card without a goal", "card", `{"interactiveData":{"buttons":[]}}`, "", ""},
		{"customInteractive, null goal", "customInteractive", `{"interactiveData":{},"interactionGoal":null}`, "", ""},
		{"anyAction over nothing", "scheduler", `{"interactiveData":{},"interactionGoal":{"type":"anyAction"}}`, "", ""},
		{"unknown type", "poll", `{` + form + `}`, CodeInvalidType, ""},
		{"no interactiveData", "form", `{}`, CodeBadRequest, "data.interactiveData"},
		{"null interactiveData", "form", `{"interactiveData":null}`, CodeBadRequest, "data.interactiveData"},
		{"interactiveData a string", "form", `{"interactiveData":"x"}`, CodeBadRequest, "data.interactiveData"},
		{"goal a list", "form", `{` + form + `,"interactionGoal":[]}`, CodeBadRequest, "data.interactionGoal"},
		{"goal ids not strings", "form", `{` + form + `,"interactionGoal":{"type":"anyOf","elementIds":[1]}}`, CodeBadRequest, "data.interactionGoal"},
		{"unknown goal type", "form", `{` + form + `,"interactionGoal":{"type":"some"}}`, CodeBadRequest, "data.interactionGoal.type"},
		{"goal on an undeclared element", "form", `{` + form + `,"interactionGoal":{"type":"allOf","elementIds":["a","z"]}}`, CodeBadRequest, "data.interactionGoal.elementIds"},
		{"anyOf of nothing", "form", `{` + form + `,"interactionGoal":{"type":"anyOf","elementIds":[]}}`, CodeBadRequest, "data.interactionGoal.elementIds"},
		{"allowSenderInteraction a string", "form", `{` + form + `,"allowSenderInteraction":"true"}`, CodeBadRequest, "data.allowSenderInteraction"},
	} {
		m, err := validateContent(MessageSend{Category: CategoryInteractive, Type: tc.typ, Data: json.RawMessage(tc.data)})
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if m.Category != CategoryInteractive || m.Type != tc.typ {
				t.Errorf("%s: %s/%s", tc.name, m.Category, m.Type)
			}
			continue
		}
		e, _ := err.(*Error)
		if e == nil || e.Code != tc.code || tc.detail != "" && len(e.Details[tc.detail]) == 0 {
			t.Errorf("%s: %v, want %s naming %q", tc.name, err, tc.code, tc.detail)
		}
	}
	// The viewer's interactions are generated: a sender's are dropped.
	m, err := validateContent(MessageSend{Category: CategoryInteractive, Type: "form",
		Data: json.RawMessage(`{` + form + `,"interactions":[{"elementId":"a","interactedAt":1}]}`)})
	if err != nil || string(m.Data) != `{`+form+`}` {
		t.Errorf("data.interactions sent: %s %v", m.Data, err)
	}
	// Other categories keep such a key: it is theirs.
	m, err = validateContent(MessageSend{Category: CategoryCustom, Type: "x", Data: json.RawMessage(`{"customData":{},"interactions":1}`)})
	if err != nil || string(m.Data) != `{"customData":{},"interactions":1}` {
		t.Errorf("a custom message's interactions key: %s %v", m.Data, err)
	}
}

func TestValidateElementIDs(t *testing.T) {
	long := string(make([]rune, 256))
	for _, tc := range []struct {
		name string
		ids  []string
		ok   bool
	}{
		{"one", []string{"a"}, true},
		{"none", nil, false},
		{"empty", []string{"a", ""}, false},
		{"too long", []string{long}, false},
		{"bad UTF-8", []string{"\xff"}, false},
		{"a NUL", []string{"a\x00"}, false},
		{"too many", make([]string, 101), false},
	} {
		if err := validateElementIDs(tc.ids); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestParseQuotedID(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int64
		ok   bool
	}{
		{``, 0, true}, {`null`, 0, true}, {`""`, 0, true}, {`0`, 0, true}, {`"0"`, 0, true},
		{`"42"`, 42, true}, {`42`, 42, true}, {` 7 `, 7, true},
		{`"abc"`, 0, false}, {`-1`, 0, false}, {`"-1"`, 0, false}, {`1.5`, 0, false}, {`{}`, 0, false}, {`[1]`, 0, false},
		{`true`, 0, false}, {`"99999999999999999999"`, 0, false},
	} {
		got, err := ParseQuotedID(json.RawMessage(tc.raw))
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("%q: %d %v", tc.raw, got, err)
		}
		if e, _ := err.(*Error); err != nil && (e == nil || len(e.Details["quotedMessageId"]) == 0) {
			t.Errorf("%q: %v, want details naming quotedMessageId", tc.raw, err)
		}
	}
}

func TestQuotable(t *testing.T) {
	q := Message{ConversationID: "a_user_b", Category: CategoryMessage}
	deleted, action := q, q
	deleted.DeletedAt = 1
	action.Category = CategoryAction
	for _, tc := range []struct {
		name string
		m    Message
		conv string
		want bool
	}{
		{"same conversation", q, "a_user_b", true},
		{"another conversation", q, "a_user_c", false},
		{"deleted", deleted, "a_user_b", false},
		{"an action", action, "a_user_b", false},
	} {
		if got := Quotable(tc.m, tc.conv); got != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
	full := q
	full.Reactions, full.SavedAt, full.Quoted, full.Interactions = []ReactionSummary{{Reaction: "x", Count: 1}}, 5, &q, []Interaction{{ElementID: "a"}}
	if v := QuotedView(full); v.Reactions != nil || v.SavedAt != 0 || v.Quoted != nil || v.Interactions != nil || full.SavedAt != 5 {
		t.Errorf("QuotedView keeps a reader's or a page's parts, or changed its argument: %+v", v)
	}
}

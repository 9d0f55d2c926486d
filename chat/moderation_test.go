package chat

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/modmatch"
)

func TestValidateCondition(t *testing.T) {
	tests := []struct {
		name string
		c    Condition
		ok   bool
	}{
		{"keywords", Condition{Category: "word", Value: []string{"darn", "very rude"}}, true},
		{"list ids", Condition{Category: "word", IsKeywordsReferencePresent: true, Value: []string{"Bad-Words"}}, true},
		{"bad list id", Condition{Category: "word", IsKeywordsReferencePresent: true, Value: []string{"a b"}}, false},
		{"keyword without letters", Condition{Category: "word", Value: []string{"!!"}}, false},
		{"keyword too long", Condition{Category: "word", Value: []string{strings.Repeat("a", modmatch.MaxKeywordLen+1)}}, false},
		{"pattern", Condition{Category: "pattern", Value: []string{`(?i)buy\s+now`}}, true},
		{"bad pattern", Condition{Category: "pattern", Value: []string{`(`}}, false},
		{"pattern too long", Condition{Category: "pattern", Value: []string{strings.Repeat("a", modmatch.MaxPatternLen+1)}}, false},
		{"pattern naming lists", Condition{Category: "pattern", IsKeywordsReferencePresent: true, Value: []string{"x"}}, false},
		{"contact", Condition{Category: "contact", Value: []string{"email", "phone", "link"}}, true},
		{"bad contact", Condition{Category: "contact", Value: []string{"fax"}}, false},
		{"custom operand", Condition{Operand: "custom", Category: "word", Value: []string{"x"}}, true},
		{"media operand", Condition{Operand: "image", Category: "word", Value: []string{"x"}}, false},
		{"media flag", Condition{IsMediaPresent: true, Category: "word", Value: []string{"x"}}, false},
		{"operator equals", Condition{Operator: "equals", Category: "word", Value: []string{"x"}}, false},
		{"entity user", Condition{Entity: "user", Category: "word", Value: []string{"x"}}, false},
		{"no value", Condition{Category: "word"}, false},
		{"too many values", Condition{Category: "word", Value: make([]string, MaxConditionValues+1)}, false},
		{"unknown category", Condition{Category: "ai", Value: []string{"x"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, msg := validateCondition(tt.c)
			if (msg == "") != tt.ok {
				t.Fatalf("validateCondition(%+v) = %q, want ok %v", tt.c, msg, tt.ok)
			}
			if tt.ok && (c.Entity != "message" || c.Operator != "contains" || c.Operand == "") {
				t.Fatalf("defaults not filled: %+v", c)
			}
		})
	}
}

func TestValidateRule(t *testing.T) {
	cond := []Condition{{Category: "word", Value: []string{"x"}}}
	f := false
	tests := []struct {
		name  string
		in    RuleInput
		field string // "" when valid
	}{
		{"valid", RuleInput{ID: "R1", Name: "n", Conditions: cond, Action: []string{"blockMessage"}}, ""},
		{"disabled", RuleInput{ID: "r", Name: "n", Enabled: &f, Conditions: cond, Action: []string{"dropMessage"}}, ""},
		{"both actions", RuleInput{ID: "r", Name: "n", Conditions: cond, Action: []string{"dropMessage", "blockMessage"}}, ""},
		{"no id", RuleInput{Name: "n", Conditions: cond, Action: []string{"blockMessage"}}, "id"},
		{"no name", RuleInput{ID: "r", Conditions: cond, Action: []string{"blockMessage"}}, "name"},
		{"no conditions", RuleInput{ID: "r", Name: "n", Action: []string{"blockMessage"}}, "conditions"},
		{"too many conditions", RuleInput{ID: "r", Name: "n", Conditions: make([]Condition, MaxRuleConditions+1), Action: []string{"blockMessage"}}, "conditions"},
		{"bad condition", RuleInput{ID: "r", Name: "n", Conditions: []Condition{{Category: "x"}}, Action: []string{"blockMessage"}}, "conditions[0]"},
		{"no action", RuleInput{ID: "r", Name: "n", Conditions: cond}, "action"},
		{"bad action", RuleInput{ID: "r", Name: "n", Conditions: cond, Action: []string{"ban"}}, "action"},
		{"filters", RuleInput{ID: "r", Name: "n", Conditions: cond, Action: []string{"blockMessage"},
			Filters: []json.RawMessage{json.RawMessage(`{"type":"sender","entity":"user","operand":"role","operator":"equals","value":"guest"}`)}}, ""},
		{"bad filter", RuleInput{ID: "r", Name: "n", Conditions: cond, Action: []string{"blockMessage"},
			Filters: []json.RawMessage{json.RawMessage(`{"type":"sender","entity":"user","operand":"role","operator":"equals","value":"a"}`), json.RawMessage(`{}`)}}, "filters[1]"},
		{"too many filters", RuleInput{ID: "r", Name: "n", Conditions: cond, Action: []string{"blockMessage"}, Filters: make([]json.RawMessage, MaxRuleFilters+1)}, "filters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := validateRule(tt.in)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.ID != strings.ToLower(tt.in.ID) || r.Enabled != (tt.in.Enabled == nil) || r.Conditions[0].ID != 1 {
					t.Fatalf("normalised rule: %+v", r)
				}
				return
			}
			var e *Error
			if err == nil || !asError(err, &e) || len(e.Details[tt.field]) == 0 {
				t.Fatalf("validateRule = %v, want details for %s", err, tt.field)
			}
		})
	}
}

func asError(err error, e **Error) bool {
	ce, ok := err.(*Error)
	*e = ce
	return ok
}

func TestValidateKeywordList(t *testing.T) {
	l, err := validateKeywordList(KeywordListInput{ID: "L", Name: "n", Terms: []string{" a ", "a", "", "b c"}})
	if err != nil || strings.Join(l.Terms, "|") != "a|b c" || l.Category != "word" || l.ID != "l" {
		t.Fatalf("validateKeywordList: %+v %v", l, err)
	}
	many := make([]string, MaxListTerms+1)
	for i := range many {
		many[i] = "w" + strconv.Itoa(i)
	}
	if _, err := validateKeywordList(KeywordListInput{ID: "l", Name: "n", Terms: many}); err == nil {
		t.Fatal("an oversized list passed")
	}
	for _, in := range []KeywordListInput{{Name: "n", Terms: []string{"a"}}, {ID: "l", Terms: []string{"a"}}, {ID: "l", Name: "n"},
		{ID: "l", Name: "n", Category: "image", Terms: []string{"a"}}, {ID: "l", Name: "n", Terms: []string{"???"}}} {
		if _, err := validateKeywordList(in); err == nil {
			t.Errorf("validateKeywordList(%+v) passed", in)
		}
	}
}

func TestDecide(t *testing.T) {
	block := modCond{rule: ModRule{ID: "b", Action: []string{ActionBlockMessage}}}
	block2 := modCond{rule: ModRule{ID: "b2", Action: []string{ActionBlockMessage}}}
	drop := modCond{rule: ModRule{ID: "d", Action: []string{ActionDropMessage}}}
	both := modCond{rule: ModRule{ID: "x", Action: []string{ActionBlockMessage, ActionDropMessage}}}
	conds := map[string]modCond{"0.0": block, "1.0": block2, "2.0": drop, "3.0": both}
	tests := []struct {
		name              string
		matches           []string
		wantDrop, wantBlk string
	}{
		{"nothing", nil, "", ""},
		{"block", []string{"0.0"}, "", "b"},
		{"first block counts", []string{"1.0", "0.0"}, "", "b2"},
		{"drop wins", []string{"0.0", "2.0"}, "d", "b"},
		{"a rule with both drops", []string{"3.0"}, "x", ""},
		{"unknown id ignored", []string{"9.9"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ms []modmatch.Match
			for _, id := range tt.matches {
				ms = append(ms, modmatch.Match{RuleID: id})
			}
			v := decide(conds, ms, nil)
			gotDrop, gotBlk := "", ""
			if v.drop != nil {
				gotDrop = v.drop.rule.ID
			}
			if v.block != nil {
				gotBlk = v.block.rule.ID
			}
			if gotDrop != tt.wantDrop || gotBlk != tt.wantBlk || !v.checked {
				t.Fatalf("decide = drop %q block %q, want %q %q", gotDrop, gotBlk, tt.wantDrop, tt.wantBlk)
			}
		})
	}
}

func TestEvaluateOperands(t *testing.T) {
	text, _ := modmatch.Compile([]modmatch.Rule{{ID: "0.0", Keywords: []string{"darn"}}})
	custom, _ := modmatch.Compile([]modmatch.Rule{{ID: "0.1", Keywords: []string{"heck"}}})
	r := ModRule{ID: "r", Action: []string{ActionBlockMessage}}
	e := &modEngine{text: text, custom: custom, conds: map[string]modCond{"0.0": {rule: r}, "0.1": {rule: r}}}
	for _, tc := range []struct {
		data    string
		blocked bool
	}{
		{`{"text":"oh darn"}`, true},
		{`{"text":"oh heck"}`, false},
		{`{"customData":{"a":["x","heck"],"darn":"key not value"}}`, true},
		{`{"customData":{"darn":1}}`, false},
	} {
		if v := e.evaluate(json.RawMessage(tc.data), nil); (v.block != nil) != tc.blocked {
			t.Errorf("evaluate(%s) blocked = %v", tc.data, v.block != nil)
		}
	}
	var none *modEngine
	if v := none.evaluate(json.RawMessage(`{"text":"darn"}`), nil); v.checked || v.block != nil {
		t.Error("no engine decided something")
	}
}

// BenchmarkModerationEvaluate is the rules' cost on one send, without the database: an app
// with no rules, and one whose rule holds 10,000 keywords, a pattern and the contact checks.
func BenchmarkModerationEvaluate(b *testing.B) {
	terms := make([]string, 10_000)
	for i := range terms {
		terms[i] = "badword" + strconv.Itoa(i)
	}
	m, err := modmatch.Compile([]modmatch.Rule{{ID: "0.0", Keywords: terms}, {ID: "0.1", Patterns: []string{`(?i)buy\s+now`}},
		{ID: "0.2", Emails: true, Phones: true, Links: true}})
	if err != nil {
		b.Fatal(err)
	}
	r := ModRule{ID: "r", Action: []string{ActionBlockMessage}}
	data := json.RawMessage(`{"text":"hello there, see you at the usual place around five, ok?"}`)
	for _, tc := range []struct {
		name string
		e    *modEngine
	}{
		{"none", nil},
		{"keywords-10000", &modEngine{text: m, conds: map[string]modCond{"0.0": {rule: r}, "0.1": {rule: r}, "0.2": {rule: r}}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if v := tc.e.evaluate(data, nil); v.block != nil {
					b.Fatal("blocked")
				}
			}
		})
	}
}

// TestInteractiveText: an interactive message's visible text is the strings of its
// interactiveData but ids, kinds, addresses and actions, keys in order.
func TestInteractiveText(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"interactiveData":{"title":"Lunch","formFields":[{"elementType":"textInput","elementId":"name","label":"Name","placeholder":{"text":"Your name"}},
			{"elementType":"dropdown","elementId":"d","label":"Dish","options":[{"label":"Soup","value":"soup-id"}]}],
			"submitElement":{"elementType":"button","elementId":"go","buttonText":"Send","action":{"actionType":"apiAction","url":"https://x.test","method":"POST","payload":{"a":"b"}}}}}`,
			"Name\nYour name\nDish\nSoup\nSend\nLunch"},
		{`{"interactiveData":{"text":"  ","imageUrl":"https://x.test/a.png"}}`, ""},
		{`{"text":"not interactive data"}`, ""},
		{`not json`, ""},
	} {
		if got := InteractiveText(json.RawMessage(tc.data)); got != tc.want {
			t.Errorf("InteractiveText(%s) = %q, want %q", tc.data, got, tc.want)
		}
	}
}

// TestEvaluateInteractive: a rule on text reads an interactive message's visible text, not
// its hidden strings, and not another category's interactiveData.
func TestEvaluateInteractive(t *testing.T) {
	text, _ := modmatch.Compile([]modmatch.Rule{{ID: "0.0", Keywords: []string{"darn"}}})
	r := ModRule{ID: "r", Action: []string{ActionBlockMessage}}
	e := &modEngine{text: text, conds: map[string]modCond{"0.0": {rule: r}}}
	for _, tc := range []struct {
		category, data string
		blocked        bool
	}{
		{CategoryInteractive, `{"interactiveData":{"buttons":[{"elementId":"b","buttonText":"darn it"}]}}`, true},
		{CategoryInteractive, `{"interactiveData":{"title":"ok","buttons":[{"elementId":"darn","buttonText":"fine"}]}}`, false},
		{CategoryInteractive, `{"text":"darn","interactiveData":{"title":"ok"}}`, true},
		{CategoryCustom, `{"customData":{},"interactiveData":{"title":"darn"}}`, false},
	} {
		m := &Message{Category: tc.category, Data: json.RawMessage(tc.data)}
		if v := e.evaluateMessage(m, nil); (v.block != nil) != tc.blocked {
			t.Errorf("%s %s: blocked = %v", tc.category, tc.data, v.block != nil)
		}
	}
}

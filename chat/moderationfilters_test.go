package chat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/modmatch"
)

func TestValidateFilter(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		ok   bool
	}{
		{"user sender role", `{"type":"sender","entity":"user","operand":"role","operator":"equals","value":"guest"}`, true},
		{"user receiver uid in", `{"type":"receiver","entity":"user","operand":"uid","operator":"in","value":"a, b"}`, true},
		{"user spelled not equals", `{"type":"sender","entity":"user","operand":"name","operator":"not equals","value":"x"}`, true},
		{"group spelled notIn", `{"type":"receiver","entity":"group","operand":"type","operator":"notIn","value":"public,private"}`, true},
		{"group createdAt lessThan", `{"type":"receiver","entity":"group","operand":"createdAt","operator":"lessThan","value":"1700000000"}`, true},
		{"group as sender", `{"type":"sender","entity":"group","operand":"guid","operator":"equals","value":"g"}`, false},
		{"unknown field", `{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":"a","extra":1}`, false},
		{"unknown operator", `{"type":"sender","entity":"user","operand":"uid","operator":"like","value":"a"}`, false},
		{"unknown operand", `{"type":"sender","entity":"user","operand":"guid","operator":"equals","value":"a"}`, false},
		{"unknown entity", `{"type":"sender","entity":"message","operand":"uid","operator":"equals","value":"a"}`, false},
		{"unknown type", `{"type":"both","entity":"user","operand":"uid","operator":"equals","value":"a"}`, false},
		{"no value", `{"type":"sender","entity":"user","operand":"uid","operator":"equals"}`, false},
		{"value not a string", `{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":["a"]}`, false},
		{"not an object", `"uid"`, false},
		{"null", `null`, false},
		{"createdAt not a number", `{"type":"sender","entity":"user","operand":"createdAt","operator":"equals","value":"yesterday"}`, false},
		{"lessThan on text", `{"type":"sender","entity":"user","operand":"name","operator":"lessThan","value":"m"}`, false},
		{"startsWith on time", `{"type":"sender","entity":"user","operand":"createdAt","operator":"startsWith","value":"17"}`, false},
		{"empty in entry", `{"type":"sender","entity":"user","operand":"uid","operator":"in","value":"a,,b"}`, false},
		{"value too long", `{"type":"sender","entity":"user","operand":"uid","operator":"equals","value":"` + strings.Repeat("a", MaxFilterValueLen+1) + `"}`, false},
		{"in too long", `{"type":"sender","entity":"user","operand":"uid","operator":"in","value":"` + strings.Repeat("a,", MaxFilterValueList) + `a"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, msg := validateFilter(json.RawMessage(tt.raw)); (msg == "") != tt.ok {
				t.Fatalf("validateFilter(%s) = %q, want ok %v", tt.raw, msg, tt.ok)
			}
		})
	}
}

func TestFilterMatches(t *testing.T) {
	alice := &User{UID: "alice", Name: "Alice Smith", Role: "guest", Tags: []string{"vip", "beta"}, CreatedAt: 1000}
	bob := &User{UID: "bob", Name: "Bob", Role: "default", CreatedAt: 2000}
	grp := &Group{GUID: "lobby", Name: "Lobby", Type: "public", Tags: []string{"open"}, CreatedAt: 1500}
	toBob := &ruleSubject{Sender: alice, Receiver: bob}
	toLobby := &ruleSubject{Sender: alice, Group: grp}
	f := func(typ, entity, operand, op, value string) RuleFilter {
		return RuleFilter{Type: typ, Entity: entity, Operand: operand, Operator: op, Value: value}
	}
	tests := []struct {
		name string
		f    RuleFilter
		s    *ruleSubject
		want bool
	}{
		{"sender uid equals", f("sender", "user", "uid", "equals", "ALICE"), toBob, true},
		{"sender uid equals other", f("sender", "user", "uid", "equals", "bob"), toBob, false},
		{"receiver uid equals", f("receiver", "user", "uid", "equals", "bob"), toBob, true},
		{"receiver user of a group message", f("receiver", "user", "uid", "notEquals", "bob"), toLobby, false},
		{"sender role in", f("sender", "user", "role", "in", "admin, guest"), toBob, true},
		{"sender role not in", f("sender", "user", "role", "not in", "admin,guest"), toBob, false},
		{"sender name startsWith", f("sender", "user", "name", "startsWith", "alice"), toBob, true},
		{"sender name endsWith", f("sender", "user", "name", "endsWith", "smith"), toBob, true},
		{"sender tags equals any", f("sender", "user", "tags", "equals", "beta"), toBob, true},
		{"sender tags notEquals none", f("sender", "user", "tags", "notEquals", "beta"), toBob, false},
		{"receiver without tags notIn", f("receiver", "user", "tags", "notIn", "vip"), toBob, true},
		{"sender created before", f("sender", "user", "createdAt", "lessThan", "1500"), toBob, true},
		{"receiver created after", f("receiver", "user", "createdAt", "greaterThan", "2000"), toBob, false},
		{"sender createdAt equals", f("sender", "user", "createdAt", "equals", "1000"), toBob, true},
		{"sender createdAt not in", f("sender", "user", "createdAt", "notIn", "1000,2000"), toBob, false},
		{"group guid", f("receiver", "group", "guid", "equals", "lobby"), toLobby, true},
		{"group type notEquals", f("receiver", "group", "type", "notEquals", "public"), toLobby, false},
		{"group tags in", f("receiver", "group", "tags", "in", "closed,open"), toLobby, true},
		{"group createdAt greaterThan", f("receiver", "group", "createdAt", "greaterThan", "1000"), toLobby, true},
		{"group of a user message", f("receiver", "group", "guid", "notEquals", "x"), toBob, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := filterMatches(tt.f, tt.s); got != tt.want {
				t.Fatalf("filterMatches(%+v) = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
	both := []RuleFilter{f("sender", "user", "role", "equals", "guest"), f("receiver", "group", "type", "equals", "public")}
	if !filtersMatch(both, toLobby) || filtersMatch(both, toBob) {
		t.Fatal("filters must all match")
	}
	if !filtersMatch(both, nil) || !filtersMatch(nil, toBob) {
		t.Fatal("an unknown subject, or no filters, must apply the rule")
	}
}

// TestDecideFilters: a matched rule whose filters leave the message out is skipped, and the
// subject is read only when a filtered rule matched.
func TestDecideFilters(t *testing.T) {
	guests := modCond{rule: ModRule{ID: "guests", Action: []string{ActionBlockMessage},
		Filters: []RuleFilter{{Type: "sender", Entity: "user", Operand: "role", Operator: "equals", Value: "guest"}}}}
	all := modCond{rule: ModRule{ID: "all", Action: []string{ActionDropMessage}}}
	conds := map[string]modCond{"0.0": guests, "1.0": all}
	calls := 0
	subject := func(role string) func() *ruleSubject {
		return func() *ruleSubject { calls++; return &ruleSubject{Sender: &User{UID: "u", Role: role}} }
	}
	if v := decide(conds, []modmatch.Match{{RuleID: "0.0"}}, subject("guest")); v.block == nil || calls != 1 {
		t.Fatalf("a guest's message was not held (calls %d)", calls)
	}
	if v := decide(conds, []modmatch.Match{{RuleID: "0.0"}, {RuleID: "0.0"}}, subject("default")); v.block != nil || calls != 2 {
		t.Fatalf("another role's message was held, or the subject read twice (calls %d)", calls)
	}
	if v := decide(conds, []modmatch.Match{{RuleID: "1.0"}}, subject("default")); v.drop == nil || calls != 2 {
		t.Fatalf("an unfiltered rule did not apply, or read the subject (calls %d)", calls)
	}
}

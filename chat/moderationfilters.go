package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rules' filters (docs/moderation.md "Filters"): the hosted file's UserFilter and GroupFilter
// limit a rule to some senders or receivers. A rule applies to a message only when every one
// of its filters matches the message's sender, receiver user or receiver group; the entities
// are the ones the send already read (its sender and addressee), so filters cost no query.

// Limits on a rule's filters, so that a rule stays small to store and quick to check on
// every send it is matched on.
const (
	MaxRuleFilters     = 10   // per rule
	MaxFilterValueLen  = 1000 // bytes of a filter's value
	MaxFilterValueList = 100  // entries of an in / notIn value
)

// RuleFilter is one of a rule's filters, stored and returned as sent.
type RuleFilter struct {
	Type     string `json:"type"`     // sender or receiver
	Entity   string `json:"entity"`   // user or group
	Operand  string `json:"operand"`  // uid, name, role, tags, createdAt; a group's guid, name, type, tags, createdAt
	Operator string `json:"operator"` // filterOps
	Value    string `json:"value"`    // in and notIn: comma-separated
}

// filterOps maps each operator natter reads to what it does. The file spells the user
// filter's negations "not equals" and "not in" and the group filter's "notEquals" and
// "notIn"; both spellings are read on both, as the difference looks accidental. The user
// filter's list lacks endsWith, lessThan and greaterThan, which the group filter has; natter
// takes them on both, since a creation time filter needs lessThan and greaterThan.
var filterOps = map[string]string{
	"equals": "equals", "notEquals": "notEquals", "not equals": "notEquals",
	"in": "in", "notIn": "notIn", "not in": "notIn",
	"startsWith": "startsWith", "endsWith": "endsWith", "lessThan": "lessThan", "greaterThan": "greaterThan",
}

var filterOperands = map[string][]string{
	"user":  {"uid", "name", "role", "tags", "createdAt"},
	"group": {"guid", "name", "type", "tags", "createdAt"},
}

// validateFilters decodes and checks a rule's filters; refusals name filters[i].
func validateFilters(raw []json.RawMessage, fe fieldErrors) []RuleFilter {
	if len(raw) > MaxRuleFilters {
		fe.add("filters", fmt.Sprintf("A rule may have at most %d filters.", MaxRuleFilters))
		return nil
	}
	var out []RuleFilter
	for i, r := range raw {
		f, msg := validateFilter(r)
		if msg != "" {
			fe.add(fmt.Sprintf("filters[%d]", i), msg)
			continue
		}
		out = append(out, f)
	}
	return out
}

// validateFilter checks one filter; the refusal's text, or "". Unknown fields are refused
// rather than ignored: a filter natter read only in part would apply the rule to messages
// the app meant to leave out.
func validateFilter(raw json.RawMessage) (RuleFilter, string) {
	var f RuleFilter
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return f, "A filter must be an object with type, entity, operand, operator and value."
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return f, "A filter has no field " + name + ": its fields are type, entity, operand, operator and value."
		}
		return f, "A filter's type, entity, operand, operator and value must be strings."
	}
	operands, ok := filterOperands[f.Entity]
	switch {
	case !ok:
		return f, "The entity must be user or group."
	case f.Type != "sender" && f.Type != "receiver":
		return f, "The type must be sender or receiver."
	case f.Entity == "group" && f.Type == "sender":
		return f, "A group never sends a message: a group filter's type must be receiver."
	case !slices.Contains(operands, f.Operand):
		return f, "A " + f.Entity + " filter's operand must be one of " + strings.Join(operands, ", ") + "."
	case filterOps[f.Operator] == "":
		return f, "The operator " + brief(f.Operator) + " is not one of equals, notEquals, in, notIn, startsWith, endsWith, lessThan, greaterThan."
	case strings.TrimSpace(f.Value) == "":
		return f, "The value must not be empty."
	case len(f.Value) > MaxFilterValueLen:
		return f, fmt.Sprintf("The value may be at most %d bytes.", MaxFilterValueLen)
	}
	op := filterOps[f.Operator]
	numeric := f.Operand == "createdAt"
	if (op == "lessThan" || op == "greaterThan") && !numeric {
		return f, "lessThan and greaterThan compare createdAt only."
	}
	if (op == "startsWith" || op == "endsWith") && numeric {
		return f, "startsWith and endsWith compare text, not createdAt."
	}
	values := filterValues(f.Value, op)
	if len(values) > MaxFilterValueList {
		return f, fmt.Sprintf("An %s value may list at most %d entries.", f.Operator, MaxFilterValueList)
	}
	for _, v := range values {
		if v == "" {
			return f, "An " + f.Operator + " value lists comma-separated entries, none of them empty."
		}
		if _, err := strconv.ParseInt(v, 10, 64); numeric && err != nil {
			return f, "A createdAt value is a time in seconds, not " + brief(v) + "."
		}
	}
	return f, ""
}

// filterValues is a filter's value as the entries it compares: a comma-separated list for
// in and notIn, the whole value otherwise; trimmed.
func filterValues(value, op string) []string {
	if op != "in" && op != "notIn" {
		return []string{strings.TrimSpace(value)}
	}
	vs := strings.Split(value, ",")
	for i := range vs {
		vs[i] = strings.TrimSpace(vs[i])
	}
	return vs
}

// ruleSubject is who a message is from and to, as filters read them: Receiver for a
// message to a user, Group for a message to a group.
type ruleSubject struct {
	Sender   *User
	Receiver *User
	Group    *Group
}

// filtersMatch reports whether a rule with these filters applies to the subject's message:
// all of them must match. A nil subject (it could not be read) matches, so that a rule is
// applied rather than skipped when in doubt.
func filtersMatch(fs []RuleFilter, s *ruleSubject) bool {
	if s == nil {
		return true
	}
	for _, f := range fs {
		if !filterMatches(f, s) {
			return false
		}
	}
	return true
}

// filterMatches checks one filter. A filter on an entity the message does not have (a
// receiver user of a group message, the group of a message to a user) does not match: the
// filter limits the rule to messages that have it. Text compares case-insensitively, as
// natter's ids do; a negation (notEquals, notIn) holds when no entry of the operand (a
// user's or group's tags) has the value.
func filterMatches(f RuleFilter, s *ruleSubject) bool {
	var texts []string
	var createdAt int64
	switch {
	case f.Entity == "group":
		if s.Group == nil {
			return false
		}
		g := s.Group
		createdAt = g.CreatedAt
		switch f.Operand {
		case "guid":
			texts = []string{g.GUID}
		case "name":
			texts = []string{g.Name}
		case "type":
			texts = []string{g.Type}
		case "tags":
			texts = g.Tags
		}
	default:
		u := s.Sender
		if f.Type == "receiver" {
			u = s.Receiver
		}
		if u == nil {
			return false
		}
		createdAt = u.CreatedAt
		switch f.Operand {
		case "uid":
			texts = []string{u.UID}
		case "name":
			texts = []string{u.Name}
		case "role":
			texts = []string{u.Role}
		case "tags":
			texts = u.Tags
		}
	}
	op := filterOps[f.Operator]
	values := filterValues(f.Value, op)
	if f.Operand == "createdAt" {
		return compareTime(createdAt, op, values)
	}
	switch op {
	case "notEquals":
		return !anyText(texts, values, "equals")
	case "notIn":
		return !anyText(texts, values, "in")
	}
	return anyText(texts, values, op)
}

// anyText reports whether some text has the value under a positive operator.
func anyText(texts, values []string, op string) bool {
	for _, t := range texts {
		lt := strings.ToLower(t)
		for _, v := range values {
			lv := strings.ToLower(v)
			switch {
			case (op == "equals" || op == "in") && lt == lv,
				op == "startsWith" && strings.HasPrefix(lt, lv),
				op == "endsWith" && strings.HasSuffix(lt, lv):
				return true
			}
		}
	}
	return false
}

// compareTime compares a creation time in seconds with a filter's values.
func compareTime(at int64, op string, values []string) bool {
	in := false
	for _, v := range values {
		n, _ := strconv.ParseInt(v, 10, 64) // validated
		switch op {
		case "lessThan":
			return at < n
		case "greaterThan":
			return at > n
		}
		in = in || at == n
	}
	if op == "notEquals" || op == "notIn" {
		return !in
	}
	return in
}

package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/natter-chat/natter/internal/modmatch"
)

// Rules with revisions and keyword lists (docs/moderation.md): validated here, stored with
// the app's moderation version bumped in the same transaction, compiled on the next send
// (moderationengine.go).

// RuleInput is a rule to create, or to replace a rule with (a new revision).
type RuleInput struct {
	ID          string
	Name        string
	Description string
	Enabled     *bool
	Conditions  []Condition
	Action      []string
	// Filters limit the rule to some senders or receivers (the hosted file's UserFilter and
	// GroupFilter), as sent: validateFilters decodes them strictly, so that a field natter
	// does not know is refused rather than ignored (moderationfilters.go).
	Filters []json.RawMessage
}

// validateRule checks a rule as sent and returns it normalised; which keyword lists it
// names is checked against the store afterwards.
func validateRule(in RuleInput) (ModRule, error) {
	fe := fieldErrors{}
	r := ModRule{ID: fe.id("id", in.ID, true), Name: in.Name, Description: in.Description, Enabled: in.Enabled == nil || *in.Enabled}
	fe.text("name", in.Name, MaxModNameLen, true)
	fe.text("description", in.Description, MaxModDescLen, false)
	r.Filters = validateFilters(in.Filters, fe)
	switch {
	case len(in.Conditions) == 0:
		fe.add("conditions", "A rule needs at least one condition.")
	case len(in.Conditions) > MaxRuleConditions:
		fe.add("conditions", fmt.Sprintf("A rule may have at most %d conditions.", MaxRuleConditions))
	}
	for i, c := range in.Conditions {
		c, err := validateCondition(c)
		if err != "" {
			fe.add(fmt.Sprintf("conditions[%d]", i), err)
			continue
		}
		if c.ID == 0 {
			c.ID = i + 1
		}
		r.Conditions = append(r.Conditions, c)
	}
	switch {
	case len(in.Action) == 0:
		fe.add("action", "A rule needs an action: blockMessage or dropMessage.")
	case len(in.Action) > 2:
		fe.add("action", "A rule has one action: blockMessage or dropMessage.")
	}
	for _, a := range in.Action {
		if a != ActionBlockMessage && a != ActionDropMessage {
			fe.add("action", "The action "+brief(a)+" is not one of blockMessage, dropMessage.")
		} else if !slices.Contains(r.Action, a) {
			r.Action = append(r.Action, a)
		}
	}
	return r, fe.err()
}

// validateCondition checks one condition; the refusal's text, or "".
func validateCondition(c Condition) (Condition, string) {
	if c.Entity == "" {
		c.Entity = "message"
	}
	if c.Operator == "" {
		c.Operator = "contains"
	}
	if c.Operand == "" {
		c.Operand = "text"
	}
	switch {
	case c.Entity != "message":
		return c, "The entity must be message."
	case c.IsMediaPresent || c.Operand == "image" || c.Operand == "video" || c.Operand == "audio" || c.Operand == "file":
		return c, "natter does not moderate media: the operand must be text or custom."
	case c.Operand != "text" && c.Operand != "custom":
		return c, "The operand must be text or custom."
	case c.Operator != "contains":
		return c, "The operator must be contains."
	case len(c.Value) == 0:
		return c, "The value must name at least one keyword, pattern, list or contact detail."
	case len(c.Value) > MaxConditionValues:
		return c, fmt.Sprintf("The value may have at most %d entries.", MaxConditionValues)
	case len(c.Message) > MaxConditionValues:
		return c, fmt.Sprintf("The message may have at most %d entries.", MaxConditionValues)
	}
	for _, m := range c.Message {
		if len(m) > MaxModDescLen {
			return c, fmt.Sprintf("Each message may be at most %d bytes.", MaxModDescLen)
		}
	}
	switch c.Category {
	case "word":
		for _, v := range c.Value {
			if c.IsKeywordsReferencePresent {
				if _, ok := NormalizeID(v); !ok {
					return c, "The keyword list id " + brief(v) + " is not a valid id."
				}
			} else if err := modmatch.ValidateKeyword(v); err != nil {
				return c, "The keyword " + brief(v) + " is not valid: " + reasonOf(err) + "."
			}
		}
		if c.IsKeywordsReferencePresent {
			for i, v := range c.Value {
				c.Value[i] = strings.ToLower(v)
			}
		}
	case "pattern":
		if c.IsKeywordsReferencePresent {
			return c, "A pattern condition names patterns, not keyword lists."
		}
		for _, v := range c.Value {
			if err := modmatch.ValidatePattern(v); err != nil {
				return c, "The pattern " + brief(v) + " is not valid: " + reasonOf(err) + "."
			}
		}
	case "contact":
		if c.IsKeywordsReferencePresent {
			return c, "A contact condition names email, phone or link, not keyword lists."
		}
		for _, v := range c.Value {
			if v != "email" && v != "phone" && v != "link" {
				return c, "A contact condition's value is email, phone or link, not " + brief(v) + "."
			}
		}
	default:
		return c, "The category must be word, pattern or contact."
	}
	return c, ""
}

// reasonOf is a modmatch refusal's reason, without the input it repeats.
func reasonOf(err error) string {
	var me *modmatch.Error
	if errors.As(err, &me) {
		return me.Reason
	}
	return "refused"
}

// ModRules lists the app's rules.
func (s Moderation) ModRules(ctx context.Context, p Principal) ([]ModRule, error) {
	rs, err := s.store.ModRules(ctx, p.App.ID)
	return rs, modErr("list rules", err)
}

// ModRule reads a rule's current revision.
func (s Moderation) ModRule(ctx context.Context, p Principal, id string) (ModRule, error) {
	r, err := s.store.ModRule(ctx, p.App.ID, strings.ToLower(id))
	if errors.Is(err, ErrNotFound) {
		return ModRule{}, errRuleNotFound(id)
	}
	return r, modErr("get rule", err)
}

// RuleRevisions lists a rule's revisions, newest first.
func (s Moderation) RuleRevisions(ctx context.Context, p Principal, id string) ([]ModRule, error) {
	rs, err := s.store.RuleRevisions(ctx, p.App.ID, strings.ToLower(id))
	if errors.Is(err, ErrNotFound) {
		return nil, errRuleNotFound(id)
	}
	return rs, modErr("list rule revisions", err)
}

func errRuleNotFound(id string) error {
	return Errorf(CodeRuleNotFound, "The rule with id %s does not exist.", brief(id))
}

// CreateRule creates a rule, its first revision.
func (s Moderation) CreateRule(ctx context.Context, p Principal, in RuleInput) (ModRule, error) {
	return s.saveRule(ctx, p, in, true)
}

// UpdateRule replaces a rule with a new revision.
func (s Moderation) UpdateRule(ctx context.Context, p Principal, id string, in RuleInput) (ModRule, error) {
	id = strings.ToLower(id)
	if in.ID != "" && strings.ToLower(in.ID) != id {
		return ModRule{}, InvalidField("id", "The id of a rule cannot change.")
	}
	in.ID = id
	return s.saveRule(ctx, p, in, false)
}

func (s *Service) saveRule(ctx context.Context, p Principal, in RuleInput, create bool) (ModRule, error) {
	r, err := validateRule(in)
	if err != nil {
		if !create && ErrorCode(err) == CodeBadRequest {
			if _, gerr := s.Moderation().ModRule(ctx, p, in.ID); gerr != nil && ErrorCode(gerr) == CodeRuleNotFound {
				return ModRule{}, gerr
			}
		}
		return ModRule{}, err
	}
	r.AppID, r.Active = p.App.ID, true
	now := s.now()
	err = s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error {
		if missing, err := tx.MissingLists(p.App.ID, r.Lists()); err != nil {
			return err
		} else if len(missing) > 0 {
			return InvalidField("conditions", "No keyword list has the id "+brief(missing[0])+".")
		}
		if create {
			n, err := tx.CountRules(p.App.ID)
			if err != nil {
				return err
			}
			if n >= MaxRules {
				return Errorf(CodeModerationLimitHit, "The app already has %d rules, the most allowed.", MaxRules)
			}
			r.Revision, r.CreatedAt = 1, now
		} else {
			old, err := tx.LockRule(p.App.ID, r.ID)
			if errors.Is(err, ErrNotFound) {
				return errRuleNotFound(r.ID)
			}
			if err != nil {
				return err
			}
			r.Revision, r.CreatedAt = old.Revision+1, old.CreatedAt
		}
		r.UpdatedAt = now
		if err := tx.SaveRule(r); err != nil {
			return err
		}
		return tx.BumpModeration(p.App.ID)
	})
	if errors.Is(err, ErrAlreadyExists) {
		return ModRule{}, Errorf(CodeRuleExists, "The rule with id %s already exists.", r.ID)
	}
	if err != nil {
		return ModRule{}, modErr("save rule", err)
	}
	s.moderationChanged(p.App.ID)
	return r, nil
}

// DeleteRule deletes a rule with its revisions.
func (s Moderation) DeleteRule(ctx context.Context, p Principal, id string) error {
	id = strings.ToLower(id)
	err := s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error {
		if err := tx.DeleteRule(p.App.ID, id); err != nil {
			return err
		}
		return tx.BumpModeration(p.App.ID)
	})
	if errors.Is(err, ErrNotFound) {
		return errRuleNotFound(id)
	}
	if err != nil {
		return modErr("delete rule", err)
	}
	s.moderationChanged(p.App.ID)
	return nil
}

// KeywordListInput is a keyword list to create or replace.
type KeywordListInput struct {
	ID          string
	Name        string
	Description string
	Category    string
	IsCSV       bool
	Terms       []string
}

// validateKeywordList checks a list and returns it with its terms trimmed, empty ones
// dropped and each kept once.
func validateKeywordList(in KeywordListInput) (KeywordList, error) {
	fe := fieldErrors{}
	l := KeywordList{ID: fe.id("id", in.ID, true), Name: in.Name, Description: in.Description, Category: in.Category, IsCSV: in.IsCSV}
	fe.text("name", in.Name, MaxModNameLen, true)
	fe.text("description", in.Description, MaxModDescLen, false)
	if l.Category == "" {
		l.Category = "word"
	}
	if l.Category != "word" {
		fe.add("category", "The category of a keyword list must be word.")
	}
	seen := map[string]bool{}
	for _, t := range in.Terms {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if len(l.Terms) == MaxListTerms {
			fe.add("searchTerms", fmt.Sprintf("A keyword list may have at most %d keywords.", MaxListTerms))
			break
		}
		if err := modmatch.ValidateKeyword(t); err != nil {
			fe.add("searchTerms", "The keyword "+brief(t)+" is not valid: "+reasonOf(err)+".")
			break
		}
		l.Terms = append(l.Terms, t)
	}
	if len(l.Terms) == 0 && len(fe["searchTerms"]) == 0 {
		fe.add("searchTerms", "A keyword list needs at least one keyword.")
	}
	return l, fe.err()
}

// KeywordLists lists the app's keyword lists with their terms.
func (s Moderation) KeywordLists(ctx context.Context, p Principal) ([]KeywordList, error) {
	ls, err := s.store.KeywordLists(ctx, p.App.ID, true)
	return ls, modErr("list keyword lists", err)
}

// KeywordList reads one keyword list.
func (s Moderation) KeywordList(ctx context.Context, p Principal, id string) (KeywordList, error) {
	l, err := s.store.KeywordList(ctx, p.App.ID, strings.ToLower(id))
	if errors.Is(err, ErrNotFound) {
		return KeywordList{}, errKeywordNotFound(id)
	}
	return l, modErr("get keyword list", err)
}

func errKeywordNotFound(id string) error {
	return Errorf(CodeKeywordNotFound, "The keyword list with id %s does not exist.", brief(id))
}

// CreateKeywordList creates a keyword list.
func (s Moderation) CreateKeywordList(ctx context.Context, p Principal, in KeywordListInput) (KeywordList, error) {
	return s.saveKeywordList(ctx, p, in, true)
}

// UpdateKeywordList replaces a keyword list's terms and fields; rules naming it use the
// new terms from the next send.
func (s Moderation) UpdateKeywordList(ctx context.Context, p Principal, id string, in KeywordListInput) (KeywordList, error) {
	id = strings.ToLower(id)
	if in.ID != "" && strings.ToLower(in.ID) != id {
		return KeywordList{}, InvalidField("id", "The id of a keyword list cannot change.")
	}
	in.ID = id
	return s.saveKeywordList(ctx, p, in, false)
}

func (s *Service) saveKeywordList(ctx context.Context, p Principal, in KeywordListInput, create bool) (KeywordList, error) {
	l, err := validateKeywordList(in)
	if err != nil {
		return KeywordList{}, err
	}
	l.AppID = p.App.ID
	now := s.now()
	err = s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error {
		if create {
			n, err := tx.CountKeywordLists(p.App.ID)
			if err != nil {
				return err
			}
			if n >= MaxKeywordLists {
				return Errorf(CodeModerationLimitHit, "The app already has %d keyword lists, the most allowed.", MaxKeywordLists)
			}
			l.Revision, l.CreatedAt = 1, now
		} else {
			old, err := tx.LockKeywordList(p.App.ID, l.ID)
			if errors.Is(err, ErrNotFound) {
				return errKeywordNotFound(l.ID)
			}
			if err != nil {
				return err
			}
			l.Revision, l.CreatedAt = old.Revision+1, old.CreatedAt
		}
		l.UpdatedAt = now
		if err := tx.SaveKeywordList(l); err != nil {
			return err
		}
		return tx.BumpModeration(p.App.ID)
	})
	if errors.Is(err, ErrAlreadyExists) {
		return KeywordList{}, Errorf(CodeKeywordExists, "The keyword list with id %s already exists.", l.ID)
	}
	if err != nil {
		return KeywordList{}, modErr("save keyword list", err)
	}
	s.moderationChanged(p.App.ID)
	return l, nil
}

// DeleteKeywordList deletes a keyword list that no rule names.
func (s Moderation) DeleteKeywordList(ctx context.Context, p Principal, id string) error {
	id = strings.ToLower(id)
	err := s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error {
		if err := tx.DeleteKeywordList(p.App.ID, id); err != nil {
			return err
		}
		return tx.BumpModeration(p.App.ID)
	})
	switch {
	case errors.Is(err, ErrNotFound):
		return errKeywordNotFound(id)
	case errors.Is(err, ErrLimitReached):
		return Errorf(CodeKeywordInUse, "The keyword list %s is used by a rule; change or delete the rule first.", id)
	case err != nil:
		return modErr("delete keyword list", err)
	}
	s.moderationChanged(p.App.ID)
	return nil
}

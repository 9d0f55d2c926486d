package chat

import (
	"context"
	"errors"
	"slices"
	"strconv"
)

// Moderation (docs/moderation.md): reasons users flag messages with, keyword lists, rules
// with revisions that are enforced on every send and edit (moderationengine.go), and the
// flagged and blocked messages a moderator reviews (moderationreview.go).

// Limits of moderation.
const (
	MaxReasons         = 100    // an app's own reasons, besides the defaults
	MaxRules           = 100    // per app
	MaxRuleConditions  = 10     // per rule
	MaxConditionValues = 100    // per condition: keywords, patterns or list ids
	MaxKeywordLists    = 10     // per app
	MaxListTerms       = 10_000 // per keyword list; MaxKeywordLists × MaxListTerms ≤ modmatch.MaxKeywords
	MaxRemarkLen       = 1000
	MaxModNameLen      = 100
	MaxModDescLen      = 1000
)

// Rule actions.
const (
	ActionBlockMessage = "blockMessage"
	ActionDropMessage  = "dropMessage"
)

// Review states of flagged and blocked messages; the message's data.moderation.status.
const (
	ModPending     = "pending"
	ModApproved    = "approved"
	ModDisapproved = "disapproved" // a flagged message removed, or a blocked one rejected
	ModRejected    = "rejected"    // a blocked message's review decision
)

// Moderation error codes.
const (
	CodeReasonNotFound     Code = "ERR_REASON_NOT_FOUND"
	CodeReasonExists       Code = "ERR_REASON_ALREADY_EXISTS"
	CodeReasonDefault      Code = "ERR_DEFAULT_REASON"
	CodeRuleNotFound       Code = "ERR_RULE_NOT_FOUND"
	CodeRuleExists         Code = "ERR_RULE_ALREADY_EXISTS"
	CodeKeywordNotFound    Code = "ERR_KEYWORD_NOT_FOUND"
	CodeKeywordExists      Code = "ERR_KEYWORD_ALREADY_EXISTS"
	CodeKeywordInUse       Code = "ERR_KEYWORD_IN_USE"
	CodeMessageDropped     Code = "ERR_MESSAGE_DROPPED"
	CodeAlreadyFlagged     Code = "ERR_MESSAGE_ALREADY_FLAGGED"
	CodeAlreadyReviewed    Code = "ERR_ALREADY_REVIEWED"
	CodeNotFlagged         Code = "ERR_FLAGGED_MESSAGE_NOT_FOUND"
	CodeBlockedNotFound    Code = "ERR_BLOCKED_MESSAGE_NOT_FOUND"
	CodeModerationLimitHit Code = "ERR_MODERATION_LIMIT_EXCEEDED"
)

func init() {
	for c, k := range map[Code]Kind{
		CodeReasonNotFound: KindNotFound, CodeReasonExists: KindInvalid, CodeReasonDefault: KindForbidden,
		CodeRuleNotFound: KindNotFound, CodeRuleExists: KindInvalid,
		CodeKeywordNotFound: KindNotFound, CodeKeywordExists: KindInvalid, CodeKeywordInUse: KindConflict,
		CodeMessageDropped: KindInvalid, CodeAlreadyFlagged: KindConflict, CodeAlreadyReviewed: KindConflict,
		CodeNotFlagged: KindNotFound, CodeBlockedNotFound: KindNotFound, CodeModerationLimitHit: KindInvalid,
	} {
		kinds[c] = k
	}
}

// Reason is a reason a user gives for flagging a message. Default reasons are built into
// every app: they cannot be changed or deleted.
type Reason struct {
	ID          string
	Name        string
	Description string
	Default     bool
	CreatedAt   int64
	UpdatedAt   int64
}

// DefaultReasons are every app's built-in reasons. The hosted service's defaults are not
// published; these are natter's choice (docs/moderation.md).
var DefaultReasons = []Reason{
	{ID: "spam", Name: "Spam", Description: "Unsolicited or repetitive content.", Default: true},
	{ID: "harassment", Name: "Harassment", Description: "Bullying, threats or targeted abuse.", Default: true},
	{ID: "hate_speech", Name: "Hate speech", Description: "Attacks on people for who they are.", Default: true},
	{ID: "inappropriate", Name: "Inappropriate content", Description: "Sexual, violent or otherwise unsuitable content.", Default: true},
	{ID: "other", Name: "Other", Description: "Something else a moderator should look at.", Default: true},
}

func defaultReason(id string) (Reason, bool) {
	for _, r := range DefaultReasons {
		if r.ID == id {
			return r, true
		}
	}
	return Reason{}, false
}

// Condition is one condition of a rule, in the hosted service's shape. natter evaluates
// conditions on entity "message" with operand "text" (data.text) or "custom" (the strings
// of data.customData), operator "contains", and category "word" (value: keywords, or with
// isKeywordsReferencePresent the ids of keyword lists), "pattern" (value: RE2 regular
// expressions) or "contact" (value: any of "email", "phone", "link"). Media conditions are
// refused.
type Condition struct {
	ID                         int      `json:"id"`
	IsKeywordsReferencePresent bool     `json:"isKeywordsReferencePresent"`
	IsMediaPresent             bool     `json:"isMediaPresent"`
	Entity                     string   `json:"entity"`
	Operand                    string   `json:"operand"`
	Category                   string   `json:"category"`
	Operator                   string   `json:"operator"`
	Value                      []string `json:"value"`
	Message                    []string `json:"message,omitempty"`
}

// ModRule is one revision of a moderation rule.
type ModRule struct {
	AppID       string
	ID          string
	Name        string
	Description string
	Enabled     bool
	Conditions  []Condition
	Action      []string
	Filters     []RuleFilter // nil: the rule applies to every message (moderationfilters.go)
	Revision    int64
	Active      bool // the rule's current revision
	CreatedAt   int64
	UpdatedAt   int64
}

// RevisionID names a revision as the hosted service does: <appId>_<id>_<revision>.
func RevisionID(appID, id string, rev int64) string {
	return appID + "_" + id + "_" + strconv.FormatInt(rev, 10)
}

// Lists are the keyword lists the rule's conditions name.
func (r ModRule) Lists() []string {
	var out []string
	for _, c := range r.Conditions {
		if c.Category == "word" && c.IsKeywordsReferencePresent {
			for _, v := range c.Value {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// KeywordList is a named list of keywords rules refer to.
type KeywordList struct {
	AppID       string
	ID          string
	Name        string
	Description string
	Category    string
	IsCSV       bool
	Terms       []string
	Revision    int64
	CreatedAt   int64
	UpdatedAt   int64
}

// ModerationStore reads an app's moderation configuration and review lists.
type ModerationStore interface {
	// ModerationVersion is the app's moderation version (0 before any change).
	ModerationVersion(ctx context.Context, appID string) (int64, error)
	Reasons(ctx context.Context, appID string) ([]Reason, error)
	Reason(ctx context.Context, appID, id string) (Reason, error)
	// ModRules are the current revisions of the app's rules, by id.
	ModRules(ctx context.Context, appID string) ([]ModRule, error)
	ModRule(ctx context.Context, appID, id string) (ModRule, error)
	// RuleRevisions are a rule's revisions, newest first; ErrNotFound without the rule.
	RuleRevisions(ctx context.Context, appID, id string) ([]ModRule, error)
	// KeywordLists are the app's lists by id, with their terms when terms is true.
	KeywordLists(ctx context.Context, appID string, terms bool) ([]KeywordList, error)
	KeywordList(ctx context.Context, appID, id string) (KeywordList, error)
	// FlaggedMessages are flagged messages, newest flagged first, reviewed or not, below
	// the message id before (0: from the newest), at most limit.
	FlaggedMessages(ctx context.Context, appID string, reviewed bool, before int64, limit int) ([]Flagged, error)
	// BlockedMessages are the held messages, newest first, below the message id before.
	BlockedMessages(ctx context.Context, appID string, before int64, limit int) ([]BlockedMessage, error)
	// BlockedMessage reads one held message by its entry's id.
	BlockedMessage(ctx context.Context, appID string, id int64) (BlockedMessage, error)
	// BlockedByMessage reads one held message by its message id (BlockedMessage.MessageID);
	// ErrNotFound when no message of the app with that id was held.
	BlockedByMessage(ctx context.Context, appID string, messageID int64) (BlockedMessage, error)
}

// ModerationTx is what moderation's changes need inside their transaction.
type ModerationTx interface {
	// BumpModeration moves the app's moderation version on: every node's compiled rules
	// for the app are stale from then.
	BumpModeration(appID string) error
	CountReasons(appID string) (int, error)
	InsertReason(appID string, r Reason) error
	UpdateReason(appID string, r Reason) error
	DeleteReason(appID, id string) error
	ReasonExists(appID, id string) (bool, error)
	CountRules(appID string) (int, error)
	// LockRule holds and reads a rule's current revision; ErrNotFound without it.
	LockRule(appID, id string) (ModRule, error)
	// SaveRule stores r as its rule's current revision (a new rule when r.Revision is 1)
	// and records the revision and the lists it names.
	SaveRule(r ModRule) error
	DeleteRule(appID, id string) error
	// MissingLists are those of ids that name no keyword list of the app.
	MissingLists(appID string, ids []string) ([]string, error)
	CountKeywordLists(appID string) (int, error)
	LockKeywordList(appID, id string) (KeywordList, error)
	// SaveKeywordList inserts (l.Revision 1) or replaces a list.
	SaveKeywordList(l KeywordList) error
	// DeleteKeywordList deletes a list no rule names; ErrLimitReached when one does.
	DeleteKeywordList(appID, id string) error
	// InsertFlag records uid's flag of a message, marking the message flagged (pending) when
	// it is not; ErrAlreadyExists when uid flagged it already.
	InsertFlag(appID string, messageID int64, f Flag) error
	// LockFlagged holds and reads a flagged message's review state; ErrNotFound when it was
	// never flagged.
	LockFlagged(appID string, messageID int64) (string, error)
	SetFlaggedStatus(appID string, messageID int64, status string, at int64) error
	// InsertBlocked stores a held message and sets its ID and MessageID, the id the message
	// takes from the messages' sequence and keeps when approved.
	InsertBlocked(b *BlockedMessage) error
	// LockBlocked holds and reads a held message by its message id; ErrNotFound when no
	// message of the app with that id was held.
	LockBlocked(appID string, messageID int64) (BlockedMessage, error)
	// SetBlockedStatus sets the status of the entry id (BlockedMessage.ID).
	SetBlockedStatus(appID string, id int64, status string, messageID, at int64) error
}

// ReasonInput is a reason to create or update.
type ReasonInput struct {
	ID          string
	Name        *string
	Description *string
}

// Reasons lists the default reasons, then the app's own by id.
func (s Moderation) Reasons(ctx context.Context, p Principal) ([]Reason, error) {
	own, err := s.store.Reasons(ctx, p.App.ID)
	if err != nil {
		return nil, internal("list reasons", err)
	}
	out := append([]Reason{}, DefaultReasons...)
	return append(out, own...), nil
}

// Reason reads one reason.
func (s Moderation) Reason(ctx context.Context, p Principal, id string) (Reason, error) {
	if r, ok := defaultReason(id); ok {
		return r, nil
	}
	r, err := s.store.Reason(ctx, p.App.ID, id)
	if errors.Is(err, ErrNotFound) {
		return Reason{}, errReasonNotFound(id)
	}
	if err != nil {
		return Reason{}, internal("get reason", err)
	}
	return r, nil
}

func errReasonNotFound(id string) error {
	return Errorf(CodeReasonNotFound, "The reason with id %s does not exist.", brief(id))
}

// CreateReason adds one of the app's own reasons.
func (s Moderation) CreateReason(ctx context.Context, p Principal, in ReasonInput) (Reason, error) {
	fe := fieldErrors{}
	id := fe.id("id", in.ID, true)
	r := Reason{ID: id, Name: deref(in.Name), Description: deref(in.Description)}
	fe.text("name", r.Name, MaxModNameLen, true)
	fe.text("description", r.Description, MaxModDescLen, false)
	if err := fe.err(); err != nil {
		return Reason{}, err
	}
	if _, ok := defaultReason(id); ok {
		return Reason{}, Errorf(CodeReasonExists, "The reason with id %s already exists.", id)
	}
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	err := s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error {
		n, err := tx.CountReasons(p.App.ID)
		if err != nil {
			return err
		}
		if n >= MaxReasons {
			return Errorf(CodeModerationLimitHit, "The app already has %d reasons of its own, the most allowed.", MaxReasons)
		}
		return tx.InsertReason(p.App.ID, r)
	})
	if errors.Is(err, ErrAlreadyExists) {
		return Reason{}, Errorf(CodeReasonExists, "The reason with id %s already exists.", id)
	}
	return r, modErr("create reason", err)
}

// UpdateReason changes a reason's name or description.
func (s Moderation) UpdateReason(ctx context.Context, p Principal, in ReasonInput) (Reason, error) {
	if _, ok := defaultReason(in.ID); ok {
		return Reason{}, Errorf(CodeReasonDefault, "The reason %s is a default reason and cannot be changed.", in.ID)
	}
	fe := fieldErrors{}
	if in.Name != nil {
		fe.text("name", *in.Name, MaxModNameLen, true)
	}
	if in.Description != nil {
		fe.text("description", *in.Description, MaxModDescLen, false)
	}
	if in.Name == nil && in.Description == nil {
		fe.add("name", "Send name or description to change.")
	}
	if err := fe.err(); err != nil {
		return Reason{}, err
	}
	r, err := s.Reason(ctx, p, in.ID)
	if err != nil {
		return Reason{}, err
	}
	if in.Name != nil {
		r.Name = *in.Name
	}
	if in.Description != nil {
		r.Description = *in.Description
	}
	r.UpdatedAt = s.now()
	err = s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error { return tx.UpdateReason(p.App.ID, r) })
	if errors.Is(err, ErrNotFound) {
		return Reason{}, errReasonNotFound(in.ID)
	}
	return r, modErr("update reason", err)
}

// DeleteReason deletes one of the app's own reasons. Flags made with it keep its id.
func (s Moderation) DeleteReason(ctx context.Context, p Principal, id string) error {
	if _, ok := defaultReason(id); ok {
		return Errorf(CodeReasonDefault, "The reason %s is a default reason and cannot be deleted.", id)
	}
	err := s.transactSettings(ctx, p.App.ID, SettingModeration, func(tx Tx) error { return tx.DeleteReason(p.App.ID, id) })
	if errors.Is(err, ErrNotFound) {
		return errReasonNotFound(id)
	}
	return modErr("delete reason", err)
}

// modErr passes a rule's refusal through and wraps anything else as internal.
func modErr(what string, err error) error {
	if err == nil || ErrorCode(err) != "" {
		return err
	}
	return internal(what, err)
}

package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Moderation (docs/moderation.md): reasons, flagging, the review lists, rules with
// revisions and keyword lists. Keyword lists are sent as JSON; the server also takes the
// hosted multipart upload.

// Reason is a reason users flag messages with; Default ones are built into every app.
type Reason struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	CreatedAt   int64  `json:"createdAt"`
	UpdatedAt   int64  `json:"updatedAt"`
}

// ReasonRequest creates (ID required) or updates a reason.
type ReasonRequest struct {
	ID          string  `json:"id,omitempty"`
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// ModerationPage pages the flagged, reviewed and blocked lists: Limit (1–100) entries below
// the id Before.
type ModerationPage struct {
	Limit  int
	Before int64
}

func (p ModerationPage) query() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Before > 0 {
		q.Set("before", strconv.FormatInt(p.Before, 10))
	}
	return q
}

// FlaggedMessage is a flagged message with its flags and review status. The answer also
// carries the message's own keys at its top, as the hosted list does; Message holds them.
type FlaggedMessage struct {
	ID           string      `json:"id"`
	AppID        string      `json:"appId"`
	Status       string      `json:"status"`
	Message      *Message    `json:"message"`
	Flags        []Flag      `json:"flags"`
	FlaggedBy    []FlaggedBy `json:"flaggedBy"`
	FlaggedCount int         `json:"flaggedCount"`
	FlaggedAt    int64       `json:"flaggedAt"`
	ReviewedAt   int64       `json:"reviewedAt"`
}

// FlaggedBy is one flag as the hosted list gives it: the flagger's user and the reason's
// name and description beside the flag.
type FlaggedBy struct {
	UID         string `json:"uid"`
	Name        string `json:"name"`
	Avatar      string `json:"avatar"`
	Role        string `json:"role"`
	ReasonID    string `json:"reasonId"`
	ReasonName  string `json:"reasonName"`
	Description string `json:"description"`
	Remark      string `json:"remark"`
	FlaggedAt   int64  `json:"flaggedAt"`
}

// Flag is one user's flag of a message.
type Flag struct {
	UID       string `json:"uid"`
	ReasonID  string `json:"reasonId"`
	Remark    string `json:"remark"`
	FlaggedAt int64  `json:"flaggedAt"`
}

// RuleCondition is one condition of a moderation rule.
type RuleCondition struct {
	ID                         int      `json:"id,omitempty"`
	IsKeywordsReferencePresent bool     `json:"isKeywordsReferencePresent"`
	IsMediaPresent             bool     `json:"isMediaPresent"`
	Entity                     string   `json:"entity,omitempty"`
	Operand                    string   `json:"operand,omitempty"`
	Category                   string   `json:"category"`
	Operator                   string   `json:"operator,omitempty"`
	Value                      []string `json:"value"`
	Message                    []string `json:"message,omitempty"`
}

// BlockedMessage is a message a blockMessage rule held. ID is the held message's id, as
// Message.ID: the id ReviewBlockedMessage takes.
type BlockedMessage struct {
	ID         string        `json:"id"`
	RuleID     string        `json:"ruleId"`
	RuleName   string        `json:"ruleName"`
	RevisionID string        `json:"revisionId"`
	Condition  RuleCondition `json:"condition"`
	Message    Message       `json:"message"`
	Action     []string      `json:"action"`
	Status     string        `json:"status"`
	CreatedAt  int64         `json:"createdAt"`
	UpdatedAt  int64         `json:"updatedAt"`
}

// Rule is one revision of a moderation rule.
type Rule struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Enabled     bool            `json:"enabled"`
	Conditions  []RuleCondition `json:"conditions"`
	Action      []string        `json:"action"`
	Filters     []RuleFilter    `json:"filters,omitempty"`
	Active      bool            `json:"active"`
	CreatedAt   int64           `json:"createdAt"`
	UpdatedAt   int64           `json:"updatedAt"`
	RevisionID  string          `json:"revisionId"`
}

// RuleRequest creates a rule or replaces it with a new revision.
type RuleRequest struct {
	ID          string          `json:"id,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Enabled     *bool           `json:"enabled,omitempty"`
	Conditions  []RuleCondition `json:"conditions"`
	Action      []string        `json:"action"`
	// Filters limit the rule to some senders or receivers; none applies it to every message.
	Filters []RuleFilter `json:"filters,omitempty"`
}

// RuleFilter limits a rule to messages whose sender, receiver user or receiver group
// matches (the hosted UserFilter and GroupFilter; docs/moderation.md "Filters").
type RuleFilter struct {
	Type     string `json:"type"`     // sender or receiver
	Entity   string `json:"entity"`   // user or group
	Operand  string `json:"operand"`  // uid, name, role, tags, createdAt; guid, name, type, tags, createdAt
	Operator string `json:"operator"` // equals, notEquals, in, notIn, startsWith, endsWith, lessThan, greaterThan
	Value    string `json:"value"`    // in and notIn: comma-separated
}

// KeywordList is a named list of keywords rules refer to.
type KeywordList struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Category    string   `json:"category"`
	IsCSV       bool     `json:"isCSV"`
	SearchTerms []string `json:"searchTerms"`
	CreatedAt   int64    `json:"createdAt"`
	UpdatedAt   int64    `json:"updatedAt"`
	RevisionID  string   `json:"revisionId"`
	Active      bool     `json:"active"`
	AppID       string   `json:"appId"`
	Default     bool     `json:"default"` // always false: natter ships no lists of its own
}

// KeywordListRequest creates or replaces a keyword list.
type KeywordListRequest struct {
	ID          string   `json:"id,omitempty"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	SearchTerms []string `json:"searchTerms"`
}

func modCall[T any](ctx context.Context, c *Client, method, path string, query url.Values, body any) (T, error) {
	var out T
	_, err := c.call(ctx, method, path, query, body, &out)
	return out, err
}

// CreateReason creates one of the app's own reasons.
func (c *Client) CreateReason(ctx context.Context, r ReasonRequest) (Reason, error) {
	return modCall[Reason](ctx, c, http.MethodPost, "/moderation/reasons", nil, r)
}

// ListReasons lists the default reasons, then the app's own.
func (c *Client) ListReasons(ctx context.Context) ([]Reason, error) {
	return modCall[[]Reason](ctx, c, http.MethodGet, "/moderation/reasons", nil, nil)
}

// GetReason reads a reason.
func (c *Client) GetReason(ctx context.Context, id string) (Reason, error) {
	return modCall[Reason](ctx, c, http.MethodGet, "/moderation/reasons/"+seg(id), nil, nil)
}

// UpdateReason changes a reason's name or description.
func (c *Client) UpdateReason(ctx context.Context, id string, r ReasonRequest) (Reason, error) {
	return modCall[Reason](ctx, c, http.MethodPut, "/moderation/reasons/"+seg(id), nil, r)
}

// DeleteReason deletes one of the app's own reasons.
func (c *Client) DeleteReason(ctx context.Context, id string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodDelete, "/moderation/reasons/"+seg(id), nil, nil)
}

// FlagMessage flags a message as the acting user, with a reason and a remark.
func (c *Client) FlagMessage(ctx context.Context, msgID, reasonID, remark string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodPost, messagePath(msgID, "flagged"), nil, map[string]string{"reasonId": reasonID, "remark": remark})
}

// ListFlaggedMessages lists flagged messages not reviewed yet.
func (c *Client) ListFlaggedMessages(ctx context.Context, p ModerationPage) ([]FlaggedMessage, error) {
	return modCall[[]FlaggedMessage](ctx, c, http.MethodGet, "/moderation/flagged-messages", p.query(), nil)
}

// ListReviewedMessages lists flagged messages that were reviewed.
func (c *Client) ListReviewedMessages(ctx context.Context, p ModerationPage) ([]FlaggedMessage, error) {
	return modCall[[]FlaggedMessage](ctx, c, http.MethodGet, "/moderation/reviewed-messages", p.query(), nil)
}

// ReviewFlaggedMessage approves (keeps) or disapproves (deletes) a flagged message.
func (c *Client) ReviewFlaggedMessage(ctx context.Context, msgID, status string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodPatch, "/moderation/flagged-messages/"+seg(msgID), nil, map[string]string{"status": status})
}

// ListBlockedMessages lists the messages rules held, newest first; p.Before is a message id.
func (c *Client) ListBlockedMessages(ctx context.Context, p ModerationPage) ([]BlockedMessage, error) {
	return modCall[[]BlockedMessage](ctx, c, http.MethodGet, "/moderation/blocked-messages", p.query(), nil)
}

// ReviewBlockedMessage approves (sends) or rejects the held message whose id is msgID
// (BlockedMessage.Message.ID, the id its sender was answered with).
func (c *Client) ReviewBlockedMessage(ctx context.Context, msgID, status string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodPatch, "/moderation/blocked-messages/"+seg(msgID), nil, map[string]string{"status": status})
}

// CreateRule creates a moderation rule.
func (c *Client) CreateRule(ctx context.Context, r RuleRequest) (Rule, error) {
	return modCall[Rule](ctx, c, http.MethodPost, "/moderation/rules", nil, r)
}

// ListRules lists the rules' current revisions.
func (c *Client) ListRules(ctx context.Context) ([]Rule, error) {
	return modCall[[]Rule](ctx, c, http.MethodGet, "/moderation/rules", nil, nil)
}

// GetRule reads a rule's current revision.
func (c *Client) GetRule(ctx context.Context, id string) (Rule, error) {
	return modCall[Rule](ctx, c, http.MethodGet, "/moderation/rules/"+seg(id), nil, nil)
}

// UpdateRule replaces a rule with a new revision.
func (c *Client) UpdateRule(ctx context.Context, id string, r RuleRequest) (Rule, error) {
	return modCall[Rule](ctx, c, http.MethodPut, "/moderation/rules/"+seg(id), nil, r)
}

// DeleteRule deletes a rule with its revisions.
func (c *Client) DeleteRule(ctx context.Context, id string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodDelete, "/moderation/rules/"+seg(id), nil, nil)
}

// ListRuleRevisions lists a rule's revisions, newest first.
func (c *Client) ListRuleRevisions(ctx context.Context, id string) ([]Rule, error) {
	return modCall[[]Rule](ctx, c, http.MethodGet, "/moderation/rules/"+seg(id)+"/revisions", nil, nil)
}

// CreateKeywordList creates a keyword list.
func (c *Client) CreateKeywordList(ctx context.Context, l KeywordListRequest) (KeywordList, error) {
	return modCall[KeywordList](ctx, c, http.MethodPost, "/moderation/keywords", nil, l)
}

// ListKeywordLists lists the keyword lists with their keywords.
func (c *Client) ListKeywordLists(ctx context.Context) ([]KeywordList, error) {
	return modCall[[]KeywordList](ctx, c, http.MethodGet, "/moderation/keywords", nil, nil)
}

// GetKeywordList reads a keyword list.
func (c *Client) GetKeywordList(ctx context.Context, id string) (KeywordList, error) {
	return modCall[KeywordList](ctx, c, http.MethodGet, "/moderation/keywords/"+seg(id), nil, nil)
}

// UpdateKeywordList replaces a keyword list.
func (c *Client) UpdateKeywordList(ctx context.Context, id string, l KeywordListRequest) (KeywordList, error) {
	return modCall[KeywordList](ctx, c, http.MethodPut, "/moderation/keywords/"+seg(id), nil, l)
}

// DeleteKeywordList deletes a keyword list no rule names.
func (c *Client) DeleteKeywordList(ctx context.Context, id string) (Ack, error) {
	return modCall[Ack](ctx, c, http.MethodDelete, "/moderation/keywords/"+seg(id), nil, nil)
}

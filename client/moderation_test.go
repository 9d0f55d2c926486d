package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// moderationRoutes are the routes TestModerationEndpoints covers.
var moderationRoutes = func() map[string]bool {
	m := map[string]bool{"POST /messages/{id}/flagged": true}
	for _, rt := range httpapi.Routes() {
		if _, path, _ := strings.Cut(rt, " "); strings.HasPrefix(path, "/moderation/") {
			m[rt] = true
		}
	}
	return m
}()

func TestModerationEndpoints(t *testing.T) {
	ctx := context.Background()
	page := client.ModerationPage{Limit: 10, Before: 99}
	rule := client.RuleRequest{ID: "r1", Name: "R", Conditions: []client.RuleCondition{{Category: "word", Value: []string{"x"}}}, Action: []string{"blockMessage"},
		Filters: []client.RuleFilter{{Type: "sender", Entity: "user", Operand: "role", Operator: "equals", Value: "guest"}}}
	const ruleBody = `{"id":"r1","name":"R","conditions":[{"isKeywordsReferencePresent":false,"isMediaPresent":false,"category":"word","value":["x"]}],"action":["blockMessage"],` +
		`"filters":[{"type":"sender","entity":"user","operand":"role","operator":"equals","value":"guest"}]}`
	list := client.KeywordListRequest{ID: "k1", Name: "K", SearchTerms: []string{"a"}}
	tests := []endpointCase{
		{"CreateReason", "", func(c *client.Client) error {
			_, err := c.CreateReason(ctx, client.ReasonRequest{ID: "r", Name: ptr("N")})
			return err
		}, "POST /moderation/reasons", "/v3/moderation/reasons", "", nil, `{"id":"r","name":"N"}`},
		{"ListReasons", "", func(c *client.Client) error { _, err := c.ListReasons(ctx); return err },
			"GET /moderation/reasons", "/v3/moderation/reasons", "", nil, ""},
		{"GetReason", "", func(c *client.Client) error { _, err := c.GetReason(ctx, "r"); return err },
			"GET /moderation/reasons/{id}", "/v3/moderation/reasons/r", "", map[string]string{"id": "r"}, ""},
		{"UpdateReason", "", func(c *client.Client) error {
			_, err := c.UpdateReason(ctx, "r", client.ReasonRequest{Name: ptr("M")})
			return err
		}, "PUT /moderation/reasons/{id}", "/v3/moderation/reasons/r", "", map[string]string{"id": "r"}, `{"name":"M"}`},
		{"DeleteReason", "", func(c *client.Client) error { _, err := c.DeleteReason(ctx, "r"); return err },
			"DELETE /moderation/reasons/{id}", "/v3/moderation/reasons/r", "", map[string]string{"id": "r"}, ""},
		{"FlagMessage", "", func(c *client.Client) error { _, err := c.FlagMessage(ctx, "7", "spam", "hm"); return err },
			"POST /messages/{id}/flagged", "/v3/messages/7/flagged", "", map[string]string{"id": "7"}, `{"reasonId":"spam","remark":"hm"}`},
		{"ListFlaggedMessages", "", func(c *client.Client) error { _, err := c.ListFlaggedMessages(ctx, page); return err },
			"GET /moderation/flagged-messages", "/v3/moderation/flagged-messages", "before=99&limit=10", nil, ""},
		{"ListReviewedMessages", "", func(c *client.Client) error {
			_, err := c.ListReviewedMessages(ctx, client.ModerationPage{})
			return err
		},
			"GET /moderation/reviewed-messages", "/v3/moderation/reviewed-messages", "", nil, ""},
		{"ReviewFlaggedMessage", "", func(c *client.Client) error { _, err := c.ReviewFlaggedMessage(ctx, "7", "approved"); return err },
			"PATCH /moderation/flagged-messages/{id}", "/v3/moderation/flagged-messages/7", "", map[string]string{"id": "7"}, `{"status":"approved"}`},
		{"ListBlockedMessages", "", func(c *client.Client) error { _, err := c.ListBlockedMessages(ctx, page); return err },
			"GET /moderation/blocked-messages", "/v3/moderation/blocked-messages", "before=99&limit=10", nil, ""},
		{"ReviewBlockedMessage", "", func(c *client.Client) error { _, err := c.ReviewBlockedMessage(ctx, "3", "rejected"); return err },
			"PATCH /moderation/blocked-messages/{id}", "/v3/moderation/blocked-messages/3", "", map[string]string{"id": "3"}, `{"status":"rejected"}`},
		{"CreateRule", "", func(c *client.Client) error { _, err := c.CreateRule(ctx, rule); return err },
			"POST /moderation/rules", "/v3/moderation/rules", "", nil, ruleBody},
		{"ListRules", "", func(c *client.Client) error { _, err := c.ListRules(ctx); return err },
			"GET /moderation/rules", "/v3/moderation/rules", "", nil, ""},
		{"GetRule", "", func(c *client.Client) error { _, err := c.GetRule(ctx, "r1"); return err },
			"GET /moderation/rules/{ruleId}", "/v3/moderation/rules/r1", "", map[string]string{"ruleId": "r1"}, ""},
		{"UpdateRule", "", func(c *client.Client) error { _, err := c.UpdateRule(ctx, "r1", rule); return err },
			"PUT /moderation/rules/{ruleId}", "/v3/moderation/rules/r1", "", map[string]string{"ruleId": "r1"}, ruleBody},
		{"DeleteRule", "", func(c *client.Client) error { _, err := c.DeleteRule(ctx, "r1"); return err },
			"DELETE /moderation/rules/{ruleId}", "/v3/moderation/rules/r1", "", map[string]string{"ruleId": "r1"}, ""},
		{"ListRuleRevisions", "", func(c *client.Client) error { _, err := c.ListRuleRevisions(ctx, "r1"); return err },
			"GET /moderation/rules/{ruleId}/revisions", "/v3/moderation/rules/r1/revisions", "", map[string]string{"ruleId": "r1"}, ""},
		{"CreateKeywordList", "", func(c *client.Client) error { _, err := c.CreateKeywordList(ctx, list); return err },
			"POST /moderation/keywords", "/v3/moderation/keywords", "", nil, `{"id":"k1","name":"K","searchTerms":["a"]}`},
		{"ListKeywordLists", "", func(c *client.Client) error { _, err := c.ListKeywordLists(ctx); return err },
			"GET /moderation/keywords", "/v3/moderation/keywords", "", nil, ""},
		{"GetKeywordList", "", func(c *client.Client) error { _, err := c.GetKeywordList(ctx, "k1"); return err },
			"GET /moderation/keywords/{keywordId}", "/v3/moderation/keywords/k1", "", map[string]string{"keywordId": "k1"}, ""},
		{"UpdateKeywordList", "", func(c *client.Client) error { _, err := c.UpdateKeywordList(ctx, "k1", list); return err },
			"PUT /moderation/keywords/{keywordId}", "/v3/moderation/keywords/k1", "", map[string]string{"keywordId": "k1"}, `{"id":"k1","name":"K","searchTerms":["a"]}`},
		{"DeleteKeywordList", "", func(c *client.Client) error { _, err := c.DeleteKeywordList(ctx, "k1"); return err },
			"DELETE /moderation/keywords/{keywordId}", "/v3/moderation/keywords/k1", "", map[string]string{"keywordId": "k1"}, ""},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	checkCovered(t, "moderationRoutes", moderationRoutes, covered)
}

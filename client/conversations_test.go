package client_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/natter-chat/natter/client"
)

// conversationRoutes are the conversation routes, which TestConversationEndpoints covers.
var conversationRoutes = map[string]bool{
	"GET /conversations":                         true,
	"GET /conversations/pinned":                  true,
	"PUT /conversations/pinned":                  true,
	"POST /users/{uid}/conversation/pin":         true,
	"DELETE /users/{uid}/conversation/pin":       true,
	"POST /groups/{guid}/conversation/pin":       true,
	"DELETE /groups/{guid}/conversation/pin":     true,
	"GET /conversations/{conversationId}":        true,
	"DELETE /conversations/{conversationId}":     true,
	"GET /users/{uid}/conversation":              true,
	"PUT /users/{uid}/conversation":              true,
	"DELETE /users/{uid}/conversation":           true,
	"POST /users/{uid}/conversation/delivered":   true,
	"POST /users/{uid}/conversation/read":        true,
	"DELETE /users/{uid}/conversation/read":      true,
	"GET /groups/{guid}/conversation":            true,
	"PUT /groups/{guid}/conversation":            true,
	"DELETE /groups/{guid}/conversation":         true,
	"POST /groups/{guid}/conversation/delivered": true,
	"POST /groups/{guid}/conversation/read":      true,
	"DELETE /groups/{guid}/conversation/read":    true,
}

// TestConversationEndpoints calls every conversation method and checks the request the
// server saw, as TestEndpoints does for the others; together they cover conversationRoutes.
func TestConversationEndpoints(t *testing.T) {
	ctx := context.Background()
	tests := []endpointCase{
		{"ListConversations zero", "", func(c *client.Client) error {
			_, err := c.ListConversations(ctx, client.ListConversationsParams{})
			return err
		}, "GET /conversations", "/v3/conversations", "", nil, ""},
		{"ListConversations all", "u1", func(c *client.Client) error {
			_, err := c.ListConversations(ctx, client.ListConversationsParams{ConversationType: "group", SearchKey: "a b",
				Tags: []string{"x", "y"}, UserTags: []string{"u"}, GroupTags: []string{"g", "h"}, WithTags: true,
				WithUserAndGroupTags: true, Unread: true, PerPage: 5, Page: 2})
			return err
		}, "GET /conversations", "/v3/conversations",
			"conversationType=group&groupTags=g%2Ch&page=2&perPage=5&searchKey=a+b&tags=x%2Cy&unread=true&userTags=u&withTags=true&withUserAndGroupTags=true",
			nil, ""},
		{"ListConversations blocks and agents", "u1", func(c *client.Client) error {
			_, err := c.ListConversations(ctx, client.ListConversationsParams{IncludeBlockedUsers: true, WithBlockedInfo: true,
				HideAgentic: true, OnlyAgentic: true})
			return err
		}, "GET /conversations", "/v3/conversations", "hideAgentic=true&includeBlockedUsers=true&onlyAgentic=true&withBlockedInfo=true", nil, ""},
		{"GetConversation", "u1", func(c *client.Client) error {
			_, err := c.GetConversation(ctx, "u1_user_u/2")
			return err
		}, "GET /conversations/{conversationId}", "/v3/conversations/u1_user_u%2F2", "", nil, ""},
		{"DeleteConversation", "u1", func(c *client.Client) error {
			_, err := c.DeleteConversation(ctx, "group_g1")
			return err
		}, "DELETE /conversations/{conversationId}", "/v3/conversations/group_g1", "", nil, ""},
		{"GetUserConversation", "u1", func(c *client.Client) error {
			_, err := c.GetUserConversation(ctx, "a/b c")
			return err
		}, "GET /users/{uid}/conversation", "/v3/users/a%2Fb%20c/conversation", "", map[string]string{"uid": "a/b c"}, ""},
		{"UpdateUserConversation", "u1", func(c *client.Client) error {
			_, err := c.UpdateUserConversation(ctx, "u2", []string{"work", "<x>"})
			return err
		}, "PUT /users/{uid}/conversation", "/v3/users/u2/conversation", "", map[string]string{"uid": "u2"}, `{"tags":["work","<x>"]}`},
		{"UpdateUserConversation nil tags", "u1", func(c *client.Client) error {
			_, err := c.UpdateUserConversation(ctx, "u2", nil)
			return err
		}, "PUT /users/{uid}/conversation", "/v3/users/u2/conversation", "", map[string]string{"uid": "u2"}, `{"tags":[]}`},
		{"ResetUserConversation", "u1", func(c *client.Client) error {
			_, err := c.ResetUserConversation(ctx, "u2")
			return err
		}, "DELETE /users/{uid}/conversation", "/v3/users/u2/conversation", "", map[string]string{"uid": "u2"}, ""},
		{"MarkUserConversation delivered", "u1", func(c *client.Client) error {
			_, err := c.MarkUserConversation(ctx, "u2", client.MarkDelivered, "")
			return err
		}, "POST /users/{uid}/conversation/delivered", "/v3/users/u2/conversation/delivered", "", map[string]string{"uid": "u2"}, ""},
		{"MarkUserConversation read", "u1", func(c *client.Client) error {
			_, err := c.MarkUserConversation(ctx, "u2", client.MarkRead, "42")
			return err
		}, "POST /users/{uid}/conversation/read", "/v3/users/u2/conversation/read", "", map[string]string{"uid": "u2"}, `{"messageId":42}`},
		{"MarkUserConversation unread", "u1", func(c *client.Client) error {
			_, err := c.MarkUserConversation(ctx, "u2", client.MarkUnread, "7")
			return err
		}, "DELETE /users/{uid}/conversation/read", "/v3/users/u2/conversation/read", "", map[string]string{"uid": "u2"}, `{"messageId":7}`},
		{"GetGroupConversation", "u1", func(c *client.Client) error {
			_, err := c.GetGroupConversation(ctx, "g/1")
			return err
		}, "GET /groups/{guid}/conversation", "/v3/groups/g%2F1/conversation", "", nil, ""},
		{"UpdateGroupConversation", "u1", func(c *client.Client) error {
			_, err := c.UpdateGroupConversation(ctx, "g1", []string{})
			return err
		}, "PUT /groups/{guid}/conversation", "/v3/groups/g1/conversation", "", nil, `{"tags":[]}`},
		{"ResetGroupConversation", "u1", func(c *client.Client) error {
			_, err := c.ResetGroupConversation(ctx, "g1")
			return err
		}, "DELETE /groups/{guid}/conversation", "/v3/groups/g1/conversation", "", nil, ""},
		{"MarkGroupConversation delivered", "u1", func(c *client.Client) error {
			_, err := c.MarkGroupConversation(ctx, "g1", client.MarkDelivered, "9")
			return err
		}, "POST /groups/{guid}/conversation/delivered", "/v3/groups/g1/conversation/delivered", "", nil, `{"messageId":9}`},
		{"MarkGroupConversation read", "u1", func(c *client.Client) error {
			_, err := c.MarkGroupConversation(ctx, "g1", client.MarkRead, "")
			return err
		}, "POST /groups/{guid}/conversation/read", "/v3/groups/g1/conversation/read", "", nil, ""},
		{"PinUserConversation", "u1", func(c *client.Client) error {
			_, err := c.PinConversation(ctx, client.ReceiverUser, "u2")
			return err
		}, "POST /users/{uid}/conversation/pin", "/v3/users/u2/conversation/pin", "", map[string]string{"uid": "u2"}, ""},
		{"UnpinUserConversation", "u1", func(c *client.Client) error {
			_, err := c.UnpinConversation(ctx, client.ReceiverUser, "u2")
			return err
		}, "DELETE /users/{uid}/conversation/pin", "/v3/users/u2/conversation/pin", "", map[string]string{"uid": "u2"}, ""},
		{"PinGroupConversation", "u1", func(c *client.Client) error {
			_, err := c.PinConversation(ctx, client.ReceiverGroup, "g1")
			return err
		}, "POST /groups/{guid}/conversation/pin", "/v3/groups/g1/conversation/pin", "", nil, ""},
		{"UnpinGroupConversation", "u1", func(c *client.Client) error {
			_, err := c.UnpinConversation(ctx, client.ReceiverGroup, "g1")
			return err
		}, "DELETE /groups/{guid}/conversation/pin", "/v3/groups/g1/conversation/pin", "", nil, ""},
		{"ListPinnedConversations", "", func(c *client.Client) error {
			_, err := c.ListPinnedConversations(ctx)
			return err
		}, "GET /conversations/pinned", "/v3/conversations/pinned", "", nil, ""},
		{"ReplacePinnedConversations", "", func(c *client.Client) error {
			_, err := c.ReplacePinnedConversations(ctx, []client.PinnedConversation{{GUID: "g1"}, {UID: "u2"}})
			return err
		}, "PUT /conversations/pinned", "/v3/conversations/pinned", "", nil, `{"pinnedConversations":[{"guid":"g1"},{"uid":"u2"}]}`},
		{"MarkGroupConversation unread", "u1", func(c *client.Client) error {
			_, err := c.MarkGroupConversation(ctx, "g1", client.MarkUnread, "3")
			return err
		}, "DELETE /groups/{guid}/conversation/read", "/v3/groups/g1/conversation/read", "", nil, `{"messageId":3}`},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	checkCovered(t, "conversationRoutes", conversationRoutes, covered)
}

// TestMarkRefusedLocally: a mark that is none of the three, or a message id that is not an
// integer, is refused without a request.
func TestMarkRefusedLocally(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client().OnBehalfOf("u1")
	if _, err := c.MarkUserConversation(ctx, "u2", "seen", ""); err == nil {
		t.Error("MarkUserConversation with mark seen: no error")
	}
	if _, err := c.MarkGroupConversation(ctx, "g1", client.MarkRead, "4a"); err == nil {
		t.Error("MarkGroupConversation with message id 4a: no error")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 0 {
		t.Errorf("server saw %d requests, want none", len(f.got))
	}
}

func TestConversationDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client().OnBehalfOf("ann")

	// A page: a group conversation, then a one-to-one one; the unread count is a string.
	f.respond(http.StatusOK, `{"data":[
		{"conversationId":"group_g","conversationType":"group","unreadMessageCount":"2","unreadMentionsCount":0,"createdAt":5,"updatedAt":8,
		"lastMessage":{"id":"8","conversationId":"group_g","sender":"olga","receiverType":"group","receiver":"g","category":"message","type":"text",
		"data":{"text":"hi"},"sentAt":8,"updatedAt":8},
		"conversationWith":{"guid":"g","name":"G","type":"public","scope":"participant","membersCount":2,"joinedAt":5,"conversationId":"group_g",
		"hasJoined":true,"createdAt":5,"owner":"olga","tags":["team"]}},
		{"conversationId":"ann_user_bob","conversationType":"user","unreadMessageCount":"0","unreadMentionsCount":0,"lastReadMessageId":"7",
		"createdAt":3,"updatedAt":7,"conversationWith":{"uid":"bob","name":"Bob","status":"offline","role":"default","createdAt":1,
		"conversationId":"ann_user_bob"},"tags":["work"]}],
		"meta":{"pagination":{"total":3,"count":2,"per_page":2,"current_page":1,"total_pages":2}}}`)
	l, err := c.ListConversations(ctx, client.ListConversationsParams{PerPage: 2})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Conversations) != 2 || l.Pagination != (client.Pagination{Total: 3, Count: 2, PerPage: 2, CurrentPage: 1, TotalPages: 2}) {
		t.Fatalf("list = %+v", l)
	}
	g, u := l.Conversations[0], l.Conversations[1]
	if g.ConversationID != "group_g" || g.ConversationType != client.ReceiverGroup || g.UnreadMessageCount != 2 || g.CreatedAt != 5 ||
		g.UpdatedAt != 8 || g.LastMessage == nil || g.LastMessage.ID != "8" || g.LastMessage.Data.Text != "hi" || g.With != nil ||
		g.Group == nil || g.Group.GUID != "g" || !g.Group.HasJoined || g.Group.Scope != "participant" ||
		!slices.Equal(g.Group.Tags, []string{"team"}) || g.Tags != nil || g.LastReadMessageID != "" {
		t.Errorf("group conversation = %+v", g)
	}
	if u.ConversationType != client.ReceiverUser || u.UnreadMessageCount != 0 || u.LastReadMessageID != "7" || u.LastMessage != nil ||
		u.Group != nil || u.With == nil || u.With.UID != "bob" || u.With.ConversationID != "ann_user_bob" || !slices.Equal(u.Tags, []string{"work"}) {
		t.Errorf("user conversation = %+v", u)
	}

	// One conversation; a count sent as a number is taken too, and conversationWith may be
	// missing.
	f.respond(http.StatusOK, `{"data":{"conversationId":"ann_user_cat","conversationType":"user","unreadMessageCount":12,
		"unreadMentionsCount":1,"createdAt":3,"updatedAt":4}}`)
	conv, err := c.GetUserConversation(ctx, "cat")
	f.last(t)
	if err != nil || conv.UnreadMessageCount != 12 || conv.UnreadMentionsCount != 1 || conv.With != nil || conv.Group != nil {
		t.Errorf("GetUserConversation = %+v, %v", conv, err)
	}
	for _, body := range []string{`{"data":{"conversationType":"user","unreadMessageCount":"x"}}`,
		`{"data":{"conversationType":"user","unreadMessageCount":"1.5"}}`,
		`{"data":{"conversationType":"group","conversationWith":{"guid":5}}}`} {
		f.respond(http.StatusOK, body)
		if conv, err := c.GetGroupConversation(ctx, "g"); err == nil {
			t.Errorf("%s: GetGroupConversation = %+v, want an error", body, conv)
		}
		f.last(t)
	}

	// The one-to-one read and delivered acknowledgements spell their key "Message".
	f.respond(http.StatusOK, `{"data":{"success":true,"Message":"All the messages from the user are marked as read for the requesting user."}}`)
	a, err := c.MarkUserConversation(ctx, "bob", client.MarkRead, "")
	f.last(t)
	if err != nil || !a.Success || a.Message != "All the messages from the user are marked as read for the requesting user." {
		t.Errorf("MarkUserConversation = %+v, %v", a, err)
	}
	f.respond(http.StatusOK, `{"data":{"success":true,"message":"The conversation group_g has been deleted successfully for UID ann."}}`)
	a, err = c.ResetGroupConversation(ctx, "g")
	f.last(t)
	if err != nil || !a.Success || a.Message != "The conversation group_g has been deleted successfully for UID ann." {
		t.Errorf("ResetGroupConversation = %+v, %v", a, err)
	}

	// An error answer is an *Error.
	f.respond(http.StatusNotFound, `{"error":{"message":"m","devMessage":"d","source":"chat-api","code":"ERR_CONVERSATION_NOT_FOUND"}}`)
	_, err = c.GetConversation(ctx, "ann_user_dan")
	f.last(t)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusNotFound || e.Code != "ERR_CONVERSATION_NOT_FOUND" {
		t.Errorf("err = %v", err)
	}
}

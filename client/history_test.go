package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

// messageHistoryRoutes are the message-list, thread, edit and bot-message routes, which
// TestHistoryEndpoints covers.
var messageHistoryRoutes = map[string]bool{
	"GET /messages":               true,
	"GET /users/{uid}/messages":   true,
	"GET /groups/{guid}/messages": true,
	"GET /messages/{id}/thread":   true,
	"POST /messages/{id}/thread":  true,
	"PUT /messages/{id}":          true,
	"POST /bots/{uid}/messages":   true,
}

// historyRoutes are the routes TestHistoryEndpoints, TestConversationEndpoints,
// TestBlockEndpoints, TestRoleEndpoints, TestStats and TestNotificationEndpoints cover, which TestEndpoints and TestGroupEndpoints leave to them.
var historyRoutes = func() map[string]bool {
	all := map[string]bool{}
	for _, set := range []map[string]bool{messageHistoryRoutes, conversationRoutes, blockRoutes, roleRoutes, statsRoutes, notificationRoutes, moderationRoutes, callRoutes} {
		for rt := range set {
			all[rt] = true
		}
	}
	return all
}()

// TestHistoryEndpoints calls every message-list, thread, edit and bot-message method and checks the
// request the server saw, as TestEndpoints does for the others; together they cover
// messageHistoryRoutes.
func TestHistoryEndpoints(t *testing.T) {
	ctx := context.Background()
	all := client.MessageListParams{Affix: "prepend", ID: "42", SentAt: 1767225600, Limit: 50, FromTimestamp: 1, ToTimestamp: 2,
		Categories: []string{"message", "custom"}, Types: []string{"text", "image"}, Sender: "u2", SearchKey: "a b", HideDeleted: true,
		OnlyDeleted: true, HideReplies: true, HasReactions: true, HasAttachments: true, AttachmentTypes: []string{"image", "file"},
		HasLinks: true, WithTags: true, Tags: []string{"x", "y"}, ReceiverType: "user", ConversationID: "u1_user_u2",
		Unread: true, Undelivered: true, HasMentions: true, MentionedUIDs: []string{"u3", "u4"}, MyMentionsOnly: true,
		HideMessagesFromBlockedUsers: true, Pinned: true, Saved: true}
	const allQuery = "affix=prepend&attachmentTypes=image%2Cfile&categories=message%2Ccustom&conversationId=u1_user_u2&fromTimestamp=1" +
		"&hasAttachments=true&hasLinks=true&hasMentions=true&hasReactions=true&hideDeleted=true&hideMessagesFromBlockedUsers=true&hideReplies=true&id=42&limit=50" +
		"&mentionedUids=u3%2Cu4&myMentionsOnly=true&onlyDeleted=true&pinned=true&receiverType=user&saved=true&searchKey=a+b&sender=u2&sentAt=1767225600" +
		"&tags=x%2Cy&toTimestamp=2&types=text%2Cimage&undelivered=true&unread=true&withTags=true"
	tests := []endpointCase{
		{"ListMessages zero", "", func(c *client.Client) error {
			_, err := c.ListMessages(ctx, client.MessageListParams{})
			return err
		}, "GET /messages", "/v3/messages", "", nil, ""},
		{"ListMessages all", "u1", func(c *client.Client) error {
			_, err := c.ListMessages(ctx, all)
			return err
		}, "GET /messages", "/v3/messages", allQuery, nil, ""},
		{"ListMessages newer filters", "", func(c *client.Client) error {
			_, err := c.ListMessages(ctx, client.MessageListParams{Senders: []string{"u1", "u2"}, SentAtRange: client.Between(0, 9),
				UpdatedAtRange: client.Since(5), EditedAtRange: client.TimeRange{To: ptr(int64(7))}, HideQuotedMessages: true})
			return err
		}, "GET /messages", "/v3/messages",
			"editedAt%5Bto%5D=7&hideQuotedMessages=true&senders=u1%2Cu2&sentAt%5Bfrom%5D=0&sentAt%5Bto%5D=9&updatedAt%5Bfrom%5D=5", nil, ""},
		{"ListUserMessages", "u1", func(c *client.Client) error {
			_, err := c.ListUserMessages(ctx, "a/b c", client.MessageListParams{Unread: true, Limit: 5})
			return err
		}, "GET /users/{uid}/messages", "/v3/users/a%2Fb%20c/messages", "limit=5&unread=true", map[string]string{"uid": "a/b c"}, ""},
		{"ListUserMessages all", "u1", func(c *client.Client) error {
			_, err := c.ListUserMessages(ctx, "u2", all)
			return err
		}, "GET /users/{uid}/messages", "/v3/users/u2/messages", allQuery, map[string]string{"uid": "u2"}, ""},
		{"ListGroupMessages", "", func(c *client.Client) error {
			_, err := c.ListGroupMessages(ctx, "g/1", client.MessageListParams{HideReplies: true, WithTags: true})
			return err
		}, "GET /groups/{guid}/messages", "/v3/groups/g%2F1/messages", "hideReplies=true&withTags=true", nil, ""},
		{"UnreadCount user", "u1", func(c *client.Client) error {
			_, err := c.UnreadCount(ctx, client.ReceiverUser, "u2", client.MessageListParams{Categories: []string{"message"}, Undelivered: true})
			return err
		}, "GET /users/{uid}/messages", "/v3/users/u2/messages", "categories=message&count=true&unread=true", map[string]string{"uid": "u2"}, ""},
		{"UnreadCount group", "u1", func(c *client.Client) error {
			_, err := c.UnreadCount(ctx, client.ReceiverGroup, "g1", client.MessageListParams{})
			return err
		}, "GET /groups/{guid}/messages", "/v3/groups/g1/messages", "count=true&unread=true", nil, ""},
		{"ListThread", "u1", func(c *client.Client) error {
			_, err := c.ListThread(ctx, "7", client.MessageListParams{Affix: "append", ID: "9", Limit: 3})
			return err
		}, "GET /messages/{id}/thread", "/v3/messages/7/thread", "affix=append&id=9&limit=3", map[string]string{"id": "7"}, ""},
		{"ListThread zero", "", func(c *client.Client) error {
			_, err := c.ListThread(ctx, "m/1", client.MessageListParams{})
			return err
		}, "GET /messages/{id}/thread", "/v3/messages/m%2F1/thread", "", map[string]string{"id": "m/1"}, ""},
		{"SendThreadMessage", "u1", func(c *client.Client) error {
			_, err := c.SendThreadMessage(ctx, "7", client.SendMessageRequest{Data: map[string]any{"text": "<re>"}, Tags: []string{"t"}})
			return err
		}, "POST /messages/{id}/thread", "/v3/messages/7/thread", "", map[string]string{"id": "7"},
			`{"receiver":"","receiverType":"","category":"","type":"","data":{"text":"<re>"},"tags":["t"]}`},
		{"SendThreadMessage explicit", "u1", func(c *client.Client) error {
			_, err := c.SendThreadMessage(ctx, "7", client.SendMessageRequest{Receiver: "g1", ReceiverType: "group", Category: "custom",
				Type: "poll", Data: map[string]any{"customData": map[string]any{"q": "?"}}, MUID: "m-1"})
			return err
		}, "POST /messages/{id}/thread", "/v3/messages/7/thread", "", map[string]string{"id": "7"},
			`{"receiver":"g1","receiverType":"group","category":"custom","type":"poll","data":{"customData":{"q":"?"}},"muid":"m-1"}`},
		{"EditMessage", "u1", func(c *client.Client) error {
			_, err := c.EditMessage(ctx, "m/7", client.EditMessageRequest{Data: map[string]any{"text": "<b>", "metadata": map[string]any{"k": 1}},
				Tags: &[]string{"t"}})
			return err
		}, "PUT /messages/{id}", "/v3/messages/m%2F7", "", map[string]string{"id": "m/7"}, `{"data":{"text":"<b>","metadata":{"k":1}},"tags":["t"]}`},
		{"EditMessage clear tags as the app", "", func(c *client.Client) error {
			_, err := c.EditMessage(ctx, "7", client.EditMessageRequest{Tags: &[]string{}})
			return err
		}, "PUT /messages/{id}", "/v3/messages/7", "", map[string]string{"id": "7"}, `{"tags":[]}`},
		{"ListGroupMessages hiding blocked users", "u1", func(c *client.Client) error {
			_, err := c.ListGroupMessages(ctx, "g1", client.MessageListParams{HideMessagesFromBlockedUsers: true, Limit: 20})
			return err
		}, "GET /groups/{guid}/messages", "/v3/groups/g1/messages", "hideMessagesFromBlockedUsers=true&limit=20", nil, ""},
		{"UnreadCounts", "u1", func(c *client.Client) error {
			_, err := c.UnreadCounts(ctx, "", false)
			return err
		}, "GET /messages", "/v3/messages", "count=true&unread=true", nil, ""},
		{"UnreadCounts of groups hiding blocked users", "u1", func(c *client.Client) error {
			_, err := c.UnreadCounts(ctx, client.ReceiverGroup, true)
			return err
		}, "GET /messages", "/v3/messages", "count=true&hideMessagesFromBlockedUsers=true&receiverType=group&unread=true", nil, ""},
		{"UnreadCount hiding blocked users", "u1", func(c *client.Client) error {
			_, err := c.UnreadCount(ctx, client.ReceiverUser, "u2", client.MessageListParams{HideMessagesFromBlockedUsers: true})
			return err
		}, "GET /users/{uid}/messages", "/v3/users/u2/messages", "count=true&hideMessagesFromBlockedUsers=true&unread=true", map[string]string{"uid": "u2"}, ""},
		{"ListGroupMessages mentions", "u1", func(c *client.Client) error {
			_, err := c.ListGroupMessages(ctx, "g1", client.MessageListParams{MentionedUIDs: []string{"a/b"}, MyMentionsOnly: true})
			return err
		}, "GET /groups/{guid}/messages", "/v3/groups/g1/messages", "mentionedUids=a%2Fb&myMentionsOnly=true", nil, ""},
		{"SendBotMessage", "", func(c *client.Client) error {
			_, err := c.SendBotMessage(ctx, "help bot/1", client.SendMessageRequest{Receiver: "u2", ReceiverType: "user", Category: "message",
				Type: "text", Data: map[string]any{"text": "hi <@uid:u2>"}, MUID: "b-1"})
			return err
		}, "POST /bots/{uid}/messages", "/v3/bots/help%20bot%2F1/messages", "", map[string]string{"uid": "help bot/1"},
			`{"receiver":"u2","receiverType":"user","category":"message","type":"text","data":{"text":"hi <@uid:u2>"},"muid":"b-1"}`},
		{"SendBotMessage acting as a user", "u1", func(c *client.Client) error {
			_, err := c.SendBotMessage(ctx, "bot", client.SendMessageRequest{Receiver: "g1", ReceiverType: "group", Data: map[string]any{"text": "x"}})
			return err
		}, "POST /bots/{uid}/messages", "/v3/bots/bot/messages", "", map[string]string{"uid": "bot"},
			`{"receiver":"g1","receiverType":"group","category":"","type":"","data":{"text":"x"}}`},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{before: func(f *fake, tt endpointCase) func() {
		if !strings.HasPrefix(tt.name, "UnreadCount ") {
			return nil
		}
		f.respond(http.StatusOK, `{"data":[]}`)
		return func() { f.respond(http.StatusOK, `{"data":null}`) }
	}})
	checkCovered(t, "messageHistoryRoutes", messageHistoryRoutes, covered)
}

// TestUnreadCountReceiverType: a receiver type that is neither user nor group is refused
// without a request.
func TestUnreadCountReceiverType(t *testing.T) {
	f := newFake(t)
	if _, err := f.client().OnBehalfOf("u1").UnreadCount(context.Background(), "room", "r1", client.MessageListParams{}); err == nil {
		t.Fatal("UnreadCount with receiver type room: no error")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 0 {
		t.Errorf("server saw %d requests, want none", len(f.got))
	}
}

func TestHistoryDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client().OnBehalfOf("ann")

	const entities = `"entities":{"sender":{"entity":{"uid":"olga","name":"Olga","role":"default","status":"offline","createdAt":5},"entityType":"user"},
		"receiver":{"entity":{"guid":"g","name":"G","type":"public","owner":"olga","createdAt":5,"membersCount":2,"conversationId":"group_g"},"entityType":"group"}}`
	f.respond(http.StatusOK, `{"data":[
		{"id":"4","conversationId":"group_g","sender":"olga","receiverType":"group","receiver":"g","category":"message","type":"text",
		"data":{"text":"root",`+entities+`},"sentAt":6,"editedAt":8,"editedBy":"app_system","updatedAt":8,"replyCount":2,"unreadRepliesCount":1,
		"tags":["t"]},
		{"id":"5","conversationId":"ann_user_bob","sender":"ann","receiverType":"user","receiver":"bob","category":"message","type":"text",
		"data":{"text":"hi"},"sentAt":7,"deliveredAt":8,"readAt":9,"updatedAt":7,"parentId":"4"}],
		"meta":{"current":{"limit":2,"count":2},"next":{"affix":"append","sentAt":7,"id":"5"},"cursor":{"id":5,"affix":"append"}}}`)
	asked := client.MessageListParams{Limit: 2, HideDeleted: true, Tags: []string{"t"}, WithTags: true}
	l, err := c.ListMessages(ctx, asked)
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Data) != 2 {
		t.Fatalf("data = %+v", l.Data)
	}
	root, reply := l.Data[0], l.Data[1]
	if root.ID != "4" || root.Data.Text != "root" || root.Data.Entities.Receiver == nil || root.Data.Entities.Receiver.Group == nil ||
		root.EditedAt != 8 || root.EditedBy != "app_system" || root.UpdatedAt != 8 || root.ReplyCount != 2 || root.UnreadRepliesCount != 1 ||
		root.ParentID != "" || !slices.Equal(root.Tags, []string{"t"}) {
		t.Errorf("parent = %+v", root)
	}
	if reply.ParentID != "4" || reply.DeliveredAt != 8 || reply.ReadAt != 9 || reply.ReplyCount != 0 || reply.EditedBy != "" {
		t.Errorf("reply = %+v", reply)
	}
	wantMeta := client.MessageListMeta{Current: client.MessagePageSize{Limit: 2, Count: 2},
		Next: client.MessageCursor{Affix: "append", SentAt: 7, ID: "5"}, Cursor: client.MessageListCursor{ID: 5, Affix: "append"}}
	if l.Meta != wantMeta {
		t.Errorf("meta = %+v, want %+v", l.Meta, wantMeta)
	}
	next, more := l.Next()
	want := asked
	want.Affix, want.ID = "append", "5"
	if !more || !reflect.DeepEqual(next, want) {
		t.Errorf("Next() = %+v, %v, want %+v, true", next, more, want)
	}

	// The next page is asked for with the same filters and the cursor.
	f.respond(http.StatusOK, `{"data":[],"meta":{"current":{"limit":2,"count":0},"next":{"affix":"append","id":"5"},"cursor":{"id":5,"affix":"append"}}}`)
	l, err = c.ListMessages(ctx, next)
	got := f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if got.Query != "affix=append&hideDeleted=true&id=5&limit=2&tags=t&withTags=true" {
		t.Errorf("next page query = %s", got.Query)
	}
	if len(l.Data) != 0 || l.Meta.Next.SentAt != 0 || l.Meta.Next.ID != "5" {
		t.Errorf("empty page = %+v", l)
	}
	if p, more := l.Next(); more || p.ID != "5" || p.Affix != "append" || p.Limit != 2 {
		t.Errorf("Next() of the last page = %+v, %v", p, more)
	}

	// A reply comes back with its parent's id.
	f.respond(http.StatusOK, `{"data":{"id":"6","conversationId":"group_g","sender":"ann","receiverType":"group","receiver":"g","category":"message",
		"type":"text","data":{"text":"re"},"sentAt":9,"updatedAt":9,"parentId":"4"}}`)
	m, err := c.SendThreadMessage(ctx, "4", client.SendMessageRequest{Data: map[string]any{"text": "re"}})
	f.last(t)
	if err != nil || m.ID != "6" || m.ParentID != "4" {
		t.Errorf("SendThreadMessage = %+v, %v", m, err)
	}

	// An edit answers with the "edited" action, the edited message under entities.on.
	f.respond(http.StatusOK, `{"data":{"id":"7","conversationId":"group_g","sender":"ann","receiverType":"group","receiver":"g","category":"action",
		"type":"message","data":{"action":"edited","entities":{"by":{"entity":{"uid":"ann","name":"Ann","role":"default","status":"offline"},"entityType":"user"},
		"for":{"entity":{"guid":"g","name":"G","type":"public","createdAt":5,"membersCount":2,"conversationId":"group_g"},"entityType":"group"},
		"on":{"entity":{"id":"4","conversationId":"group_g","sender":"olga","receiverType":"group","receiver":"g","category":"message","type":"text",
		"data":{"text":"new"},"sentAt":6,"editedAt":9,"editedBy":"ann","updatedAt":9,"tags":["t"]},"entityType":"message"}}},"sentAt":9,"updatedAt":9}}`)
	m, err = c.EditMessage(ctx, "4", client.EditMessageRequest{Data: map[string]any{"text": "new"}})
	f.last(t)
	if err != nil || m.Category != "action" || m.Data.Action != "edited" || m.Data.Entities.By == nil || m.Data.Entities.By.Entity.UID != "ann" ||
		m.Data.Entities.For == nil || m.Data.Entities.For.Group == nil || m.Data.Entities.For.Group.GUID != "g" || m.Data.Entities.On == nil {
		t.Fatalf("EditMessage = %+v, %v", m, err)
	}
	if on := m.Data.Entities.On.Entity; on.ID != "4" || on.Data.Text != "new" || on.EditedAt != 9 || on.EditedBy != "ann" || !slices.Equal(on.Tags, []string{"t"}) {
		t.Errorf("edited message = %+v", on)
	}

	// Mentions: data.mentions by uid, mentionedUsers in order, mentionedMe for the acting user.
	const ann = `{"uid":"ann","name":"Ann","role":"default","status":"offline","createdAt":5}`
	const cat = `{"uid":"cat","name":"Cat","avatar":"https://a.example/cat.png","role":"default","status":"available","createdAt":5,"lastActiveAt":9}`
	f.respond(http.StatusOK, `{"data":{"id":"8","conversationId":"group_g","sender":"helper","receiverType":"group","receiver":"g","category":"message",
		"type":"text","data":{"text":"<@uid:cat> <@uid:ann>","entities":{},"mentions":{"cat":`+cat+`,"ann":`+ann+`}},"sentAt":9,"updatedAt":9,
		"mentionedUsers":[`+cat+`,`+ann+`],"mentionedMe":true}}`)
	m, err = c.SendBotMessage(ctx, "helper", client.SendMessageRequest{Receiver: "g", ReceiverType: "group", Data: map[string]any{"text": "<@uid:cat> <@uid:ann>"}})
	f.last(t)
	wantCat := client.EntityUser{UID: "cat", Name: "Cat", Avatar: "https://a.example/cat.png", Role: "default", Status: "available", CreatedAt: 5, LastActiveAt: 9}
	wantAnn := client.EntityUser{UID: "ann", Name: "Ann", Role: "default", Status: "offline", CreatedAt: 5}
	if err != nil || m.Sender != "helper" || !m.MentionedMe || !reflect.DeepEqual(m.MentionedUsers, []client.EntityUser{wantCat, wantAnn}) ||
		!reflect.DeepEqual(m.Data.Mentions, map[string]client.EntityUser{"cat": wantCat, "ann": wantAnn}) {
		t.Errorf("SendBotMessage = %+v, %v", m, err)
	}

	// The count is the one entry's; none is 0; several, or no list, are errors.
	f.respond(http.StatusOK, `{"data":[{"entityId":"bob","entityType":"user","count":8}]}`)
	n, err := c.UnreadCount(ctx, client.ReceiverUser, "Bob", client.MessageListParams{})
	f.last(t)
	if err != nil || n != 8 {
		t.Errorf("UnreadCount = %d, %v", n, err)
	}
	f.respond(http.StatusOK, `{"data":[]}`)
	if n, err := c.UnreadCount(ctx, client.ReceiverGroup, "g", client.MessageListParams{}); err != nil || n != 0 {
		t.Errorf("UnreadCount of nothing unread = %d, %v", n, err)
	}
	f.last(t)
	for _, body := range []string{`{"data":{"bob":8}}`, `{"data":[{"entityId":"a","count":1},{"entityId":"b","count":2}]}`, `{"data":null}`} {
		f.respond(http.StatusOK, body)
		if n, err := c.UnreadCount(ctx, client.ReceiverGroup, "g", client.MessageListParams{}); err == nil {
			t.Errorf("%s: UnreadCount = %d, want an error", body, n)
		}
		f.last(t)
	}
	f.respond(http.StatusOK, `{"data":[{"entityId":"bob","entityType":"user","count":2},{"entityId":"g","entityType":"group","count":5}]}`)
	counts, err := c.UnreadCounts(ctx, "", false)
	f.last(t)
	if want := []client.UnreadCount{{EntityID: "bob", EntityType: "user", Count: 2}, {EntityID: "g", EntityType: "group", Count: 5}}; err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("UnreadCounts = %+v, %v", counts, err)
	}

	// An error answer is an *Error.
	f.respond(http.StatusForbidden, `{"error":{"message":"m","devMessage":"d","source":"chat-api","code":"ERR_CONVERSATION_NOT_ACCESSIBLE"}}`)
	_, err = c.ListGroupMessages(ctx, "g", client.MessageListParams{})
	f.last(t)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Code != "ERR_CONVERSATION_NOT_ACCESSIBLE" {
		t.Errorf("err = %v", err)
	}
}

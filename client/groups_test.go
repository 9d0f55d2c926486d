package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// TestGroupEndpoints calls every group, member and ban method once and checks the request
// the server saw, as TestEndpoints does for the others; together they cover every route of
// httpapi under /groups.
func TestGroupEndpoints(t *testing.T) {
	ctx := context.Background()
	tests := []endpointCase{
		{"CreateGroup", "", func(c *client.Client) error {
			_, err := c.CreateGroup(ctx, client.CreateGroupRequest{GUID: "g1", Name: "G <1>", Type: client.GroupPassword, Password: "pw",
				Icon: "https://x/i.png", Description: "d", Metadata: map[string]any{"a": 1.0}, Owner: "u1", Tags: []string{"t"},
				Members: &client.MemberLists{Admins: []string{"u2"}, Participants: []string{}, UsersToBan: []string{"u3"}}})
			return err
		}, "POST /groups", "/v3/groups", "", nil,
			`{"guid":"g1","name":"G <1>","type":"password","password":"pw","icon":"https://x/i.png","description":"d","metadata":{"a":1},
			"owner":"u1","tags":["t"],"members":{"admins":["u2"],"participants":[],"usersToBan":["u3"]}}`},
		{"CreateGroup required fields always sent", "", func(c *client.Client) error {
			_, err := c.CreateGroup(ctx, client.CreateGroupRequest{})
			return err
		}, "POST /groups", "/v3/groups", "", nil, `{"guid":"","name":"","type":""}`},
		{"ListGroups zero", "", func(c *client.Client) error {
			_, err := c.ListGroups(ctx, client.ListGroupsParams{})
			return err
		}, "GET /groups", "/v3/groups", "", nil, ""},
		{"ListGroups all", "u1", func(c *client.Client) error {
			_, err := c.ListGroups(ctx, client.ListGroupsParams{SearchKey: "a b", SearchIn: []string{"guid", "name"}, SortBy: "createdAt",
				SortOrder: "desc", Types: []string{"public", "password"}, Tags: []string{"x", "y"}, WithTags: true, HasJoined: true,
				PerPage: 10, Page: 2, Affix: "prepend"})
			return err
		}, "GET /groups", "/v3/groups",
			"affix=prepend&hasJoined=true&page=2&perPage=10&searchIn=guid%2Cname&searchKey=a+b&sortBy=createdAt&sortOrder=desc&tags=x%2Cy&types=public%2Cpassword&updatedAt=0&withTags=true",
			nil, ""},
		{"ListGroups newer filters", "", func(c *client.Client) error {
			_, err := c.ListGroups(ctx, client.ListGroupsParams{GUID: "g1", GUIDs: []string{"g1", "g2"}, CreatedAt: client.Between(1, 2),
				UpdatedAtRange: client.Since(3), MembersCount: client.CountFilter{GTE: ptr(int64(2)), LTE: ptr(int64(10)), EQ: ptr(int64(5))}})
			return err
		}, "GET /groups", "/v3/groups",
			"createdAt%5Bfrom%5D=1&createdAt%5Bto%5D=2&guid=g1&guids=g1%2Cg2&membersCount%5Beq%5D=5&membersCount%5Bgte%5D=2&membersCount%5Blte%5D=10&updatedAt%5Bfrom%5D=3",
			nil, ""},
		{"ListGroups at least", "", func(c *client.Client) error {
			_, err := c.ListGroups(ctx, client.ListGroupsParams{MembersCount: client.AtLeast(0)})
			return err
		}, "GET /groups", "/v3/groups", "membersCount%5Bgte%5D=0", nil, ""},
		{"GetGroup", "", func(c *client.Client) error {
			_, err := c.GetGroup(ctx, "a/b c")
			return err
		}, "GET /groups/{guid}", "/v3/groups/a%2Fb%20c", "", nil, ""},
		{"UpdateGroup", "", func(c *client.Client) error {
			_, err := c.UpdateGroup(ctx, "g1", client.UpdateGroupRequest{Name: ptr("N"), Type: ptr("public"), Owner: ptr("u2"),
				Tags: &[]string{}, Unset: []string{"icon"}})
			return err
		}, "PUT /groups/{guid}", "/v3/groups/g1", "", nil, `{"name":"N","type":"public","owner":"u2","tags":[],"unset":["icon"]}`},
		{"DeleteGroup", "", func(c *client.Client) error {
			_, err := c.DeleteGroup(ctx, "g1")
			return err
		}, "DELETE /groups/{guid}", "/v3/groups/g1", "", nil, ""},
		{"TransferGroup", "u1", func(c *client.Client) error {
			_, err := c.TransferGroup(ctx, "g1", "u2")
			return err
		}, "PATCH /groups/{guid}/owner", "/v3/groups/g1/owner", "", nil, `{"owner":"u2"}`},

		{"AddMembers", "", func(c *client.Client) error {
			_, err := c.AddMembers(ctx, "g1", client.MemberLists{Moderators: []string{"u2"}, UsersToBan: []string{"u3", "u4"}})
			return err
		}, "POST /groups/{guid}/members", "/v3/groups/g1/members", "", nil, `{"moderators":["u2"],"usersToBan":["u3","u4"]}`},
		{"PutMembers", "u1", func(c *client.Client) error {
			_, err := c.PutMembers(ctx, "g1", client.MemberLists{Participants: []string{"u2"}})
			return err
		}, "PUT /groups/{guid}/members", "/v3/groups/g1/members", "", nil, `{"participants":["u2"]}`},
		{"JoinGroup", "u1", func(c *client.Client) error {
			_, err := c.JoinGroup(ctx, "g1", "")
			return err
		}, "POST /groups/{guid}/members", "/v3/groups/g1/members", "", nil, ""},
		{"JoinGroup password", "u1", func(c *client.Client) error {
			_, err := c.JoinGroup(ctx, "g1", "pw")
			return err
		}, "POST /groups/{guid}/members", "/v3/groups/g1/members", "", nil, `{"password":"pw"}`},
		{"LeaveGroup", "u1", func(c *client.Client) error {
			_, err := c.LeaveGroup(ctx, "g1")
			return err
		}, "DELETE /groups/{guid}/members", "/v3/groups/g1/members", "", nil, ""},
		{"ListMembers", "", func(c *client.Client) error {
			_, err := c.ListMembers(ctx, "g1", client.ListMembersParams{Scopes: []string{"admin", "moderator"}, Status: "available", PerPage: 5, Page: 3})
			return err
		}, "GET /groups/{guid}/members", "/v3/groups/g1/members", "page=3&perPage=5&scopes=admin%2Cmoderator&status=available", nil, ""},
		{"ListThreads in a group", "", func(c *client.Client) error {
			_, err := c.ListThreads(ctx, client.ThreadListParams{GUID: "g1", Limit: 30, Affix: "prepend", UpdatedAt: 1700000000, ID: "42"})
			return err
		}, "GET /groups/{guid}/threads", "/v3/groups/g1/threads", "affix=prepend&id=42&limit=30&updatedAt=1700000000", nil, ""},
		{"ListMembers zero", "", func(c *client.Client) error {
			_, err := c.ListMembers(ctx, "g1", client.ListMembersParams{})
			return err
		}, "GET /groups/{guid}/members", "/v3/groups/g1/members", "", nil, ""},
		{"ChangeMemberScope", "", func(c *client.Client) error {
			_, err := c.ChangeMemberScope(ctx, "g1", "u/2", client.ScopeModerator)
			return err
		}, "PUT /groups/{guid}/members/{uid}", "/v3/groups/g1/members/u%2F2", "", map[string]string{"uid": "u/2"}, `{"scope":"moderator"}`},
		{"KickMember", "", func(c *client.Client) error {
			_, err := c.KickMember(ctx, "g1", "u2")
			return err
		}, "DELETE /groups/{guid}/members/{uid}", "/v3/groups/g1/members/u2", "", map[string]string{"uid": "u2"}, ""},
		{"BanUser", "", func(c *client.Client) error {
			_, err := c.BanUser(ctx, "g1", "u2")
			return err
		}, "POST /groups/{guid}/bannedusers/{uid}", "/v3/groups/g1/bannedusers/u2", "", map[string]string{"uid": "u2"}, ""},
		{"UnbanUser", "", func(c *client.Client) error {
			_, err := c.UnbanUser(ctx, "g1", "u2")
			return err
		}, "DELETE /groups/{guid}/bannedusers/{uid}", "/v3/groups/g1/bannedusers/u2", "", map[string]string{"uid": "u2"}, ""},
		{"ListBannedUsers", "", func(c *client.Client) error {
			_, err := c.ListBannedUsers(ctx, "g1", client.ListBannedUsersParams{PerPage: 7, Page: 1})
			return err
		}, "GET /groups/{guid}/bannedusers", "/v3/groups/g1/bannedusers", "page=1&perPage=7", nil, ""},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	for _, rt := range httpapi.Routes() {
		if _, path, _ := strings.Cut(rt, " "); strings.HasPrefix(path, "/groups") && !covered[rt] && !historyRoutes[rt] {
			t.Errorf("no client call tested for %s", rt)
		}
	}
}

// TestAddMembersNoList: an add that names no list would be a join on a user's behalf, so
// the client refuses it without a request.
func TestAddMembersNoList(t *testing.T) {
	f := newFake(t)
	if _, err := f.client().OnBehalfOf("u1").AddMembers(context.Background(), "g1", client.MemberLists{}); err == nil {
		t.Fatal("AddMembers with no list: no error")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 0 {
		t.Errorf("server saw %d requests, want none", len(f.got))
	}
}

func TestGroupDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()

	const groupFor = `{"entity":{"guid":"g1","icon":"https://x/i.png","name":"G","tags":["t"],"type":"public","owner":"olga",
		"createdAt":5,"updatedAt":6,"description":"d","membersCount":2,"conversationId":"group_g1"},"entityType":"group"}`
	const added = `{"id":"1","conversationId":"group_g1","sender":"olga","receiverType":"group","receiver":"g1","category":"action",
		"type":"groupMember","data":{"action":"added","entities":{
		"by":{"entity":{"uid":"olga","name":"Olga","role":"default","status":"offline","createdAt":5},"entityType":"user"},
		"on":{"entity":{"uid":"ann","name":"Ann","role":"default","status":"available","createdAt":5},"entityType":"user"},
		"for":` + groupFor + `}},"sentAt":6,"updatedAt":6}`
	f.respond(http.StatusOK, `{"data":{"guid":"g1","name":"G","description":"d","icon":"https://x/i.png","type":"public","metadata":{"k":"v"},
		"scope":"admin","membersCount":2,"joinedAt":5,"conversationId":"group_g1","hasJoined":true,"createdAt":5,"owner":"olga",
		"tags":["t"],"members":{"usersToBan":{"bob":{"success":true}},"admins":{"ann":{"success":true,"data":`+added+`}},
		"participants":{"ghost":{"success":false,"error":{"message":"m","devMessage":"d","source":"chat-api","code":"ERR_UID_NOT_FOUND"}}}}}}`)
	g, err := c.OnBehalfOf("olga").CreateGroup(ctx, client.CreateGroupRequest{GUID: "g1"})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if g.GUID != "g1" || g.Scope != "admin" || !g.HasJoined || g.JoinedAt != 5 || g.MembersCount != 2 || g.ConversationID != "group_g1" ||
		g.Owner != "olga" || !reflect.DeepEqual(g.Metadata, map[string]any{"k": "v"}) || !reflect.DeepEqual(g.Tags, []string{"t"}) {
		t.Errorf("group = %+v", g)
	}
	if g.Members == nil || len(g.Members.UsersToBan) != 1 || !g.Members.UsersToBan["bob"].Success || g.Members.UsersToBan["bob"].Data != nil ||
		g.Members.Moderators != nil {
		t.Fatalf("members = %+v", g.Members)
	}
	refused := g.Members.Participants["ghost"]
	if refused.Success || refused.Error == nil || refused.Error.Code != "ERR_UID_NOT_FOUND" || refused.Error.DevMessage != "d" {
		t.Errorf("refused = %+v", refused)
	}
	ok := g.Members.Admins["ann"]
	if !ok.Success || ok.Data == nil || ok.Data.ID != "1" || ok.Data.ReceiverType != "group" {
		t.Fatalf("added = %+v", ok)
	}
	a, err := ok.Data.GroupMemberAction()
	if err != nil {
		t.Fatal(err)
	}
	wantFor := client.GroupEntity{EntityType: "group", Entity: client.EntityGroup{GUID: "g1", Icon: "https://x/i.png", Name: "G",
		Tags: []string{"t"}, Type: "public", Owner: "olga", CreatedAt: 5, UpdatedAt: 6, Description: "d", MembersCount: 2,
		ConversationID: "group_g1"}}
	if a.Action != "added" || a.Extras != nil || a.Entities.By.Entity.UID != "olga" || a.Entities.On.Entity.UID != "ann" ||
		a.Entities.On.EntityType != "user" || !reflect.DeepEqual(a.Entities.For, wantFor) {
		t.Errorf("action = %+v", a)
	}

	// A scopeChanged action carries the scopes; a message of another kind is refused.
	f.respond(http.StatusOK, `{"data":{"id":"9","conversationId":"group_g1","sender":"olga","receiverType":"group","receiver":"g1",
		"category":"action","type":"groupMember","data":{"action":"scopeChanged","extras":{"scope":{"new":"admin","old":"participant"}},
		"entities":{"by":{"entity":{"uid":"olga","name":"Olga","role":"default","status":"offline"},"entityType":"user"},
		"on":{"entity":{"uid":"ann","name":"Ann","role":"default","status":"offline"},"entityType":"user"},"for":`+groupFor+`}},
		"sentAt":7,"updatedAt":7}}`)
	m, err := c.GetMessage(ctx, "9")
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := m.GroupMemberAction(); err != nil || a.Extras == nil || a.Extras.Scope.New != "admin" || a.Extras.Scope.Old != "participant" {
		t.Errorf("scopeChanged = %+v, %v", a, err)
	}
	if _, err := (&client.Message{ID: "3", Category: "message", Type: "text"}).GroupMemberAction(); err == nil {
		t.Error("a text message decoded as a groupMember action")
	}

	f.respond(http.StatusOK, `{"data":[{"guid":"g1","name":"G","type":"private","membersCount":0,"conversationId":"group_g1","createdAt":5,
		"updatedAt":9,"updatedBy":"app_system"}],"meta":{"pagination":{"total":3,"count":1,"per_page":1,"current_page":1,"total_pages":3},
		"cursor":{"updatedAt":9,"affix":"append"}}}`)
	gl, err := c.ListGroups(ctx, client.ListGroupsParams{})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	wantGL := &client.GroupList{
		Groups: []client.Group{{GUID: "g1", Name: "G", Type: "private", ConversationID: "group_g1", CreatedAt: 5, UpdatedAt: 9,
			UpdatedBy: "app_system"}},
		Pagination: client.Pagination{Total: 3, Count: 1, PerPage: 1, CurrentPage: 1, TotalPages: 3},
		Cursor:     client.GroupCursor{UpdatedAt: 9, Affix: "append"},
	}
	if !reflect.DeepEqual(gl, wantGL) {
		t.Errorf("ListGroups = %+v, want %+v", gl, wantGL)
	}

	f.respond(http.StatusOK, `{"data":[{"uid":"ann","name":"Ann","status":"available","role":"default","createdAt":5,
		"conversationId":"ann_user_olga","scope":"moderator","joinedAt":6}],
		"meta":{"pagination":{"total":1,"count":1,"per_page":100,"current_page":1,"total_pages":1}}}`)
	ml, err := c.ListMembers(ctx, "g1", client.ListMembersParams{})
	f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	wantML := &client.MemberList{
		Members: []client.GroupMember{{User: client.User{UID: "ann", Name: "Ann", Status: "available", Role: "default", CreatedAt: 5,
			ConversationID: "ann_user_olga"}, Scope: "moderator", JoinedAt: 6}},
		Pagination: client.Pagination{Total: 1, Count: 1, PerPage: 100, CurrentPage: 1, TotalPages: 1},
	}
	if !reflect.DeepEqual(ml, wantML) {
		t.Errorf("ListMembers = %+v, want %+v", ml, wantML)
	}

	f.respond(http.StatusOK, `{"data":[{"uid":"bob","name":"Bob","status":"offline","role":"default","createdAt":5}],
		"meta":{"pagination":{"total":1,"count":1,"per_page":100,"current_page":1,"total_pages":1}}}`)
	bl, err := c.ListBannedUsers(ctx, "g1", client.ListBannedUsersParams{})
	f.last(t)
	if err != nil || len(bl.Users) != 1 || bl.Users[0].UID != "bob" || bl.Pagination.Total != 1 {
		t.Errorf("ListBannedUsers = %+v, %v", bl, err)
	}

	f.respond(http.StatusOK, `{"data":{"guid":"g1","uid":"ann","scope":"admin","joinedAt":6}}`)
	sc, err := c.ChangeMemberScope(ctx, "g1", "ann", client.ScopeAdmin)
	f.last(t)
	if err != nil || *sc != (client.ScopeChange{GUID: "g1", UID: "ann", Scope: "admin", JoinedAt: 6}) {
		t.Errorf("ChangeMemberScope = %+v, %v", sc, err)
	}

	f.respond(http.StatusOK, `{"data":{"success":true,"message":"The user olga has left the group g1."}}`)
	ack, err := c.OnBehalfOf("olga").LeaveGroup(ctx, "g1")
	f.last(t)
	if err != nil || !ack.Success || ack.Message != "The user olga has left the group g1." {
		t.Errorf("LeaveGroup = %+v, %v", ack, err)
	}

	f.respond(http.StatusConflict, `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_ALREADY_JOINED"}}`)
	_, err = c.OnBehalfOf("olga").JoinGroup(ctx, "g1", "")
	f.last(t)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || e.Code != "ERR_ALREADY_JOINED" {
		t.Errorf("JoinGroup err = %v", err)
	}
}

package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/natter-chat/natter/client"
)

// blockRoutes are the blocked-users routes, which TestBlockEndpoints covers.
var blockRoutes = map[string]bool{
	"POST /users/{uid}/blockedusers":   true,
	"GET /users/{uid}/blockedusers":    true,
	"DELETE /users/{uid}/blockedusers": true,
	"POST /blockedusers":               true,
	"GET /blockedusers":                true,
	"DELETE /blockedusers":             true,
}

// TestBlockEndpoints calls every blocked-users method and checks the request the server
// saw, as TestEndpoints does for the others; together they cover blockRoutes.
func TestBlockEndpoints(t *testing.T) {
	ctx := context.Background()
	tests := []endpointCase{
		{"BlockUsers", "", func(c *client.Client) error {
			_, err := c.BlockUsers(ctx, "a/b c", []string{"u2", "U3"})
			return err
		}, "POST /users/{uid}/blockedusers", "/v3/users/a%2Fb%20c/blockedusers", "", map[string]string{"uid": "a/b c"}, `{"blockedUids":["u2","U3"]}`},
		{"UnblockUsers", "", func(c *client.Client) error {
			_, err := c.UnblockUsers(ctx, "u1", []string{"u2"})
			return err
		}, "DELETE /users/{uid}/blockedusers", "/v3/users/u1/blockedusers", "", map[string]string{"uid": "u1"}, `{"blockedUids":["u2"]}`},
		{"BlockUsers as the acting user", "", func(c *client.Client) error {
			_, err := c.OnBehalfOf("u1").BlockUsers(ctx, "", []string{"u2"})
			return err
		}, "POST /blockedusers", "/v3/blockedusers", "", nil, `{"blockedUids":["u2"]}`},
		{"UnblockUsers as the acting user", "", func(c *client.Client) error {
			_, err := c.OnBehalfOf("u1").UnblockUsers(ctx, "", []string{"u2"})
			return err
		}, "DELETE /blockedusers", "/v3/blockedusers", "", nil, `{"blockedUids":["u2"]}`},
		{"ListBlockedUsers as the acting user", "", func(c *client.Client) error {
			_, err := c.OnBehalfOf("u1").ListBlockedUsers(ctx, "", client.ListBlockedUsersParams{PerPage: 5})
			return err
		}, "GET /blockedusers", "/v3/blockedusers", "perPage=5", nil, ""},
		{"ListBlockedUsers zero", "", func(c *client.Client) error {
			_, err := c.ListBlockedUsers(ctx, "u1", client.ListBlockedUsersParams{})
			return err
		}, "GET /users/{uid}/blockedusers", "/v3/users/u1/blockedusers", "", map[string]string{"uid": "u1"}, ""},
		{"ListBlockedUsers all", "", func(c *client.Client) error {
			_, err := c.ListBlockedUsers(ctx, "u1", client.ListBlockedUsersParams{Direction: client.BlockedBoth, SearchKey: "a b",
				SearchIn: []string{"uid", "name"}, WithTags: true, PerPage: 10, Page: 2})
			return err
		}, "GET /users/{uid}/blockedusers", "/v3/users/u1/blockedusers",
			"direction=both&page=2&perPage=10&searchIn=uid%2Cname&searchKey=a+b&withTags=true", map[string]string{"uid": "u1"}, ""},
	}
	f := newFake(t)
	// The acting user's routes name it by onBehalfOf; the others by the path.
	covered := checkEndpoints(t, f, tests, endpointChecks{obo: func(tt endpointCase) string {
		if strings.HasSuffix(tt.pattern, " /blockedusers") {
			return "u1"
		}
		return ""
	}})
	checkCovered(t, "blockRoutes", blockRoutes, covered)
}

func TestBlockDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()

	// Per uid, as the server answers: done, or refused with a code.
	f.respond(http.StatusOK, `{"data":{"bob":{"success":true,"message":"Blocked successfully."},
		"ann":{"success":false,"message":"A user cannot block itself.","code":"ERR_CANNOT_BLOCK_SELF"}}}`)
	res, err := c.BlockUsers(ctx, "ann", []string{"Bob", "ann"})
	f.last(t)
	want := map[string]client.BlockResult{
		"bob": {Success: true, Message: "Blocked successfully."},
		"ann": {Message: "A user cannot block itself.", Code: "ERR_CANNOT_BLOCK_SELF"},
	}
	if err != nil || !reflect.DeepEqual(res, want) {
		t.Errorf("BlockUsers = %+v, %v", res, err)
	}
	f.respond(http.StatusOK, `{"data":{"bob":{"success":true,"message":"Unblocked successfully."}}}`)
	res, err = c.UnblockUsers(ctx, "ann", []string{"bob"})
	f.last(t)
	if err != nil || !reflect.DeepEqual(res, map[string]client.BlockResult{"bob": {Success: true, Message: "Unblocked successfully."}}) {
		t.Errorf("UnblockUsers = %+v, %v", res, err)
	}

	// The list: users with the block fields, pagination and the cursor.
	f.respond(http.StatusOK, `{"data":[
		{"uid":"bob","name":"Bob","status":"offline","role":"default","createdAt":5,"blockedByMe":true,"blockedByMeAt":7,"hasBlockedMe":false},
		{"uid":"cat","name":"Cat","status":"offline","role":"default","createdAt":5,"blockedByMe":true,"blockedByMeAt":8,"hasBlockedMe":true,"blockedAt":9}],
		"meta":{"pagination":{"total":2,"count":2,"per_page":100,"current_page":1,"total_pages":1},"cursor":{"updatedAt":5,"affix":"append"}},
		"cursor":{"updatedAt":5,"affix":"append"}}`)
	l, err := c.ListBlockedUsers(ctx, "ann", client.ListBlockedUsersParams{Direction: client.BlockedByMe})
	got := f.last(t)
	if err != nil {
		t.Fatal(err)
	}
	if got.Query != "direction=blockedByMe" {
		t.Errorf("query = %s", got.Query)
	}
	wantUsers := []client.User{
		{UID: "bob", Name: "Bob", Status: "offline", Role: "default", CreatedAt: 5, BlockedByMe: true, BlockedByMeAt: 7},
		{UID: "cat", Name: "Cat", Status: "offline", Role: "default", CreatedAt: 5, BlockedByMe: true, BlockedByMeAt: 8, HasBlockedMe: true, BlockedAt: 9},
	}
	if !reflect.DeepEqual(l.Users, wantUsers) || l.Pagination.Total != 2 || l.Cursor != (client.UserCursor{UpdatedAt: 5, Affix: "append"}) {
		t.Errorf("ListBlockedUsers = %+v", l)
	}

	// A user read on another's behalf carries the blocks between the two.
	f.respond(http.StatusOK, `{"data":{"uid":"ann","name":"Ann","status":"offline","role":"default","createdAt":5,
		"blockedByMe":false,"hasBlockedMe":true,"blockedAt":7}}`)
	u, err := c.OnBehalfOf("bob").GetUser(ctx, "ann")
	got = f.last(t)
	if err != nil || u.BlockedByMe || u.BlockedByMeAt != 0 || !u.HasBlockedMe || u.BlockedAt != 7 || got.Header.Get("onBehalfOf") != "bob" {
		t.Errorf("GetUser = %+v, %v (onBehalfOf %q)", u, err, got.Header.Get("onBehalfOf"))
	}

	// A refused send is an *Error with the block's code.
	f.respond(http.StatusForbidden, `{"error":{"message":"m","devMessage":"m","source":"chat-api","code":"ERR_BLOCKED_SENDER"}}`)
	_, err = c.OnBehalfOf("bob").SendMessage(ctx, client.SendMessageRequest{Receiver: "ann", ReceiverType: client.ReceiverUser, Data: map[string]any{"text": "x"}})
	f.last(t)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Code != "ERR_BLOCKED_SENDER" {
		t.Errorf("err = %v", err)
	}
}

package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/natter-chat/natter/client"
)

// roleRoutes are the roles, RBAC and restricted-features routes, which TestRoleEndpoints
// covers.
var roleRoutes = map[string]bool{
	"POST /roles":                                                   true,
	"GET /roles":                                                    true,
	"GET /roles/{role}":                                             true,
	"PUT /roles/{role}":                                             true,
	"DELETE /roles/{role}":                                          true,
	"POST /roles/{role}/restrictedfeatures":                         true,
	"GET /roles/{role}/restrictedfeatures":                          true,
	"DELETE /roles/{role}/restrictedfeatures":                       true,
	"GET /roles/{role}/permissions":                                 true,
	"PUT /roles/{role}/permissions":                                 true,
	"DELETE /roles/{role}/permissions/{permission}":                 true,
	"GET /groups/{guid}/scopes/{scope}/permissions":                 true,
	"PUT /groups/{guid}/scopes/{scope}/permissions":                 true,
	"DELETE /groups/{guid}/scopes/{scope}/permissions/{permission}": true,
}

// TestRoleEndpoints calls every role, permission and restricted-feature method and checks
// the request the server saw, as TestEndpoints does for the others.
func TestRoleEndpoints(t *testing.T) {
	ctx := context.Background()
	scope := client.ScopePermissions{GUID: "g 1", Scope: "participant"}
	tests := []endpointCase{
		{"CreateRole", "", func(c *client.Client) error {
			_, err := c.CreateRole(ctx, client.CreateRoleRequest{Role: "Manager", Name: "M", Description: "d", Metadata: map[string]any{"k": 1},
				Settings: &client.RoleSettings{SendMessagesTo: client.SettingFriendsOnly}})
			return err
		}, "POST /roles", "/v3/roles", "", nil,
			`{"role":"Manager","name":"M","description":"d","metadata":{"k":1},"settings":{"sendMessagesTo":"friendsOnly"}}`},
		{"ListRoles zero", "", func(c *client.Client) error {
			_, err := c.ListRoles(ctx, 0, 0)
			return err
		}, "GET /roles", "/v3/roles", "", nil, ""},
		{"ListRoles page", "", func(c *client.Client) error {
			_, err := c.ListRoles(ctx, 10, 2)
			return err
		}, "GET /roles", "/v3/roles", "page=2&perPage=10", nil, ""},
		{"GetRole", "", func(c *client.Client) error {
			_, err := c.GetRole(ctx, "a/b")
			return err
		}, "GET /roles/{role}", "/v3/roles/a%2Fb", "", map[string]string{"role": "a/b"}, ""},
		{"UpdateRole", "", func(c *client.Client) error {
			name := "N"
			_, err := c.UpdateRole(ctx, "m", client.UpdateRoleRequest{Name: &name, Unset: []string{"settings"}})
			return err
		}, "PUT /roles/{role}", "/v3/roles/m", "", map[string]string{"role": "m"}, `{"name":"N","unset":["settings"]}`},
		{"DeleteRole", "", func(c *client.Client) error {
			_, err := c.DeleteRole(ctx, "m")
			return err
		}, "DELETE /roles/{role}", "/v3/roles/m", "", map[string]string{"role": "m"}, ""},
		{"RestrictFeatures", "", func(c *client.Client) error {
			_, err := c.RestrictFeatures(ctx, "m", []string{"u.listUsers", "createGroup"})
			return err
		}, "POST /roles/{role}/restrictedfeatures", "/v3/roles/m/restrictedfeatures", "", map[string]string{"role": "m"},
			`{"featuresToRestrict":["u.listUsers","createGroup"]}`},
		{"ListRestrictedFeatures", "", func(c *client.Client) error {
			_, err := c.ListRestrictedFeatures(ctx, "m", 5, 0)
			return err
		}, "GET /roles/{role}/restrictedfeatures", "/v3/roles/m/restrictedfeatures", "perPage=5", map[string]string{"role": "m"}, ""},
		{"AllowFeatures some", "", func(c *client.Client) error {
			_, err := c.AllowFeatures(ctx, "m", []string{"u.listUsers"}, false)
			return err
		}, "DELETE /roles/{role}/restrictedfeatures", "/v3/roles/m/restrictedfeatures", "", map[string]string{"role": "m"},
			`{"featuresToAllow":["u.listUsers"]}`},
		{"AllowFeatures all", "", func(c *client.Client) error {
			_, err := c.AllowFeatures(ctx, "m", nil, true)
			return err
		}, "DELETE /roles/{role}/restrictedfeatures", "/v3/roles/m/restrictedfeatures", "", map[string]string{"role": "m"}, `{"allowAll":true}`},
		{"ListRolePermissions", "", func(c *client.Client) error {
			_, err := c.ListRolePermissions(ctx, "m", 0, 2)
			return err
		}, "GET /roles/{role}/permissions", "/v3/roles/m/permissions", "page=2", map[string]string{"role": "m"}, ""},
		{"SetRolePermissions", "", func(c *client.Client) error {
			_, err := c.SetRolePermissions(ctx, "m", map[string]any{"sendMessage": "deny", "createGroup.allowedGroupTypes": []string{"public"}})
			return err
		}, "PUT /roles/{role}/permissions", "/v3/roles/m/permissions", "", map[string]string{"role": "m"},
			`{"permissions":{"sendMessage":"deny","createGroup.allowedGroupTypes":["public"]}}`},
		{"UnsetRolePermission", "", func(c *client.Client) error {
			_, err := c.UnsetRolePermission(ctx, "m", "listUsers.mode")
			return err
		}, "DELETE /roles/{role}/permissions/{permission}", "/v3/roles/m/permissions/listUsers.mode", "",
			map[string]string{"role": "m", "permission": "listUsers.mode"}, ""},
		{"ListScopePermissions", "", func(c *client.Client) error {
			_, err := c.ListScopePermissions(ctx, scope, 0, 0)
			return err
		}, "GET /groups/{guid}/scopes/{scope}/permissions", "/v3/groups/g%201/scopes/participant/permissions", "",
			map[string]string{"scope": "participant"}, ""},
		{"SetScopePermissions", "", func(c *client.Client) error {
			_, err := c.SetScopePermissions(ctx, scope, map[string]any{"addReaction": "deny"})
			return err
		}, "PUT /groups/{guid}/scopes/{scope}/permissions", "/v3/groups/g%201/scopes/participant/permissions", "",
			map[string]string{"scope": "participant"}, `{"permissions":{"addReaction":"deny"}}`},
		{"UnsetScopePermission", "", func(c *client.Client) error {
			_, err := c.UnsetScopePermission(ctx, scope, "addReaction")
			return err
		}, "DELETE /groups/{guid}/scopes/{scope}/permissions/{permission}", "/v3/groups/g%201/scopes/participant/permissions/addReaction", "",
			map[string]string{"scope": "participant", "permission": "addReaction"}, ""},
	}
	f := newFake(t)
	covered := checkEndpoints(t, f, tests, endpointChecks{})
	checkCovered(t, "roleRoutes", roleRoutes, covered)
}

func TestRoleDecode(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := f.client()

	f.respond(http.StatusOK, `{"data":{"role":"manager","name":"Manager","metadata":{"k":"v"},
		"settings":{"listUsers":"all","sendMessagesTo":"friendsOnly"},"createdAt":5,"updatedAt":6}}`)
	r, err := c.GetRole(ctx, "manager")
	f.last(t)
	want := &client.Role{Role: "manager", Name: "Manager", Metadata: map[string]any{"k": "v"},
		Settings: &client.RoleSettings{ListUsers: "all", SendMessagesTo: "friendsOnly"}, CreatedAt: 5, UpdatedAt: 6}
	if err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("GetRole = %+v, %v", r, err)
	}

	f.respond(http.StatusOK, `{"data":[{"role":"default","name":"Default Role","createdAt":1}],
		"meta":{"pagination":{"total":1,"count":1,"per_page":100,"current_page":1,"total_pages":1}}}`)
	l, err := c.ListRoles(ctx, 0, 0)
	f.last(t)
	if err != nil || len(l.Roles) != 1 || l.Roles[0].Role != "default" || l.Pagination.Total != 1 {
		t.Errorf("ListRoles = %+v, %v", l, err)
	}

	// Setting permissions answers each key set beside every value.
	f.respond(http.StatusOK, `{"data":{"sendMessage":{"success":true,"message":"m"},
		"permissions":{"sendMessage":"deny","listUsers.allowedRoles":["a"]}}}`)
	set, err := c.SetRolePermissions(ctx, "manager", map[string]any{"sendMessage": "deny"})
	f.last(t)
	if err != nil || !reflect.DeepEqual(set.Set, map[string]client.Ack{"sendMessage": {Success: true, Message: "m"}}) ||
		set.Permissions["sendMessage"] != "deny" || !reflect.DeepEqual(set.Permissions["listUsers.allowedRoles"], []any{"a"}) {
		t.Errorf("SetRolePermissions = %+v, %v", set, err)
	}

	f.respond(http.StatusOK, `{"data":{"permissions":{"sendMessage":"allow"}}}`)
	vals, err := c.UnsetRolePermission(ctx, "manager", "sendMessage")
	f.last(t)
	if err != nil || vals["sendMessage"] != "allow" {
		t.Errorf("UnsetRolePermission = %v, %v", vals, err)
	}

	f.respond(http.StatusOK, `{"data":[{"id":"addReaction","type":"scope","title":"t","description":"d","dataType":"string",
		"availableValues":["allow","deny"],"defaultValue":"allow","value":"deny","createdAt":1,"updatedAt":2}],
		"meta":{"pagination":{"total":11,"count":1,"per_page":1,"current_page":1,"total_pages":11}}}`)
	pl, err := c.ListScopePermissions(ctx, client.ScopePermissions{GUID: "g", Scope: "admin"}, 1, 0)
	f.last(t)
	if err != nil || len(pl.Permissions) != 1 || pl.Permissions[0].Value != "deny" || pl.Pagination.Total != 11 {
		t.Errorf("ListScopePermissions = %+v, %v", pl, err)
	}

	f.respond(http.StatusOK, `{"data":{"u.listUsers":{"success":true,"message":"The feature u.listUsers has been restricted successfully."}}}`)
	acks, err := c.RestrictFeatures(ctx, "manager", []string{"listUsers"})
	f.last(t)
	if err != nil || !acks["u.listUsers"].Success {
		t.Errorf("RestrictFeatures = %v, %v", acks, err)
	}

	// A refusal is an *Error naming the permission.
	f.respond(http.StatusForbidden, `{"error":{"message":"m","devMessage":"m","source":"chat-api","details":{"permission":["sendMessage"]},"code":"ERR_PERMISSION_DENIED"}}`)
	_, err = c.OnBehalfOf("bob").SendMessage(ctx, client.SendMessageRequest{Receiver: "ann", ReceiverType: client.ReceiverUser, Data: map[string]any{"text": "x"}})
	f.last(t)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Code != "ERR_PERMISSION_DENIED" || e.Details["permission"][0] != "sendMessage" {
		t.Errorf("err = %v", err)
	}
}

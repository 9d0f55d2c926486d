package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Permissions are the hosted service's RBAC: a role's permissions apply to what its users do
// anywhere (role permissions, /roles/{role}/permissions), a group scope's to what the
// group's members of that scope do in it (scope permissions,
// /groups/{guid}/scopes/{scope}/permissions). Each key has a default; what an app sets
// overrides it. permissionDefs is the one table of the keys natter knows, with their types,
// the values they take and their defaults; policy.go decides with it.

// PermissionType says where a permission is set.
type PermissionType string

const (
	RolePermission  PermissionType = "role"
	ScopePermission PermissionType = "scope"
)

// Data types of permission values, as the hosted service names them.
const (
	DataString      = "string"
	DataStringArray = "stringArray"
)

// Values of the string permissions.
const (
	Allow       = "allow"
	Deny        = "deny"
	ModeAll     = "all"
	ModeFriends = "friends"
)

// PermissionValue is a permission's value: Str for a string permission, List for a list
// (an empty list restricts nothing).
type PermissionValue struct {
	Str  string
	List []string
}

// listOf says what a list permission's items are when they are not from a fixed set.
type listOf int

const (
	fixedItems  listOf = iota // one of the definition's Values
	roleItems                 // role ids of the app
	customItems               // any short text: custom message types
	mimeItems                 // MIME types, "type/subtype" or "type/*"
)

// PermissionDef is one known permission.
type PermissionDef struct {
	Key         string
	Type        PermissionType
	Title       string
	Description string
	DataType    string
	// Values are the values it takes (each item's, for a list); empty when free-form.
	Values  []string
	Default PermissionValue
	// Enforced is false for the permissions of operations natter does not serve yet (none
	// since calls are served): they would be kept and listed, and apply once the operation
	// exists.
	Enforced bool
	items    listOf
}

var (
	allowDeny     = []string{Allow, Deny}
	modes         = []string{ModeAll, ModeFriends}
	receiverTypes = []string{ReceiverUser, ReceiverGroup}
	categories    = []string{CategoryMessage, CategoryCustom}
	messageTypes  = []string{"text", "image", "audio", "video", "file"}
	groupTypes    = []string{GroupPublic, GroupPassword, GroupPrivate}
	scopes        = []string{ScopeAdmin, ScopeModerator, ScopeParticipant}
)

func flag(key string, t PermissionType, title string) PermissionDef {
	return PermissionDef{Key: key, Type: t, Title: title, Description: title, DataType: DataString, Values: allowDeny,
		Default: PermissionValue{Str: Allow}, Enforced: true}
}

func mode(key, title string) PermissionDef {
	return PermissionDef{Key: key, Type: RolePermission, Title: title, Description: title, DataType: DataString, Values: modes,
		Default: PermissionValue{Str: ModeAll}, Enforced: true}
}

func list(key string, t PermissionType, title string, items listOf, values []string) PermissionDef {
	return PermissionDef{Key: key, Type: t, Title: title, Description: title, DataType: DataStringArray, Values: values,
		Default: PermissionValue{List: []string{}}, Enforced: true, items: items}
}

// permissionDefs are the role permissions (28) and the scope permissions (11), in the
// hosted service's order. A list's default, empty, restricts nothing.
var permissionDefs = []PermissionDef{
	flag("listUsers", RolePermission, "Allows/Denies listing users"),
	mode("listUsers.mode", "Lists all users, or only the user's friends"),
	list("listUsers.allowedRoles", RolePermission, "Lists only the users of the specified roles", roleItems, nil),
	mode("getUserDetails.mode", "Allows fetching the details of any user, or only of the user's friends"),
	list("getUserDetails.allowedRoles", RolePermission, "Allows fetching the details of the users of the specified roles", roleItems, nil),
	flag("sendMessage", RolePermission, "Allows/Denies sending messages"),
	mode("sendMessage.mode", "Allows sending one-to-one messages to any user, or only to the user's friends"),
	list("sendMessage.allowedReceiverTypes", RolePermission, "Allows sending messages to the specified receiver types", fixedItems, receiverTypes),
	list("sendMessage.allowedReceiverRoles", RolePermission, "Allows sending one-to-one messages to the users of the specified roles", roleItems, nil),
	list("sendMessage.allowedMessageTypes", RolePermission, "Allows sending messages of the specified types", fixedItems, messageTypes),
	list("sendMessage.allowedMessageCategories", RolePermission, "Allows sending messages of the specified categories", fixedItems, categories),
	list("sendMessage.allowedCustomTypes", RolePermission, "Allows sending custom messages of the specified types", customItems, nil),
	list("sendMessage.allowedMimeTypes", RolePermission, "Allows sending media messages whose attachments are of the specified MIME types", mimeItems, nil),
	flag("editMessage", RolePermission, "Allows/Denies editing messages"),
	list("editMessage.denyForScopes", RolePermission, "Denies editing messages in the groups where the user has one of the specified scopes", fixedItems, scopes),
	flag("deleteMessage", RolePermission, "Allows/Denies deleting messages"),
	list("deleteMessage.denyForScopes", RolePermission, "Denies deleting messages in the groups where the user has one of the specified scopes", fixedItems, scopes),
	flag("initiateCall", RolePermission, "Allows/Denies initiating calls"),
	mode("initiateCall.mode", "Allows calling any user, or only the user's friends"),
	list("initiateCall.allowedReceiverRoles", RolePermission, "Allows calling the users of the specified roles", roleItems, nil),
	flag("createGroup", RolePermission, "Allows/Denies creating groups"),
	list("createGroup.allowedGroupTypes", RolePermission, "Allows creating groups of the specified types", fixedItems, groupTypes),
	flag("listGroups", RolePermission, "Allows/Denies listing groups"),
	list("listGroups.allowedGroupTypes", RolePermission, "Lists only the groups of the specified types", fixedItems, groupTypes),
	flag("joinGroup", RolePermission, "Allows/Denies joining groups"),
	list("joinGroup.allowedGroupTypes", RolePermission, "Allows joining groups of the specified types", fixedItems, []string{GroupPublic, GroupPassword}),
	list("listMessages.allowedMessageCategories", RolePermission, "Lists only the messages of the specified categories", fixedItems, categories),
	list("listMessages.allowedMessageTypes", RolePermission, "Lists only the messages of the specified types", fixedItems, messageTypes),

	flag("sendMessage", ScopePermission, "Allows/Denies sending messages to the group"),
	flag("listMembers", ScopePermission, "Allows/Denies listing the group's members"),
	list("listMembers.allowedScopes", ScopePermission, "Lists only the members of the specified scopes", fixedItems, scopes),
	flag("addReaction", ScopePermission, "Allows/Denies adding and removing reactions on the group's messages"),
	flag("listReactions", ScopePermission, "Allows/Denies listing the reactions on the group's messages"),
	list("listReactions.allowedScopes", ScopePermission, "Lists only the reactions of the members of the specified scopes", fixedItems, scopes),
	flag("sendThreadedMessage", ScopePermission, "Allows/Denies replying in threads of the group's messages"),
	flag("initiateCall", ScopePermission, "Allows/Denies calling the group"),
	list("initiateCall.allowedScopes", ScopePermission, "Allows calling the members of the specified scopes", fixedItems, scopes),
	list("initiateCall.allowedType", ScopePermission, "Allows calls of the specified types", fixedItems, []string{"audio", "video"}),
	flag("editMessage", ScopePermission, "Allows/Denies editing messages in the group"),
}

// PermissionDefs returns the known permissions of a type, in the table's order.
func PermissionDefs(t PermissionType) []PermissionDef {
	var out []PermissionDef
	for _, d := range permissionDefs {
		if d.Type == t {
			out = append(out, d)
		}
	}
	return out
}

// permissionDef finds a known permission.
func permissionDef(t PermissionType, key string) (PermissionDef, bool) {
	for _, d := range permissionDefs {
		if d.Type == t && d.Key == key {
			return d, true
		}
	}
	return PermissionDef{}, false
}

// Limits of permission values.
const (
	maxListItems   = 100 // items of one list permission
	maxFreeItemLen = 100 // a custom type's or a MIME type's length
)

// parseValue checks a value sent for d and returns it normalised: a string from d.Values,
// or a list (null is the empty list; a lone string is a list of one, as the hosted
// service's own examples write scope lists) of distinct valid items. Whether the roles a
// list names exist is the caller's to check.
func (d PermissionDef) parseValue(raw json.RawMessage) (PermissionValue, string) {
	raw = bytes.TrimSpace(raw)
	if d.DataType == DataString {
		var s string
		if !isJSONKind(raw, '"') || json.Unmarshal(raw, &s) != nil {
			return PermissionValue{}, "The value of " + d.Key + " must be a string, one of " + strings.Join(d.Values, ", ") + "."
		}
		if !slices.Contains(d.Values, s) {
			return PermissionValue{}, "The value of " + d.Key + " must be one of " + strings.Join(d.Values, ", ") + "."
		}
		return PermissionValue{Str: s}, ""
	}
	var items []string
	switch {
	case string(raw) == "null":
		items = []string{}
	case isJSONKind(raw, '"'):
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return PermissionValue{}, "The value of " + d.Key + " must be an array of strings."
		}
		items = []string{s}
	case isJSONKind(raw, '['):
		if json.Unmarshal(raw, &items) != nil {
			return PermissionValue{}, "The value of " + d.Key + " must be an array of strings."
		}
	default:
		return PermissionValue{}, "The value of " + d.Key + " must be an array of strings."
	}
	if len(items) > maxListItems {
		return PermissionValue{}, "The value of " + d.Key + " may hold at most 100 items."
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		switch d.items {
		case fixedItems:
			if !slices.Contains(d.Values, it) {
				return PermissionValue{}, "The items of " + d.Key + " must be among " + strings.Join(d.Values, ", ") + "."
			}
		case roleItems:
			id, ok := NormalizeID(it)
			if !ok {
				return PermissionValue{}, "The items of " + d.Key + " must be role ids."
			}
			it = id
		case customItems, mimeItems:
			if it == "" || len(it) > maxFreeItemLen || !printable(it) {
				return PermissionValue{}, "The items of " + d.Key + " must be non-empty strings of at most 100 visible characters."
			}
			if d.items == mimeItems {
				it = strings.ToLower(it)
				if typ, sub, ok := strings.Cut(it, "/"); !ok || typ == "" || typ == "*" || sub == "" || strings.Contains(sub, "/") {
					return PermissionValue{}, "The items of " + d.Key + " must be MIME types, type/subtype or type/*."
				}
			}
		}
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return PermissionValue{List: out}, ""
}

// printable reports whether s is visible ASCII without spaces.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// JSON is the value as the API shows it: a string, or an array (never null).
func (v PermissionValue) JSON(d PermissionDef) any {
	if d.DataType == DataString {
		return v.Str
	}
	if v.List == nil {
		return []string{}
	}
	return v.List
}

// encode is the value as stored: JSON text.
func (v PermissionValue) encode(d PermissionDef) string {
	b, _ := json.Marshal(v.JSON(d))
	return string(b)
}

// decodePermissionValue reads a stored value of the permission t/key; ok is false for a key
// natter no longer knows, or a value that no longer fits it, which are then ignored.
func decodePermissionValue(t PermissionType, key, stored string) (PermissionValue, bool) {
	d, ok := permissionDef(t, key)
	if !ok {
		return PermissionValue{}, false
	}
	v, msg := d.parseValue(json.RawMessage(stored))
	return v, msg == ""
}

// PermissionTarget is where permissions are set: a role, or a scope of a group.
type PermissionTarget struct {
	Type  PermissionType
	Role  string // RolePermission
	GUID  string // ScopePermission
	Scope string // ScopePermission
}

// StoredPermission is a permission an app has set, its value as stored (JSON text).
type StoredPermission struct {
	Value     string
	UpdatedAt int64
}

// PermissionStore reads the permissions an app has set.
type PermissionStore interface {
	// Permissions returns the permissions set on t, by key.
	Permissions(ctx context.Context, appID string, t PermissionTarget) (map[string]StoredPermission, error)
}

// PermissionTx is what setting permissions needs inside its transaction (with RoleTx's
// LockRole or GroupTx's LockGroup).
type PermissionTx interface {
	// SetPermissions sets each key of values (stored JSON) on t.
	SetPermissions(appID string, t PermissionTarget, values map[string]string, at int64) error
	// UnsetPermission removes a key from t; removing one not set does nothing.
	UnsetPermission(appID string, t PermissionTarget, key string) error
	// Permissions returns the permissions set on t, by key.
	PermissionsOf(appID string, t PermissionTarget) (map[string]StoredPermission, error)
}

// PermissionSetting is a permission as a role or group scope has it: its definition, its
// value (the one set, else the default), and when it was set.
type PermissionSetting struct {
	PermissionDef
	Value     PermissionValue
	Set       bool
	CreatedAt int64
	UpdatedAt int64
}

// effective is every permission of t's type as t has it: set ones from stored, the others
// at their defaults; created is when t was (the role's or the group's creation).
func effective(t PermissionType, stored map[string]StoredPermission, created int64) []PermissionSetting {
	defs := PermissionDefs(t)
	out := make([]PermissionSetting, len(defs))
	for i, d := range defs {
		out[i] = PermissionSetting{PermissionDef: d, Value: d.Default, CreatedAt: created, UpdatedAt: created}
		if sp, ok := stored[d.Key]; ok {
			if v, ok := decodePermissionValue(t, d.Key, sp.Value); ok {
				out[i].Value, out[i].Set, out[i].UpdatedAt = v, true, sp.UpdatedAt
			}
		}
	}
	return out
}

// permissionsTarget resolves the target of a permissions call, and its creation time:
// a role that exists, or a valid scope of a group that exists; lock locks it in tx, and
// without tx it is read.
func (s *Service) permissionsTarget(ctx context.Context, tx Tx, p Principal, t PermissionTarget) (PermissionTarget, int64, error) {
	if t.Type == RolePermission {
		id, ok := NormalizeID(t.Role)
		if !ok {
			return t, 0, errRoleNotFound("")
		}
		t.Role = id
		var r Role
		var err error
		if tx != nil {
			r, err = tx.LockRole(p.App.ID, id)
		} else {
			r, err = s.cachedRole(ctx, p.App.ID, id)
		}
		switch {
		case errors.Is(err, ErrNotFound):
			return t, 0, errRoleNotFound(id)
		case err != nil:
			return t, 0, err
		}
		return t, r.CreatedAt, nil
	}
	if !validScope(t.Scope) {
		return t, 0, InvalidField("scope", "The scope must be one of admin, moderator, participant.")
	}
	id, ok := NormalizeID(t.GUID)
	if !ok {
		return t, 0, errGUIDNotFound("")
	}
	t.GUID = id
	var g Group
	var err error
	if tx != nil {
		g, err = lockGroup(tx, p.App.ID, id)
	} else {
		g, err = s.groupAs(ctx, p.App.ID, id, "")
	}
	return t, g.CreatedAt, err
}

// Permissions lists every permission of a role (t.Role) or a group scope (t.GUID,
// t.Scope) as it has it.
func (s Roles) Permissions(ctx context.Context, p Principal, t PermissionTarget) ([]PermissionSetting, error) {
	t, created, err := s.permissionsTarget(ctx, nil, p, t)
	if err != nil {
		return nil, s.groupErr("list permissions", err)
	}
	stored, err := s.store.Permissions(ctx, p.App.ID, t)
	if err != nil {
		return nil, internal("list permissions", err)
	}
	return effective(t.Type, stored, created), nil
}

// SetPermissions sets permissions of a role or a group scope, all or nothing: an unknown
// key or a value of the wrong type refuses the call, naming each. It returns the keys set
// and every permission as the target then has it.
func (s Roles) SetPermissions(ctx context.Context, p Principal, t PermissionTarget, values map[string]json.RawMessage) ([]string, []PermissionSetting, error) {
	if len(values) == 0 {
		return nil, nil, InvalidField("permissions", "The permissions field is required: an object of permission keys and their values.")
	}
	var keys []string
	var out []PermissionSetting
	var t2 PermissionTarget
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		keys, out = nil, nil
		var created int64
		var err error
		if t2, created, err = s.permissionsTarget(ctx, tx, p, t); err != nil {
			return err
		}
		cs.Add(permissionsChange(p.App.ID, t2))
		fe := fieldErrors{}
		stored := map[string]string{}
		named := map[string][]string{} // the roles each roles list names
		var roleIDs []string
		for key, raw := range values {
			d, ok := permissionDef(t.Type, key)
			if !ok {
				fe.add(detailField("permissions", key), "The permission "+brief(key)+" does not exist for a "+string(t.Type)+".")
				continue
			}
			v, msg := d.parseValue(raw)
			if msg != "" {
				fe.add("permissions."+key, msg)
				continue
			}
			stored[key] = v.encode(d)
			if d.items == roleItems {
				named[key] = v.List
				roleIDs = append(roleIDs, v.List...)
			}
		}
		existing, err := tx.ExistingRoles(p.App.ID, roleIDs)
		if err != nil {
			return err
		}
		for key, ids := range named {
			for _, id := range ids {
				if !slices.Contains(existing, id) {
					fe.add("permissions."+key, "The role "+id+" named in "+key+" does not exist.")
				}
			}
		}
		if err := fe.err(); err != nil {
			return err
		}
		if err := tx.SetPermissions(p.App.ID, t2, stored, s.now()); err != nil {
			return err
		}
		all, err := tx.PermissionsOf(p.App.ID, t2)
		if err != nil {
			return err
		}
		for _, d := range PermissionDefs(t.Type) { // the table's order
			if _, ok := stored[d.Key]; ok {
				keys = append(keys, d.Key)
			}
		}
		out = effective(t.Type, all, created)
		return nil
	})
	if err != nil {
		return nil, nil, s.groupErr("set permissions", err)
	}
	s.forgetPolicy(p.App.ID, t2.GUID)
	return keys, out, nil
}

// permissionsChange announces that the permissions of t (a role, or a group's scope)
// changed.
func permissionsChange(app string, t PermissionTarget) *Change {
	return &Change{Kind: ChangeSettings, App: app, Subject: SettingPermissions, GUID: t.GUID}
}

// UnsetPermission returns a permission of a role or a group scope to its default, and
// every permission as the target then has it. An unknown key is refused; one not set
// changes nothing.
func (s Roles) UnsetPermission(ctx context.Context, p Principal, t PermissionTarget, key string) ([]PermissionSetting, error) {
	if _, ok := permissionDef(t.Type, key); !ok {
		return nil, InvalidField("permission", "The permission "+brief(key)+" does not exist for a "+string(t.Type)+".")
	}
	var out []PermissionSetting
	var t2 PermissionTarget
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		var created int64
		var err error
		if t2, created, err = s.permissionsTarget(ctx, tx, p, t); err != nil {
			return err
		}
		cs.Add(permissionsChange(p.App.ID, t2))
		if err := tx.UnsetPermission(p.App.ID, t2, key); err != nil {
			return err
		}
		all, err := tx.PermissionsOf(p.App.ID, t2)
		out = effective(t.Type, all, created)
		return err
	})
	if err != nil {
		return nil, s.groupErr("unset permission", err)
	}
	s.forgetPolicy(p.App.ID, t2.GUID)
	return out, nil
}

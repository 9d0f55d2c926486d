package chat

import (
	"context"
	"encoding/json"
	"errors"
)

// Limits of users.
const (
	MaxNameLen          = 100  // user name
	MaxURLLen           = 3000 // avatar, link
	MaxStatusMessageLen = 1000 // natter's bound; the hosted service states none
	MaxMetadataBytes    = 5 * 1024
	MaxUIDsPerCall      = 1000 // deactivate / reactivate; natter's bound
)

// User is a chat user of one app.
type User struct {
	AppID         string
	UID           string
	Name          string
	Avatar        string
	Link          string
	Role          string
	Status        string
	StatusMessage string
	Metadata      json.RawMessage // compact JSON object, or nil
	Tags          []string
	CreatedAt     int64
	UpdatedAt     int64 // 0 until updated
	LastActiveAt  int64
	DeactivatedAt int64 // 0 while active
	DeletedAt     int64 // 0 unless soft-deleted
	// Blocks, for a user listed or read on another's behalf: whether that viewer blocked
	// this user, or this user the viewer, and when; nil otherwise.
	Blocks *BlockState
}

// BlockState is one user's blocks as another user sees them.
type BlockState struct {
	BlockedByMeAt  int64 // 0: not blocked by the viewer
	HasBlockedMeAt int64 // 0: has not blocked the viewer
}

// Active reports whether the user can be found: neither deactivated nor deleted.
func (u User) Active() bool { return u.DeactivatedAt == 0 && u.DeletedAt == 0 }

// Entity is the short user shape embedded in messages and reactions.
type Entity struct {
	UID          string
	Name         string
	Avatar       string
	Role         string
	Status       string
	CreatedAt    int64
	LastActiveAt int64 // 0 when never seen
	// Link and UpdatedAt are shown where the hosted service shows them: a groupMember
	// action's users, the editor of an edit (docs/api-decisions.md).
	Link      string
	UpdatedAt int64
	// ConversationID is the viewer's conversation with this user, where it is shown.
	ConversationID string
}

// UserStore keeps users and their tags.
type UserStore interface {
	CreateUser(ctx context.Context, u User) error
	// User returns the user, without tags, whatever its state; the service decides what is
	// visible.
	User(ctx context.Context, appID, uid string) (User, error)
	// UserTags returns the tags of the listed users, in the order they were given.
	UserTags(ctx context.Context, appID string, uids []string) (map[string][]string, error)
	// UpdateUser changes an active user and returns it with its tags.
	UpdateUser(ctx context.Context, appID, uid string, c UserChange) (User, error)
	// SoftDeleteUser marks an active or deactivated user deleted, and deletes its
	// friendships and auth tokens.
	SoftDeleteUser(ctx context.Context, appID, uid string, at int64) error
	// PurgeUser removes the user, its tags, its messages, its reactions, its friendships and
	// its auth tokens.
	PurgeUser(ctx context.Context, appID, uid string) error
	ListUsers(ctx context.Context, appID string, q UserQuery) ([]User, int, error)
	// SetDeactivated sets (at > 0) or clears (at == 0) deactivation on the listed users that
	// exist and are not deleted, and returns the uids it changed.
	SetDeactivated(ctx context.Context, appID string, uids []string, at int64) ([]string, error)
}

// UserQuery filters a user list.
type UserQuery struct {
	SearchKey   string
	SearchIn    []string // "uid", "name"; empty means both
	Statuses    []string // any of these presences (available, offline)
	Roles       []string
	Tags        []string
	WithTags    bool
	Deactivated DeactivatedFilter
	Page        Page
	// ChangedSince, when set, lists by change time (updatedAt, or createdAt for a user never
	// updated) instead of by name: with Affix "append" the users changed at or after it,
	// oldest change first; with "prepend" those changed at or before it, newest first. The
	// users of the cursor's own second come again, so none is skipped.
	ChangedSince *int64
	Affix        string
	// UIDs, when set, lists only the users named (the SDK's setUIDs).
	UIDs []string
	// FriendsOnly and HideBlocked are the acting user's (400 without one): only its friends;
	// none of the users it blocked (the SDK's friendsOnly and hideBlockedUsers).
	FriendsOnly bool
	HideBlocked bool
	// FriendsOf, when set, lists only that user's friends.
	FriendsOf string
	// HideBlockedBy, when set, leaves out the users it blocked.
	HideBlockedBy string
	// BlocksOf, when set, lists the users it blocked (BlockDirection blockedByMe), those who
	// blocked it (hasBlockedMe), or both.
	BlocksOf       string
	BlockDirection string
	// Viewer, set by the service for a list made on a user's behalf, gets each user's block
	// fields as that user sees them.
	Viewer string
	// CreatedAt and UpdatedAt keep the users created, or last updated, in the range (UNIX
	// seconds, inclusive); a user never updated has no updatedAt and is not in any.
	CreatedAt, UpdatedAt Range
}

// UserCursor is a user list's cursor: where to ask for the changes that follow, by time.
type UserCursor struct {
	UpdatedAt int64
	Affix     string
}

// ChangedAt is when the user last changed: its update, else its creation.
func (u User) ChangedAt() int64 {
	if u.UpdatedAt > 0 {
		return u.UpdatedAt
	}
	return u.CreatedAt
}

// Cursor of a listed page: the change time of its last user when it pages by time, the
// newest change among its users otherwise, with the affix to follow it with.
func (q UserQuery) Cursor(users []User) UserCursor {
	return pageCursor(q.ChangedSince, q.Affix, len(users), func(i int) int64 { return users[i].ChangedAt() })
}

// pageCursor is a page's cursor by change time (users, groups): with since, the change time
// of its last entry (or since, for an empty page); without, its newest change. changedAt
// is the i-th entry's.
func pageCursor(since *int64, affix string, n int, changedAt func(i int) int64) UserCursor {
	c := UserCursor{Affix: affix}
	if c.Affix == "" {
		c.Affix = "append"
	}
	if since != nil {
		c.UpdatedAt = *since
		if n > 0 {
			c.UpdatedAt = changedAt(n - 1)
		}
		return c
	}
	for i := range n {
		c.UpdatedAt = max(c.UpdatedAt, changedAt(i))
	}
	return c
}

// DeactivatedFilter chooses which users a list shows.
type DeactivatedFilter int

const (
	OnlyActive DeactivatedFilter = iota
	WithDeactivated
	OnlyDeactivated
)

// DefaultRole is the role of a user created without one.
const DefaultRole = "default"

// UserCreate is a create-user request. Optional strings are empty when absent.
type UserCreate struct {
	UID           string
	Name          string
	Avatar        string
	Link          string
	Role          string
	StatusMessage string
	Metadata      json.RawMessage
	Tags          []string
}

// CreateUser validates and stores a new user; the uid is lower-cased.
func (s *Service) CreateUser(ctx context.Context, p Principal, in UserCreate) (User, error) {
	u, err := s.newUser(p, in)
	if err != nil {
		return User{}, err
	}
	err = s.write(ctx, func(ctx context.Context) error { return s.store.CreateUser(ctx, u) }, userChange(p.App.ID, u.UID))
	return u, s.userCreated(u, err)
}

// CreateUserWithAuthToken creates a user and its first auth token in one transaction.
func (s *Service) CreateUserWithAuthToken(ctx context.Context, p Principal, in UserCreate) (User, NewAuthToken, error) {
	u, err := s.newUser(p, in)
	if err != nil {
		return User{}, NewAuthToken{}, err
	}
	t, v := newAuthToken(p.App.ID, u.UID, u.CreatedAt)
	err = s.write(ctx, func(ctx context.Context) error { return s.store.CreateUserWithAuthToken(ctx, u, t) },
		userChange(p.App.ID, u.UID), tokenChange(p.App.ID, u.UID))
	if err := s.userCreated(u, err); err != nil {
		return User{}, NewAuthToken{}, err
	}
	return u, NewAuthToken{t, v}, nil
}

// userCreated maps the store's answer to creating u.
func (s *Service) userCreated(u User, err error) error {
	if e := userRoleErr(u.Role, err); e != nil {
		return e
	}
	if errors.Is(err, ErrAlreadyExists) {
		return Errorf(CodeUIDAlreadyExists, "The UID %s already exists, please use another UID.", u.UID)
	}
	if err != nil {
		return internal("create user", err)
	}
	return nil
}

// newUser validates a create-user request into the user to store.
func (s *Service) newUser(p Principal, in UserCreate) (User, error) {
	fe := fieldErrors{}
	u := User{AppID: p.App.ID, Status: "offline"}
	u.UID = fe.id("uid", in.UID, true)
	fe.text("name", in.Name, MaxNameLen, true)
	u.Name = in.Name
	fe.text("avatar", in.Avatar, MaxURLLen, false)
	fe.text("link", in.Link, MaxURLLen, false)
	u.Avatar, u.Link = in.Avatar, in.Link
	u.Role = DefaultRole
	if in.Role != "" {
		u.Role = fe.id("role", in.Role, false)
	}
	fe.text("statusMessage", in.StatusMessage, MaxStatusMessageLen, false)
	u.StatusMessage = in.StatusMessage
	if in.Metadata != nil && string(in.Metadata) != "null" {
		u.Metadata = fe.metadata("metadata", in.Metadata)
	}
	u.Tags = fe.tags("tags", in.Tags)
	if err := fe.err(); err != nil {
		return User{}, err
	}
	u.CreatedAt = s.now()
	return u, nil
}

// errUIDNotFound names uid only when it may be quoted (echo.go); pass "" for a uid that was
// not well-formed.
func errUIDNotFound(uid string) error {
	if !quotableID(uid) {
		return &Error{Code: CodeUIDNotFound,
			Message:    "The UID does not exist, please make sure you have created a user with that UID.",
			DevMessage: "The UID does not exist, so please make sure you have created a user with that UID."}
	}
	return &Error{Code: CodeUIDNotFound,
		Message:    "The UID " + uid + " does not exist, please make sure you have created a user with UID " + uid + ".",
		DevMessage: "The UID " + uid + " does not exist, so please make sure you have created a user with UID " + uid + "."}
}

// User returns an active user; deactivated and deleted users are not found.
func (s *Service) User(ctx context.Context, p Principal, uid string) (User, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return User{}, errUIDNotFound("")
	}
	u, err := s.cachedUser(ctx, p.App.ID, uid)
	if errors.Is(err, ErrNotFound) || err == nil && !u.Active() {
		return User{}, errUIDNotFound(uid)
	}
	if err != nil {
		return User{}, internal("get user", err)
	}
	return u, nil
}

// UserChange is a partial update: nil fields are left alone, and Unset clears avatar, link
// or metadata. Metadata "null" is left alone too. The service normalises what it keeps and
// sets UpdatedAt.
type UserChange struct {
	Name          *string
	Avatar        *string
	Link          *string
	Role          *string
	StatusMessage *string
	Metadata      json.RawMessage
	Tags          *[]string
	Unset         []string
	UpdatedAt     int64
}

var unsettable = map[string]bool{"avatar": true, "link": true, "metadata": true}

// UpdateUser changes an active user.
func (s *Service) UpdateUser(ctx context.Context, p Principal, uid string, in UserChange) (User, error) {
	fe := fieldErrors{}
	up := in
	up.UpdatedAt = s.now()
	if in.Name != nil {
		fe.text("name", *in.Name, MaxNameLen, true)
	}
	if in.Avatar != nil {
		fe.text("avatar", *in.Avatar, MaxURLLen, false)
	}
	if in.Link != nil {
		fe.text("link", *in.Link, MaxURLLen, false)
	}
	if in.Role != nil {
		r := fe.id("role", *in.Role, true)
		up.Role = &r
	}
	if in.StatusMessage != nil {
		fe.text("statusMessage", *in.StatusMessage, MaxStatusMessageLen, false)
	}
	up.Metadata = nil
	if in.Metadata != nil && string(in.Metadata) != "null" {
		up.Metadata = fe.metadata("metadata", in.Metadata)
	}
	if in.Tags != nil {
		t := fe.tags("tags", *in.Tags)
		up.Tags = &t
	}
	for _, f := range in.Unset {
		if !unsettable[f] {
			fe.add("unset", "The unset field may only name avatar, link and metadata.")
			break
		}
	}
	if err := fe.err(); err != nil {
		return User{}, err
	}
	if p.ByToken() {
		if id, _ := NormalizeID(uid); id != p.Actor {
			return User{}, errNoAccess("An auth token may update only its own user's profile.")
		}
	}
	cur, err := s.User(ctx, p, uid)
	if err != nil {
		return User{}, err
	}
	if p.ByToken() {
		if _, err := s.permit(ctx, p, Action{Op: OpUpdateProfile, Role: cur.Role}); err != nil {
			return User{}, err
		}
	}
	if p.ByToken() && up.Role != nil {
		if *up.Role != cur.Role {
			return User{}, errNoAccess("A user cannot change their own role; use a fullAccess API key.")
		}
		// The role the user has (the SDK sends whole users) is not written back: that
		// could undo a change an admin made since it was read.
		up.Role = nil
	}
	uid = cur.UID
	var u User
	err = s.write(ctx, func(ctx context.Context) (err error) {
		u, err = s.store.UpdateUser(ctx, p.App.ID, uid, up)
		return err
	}, userChange(p.App.ID, uid))
	if up.Role != nil {
		if e := userRoleErr(*up.Role, err); e != nil {
			return User{}, e
		}
	}
	if errors.Is(err, ErrNotFound) {
		return User{}, errUIDNotFound(uid)
	}
	if err != nil {
		return User{}, internal("update user", err)
	}
	return u, nil
}

// DeleteUser soft-deletes an active user (the uid stays taken), or with permanent removes
// the user, its messages and its reactions; permanent also purges a deactivated or
// soft-deleted user, which is how such a uid is freed.
func (s *Service) DeleteUser(ctx context.Context, p Principal, uid string, permanent bool) error {
	uid, ok := NormalizeID(uid)
	if !ok {
		return errUIDNotFound("")
	}
	if !permanent {
		if _, err := s.User(ctx, p, uid); err != nil {
			return err
		}
	}
	err := s.write(ctx, func(ctx context.Context) error {
		if permanent {
			return s.store.PurgeUser(ctx, p.App.ID, uid)
		}
		return s.store.SoftDeleteUser(ctx, p.App.ID, uid, s.now())
	}, &Change{Kind: ChangeUser, App: p.App.ID, UIDs: []string{uid}, Subject: UserRemoved})
	if errors.Is(err, ErrNotFound) {
		return errUIDNotFound(uid)
	}
	if err != nil {
		return internal("delete user", err)
	}
	s.forgetTokens(p.App.ID, uid)
	if permanent {
		s.removeUserFiles(ctx, p.App.ID, uid) // files.go: its messages are gone, and so are their files
	}
	return nil
}

// ListUsers lists the app's users, a page at a time. On a user's behalf, the list is what
// the user's role lets it see: its friends only, or the users of some roles only.
func (s *Service) ListUsers(ctx context.Context, p Principal, q UserQuery) ([]User, int, error) {
	return s.listUsers(ctx, p, q, true)
}

// listUsers lists users; permit applies the acting user's permissions (the lists of a given
// user's friends or blocks, which an app reads, do not).
func (s *Service) listUsers(ctx context.Context, p Principal, q UserQuery, permit bool) ([]User, int, error) {
	fe := fieldErrors{}
	fe.text("searchKey", q.SearchKey, MaxSearchKeyLen, false)
	for _, in := range q.SearchIn {
		if in != "uid" && in != "name" {
			fe.add("searchIn", "The searchIn field may only name uid and name.")
			break
		}
	}
	// A presence is one of a set natter knows whole, so a value outside it is a mistake
	// (refused), not a value natter has never heard of (which would match nothing).
	for _, st := range q.Statuses {
		if st != "available" && st != "offline" {
			fe.add("status", "Each status must be one of available, offline.")
			break
		}
	}
	fe.timeRange("createdAt", q.CreatedAt)
	fe.timeRange("updatedAt", q.UpdatedAt)
	for i, r := range q.Roles {
		q.Roles[i] = fe.id("roles", r, true)
	}
	if len(q.Roles) > MaxTags {
		fe.add("roles", "At most 25 roles may be named.")
	}
	q.Tags = fe.tags("tags", q.Tags)
	for i, u := range q.UIDs {
		q.UIDs[i] = fe.id("uids", u, true)
	}
	if len(q.UIDs) > MaxUIDsPerCall {
		fe.add("uids", "At most 1000 uids may be named.")
	}
	if (q.FriendsOnly || q.HideBlocked) && !p.acting() {
		fe.add("onBehalfOf", "friendsOnly and hideBlockedUsers are a user's: send the onBehalfOf header.")
	}
	if q.Affix != "" && q.Affix != "append" && q.Affix != "prepend" {
		fe.add("affix", "The affix must be append or prepend.")
	}
	if q.ChangedSince != nil && *q.ChangedSince < 0 {
		fe.add("updatedAt", "The updatedAt must be a UNIX time in seconds.")
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	if p.acting() { // the list is then relative to that user (conversationId, blocks)
		u, err := s.actingUser(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		q.Viewer = u.UID
		if q.FriendsOnly {
			q.FriendsOf = u.UID
		}
		if q.HideBlocked {
			q.HideBlockedBy = u.UID
		}
		if permit {
			g, err := s.permit(ctx, p, Action{Op: OpListUsers, Role: u.Role})
			if err != nil {
				return nil, 0, err
			}
			if g.FriendsOnly {
				q.FriendsOf = u.UID
			}
			if g.Roles != nil {
				if q.Roles, err = narrow(q.Roles, g.Roles, narrowed(RolePermission, u.Role, "listUsers.allowedRoles", "roles", g.Roles)); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	users, total, err := s.store.ListUsers(ctx, p.App.ID, q)
	if err != nil {
		return nil, 0, internal("list users", err)
	}
	return users, total, nil
}

// SetUsersDeactivated deactivates (or reactivates) the listed users that exist and are not
// deleted, and returns their uids. Unknown uids are skipped, as a bulk call should.
func (s *Service) SetUsersDeactivated(ctx context.Context, p Principal, field string, uids []string, deactivate bool) ([]string, error) {
	fe := fieldErrors{}
	if len(uids) == 0 {
		fe.add(field, "The "+field+" field is required.")
	}
	if len(uids) > MaxUIDsPerCall {
		fe.add(field, "At most 1000 uids may be named in one call.")
	}
	norm := make([]string, 0, len(uids))
	for _, u := range uids {
		if id := fe.id(field, u, true); id != "" {
			norm = append(norm, id)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	var at int64
	if deactivate {
		at = s.now()
	}
	var done []string
	err := s.write(ctx, func(ctx context.Context) (err error) {
		done, err = s.store.SetDeactivated(ctx, p.App.ID, norm, at)
		return err
	}, userChange(p.App.ID, norm...))
	if err != nil {
		return nil, internal("set deactivated", err)
	}
	if deactivate {
		s.forgetTokens(p.App.ID, done...)
	}
	return done, nil
}

// UserWithTags returns an active user with its tags.
func (s *Service) UserWithTags(ctx context.Context, p Principal, uid string) (User, error) {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return User{}, err
	}
	tags, err := s.store.UserTags(ctx, p.App.ID, []string{u.UID})
	if err != nil {
		return User{}, internal("get user tags", err)
	}
	u.Tags = tags[u.UID]
	if p.acting() { // read on a user's behalf: the blocks between the two
		viewer, err := s.actingUser(ctx, p)
		if err != nil {
			return User{}, err
		}
		if _, err := s.permit(ctx, p, Action{Op: OpGetUser, Role: viewer.Role, Self: viewer.UID == u.UID, TargetRole: u.Role,
			Friend: s.friendOf(ctx, p.App.ID, viewer.UID, u.UID)}); err != nil {
			return User{}, err
		}
		b, err := s.store.BlockState(ctx, p.App.ID, viewer.UID, u.UID)
		if err != nil {
			return User{}, internal("read blocks", err)
		}
		u.Blocks = &b
	}
	return u, nil
}

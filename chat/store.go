package chat

import "context"

// Small storage interfaces, one per aggregate; Store composes them. sqlstore implements
// Store for SQLite and PostgreSQL. Storage is dumb: rules live in Service. Every method takes
// the app id and scopes its SQL by it.

// AppStore keeps apps.
type AppStore interface {
	// CreateApp creates an app and its first keys in one transaction.
	CreateApp(ctx context.Context, app App, keys []APIKey) error
	App(ctx context.Context, id string) (App, error)
	CountApps(ctx context.Context) (int, error)
}

// APIKeyStore keeps API keys.
type APIKeyStore interface {
	// APIKeyByHash finds a key of any app; authentication uses it before the app is known.
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	APIKey(ctx context.Context, appID, hash string) (APIKey, error)
	ListAPIKeys(ctx context.Context, appID string, q APIKeyQuery) ([]APIKey, int, error)
	UpdateAPIKey(ctx context.Context, appID, hash string, u APIKeyUpdate) (APIKey, error)
	DeleteAPIKey(ctx context.Context, appID, hash string) error
}

// APIKeyQuery filters a key list.
type APIKeyQuery struct {
	Scope     Scope
	SearchKey string
	Page      Page
}

// APIKeyUpdate changes the non-nil fields.
type APIKeyUpdate struct {
	Name      *string
	Scope     *Scope
	UpdatedAt int64
}

// Page is a page-based window: 1-based page number and page size.
type Page struct {
	Number  int
	PerPage int
}

// Offset of the page's first row.
func (p Page) Offset() int { return (p.Number - 1) * p.PerPage }

// UserStore keeps users and their tags.
type UserStore interface {
	CreateUser(ctx context.Context, u User) error
	// User returns the user, without tags, whatever its state; the service decides what is
	// visible.
	User(ctx context.Context, appID, uid string) (User, error)
	// UserTags returns the tags of the listed users, in the order they were given.
	UserTags(ctx context.Context, appID string, uids []string) (map[string][]string, error)
	// UpdateUser changes an active user and returns it with its tags.
	UpdateUser(ctx context.Context, appID, uid string, u UserUpdate) (User, error)
	// SoftDeleteUser marks an active or deactivated user deleted.
	SoftDeleteUser(ctx context.Context, appID, uid string, at int64) error
	// PurgeUser removes the user, its tags, its messages and its reactions.
	PurgeUser(ctx context.Context, appID, uid string) error
	ListUsers(ctx context.Context, appID string, q UserQuery) ([]User, int, error)
	// SetDeactivated sets (at > 0) or clears (at == 0) deactivation on the listed users that
	// exist and are not deleted, and returns the uids it changed.
	SetDeactivated(ctx context.Context, appID string, uids []string, at int64) ([]string, error)
}

// UserUpdate changes the non-nil fields; Unset clears avatar, link or metadata.
type UserUpdate struct {
	Name          *string
	Avatar        *string
	Link          *string
	Role          *string
	StatusMessage *string
	Metadata      *[]byte
	Tags          *[]string
	Unset         []string
	UpdatedAt     int64
}

// UserQuery filters a user list.
type UserQuery struct {
	SearchKey   string
	SearchIn    []string // "uid", "name"; empty means both
	Status      string
	Roles       []string
	Tags        []string
	WithTags    bool
	Deactivated DeactivatedFilter
	Page        Page
}

// DeactivatedFilter chooses which users a list shows.
type DeactivatedFilter int

const (
	OnlyActive DeactivatedFilter = iota
	WithDeactivated
	OnlyDeactivated
)

// MessageStore keeps messages.
type MessageStore interface {
	// CreateMessage inserts m and sets its ID.
	CreateMessage(ctx context.Context, m *Message) error
	// Message returns the message with its parties' entities and, when viewer is not empty,
	// the reaction summary with reactedByMe for viewer.
	Message(ctx context.Context, appID string, id int64, viewer string) (Message, error)
}

// ReactionStore keeps reactions. Counts and the distinct-reaction cap are kept in the same
// transaction as the rows, so they never drift.
type ReactionStore interface {
	// ChangeReaction reads the actor, the message and its reactions in one write
	// transaction, decides with DecideReaction, writes what it decided, and answers with
	// the message as the change left it, its summary for the actor. A refusal is
	// DecideReaction's error.
	ChangeReaction(ctx context.Context, c ReactionChange) (Message, error)
	// ListReactions pages reaction records by id; reaction filters when not empty.
	ListReactions(ctx context.Context, appID string, msgID int64, q ReactionQuery) ([]Reaction, error)
}

// ReactionQuery is a cursor window over a message's reactions.
type ReactionQuery struct {
	Reaction string
	AfterID  int64 // append: ids greater than this
	BeforeID int64 // prepend: ids smaller than this (wins when set)
	Limit    int
}

// Tx is the store inside one write transaction (Store.Transact), for rules that read, decide
// and write together. Its methods run with the transaction's own context.
type Tx interface {
	APIKeyTx
	MessageTx
}

// Store is everything natter keeps.
type Store interface {
	// Transact runs fn in one write transaction: committed when fn returns nil, rolled back
	// when it returns an error or panics. A caller that gives up does not abort it once it
	// has started. fn may run more than once, so it must do nothing but its calls on tx and
	// set its results afresh each time.
	Transact(ctx context.Context, fn func(tx Tx) error) error
	AppStore
	APIKeyStore
	UserStore
	MessageStore
	ReactionStore
	Ping(ctx context.Context) error
	Close() error
}

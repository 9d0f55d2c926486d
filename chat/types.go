package chat

import "encoding/json"

// Region is a data-centre region code as it appears in hosts: us, eu or in.
type Region string

// Regions natter accepts, as on the hosted service.
var Regions = []Region{"us", "eu", "in"}

// ValidRegion reports whether r is a known region.
func ValidRegion(r Region) bool {
	for _, x := range Regions {
		if x == r {
			return true
		}
	}
	return false
}

// App is a tenant. Every other row belongs to exactly one app.
type App struct {
	ID        string
	Region    Region
	Name      string
	CreatedAt int64
}

// Scope is an API key's power.
type Scope string

const (
	ScopeFullAccess Scope = "fullAccess"
	ScopeAuthOnly   Scope = "authOnly"
)

// APIKey is a stored key: its hash and the few characters shown in lists, never the key.
type APIKey struct {
	AppID     string
	Hash      string // hex SHA-256 of the key
	Prefix    string // first 4 characters
	Suffix    string // last 4 characters
	Name      string
	Scope     Scope
	CreatedAt int64
	UpdatedAt int64 // 0 until updated
}

// Masked is the key as lists show it: first and last four characters around asterisks.
func (k APIKey) Masked() string {
	return k.Prefix + "********************************" + k.Suffix
}

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
}

// ReceiverUser is the only receiver type natter serves so far.
const ReceiverUser = "user"

// Message is a stored message with its parties resolved.
type Message struct {
	ID             int64
	AppID          string
	ConversationID string
	Sender         string
	ReceiverType   string
	Receiver       string
	Category       string
	Type           string
	Data           json.RawMessage // the content object as sent, minus the keys natter generates
	Tags           []string
	MUID           string
	SentAt         int64
	UpdatedAt      int64
	DeletedAt      int64
	DeletedBy      string
	SenderEntity   Entity
	ReceiverEntity Entity
	Reactions      []ReactionSummary
	// Action messages only: what happened (data.action) and the message it happened to.
	Action   string
	Target   *Message
	TargetID int64
}

// MessageHead is what a rule needs to decide on a message inside a write transaction.
type MessageHead struct {
	ID           int64
	Sender       string
	Receiver     string
	ReceiverType string
	DeletedAt    int64
}

// ReactionSummary is one entry of a message's data.reactions.
type ReactionSummary struct {
	Reaction    string
	Count       int64
	ReactedByMe bool
}

// Reaction is one user's reaction on one message.
type Reaction struct {
	ID        int64
	MessageID int64
	Reaction  string
	UID       string
	ReactedAt int64
	ReactedBy User
}

// ConversationID of a one-to-one conversation: the two uids ascending, joined by _user_.
func ConversationID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "_user_" + b
}

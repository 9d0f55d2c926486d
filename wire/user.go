package wire

import (
	"encoding/json"

	"github.com/natter-chat/natter/chat"
)

// User is the user shape of the hosted service; keys in its order, optional ones omitted
// when unset.
type User struct {
	UID           string          `json:"uid"`
	Name          string          `json:"name"`
	Link          string          `json:"link,omitempty"`
	Avatar        string          `json:"avatar,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage,omitempty"`
	Role          string          `json:"role"`
	CreatedAt     int64           `json:"createdAt"`
	UpdatedAt     int64           `json:"updatedAt,omitempty"`
	LastActiveAt  int64           `json:"lastActiveAt,omitempty"`
	DeactivatedAt int64           `json:"deactivatedAt,omitempty"`
	Tags          []string        `json:"tags,omitempty"`
	// ConversationID is the one-to-one conversation with the acting user, in lists made
	// on a user's behalf.
	ConversationID string `json:"conversationId,omitempty"`
	// AuthToken is the user's first auth token, on create with withAuthToken.
	AuthToken string `json:"authToken,omitempty"`
	// The blocks between the user and the acting user, when a request names one.
	BlockedByMe   *bool `json:"blockedByMe,omitempty"`
	BlockedByMeAt int64 `json:"blockedByMeAt,omitempty"`
	HasBlockedMe  *bool `json:"hasBlockedMe,omitempty"`
	BlockedAt     int64 `json:"blockedAt,omitempty"`
}

// UserOut is u in the user shape, with its blocks towards the acting user when u has them.
func UserOut(u chat.User) User {
	out := User{UID: u.UID, Name: u.Name, Link: u.Link, Avatar: u.Avatar, Metadata: StoredObject(u.Metadata), Status: u.Status,
		StatusMessage: u.StatusMessage, Role: u.Role, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
		LastActiveAt: u.LastActiveAt, DeactivatedAt: u.DeactivatedAt, Tags: u.Tags}
	if b := u.Blocks; b != nil {
		byMe, ofMe := b.BlockedByMeAt > 0, b.HasBlockedMeAt > 0
		out.BlockedByMe, out.BlockedByMeAt, out.HasBlockedMe = &byMe, b.BlockedByMeAt, &ofMe
		// blockedAt is when the block between the two was made, the viewer's own first, as
		// in CometChat's blocked-users example (where it equals blockedByMeAt).
		out.BlockedAt = b.BlockedByMeAt
		if !byMe {
			out.BlockedAt = b.HasBlockedMeAt
		}
	}
	return out
}

package wire

import (
	"bytes"
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

// UserFor is u as the caller p may see it: without metadata.@private unless p is the user or
// the app (chat.Principal.SeesPrivate).
func UserFor(p chat.Principal, u chat.User) User {
	out := UserOut(u)
	if !p.SeesPrivate(u.UID) {
		out.Metadata = WithoutPrivate(out.Metadata)
	}
	return out
}

// PublicUser is u as any other user may see it, without metadata.@private: what a socket
// frame about u carries to its audience.
func PublicUser(u chat.User) User {
	out := UserOut(u)
	out.Metadata = WithoutPrivate(out.Metadata)
	return out
}

// WithoutPrivate is a metadata object without its top-level "@private" key, the rest as it
// was, in its order. Anything but an object is answered as it is (StoredObject already
// dropped what is not one).
func WithoutPrivate(meta json.RawMessage) json.RawMessage {
	// A key spelled with an escape ("\u0040private") is the same key: only an object with
	// neither the plain name nor any escape is known not to hold it without reading it.
	if len(meta) == 0 || !bytes.Contains(meta, []byte(chat.PrivateMetadataKey)) && !bytes.Contains(meta, []byte(`\`)) {
		return meta
	}
	dec := json.NewDecoder(bytes.NewReader(meta))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return meta
	}
	out := []byte{'{'}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return json.RawMessage(`{}`) // unreadable: show nothing rather than all
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return json.RawMessage(`{}`)
		}
		if key == chat.PrivateMetadataKey {
			found = true
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = AppendString(out, key)
		out = append(out, ':')
		out = append(out, v...)
	}
	if !found {
		return meta
	}
	return append(out, '}')
}

package wire

import (
	"encoding/json"

	"github.com/natter-chat/natter/chat"
)

// Group is the group shape of the hosted service, keys in its examples' order; scope,
// joinedAt and hasJoined are the acting user's, present when the request names one.
type Group struct {
	GUID           string          `json:"guid"`
	Name           string          `json:"name"`
	Description    string          `json:"description,omitempty"`
	Icon           string          `json:"icon,omitempty"`
	Type           string          `json:"type"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	Scope          string          `json:"scope,omitempty"`
	MembersCount   int64           `json:"membersCount"`
	JoinedAt       int64           `json:"joinedAt,omitempty"`
	ConversationID string          `json:"conversationId"`
	HasJoined      *bool           `json:"hasJoined,omitempty"`
	CreatedAt      int64           `json:"createdAt"`
	Owner          string          `json:"owner,omitempty"`
	UpdatedAt      int64           `json:"updatedAt,omitempty"`
	UpdatedBy      string          `json:"updatedBy,omitempty"`
	Tags           []string        `json:"tags,omitempty"`
	// Members are a create's per-member results, when it named members.
	Members json.RawMessage `json:"members,omitempty"`
}

// GroupOut is g in the group shape.
func GroupOut(g chat.Group) Group {
	out := Group{GUID: g.GUID, Name: g.Name, Description: g.Description, Icon: g.Icon, Type: g.Type,
		Metadata: StoredObject(g.Metadata), MembersCount: g.MembersCount, ConversationID: chat.GroupConversationID(g.GUID),
		CreatedAt: g.CreatedAt, Owner: g.Owner, UpdatedAt: g.UpdatedAt, UpdatedBy: g.UpdatedBy, Tags: g.Tags}
	if g.Viewer != nil {
		joined := g.Viewer.Joined()
		out.HasJoined = &joined
		if joined {
			out.Scope, out.JoinedAt = g.Viewer.Scope, g.Viewer.JoinedAt
		}
	}
	return out
}

package dataimport

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// importTime is a 10-digit UNIX time, sent as a number or, as in the hosted service's
// examples, as a string of digits.
type importTime int64

func (t *importTime) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
		if s == "" {
			return nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// A fraction of a second is dropped; anything else is not a time.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f < -1e12 || f > 1e12 {
			return errors.New("a time must be a 10-digit UNIX time in seconds, as a number or a string of digits")
		}
		n = int64(f)
	}
	*t = importTime(n)
	return nil
}

// decodeItem decodes one item; a malformed item is that item's refusal.
func decodeItem(raw json.RawMessage, v any) error {
	if len(raw) == 0 || raw[0] != '{' {
		return chat.Errorf(chat.CodeBadRequest, "Each item must be a JSON object.")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return wire.JSONError(err)
		}
		return chat.Errorf(chat.CodeBadRequest, "The item could not be read: %s.", err)
	}
	return nil
}

type importUserRequest struct {
	UID           string          `json:"uid"`
	Name          string          `json:"name"`
	Avatar        string          `json:"avatar"`
	Link          string          `json:"link"`
	Role          string          `json:"role"`
	CreatedAt     importTime      `json:"createdAt"`
	LastActiveAt  importTime      `json:"lastActiveAt"`
	DeactivatedAt importTime      `json:"deactivatedAt"`
	Metadata      json.RawMessage `json:"metadata"`
	Tags          []string        `json:"tags"`
}

// userImport is a user item, or a user an item embeds.
func (req importUserRequest) userImport(key string) chat.UserImport {
	return chat.UserImport{Key: key, UID: req.UID, Name: req.Name, Avatar: req.Avatar, Link: req.Link, Role: req.Role,
		Metadata: req.Metadata, Tags: req.Tags, CreatedAt: int64(req.CreatedAt), LastActiveAt: int64(req.LastActiveAt),
		DeactivatedAt: int64(req.DeactivatedAt)}
}

// detailsOf are the embedded users an item carries, by field.
func detailsOf(fields ...any) []chat.DetailUser {
	var out []chat.DetailUser
	for i := 0; i+1 < len(fields); i += 2 {
		if u, _ := fields[i+1].(*importUserRequest); u != nil {
			out = append(out, chat.DetailUser{Field: fields[i].(string), User: u.userImport(u.UID)})
		}
	}
	return out
}

// Users decodes user items, each a chat.UserImport (a malformed one with its refusal).
func Users(items []Item) []chat.UserImport {
	in := make([]chat.UserImport, len(items))
	for i, it := range items {
		var req importUserRequest
		bad := decodeItem(it.Raw, &req)
		in[i] = req.userImport(it.Key)
		in[i].Malformed = bad
	}
	return in
}

type importGroupRequest struct {
	GUID        string          `json:"guid"`
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Password    string          `json:"password"`
	Icon        string          `json:"icon"`
	Description string          `json:"description"`
	Owner       string          `json:"owner"`
	CreatedAt   importTime      `json:"createdAt"`
	Metadata    json.RawMessage `json:"metadata"`
	Tags        []string        `json:"tags"`
}

// Groups decodes group items.
func Groups(items []Item) []chat.GroupImport {
	in := make([]chat.GroupImport, len(items))
	for i, it := range items {
		var req importGroupRequest
		bad := decodeItem(it.Raw, &req)
		in[i] = chat.GroupImport{Key: it.Key, Malformed: bad, GUID: req.GUID, Name: req.Name, Type: req.Type, Password: req.Password, Icon: req.Icon,
			Description: req.Description, Owner: req.Owner, CreatedAt: int64(req.CreatedAt), Metadata: req.Metadata, Tags: req.Tags}
	}
	return in
}

type importMemberRequest struct {
	MemberID    string             `json:"memberId"`
	GUID        string             `json:"guid"`
	UID         string             `json:"uid"`
	Scope       string             `json:"scope"`
	IsBanned    bool               `json:"isBanned"`
	JoinedAt    importTime         `json:"joinedAt"`
	UserDetails *importUserRequest `json:"userDetails"`
}

// Members decodes membership items: an item's memberId, when it has one, is its key.
func Members(items []Item) []chat.MemberImport {
	in := make([]chat.MemberImport, len(items))
	for i, it := range items {
		var req importMemberRequest
		bad := decodeItem(it.Raw, &req)
		if bad == nil && req.MemberID != "" && req.MemberID != it.Key {
			bad = chat.InvalidField("memberId", "The memberId must be the same as the key that wraps the item.")
		}
		in[i] = chat.MemberImport{Key: it.Key, Malformed: bad, GUID: req.GUID, UID: req.UID, Scope: req.Scope, IsBanned: req.IsBanned, JoinedAt: int64(req.JoinedAt),
			Details: detailsOf("userDetails", req.UserDetails)}
	}
	return in
}

type importMessageRequest struct {
	MUID         string          `json:"muid"`
	Sender       string          `json:"sender"`
	ReceiverType string          `json:"receiverType"`
	Receiver     string          `json:"receiver"`
	Category     string          `json:"category"`
	Type         string          `json:"type"`
	Data         json.RawMessage `json:"data"`
	Tags         []string        `json:"tags"`
	SentAt       importTime      `json:"sentAt"`
	DeliveredAt  importTime      `json:"deliveredAt"`
	ReadAt       importTime      `json:"readAt"`
	// QuotedMessageID is the muid of the message it quotes (chat.quoteImport), a string or
	// a number as the hosted ids are sent.
	QuotedMessageID json.RawMessage `json:"quotedMessageId"`
	// The users the message names, created when missing (docs/import.md).
	SenderUserDetails   *importUserRequest `json:"senderUserDetails"`
	ReceiverUserDetails *importUserRequest `json:"receiverUserDetails"`
}

// Messages decodes message items, with the users they name in their details.
func Messages(items []Item) []chat.MessageImport {
	in := make([]chat.MessageImport, len(items))
	for i, it := range items {
		var req importMessageRequest
		bad := decodeItem(it.Raw, &req)
		in[i] = chat.MessageImport{Key: it.Key, Malformed: bad, MUID: req.MUID, Sender: req.Sender, ReceiverType: req.ReceiverType, Receiver: req.Receiver,
			Category: req.Category, Type: req.Type, Data: req.Data, Tags: req.Tags, SentAt: int64(req.SentAt),
			DeliveredAt: int64(req.DeliveredAt), ReadAt: int64(req.ReadAt)}
		if q, err := quotedMUID(req.QuotedMessageID); err != nil && bad == nil {
			in[i].Malformed = err
		} else {
			in[i].QuotedMUID = q
		}
		if req.ReceiverType == chat.ReceiverUser {
			in[i].Details = detailsOf("senderUserDetails", req.SenderUserDetails, "receiverUserDetails", req.ReceiverUserDetails)
		} else {
			in[i].Details = detailsOf("senderUserDetails", req.SenderUserDetails)
		}
	}
	return in
}

// quotedMUID reads an item's quotedMessageId: a string, or a number taken as its digits;
// absent, null and "" quote nothing. Anything else is 400 naming quotedMessageId.
func quotedMUID(raw json.RawMessage) (string, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", chat.InvalidField("quotedMessageId", "The quotedMessageId must be the muid of the quoted message, a string.")
}

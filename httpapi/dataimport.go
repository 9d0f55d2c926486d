package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// Data import (docs/import.md): the hosted service's bodies, {"users": {"<uid>": {…}, …}}
// and the like, answered item by item in the request's key order:
// {"data": {"<key>": {"success": true, "data": {…}} | {"success": false, "error": {…}}}}.
// An item imported before with the same content answers success with "skipped": true.

// ImportMaxBodyBytes caps an import request's body: 1,000 messages of 10 KB of data each
// fit, with their keys and envelopes.
const ImportMaxBodyBytes = 16 << 20

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

// ImportItem is one item of an import body: its wrapping key and its JSON.
type ImportItem struct {
	Key string
	Raw json.RawMessage
}

// ImportOutcome is one item's result, for callers outside HTTP.
type ImportOutcome struct {
	Key     string
	Skipped bool
	Err     error
}

// importKind is one kind of import: how its items decode, the service call that imports
// them, and what an imported item answers.
type importKind[In, Out any] struct {
	decode func([]ImportItem) []In
	run    func(*chat.Service, context.Context, chat.Principal, []In) ([]chat.ImportResult[Out], error)
	out    func(Out) any
}

var (
	userImports   = importKind[chat.UserImport, chat.User]{usersIn, (*chat.Service).ImportUsers, func(u chat.User) any { return wire.UserOut(u) }}
	groupImports  = importKind[chat.GroupImport, chat.Group]{groupsIn, (*chat.Service).ImportGroups, func(g chat.Group) any { return wire.GroupOut(g) }}
	memberImports = importKind[chat.MemberImport, chat.ImportedMember]{membersIn, (*chat.Service).ImportMembers,
		func(m chat.ImportedMember) any {
			return importedMemberJSON{GUID: m.GUID, UID: m.UID, Scope: m.Scope, IsBanned: m.IsBanned, JoinedAt: m.JoinedAt}
		}}
	messageImports = importKind[chat.MessageImport, chat.Message]{messagesIn, (*chat.Service).ImportMessages,
		func(m chat.Message) any {
			return importedMessageJSON{ID: strconv.FormatInt(m.ID, 10), MUID: m.MUID, ConversationID: m.ConversationID, Sender: m.Sender,
				ReceiverType: m.ReceiverType, Receiver: m.Receiver, Category: m.Category, Type: m.Type, Data: wire.AppendData(nil, m),
				SentAt: m.SentAt, DeliveredAt: m.DeliveredAt, ReadAt: m.ReadAt, UpdatedAt: m.UpdatedAt, Tags: m.Tags}
		}}
)

// serveImport is the endpoint POST /data_import/<wrapper>: the body's items imported, each
// answered with its result.
func serveImport[In, Out any](s *Server, wrapper string, k importKind[In, Out]) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		items, err := decodeImport(r, wrapper)
		if err != nil {
			return err
		}
		res, err := k.run(s.svc, r.Context(), p, k.decode(items))
		if err != nil {
			return err
		}
		writeImport(w, r, res, k.out)
		return nil
	}
}

// batch imports items as the endpoint would, for callers outside HTTP.
func (k importKind[In, Out]) batch(ctx context.Context, svc *chat.Service, p chat.Principal, items []ImportItem) ([]ImportOutcome, error) {
	res, err := k.run(svc, ctx, p, k.decode(items))
	return outcomes(res), err
}

// RunImport imports one batch of kind ("users", "groups", "members", "messages") the way
// the endpoints do, for natter import's direct-to-database mode: the items decode exactly as
// a request's would.
func RunImport(ctx context.Context, svc *chat.Service, p chat.Principal, kind string, items []ImportItem) ([]ImportOutcome, error) {
	switch kind {
	case "users":
		return userImports.batch(ctx, svc, p, items)
	case "groups":
		return groupImports.batch(ctx, svc, p, items)
	case "members":
		return memberImports.batch(ctx, svc, p, items)
	case "messages":
		return messageImports.batch(ctx, svc, p, items)
	}
	return nil, fmt.Errorf("unknown import kind %q", kind)
}

func outcomes[T any](res []chat.ImportResult[T]) []ImportOutcome {
	out := make([]ImportOutcome, len(res))
	for i, r := range res {
		out[i] = ImportOutcome{Key: r.Key, Skipped: r.Skipped, Err: r.Err}
	}
	return out
}

// decodeImport reads an import body, {"<wrapper>": {"<key>": {…}, …}}, keeping the items'
// order and any repeated key (which a map would drop).
func decodeImport(r *http.Request, wrapper string) ([]ImportItem, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if isTooLarge(err) {
			var mb *http.MaxBytesError
			errors.As(err, &mb)
			return nil, errBodyTooLarge(mb.Limit)
		}
		return nil, chat.Errorf(chat.CodeBadRequest, "The request body could not be read.")
	}
	if !utf8.Valid(body) {
		return nil, chat.Errorf(chat.CodeBadRequest, "The request body must be valid UTF-8.")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, jsonError(err)
	}
	raw, ok := top[wrapper]
	if !ok || string(raw) == "null" {
		return nil, chat.InvalidField(wrapper, "The "+wrapper+" field is required and must hold at least one item.")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	notObject := chat.InvalidField(wrapper, "The "+wrapper+" field must be an object of items, each under its key.")
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	var items []ImportItem
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notObject
		}
		items = append(items, ImportItem{key, v})
		if len(items) > chat.MaxImportItems {
			break // refused below, whatever follows
		}
	}
	if len(items) > chat.MaxImportItems {
		return nil, chat.InvalidField(wrapper, "The "+wrapper+" may not have more than "+strconv.Itoa(chat.MaxImportItems)+" items.")
	}
	if len(items) == 0 {
		return nil, chat.InvalidField(wrapper, "The "+wrapper+" field is required and must hold at least one item.")
	}
	return items, nil
}

// decodeItem decodes one item; a malformed item is that item's refusal.
func decodeItem(raw json.RawMessage, v any) error {
	if len(raw) == 0 || raw[0] != '{' {
		return chat.Errorf(chat.CodeBadRequest, "Each item must be a JSON object.")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return jsonError(err)
		}
		return chat.Errorf(chat.CodeBadRequest, "The item could not be read: %s.", err)
	}
	return nil
}

// importItemJSON is one item's answer.
type importItemJSON struct {
	Success bool              `json:"success"`
	Skipped bool              `json:"skipped,omitempty"`
	Data    any               `json:"data,omitempty"`
	Error   *wire.ErrorObject `json:"error,omitempty"`
}

// writeImport answers every key once, in request order, with its first item's result.
func writeImport[T any](w http.ResponseWriter, r *http.Request, res []chat.ImportResult[T], out func(T) any) {
	var b bytes.Buffer
	b.WriteString(`{"data":{`)
	seen := make(map[string]bool, len(res))
	for _, x := range res {
		if seen[x.Key] {
			continue
		}
		seen[x.Key] = true
		if b.Len() > len(`{"data":{`) {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.Key)
		b.Write(k)
		b.WriteByte(':')
		item := importItemJSON{Success: x.Err == nil, Skipped: x.Skipped}
		if x.Err != nil {
			e := wire.ErrorOut(x.Err)
			item.Error = &e
		} else {
			item.Data = out(x.Value)
		}
		v, _ := json.Marshal(item)
		b.Write(v)
	}
	b.WriteString("}}\n")
	writeBody(w, r, http.StatusOK, b.Bytes())
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

func usersIn(items []ImportItem) []chat.UserImport {
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

func groupsIn(items []ImportItem) []chat.GroupImport {
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

// importedMemberJSON is an imported membership, as the hosted service answers it.
type importedMemberJSON struct {
	GUID     string `json:"guid"`
	UID      string `json:"uid"`
	Scope    string `json:"scope,omitempty"`
	IsBanned bool   `json:"isBanned,omitempty"`
	JoinedAt int64  `json:"joinedAt"`
}

func membersIn(items []ImportItem) []chat.MemberImport {
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
	// The users the message names, created when missing (docs/import.md).
	SenderUserDetails   *importUserRequest `json:"senderUserDetails"`
	ReceiverUserDetails *importUserRequest `json:"receiverUserDetails"`
}

// importedMessageJSON is an imported message, its data with the entities (sender,
// receiver, and the users its text mentions) as the hosted answer has them.
type importedMessageJSON struct {
	ID             string          `json:"id"`
	MUID           string          `json:"muid"`
	ConversationID string          `json:"conversationId"`
	Sender         string          `json:"sender"`
	ReceiverType   string          `json:"receiverType"`
	Receiver       string          `json:"receiver"`
	Category       string          `json:"category"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	SentAt         int64           `json:"sentAt"`
	DeliveredAt    int64           `json:"deliveredAt,omitempty"`
	ReadAt         int64           `json:"readAt,omitempty"`
	UpdatedAt      int64           `json:"updatedAt"`
	Tags           []string        `json:"tags,omitempty"`
}

func messagesIn(items []ImportItem) []chat.MessageImport {
	in := make([]chat.MessageImport, len(items))
	for i, it := range items {
		var req importMessageRequest
		bad := decodeItem(it.Raw, &req)
		in[i] = chat.MessageImport{Key: it.Key, Malformed: bad, MUID: req.MUID, Sender: req.Sender, ReceiverType: req.ReceiverType, Receiver: req.Receiver,
			Category: req.Category, Type: req.Type, Data: req.Data, Tags: req.Tags, SentAt: int64(req.SentAt),
			DeliveredAt: int64(req.DeliveredAt), ReadAt: int64(req.ReadAt)}
		if req.ReceiverType == chat.ReceiverUser {
			in[i].Details = detailsOf("senderUserDetails", req.SenderUserDetails, "receiverUserDetails", req.ReceiverUserDetails)
		} else {
			in[i].Details = detailsOf("senderUserDetails", req.SenderUserDetails)
		}
	}
	return in
}

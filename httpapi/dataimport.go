package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/dataimport"
	"github.com/natter-chat/natter/wire"
)

// Data import (docs/import.md): the hosted service's bodies, {"users": {"<uid>": {…}, …}}
// and the like, answered item by item in the request's key order:
// {"data": {"<key>": {"success": true, "data": {…}} | {"success": false, "error": {…}}}}.
// An item imported before with the same content answers success with "skipped": true.

// importKind is one kind of import: how its items decode, the service call that imports
// them, and what an imported item answers.
type importKind[In, Out any] struct {
	decode func([]dataimport.Item) []In
	run    func(chat.Import, context.Context, chat.Principal, []In) ([]chat.ImportResult[Out], error)
	out    func(Out) any
}

var (
	userImports   = importKind[chat.UserImport, chat.User]{dataimport.Users, chat.Import.ImportUsers, func(u chat.User) any { return wire.UserOut(u) }}
	groupImports  = importKind[chat.GroupImport, chat.Group]{dataimport.Groups, chat.Import.ImportGroups, func(g chat.Group) any { return wire.GroupOut(g) }}
	memberImports = importKind[chat.MemberImport, chat.ImportedMember]{dataimport.Members, chat.Import.ImportMembers,
		func(m chat.ImportedMember) any {
			return importedMemberJSON{GUID: m.GUID, UID: m.UID, Scope: m.Scope, IsBanned: m.IsBanned, JoinedAt: m.JoinedAt}
		}}
	messageImports = importKind[chat.MessageImport, chat.Message]{dataimport.Messages, chat.Import.ImportMessages,
		func(m chat.Message) any {
			j := importedMessageJSON{ID: strconv.FormatInt(m.ID, 10), MUID: m.MUID, ConversationID: m.ConversationID, Sender: m.Sender,
				ReceiverType: m.ReceiverType, Receiver: m.Receiver, Category: m.Category, Type: m.Type, Data: wire.AppendData(nil, m),
				SentAt: m.SentAt, DeliveredAt: m.DeliveredAt, ReadAt: m.ReadAt, UpdatedAt: m.UpdatedAt, Tags: m.Tags}
			if m.QuotedID != 0 {
				j.QuotedMessageID = strconv.FormatInt(m.QuotedID, 10)
			}
			return j
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
		res, err := k.run(s.svc.Import(), r.Context(), p, k.decode(items))
		if err != nil {
			return err
		}
		writeImport(w, r, res, k.out)
		return nil
	}
}

// decodeImport reads an import body, {"<wrapper>": {"<key>": {…}, …}}, keeping the items'
// order and any repeated key (which a map would drop).
func decodeImport(r *http.Request, wrapper string) ([]dataimport.Item, error) {
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
		return nil, wire.JSONError(err)
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
	var items []dataimport.Item
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
		items = append(items, dataimport.Item{Key: key, Raw: v})
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

// importedMemberJSON is an imported membership, as the hosted service answers it.
type importedMemberJSON struct {
	GUID     string `json:"guid"`
	UID      string `json:"uid"`
	Scope    string `json:"scope,omitempty"`
	IsBanned bool   `json:"isBanned,omitempty"`
	JoinedAt int64  `json:"joinedAt"`
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
	// QuotedMessageID is the id of the message it quotes (natter's, issue 38); a read
	// carries the quotedMessage too.
	QuotedMessageID string `json:"quotedMessageId,omitempty"`
}

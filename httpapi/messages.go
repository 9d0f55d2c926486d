package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

type sendMessageRequest struct {
	Receiver     string          `json:"receiver"`
	ReceiverType string          `json:"receiverType"`
	Category     string          `json:"category"`
	Type         string          `json:"type"`
	Data         json.RawMessage `json:"data"`
	Tags         []string        `json:"tags"`
	MUID         string          `json:"muid"`
	// QuotedMessageID is the message the new one quotes: a string in the hosted file, a
	// number where the SDK's setQuotedMessageId was given one; chat parses both.
	QuotedMessageID json.RawMessage `json:"quotedMessageId"`
	// Multiple is nil when the body has no multipleReceivers, or null.
	Multiple *multipleReceiversJSON `json:"multipleReceivers"`
}

// multipleReceiversJSON is the body's multipleReceivers: users and groups to send to.
type multipleReceiversJSON struct {
	UIDs  []string `json:"uids"`
	GUIDs []string `json:"guids"`
}

func (req sendMessageRequest) send() chat.MessageSend {
	return chat.MessageSend{Receiver: req.Receiver, ReceiverType: req.ReceiverType, Category: req.Category,
		Type: req.Type, Data: req.Data, Tags: req.Tags, MUID: req.MUID, QuotedID: req.QuotedMessageID}
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req sendMessageRequest
	files, err := s.decodeSendRequest(w, r, p, &req)
	if err != nil {
		return err
	}
	r = r.WithContext(files.ctx)
	if req.Multiple != nil {
		err := s.sendMessages(w, r, p, req)
		files.finish(err)
		return err
	}
	m, err := s.svc.SendMessage(r.Context(), p, req.send())
	files.finish(err)
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

// sendMessages is a send with multipleReceivers: one message per receiver, answered as
// {"data":{"users":{uid: message | {"error":…}},"groups":{guid: …}}}, each list in the
// order named. A receiver's failure is in its entry, so the answer is 200 once anything
// may have been sent, and an Idempotency-Key replays it rather than send again.
func (s *Server) sendMessages(w http.ResponseWriter, r *http.Request, p chat.Principal, req sendMessageRequest) error {
	res, err := s.svc.SendMessages(r.Context(), p, req.send(), chat.Receivers{UIDs: req.Multiple.UIDs, GUIDs: req.Multiple.GUIDs})
	if err != nil {
		return err
	}
	b := bytesPool.Get().(*[]byte)
	defer bytesPool.Put(b)
	out := append((*b)[:0], `{"data":`...)
	out = appendSendResults(out, r, res)
	out = append(out, "}\n"...)
	*b = out
	writeBody(w, r, http.StatusOK, out)
	return nil
}

// appendSendResults appends a multi-send's results: {"users":{…},"groups":{…}}, both
// always present, each receiver's message or its refusal in the error envelope's shape. A
// failure that is not a refusal is logged here, as writeError would, and answered
// ERR_EXCEPTION without its cause.
func appendSendResults(b []byte, r *http.Request, res chat.MultiSendResults) []byte {
	b = append(b, '{')
	for li, l := range []struct {
		name string
		rs   []chat.ReceiverResult
	}{{"users", res.Users}, {"groups", res.Groups}} {
		if li > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, l.name)
		b = append(b, ":{"...)
		for i, rr := range l.rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendString(b, rr.ID)
			b = append(b, ':')
			if rr.Err == nil {
				b = wire.AppendMessage(b, rr.Message)
				continue
			}
			if wire.StatusOf(chat.ErrorCode(rr.Err)) >= 500 { // also anything not a *chat.Error
				logger(r).Error("multi-send receiver failed", "list", l.name, "receiver", rr.ID, "err", rr.Err, "request_id", requestID(r))
			}
			e, _ := json.Marshal(wire.ErrorBody{Error: wire.ErrorOut(rr.Err)})
			b = append(b, e...)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// sendBotMessage is POST /bots/{uid}/messages: a message from the bot, which in natter is
// any user of the app the server-side app sends as (the hosted service's bots are users too).
func (s *Server) sendBotMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.sendMessage(w, r, p.ActingAs(r.PathValue("uid")))
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	m, err := s.svc.Message(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	permanent, err := permanentFlag(r)
	if err != nil {
		return err
	}
	m, err := s.svc.DeleteMessage(r.Context(), p, r.PathValue("id"), permanent)
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

func (s *Server) editMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Data json.RawMessage `json:"data"`
		Tags *[]string       `json:"tags"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	m, err := s.svc.EditMessage(r.Context(), p, r.PathValue("id"), chat.MessageEdit{Data: req.Data, Tags: req.Tags})
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

// markInteracted is PATCH /messages/{id}/interacted: the acting user interacted with the
// elements named in interactions, as the hosted file and SDK 4.2.0's markAsInteracted send
// ({"interactions": [elementId]}). The answer is the hosted file's success shape.
func (s *Server) markInteracted(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Interactions []string `json:"interactions"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	res, err := s.svc.MarkInteracted(r.Context(), p, r.PathValue("id"), req.Interactions)
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The message id " + strconv.FormatInt(res.MessageID, 10) +
		" has been marked as interacted for the user " + res.UID + "."}, nil)
	return nil
}

package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// messagesShown is how many messages the viewer shows: the latest, oldest first.
const messagesShown = 50

type messagesData struct {
	Conversation string
	Parent       string // a thread's parent message id, when the page shows a thread
	Messages     []messageRow
	Older        string // the link to the page before, when there may be one
}

type messageRow struct {
	chat.Message
	Text      string
	ParentRef string
}

// messageText is what the viewer shows of a message: its text, or what kind it is.
func messageText(m chat.Message) string {
	if m.DeletedAt != 0 {
		return "(deleted)"
	}
	var d struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Data, &d) == nil && d.Text != "" {
		return d.Text
	}
	if m.Action != "" {
		return "(" + m.Action + ")"
	}
	return "(" + m.Category + " " + m.Type + ")"
}

// messages shows the app's latest messages, or one conversation's, or one thread's, with
// reactions and reply counts, and a form to send as a user.
func (c *Console) messages(w http.ResponseWriter, r *http.Request, q *request) error {
	v := r.URL.Query()
	d := messagesData{Conversation: strings.TrimSpace(v.Get("conversation")), Parent: strings.TrimSpace(v.Get("parent"))}
	page := chat.MessagePage{Affix: "prepend", Limit: messagesShown, CursorID: v.Get("before"), ConversationID: d.Conversation}
	var list chat.MessageList
	var err error
	if d.Parent != "" {
		list, err = c.svc.ListThread(r.Context(), q.p, d.Parent, page)
	} else {
		list, err = c.svc.ListMessages(r.Context(), q.p, page)
	}
	if err != nil {
		return err
	}
	for _, m := range list.Messages {
		d.Messages = append(d.Messages, messageRow{Message: m, Text: messageText(m), ParentRef: strconv.FormatInt(m.ParentID, 10)})
	}
	if len(list.Messages) == messagesShown {
		o := url.Values{"before": {strconv.FormatInt(list.Messages[0].ID, 10)}}
		if d.Conversation != "" {
			o.Set("conversation", d.Conversation)
		}
		if d.Parent != "" {
			o.Set("parent", d.Parent)
		}
		d.Older = Prefix + "/messages?" + o.Encode()
	}
	title := "Messages"
	switch {
	case d.Parent != "":
		title = "Thread of message " + d.Parent
	case d.Conversation != "":
		title = "Conversation " + d.Conversation
	}
	c.show(w, r, q, "messages", q.page(title, "messages", d))
	return nil
}

// sendMessage sends a text message as a user: to a user or a group, or into a thread.
func (c *Console) sendMessage(w http.ResponseWriter, r *http.Request, q *request) error {
	sender := strings.TrimSpace(r.PostFormValue("sender"))
	if sender == "" {
		return chat.InvalidField("sender", "Name the user to send as.")
	}
	data, _ := json.Marshal(map[string]string{"text": r.PostFormValue("text")})
	in := chat.MessageSend{Receiver: strings.TrimSpace(r.PostFormValue("receiver")), ReceiverType: r.PostFormValue("receiverType"),
		Category: chat.CategoryMessage, Type: "text", Data: data}
	p := q.p.ActingAs(sender)
	var m chat.Message
	var err error
	parent := strings.TrimSpace(r.PostFormValue("parent"))
	if parent != "" {
		in.Receiver, in.ReceiverType = "", ""
		m, err = c.svc.SendThreadMessage(r.Context(), p, parent, in)
	} else {
		m, err = c.svc.SendMessage(r.Context(), p, in)
	}
	if err != nil {
		return err
	}
	to := Prefix + "/messages?" + url.Values{"conversation": {m.ConversationID}}.Encode()
	if parent != "" {
		to = Prefix + "/messages?" + url.Values{"parent": {parent}}.Encode()
	}
	c.redirect(w, r, to)
	return nil
}

// react adds a reaction to a message as a user, and shows the message's conversation again.
func (c *Console) react(w http.ResponseWriter, r *http.Request, q *request) error {
	uid := strings.TrimSpace(r.PostFormValue("uid"))
	if uid == "" {
		return chat.InvalidField("uid", "Name the user to react as.")
	}
	p, reaction := q.p.ActingAs(uid), strings.TrimSpace(r.PostFormValue("reaction"))
	m, err := c.svc.AddReaction(r.Context(), p, r.PathValue("id"), reaction)
	if err != nil {
		return err
	}
	to := Prefix + "/messages?" + url.Values{"conversation": {m.ConversationID}}.Encode()
	if m.ParentID != 0 {
		to = Prefix + "/messages?" + url.Values{"parent": {strconv.FormatInt(m.ParentID, 10)}}.Encode()
	}
	c.redirect(w, r, to+"#m"+strconv.FormatInt(m.ID, 10))
	return nil
}

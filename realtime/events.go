package realtime

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// What the hub tells sockets, in the frames of the client SDK: the committed changes it
// hears from the service's feed (messages and reactions), and what sockets and agents say
// that commits nothing (presence, client typing).

// frame encodes an event frame: the envelope {appId, receiver, receiverType, deviceId, type,
// sender, body}, by hand as messages are (wire/encode.go); a body that is not already JSON is
// marshalled.
func (h *Hub) frame(app, receiver, receiverType, deviceID, typ, sender string, body any) json.RawMessage {
	raw, ok := body.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			h.log.Error("real time: encode frame", "err", err)
			return nil
		}
	}
	b := make([]byte, 0, len(raw)+160)
	b = append(b, `{"appId":`...)
	b = wire.AppendString(b, app)
	b = append(b, `,"receiver":`...)
	b = wire.AppendString(b, receiver)
	b = append(b, `,"receiverType":`...)
	b = wire.AppendString(b, receiverType)
	b = append(b, `,"deviceId":`...)
	b = wire.AppendString(b, deviceID)
	b = append(b, `,"type":`...)
	b = wire.AppendString(b, typ)
	b = append(b, `,"sender":`...)
	b = wire.AppendString(b, sender)
	b = append(b, `,"body":`...)
	b = append(b, raw...)
	return append(b, '}')
}

// audience is who gets events about a message: both users of a one-to-one conversation, or
// a group's members.
func audience(m chat.Message) chat.Event {
	e := chat.Event{App: m.AppID}
	if m.ReceiverType == chat.ReceiverGroup {
		e.Group = m.Receiver
	} else {
		e.Users = []string{m.Sender, m.Receiver}
	}
	return e
}

// messageEvent is the frame that tells a stored message's audience of it: a new message, or
// the action message of an edit, a deletion, a group change or a call, which the SDK turns
// into its event. A group member change reaches also the user it happened to, who may no
// longer be a member. A held message (the sender's alone) and one without an id tell
// nobody.
func (h *Hub) messageEvent(m *chat.Message, device string) (chat.Event, bool) {
	if m == nil || m.ID == 0 || m.Moderation != "" {
		return chat.Event{}, false
	}
	e := audience(*m)
	if m.Category == chat.CategoryAction && m.Type == "groupMember" && m.TargetUID != "" {
		e.Users = append(e.Users, m.TargetUID)
	}
	e.Frame = h.frame(m.AppID, m.Receiver, m.ReceiverType, device, "message", m.Sender, json.RawMessage(wire.AppendMessage(nil, *m)))
	return e, true
}

// reactionEventJSON is a reaction event's body.
type reactionEventJSON struct {
	Action         string          `json:"action"`
	ID             string          `json:"id"`
	MessageID      string          `json:"messageId"`
	UID            string          `json:"uid"`
	Reaction       string          `json:"reaction"`
	ReactedBy      json.RawMessage `json:"reactedBy"`
	ReactedAt      int64           `json:"reactedAt"`
	ConversationID string          `json:"conversationId"`
	ParentID       string          `json:"parentId,omitempty"`
}

// reactionEvent is the frame that tells the reacted message's audience of the reaction c
// added or removed. A change that changed nothing tells nobody, nor one whose message is
// gone (read back by id on another node, it may be).
func (h *Hub) reactionEvent(ctx context.Context, c *chat.Change) (chat.Event, bool) {
	m := c.Message
	if m == nil || c.Effect == chat.ReactionUnchanged {
		return chat.Event{}, false
	}
	action := "message_reaction_added"
	if c.Effect == chat.ReactionRemoveLast || c.Effect == chat.ReactionRemoveOne {
		action = "message_reaction_removed"
	}
	// A one-to-one message's reactor is one of its two users, whom the message carries.
	var by json.RawMessage
	switch c.Actor {
	case m.SenderEntity.UID:
		by = wire.AppendUser(nil, m.SenderEntity, "")
	case m.ReceiverEntity.UID:
		by = wire.AppendUser(nil, m.ReceiverEntity, "")
	default:
		u, err := h.svc.User(ctx, chat.Principal{App: chat.App{ID: c.App}}, c.Actor)
		if err != nil {
			return chat.Event{}, false
		}
		by, _ = json.Marshal(wire.PublicUser(u))
	}
	body := reactionEventJSON{Action: action, MessageID: strconv.FormatInt(m.ID, 10), UID: c.Actor, Reaction: c.Subject,
		ReactedBy: by, ReactedAt: c.At, ConversationID: m.ConversationID}
	if c.ReactionID != 0 {
		body.ID = strconv.FormatInt(c.ReactionID, 10)
	}
	if m.ParentID != 0 {
		body.ParentID = strconv.FormatInt(m.ParentID, 10)
	}
	e := audience(*m)
	e.Frame = h.frame(m.AppID, m.Receiver, m.ReceiverType, c.Device, "reaction", c.Actor, body)
	return e, true
}

const (
	presenceOnline  = "online"
	presenceOffline = "offline"
)

// online marks a socket's user available on its first socket on this node, and tells
// subscribers if the user was not available anywhere before.
func (h *Hub) online(ctx context.Context, c *socket) {
	rs := h.svc.Presence()
	now := h.svc.Now()
	uids, err := rs.SetOnline(ctx, c.app, h.node, []string{c.uid}, now, now+int64(h.opt.PresenceTTL.Seconds()))
	if err != nil {
		h.log.Warn("real time: presence", "app", c.app, "err", err)
		return
	}
	h.announce(ctx, c.app, uids, presenceOnline)
}

// offline drops this node's hold on the user of its last socket here, and tells
// subscribers if no node holds the user any more.
func (h *Hub) offline(c *socket) {
	rs := h.svc.Presence()
	ctx, cancel := context.WithTimeout(context.Background(), h.opt.WriteTimeout)
	defer cancel()
	uids, err := rs.SetOffline(ctx, c.app, h.node, []string{c.uid}, h.svc.Now())
	if err != nil {
		h.log.Warn("real time: presence", "app", c.app, "err", err)
		return
	}
	h.announce(ctx, c.app, uids, presenceOffline)
}

// announce publishes presence events for users whose presence changed.
func (h *Hub) announce(ctx context.Context, app string, uids []string, action string) {
	if len(uids) == 0 {
		return
	}
	p := chat.Principal{App: chat.App{ID: app}}
	for _, uid := range uids {
		u, err := h.svc.User(ctx, p, uid)
		if err != nil {
			continue
		}
		now := h.svc.Now()
		body := map[string]any{"action": action, "timestamp": now, "user": wire.PublicUser(u)}
		h.Publish(ctx, chat.Event{App: app, Presence: &chat.PresenceOf{UID: uid, Role: u.Role},
			Frame: h.frame(app, "", "", "", "presence", uid, body)})
	}
}

// friendsOf is the friend set of a socket's user, for a FRIENDS presence subscription.
func (h *Hub) friendsOf(ctx context.Context, p chat.Principal) map[string]bool {
	uids, err := h.svc.FriendUIDs(ctx, p)
	if err != nil {
		h.log.Warn("real time: friends", "app", p.App.ID, "err", err)
	}
	out := make(map[string]bool, len(uids))
	for _, u := range uids {
		out[u] = true
	}
	return out
}

// typingEvent is the frame that tells an agent's conversation that its bot started or
// stopped typing (a chat.ChangeTyping): a typing indicator from the bot, as a client's
// socket relays one.
func (h *Hub) typingEvent(ctx context.Context, c *chat.Change) (chat.Event, bool) {
	bot, err := h.svc.User(ctx, chat.Principal{App: chat.App{ID: c.App}}, c.Actor)
	if err != nil {
		h.log.Warn("real time: the typing bot", "app", c.App, "uid", c.Actor, "err", err)
		return chat.Event{}, false
	}
	receiverType, receiver := chat.ReceiverUser, ""
	e := chat.Event{App: c.App, Except: c.Actor}
	switch {
	case c.GUID != "":
		receiverType, receiver, e.Group = chat.ReceiverGroup, c.GUID, c.GUID
	case len(c.UIDs) == 1:
		receiver, e.Users = c.UIDs[0], c.UIDs
	default:
		return chat.Event{}, false
	}
	body := map[string]any{"action": c.Subject, "receiver": receiver, "receiverType": receiverType,
		"user": json.RawMessage(wire.AppendUser(nil, bot.Entity(), ""))}
	e.Frame = h.frame(c.App, receiver, receiverType, "", "typing_indicator", c.Actor, body)
	return e, true
}

// interactionEvent is the frame of an interaction that completed an interactive message's
// goal for its user (a chat.ChangeInteraction with chat.InteractionGoalCompleted), as SDK
// 4.2.0 reads it for onInteractionGoalCompleted: type interaction_completed, and a body of
// the user, the message id and the user's interactions with it. It goes to the message's
// sender and to the user who interacted, on every connection: the answer to the request
// does not say that the goal completed.
func (h *Hub) interactionEvent(ctx context.Context, c *chat.Change) (chat.Event, bool) {
	if c.Subject != chat.InteractionGoalCompleted || len(c.UIDs) == 0 {
		return chat.Event{}, false
	}
	p := chat.Principal{App: chat.App{ID: c.App}}
	u, err := h.svc.User(ctx, p, c.Actor)
	if err != nil {
		h.log.Warn("real time: the interacting user", "app", c.App, "uid", c.Actor, "err", err)
		return chat.Event{}, false
	}
	done, err := h.svc.Interactions(ctx, c.App, c.MessageID, c.Actor)
	if err != nil {
		h.log.Warn("real time: interactions", "app", c.App, "message", c.MessageID, "err", err)
		return chat.Event{}, false
	}
	type interaction struct {
		ElementID    string `json:"elementId"`
		InteractedAt int64  `json:"interactedAt"`
	}
	list := make([]interaction, len(done))
	for i, d := range done {
		list[i] = interaction{d.ElementID, d.InteractedAt}
	}
	receiverType, receiver := chat.ReceiverUser, c.UIDs[len(c.UIDs)-1]
	if c.GUID != "" {
		receiverType, receiver = chat.ReceiverGroup, c.GUID
	}
	body := map[string]any{"user": json.RawMessage(wire.AppendUser(nil, u.Entity(), "")),
		"messageId": strconv.FormatInt(c.MessageID, 10), "interactions": list}
	users := []string{c.UIDs[0]}
	if c.Actor != c.UIDs[0] {
		users = append(users, c.Actor)
	}
	return chat.Event{App: c.App, Users: users,
		Frame: h.frame(c.App, receiver, receiverType, "", "interaction_completed", c.Actor, body)}, true
}

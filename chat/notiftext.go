package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
)

// What a send needs at sending time: the message as webhooks carry it, the templates that
// apply to the recipient, and whether the recipient has read the message meanwhile.

// NotificationContent is what a send renders its text from.
type NotificationContent struct {
	Subject   Subject // the message, as a webhook event's data renders it
	Message   *Message
	Settings  NotificationSettings
	Privacy   bool // the privacy templates apply to the recipient
	Mentioned bool // the message mentions the recipient
	Name      string
	Read      bool // the recipient read the message since (only asked for a Recheck send)
	Gone      bool // the message is deleted: nothing to send
}

// eventContent is what every recipient of one event shares: the message (nil: gone), the
// subject and the app's settings. It is cached for the key cache's TTL, so that the sends of
// one event to a group read them once (a message deleted meanwhile may still be sent for
// that long).
type eventContent struct {
	msg      *Message
	subject  Subject
	settings NotificationSettings
}

func (svc *Service) eventContent(ctx context.Context, s NotificationSend) (eventContent, error) {
	key := s.AppID + "\x00" + strconv.FormatInt(s.EventID, 10)
	if ec, ok := svc.keys.content.get(key); ok {
		return ec, nil
	}
	gen := svc.keys.content.generation()
	var ec eventContent
	m, err := svc.recentMessage(ctx, s.AppID, s.MessageID)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && m.DeletedAt != 0:
		svc.keys.content.put(key, ec, gen)
		return ec, nil
	case err != nil:
		return ec, internal("read message", err)
	}
	m.Reactions = nil
	ec.msg, ec.subject = &m, Subject{Trigger: s.Trigger, At: s.CreatedAt, Message: &m}
	if s.Trigger == TriggerReactionAdded {
		ref := s.Ref
		ref.MessageID = m.ID
		if ec.subject, err = svc.Webhooks().EventSubject(ctx, Delivery{AppID: s.AppID, Trigger: s.Trigger, MessageID: m.ID, CreatedAt: s.CreatedAt, Ref: ref}); err != nil {
			return ec, internal("read reaction", err)
		}
	}
	if ec.settings, err = svc.cachedNotificationSettings(ctx, s.AppID); err != nil {
		return ec, internal("read notification settings", err)
	}
	svc.keys.content.put(key, ec, gen)
	return ec, nil
}

// NotificationContentFor reads what s needs to be rendered and sent.
func (svc Notifications) NotificationContentFor(ctx context.Context, s NotificationSend) (NotificationContent, error) {
	var c NotificationContent
	ec, err := svc.eventContent(ctx, s)
	if err != nil {
		return c, err
	}
	if ec.msg == nil {
		c.Gone = true
		return c, nil
	}
	m := ec.msg
	c.Message, c.Subject, c.Settings = m, ec.subject, ec.settings
	conv := ConversationRef{Type: MuteOneOnOne, ID: m.Sender}
	if m.ReceiverType == ReceiverGroup {
		conv = ConversationRef{Type: MuteGroup, ID: m.Receiver}
	}
	rs, err := svc.store.NotificationRecipients(ctx, s.AppID, conv, []string{s.UID})
	if err != nil {
		return c, internal("read recipient", err)
	}
	c.Privacy = rs[s.UID].Prefs(c.Settings).UsePrivacyTemplate
	c.Mentioned = slices.ContainsFunc(m.Mentions, func(e Entity) bool { return e.UID == s.UID })
	if u, err := svc.cachedUser(ctx, s.AppID, s.UID); err == nil {
		c.Name = u.Name
	}
	if s.Recheck {
		read, err := svc.store.ReadMarker(ctx, s.AppID, s.UID, m.ConversationID)
		if err != nil {
			return c, internal("read marker", err)
		}
		c.Read = read >= m.ID
	}
	return c, nil
}

// ReactionText is a reaction's push, already plain text (the hosted settings have no
// reaction template): who reacted, with what, to which message. ok is false for another
// event.
func (c NotificationContent) ReactionText() (title, body string, ok bool) {
	r := c.Subject.Reaction
	if r == nil {
		return "", "", false
	}
	title = r.ReactedBy.Name
	if title == "" {
		title = r.ReactedBy.UID
	}
	if g := c.Message.ReceiverGroup; g != nil && g.Name != "" {
		title += " @ " + g.Name
	}
	var d struct {
		Text string `json:"text"`
	}
	json.Unmarshal(c.Message.Data, &d)
	body = "Reacted " + r.Reaction + " to a message"
	if d.Text != "" {
		body = "Reacted " + r.Reaction + " to: " + d.Text
	}
	return title, body, true
}

// memberVerbs say what a member change did, as its push says it.
var memberVerbs = map[string]string{
	TriggerMemberAdded: "added", TriggerMemberKicked: "kicked", TriggerMemberBanned: "banned",
	TriggerMemberUnbanned: "unbanned", TriggerMemberScopeChanged: "changed the scope of",
	TriggerMemberJoined: "joined", TriggerMemberLeft: "left",
}

// MemberText is a member change's push, plain text (the settings have no template for it):
// the group's name, and who did what (to whom). ok is false for another event.
func (c NotificationContent) MemberText(trigger string) (title, body string, ok bool) {
	verb, ok := memberVerbs[trigger]
	if !ok {
		return "", "", false
	}
	m := c.Message
	name := func(e Entity) string {
		if e.Name != "" {
			return e.Name
		}
		return e.UID
	}
	title = m.Receiver
	if m.ReceiverGroup != nil && m.ReceiverGroup.Name != "" {
		title = m.ReceiverGroup.Name
	}
	target := Entity{UID: m.TargetUID}
	if m.TargetUser != nil {
		target = *m.TargetUser
	}
	actor := m.SenderEntity
	if actor.UID == "" {
		actor.UID = m.Sender
	}
	if trigger == TriggerMemberJoined || trigger == TriggerMemberLeft || actor.UID == target.UID {
		return title, name(target) + " " + verb, true
	}
	return title, name(actor) + " " + verb + " " + name(target), true
}

// PushTemplate is the title, body and fallback body of a push about c's message: the
// mention template when the message mentions the recipient, else the template of the
// message's kind (text, media, interactive by type, custom), in the privacy set when it
// applies. A quoted reply has no template of its own (the hosted settings have none): it is
// rendered as the kind of message it is.
func (c NotificationContent) PushTemplate() (title, body, fallback string) {
	t, m := c.Settings.Templates, c.Message
	group := m.ReceiverType == ReceiverGroup
	pick := func(one, grp string) string {
		if group {
			return grp
		}
		return one
	}
	if c.Mentioned {
		u := t.UserMentionTemplateDefault
		if c.Privacy {
			u = t.UserMentionTemplatePrivacy
		}
		return pick(u.TitleOneOnOne, u.TitleGroup), pick(u.BodyOneOnOne, u.BodyGroup), u.BodyFallback
	}
	switch {
	case m.Category == CategoryMessage && m.Type == "text":
		x := t.TextMessageTemplateDefault
		if c.Privacy {
			x = t.TextMessageTemplatePrivacy
		}
		return pick(x.TitleOneOnOne, x.TitleGroup), x.Body, ""
	case m.Category == CategoryMessage:
		x := t.MediaMessageTemplateDefault
		if c.Privacy {
			x = t.MediaMessageTemplatePrivacy
		}
		b := map[string]string{"image": x.BodyImage, "audio": x.BodyAudio, "video": x.BodyVideo, "file": x.BodyFile}[m.Type]
		return pick(x.TitleOneOnOne, x.TitleGroup), b, ""
	case m.Category == CategoryInteractive:
		x := t.interactive(m.Type, c.Privacy)
		return pick(x.TitleOneOnOne, x.TitleGroup), x.Body, ""
	}
	x := t.CustomMessageTemplateDefault
	if c.Privacy {
		x = t.CustomMessageTemplatePrivacy
	}
	return pick(x.TitleOneOnOne, x.TitleGroup), x.Body, x.BodyFallback
}

// interactive is the template of an interactive message of type typ: its type's, and the
// custom interactive one for customInteractive (and any type a later hosted enum adds).
func (t NotificationTemplates) interactive(typ string, privacy bool) TextTemplate {
	pair := map[string][2]TextTemplate{
		"form":      {t.InteractiveFormTemplateDefault, t.InteractiveFormTemplatePrivacy},
		"card":      {t.InteractiveCardTemplateDefault, t.InteractiveCardTemplatePrivacy},
		"scheduler": {t.InteractiveSchedulerTemplateDefault, t.InteractiveSchedulerTemplatePrivacy},
	}
	p, ok := pair[typ]
	if !ok {
		p = [2]TextTemplate{t.InteractiveCustomTemplateDefault, t.InteractiveCustomTemplatePrivacy}
	}
	if privacy {
		return p[1]
	}
	return p[0]
}

// SMSTemplate is an SMS's text, EmailSubjectTemplate an email's subject, about c's message
// (a digest of one message).
func (c NotificationContent) SMSTemplate() string {
	t := c.Settings.Templates.SMSContentTemplateDefault
	if c.Privacy {
		t = c.Settings.Templates.SMSContentTemplatePrivacy
	}
	if c.Message.ReceiverType == ReceiverGroup {
		return t.BodyGroup
	}
	return t.BodyOneOnOne
}

// EmailSubjectTemplate: see SMSTemplate.
func (c NotificationContent) EmailSubjectTemplate() string {
	t := c.Settings.Templates.EmailSubjectTemplateDefault
	if c.Privacy {
		t = c.Settings.Templates.EmailSubjectTemplatePrivacy
	}
	if c.Message.ReceiverType == ReceiverGroup {
		return t.SubjectGroup
	}
	return t.SubjectOneOnOne
}

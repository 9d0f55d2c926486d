package chat

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Expansion: from one notification event to the decisions about its recipients.

// Expansion is what ExpandNotification decided: a log record per decision, and the sends
// of those that passed.
type Expansion struct {
	Logs  []NotificationLog
	Sends []NotificationSend
}

// appChannels are an app's providers as the decisions read them.
type appChannels struct {
	push, sms, email     bool // some provider of the channel exists
	pushOn, smsOn, emlOn bool // and one is enabled
	customPush           bool // push goes through the custom provider, once per recipient
	smsProvider          string
	emailProvider        string
	smsStored, emlStored bool // the custom provider is given only stored contact details
	pushIDs              map[PushTokenKind]map[string]bool
}

func readChannels(ps []Provider) appChannels {
	a := appChannels{pushIDs: make(map[PushTokenKind]map[string]bool, len(tokenProviders))}
	for k := range tokenProviders {
		a.pushIDs[k] = map[string]bool{}
	}
	vendor, custom := map[Channel]*Provider{}, map[Channel]*Provider{}
	for _, p := range ps {
		sp := p.Kind.spec()
		switch {
		case len(sp.Tokens) > 0: // FCM, APNs: always on, for the tokens whose providerId names one
			a.push, a.pushOn = true, true
			for _, k := range sp.Tokens {
				a.pushIDs[k][p.ID] = true
				if p.Default {
					a.pushIDs[k][DefaultProviderID] = true
				}
			}
		case sp.Custom && sp.Channel == ChannelPush:
			a.push = true
			if p.Enabled {
				a.pushOn, a.customPush = true, true
			}
		case sp.Custom:
			custom[sp.Channel] = &p
		case sp.Channel != "":
			vendor[sp.Channel] = &p
		}
	}
	// SMS and email: the vendor's provider when it is enabled, else the custom one when it
	// is, else whichever exists (disabled: the channel is off).
	pick := func(c Channel) *Provider {
		vendor, custom := vendor[c], custom[c]
		switch {
		case vendor != nil && vendor.Enabled, custom == nil:
			return vendor
		case custom.Enabled, vendor == nil:
			return custom
		}
		return vendor
	}
	if p := pick(ChannelSMS); p != nil {
		a.sms, a.smsOn, a.smsProvider, a.smsStored = true, p.Enabled, p.Kind.spec().Log, onlyStored(*p)
	}
	if p := pick(ChannelEmail); p != nil {
		a.email, a.emlOn, a.emailProvider, a.emlStored = true, p.Enabled, p.Kind.spec().Log, onlyStored(*p)
	}
	return a
}

// onlyStored reports whether p is a custom provider given only the contact details natter
// keeps (useStoredPhNo, useStoredEmailID); so too when its settings do not read.
func onlyStored(p Provider) bool {
	if !p.Kind.spec().Custom {
		return false
	}
	var st CustomSettings
	return settingsOf(p, &st) != nil || st.UseStored
}

// maxRecipientsPage bounds the recipients read and decided at once.
const maxRecipientsPage = 500

// ExpandNotification decides ev's notifications at now: for each recipient (the other
// party of a one-to-one message, the members of a group but the sender) and each channel
// the app has a provider of, a log record, and a send for each destination of a decision
// that passed. A message gone since is no error: there is nothing to notify.
func (s Notifications) ExpandNotification(ctx context.Context, ev NotificationEvent, now time.Time) (Expansion, error) {
	var out Expansion
	m, err := s.recentMessage(ctx, ev.AppID, ev.MessageID)
	if errors.Is(err, ErrNotFound) || err == nil && m.DeletedAt != 0 {
		return out, nil
	}
	if err != nil {
		return out, internal("read message", err)
	}
	ps, err := s.cachedProviders(ctx, ev.AppID)
	if err != nil {
		return out, internal("read providers", err)
	}
	ch := readChannels(ps)
	if !ch.push && !ch.sms && !ch.email {
		return out, nil
	}
	app, err := s.cachedNotificationSettings(ctx, ev.AppID)
	if err != nil {
		return out, internal("read notification settings", err)
	}
	// The actor is the sender, or who reacted; a one-to-one conversation is muted by naming
	// the other user, the actor.
	actor := m.Sender
	if ev.Trigger == TriggerReactionAdded {
		actor = ev.Ref.UID
	}
	var uids []string
	conv := ConversationRef{Type: MuteOneOnOne, ID: actor}
	if m.ReceiverType == ReceiverGroup {
		conv = ConversationRef{Type: MuteGroup, ID: m.Receiver}
		if uids, err = s.store.MemberUIDs(ctx, ev.AppID, m.Receiver, nil); err != nil {
			return out, internal("list members", err)
		}
	} else {
		uids = []string{m.Sender, m.Receiver}
	}
	uids = slices.DeleteFunc(sortedUnique(uids), func(u string) bool { return u == actor })
	for len(uids) > 0 {
		n := min(len(uids), maxRecipientsPage)
		if err := s.expandPage(ctx, ev, &m, app, ch, conv, uids[:n], now, &out); err != nil {
			return out, err
		}
		uids = uids[n:]
	}
	return out, nil
}

func (s *Service) expandPage(ctx context.Context, ev NotificationEvent, m *Message, app NotificationSettings, ch appChannels,
	conv ConversationRef, uids []string, now time.Time, out *Expansion) error {
	states, err := s.store.NotificationRecipients(ctx, ev.AppID, conv, uids)
	if err != nil {
		return internal("read recipients", err)
	}
	online := map[string]bool{}
	if ch.push && !s.cfg.PushWhenOnline {
		on, err := s.store.OnlineUIDs(ctx, ev.AppID, uids)
		if err != nil {
			return internal("read presence", err)
		}
		for _, u := range on {
			online[u] = true
		}
	}
	tokens := map[string][]PushToken{}
	if ch.push && !ch.customPush {
		ts, err := s.store.PushTokens(ctx, ev.AppID, uids)
		if err != nil {
			return internal("list push tokens", err)
		}
		for _, t := range ts {
			tokens[t.UID] = append(tokens[t.UID], t)
		}
	}
	mentioned := map[string]bool{}
	for _, e := range m.Mentions {
		mentioned[e.UID] = true
	}
	threads := map[string]int{}
	if m.ParentID != 0 && ev.Trigger == TriggerMessageSent {
		if threads, err = s.store.ThreadStates(ctx, ev.AppID, m.ParentID, uids); err != nil {
			return internal("read thread subscriptions", err)
		}
	}
	nowMS := now.UnixMilli()
	base := NotificationLog{AppID: ev.AppID, EventID: ev.ID, Trigger: ev.Trigger, MessageID: m.ID, MessageCategory: m.Category,
		MessageType: m.Type, Sender: m.Sender, Receiver: m.Receiver, ReceiverType: m.ReceiverType, CreatedAt: nowMS}
	send := NotificationSend{AppID: ev.AppID, EventID: ev.ID, Trigger: ev.Trigger, ConversationID: ev.ConversationID,
		MessageID: m.ID, NextAt: nowMS, CreatedAt: nowMS, Ref: ev.Ref}
	reaction := ev.Trigger == TriggerReactionAdded
	if reaction {
		base.Sender, base.ReactionID = ev.Ref.UID, ev.Ref.ReactionID // who reacted
	}
	_, member := memberPreferences[ev.Trigger]
	if member {
		base.Member = m.TargetUID
	}
	for _, uid := range uids {
		r := states[uid]
		prefs := r.Prefs(app)
		f := NotifyFacts{IsMessage: true, Mentioned: mentioned[uid], Preference: messagePreference(prefs, m),
			Reply: m.ParentID != 0 && ev.Trigger == TriggerMessageSent, Thread: threads[uid],
			BypassForMentions: prefs.BypassPreferencesForMentions, Online: online[uid], PushWhenOnline: s.cfg.PushWhenOnline, Now: now,
			DND: prefs.DND == DNDOn, Schedule: &prefs.Schedule, Location: r.Location()}
		if reaction {
			pref, own := reactionPreference(prefs, m), uid == m.Sender
			if !own && pref != NotifyReactionsOnAll {
				continue // not about its message, and it asked only about its own: not a recipient
			}
			f.IsMessage, f.Mentioned, f.Preference = false, false, NotifyAll
			if pref == NotifyOff {
				f.Preference = NotifyNever
			}
		}
		if member {
			if memberPreferences[ev.Trigger](prefs.Group) != NotifyOn {
				continue // the default: members are not told of member changes, and not logged
			}
			f.IsMessage, f.Mentioned, f.Preference = false, false, NotifyAll
		}
		if r.MutedAt(app, conv.Type, nowMS) {
			f.MutedUntil = time.UnixMilli(r.MutedUntil)
		}
		log, snd := base, send
		log.Recipient, snd.UID = uid, uid
		decide := func(c Channel, on bool, provider, dest string, hasDest bool) {
			f.Channel, f.ChannelOn, f.HasProvider, f.Destination = c, on, true, hasDest
			d := DecideNotification(f)
			l := log
			l.Channel, l.Provider, l.Triggered, l.Reason = c, provider, d.Send, d.Reason
			out.Logs = append(out.Logs, l)
			if d.Send {
				sd := snd
				sd.Channel, sd.Provider, sd.Destination, sd.Recheck = c, provider, dest, d.Recheck
				sd.NextAt += d.Delay.Milliseconds()
				out.Sends = append(out.Sends, sd)
			}
		}
		if ch.push {
			if ch.customPush {
				decide(ChannelPush, ch.pushOn, LogProviderCustom, "", true)
			} else {
				s.decidePush(f, log, snd, ch, tokens[uid], out)
			}
		}
		if reaction || member {
			continue // SMS and email are for unread messages
		}
		if ch.sms {
			f.Delay = time.Duration(app.Preferences.SMS.IntervalInSeconds) * time.Second
			decide(ChannelSMS, ch.smsOn, ch.smsProvider, r.Phone, r.Phone != "" || ch.smsProvider == LogProviderCustom && !ch.smsStored)
		}
		if ch.email {
			f.Delay = time.Duration(app.Preferences.Email.IntervalInSeconds) * time.Second
			decide(ChannelEmail, ch.emlOn, ch.emailProvider, r.Email, r.Email != "" || ch.emailProvider == LogProviderCustom && !ch.emlStored)
		}
	}
	return nil
}

// decidePush decides a push through FCM and APNs: one decision for the recipient, then a
// send per token whose providerId names a provider of the app, and a record per token that
// names none.
func (s *Service) decidePush(f NotifyFacts, log NotificationLog, snd NotificationSend, ch appChannels, ts []PushToken, out *Expansion) {
	f.Channel, f.ChannelOn, f.HasProvider, f.Destination = ChannelPush, ch.pushOn, true, len(ts) > 0
	d := DecideNotification(f)
	log.Channel = ChannelPush
	if !d.Send {
		log.Reason = d.Reason
		out.Logs = append(out.Logs, log)
		return
	}
	for _, t := range ts {
		l, sd := log, snd
		l.Provider = t.Kind.ProviderKind().spec().Log
		if !ch.pushIDs[t.Kind][normalizedProviderID(t.ProviderID)] {
			l.Reason = ReasonInvalidProvider
			out.Logs = append(out.Logs, l)
			continue
		}
		l.Triggered = true
		out.Logs = append(out.Logs, l)
		sd.Channel, sd.Provider, sd.ProviderID, sd.Destination, sd.TokenKind = ChannelPush, l.Provider, t.ProviderID, t.Token, t.Kind
		out.Sends = append(out.Sends, sd)
	}
}

// memberPreferences are the group preference of each member change.
var memberPreferences = map[string]func(GroupPrefs) int{
	TriggerMemberAdded:        func(g GroupPrefs) int { return g.MemberAdded },
	TriggerMemberJoined:       func(g GroupPrefs) int { return g.MemberJoined },
	TriggerMemberLeft:         func(g GroupPrefs) int { return g.MemberLeft },
	TriggerMemberKicked:       func(g GroupPrefs) int { return g.MemberKicked },
	TriggerMemberBanned:       func(g GroupPrefs) int { return g.MemberBanned },
	TriggerMemberUnbanned:     func(g GroupPrefs) int { return g.MemberUnbanned },
	TriggerMemberScopeChanged: func(g GroupPrefs) int { return g.MemberScopeChanged },
}

// reactionPreference is the recipient's preference for reactions in m's conversation:
// NotifyOff, NotifyOn (on its own messages) or NotifyReactionsOnAll.
func reactionPreference(p NotificationPrefs, m *Message) int {
	if m.ReceiverType == ReceiverGroup {
		return p.Group.Reactions
	}
	return p.OneOnOne.Reactions
}

// messagePreference is the recipient's preference for a message like m: replies have
// their own, and so have quoted replies (the hosted quotedReplies preference). A thread
// reply that quotes is a reply first: the thread's subscriptions decide who hears of it,
// and the quote is only what it shows.
func messagePreference(p NotificationPrefs, m *Message) int {
	quoted := m.QuotedID != 0 && m.ParentID == 0
	switch {
	case m.ReceiverType == ReceiverGroup && m.ParentID != 0:
		return p.Group.Replies
	case m.ReceiverType == ReceiverGroup && quoted:
		return p.Group.QuotedReplies
	case m.ReceiverType == ReceiverGroup:
		return p.Group.Messages
	case m.ParentID != 0:
		return p.OneOnOne.Replies
	case quoted:
		return p.OneOnOne.QuotedReplies
	}
	return p.OneOnOne.Messages
}

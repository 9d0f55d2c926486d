package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// The notification delivery log (GET /notifications/v1/logs, docs/notifications.md): one
// record per decision and per attempt to send, newest first, with the hosted operation's
// filters and its cursor (logId, affix). Records carry the hosted example's keys; triggers
// and the reasons that have a hosted counterpart are spelled the hosted way, on the wire and
// in the filters (logTriggers, logReason, logReasonFilter), natter's own values staying
// accepted as filters.

type notificationLogJSON struct {
	ID                    string `json:"_id"` // the hosted record id: the logId
	LogID                 string `json:"logId"`
	ProcessingStartedAtMS int64  `json:"processingStartedAtMS"`
	ProcessingEndedAtMS   int64  `json:"processingEndedAtMS"`
	TotalProcessingTimeMS int64  `json:"totalProcessingTimeInMS"`
	Component             string `json:"component"`
	Channel               string `json:"channel"`
	Provider              string `json:"provider,omitempty"`
	MessageID             int64  `json:"messageId,omitempty"`
	ReactionID            int64  `json:"reactionId,omitempty"`
	Trigger               string `json:"trigger"`
	// MessageSentAtMS: the log keeps no message time; 0 (docs/notifications.md).
	MessageSentAtMS  int64  `json:"messageSentAtMS"`
	MessageCategory  string `json:"messageCategory,omitempty"`
	MessageType      string `json:"messageType,omitempty"`
	Sender           string `json:"sender"`
	ReactionSender   string `json:"reactionSender"`
	Receiver         string `json:"receiver"`
	ReactionReceiver string `json:"reactionReceiver"`
	ReceiverType     string `json:"receiverType,omitempty"`
	Member           string `json:"member"`
	Recipient        string `json:"recipient"`
	// TokenType, PushToken, ProviderID and Payload: the log keeps neither the destination nor
	// what was sent, so these are empty (docs/notifications.md).
	TokenType             string          `json:"tokenType"`
	PushToken             string          `json:"pushToken"`
	ProviderID            string          `json:"providerId"`
	Payload               json.RawMessage `json:"payload"`
	NotificationTriggered bool            `json:"notificationTriggered"`
	Reason                string          `json:"reason,omitempty"`
	Success               bool            `json:"success"`
	Attempt               int             `json:"attempt"`
	Status                int             `json:"status,omitempty"`
	LatencyMS             int64           `json:"latencyMs,omitempty"`
	CreatedAt             int64           `json:"createdAt"`
}

type notificationLogsMeta struct {
	Current struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
	Next *notificationLogCursor `json:"next,omitempty"`
}

type notificationLogCursor struct {
	LogID string `json:"logId"`
	Affix string `json:"affix"`
}

// logComponent names what made a record, where the hosted log names its service.
const logComponent = "natter"

// logTriggers are natter's triggers as the hosted log spells them. The others (edits,
// deletions, reactions) are spelled alike.
var logTriggers = map[string]string{
	chat.TriggerMessageSent:        "after_message",
	chat.TriggerMemberJoined:       "after_group_joined",
	chat.TriggerMemberLeft:         "after_group_left",
	chat.TriggerMemberAdded:        "after_group_members_added",
	chat.TriggerMemberKicked:       "after_group_members_kicked",
	chat.TriggerMemberBanned:       "after_group_members_banned",
	chat.TriggerMemberUnbanned:     "after_group_members_unbanned",
	chat.TriggerMemberScopeChanged: "after_scope_changed",
	chat.TriggerCallInitiated:      "initiated",
	chat.TriggerCallRejected:       "rejected",
	chat.TriggerCallCancelled:      "cancelled",
	chat.TriggerCallUnanswered:     "unanswered",
}

// storedTriggers is logTriggers backwards: a hosted trigger filter as natter stores it.
var storedTriggers = func() map[string]string {
	m := make(map[string]string, len(logTriggers))
	for natter, hosted := range logTriggers {
		m[hosted] = natter
	}
	return m
}()

func logTrigger(t string) string {
	if h, ok := logTriggers[t]; ok {
		return h
	}
	return t
}

// preferenceReason is the hosted reason of a refusal by the recipient's preference, which
// names the preference by the event's kind. natter's log does not tell a reply from a
// message: a reply refused by the replies preference reads MESSAGES_PREFERENCE.
func preferenceReason(trigger string) string {
	switch trigger {
	case chat.TriggerMessageSent:
		return "MESSAGES_PREFERENCE"
	case chat.TriggerReactionAdded:
		return "REACTIONS_PREFERENCE"
	case chat.TriggerMessageEdited, chat.TriggerMessageDeleted:
		return "MESSAGE_ACTIONS_PREFERENCE"
	case chat.TriggerMemberJoined, chat.TriggerMemberLeft, chat.TriggerMemberAdded, chat.TriggerMemberKicked,
		chat.TriggerMemberBanned, chat.TriggerMemberUnbanned, chat.TriggerMemberScopeChanged:
		return "GROUP_ACTIONS_PREFERENCE"
	case chat.TriggerCallInitiated, chat.TriggerCallRejected, chat.TriggerCallCancelled, chat.TriggerCallUnanswered:
		return "CALL_PREFERENCE"
	}
	return chat.ReasonPreference
}

// logReason is a record's reason as the hosted log spells it, where it has the same
// meaning; natter's finer or own reasons (notMentioned, online, channelOff, a provider's
// code …) stay natter's.
func logReason(l chat.NotificationLog) string {
	switch l.Reason {
	case chat.ReasonMuted:
		return "MUTE_PREFERENCE"
	case chat.ReasonDND:
		return "DND_PREFERENCE"
	case chat.ReasonQuietHours:
		return "SCHEDULE_PREFERENCE"
	case chat.ReasonPreference:
		if l.Attempt == 0 {
			return preferenceReason(l.Trigger)
		}
	case chat.ReasonNoDestination:
		switch l.Channel {
		case chat.ChannelEmail:
			return "MISSING_EMAIL"
		case chat.ChannelSMS:
			return "MISSING_PHNO"
		}
	}
	return l.Reason
}

// logReasonFilter turns a hosted reason filter into natter's stored reason, and the trigger
// or channel it implies. A hosted reason natter never gives (REPLIES_PREFERENCE, TIMED_OUT,
// …) stays as it is and matches nothing; natter's own values filter as they are.
func logReasonFilter(f *chat.NotificationLogQuery) {
	imply := func(reason, trigger string, channel chat.Channel) {
		if trigger != "" && f.Trigger != "" && f.Trigger != trigger || channel != "" && f.Channel != "" && f.Channel != channel {
			return // a contradiction: the hosted value stays and matches nothing
		}
		f.Reason = reason
		if trigger != "" {
			f.Trigger = trigger
		}
		if channel != "" {
			f.Channel = channel
		}
	}
	switch f.Reason {
	case "MUTE_PREFERENCE":
		imply(chat.ReasonMuted, "", "")
	case "DND_PREFERENCE":
		imply(chat.ReasonDND, "", "")
	case "SCHEDULE_PREFERENCE":
		imply(chat.ReasonQuietHours, "", "")
	case "MESSAGES_PREFERENCE":
		imply(chat.ReasonPreference, chat.TriggerMessageSent, "")
	case "REACTIONS_PREFERENCE":
		imply(chat.ReasonPreference, chat.TriggerReactionAdded, "")
	case "MISSING_EMAIL":
		imply(chat.ReasonNoDestination, "", chat.ChannelEmail)
	case "MISSING_PHNO":
		imply(chat.ReasonNoDestination, "", chat.ChannelSMS)
	}
	// GROUP_ACTIONS_PREFERENCE and MESSAGE_ACTIONS_PREFERENCE match nothing as they are:
	// natter logs no member change a preference refused (only those it notifies are
	// recipients) and sends no notification of edits and deletions.
}

func (s *Server) listNotificationLogs(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	var f chat.NotificationLogQuery
	id := func(name string) int64 {
		v := q.str(name)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			q.fail(name, "The "+name+" parameter must be a positive integer.")
		}
		return n
	}
	flag := func(name string) *bool {
		if q.str(name) == "" {
			return nil
		}
		b := q.boolean(name)
		return &b
	}
	f.MessageID, f.From, f.To, f.LogID = id("messageId"), id("from"), id("to"), id("logId")
	f.MessageCategory, f.MessageType, f.Trigger = q.str("messageCategory"), q.str("messageType"), q.str("trigger")
	if t, ok := storedTriggers[f.Trigger]; ok {
		f.Trigger = t
	}
	f.Sender, f.Receiver, f.ReceiverType, f.Recipient = q.str("sender"), q.str("receiver"), q.str("receiverType"), q.str("recipient")
	f.Provider, f.Reason = q.str("provider"), q.str("reason")
	f.ReactionSender, f.ReactionReceiver, f.ReactionID, f.Member = q.str("reactionSender"), q.str("reactionReceiver"), id("reactionId"), q.str("member")
	f.Triggered, f.Success = flag("notificationTriggered"), flag("success")
	switch c := q.str("channel"); c {
	case "", string(chat.ChannelPush), string(chat.ChannelSMS), string(chat.ChannelEmail):
		f.Channel = chat.Channel(c)
	default:
		q.fail("channel", "The channel parameter must be push, sms or email.")
	}
	logReasonFilter(&f)
	switch a := q.str("affix"); a {
	case "", "prepend":
	case "append":
		f.After = true
		if f.LogID == 0 {
			q.fail("logId", "The logId parameter is required with affix=append.")
		}
	default:
		q.fail("affix", "The affix parameter must be append or prepend.")
	}
	f.Limit = q.pageSize(chat.DefaultNotificationLogs, 1, chat.MaxNotificationLogs)
	if err := q.err(); err != nil {
		return err
	}
	logs, err := s.svc.Notifications().NotificationLogs(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]notificationLogJSON, len(logs))
	for i, l := range logs {
		id := strconv.FormatInt(l.ID, 10)
		o := notificationLogJSON{ID: id, LogID: id, ProcessingStartedAtMS: l.CreatedAt - l.LatencyMS, ProcessingEndedAtMS: l.CreatedAt,
			TotalProcessingTimeMS: l.LatencyMS, Component: logComponent, Channel: string(l.Channel), Provider: l.Provider,
			MessageID: l.MessageID, ReactionID: l.ReactionID, Trigger: logTrigger(l.Trigger), MessageCategory: l.MessageCategory,
			MessageType: l.MessageType, Sender: l.Sender, Receiver: l.Receiver, ReceiverType: l.ReceiverType, Member: l.Member,
			Recipient: l.Recipient, Payload: json.RawMessage(`{}`), NotificationTriggered: l.Triggered, Reason: logReason(l),
			Success: l.Success, Attempt: l.Attempt, Status: l.Status, LatencyMS: l.LatencyMS, CreatedAt: l.CreatedAt}
		if l.Trigger == chat.TriggerReactionAdded {
			// A reaction's record: who reacted, and the user told of it.
			o.ReactionSender, o.ReactionReceiver = l.Sender, l.Recipient
		}
		out[i] = o
	}
	var meta notificationLogsMeta
	meta.Current.Limit, meta.Current.Count = f.Limit, len(out)
	if len(out) == f.Limit {
		affix := "prepend"
		if f.After {
			affix = "append"
		}
		meta.Next = &notificationLogCursor{LogID: out[len(out)-1].LogID, Affix: affix}
	}
	writeData(w, r, out, meta)
	return nil
}

package httpapi

import (
	"net/http"
	"strconv"

	"github.com/natter-chat/natter/chat"
)

// The notification delivery log (GET /notifications/v1/logs, docs/notifications.md): one
// record per decision and per attempt to send, newest first, with the hosted operation's
// filters and its cursor (logId, affix).

type notificationLogJSON struct {
	LogID                 string `json:"logId"`
	Trigger               string `json:"trigger"`
	MessageID             string `json:"messageId,omitempty"`
	MessageCategory       string `json:"messageCategory,omitempty"`
	MessageType           string `json:"messageType,omitempty"`
	Sender                string `json:"sender,omitempty"`
	Receiver              string `json:"receiver,omitempty"`
	ReceiverType          string `json:"receiverType,omitempty"`
	Recipient             string `json:"recipient"`
	ReactionID            string `json:"reactionId,omitempty"`
	Member                string `json:"member,omitempty"`
	Channel               string `json:"channel"`
	Provider              string `json:"provider,omitempty"`
	NotificationTriggered bool   `json:"notificationTriggered"`
	Reason                string `json:"reason,omitempty"`
	Success               bool   `json:"success"`
	Attempt               int    `json:"attempt"`
	Status                int    `json:"status,omitempty"`
	LatencyMS             int64  `json:"latencyMs,omitempty"`
	CreatedAt             int64  `json:"createdAt"`
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
	logs, err := s.svc.NotificationLogs(r.Context(), p, f)
	if err != nil {
		return err
	}
	out := make([]notificationLogJSON, len(logs))
	for i, l := range logs {
		out[i] = notificationLogJSON{LogID: strconv.FormatInt(l.ID, 10), Trigger: l.Trigger, MessageCategory: l.MessageCategory,
			MessageType: l.MessageType, Sender: l.Sender, Receiver: l.Receiver, ReceiverType: l.ReceiverType, Recipient: l.Recipient,
			Channel: string(l.Channel), Provider: l.Provider, NotificationTriggered: l.Triggered, Reason: l.Reason, Success: l.Success,
			Attempt: l.Attempt, Status: l.Status, LatencyMS: l.LatencyMS, CreatedAt: l.CreatedAt, Member: l.Member}
		if l.ReactionID != 0 {
			out[i].ReactionID = strconv.FormatInt(l.ReactionID, 10)
		}
		if l.MessageID != 0 {
			out[i].MessageID = strconv.FormatInt(l.MessageID, 10)
		}
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

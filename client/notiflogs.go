package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// NotificationLog is one record of the notification delivery log.
type NotificationLog struct {
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

// NotificationLogCursor is where the next page starts: pass both back as query parameters.
type NotificationLogCursor struct {
	LogID string `json:"logId"`
	Affix string `json:"affix"`
}

// ListNotificationLogs reads a page of the app's notification log; filter takes the hosted
// operation's parameters (messageId, trigger, channel, success, logId, affix, limit, …). next
// is nil on the last page.
func (c *Client) ListNotificationLogs(ctx context.Context, filter url.Values) (logs []NotificationLog, next *NotificationLogCursor, err error) {
	env, err := c.call(ctx, http.MethodGet, "/notifications/v1/logs", filter, nil, &logs)
	if err != nil {
		return nil, nil, err
	}
	var meta struct {
		Next *NotificationLogCursor `json:"next"`
	}
	if len(env.Meta) > 0 {
		if err := json.Unmarshal(env.Meta, &meta); err != nil {
			return nil, nil, fmt.Errorf("natter: decode notification log meta: %w", err)
		}
	}
	return logs, meta.Next, nil
}

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// NotificationLog is one record of the notification delivery log, with the hosted log's
// keys. Trigger and Reason are spelled the hosted way where there is one (after_message,
// MUTE_PREFERENCE, …); TokenType, PushToken, ProviderID and Payload are always empty and
// MessageSentAtMS 0, as natter's log keeps neither the destination nor what was sent.
type NotificationLog struct {
	ID                      string          `json:"_id"`
	LogID                   string          `json:"logId"`
	ProcessingStartedAtMS   int64           `json:"processingStartedAtMS"`
	ProcessingEndedAtMS     int64           `json:"processingEndedAtMS"`
	TotalProcessingTimeInMS int64           `json:"totalProcessingTimeInMS"`
	Component               string          `json:"component"`
	Trigger                 string          `json:"trigger"`
	MessageID               int64           `json:"messageId,omitempty"`
	MessageSentAtMS         int64           `json:"messageSentAtMS"`
	MessageCategory         string          `json:"messageCategory,omitempty"`
	MessageType             string          `json:"messageType,omitempty"`
	Sender                  string          `json:"sender"`
	ReactionSender          string          `json:"reactionSender"`
	Receiver                string          `json:"receiver"`
	ReactionReceiver        string          `json:"reactionReceiver"`
	ReceiverType            string          `json:"receiverType"`
	Recipient               string          `json:"recipient"`
	ReactionID              int64           `json:"reactionId,omitempty"`
	Member                  string          `json:"member"`
	Channel                 string          `json:"channel"`
	Provider                string          `json:"provider,omitempty"`
	TokenType               string          `json:"tokenType"`
	PushToken               string          `json:"pushToken"`
	ProviderID              string          `json:"providerId"`
	Payload                 json.RawMessage `json:"payload"`
	NotificationTriggered   bool            `json:"notificationTriggered"`
	Reason                  string          `json:"reason,omitempty"`
	Success                 bool            `json:"success"`
	Attempt                 int             `json:"attempt"`
	Status                  int             `json:"status,omitempty"`
	LatencyMS               int64           `json:"latencyMs,omitempty"`
	CreatedAt               int64           `json:"createdAt"`
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

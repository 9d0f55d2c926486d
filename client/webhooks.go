package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Webhook is a webhook as natter answers it; SigningSecret is set only by CreateWebhook and
// RotateWebhookSecret, the one time the secret is shown.
type Webhook struct {
	ID             string          `json:"id"`
	WebhookURL     string          `json:"webhookURL"`
	Enabled        bool            `json:"enabled"`
	UseBasicAuth   bool            `json:"useBasicAuth"`
	Triggers       []string        `json:"triggers"`
	SigningSecrets []WebhookSecret `json:"signingSecrets"`
	SigningSecret  string          `json:"signingSecret,omitempty"`
	CreatedAt      int64           `json:"createdAt"`
	UpdatedAt      int64           `json:"updatedAt"`
}

// WebhookSecret describes an active signing secret, without its value.
type WebhookSecret struct {
	ID        string `json:"id"`
	CreatedAt int64  `json:"createdAt"`
	ExpiresAt int64  `json:"expiresAt,omitempty"`
}

// WebhookRequest is the body of CreateWebhook and UpdateWebhook; nil fields are not sent.
type WebhookRequest struct {
	ID           *string   `json:"id,omitempty"`
	WebhookURL   *string   `json:"webhookURL,omitempty"`
	Enabled      *bool     `json:"enabled,omitempty"`
	UseBasicAuth *bool     `json:"useBasicAuth,omitempty"`
	Username     *string   `json:"username,omitempty"`
	Password     *string   `json:"password,omitempty"`
	Triggers     *[]string `json:"triggers,omitempty"`
}

func webhookPath(id string) string { return "/webhooks/" + seg(id) }

// CreateWebhook creates a webhook; the answer's SigningSecret is shown only this once.
func (c *Client) CreateWebhook(ctx context.Context, req WebhookRequest) (*Webhook, error) {
	return c.webhookCall(ctx, http.MethodPost, "/webhooks", req)
}

// ListWebhooks lists the app's webhooks.
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	var out []Webhook
	if _, err := c.call(ctx, http.MethodGet, "/webhooks", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetWebhook reads one webhook.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	return c.webhookCall(ctx, http.MethodGet, webhookPath(id), nil)
}

// UpdateWebhook changes the fields set in req (ID must be nil).
func (c *Client) UpdateWebhook(ctx context.Context, id string, req WebhookRequest) (*Webhook, error) {
	return c.webhookCall(ctx, http.MethodPut, webhookPath(id), req)
}

// DeleteWebhook removes a webhook with its delivery log.
func (c *Client) DeleteWebhook(ctx context.Context, id string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, webhookPath(id), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// RotateWebhookSecret adds a signing secret (in the answer's SigningSecret); the previous
// ones keep signing for previousExpiresIn seconds, or the server's default (a day) when nil.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, previousExpiresIn *int64) (*Webhook, error) {
	body := struct {
		PreviousExpiresIn *int64 `json:"previousExpiresIn,omitempty"`
	}{previousExpiresIn}
	return c.webhookCall(ctx, http.MethodPost, webhookPath(id)+"/secrets", body)
}

func (c *Client) webhookCall(ctx context.Context, method, path string, body any) (*Webhook, error) {
	var w Webhook
	if _, err := c.call(ctx, method, path, nil, body, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// Delivery is one entry of a webhook's delivery log.
type Delivery struct {
	ID             string `json:"id"`
	EventID        string `json:"eventId"`
	Trigger        string `json:"trigger"`
	ConversationID string `json:"conversationId,omitempty"`
	State          string `json:"state"` // pending, delivered or dead
	Attempts       int    `json:"attempts"`
	LastStatus     int    `json:"lastStatus,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	LatencyMS      int64  `json:"latencyMs"`
	CreatedAt      int64  `json:"createdAt"`
	NextAt         int64  `json:"nextAt,omitempty"`
	DoneAt         int64  `json:"doneAt,omitempty"`
}

// DeliveriesParams filters and pages a delivery log: State (pending, delivered, dead),
// Before (the last id of the page before), Limit (1 to 100; default 25).
type DeliveriesParams struct {
	State  string
	Before string
	Limit  int
}

// ListDeliveries reads a webhook's delivery log, newest first.
func (c *Client) ListDeliveries(ctx context.Context, id string, p DeliveriesParams) ([]Delivery, error) {
	q := url.Values{}
	if p.State != "" {
		q.Set("state", p.State)
	}
	if p.Before != "" {
		q.Set("before", p.Before)
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var ds []Delivery
	if _, err := c.call(ctx, http.MethodGet, webhookPath(id)+"/deliveries", q, nil, &ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// ReplayRequest names what to deliver again: EventID ("evt_42"), or From and To (UNIX
// milliseconds, at most 7 days apart).
type ReplayRequest struct {
	EventID string `json:"eventId,omitempty"`
	From    int64  `json:"from,omitempty"`
	To      int64  `json:"to,omitempty"`
}

// Replay schedules deliveries again and returns how many.
func (c *Client) Replay(ctx context.Context, id string, r ReplayRequest) (int, error) {
	var out struct {
		Scheduled int `json:"scheduled"`
	}
	if _, err := c.call(ctx, http.MethodPost, webhookPath(id)+"/replay", nil, r, &out); err != nil {
		return 0, err
	}
	return out.Scheduled, nil
}

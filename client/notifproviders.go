package client

import (
	"context"
	"net/http"
)

// Notification providers: FCM and APNs (several per app, one the default), Twilio, SendGrid
// and a custom webhook per channel. Credentials are never answered: private keys not at
// all, other secrets masked.

// ServiceAccount is a Google service account's JSON, as the Firebase console gives it.
// Answers carry it without PrivateKey.
type ServiceAccount struct {
	Type         string `json:"type,omitempty"`
	ProjectID    string `json:"project_id"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id,omitempty"`
	PrivateKey   string `json:"private_key,omitempty"`
}

// PayloadNotification says whether pushes carry a visible notification block, for chat
// messages and for calls.
type PayloadNotification struct {
	Chat bool `json:"chat"`
	Call bool `json:"call"`
}

// NotificationInPayload is PayloadNotification per platform.
type NotificationInPayload struct {
	IOS     PayloadNotification `json:"ios"`
	Android PayloadNotification `json:"android"`
	Web     PayloadNotification `json:"web"`
}

// FCMProvider is an FCM provider as natter answers it.
type FCMProvider struct {
	ProviderID             string                `json:"providerId"`
	IsDefault              bool                  `json:"isDefault"`
	ServiceAccountFilename string                `json:"serviceAccountFilename,omitempty"`
	ServiceAccountCreds    ServiceAccount        `json:"serviceAccountCreds"`
	NotificationInPayload  NotificationInPayload `json:"notificationInPayload"`
	CreatedAt              int64                 `json:"createdAt"`
	UpdatedAt              int64                 `json:"updatedAt"`
}

// FCMProviderRequest creates or updates an FCM provider; nil fields are not sent.
type FCMProviderRequest struct {
	ProviderID             string                 `json:"providerId"`
	ServiceAccountFilename *string                `json:"serviceAccountFilename,omitempty"`
	ServiceAccountCreds    *ServiceAccount        `json:"serviceAccountCreds,omitempty"`
	NotificationInPayload  *NotificationInPayload `json:"notificationInPayload,omitempty"`
}

// APNsProvider is an APNs provider as natter answers it.
type APNsProvider struct {
	ProviderID              string `json:"providerId"`
	IsDefault               bool   `json:"isDefault"`
	KeyID                   string `json:"keyId"`
	TeamID                  string `json:"teamId"`
	BundleID                string `json:"bundleId"`
	P8KeyFilename           string `json:"p8KeyFilename,omitempty"`
	IncludeContentAvailable bool   `json:"includeContentAvailable"`
	IncludeMutableContent   bool   `json:"includeMutableContent"`
	ProductionMode          bool   `json:"productionMode"`
	CreatedAt               int64  `json:"createdAt"`
	UpdatedAt               int64  `json:"updatedAt"`
}

// APNsProviderRequest creates or updates an APNs provider; nil fields are not sent.
type APNsProviderRequest struct {
	ProviderID              string  `json:"providerId"`
	KeyID                   *string `json:"keyId,omitempty"`
	TeamID                  *string `json:"teamId,omitempty"`
	BundleID                *string `json:"bundleId,omitempty"`
	P8KeyFilename           *string `json:"p8KeyFilename,omitempty"`
	P8Key                   *string `json:"p8Key,omitempty"`
	IncludeContentAvailable *bool   `json:"includeContentAvailable,omitempty"`
	IncludeMutableContent   *bool   `json:"includeMutableContent,omitempty"`
	ProductionMode          *bool   `json:"productionMode,omitempty"`
}

// TwilioProvider is the Twilio provider; TwilioAuthToken is masked.
type TwilioProvider struct {
	TwilioAccountSID        string `json:"twilioAccountSID"`
	TwilioAuthToken         string `json:"twilioAuthToken"`
	TwilioSenderPhoneNumber string `json:"twilioSenderPhoneNumber"`
	IsEnabled               bool   `json:"isEnabled"`
}

// TwilioRequest saves or updates the Twilio provider; nil fields are not sent.
type TwilioRequest struct {
	TwilioAccountSID        *string `json:"twilioAccountSID,omitempty"`
	TwilioAuthToken         *string `json:"twilioAuthToken,omitempty"`
	TwilioSenderPhoneNumber *string `json:"twilioSenderPhoneNumber,omitempty"`
	IsEnabled               *bool   `json:"isEnabled,omitempty"`
}

// SendGridProvider is the SendGrid provider; SendGridAPIKey is masked.
type SendGridProvider struct {
	SendGridAPIKey             string `json:"sendGridApiKey"`
	SendGridTemplateID         string `json:"sendGridTemplateID"`
	SendGridUnsubscribeGroupID string `json:"sendGridUnsubscribeGroupID"`
	SenderName                 string `json:"senderName"`
	SenderEmail                string `json:"senderEmail"`
	AllowEmailReplies          bool   `json:"allowEmailReplies"`
	SenderEmailForReplies      string `json:"senderEmailForReplies,omitempty"`
	RepliesWebhook             string `json:"repliesWebhook"` // always empty: natter receives no email replies
	IsEnabled                  bool   `json:"isEnabled"`
}

// SendGridRequest saves or updates the SendGrid provider; nil fields are not sent.
type SendGridRequest struct {
	SendGridAPIKey             *string `json:"sendGridApiKey,omitempty"`
	SendGridTemplateID         *string `json:"sendGridTemplateID,omitempty"`
	SendGridUnsubscribeGroupID *string `json:"sendGridUnsubscribeGroupID,omitempty"`
	SenderName                 *string `json:"senderName,omitempty"`
	SenderEmail                *string `json:"senderEmail,omitempty"`
	AllowEmailReplies          *bool   `json:"allowEmailReplies,omitempty"`
	SenderEmailForReplies      *string `json:"senderEmailForReplies,omitempty"`
	IsEnabled                  *bool   `json:"isEnabled,omitempty"`
}

// CustomProvider is a channel's custom provider; BasicAuthPassword is masked.
// UseStoredPhNo is the SMS channel's, UseStoredEmailID the email channel's.
type CustomProvider struct {
	BasicAuthUsername string `json:"basicAuthUsername,omitempty"`
	BasicAuthPassword string `json:"basicAuthPassword,omitempty"`
	IsEnabled         bool   `json:"isEnabled"`
	UseBasicAuth      bool   `json:"useBasicAuth"`
	UseStoredPhNo     *bool  `json:"useStoredPhNo,omitempty"`
	UseStoredEmailID  *bool  `json:"useStoredEmailID,omitempty"`
	WebhookURL        string `json:"webhookURL"`
}

// CustomProviderRequest saves or updates a custom provider; nil fields are not sent.
type CustomProviderRequest struct {
	IsEnabled         *bool   `json:"isEnabled,omitempty"`
	WebhookURL        *string `json:"webhookURL,omitempty"`
	UseBasicAuth      *bool   `json:"useBasicAuth,omitempty"`
	BasicAuthUsername *string `json:"basicAuthUsername,omitempty"`
	BasicAuthPassword *string `json:"basicAuthPassword,omitempty"`
	UseStoredPhNo     *bool   `json:"useStoredPhNo,omitempty"`
	UseStoredEmailID  *bool   `json:"useStoredEmailID,omitempty"`
}

// The channels of custom providers.
const (
	ChannelPush  = "push"
	ChannelSMS   = "sms"
	ChannelEmail = "email"
)

const pushProviders = "/notifications/push/v1/providers/"

// ListFCMProviders lists the app's FCM providers, oldest first.
func (c *Client) ListFCMProviders(ctx context.Context) ([]FCMProvider, error) {
	var out struct {
		PushProviders []FCMProvider `json:"pushProviders"`
	}
	if _, err := c.call(ctx, http.MethodGet, pushProviders+"fcm", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.PushProviders, nil
}

// CreateFCMProvider adds an FCM provider; the app's first becomes its default.
func (c *Client) CreateFCMProvider(ctx context.Context, req FCMProviderRequest) (*Ack, error) {
	return c.ack(ctx, http.MethodPost, pushProviders+"fcm", req)
}

// UpdateFCMProvider changes the fields set in req of the provider req.ProviderID names.
func (c *Client) UpdateFCMProvider(ctx context.Context, req FCMProviderRequest) (*Ack, error) {
	return c.ack(ctx, http.MethodPut, pushProviders+"fcm", req)
}

// DeleteFCMProvider deletes an FCM provider (the default only when it is the last).
func (c *Client) DeleteFCMProvider(ctx context.Context, providerID string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, pushProviders+"fcm/"+seg(providerID), nil)
}

// SetDefaultFCMProvider makes an FCM provider the app's default.
func (c *Client) SetDefaultFCMProvider(ctx context.Context, providerID string) (*Ack, error) {
	return c.ack(ctx, http.MethodPut, pushProviders+"fcm/default/"+seg(providerID), nil)
}

// ListAPNsProviders lists the app's APNs providers, oldest first.
func (c *Client) ListAPNsProviders(ctx context.Context) ([]APNsProvider, error) {
	var out struct {
		PushProviders []APNsProvider `json:"pushProviders"`
	}
	if _, err := c.call(ctx, http.MethodGet, pushProviders+"apns", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.PushProviders, nil
}

// CreateAPNsProvider adds an APNs provider; the app's first becomes its default.
func (c *Client) CreateAPNsProvider(ctx context.Context, req APNsProviderRequest) (*Ack, error) {
	return c.ack(ctx, http.MethodPost, pushProviders+"apns", req)
}

// UpdateAPNsProvider changes the fields set in req of the provider req.ProviderID names.
func (c *Client) UpdateAPNsProvider(ctx context.Context, req APNsProviderRequest) (*Ack, error) {
	return c.ack(ctx, http.MethodPut, pushProviders+"apns", req)
}

// DeleteAPNsProvider deletes an APNs provider (the default only when it is the last).
func (c *Client) DeleteAPNsProvider(ctx context.Context, providerID string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, pushProviders+"apns/"+seg(providerID), nil)
}

// SetDefaultAPNsProvider makes an APNs provider the app's default.
func (c *Client) SetDefaultAPNsProvider(ctx context.Context, providerID string) (*Ack, error) {
	return c.ack(ctx, http.MethodPut, pushProviders+"apns/default/"+seg(providerID), nil)
}

const twilioPath, sendGridPath = "/notifications/sms/v1/providers/twilio", "/notifications/email/v1/providers/sendgrid"

// GetTwilioProvider reads the app's Twilio provider.
func (c *Client) GetTwilioProvider(ctx context.Context) (*TwilioProvider, error) {
	return c.twilio(ctx, http.MethodGet, nil)
}

// CreateTwilioProvider saves the app's Twilio provider.
func (c *Client) CreateTwilioProvider(ctx context.Context, req TwilioRequest) (*TwilioProvider, error) {
	return c.twilio(ctx, http.MethodPost, req)
}

// UpdateTwilioProvider changes the fields set in req.
func (c *Client) UpdateTwilioProvider(ctx context.Context, req TwilioRequest) (*TwilioProvider, error) {
	return c.twilio(ctx, http.MethodPut, req)
}

// DeleteTwilioProvider deletes the app's Twilio provider.
func (c *Client) DeleteTwilioProvider(ctx context.Context) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, twilioPath, nil)
}

func (c *Client) twilio(ctx context.Context, method string, body any) (*TwilioProvider, error) {
	var t TwilioProvider
	if _, err := c.call(ctx, method, twilioPath, nil, body, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// GetSendGridProvider reads the app's SendGrid provider.
func (c *Client) GetSendGridProvider(ctx context.Context) (*SendGridProvider, error) {
	return c.sendGrid(ctx, http.MethodGet, nil)
}

// CreateSendGridProvider saves the app's SendGrid provider.
func (c *Client) CreateSendGridProvider(ctx context.Context, req SendGridRequest) (*SendGridProvider, error) {
	return c.sendGrid(ctx, http.MethodPost, req)
}

// UpdateSendGridProvider changes the fields set in req.
func (c *Client) UpdateSendGridProvider(ctx context.Context, req SendGridRequest) (*SendGridProvider, error) {
	return c.sendGrid(ctx, http.MethodPut, req)
}

// DeleteSendGridProvider deletes the app's SendGrid provider.
func (c *Client) DeleteSendGridProvider(ctx context.Context) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, sendGridPath, nil)
}

func (c *Client) sendGrid(ctx context.Context, method string, body any) (*SendGridProvider, error) {
	var g SendGridProvider
	if _, err := c.call(ctx, method, sendGridPath, nil, body, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

func customPath(channel string) string {
	return "/notifications/" + seg(channel) + "/v1/providers/custom"
}

// GetCustomProvider reads a channel's custom provider (ChannelPush, ChannelSMS,
// ChannelEmail); nil, without error, when the push channel has none.
func (c *Client) GetCustomProvider(ctx context.Context, channel string) (*CustomProvider, error) {
	return c.custom(ctx, http.MethodGet, channel, nil)
}

// CreateCustomProvider saves a channel's custom provider.
func (c *Client) CreateCustomProvider(ctx context.Context, channel string, req CustomProviderRequest) (*CustomProvider, error) {
	return c.custom(ctx, http.MethodPost, channel, req)
}

// UpdateCustomProvider changes the fields set in req.
func (c *Client) UpdateCustomProvider(ctx context.Context, channel string, req CustomProviderRequest) (*CustomProvider, error) {
	return c.custom(ctx, http.MethodPut, channel, req)
}

// DeleteCustomProvider deletes a channel's custom provider.
func (c *Client) DeleteCustomProvider(ctx context.Context, channel string) (*Ack, error) {
	return c.ack(ctx, http.MethodDelete, customPath(channel), nil)
}

// custom calls a custom provider's path; the push channel answers in a pushProviders list.
func (c *Client) custom(ctx context.Context, method, channel string, body any) (*CustomProvider, error) {
	if channel != ChannelPush {
		var cp CustomProvider
		if _, err := c.call(ctx, method, customPath(channel), nil, body, &cp); err != nil {
			return nil, err
		}
		return &cp, nil
	}
	var out struct {
		PushProviders []CustomProvider `json:"pushProviders"`
	}
	if _, err := c.call(ctx, method, customPath(channel), nil, body, &out); err != nil || len(out.PushProviders) == 0 {
		return nil, err
	}
	return &out.PushProviders[0], nil
}

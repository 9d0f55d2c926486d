package client

import (
	"context"
	"net/http"
	"net/url"
)

// Push tokens: a device's token registered for one of its user's auth tokens. A client made
// WithAuthToken acts on that token and leaves AuthToken empty; a client with an API key names
// the auth token.

// PushToken is a registered push token; AuthToken is masked, the times ISO 8601.
type PushToken struct {
	AuthToken     string `json:"authToken"`
	PushTokenType string `json:"pushTokenType"`
	CreatedAt     string `json:"createdAt"`
	Platform      string `json:"platform"`
	ProviderID    string `json:"providerId"`
	PushToken     string `json:"pushToken"`
	UID           string `json:"uid"`
	UpdatedAt     string `json:"updatedAt"`
}

// PushTokenRequest registers a push token: the platform, the token in the field of its kind
// (FCMToken for fcm_*, DeviceToken for apns_*_device, VoIPToken for apns_*_voip), the
// provider ("default" when empty), the device's time zone; AuthToken with an API key.
type PushTokenRequest struct {
	Platform    string `json:"platform"`
	ProviderID  string `json:"providerId,omitempty"`
	FCMToken    string `json:"fcmToken,omitempty"`
	DeviceToken string `json:"deviceToken,omitempty"`
	VoIPToken   string `json:"voipToken,omitempty"`
	AuthToken   string `json:"authToken,omitempty"`
	Timezone    string `json:"timezone,omitempty"`
}

const pushTokensPath = "/notifications/push/v1/tokens"

// authTokenBody is the body naming an auth token, or no body when there is none to name.
func authTokenBody(authToken string) any {
	if authToken == "" {
		return nil
	}
	return map[string]string{"authToken": authToken}
}

// RegisterPushToken registers a push token for an auth token.
func (c *Client) RegisterPushToken(ctx context.Context, req PushTokenRequest) (*Ack, error) {
	return c.ack(ctx, http.MethodPost, pushTokensPath, req)
}

// ListPushTokens lists the push tokens of an auth token, or with all every push token of its
// user.
func (c *Client) ListPushTokens(ctx context.Context, authToken string, all bool) ([]PushToken, error) {
	q := url.Values{}
	if authToken != "" {
		q.Set("authToken", authToken)
	}
	if all {
		q.Set("all", "true")
	}
	var out struct {
		PushTokens []PushToken `json:"pushTokens"`
	}
	if _, err := c.call(ctx, http.MethodGet, pushTokensPath, q, nil, &out); err != nil {
		return nil, err
	}
	return out.PushTokens, nil
}

// UnregisterPushTokens deletes the push tokens of an auth token, or with all every push
// token of its user, and returns them.
func (c *Client) UnregisterPushTokens(ctx context.Context, authToken string, all bool) ([]PushToken, error) {
	var q url.Values
	if all {
		q = url.Values{"all": {"true"}}
	}
	var out struct {
		PushTokens []PushToken `json:"pushTokens"`
	}
	if _, err := c.call(ctx, http.MethodDelete, pushTokensPath, q, authTokenBody(authToken), &out); err != nil {
		return nil, err
	}
	return out.PushTokens, nil
}

// DeletePushToken deletes one push token of the auth token's user.
func (c *Client) DeletePushToken(ctx context.Context, pushToken, authToken string) (*PushToken, error) {
	var out struct {
		PushTokens []PushToken `json:"pushTokens"`
	}
	if _, err := c.call(ctx, http.MethodDelete, pushTokensPath+"/"+seg(pushToken), nil, authTokenBody(authToken), &out); err != nil {
		return nil, err
	}
	if len(out.PushTokens) == 0 {
		return nil, nil
	}
	return &out.PushTokens[0], nil
}

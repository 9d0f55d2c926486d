package client

import (
	"context"
	"net/http"
)

// Sessions: what a client app calls with a user's auth token (WithAuthToken) to log in and
// reach the real-time socket, as CometChat's JavaScript SDK does.

// WithAuthToken authenticates as a user with one of its auth tokens (the authToken header)
// instead of an API key; make the client with an empty apiKey.
func WithAuthToken(token string) Option { return WithHeader("authToken", token) }

// AppSettings are the settings that point a client SDK at the deployment.
type AppSettings struct {
	ChatHost              string `json:"CHAT_HOST"`
	ChatWSSPort           string `json:"CHAT_WSS_PORT"`
	ChatUseSSL            bool   `json:"CHAT_USE_SSL"`
	AdminAPIHost          string `json:"ADMIN_API_HOST"`
	ClientAPIHost         string `json:"CLIENT_API_HOST"`
	ChatAPIVersion        string `json:"CHAT_API_VERSION"`
	Mode                  string `json:"MODE"`
	AnalyticsPingDisabled bool   `json:"ANALYTICS_PING_DISABLED"`
	DenyFallbackToPolling bool   `json:"DENY_FALLBACK_TO_POLLING"`
	AppVersion            int    `json:"APP_VERSION"`
	Region                string `json:"REGION"`
	// WSAPIVersion is the version segment of the chat host's path for online counts.
	WSAPIVersion string `json:"WS_API_VERSION"`
	// Parameters are the feature flags the SDK's isFeatureEnabled reads.
	Parameters map[string]any `json:"parameters"`
}

// Me is the session's user with its auth token, socket credential and settings.
type Me struct {
	User
	JWT      string      `json:"jwt"`
	Settings AppSettings `json:"settings"`
}

// Me starts (PUT /me) the session of the auth token the client sends and returns its user,
// socket credential (JWT, for the socket's auth frame) and settings.
func (c *Client) Me(ctx context.Context) (*Me, error) {
	var m Me
	if _, err := c.call(ctx, http.MethodPut, "/me", nil, map[string]any{}, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Logout deletes the auth token the client sends (DELETE /me).
func (c *Client) Logout(ctx context.Context) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, "/me", nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// Settings reads the app settings a client SDK uses (GET /settings).
func (c *Client) Settings(ctx context.Context) (*AppSettings, error) {
	var s AppSettings
	if _, err := c.call(ctx, http.MethodGet, "/settings", nil, nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// CurrentUser reads the session's user with a fresh socket credential (GET /me).
func (c *Client) CurrentUser(ctx context.Context) (*Me, error) {
	var m Me
	if _, err := c.call(ctx, http.MethodGet, "/me", nil, nil, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// RecordSession is the SDK's POST /user_sessions after login.
func (c *Client) RecordSession(ctx context.Context) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodPost, "/user_sessions", nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

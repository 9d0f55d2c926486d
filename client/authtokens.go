package client

import (
	"context"
	"net/http"
	"net/url"
)

// AuthToken is a user's auth token. AuthToken is the full token on create, get and update,
// and masked in lists.
type AuthToken struct {
	UID       string         `json:"uid"`
	AuthToken string         `json:"authToken"`
	CreatedAt int64          `json:"createdAt"`
	Platform  string         `json:"platform,omitempty"`
	UserAgent string         `json:"userAgent,omitempty"`
	AppInfo   map[string]any `json:"appInfo,omitempty"`
}

// CreateAuthTokenRequest is the body of POST /users/{uid}/auth_tokens.
type CreateAuthTokenRequest struct {
	Force     bool           `json:"force,omitempty"`
	Platform  string         `json:"platform,omitempty"`
	UserAgent string         `json:"userAgent,omitempty"`
	AppInfo   map[string]any `json:"appInfo,omitempty"`
}

// UpdateAuthTokenRequest is the body of PUT /users/{uid}/auth_tokens/{authToken}; nil
// fields are left unchanged.
type UpdateAuthTokenRequest struct {
	Platform  *string        `json:"platform,omitempty"`
	UserAgent *string        `json:"userAgent,omitempty"`
	AppInfo   map[string]any `json:"appInfo,omitempty"`
}

// AuthTokenList is one page of a user's auth tokens.
type AuthTokenList struct {
	Tokens     []AuthToken
	Pagination Pagination
}

// WithAuthToken returns a copy of c that authenticates as a client app does: with the
// user's auth token instead of an API key (and with no onBehalfOf: the token names the user).
// The app comes from the host or an appId header (WithHeader).
func (c *Client) WithAuthToken(token string) *Client {
	cp := *c
	cp.apiKey = ""
	cp.header = c.header.Clone()
	cp.header.Del("onBehalfOf")
	cp.header.Set("authToken", token)
	return &cp
}

func tokensPath(uid string) string { return "/users/" + seg(uid) + "/auth_tokens" }

// CreateAuthToken makes a new auth token for the user uid.
func (c *Client) CreateAuthToken(ctx context.Context, uid string, r CreateAuthTokenRequest) (*AuthToken, error) {
	var t AuthToken
	if _, err := c.call(ctx, http.MethodPost, tokensPath(uid), nil, r, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// ListAuthTokens returns one page of the user's tokens, masked; zero values are not sent.
func (c *Client) ListAuthTokens(ctx context.Context, uid string, perPage, page int) (*AuthTokenList, error) {
	q := url.Values{}
	setInt(q, "perPage", perPage)
	setInt(q, "page", page)
	var out AuthTokenList
	env, err := c.call(ctx, http.MethodGet, tokensPath(uid), q, nil, &out.Tokens)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAuthToken returns the user's token named token.
func (c *Client) GetAuthToken(ctx context.Context, uid, token string) (*AuthToken, error) {
	var t AuthToken
	if _, err := c.call(ctx, http.MethodGet, tokensPath(uid)+"/"+seg(token), nil, nil, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// UpdateAuthToken changes what the token says about its client.
func (c *Client) UpdateAuthToken(ctx context.Context, uid, token string, r UpdateAuthTokenRequest) (*AuthToken, error) {
	var t AuthToken
	if _, err := c.call(ctx, http.MethodPut, tokensPath(uid)+"/"+seg(token), nil, r, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// DeleteAuthToken deletes the user's token named token.
func (c *Client) DeleteAuthToken(ctx context.Context, uid, token string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, tokensPath(uid)+"/"+seg(token), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// FlushAuthTokens deletes every token of the user.
func (c *Client) FlushAuthTokens(ctx context.Context, uid string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, tokensPath(uid), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

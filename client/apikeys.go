package client

import (
	"context"
	"net/http"
	"net/url"
)

// APIKey is an API key. APIKey is the full key on create and get, and masked in lists.
type APIKey struct {
	APIKey    string `json:"apiKey"`
	Name      string `json:"name"`
	Scope     string `json:"scope"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt,omitempty"`
}

// APIKeyList is one page of API keys.
type APIKeyList struct {
	Keys       []APIKey
	Pagination Pagination
}

// ListAPIKeysParams are the query parameters of GET /apikeys; zero values are not sent.
type ListAPIKeysParams struct {
	Scope     string
	SearchKey string
	PerPage   int
	Page      int
}

type apiKeyRequest struct {
	Name  *string `json:"name,omitempty"`
	Scope *string `json:"scope,omitempty"`
}

// CreateAPIKey creates a key; an empty scope leaves the choice to the server.
func (c *Client) CreateAPIKey(ctx context.Context, name, scope string) (*APIKey, error) {
	body := apiKeyRequest{Name: &name}
	if scope != "" {
		body.Scope = &scope
	}
	var k APIKey
	if _, err := c.call(ctx, http.MethodPost, "/apikeys", nil, body, &k); err != nil {
		return nil, err
	}
	return &k, nil
}

// ListAPIKeys returns one page of the app's keys.
func (c *Client) ListAPIKeys(ctx context.Context, p ListAPIKeysParams) (*APIKeyList, error) {
	q := url.Values{}
	setStr(q, "scope", p.Scope)
	setStr(q, "searchKey", p.SearchKey)
	setInt(q, "perPage", p.PerPage)
	setInt(q, "page", p.Page)
	var out APIKeyList
	env, err := c.call(ctx, http.MethodGet, "/apikeys", q, nil, &out.Keys)
	if err != nil {
		return nil, err
	}
	if out.Pagination, err = pageOf(env); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAPIKey returns the key named key.
func (c *Client) GetAPIKey(ctx context.Context, key string) (*APIKey, error) {
	var k APIKey
	if _, err := c.call(ctx, http.MethodGet, "/apikeys/"+seg(key), nil, nil, &k); err != nil {
		return nil, err
	}
	return &k, nil
}

// UpdateAPIKey changes the key's name and scope; nil leaves a field unchanged.
func (c *Client) UpdateAPIKey(ctx context.Context, key string, name, scope *string) (*APIKey, error) {
	var k APIKey
	body := apiKeyRequest{Name: name, Scope: scope}
	if _, err := c.call(ctx, http.MethodPut, "/apikeys/"+seg(key), nil, body, &k); err != nil {
		return nil, err
	}
	return &k, nil
}

// DeleteAPIKey deletes the key named key.
func (c *Client) DeleteAPIKey(ctx context.Context, key string) (*Ack, error) {
	var a Ack
	if _, err := c.call(ctx, http.MethodDelete, "/apikeys/"+seg(key), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

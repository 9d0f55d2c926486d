package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// The data import kinds, each the last segment of its path (/data_import/<kind>) and its
// body's wrapper key.
const (
	ImportUsers    = "users"
	ImportGroups   = "groups"
	ImportMembers  = "members"
	ImportMessages = "messages"
)

// ImportItem is one item of an import: its key (uid, guid, "<guid>_member_<uid>", muid)
// and its JSON object in the hosted service's shape.
type ImportItem struct {
	Key  string
	Item json.RawMessage
}

// ImportResult is one key's answer: Success with the item as stored in Data (Skipped when
// it was imported before with the same content), or Error.
type ImportResult struct {
	Success bool            `json:"success"`
	Skipped bool            `json:"skipped,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   *ErrorBody      `json:"error,omitempty"`
}

// ErrorBody is an error object as it appears inside a per-item answer.
type ErrorBody struct {
	Code       string              `json:"code"`
	Message    string              `json:"message"`
	DevMessage string              `json:"devMessage"`
	Details    map[string][]string `json:"details,omitempty"`
}

// Import posts one batch of kind (ImportUsers, …) with the items in their order, and
// returns each key's answer. At most 1,000 items per call.
func (c *Client) Import(ctx context.Context, kind string, items []ImportItem) (map[string]ImportResult, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{%q:{`, kind)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(it.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(it.Item)
	}
	b.WriteString("}}")
	var out map[string]ImportResult
	err := c.Do(ctx, http.MethodPost, "/data_import/"+kind, json.RawMessage(b.Bytes()), &out)
	return out, err
}

// ImportUsers imports users keyed by uid.
func (c *Client) ImportUsers(ctx context.Context, items []ImportItem) (map[string]ImportResult, error) {
	return c.Import(ctx, ImportUsers, items)
}

// ImportGroups imports groups keyed by guid.
func (c *Client) ImportGroups(ctx context.Context, items []ImportItem) (map[string]ImportResult, error) {
	return c.Import(ctx, ImportGroups, items)
}

// ImportMembers imports group members keyed by "<guid>_member_<uid>".
func (c *Client) ImportMembers(ctx context.Context, items []ImportItem) (map[string]ImportResult, error) {
	return c.Import(ctx, ImportMembers, items)
}

// ImportMessages imports messages keyed by muid.
func (c *Client) ImportMessages(ctx context.Context, items []ImportItem) (map[string]ImportResult, error) {
	return c.Import(ctx, ImportMessages, items)
}

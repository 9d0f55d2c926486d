// Package client is a Go client for natter's REST API, which is wire-compatible with
// CometChat's REST API v3.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxResponseBytes bounds how much of a response body is read, so a misbehaving server
// cannot make the client allocate without limit.
const maxResponseBytes = 16 << 20

// Client calls one natter server with one API key. It is safe for concurrent use.
type Client struct {
	baseURL string
	prefix  string
	apiKey  string
	http    *http.Client
	header  http.Header
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client; the default is http.DefaultClient.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithHeader adds a header to every request, such as "appId" when the host name does not
// name the app.
func WithHeader(key, value string) Option { return func(c *Client) { c.header.Set(key, value) } }

// WithVersionPrefix sets the version prefix of every path; the default is "/v3", and the
// server also answers under "/v3.0".
func WithVersionPrefix(p string) Option {
	return func(c *Client) { c.prefix = strings.TrimSuffix(p, "/") }
}

// New returns a client for the server at baseURL (scheme and host, without the version
// prefix). An empty apiKey sends no apikey header, which lets tests exercise that error.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{baseURL: strings.TrimSuffix(baseURL, "/"), prefix: "/v3", apiKey: apiKey,
		http: http.DefaultClient, header: http.Header{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// OnBehalfOf returns a copy of c that acts as the user uid, as the onBehalfOf header asks.
// An empty uid returns a copy without the header.
func (c *Client) OnBehalfOf(uid string) *Client {
	cp := *c
	cp.header = c.header.Clone() // the copy must not change the headers of c
	if uid == "" {
		cp.header.Del("onBehalfOf")
	} else {
		cp.header.Set("onBehalfOf", uid)
	}
	return &cp
}

// IdempotencyKey returns a copy of c whose writes carry the Idempotency-Key header key: the
// server runs a write once per key, and a retry with the same key and the same request
// gets the first answer (docs/idempotency.md). Use one key per intended write, such as a
// send to several receivers that may be retried. An empty key returns a copy without it.
func (c *Client) IdempotencyKey(key string) *Client {
	cp := *c
	cp.header = c.header.Clone()
	if key == "" {
		cp.header.Del("Idempotency-Key")
	} else {
		cp.header.Set("Idempotency-Key", key)
	}
	return &cp
}

// Error is an error response: the API's error envelope, with the HTTP status and headers.
type Error struct {
	Status     int                 `json:"-"`
	Code       string              `json:"code"`
	Message    string              `json:"message"`
	DevMessage string              `json:"devMessage"`
	Source     string              `json:"source"`
	Details    map[string][]string `json:"details,omitempty"`
	Header     http.Header         `json:"-"`
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("natter: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("natter: HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// Ack is the acknowledgement of a delete.
type Ack struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// Pagination is meta.pagination of page-based lists.
type Pagination struct {
	Total       int `json:"total"`
	Count       int `json:"count"`
	PerPage     int `json:"per_page"`
	CurrentPage int `json:"current_page"`
	TotalPages  int `json:"total_pages"`
}

// envelope is the success body; meta stays raw because its shape differs per endpoint.
type envelope struct {
	Data json.RawMessage `json:"data"`
	Meta json.RawMessage `json:"meta"`
}

// Do sends one request and decodes the response's data member into out (unless out is nil).
// path is relative to the version prefix and used as written, so it must already be escaped;
// it may carry a query string. A nil body sends no body; a json.RawMessage or []byte body is
// sent verbatim, anything else is encoded as JSON. An error response is an *Error.
func (c *Client) Do(ctx context.Context, method, path string, body any, out any) error {
	env, err := c.send(ctx, method, path, nil, body)
	if err != nil {
		return err
	}
	return decodeData(env, out)
}

// call is Do with query parameters, returning the whole envelope for callers that need meta.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body any, out any) (*envelope, error) {
	env, err := c.send(ctx, method, path, query, body)
	if err != nil {
		return nil, err
	}
	return env, decodeData(env, out)
}

func decodeData(env *envelope, out any) error {
	if out == nil || len(env.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("natter: decode response data: %w", err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any) (*envelope, error) {
	// Parsing the escaped path keeps RawPath, so an escaped "/" (%2F) inside a segment is
	// sent as written rather than re-encoded from the decoded path.
	u, err := url.Parse(c.baseURL + c.prefix + path)
	if err != nil {
		return nil, fmt.Errorf("natter: %s %s: %w", method, path, err)
	}
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := encodeBody(body)
		if err != nil {
			return nil, fmt.Errorf("natter: %s %s: encode body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("natter: %s %s: %w", method, path, err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if c.apiKey != "" {
		req.Header.Set("apikey", c.apiKey)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("natter: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("natter: %s %s: read response: %w", method, path, err)
	}
	if len(raw) > maxResponseBytes {
		return nil, fmt.Errorf("natter: %s %s: response larger than %d bytes", method, path, maxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, errorFrom(resp, raw)
	}
	var env envelope
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("natter: %s %s: decode response: %w", method, path, err)
		}
	}
	return &env, nil
}

func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case json.RawMessage:
		return b, nil
	case []byte:
		return b, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // reactions and texts are sent as typed, not as \u003c escapes
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// errorFrom builds the *Error of a non-2xx response. A body that is not the error envelope
// (a proxy's HTML page, say) still yields an *Error, with the start of the body as message.
func errorFrom(resp *http.Response, raw []byte) *Error {
	var body struct {
		Error *Error `json:"error"`
	}
	e := &Error{}
	if err := json.Unmarshal(raw, &body); err == nil && body.Error != nil {
		e = body.Error
	} else {
		e.Message = truncate(strings.TrimSpace(string(raw)), 200)
	}
	e.Status, e.Header = resp.StatusCode, resp.Header
	return e
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// seg escapes one path segment. A segment of only dots is escaped too, because "." and ".."
// would otherwise be removed as dot segments on the way to the handler.
func seg(s string) string {
	if s != "" && strings.Trim(s, ".") == "" {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// decodeJSON reads the request body into v. An empty body decodes as {}, so that required
// fields are reported as missing rather than the body as malformed.
func decodeJSON(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if isTooLarge(err) {
			var mb *http.MaxBytesError
			errors.As(err, &mb)
			return errBodyTooLarge(mb.Limit)
		}
		return chat.Errorf(chat.CodeBadRequest, "The request body could not be read.")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return errInvalidUTF8(body, v)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return wire.JSONError(err)
	}
	if dec.More() {
		return chat.Errorf(chat.CodeBadRequest, "The request body must be a single JSON object.")
	}
	return nil
}

// query reads typed query parameters, collecting failures as field details. It reads only
// the names its caller asks for: a parameter natter does not know is ignored, as the hosted
// service ignores it, since real clients (the official SDK and UI Kits) send more than the
// reference documents. A known parameter with a bad value is refused, naming it.
type query struct {
	v      url.Values
	errors map[string][]string
}

func newQuery(r *http.Request) *query { return &query{v: r.URL.Query(), errors: map[string][]string{}} }

func (q *query) str(name string) string { return q.v.Get(name) }

func (q *query) fail(name, msg string) { q.errors[name] = append(q.errors[name], msg) }

// list reads a comma-separated parameter (OpenAPI form style, explode false); repeated
// parameters are accepted too.
func (q *query) list(name string) []string {
	var out []string
	for _, v := range q.v[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (q *query) boolean(name string) bool {
	s := q.v.Get(name)
	if s == "" {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		q.fail(name, "The "+name+" parameter must be true or false.")
	}
	return b
}

func (q *query) integer(name string, def, min, max int) int {
	s := q.v.Get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		q.fail(name, fmt.Sprintf("The %s parameter must be an integer from %d to %d.", name, min, max))
		return def
	}
	return n
}

// int64At reads a whole-number parameter, nil when it is absent; one that is not a whole
// number is refused naming it. The bounds are chat's to check.
func (q *query) int64At(name string) *int64 {
	s := q.v.Get(name)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		q.fail(name, "The "+name+" parameter must be a whole number.")
		return nil
	}
	return &n
}

// timeRange reads the hosted service's range of a time, name[from] and name[to].
func (q *query) timeRange(name string) chat.Range {
	return chat.Range{From: q.int64At(name + "[from]"), To: q.int64At(name + "[to]")}
}

// countFilter reads the hosted service's comparisons of a count, name[gt], name[gte],
// name[lt], name[lte] and name[eq].
func (q *query) countFilter(name string) chat.CountFilter {
	return chat.CountFilter{GT: q.int64At(name + "[gt]"), GTE: q.int64At(name + "[gte]"), LT: q.int64At(name + "[lt]"),
		LTE: q.int64At(name + "[lte]"), EQ: q.int64At(name + "[eq]")}
}

// pageSizeNames are the names a page's size comes under, in the order they are read: the
// hosted reference says limit on some lists and perPage on others, and CometChat's
// JavaScript SDK sends per_page on every list it pages.
var pageSizeNames = []string{"limit", "perPage", "per_page"}

// pageSize reads a page's size under the first of its names the request uses, def when it
// uses none; a value out of [min, max] is refused naming the parameter as it was sent.
func (q *query) pageSize(def, min, max int) int {
	for _, name := range pageSizeNames {
		if q.v.Has(name) {
			return q.integer(name, def, min, max)
		}
	}
	return def
}

func (q *query) page() chat.Page {
	return chat.Page{
		PerPage: q.pageSize(chat.DefaultPerPage, 1, chat.MaxPerPage),
		Number:  q.integer("page", 1, 1, 1<<20),
	}
}

func (q *query) err() error {
	if len(q.errors) == 0 {
		return nil
	}
	return chat.Invalid(q.errors)
}

// permanentFlag reads a delete's permanent flag, from the body or the query: the hosted
// service documents the body, and its SDKs send the query.
func permanentFlag(r *http.Request) (bool, error) {
	var req struct {
		Permanent bool `json:"permanent"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return false, err
	}
	q := newQuery(r)
	permanent := req.Permanent || q.boolean("permanent")
	return permanent, q.err()
}

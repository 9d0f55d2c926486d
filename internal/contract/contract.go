// Package contract checks natter's HTTP responses against api/openapi.yaml in tests.
//
// It uses github.com/pb33f/libopenapi-validator: built for OpenAPI 3.1, it checks a response's
// status, content type, headers and body with a full JSON Schema 2020-12 engine, where
// kin-openapi's 3.1 support is recent and grafted onto its 3.0 model. Pinned at v0.14.0: later
// releases need modules (pb33f/go-yaml, pb33f/jsonschema) the module proxy does not serve.
package contract

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Spec is a loaded, checked OpenAPI document. It is safe for concurrent use.
type Spec struct {
	path    string
	model   *v3.Document
	val     validator.Validator
	schemas schema_validation.SchemaValidator
	ops     []operation
	// errorSchemas are the error bodies of requests no operation describes, by status.
	errorSchemas map[int]*base.Schema
	// schemasMu serialises checks against errorSchemas: the schema validator renders a
	// schema before compiling it, and rendering writes into the shared *base.Schema, a
	// data race when two tests check an unrouted answer at once (seen under -race).
	schemasMu sync.Mutex
}

type operation struct {
	method string
	path   string   // as written in the spec, relative to the /v3 server
	segs   []string // path segments, "" where the segment is a parameter
}

// Load reads an OpenAPI 3.1 document, builds it, and checks it against the OpenAPI 3.1
// specification schema.
func Load(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1") {
		return nil, fmt.Errorf("%s: OpenAPI %s, want 3.1", path, v)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("%s: build model: %w", path, err)
	}
	val, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: build validator: %v", path, errs)
	}
	if ok, verrs := val.ValidateDocument(); !ok {
		var msgs []string
		for _, e := range verrs {
			msgs = append(msgs, describe(e))
		}
		return nil, fmt.Errorf("%s is not valid OpenAPI 3.1:\n  - %s", path, strings.Join(msgs, "\n  - "))
	}
	s := &Spec{
		path:         path,
		model:        &m.Model,
		val:          val,
		schemas:      schema_validation.NewSchemaValidatorWithLogger(slog.New(slog.DiscardHandler), config.WithoutSecurityValidation()),
		errorSchemas: map[int]*base.Schema{},
	}
	if s.model.Paths != nil {
		for p, item := range s.model.Paths.PathItems.FromOldest() {
			var segs []string
			for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
				if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
					seg = ""
				}
				segs = append(segs, seg)
			}
			for method := range item.GetOperations().FromOldest() {
				s.ops = append(s.ops, operation{method: strings.ToUpper(method), path: p, segs: segs})
			}
		}
	}
	for _, status := range []int{401, 404, 405, 413, 429, 501, 503} {
		name := "Error" + strconv.Itoa(status)
		var sp *base.SchemaProxy
		if s.model.Components != nil && s.model.Components.Schemas != nil {
			sp = s.model.Components.Schemas.GetOrZero(name)
		}
		if sp == nil || sp.Schema() == nil {
			return nil, fmt.Errorf("%s: components.schemas.%s is missing; the check of unrouted requests needs it", path, name)
		}
		s.errorSchemas[status] = sp.Schema()
	}
	return s, nil
}

// Operations lists every operation of the spec as "METHOD /path", paths as written in the
// spec (relative to the /v3 server), in document order.
func (s *Spec) Operations() []string {
	out := make([]string, len(s.ops))
	for i, op := range s.ops {
		out[i] = op.method + " " + op.path
	}
	return out
}

// Transport returns a RoundTripper that sends each request through next (the default
// transport when nil) and checks each response to a request under /v3 or /v3.0 against the
// spec — status, Content-Type, documented headers and body — reporting any mismatch with
// t.Errorf. The response body is read in full and handed on re-buffered, so the caller reads
// it as usual. Requests outside /v3 (/healthz, /readyz) and HEAD requests pass unchecked.
func (s *Spec) Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{spec: s, t: t, next: next}
}

type transport struct {
	spec *Spec
	t    testing.TB
	next http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := tr.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("contract: read response body of %s %s: %w", req.Method, req.URL.Path, err)
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err := tr.spec.check(req, res, body); err != nil {
		tr.t.Errorf("%v", err)
	}
	return res, nil
}

// Check validates res, the response to req, against the spec and returns an error listing
// every mismatch, or nil. It reads res.Body and leaves it re-buffered for the caller.
func (s *Spec) Check(req *http.Request, res *http.Response) error {
	var body []byte
	if res.Body != nil {
		var err error
		body, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return fmt.Errorf("contract: read response body: %w", err)
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return s.check(req, res, body)
}

// check validates a response whose body has been read into body.
func (s *Spec) check(req *http.Request, res *http.Response, body []byte) error {
	if req.Method == http.MethodHead {
		return nil
	}
	rest, escRest, ok := versionless(req.URL)
	if !ok {
		return nil
	}
	op, pathKnown, emptyLast := s.match(req.Method, escRest)
	var problems []string
	where := "no operation"
	switch {
	case op != nil && emptyLast && (res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed):
		// ".../" may or may not be routed to the operation with an empty last parameter; a
		// 404 or 405 says it was not.
		problems = s.checkUnrouted(res, body, res.StatusCode == http.StatusMethodNotAllowed)
	case op != nil:
		where = "operation " + op.method + " " + op.path
		if emptyLast {
			// The validator matches no template against an empty segment; any value stands
			// in, as it plays no part in checking the response.
			rest, escRest = rest+"-", escRest+"-"
			where += ", with an empty last parameter"
		}
		// The validator knows only the /v3 server; check /v3.0 requests as their /v3 twin.
		r2 := req.Clone(req.Context())
		u := *req.URL
		u.Path, u.RawPath = "/v3"+rest, ""
		if escRest != rest {
			u.RawPath = "/v3" + escRest
		}
		r2.URL = &u
		r2.Body = http.NoBody
		res2 := *res
		res2.Body = io.NopCloser(bytes.NewReader(body))
		if ok, errs := s.val.ValidateHttpResponse(r2, &res2); !ok {
			for _, e := range errs {
				problems = append(problems, describe(e))
			}
		}
	default:
		// ".../" can match another method's operation only through an empty last parameter
		// (spec paths never end in "/"), which may or may not be routed: 404 holds too.
		if strings.HasSuffix(escRest, "/") && res.StatusCode == http.StatusNotFound {
			pathKnown = false
		}
		problems = s.checkUnrouted(res, body, pathKnown)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("openapi contract: %s %s → %d does not conform to %s (%s):\n  - %s\n  Content-Type: %q\n  body: %s",
		req.Method, req.URL.RequestURI(), res.StatusCode, s.path, where, strings.Join(problems, "\n  - "),
		res.Header.Get("Content-Type"), excerpt(body))
}

// checkUnrouted checks the answer to a request no operation describes: an unknown path is
// 404, a known path with another method 405 with Allow, a feature natter lacks 501 (or 401
// without a valid key, or 503 when the key cannot be checked), an oversized body 413 — each
// in the error envelope.
func (s *Spec) checkUnrouted(res *http.Response, body []byte, pathKnown bool) []string {
	allowed := []int{401, 404, 413, 429, 501, 503}
	what := "an unknown path"
	if pathKnown {
		allowed = []int{401, 405, 413, 429, 501, 503}
		what = "a known path with a method the spec does not list"
	}
	if !slices.Contains(allowed, res.StatusCode) {
		return []string{fmt.Sprintf("the request is %s; the answer must be one of %v, got %d", what, allowed, res.StatusCode)}
	}
	var problems []string
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want application/json", res.Header.Get("Content-Type")))
	}
	if res.Header.Get("X-Request-Id") == "" {
		problems = append(problems, "header X-Request-Id is missing")
	}
	if res.StatusCode == http.StatusMethodNotAllowed && res.Header.Get("Allow") == "" {
		problems = append(problems, "header Allow is missing on 405")
	}
	s.schemasMu.Lock()
	ok, errs := s.schemas.ValidateSchemaBytesWithVersion(s.errorSchemas[res.StatusCode], body, 3.1)
	s.schemasMu.Unlock()
	if !ok {
		for _, e := range errs {
			problems = append(problems, "body vs components.schemas.Error"+strconv.Itoa(res.StatusCode)+": "+describe(e))
		}
	}
	return problems
}

// versionless strips the /v3 or /v3.0 prefix, returning the rest of the path decoded and
// escaped; ok is false for paths outside the API.
func versionless(u *url.URL) (rest, escRest string, ok bool) {
	esc := u.EscapedPath()
	for _, prefix := range []string{"/v3.0", "/v3"} {
		r, found := strings.CutPrefix(esc, prefix)
		if found && (r == "" || r[0] == '/') {
			dec, _ := strings.CutPrefix(u.Path, prefix)
			return dec, r, true
		}
	}
	return "", "", false
}

// match finds the operation for method and the escaped, versionless path; pathKnown reports
// whether some operation has that path under another method. As in URI templates, a
// parameter that ends a path may match an empty last segment (".../reactions/"); emptyLast
// reports such a match.
func (s *Spec) match(method, escPath string) (op *operation, pathKnown, emptyLast bool) {
	segs := strings.Split(strings.TrimPrefix(escPath, "/"), "/")
	// As in OpenAPI (and the mux), a path with literal segments where another has
	// parameters is that path: /conversations/pinned is not /conversations/{conversationId}.
	best := -1
	for i := range s.ops {
		if o := &s.ops[i]; segsMatch(o.segs, segs) {
			best = max(best, literals(o.segs))
		}
	}
	for i := range s.ops {
		o := &s.ops[i]
		if !segsMatch(o.segs, segs) || literals(o.segs) != best {
			continue
		}
		if o.method == method {
			return o, true, segs[len(segs)-1] == ""
		}
		pathKnown = true
	}
	return nil, pathKnown, false
}

// literals counts a pattern's literal segments ("" is a parameter).
func literals(pattern []string) int {
	n := 0
	for _, p := range pattern {
		if p != "" {
			n++
		}
	}
	return n
}

func segsMatch(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		switch {
		case p == "" && segs[i] == "" && i == len(segs)-1: // an empty trailing parameter
		case p == "" && segs[i] == "", p != "" && p != segs[i]:
			return false
		}
	}
	return true
}

func describe(e *liberrors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" && e.Reason != e.Message {
		b.WriteString(": " + e.Reason)
	}
	for _, f := range e.SchemaValidationErrors {
		b.WriteString("\n      " + f.Reason)
		switch {
		case f.FieldPath != "":
			b.WriteString(" at " + f.FieldPath)
		case len(f.InstancePath) > 0:
			b.WriteString(" at /" + strings.Join(f.InstancePath, "/"))
		}
		if f.KeywordLocation != "" {
			b.WriteString(" (schema " + f.KeywordLocation + ")")
		}
	}
	return b.String()
}

func excerpt(body []byte) string {
	const max = 1500
	if len(body) == 0 {
		return "(empty)"
	}
	s := strings.TrimRight(string(body), "\n")
	if len(s) > max {
		return s[:max] + fmt.Sprintf("… (%d bytes)", len(body))
	}
	return s
}

package client_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
)

// endpointCase is one call of the Go client and the request it must make. obo is the acting
// user the call is made as (Client.OnBehalfOf; "" for none); pattern the route as
// httpapi.Routes names it; path the escaped path ("" where a table does not check it); values
// the path values (nil: none); body the JSON body ("" means none).
type endpointCase struct {
	name    string
	obo     string
	call    func(c *client.Client) error
	pattern string
	path    string
	query   string
	values  map[string]string
	body    string
}

// endpointChecks are what a table does beyond the shared checks.
type endpointChecks struct {
	// before runs before a case's call, to set the fake's answer; it answers what to undo
	// after the case (nil: nothing).
	before func(f *fake, tt endpointCase) (after func())
	// obo is the onBehalfOf header a case's request must carry, for the calls that name the
	// acting user themselves; nil: the case's obo.
	obo func(tt endpointCase) string
}

// checkEndpoints makes each case's call against f and checks its request: the route, path,
// query and path values, the body and its Content-Type, the key and Accept headers, and
// onBehalfOf. It answers the route patterns the calls reached.
func checkEndpoints(t *testing.T, f *fake, tests []endpointCase, more endpointChecks) map[string]bool {
	t.Helper()
	c := f.client()
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if more.before != nil {
				if after := more.before(f, tt); after != nil {
					defer after()
				}
			}
			if err := tt.call(c.OnBehalfOf(tt.obo)); err != nil {
				t.Fatal(err)
			}
			got := f.last(t)
			covered[got.Pattern] = true
			if got.Pattern != tt.pattern || tt.path != "" && got.Path != tt.path || got.Query != tt.query {
				t.Errorf("request = %s %s?%s, want %s %s?%s", got.Pattern, got.Path, got.Query, tt.pattern, tt.path, tt.query)
			}
			values := tt.values
			if values == nil {
				values = map[string]string{}
			}
			if tt.path != "" && !reflect.DeepEqual(got.Values, values) {
				t.Errorf("path values = %v, want %v", got.Values, values)
			}
			if tt.body == "" {
				if got.Body != "" || got.Header.Get("Content-Type") != "" {
					t.Errorf("body = %q with Content-Type %q, want none", got.Body, got.Header.Get("Content-Type"))
				}
			} else {
				sameJSON(t, got.Body, tt.body)
				if ct := got.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
			}
			if got.Header.Get("apikey") != "key-1" || got.Header.Get("Accept") != "application/json" {
				t.Errorf("apikey = %q, Accept = %q", got.Header.Get("apikey"), got.Header.Get("Accept"))
			}
			want := tt.obo
			if more.obo != nil {
				want = more.obo(tt)
			}
			if got.Header.Get("onBehalfOf") != want {
				t.Errorf("onBehalfOf = %q, want %q", got.Header.Get("onBehalfOf"), want)
			}
		})
	}
	return covered
}

// checkCovered fails for each of a table's routes that natter does not serve or that no case
// reached.
func checkCovered(t *testing.T, table string, routes, covered map[string]bool) {
	t.Helper()
	served := httpapi.Routes()
	for rt := range routes {
		if !slices.Contains(served, rt) {
			t.Errorf("%s names %s, which is not a route", table, rt)
		}
		if !covered[rt] {
			t.Errorf("no client call tested for %s", rt)
		}
	}
}

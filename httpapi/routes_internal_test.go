package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/natter-chat/natter/chat"
)

// TestEndpointEntries holds every entry of the endpoint list to what the constructors cannot
// check: a served endpoint has a method and a path of its own; only a not-yet entry may
// stand for every method or a whole subtree; and a setting is given only where it means
// something.
func TestEndpointEntries(t *testing.T) {
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	for _, r := range (&Server{}).endpoints() {
		p := r.pattern("")
		if !strings.HasPrefix(r.Path, "/") || strings.Contains(r.Path, "//") || strings.Contains(r.Path, " ") {
			t.Errorf("%q: a path is /segment/…", p)
		}
		if r.Method != "" && !slices.Contains(methods, r.Method) {
			t.Errorf("%q: method %q is not one the API uses", p, r.Method)
		}
		if r.notYet {
			if r.access != anyCredential || r.rate != chat.RateStandard || r.maxBody != 0 || r.emptyLast {
				t.Errorf("%q: a not-yet entry answers 501 to any credential and has no settings", p)
			}
			continue
		}
		if r.Method == "" || strings.HasSuffix(r.Path, "/") || r.handler == nil {
			t.Errorf("%q: a served endpoint has a method, a path of its own and a handler", p)
		}
		if r.maxBody != 0 && (r.maxBody <= 64<<10 || r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			t.Errorf("%q: bodyUpTo(%d) raises the cap of an upload above the default", p, r.maxBody)
		}
		if r.emptyLast && !strings.HasSuffix(r.Path, "}") {
			t.Errorf("%q: alsoEmptyLast is for an endpoint whose last segment is a parameter", p)
		}
	}
}

// TestRateClassesAsDocumented holds docs/ratelimits.md's table of classes to the entries'
// settings: the operations it names as core and as import are exactly those rated so, and a
// new core operation is written in both places or the test fails.
func TestRateClassesAsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "ratelimits.md"))
	if err != nil {
		t.Fatal(err)
	}
	op := regexp.MustCompile("`((?:GET|POST|PUT|PATCH|DELETE) /[^`]*)`")
	documented := map[chat.RateClass][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		for _, c := range []chat.RateClass{chat.RateCore, chat.RateImport} {
			if strings.HasPrefix(line, "| "+c.String()+" |") {
				for _, m := range op.FindAllStringSubmatch(line, -1) {
					documented[c] = append(documented[c], m[1])
				}
			}
		}
	}
	rated := map[chat.RateClass][]string{}
	for _, r := range (&Server{}).routes() {
		if r.rate != chat.RateStandard {
			rated[r.rate] = append(rated[r.rate], r.pattern(""))
		}
	}
	for _, ops := range [](map[chat.RateClass][]string){documented, rated} {
		for _, l := range ops {
			slices.Sort(l)
		}
	}
	if len(documented[chat.RateCore]) == 0 || len(documented[chat.RateImport]) == 0 {
		t.Fatalf("found no core or no import operations in docs/ratelimits.md: %v", documented)
	}
	if diff := cmp.Diff(documented, rated); diff != "" {
		t.Errorf("docs/ratelimits.md (-) and the entries' rate classes (+) differ:\n%s", diff)
	}
}

package httpapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostedOps is testdata/hosted-operations.json: the operations of the hosted service's OpenAPI
// files at one commit, file by file, as "METHOD /path" with the files' own parameter names.
type hostedOps struct {
	Commit string `json:"commit"`
	Files  []struct {
		File       string   `json:"file"`
		Operations []string `json:"operations"`
	} `json:"files"`
}

// notServed are the hosted operations natter answers 501 to, and why: a short list on
// purpose, each entry a decision or a branch at work. A route added for one of them fails the
// test until the entry goes, and so does a new hosted operation that no route answers.
var notServed = map[string]string{
	"PATCH /messages/{}/interacted":  "not yet: interactive messages (issue 38, the branch that adds quoted replies and interactive messages)",
	"POST /moderation/messages":      "refused: the moderation service (docs/api-decisions.md, Moderation before delivery)",
	"GET /moderation/messages":       "refused: the moderation service",
	"GET /moderation/messages/{}":    "refused: the moderation service",
	"PUT /moderation/messages/{}":    "refused: the moderation service",
	"DELETE /moderation/messages/{}": "refused: the moderation service",
}

var paramRE = regexp.MustCompile(`\{[^}]*\}`)

// shape is an operation with its parameters unnamed: the files and natter name them apart
// (the hosted file has /moderation/blocked-messages/{messageId} and …/{id}, one route here).
func shape(op string) string { return paramRE.ReplaceAllString(op, "{}") }

// coverage is how natter answers one hosted operation.
type coverage int

const (
	unrouted  coverage = iota // 404: no entry of the route table
	pending                   // 501: a not-yet entry
	refusedOp                 // 501: natter's decision
	servedOp
)

// classify finds how natter's endpoint list answers op ("METHOD /path").
func classify(endpoints []route, op string) coverage {
	method, path, _ := strings.Cut(shape(op), " ")
	for _, r := range endpoints {
		if !r.notYet && r.Method == method && shape(r.Path) == path {
			return servedOp
		}
	}
	for _, r := range endpoints {
		if !r.notYet || (r.Method != "" && r.Method != method) {
			continue
		}
		p := shape(r.Path)
		if p == path || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			if r.refused {
				return refusedOp
			}
			return pending
		}
	}
	return unrouted
}

func readHostedOps(t *testing.T) hostedOps {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hosted-operations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var h hostedOps
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHostedCoverage holds the route table and the README's coverage table to the hosted
// files' operations (testdata/hosted-operations.json): every hosted operation is served or
// answers 501 for a reason listed in notServed, and the README counts what the route table
// serves, file by file, at the commit the index was taken from.
func TestHostedCoverage(t *testing.T) {
	h := readHostedOps(t)
	endpoints := (&Server{}).endpoints()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), h.Commit) {
		t.Errorf("README.md does not name the commit %s the coverage is counted against", h.Commit)
	}
	rows := readmeCoverage(t, string(readme))
	gotNotServed := map[string]string{}
	var total, totalServed int
	for _, f := range h.Files {
		seen := map[string]bool{}
		served := 0
		for _, op := range f.Operations {
			if seen[op] {
				t.Errorf("%s: %s listed twice", f.File, op)
			}
			seen[op] = true
			switch c := classify(endpoints, op); c {
			case servedOp:
				served++
			case unrouted:
				t.Errorf("%s: %s answers 404: no entry of routes.go serves it or answers 501", f.File, op)
			default:
				gotNotServed[shape(op)] = map[coverage]string{pending: "not yet", refusedOp: "refused"}[c]
			}
		}
		total += len(f.Operations)
		totalServed += served
		if got, want := rows[f.File], [2]int{len(f.Operations), served}; got != want {
			t.Errorf("README coverage row for %s: %d operations, %d served; the route table says %d, %d", f.File, got[0], got[1], want[0], want[1])
		}
	}
	if got, want := rows["all"], [2]int{total, totalServed}; got != want {
		t.Errorf("README coverage total: %d operations, %d served; want %d, %d", got[0], got[1], want[0], want[1])
	}
	want := map[string]string{}
	for op, why := range notServed {
		want[op], _, _ = strings.Cut(why, ":")
	}
	if d := cmp.Diff(want, gotNotServed); d != "" {
		t.Errorf("hosted operations answered 501 (-notServed +route table):\n%s", d)
	}
}

// readmeCoverage reads the README's coverage table: per file (and "all"), its operations and
// how many natter serves, from rows "| `file` | 172 | 166 | …" and "| all | 179 | 173 | …".
func readmeCoverage(t *testing.T, readme string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, line := range strings.Split(readme, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || strings.TrimSpace(cells[0]) != "" {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`*")
		if name != "all" && !strings.HasSuffix(name, ".json") {
			continue
		}
		ops, err1 := strconv.Atoi(strings.TrimSpace(cells[2]))
		served, err2 := strconv.Atoi(strings.TrimSpace(cells[3]))
		if err1 != nil || err2 != nil {
			t.Errorf("README coverage row %q: operations and served are not numbers", line)
			continue
		}
		out[name] = [2]int{ops, served}
	}
	if len(out) == 0 {
		t.Fatal("README.md has no coverage table (rows | `chat-apis.json` | operations | served | … |)")
	}
	return out
}

// TestClassify pins the matching down: parameters match whatever their names, a subtree entry
// covers what lies under it, a not-yet entry without a method covers every method.
func TestClassify(t *testing.T) {
	eps := []route{
		serve("GET /moderation/blocked-messages/{id}", fullAccessOnly, nil),
		notYet("/messages/{id}/interacted"),
		refused("/moderation/messages/", nil),
		notYet("POST /calls/{sessionId}/x"),
	}
	for _, c := range []struct {
		op   string
		want coverage
	}{
		{"GET /moderation/blocked-messages/{messageId}", servedOp},
		{"PATCH /moderation/blocked-messages/{id}", unrouted},
		{"PATCH /messages/{id}/interacted", pending},
		{"GET /messages/{mid}/interacted", pending},
		{"PUT /moderation/messages/{id}", refusedOp},
		{"GET /moderation/messages", unrouted},
		{"POST /calls/{id}/x", pending},
		{"GET /calls/{id}/x", unrouted},
	} {
		if got := classify(eps, c.op); got != c.want {
			t.Errorf("%s: %d, want %d", c.op, got, c.want)
		}
	}
}

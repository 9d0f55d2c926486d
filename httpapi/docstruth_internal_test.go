package httpapi

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs drift as features land: a page written when an endpoint answered 501 keeps
// saying so after routes.go serves it. This test greps README.md and docs/*.md against the
// list that decides the truth, routes.go's endpoints, served or not yet (501): a sentence that says an endpoint is missing — 501, "not yet", "not served" — may name only
// paths that routes.go does not serve. It knows no endpoint by name, so it holds whatever
// later branches add to the list.

// TestDocsCallNoServedEndpointMissing is the CI check: every path a doc names in a sentence
// saying "not there" is really not served.
func TestDocsCallNoServedEndpointMissing(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join("..", "README.md")}, files...)
	if len(files) < 5 {
		t.Fatalf("found only %v: the test runs in httpapi/ and reads ../README.md and ../docs/", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range falseAbsences(string(b)) {
			t.Errorf("%s:%d: says %s is not served, but routes.go serves %s:\n\t%s", f, d.line, d.path, d.route, d.sentence)
		}
	}
}

// TestFalseAbsences pins the checker down on the drift it was written for (the sentences as
// they stood) and on true sentences it must let pass.
func TestFalseAbsences(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string // the paths flagged
	}{
		// docs/api-decisions.md, before: the session endpoints as missing.
		{"- Every other operation is 403; the endpoints natter does not serve yet answer 501 to a\n  token as to a key. `/me`, `/settings` and the real-time socket, which the SDK also calls,\n  are not there yet.\n",
			[]string{"/me", "/settings"}},
		// docs/notifications.md, before: the preferences as 501.
		{"The notification settings, the users'\npreferences, contact details and the logs (`/notifications/v1/…`, and the SDK's\n`/notifications/push/v1/preferences…`) answer 501 on this slice.\n",
			[]string{"/notifications/v1/…", "/notifications/push/v1/preferences…"}},
		// docs/metrics.md, before: a 501 pattern that is no longer one.
		{"A request that matches no route (404,\n405) is `unmatched`; endpoints natter does not serve yet count under their 501 pattern\n(`/groups/`). `/healthz` and `/readyz` count as `GET /healthz` and `GET /readyz`.\n",
			[]string{"/groups/"}},
		// A README table cell, with a method and the version prefix.
		{"| Calls | partial | records. Not yet: `PUT /v3/calls/{sessionId}` (501) |\n", []string{"PUT /v3/calls/{sessionId}"}},
		// A section headed "Not yet" says it of everything in it.
		{"### Not yet\n\nThe pin list (`GET /conversations/pinned`).\n\n## Next\n\n`GET /conversations` is served.\n", []string{"GET /conversations/pinned"}},
		// True: what the 501 list holds, or what no route serves.
		{"Not yet: `/campaigns`, `/ai-agents/tools` (501), the list filters.\n", nil},
		{"The hosted Agent Builder (`/ai-agents/agent-builder/…`) answers 501.\n", nil},
		{"`DELETE /calls/{sessionId}` answers 501.\n", nil},
		// True: a served path in a sentence that claims nothing missing, or in another sentence.
		{"`POST /messages` sends. Endpoints natter does not serve yet answer 501.\n", nil},
		{"```\ncurl /v3/users  # not yet\n```\n", nil},
		{"| `/users` | done | all of it |\n| Tools | not yet | `/ai-agents/tools` |\n", nil},
	} {
		var got []string
		for _, d := range falseAbsences(tc.doc) {
			got = append(got, d.path)
		}
		if strings.Join(got, " ; ") != strings.Join(tc.want, " ; ") {
			t.Errorf("flagged %q, want %q in:\n%s", got, tc.want, tc.doc)
		}
	}
}

// absenceRE is a sentence saying that something is not served.
var absenceRE = regexp.MustCompile(`(?i)\b501\b|ERR_NOT_IMPLEMENTED|\bnot (?:there |served |implemented |supported )?yet\b|\bnot served\b|\bdoes not serve\b|\bnot implemented\b|\bon this slice\b|\b(?:is|are) (?:still )?missing\b`)

// falseAbsence is a path a doc calls missing that a route serves.
type falseAbsence struct {
	line        int
	path, route string
	sentence    string
}

// falseAbsences lists the paths doc calls missing that the route table serves.
func falseAbsences(doc string) []falseAbsence {
	var routes, pending []docPath
	for _, r := range (&Server{}).endpoints() {
		if r.notYet {
			pending = append(pending, parseDocPath(r.pattern(""))...)
		} else {
			routes = append(routes, parseDocPath(r.pattern(""))...)
		}
	}
	var out []falseAbsence
	for _, s := range sentences(doc) {
		if !s.claim && !absenceRE.MatchString(s.text) {
			continue
		}
		for _, ref := range codePaths(s.text) {
			for _, p := range parseDocPath(ref) {
				if covers(pending, p) {
					continue
				}
				if r, ok := served(routes, p); ok {
					out = append(out, falseAbsence{line: s.line, path: ref, route: r, sentence: strings.Join(strings.Fields(s.text), " ")})
					break
				}
			}
		}
	}
	return out
}

// sentence is a sentence or table cell of a doc, with the line it starts on. claim is set
// in a section whose heading says "not yet".
type sentence struct {
	line  int
	text  string
	claim bool
}

// sentences splits a Markdown doc into sentences: blocks (paragraphs, list items, table
// cells; code fences skipped) cut after ". " before a capital, a backtick or a bracket.
func sentences(doc string) []sentence {
	var out []sentence
	var block strings.Builder
	start, fenced, claimLevel := 0, false, 0
	flush := func() {
		text := block.String()
		block.Reset()
		line := start
		for text != "" {
			cut := len(text)
			for i := 0; i+2 < len(text); i++ {
				if text[i] == '.' && (text[i+1] == ' ' || text[i+1] == '\n') {
					j := i + 1
					for j < len(text) && (text[j] == ' ' || text[j] == '\n') {
						j++
					}
					if j < len(text) && strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZ`([*", rune(text[j])) {
						cut = j
						break
					}
				}
			}
			out = append(out, sentence{line: line, text: text[:cut], claim: claimLevel > 0})
			line += strings.Count(text[:cut], "\n")
			text = text[cut:]
		}
	}
	for i, l := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			fenced = !fenced
			continue
		case fenced:
			continue
		case trimmed == "":
			flush()
			continue
		case strings.HasPrefix(trimmed, "#"):
			flush()
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			if claimLevel > 0 && level <= claimLevel {
				claimLevel = 0
			}
			if absenceRE.MatchString(trimmed) {
				claimLevel = level
			}
			continue
		case strings.HasPrefix(trimmed, "|"):
			flush()
			for _, cell := range strings.Split(strings.Trim(trimmed, "|"), " | ") {
				start = i + 1
				block.WriteString(cell)
				flush()
			}
			continue
		case strings.HasPrefix(trimmed, "- "), strings.HasPrefix(trimmed, "* "), numberedRE.MatchString(trimmed):
			flush()
		}
		if block.Len() == 0 {
			start = i + 1
		}
		block.WriteString(l + "\n")
	}
	flush()
	return out
}

var (
	numberedRE = regexp.MustCompile(`^\d+\. `)
	codeSpanRE = regexp.MustCompile("`([^`]+)`")
	methodsRE  = `(?:GET|POST|PUT|PATCH|DELETE|HEAD)`
	docPathRE  = regexp.MustCompile(`(?:\b(` + methodsRE + `(?:/` + methodsRE + `)*)\s+)?(/[^\s,;()]*|(?:https?|wss?)://\S+)`)
)

// codePaths are the endpoint paths a sentence names in code spans, as written ("GET /users",
// "/notifications/v1/…"), with a method or methods when the span gives them.
func codePaths(s string) []string {
	var out []string
	for _, m := range codeSpanRE.FindAllStringSubmatch(s, -1) {
		for _, p := range docPathRE.FindAllStringSubmatch(m[1], -1) {
			if strings.ContainsAny(p[2], "abcdefghijklmnopqrstuvwxyz") {
				out = append(out, strings.TrimSpace(p[1]+" "+p[2]))
			}
		}
	}
	return out
}

// docPath is a path as the check compares it: segments without the version prefix, a
// placeholder as "{}", methods (none: any), and whether it stands for a whole subtree (a
// trailing "/" or "…").
type docPath struct {
	methods []string
	segs    []string
	subtree bool
}

// parseDocPath reads "[METHOD[/METHOD…] ]PATH" as the docs and routes.go write it. A brace
// list ("/notifications/{push,sms,email}/v1") gives one docPath per alternative.
func parseDocPath(ref string) []docPath {
	var p docPath
	path := ref
	if m, rest, ok := strings.Cut(ref, " "); ok {
		p.methods, path = strings.Split(m, "/"), rest
	}
	if u, err := url.Parse(path); err == nil && u.Scheme != "" {
		path = u.Path
	}
	path, _, _ = strings.Cut(path, "?")
	path, _, _ = strings.Cut(path, "#")
	path = strings.TrimRight(path, ".:")
	if rest, ok := strings.CutSuffix(path, "…"); ok {
		path, p.subtree = rest, true
	}
	if strings.HasSuffix(path, "/") {
		p.subtree = true
	}
	for _, prefix := range []string{"/v3.0/", "/v3/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			path = "/" + rest
		}
	}
	out := []docPath{p}
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		alts := []string{seg}
		switch {
		case seg == "":
			continue
		case strings.HasPrefix(seg, "{") && strings.Contains(seg, ","):
			alts = strings.Split(strings.Trim(seg, "{}"), ",")
		case strings.HasPrefix(seg, "{"), strings.HasPrefix(seg, ":"), strings.HasPrefix(seg, "<"):
			alts = []string{"{}"}
		}
		var next []docPath
		for _, d := range out {
			for _, a := range alts {
				next = append(next, docPath{methods: d.methods, segs: append(append([]string(nil), d.segs...), a), subtree: d.subtree})
			}
		}
		out = next
	}
	if len(out[0].segs) == 0 {
		return nil // "/", the socket's path: no endpoint of the table
	}
	return out
}

// matches reports whether the route r serves what d names: the same segments (a route's
// placeholder takes any segment; a doc's placeholder only a placeholder), or, for a subtree
// d, some route under it; and a method in common.
func (d docPath) matches(r docPath) bool {
	if len(r.segs) < len(d.segs) || (!d.subtree && len(r.segs) != len(d.segs)) {
		return false
	}
	for i, s := range d.segs {
		if r.segs[i] != "{}" && r.segs[i] != s {
			return false
		}
	}
	if len(d.methods) == 0 || len(r.methods) == 0 {
		return true
	}
	for _, m := range d.methods {
		for _, rm := range r.methods {
			if m == rm {
				return true
			}
		}
	}
	return false
}

// served returns the first route that serves d.
func served(routes []docPath, d docPath) (string, bool) {
	for _, r := range routes {
		if d.matches(r) {
			return strings.Join(r.methods, "/") + " /" + strings.Join(r.segs, "/"), true
		}
	}
	return "", false
}

// covers reports whether the 501 list holds d: d is one of its paths, or lies in one of its
// subtrees.
func covers(pending []docPath, d docPath) bool {
	for _, p := range pending {
		if len(d.segs) < len(p.segs) || (!p.subtree && len(d.segs) != len(p.segs)) {
			continue
		}
		ok := true
		for i, s := range p.segs {
			if s != "{}" && s != d.segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

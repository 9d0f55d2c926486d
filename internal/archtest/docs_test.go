package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs name files, packages and identifiers, and the code moves under them: a page that
// names chat/events.go after the file became chat/changes.go sends its reader nowhere. This
// test reads the docs as a reader would follow them and fails naming each thing that is not
// there:
//
//   - a code span that is a repository path (`chat/changes.go`, `sqlstore/`,
//     `sqlstore/sqlite_*.go`), from the root or from the doc's own directory; a glob must
//     match something. Spans with a placeholder (`httpapi/<aggregate>.go`, `{sqlite,postgres}`,
//     `…`) and bare file names (`changes.go`, whose directory the sentence gives) are not read.
//   - a code span that is a natter package's identifier: `chat.Service`, `wire.AppendMessage`,
//     `chat.Service.Subscribe` (a method or a field of a type).
//   - a relative Markdown link's target ([docs/realtime.md](docs/realtime.md)).

// docFiles are the docs checked: the front door, the architecture, and the pages for
// operators and maintainers.
func docFiles(t *testing.T, root string) []string {
	files := []string{"README.md", "ARCHITECTURE.md", "bench/README.md", "api/README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

var (
	codeSpanRE = regexp.MustCompile("`([^`\n]+)`")
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	identRE    = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(?:\(\))?$`)
	pathRE     = regexp.MustCompile(`^[A-Za-z0-9_.\-/*]+$`)
	fileExtRE  = regexp.MustCompile(`\.(go|md|yaml|yml|json|sql|sh|js|jsx|css|html|tmpl|txt|mod|sum)$`)
)

// TestDocsNameWhatExists is the check; each finding names the doc, its line and the span.
func TestDocsNameWhatExists(t *testing.T) {
	root := repoRoot(t)
	decls := declarations(t, root)
	checked := 0
	for _, doc := range docFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if os.IsNotExist(err) && doc != "README.md" && doc != "ARCHITECTURE.md" {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, f := range missing(root, doc, string(b), decls) {
			t.Errorf("%s:%d: %s", doc, f.line, f.what)
		}
	}
	if checked < 10 {
		t.Fatalf("read only %d docs: is the test running in internal/archtest?", checked)
	}
}

type finding struct {
	line int
	what string
}

// missing lists what doc (its path from root, its text) names that is not there.
func missing(root, doc, text string, decls map[string]map[string]bool) []finding {
	var out []finding
	dir := filepath.Dir(filepath.Join(root, doc))
	exists := func(p string) bool {
		for _, base := range []string{root, dir} {
			full := filepath.Join(base, filepath.FromSlash(p))
			if strings.Contains(p, "*") {
				if m, _ := filepath.Glob(full); len(m) > 0 {
					return true
				}
			} else if _, err := os.Stat(full); err == nil {
				return true
			}
		}
		return false
	}
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, ":") {
				continue // an anchor in the page, or a URL
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
				out = append(out, finding{i + 1, "links to " + m[1] + ", which is not there"})
			}
		}
		for _, m := range codeSpanRE.FindAllStringSubmatch(line, -1) {
			span := strings.TrimSpace(m[1])
			if p, ok := repoPath(root, span); ok {
				if !exists(p) && !isGenerated(p) {
					out = append(out, finding{i + 1, "names `" + span + "`, which is not in the repository"})
				}
				continue
			}
			if id := identRE.FindStringSubmatch(span); id != nil && !fileExtRE.MatchString(span) {
				names, ok := decls[id[1]]
				if !ok {
					continue // not a natter package: http.Server, json.RawMessage
				}
				name := id[2]
				if id[3] != "" {
					name += "." + id[3]
				}
				if !names[name] && !(id[3] != "" && names[id[2]+".*"]) {
					out = append(out, finding{i + 1, "names `" + span + "`, which package " + id[1] + " does not declare"})
				}
			}
		}
	}
	return out
}

// generated are paths the tests and tools create, ignored by git, which a fresh checkout
// does not have.
var generated = map[string]bool{
	"console/testdata-out": true, // the browser test's screenshots
	"e2e/testdata-out":     true, // the UI Kit test's
	"bench/out":            true, // the load harness's profiles and reports
	"natter.db":            true, // serve's default database
}

func isGenerated(p string) bool {
	for g := range generated {
		if p == g || strings.HasPrefix(p, g+"/") {
			return true
		}
	}
	return false
}

// repoPath reports whether span is meant as a path in the repository: a path of plain
// segments whose first is a top-level entry of the repository, or a top-level file.
func repoPath(root, span string) (string, bool) {
	p := strings.TrimPrefix(span, "./")
	p = strings.TrimRight(p, ".,;:")
	if !pathRE.MatchString(p) || strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
		return "", false
	}
	first, _, hasSlash := strings.Cut(p, "/")
	if !hasSlash {
		if fileExtRE.MatchString(p) && isTopLevelFile(root, p) {
			return p, true
		}
		return "", false
	}
	if first == "" || strings.Contains(first, "*") {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(root, first)); err != nil {
		return "", false
	}
	return p, true
}

func isTopLevelFile(root, name string) bool {
	switch name {
	case "README.md", "ARCHITECTURE.md", "go.mod", "go.sum":
		return true
	}
	_, err := os.Stat(filepath.Join(root, name))
	return err == nil
}

// declarations maps each natter package name to the names its files declare at top level
// ("Service"), with their methods and struct fields ("Service.Subscribe", "Change.Kind").
// Test files count: a doc may name a test's helper.
func declarations(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if pkg == "main" {
			return nil
		}
		names := out[pkg]
		if names == nil {
			names = map[string]bool{}
			out[pkg] = names
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				switch x := typ.(type) {
				case *ast.IndexExpr:
					typ = x.X
				case *ast.IndexListExpr:
					typ = x.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						addMembers(names, s.Name.Name, s.Type)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							// A variable's methods and fields are its type's, which only
							// type checking would tell: "Name.*" takes any.
							names[n.Name], names[n.Name+".*"] = true, true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// addMembers adds a struct's fields, or an interface's methods, as "Type.Name".
func addMembers(names map[string]bool, typ string, expr ast.Expr) {
	var fields *ast.FieldList
	switch x := expr.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			names[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // embedded: its name is the type's
			e := f.Type
			if s, ok := e.(*ast.StarExpr); ok {
				e = s.X
			}
			switch x := e.(type) {
			case *ast.Ident:
				names[typ+"."+x.Name] = true
			case *ast.SelectorExpr:
				names[typ+"."+x.Sel.Name] = true
			}
		}
	}
}

// TestMissingFindsDrift pins the checker on the drift it was written for, and on what it
// must let pass.
func TestMissingFindsDrift(t *testing.T) {
	root := repoRoot(t)
	decls := declarations(t, root)
	for _, tc := range []struct {
		doc  string
		want int
	}{
		{"The feed is in `chat/events.go`.", 1},
		{"The feed is in `chat/changes.go`, the engines in `sqlstore/sqlite_*.go`; see `sqlstore/`.", 0},
		{"`internal/commit` holds the batcher.", 1},
		{"`sqlstore/internal/commit` holds the batcher.", 0},
		{"Handlers in `httpapi/<aggregate>.go`, migrations in `sqlstore/migrations/{sqlite,postgres}/`.", 0},
		{"`chat.Service.Subscribe` and `chat.ChangeLog` and `chat.Change.Kind`.", 0},
		{"`chat.Service.Publish` and `chat.EventBus`.", 2},
		{"`chat.Twilio.Credentials` (a variable's method), `console.Console.Wrap`; not `console.Wrap`.", 1},
		{"`http.Server`, `json.RawMessage`, `changes.go`, `go test ./...`.", 0},
		{"[realtime](docs/realtime.md#across-nodes), [nowhere](docs/nowhere.md).", 1},
		{"```\nchat/events.go\n```\n", 0},
	} {
		got := missing(root, "README.md", tc.doc, decls)
		if len(got) != tc.want {
			t.Errorf("%d findings, want %d, in %q: %v", len(got), tc.want, tc.doc, got)
		}
	}
}

package archtest

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/natter-chat/natter"

// floors is ARCHITECTURE.md's table "Floors": for each package, the natter packages its
// non-test files may import ("internal/*" stands for any package under internal/). A
// package missing from it fails the test until it is given its floor here and in the doc.
var floors = map[string][]string{
	"chat":                         {"internal/*"},
	"wire":                         {"chat"},
	"sqlstore":                     {"chat", "sqlstore/internal/commit", "sqlstore/internal/sqliteread"},
	"sqlstore/internal/commit":     {},
	"sqlstore/internal/sqliteread": {},
	"dataimport":                   {"chat", "wire"},
	"realtime":                     {"chat", "wire"},
	"webhook":                      {"chat", "wire", "internal/*"},
	"notify":                       {"chat", "wire", "internal/*"},
	"agent":                        {"chat", "wire", "internal/*"},
	"console":                      {"chat", "wire"},
	"httpapi":                      {"chat", "wire", "realtime", "dataimport"},
	"client":                       {},
	"cmd/natter":                   {"*"},
	"api/bundle":                   {},
	"internal/*":                   {"internal/*"},
	"internal/chattest":            {"chat", "sqlstore", "internal/*"},
	"bench/*":                      {"bench/*", "internal/pgserver"},
	"e2e":                          {"internal/*"},
}

// forbiddenStd are standard and third-party imports a floor must not have: the core
// decides without HTTP or SQL, and the shapes on the wire are written by nobody's driver.
var forbiddenStd = map[string][]string{
	"chat": {"net/http", "database/sql", "github.com/jackc/pgx/v5", "modernc.org/sqlite", "github.com/coder/websocket"},
	"wire": {"database/sql"},
}

func match(pattern, pkg string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(pkg, prefix+"/")
	}
	return pattern == "*" || pattern == pkg
}

// floorOf is the floors entry that governs pkg: its own, else the widest pattern that
// matches it.
func floorOf(pkg string) (string, []string, bool) {
	if allowed, ok := floors[pkg]; ok {
		return pkg, allowed, true
	}
	for pattern, allowed := range floors {
		if strings.Contains(pattern, "*") && match(pattern, pkg) {
			return pattern, allowed, true
		}
	}
	return "", nil, false
}

// TestFloorsImportWhatTheyMay reads every package's imports (its non-test files, as go
// build sees them on this system) and checks them against floors.
func TestFloorsImportWhatTheyMay(t *testing.T) {
	root := repoRoot(t)
	pkgs := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			t.Errorf("%s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "internal/archtest" {
			return nil
		}
		pkgs++
		pattern, allowed, ok := floorOf(rel)
		if !ok {
			t.Errorf("%s: a package with no floor: add it to floors (internal/archtest/layers_test.go) and to ARCHITECTURE.md's table", rel)
			return nil
		}
		for _, imp := range bp.Imports {
			if slices.Contains(forbiddenStd[rel], imp) {
				t.Errorf("%s imports %s, which its floor may not (ARCHITECTURE.md, \"Floors\")", rel, imp)
			}
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if !slices.ContainsFunc(allowed, func(p string) bool { return match(p, dep) }) {
				t.Errorf("%s imports %s: floor %q may import only %v (ARCHITECTURE.md, \"Floors\")", rel, dep, pattern, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pkgs < 20 {
		t.Fatalf("found only %d packages under %s: is the test running in internal/archtest?", pkgs, root)
	}
}

// TestNothingImportsHTTPAPI: httpapi is a floor of its own, wired by cmd/natter alone;
// the console and the workers call chat as the API does.
func TestNothingImportsHTTPAPI(t *testing.T) {
	for pkg, allowed := range floors {
		if pkg != "cmd/natter" && slices.Contains(allowed, "httpapi") {
			t.Errorf("%s may import httpapi: nothing but cmd/natter should", pkg)
		}
	}
}

// repoRoot is the module's root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod in %s: the test runs in internal/archtest", root)
	}
	return root
}

// TestFloorsAreDocumented: every floor of the table above is named in ARCHITECTURE.md's
// section "Floors", so the doc and the check cannot drift apart.
func TestFloorsAreDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Floors\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no section "## Floors"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for pkg := range floors {
		if !strings.Contains(section, "`"+pkg+"`") && !strings.Contains(section, "`"+pkg+"/`") {
			t.Errorf("floor %s is not named in ARCHITECTURE.md's \"Floors\"", pkg)
		}
	}
}

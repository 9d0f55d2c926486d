package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// TestEveryCodeHasAStatus walks every Code constant declared in package chat, read from its
// source so that a new code cannot be missed, and checks that each answers with a status of
// its own kind: only ERR_EXCEPTION may answer 500.
func TestEveryCodeHasAStatus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "chat", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var codes []chat.Code
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: a Code constant that is not a string literal", fset.Position(v.Pos()))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes = append(codes, chat.Code(s))
				}
			}
		}
	}
	if len(codes) < 30 {
		t.Fatalf("found only %d codes: the walk is broken", len(codes))
	}
	for _, c := range codes {
		got := wire.StatusOf(c)
		switch {
		case c == chat.CodeException:
			if got != http.StatusInternalServerError {
				t.Errorf("%s: %d, want 500", c, got)
			}
		case got == http.StatusInternalServerError || got == 0:
			t.Errorf("%s answers %d: give it a kind in chat's kinds table", c, got)
		}
	}
	// A body over the limit keeps the hosted service's code but is too large.
	tooLarge := errBodyTooLarge(10).(*chat.Error)
	if got := wire.KindStatus(tooLarge.Kind()); tooLarge.Code != chat.CodeBadRequest || got != http.StatusRequestEntityTooLarge {
		t.Errorf("body too large: %s, %d", tooLarge.Code, got)
	}
}

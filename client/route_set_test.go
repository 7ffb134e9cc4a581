package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every request an SDK package builds names its route template, so that
// its span and metrics are named by the template and never by a path that
// holds ids (client.Request.Route). A call added without one would still
// work, and only its telemetry would be wrong: this test is what notices.
// None sets Path as well: the path is built from Route and Params, so that
// each call writes its path once.
func TestEverySDKRequestNamesItsRoute(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var checked int
	for _, d := range dirs {
		switch name := d.Name(); {
		case !d.IsDir(), strings.HasPrefix(name, "."), name == "refserver", name == "examples", name == "internal", name == "e2e":
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", d.Name(), "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok || !isRequestType(lit.Type) {
					return true
				}
				checked++
				fields := map[string]bool{}
				for _, e := range lit.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							fields[id.Name] = true
						}
					}
				}
				if !fields["Route"] {
					t.Errorf("%s: a client.Request without Route", fset.Position(lit.Pos()))
				}
				if fields["Path"] {
					t.Errorf("%s: a client.Request with Path: give the path parameters as Params", fset.Position(lit.Pos()))
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Errorf("found only %d client.Request literals: the scan is looking in the wrong place", checked)
	}
}

// isRequestType reports whether expr names client.Request (or Request
// inside package client).
func isRequestType(expr ast.Expr) bool {
	switch x := expr.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "client" && x.Sel.Name == "Request"
	}
	return false
}

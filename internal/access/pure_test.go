package access

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure keeps the package pure: its non-test files import only these.
func TestPure(t *testing.T) {
	allowed := map[string]bool{
		"cmp": true, "slices": true, "strconv": true,
		"github.com/slashd/slashd/internal/command":   true,
		"github.com/slashd/slashd/internal/guild":     true,
		"github.com/slashd/slashd/internal/snowflake": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

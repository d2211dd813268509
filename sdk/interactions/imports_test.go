package interactions

import (
	"go/build"
	"strings"
	"testing"
)

// The SDK stands alone: standard library only, nothing from internal/.
func TestImportsStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("non-standard import %q", imp)
		}
	}
}

package testtool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WatchSources reads every source file under dirs (not node_modules,
// __pycache__ or dot directories), so that go test's cache replays a
// pass only while the files another runtime reads (node, pytest) are
// unchanged: go test notices the files a test opened.
func WatchSources(t testing.TB, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		if err := watch(dir); err != nil {
			t.Fatal(err)
		}
	}
}

func watch(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if name == "node_modules" || name == "__pycache__" || strings.HasPrefix(name, ".") && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if _, err := os.ReadFile(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

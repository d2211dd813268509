package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/slashd/slashd/internal/store/sqlstore"
)

// templateFormat is part of the template's name: bump it when the way
// the template is made changes, so that no process copies one made the
// old way.
const templateFormat = "1"

// OpenFromTemplate is for tests and tools that want a fresh, empty store
// quickly: it copies an already-migrated database file to path (which
// must not exist; see CreateFromTemplate) and opens it. Open then finds
// every migration applied and runs none. Production code calls Open: on a
// real data directory the store is created by migrating, as always.
func OpenFromTemplate(ctx context.Context, path string, opts ...Option) (*sqlstore.Store, error) {
	if err := CreateFromTemplate(ctx, path); err != nil {
		return nil, err
	}
	return Open(ctx, path, opts...)
}

// CreateFromTemplate, for tests and tools, writes at path (which must not
// exist) a database file with every migration applied and nothing else,
// readable by its owner only, as Open would create it.
//
// Migrating an empty database costs little natively but about 20 times
// as much under the race detector, which instruments the whole
// transpiled SQLite; test suites open hundreds of fresh stores. So the
// migrated file is made once, kept in the OS temporary directory under
// a name holding a hash of the migrations (a changed migration makes a
// new template; old ones are left for the OS to clean up) and copied.
// Processes racing to make it each write their own file and rename it
// into place: the rename is atomic, and every candidate is equivalent.
func CreateFromTemplate(ctx context.Context, path string) error {
	name, err := templateName(migrations)
	if err != nil {
		return err
	}
	tmpl := filepath.Join(os.TempDir(), name)
	src, err := os.Open(tmpl)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeTemplate(ctx, tmpl); err != nil {
			return err
		}
		src, err = os.Open(tmpl)
	}
	if err != nil {
		return fmt.Errorf("open sqlite template: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create sqlite %s from template: %w", path, err)
	}
	// No fsync: a copy lost to a crash is a test's scratch file.
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy sqlite template to %s: %w", path, err)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("copy sqlite template to %s: %w", path, err)
	}
	return nil
}

// templateName names the template made from the migration files in
// fsys: a hash of their names and contents, and of the user, since a
// file another user made in a shared temporary directory is unreadable
// (mode 0600) and cannot be replaced.
func templateName(fsys fs.FS) (string, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return "", fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "format %s\n", templateFormat)
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return "", fmt.Errorf("read migration %s: %w", name, err)
		}
		// Lengths first, so that no two sets of files hash alike by
		// moving bytes from one to the next.
		fmt.Fprintf(h, "%d %q %d\n", len(name), name, len(body))
		h.Write(body)
	}
	return fmt.Sprintf("slashd-sqlite-template-%d-%s.db", os.Getuid(), hex.EncodeToString(h.Sum(nil))[:24]), nil
}

// makeTemplate migrates a file of its own next to tmpl and renames it
// to tmpl.
func makeTemplate(ctx context.Context, tmpl string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(tmpl), filepath.Base(tmpl)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create sqlite template: %w", err)
	}
	tmp := f.Name() // mode 0600, as Open's createPrivate makes
	f.Close()
	defer func() {
		// A leftover only if this failed; the log and shared memory
		// files always (SQLite may leave an empty -shm).
		if err != nil {
			os.Remove(tmp)
		}
		os.Remove(tmp + "-wal")
		os.Remove(tmp + "-shm")
	}()
	s, err := Open(ctx, tmp)
	if err != nil {
		return fmt.Errorf("make sqlite template: %w", err)
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("make sqlite template: close: %w", err)
	}
	// Closing the last connection checkpoints the log into the file and
	// deletes it; whatever the log still held, the copy would lack.
	if fi, err := os.Stat(tmp + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("make sqlite template: %s-wal still holds %d bytes after close", tmp, fi.Size())
	}
	if err := os.Rename(tmp, tmpl); err != nil {
		return fmt.Errorf("make sqlite template: %w", err)
	}
	return nil
}

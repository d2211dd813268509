package sqlite

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/slashd/slashd/internal/store/sqlstore"
)

// A store copied from the template is the store Open migrates: same
// schema, same migrations recorded, same mode. The template is made
// afresh in a temporary directory of the test's own, by several callers
// at once.
func TestTemplateMatchesFreshMigration(t *testing.T) {
	tmpDir := t.TempDir()
	t.Setenv("TMPDIR", tmpDir)
	dir := t.TempDir()

	fresh := filepath.Join(dir, "fresh.db")
	s, err := Open(t.Context(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = CreateFromTemplate(t.Context(), filepath.Join(dir, fmt.Sprintf("copy%d.db", i))) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
	}
	copied := filepath.Join(dir, "copy0.db")
	if fi, err := os.Stat(copied); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("copy: %v, %v; want mode 0600", fi, err)
	}

	// The racing makers leave the template and nothing else.
	entries, err := os.ReadDir(tmpDir)
	if err != nil {
		t.Fatal(err)
	}
	name, err := templateName(migrations)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{name}; !reflect.DeepEqual(left, want) {
		t.Errorf("temporary directory holds %q, want %q", left, want)
	}

	// Open on the copy applies nothing and keeps it equal to a fresh one.
	s, err = OpenFromTemplate(t.Context(), filepath.Join(dir, "opened.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	wantSchema, wantVersions := describe(t, fresh)
	if len(wantVersions) == 0 || len(wantSchema) == 0 {
		t.Fatalf("fresh database: schema %q, migrations %q", wantSchema, wantVersions)
	}
	for _, p := range []string{copied, filepath.Join(dir, "opened.db")} {
		schema, versions := describe(t, p)
		if !reflect.DeepEqual(schema, wantSchema) {
			t.Errorf("%s: schema differs from a fresh migration:\n got %q\nwant %q", filepath.Base(p), schema, wantSchema)
		}
		if !reflect.DeepEqual(versions, wantVersions) {
			t.Errorf("%s: migrations %q, want %q", filepath.Base(p), versions, wantVersions)
		}
	}
}

// describe reads a closed database file's schema and recorded migrations.
func describe(t *testing.T, path string) (schema, versions []string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY name`)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for rows.Next() {
		var typ, name, tbl, text string
		if err := rows.Scan(&typ, &name, &tbl, &text); err != nil {
			t.Fatal(err)
		}
		schema = append(schema, strings.Join([]string{typ, name, tbl, text}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.QueryContext(t.Context(), `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return schema, versions
}

// A copy never replaces a database.
func TestCreateFromTemplateKeepsExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := os.WriteFile(path, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CreateFromTemplate(t.Context(), path); err == nil {
		t.Error("copy onto an existing file succeeded")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep" {
		t.Errorf("existing file now %q, %v", b, err)
	}
}

// Any change to the migrations names another template.
func TestTemplateNameFollowsMigrations(t *testing.T) {
	base := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte("CREATE TABLE a (x);")},
		"migrations/0002_b.sql": {Data: []byte("CREATE TABLE b (y);")},
	}
	with := func(change func(fstest.MapFS)) fstest.MapFS {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = v
		}
		change(m)
		return m
	}
	baseName, err := templateName(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		same bool
	}{
		{"unchanged", with(func(fstest.MapFS) {}), true},
		{"body changed", with(func(m fstest.MapFS) {
			m["migrations/0002_b.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE b (z);")}
		}), false},
		{"migration added", with(func(m fstest.MapFS) { m["migrations/0003_c.sql"] = &fstest.MapFile{Data: []byte("")} }), false},
		{"migration renamed", with(func(m fstest.MapFS) {
			m["migrations/0003_b.sql"] = m["migrations/0002_b.sql"]
			delete(m, "migrations/0002_b.sql")
		}), false},
		{"bytes moved between files", with(func(m fstest.MapFS) {
			m["migrations/0001_a.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE a (x);CREATE")}
			m["migrations/0002_b.sql"] = &fstest.MapFile{Data: []byte(" TABLE b (y);")}
		}), false},
		{"not a migration", with(func(m fstest.MapFS) { m["migrations/README"] = &fstest.MapFile{Data: []byte("x")} }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := templateName(tc.fsys)
			if err != nil {
				t.Fatal(err)
			}
			if (got == baseName) != tc.same {
				t.Errorf("name %s, base %s: same = %v, want %v", got, baseName, got == baseName, tc.same)
			}
		})
	}
	real, err := templateName(migrations)
	if err != nil {
		t.Fatal(err)
	}
	if real == baseName {
		t.Errorf("the real migrations name the same template as a test set: %s", real)
	}
}

// What a test pays for a fresh store, migrated or copied (run with -race
// to see why the template exists).
func BenchmarkOpenFresh(b *testing.B) {
	for _, bc := range []struct {
		name string
		open func(b *testing.B, path string) (*sqlstore.Store, error)
	}{
		{"migrate", func(b *testing.B, path string) (*sqlstore.Store, error) { return Open(b.Context(), path) }},
		{"template", func(b *testing.B, path string) (*sqlstore.Store, error) { return OpenFromTemplate(b.Context(), path) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			for i := 0; b.Loop(); i++ {
				s, err := bc.open(b, filepath.Join(dir, fmt.Sprintf("db%d", i)))
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// open opens the store at path and closes it when the test ends.
func open(t *testing.T, path string) *sqlstore.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return s
}

// freshDB returns the path of a fresh, migrated database file, copied
// from the template, for tests that are not about migrating.
func freshDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := sqlite.CreateFromTemplate(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	scope = command.Scope{ApplicationID: 10}
	owner = store.User{ID: 1, Username: "owner"}
)

func parse(t *testing.T, name, description string) command.Parsed {
	t.Helper()
	v, err := form.DecodeJSON([]byte(`{"name":"` + name + `","description":"` + description + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	p, errs := command.Parse(v, command.Target{
		App:   command.App{ID: scope.ApplicationID, IntegrationTypes: []int{0}},
		Scope: scope,
		Mode:  command.ModeCreate,
	})
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	return p
}

func ids() command.IDs {
	var n atomic.Uint64
	n.Store(1_000_000)
	return func() snowflake.ID { return snowflake.ID(n.Add(1)) }
}

func upsert(ctx context.Context, s store.Store, in command.Parsed, next command.IDs) (command.Plan, error) {
	return s.WriteCommands(ctx, scope, 0, func(cur []command.Command, creates int) (command.Plan, error) {
		return command.Upsert(cur, in, creates, next)
	})
}

func migrationCount(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no migrations found")
	}
	return n
}

func appliedMigrations(t *testing.T, s *sqlstore.Store) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMigrationsIdempotentOnReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	want := migrationCount(t)

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	p, err := upsert(ctx, s, parse(t, "ping", "Ping"), ids())
	if err != nil {
		t.Fatal(err)
	}
	if got := appliedMigrations(t, s); got != want {
		t.Errorf("fresh database: %d migrations recorded, want %d", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for i := range 3 {
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		if got := appliedMigrations(t, s); got != want {
			t.Errorf("reopen %d: %d migrations recorded, want %d", i, got, want)
		}
		if _, err := s.User(ctx, owner.ID); err != nil {
			t.Errorf("reopen %d: user lost: %v", i, err)
		}
		if cs, err := s.Commands(ctx, scope); err != nil || len(cs) != 1 || cs[0].ID != p.Result[0].ID {
			t.Errorf("reopen %d: commands = %+v, %v", i, cs, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The server and the CLI may both start on an empty data directory.
func TestConcurrentOpenOfFreshFile(t *testing.T) {
	// Two handles opening a brand-new file at once race on the switch to
	// WAL mode; Open must retry rather than fail. Run with -count=200 to
	// stress it.
	path := filepath.Join(t.TempDir(), "db.sqlite")
	const n = 2
	stores := make([]*sqlstore.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = sqlite.Open(t.Context(), path) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("open %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	if got, want := appliedMigrations(t, stores[0]), migrationCount(t); got != want {
		t.Errorf("%d migrations recorded, want %d", got, want)
	}
}

// The CLI and the server open the same data directory: each sees the
// other's commits at once.
func TestTwoHandlesSeeEachOthersWrites(t *testing.T) {
	ctx := t.Context()
	path := freshDB(t)
	a, b := open(t, path), open(t, path)
	next := ids()

	if err := a.CreateUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := b.User(ctx, owner.ID); err != nil {
		t.Fatalf("b reads a's user: %v", err)
	}
	if err := b.CreateUser(ctx, owner); !errors.Is(err, store.ErrConflict) {
		t.Errorf("b creates a's user again: err = %v, want ErrConflict", err)
	}
	// b creates the application (as the CLI would), a serves it.
	app := store.Application{ID: scope.ApplicationID, Name: "app", OwnerID: owner.ID, IntegrationTypes: []int{0},
		ClientSecretHash: []byte{1}, PublicKey: "ab", PrivateKey: []byte{2}}
	if err := b.CreateApplication(ctx, app, store.User{ID: app.ID, Username: "bot", Bot: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := a.CountApplications(ctx); err != nil || n != 1 {
		t.Fatalf("a counts b's application: %d, %v", n, err)
	}
	if err := a.CreateToken(ctx, store.Token{Hash: []byte("h"), Kind: store.TokenBot, ApplicationID: app.ID, UserID: app.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TokenByHash(ctx, []byte("h")); err != nil {
		t.Fatalf("b reads a's token: %v", err)
	}

	p, err := upsert(ctx, a, parse(t, "ping", "Ping"), next)
	if err != nil {
		t.Fatal(err)
	}
	id := p.Result[0].ID
	if c, err := b.Command(ctx, scope, id); err != nil || c.Name != "ping" {
		t.Fatalf("b reads a's command: %+v, %v", c, err)
	}
	if _, err := upsert(ctx, b, parse(t, "ping", "Pong"), next); err != nil {
		t.Fatal(err)
	}
	if c, err := a.Command(ctx, scope, id); err != nil || c.Description != "Pong" {
		t.Fatalf("a reads b's update: %+v, %v", c, err)
	}
	// The daily counter is shared too.
	var creates int
	if _, err := b.WriteCommands(ctx, scope, 0, func(_ []command.Command, n int) (command.Plan, error) {
		creates = n
		return command.Plan{}, nil
	}); err != nil || creates != 1 {
		t.Errorf("b sees createsToday = %d, %v; want 1", creates, err)
	}

	perms := []command.Permission{{ID: 5, Type: command.PermissionRole, Permission: true}}
	if _, err := a.SetCommandPermissions(ctx, app.ID, 100, id, func(exists bool, _ []command.Permission) ([]command.Permission, error) {
		if !exists {
			t.Error("a: command does not exist")
		}
		return perms, nil
	}); err != nil {
		t.Fatal(err)
	}
	if gp, err := b.CommandPermissions(ctx, app.ID, 100, id); err != nil || len(gp.Permissions) != 1 {
		t.Fatalf("b reads a's permissions: %+v, %v", gp, err)
	}
	if _, err := b.WriteCommands(ctx, scope, 0, func(cur []command.Command, _ int) (command.Plan, error) {
		return command.Delete(cur, id)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Command(ctx, scope, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a reads b's delete: err = %v, want ErrNotFound", err)
	}
	if _, err := a.CommandPermissions(ctx, app.ID, 100, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a reads permissions dropped by b: err = %v, want ErrNotFound", err)
	}
}

// Writers in two processes serialize on the database lock instead of
// failing with SQLITE_BUSY.
func TestTwoHandlesConcurrentWrites(t *testing.T) {
	ctx := t.Context()
	path := freshDB(t)
	handles := []store.Store{open(t, path), open(t, path)}
	next := ids()
	in := parse(t, "ping", "Ping")
	const n = 16
	var (
		wg      sync.WaitGroup
		created atomic.Int32
	)
	for i := range n {
		wg.Go(func() {
			s := handles[i%len(handles)]
			p, err := upsert(ctx, s, in, next)
			if err != nil {
				t.Errorf("upsert through handle %d: %v", i%len(handles), err)
				return
			}
			if p.Created {
				created.Add(1)
			}
			if _, err := s.Commands(ctx, scope); err != nil {
				t.Errorf("list through handle %d: %v", i%len(handles), err)
			}
		})
	}
	wg.Wait()
	for i, s := range handles {
		cs, err := s.Commands(ctx, scope)
		if err != nil || len(cs) != 1 {
			t.Errorf("handle %d: commands = %+v, %v; want one", i, cs, err)
		}
	}
	if c := created.Load(); c != 1 {
		t.Errorf("%d upserts created the command, want 1", c)
	}
}

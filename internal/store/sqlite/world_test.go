package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// A database made before 0002 gains the world: users are not adults, and
// every guild gets the @everyone role and its owner as a member, as
// CreateGuild makes them now.
func TestUpgradeFrom0001(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`}
	stmts = append(stmts, strings.Split(string(body), ";\n")...)
	stmts = append(stmts,
		`INSERT INTO schema_migrations (version, applied_at) VALUES ('migrations/0001_init.sql', 1)`,
		`INSERT INTO users (id, username, created_at) VALUES (1, 'owner', 5)`,
		`INSERT INTO guilds (id, name, owner_id, created_at) VALUES (100, 'old', 1, 1700000000123)`)
	for _, st := range stmts {
		if strings.TrimSpace(st) == "" {
			continue
		}
		if _, err := raw.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	s := open(t, path)
	if got, want := appliedMigrations(t, s), migrationCount(t); got != want {
		t.Errorf("%d migrations recorded, want %d", got, want)
	}
	if u, err := s.User(ctx, 1); err != nil || u.Adult || u.Username != "owner" {
		t.Errorf("old user = %+v, %v", u, err)
	}
	roles, err := s.Roles(ctx, 100)
	want := []guild.Role{{ID: 100, GuildID: 100, Name: "@everyone", Permissions: guild.DefaultEveryone}}
	if err != nil || !reflect.DeepEqual(roles, want) {
		t.Errorf("old guild's roles = %+v, %v; want %+v", roles, err, want)
	}
	m, err := s.Member(ctx, 100, 1)
	if err != nil || !m.JoinedAt.Equal(time.UnixMilli(1700000000123)) || len(m.Roles) != 0 {
		t.Errorf("old guild's owner membership = %+v, %v", m, err)
	}
}

// DeleteGuild is one transaction: when its last statement fails, every
// earlier delete is rolled back.
func TestDeleteGuildFailureKeepsEverything(t *testing.T) {
	ctx := t.Context()
	s := open(t, freshDB(t))
	const g snowflake.ID = 100
	gscope := command.Scope{ApplicationID: scope.ApplicationID, GuildID: g}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.CreateUser(ctx, owner))
	app := store.Application{ID: scope.ApplicationID, Name: "app", OwnerID: owner.ID, IntegrationTypes: []int{0},
		ClientSecretHash: []byte{1}, PublicKey: "ab", PrivateKey: []byte{2}}
	must(s.CreateApplication(ctx, app, store.User{ID: app.ID, Username: "bot", Bot: true}))
	must(s.CreateGuild(ctx, store.Guild{ID: g, Name: "g", OwnerID: owner.ID, CreatedAt: time.UnixMilli(1)}))
	must(s.CreateRole(ctx, guild.Role{ID: 5, GuildID: g, Name: "mod", Position: 1}))
	must(s.PutMember(ctx, guild.Member{GuildID: g, UserID: app.ID, Roles: []snowflake.ID{5}}))
	must(s.CreateChannel(ctx, guild.Channel{ID: 6, GuildID: g, Name: "general"}))
	must(s.Install(ctx, store.Installation{GuildID: g, ApplicationID: app.ID, Scopes: []string{"bot"}}))
	p, err := s.WriteCommands(ctx, gscope, 0, func(cur []command.Command, creates int) (command.Plan, error) {
		return command.Upsert(cur, parse(t, "ping", "Ping"), creates, ids())
	})
	must(err)
	list := []command.Permission{{ID: 5, Type: command.PermissionRole, Permission: true}}
	for _, cmd := range []snowflake.ID{p.Result[0].ID, app.ID} {
		_, err := s.SetCommandPermissions(ctx, app.ID, g, cmd, func(bool, []command.Permission) ([]command.Permission, error) {
			return list, nil
		})
		must(err)
	}

	// Refuse the guild row's delete, the transaction's last statement.
	_, err = s.DB().ExecContext(ctx, `CREATE TRIGGER keep_guilds BEFORE DELETE ON guilds BEGIN SELECT RAISE(ABORT, 'kept'); END`)
	must(err)
	if err := s.DeleteGuild(ctx, g); err == nil || !strings.Contains(err.Error(), "kept") {
		t.Fatalf("DeleteGuild with the trigger: err = %v, want the trigger's", err)
	}
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("after the failed DeleteGuild, %s: %v", what, err)
		}
	}
	snap, err := s.Snapshot(ctx, g)
	check("Snapshot", err)
	if len(snap.Roles) != 2 || len(snap.Channels) != 1 || len(snap.Installations) != 1 {
		t.Errorf("after the failed DeleteGuild, Snapshot = %+v", snap)
	}
	_, err = s.Member(ctx, g, app.ID)
	check("Member", err)
	_, err = s.Member(ctx, g, owner.ID)
	check("owner's Member", err)
	_, err = s.Command(ctx, gscope, p.Result[0].ID)
	check("Command", err)
	_, err = s.CommandPermissions(ctx, app.ID, g, p.Result[0].ID)
	check("command's permissions", err)
	_, err = s.CommandPermissions(ctx, app.ID, g, app.ID)
	check("app-level permissions", err)
	var creates int
	_, err = s.WriteCommands(ctx, gscope, 0, func(_ []command.Command, n int) (command.Plan, error) {
		creates = n
		return command.Plan{}, nil
	})
	check("WriteCommands", err)
	if creates != 1 {
		t.Errorf("after the failed DeleteGuild, createsToday = %d, want 1 (the scope row kept)", creates)
	}

	_, err = s.DB().ExecContext(ctx, `DROP TRIGGER keep_guilds`)
	must(err)
	must(s.DeleteGuild(ctx, g))
	if _, err := s.Snapshot(ctx, g); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Snapshot after DeleteGuild: err = %v, want ErrNotFound", err)
	}
}

// Snapshot's read-only transaction must not take SQLite's write lock
// (the driver begins it DEFERRED despite _txlock=immediate), and it must
// keep reading the state it started on while another handle writes.
func TestReadOnlyTransactionTakesNoWriteLock(t *testing.T) {
	ctx := t.Context()
	path := freshDB(t)
	a, b := open(t, path), open(t, path)
	if err := a.CreateUser(ctx, owner); err != nil {
		t.Fatal(err)
	}
	tx, err := a.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	count := func() int {
		t.Helper()
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("users = %d, want 1", n)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := b.CreateUser(wctx, store.User{ID: 2, Username: "second"}); err != nil {
		t.Fatalf("write during a read-only transaction: %v", err)
	}
	if n := count(); n != 1 {
		t.Errorf("read-only transaction sees %d users after another handle's write, want its snapshot's 1", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

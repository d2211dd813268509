package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// A database at 0007 keeps its messages through 0008, which rebuilds the
// messages table without its reference to channels, and then stores
// messages of private channels too.
func TestUpgradeTo0008KeepsMessages(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`}
	names, err := filepath.Glob("migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name >= "migrations/0008" {
			break
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, sqlstore.MigrationStatements(string(body))...)
		stmts = append(stmts, `INSERT INTO schema_migrations (version, applied_at) VALUES ('`+name+`', 1)`)
	}
	stmts = append(stmts,
		`INSERT INTO users (id, username, created_at) VALUES (1, 'owner', 5), (2, 'alice', 5)`,
		`INSERT INTO guilds (id, name, owner_id, created_at) VALUES (100, 'old', 1, 5)`,
		`INSERT INTO channels (id, guild_id, type, name) VALUES (500, 100, 0, 'general')`,
		`INSERT INTO messages (id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at)
			VALUES (900, 500, 100, 1, 7, 2, '{"content":"old"}', 1700000000123)`)
	for _, st := range stmts {
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
	old := store.Message{ID: 900, ChannelID: 500, GuildID: 100, AuthorID: 1, InteractionID: 7, VisibleTo: 2,
		Body: []byte(`{"content":"old"}`), CreatedAt: time.UnixMilli(1700000000123).UTC()}
	if got, err := s.Message(ctx, 900); err != nil || !reflect.DeepEqual(got, old) {
		t.Errorf("old message = %+v, %v; want %+v", got, err, old)
	}
	if got, err := s.ChannelMessages(ctx, 500, 2, 0, 10); err != nil || len(got) != 1 {
		t.Errorf("old channel's messages (through the rebuilt index) = %+v, %v", got, err)
	}
	var schema string
	if err := s.DB().QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'messages'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(schema, "REFERENCES") {
		t.Errorf("messages still references another table: %s", schema)
	}
	dm, created, err := s.OpenDM(ctx, store.PrivateChannel{ID: 600, Type: guild.ChannelDM, Recipients: []snowflake.ID{1, 2}})
	if err != nil || !created {
		t.Fatalf("OpenDM: %v", err)
	}
	if err := s.CreateMessage(ctx, store.Message{ID: 901, ChannelID: dm.ID, AuthorID: 2, Body: []byte(`{}`)}); err != nil {
		t.Errorf("a message in the DM: %v", err)
	}
	// Guild channels still hold messages, and deleting one still takes
	// its messages.
	if err := s.DeleteChannel(ctx, 100, 500); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ChannelMessages(ctx, 500, 2, 0, 10); err != nil || len(got) != 0 {
		t.Errorf("messages of the deleted channel = %+v, %v", got, err)
	}
}

package sqlite_test

import (
	"database/sql"
	"errors"
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
	path := databaseBefore(t, "0008",
		`INSERT INTO users (id, username, created_at) VALUES (1, 'owner', 5), (2, 'alice', 5)`,
		`INSERT INTO guilds (id, name, owner_id, created_at) VALUES (100, 'old', 1, 5)`,
		`INSERT INTO channels (id, guild_id, type, name) VALUES (500, 100, 0, 'general')`,
		`INSERT INTO messages (id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at)
			VALUES (900, 500, 100, 1, 7, 2, '{"content":"old"}', 1700000000123)`)
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

// databaseBefore makes a SQLite file with the migrations before version
// (a file name prefix) applied, recorded as the store records them, then
// runs rows (its contents); the store's Open applies the rest.
func databaseBefore(t *testing.T, version string, rows ...string) string {
	t.Helper()
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
		if name >= "migrations/"+version {
			break
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, sqlstore.MigrationStatements(string(body))...)
		stmts = append(stmts, `INSERT INTO schema_migrations (version, applied_at) VALUES ('`+name+`', 1)`)
	}
	for _, st := range append(stmts, rows...) {
		if _, err := raw.ExecContext(t.Context(), st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A database at 0012 keeps its interactions through 0013, which rebuilds
// their table without the token's UNIQUE index and drops the index on
// created_at; the other indexes are made again (and 0024 drops the one
// by original message).
func TestUpgradeTo0013KeepsInteractions(t *testing.T) {
	ctx := t.Context()
	path := databaseBefore(t, "0013",
		`INSERT INTO users (id, username, created_at) VALUES (1, 'owner', 5)`,
		`INSERT INTO guilds (id, name, owner_id, created_at) VALUES (100, 'old', 1, 5)`,
		`INSERT INTO channels (id, guild_id, type, name) VALUES (500, 100, 0, 'general'), (501, 100, 0, 'other')`,
		`INSERT INTO interactions (id, application_id, type, token_hash, guild_id, channel_id, user_id, command_id,
			message_id, created_at, response_type, answered_at, original_message_id, ephemeral, result, metadata, followups)
			VALUES (700, 9, 2, X'0102', 100, 500, 1, 33, 0, 1700000000000, 4, 1700000000500, 900, 1, '{"x":1}', '{"id":"700"}', 2),
			(701, 9, 4, X'0304', 100, 501, 1, 33, 0, 1700000001000, 0, 0, 0, 0, NULL, '{"id":"701"}', 0)`,
		`INSERT INTO messages (id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at)
			VALUES (900, 500, 100, 9, 700, 0, '{}', 1700000000500)`)
	s := open(t, path)
	if got, want := appliedMigrations(t, s), migrationCount(t); got != want {
		t.Errorf("%d migrations recorded, want %d", got, want)
	}
	answered := store.Interaction{ID: 700, ApplicationID: 9, Type: 2, TokenHash: []byte{1, 2}, GuildID: 100, ChannelID: 500,
		UserID: 1, CommandID: 33, CreatedAt: time.UnixMilli(1700000000000).UTC(), Metadata: []byte(`{"id":"700"}`),
		ResponseType: 4, AnsweredAt: time.UnixMilli(1700000000500).UTC(), OriginalMessageID: 900, Ephemeral: true,
		Result: []byte(`{"x":1}`)}
	if got, err := s.Interaction(ctx, 700); err != nil || !reflect.DeepEqual(got, answered) {
		t.Errorf("old interaction = %+v, %v; want %+v", got, err, answered)
	}
	var followups int
	if err := s.DB().QueryRowContext(ctx, `SELECT followups FROM interactions WHERE id = 700`).Scan(&followups); err != nil || followups != 2 {
		t.Errorf("followups = %d, %v; want 2", followups, err)
	}
	for table, want := range map[string][]string{
		"interactions": {"interactions_by_channel"},
		"messages":     {"messages_by_channel"},
	} {
		if got := indexesOf(t, s, table); !reflect.DeepEqual(got, want) {
			t.Errorf("indexes of %s = %v, want %v (the primary key is the rowid)", table, got, want)
		}
	}
	// A second interaction with a token hash already stored is no
	// conflict now (ids are what must differ).
	if err := s.CreateInteraction(ctx, store.Interaction{ID: 702, ApplicationID: 9, Type: 2, TokenHash: []byte{1, 2},
		ChannelID: 501, CreatedAt: time.UnixMilli(1700000002000)}); err != nil {
		t.Errorf("CreateInteraction with a stored token hash: %v", err)
	}
	// The rebuilt indexes still serve: deleting a channel takes its
	// interactions, deleting the original message forgets it.
	if err := s.DeleteChannel(ctx, 100, 501); err != nil {
		t.Fatal(err)
	}
	for _, id := range []snowflake.ID{701, 702} {
		if _, err := s.Interaction(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("interaction %d of the deleted channel: %v", id, err)
		}
	}
	if err := s.DeleteMessage(ctx, 900); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Interaction(ctx, 700); err != nil || got.OriginalMessageID != 0 {
		t.Errorf("after its original message went: %+v, %v", got, err)
	}
}

// indexesOf lists the indexes of table, by name.
func indexesOf(t *testing.T, s *sqlstore.Store, table string) []string {
	t.Helper()
	rows, err := s.DB().QueryContext(t.Context(), `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = $1 ORDER BY name`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

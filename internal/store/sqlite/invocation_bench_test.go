package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// BenchmarkInvocationWrites is the store's share of an invocation
// answered inline, with a message and its metadata of realistic sizes:
// the record, then its answer (a cluster node), or both in one
// transaction (a node that is its store's only writer).
func BenchmarkInvocationWrites(b *testing.B) {
	metadata := []byte(`{"id":"1300000000000000000","type":2,"user":{"id":"1200000000000000000","username":"alice",` +
		`"discriminator":"0","global_name":null,"avatar":null},"authorizing_integration_owners":{"0":"1100000000000000000"},` +
		`"name":"echo","command_type":1}`)
	body := []byte(`{"type":20,"content":"hello","author":{"id":"1","username":"bot","discriminator":"0","bot":true},` +
		strings.Repeat(`"pad":"x",`, 30) + `"flags":0}`)
	const owner, g, ch snowflake.ID = 10, 20, 30
	at := time.UnixMilli(1_700_000_000_000)
	answer := func(cur store.Interaction) (store.Answer, error) {
		m := store.Message{ID: cur.ID + 1, ChannelID: ch, GuildID: g, AuthorID: 5, InteractionID: cur.ID, Body: body, CreatedAt: at}
		cur.ResponseType, cur.AnsweredAt, cur.OriginalMessageID = 4, at, m.ID
		return store.Answer{Interaction: cur, Put: &m}, nil
	}
	for _, c := range []struct {
		name  string
		write func(ctx context.Context, s *sqlstore.Store, rec store.Interaction) error
	}{
		{"record then answer", func(ctx context.Context, s *sqlstore.Store, rec store.Interaction) error {
			if err := s.CreateInteraction(ctx, rec); err != nil {
				return err
			}
			_, err := s.AnswerInteraction(ctx, rec.ID, answer)
			return err
		}},
		{"answered record", func(ctx context.Context, s *sqlstore.Store, rec store.Interaction) error {
			_, err := s.CreateAnsweredInteraction(ctx, rec, answer)
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := openTest(b, filepath.Join(b.TempDir(), "db.sqlite"))
			ctx := b.Context()
			mustBench(b, s.CreateUser(ctx, store.User{ID: owner, Username: "owner", CreatedAt: at}))
			mustBench(b, s.CreateGuild(ctx, store.Guild{ID: g, Name: "g", OwnerID: owner, CreatedAt: at}))
			mustBench(b, s.CreateChannel(ctx, guild.Channel{ID: ch, GuildID: g, Type: guild.ChannelText, Name: "general"}))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				token := sha256.Sum256([]byte(strconv.Itoa(i)))
				rec := store.Interaction{ID: snowflake.ID(1_000_000_000 + 2*i), ApplicationID: 5, Type: 2, TokenHash: token[:],
					GuildID: g, ChannelID: ch, UserID: owner, CommandID: 7, CreatedAt: at, Metadata: metadata}
				mustBench(b, c.write(ctx, s, rec))
			}
		})
	}
}

// BenchmarkTinyTx is a write transaction's fixed cost: one small row.
func BenchmarkTinyTx(b *testing.B) {
	s := openTest(b, filepath.Join(b.TempDir(), "db.sqlite"))
	ctx := b.Context()
	mustBench(b, s.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE tiny (id INTEGER PRIMARY KEY, v INTEGER)`)
		return err
	}))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mustBench(b, s.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO tiny (v) VALUES ($1)`, i)
			return err
		}))
	}
}

func mustBench(b testing.TB, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

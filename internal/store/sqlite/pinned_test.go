package sqlite

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// An invocation answered inline is recorded on the store's pinned
// writer: under a request's cancellable context it starts no goroutine
// (through database/sql it started four or five each: BeginTx's context
// watcher, the driver's interrupt watcher for each statement), and what
// it records is there.
func TestAnsweredRecordOnThePinnedWriter(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "db.sqlite"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const owner, g, ch snowflake.ID = 10, 20, 30
	at := time.UnixMilli(1_700_000_000_000).UTC()
	mustBench(t, s.CreateUser(ctx, store.User{ID: owner, Username: "owner", CreatedAt: at}))
	mustBench(t, s.CreateGuild(ctx, store.Guild{ID: g, Name: "g", OwnerID: owner, CreatedAt: at}))
	mustBench(t, s.CreateChannel(ctx, guild.Channel{ID: ch, GuildID: g, Type: guild.ChannelText, Name: "general"}))
	answer := func(cur store.Interaction) (store.Answer, error) {
		m := store.Message{ID: cur.ID + 1, ChannelID: ch, GuildID: g, AuthorID: owner, InteractionID: cur.ID,
			Body: []byte(`{"content":"hello"}`), CreatedAt: at}
		cur.ResponseType, cur.AnsweredAt, cur.OriginalMessageID = 4, at, m.ID
		return store.Answer{Interaction: cur, Put: &m}, nil
	}
	const n = 50
	before := goroutinesCreated()
	for i := range n {
		token := sha256.Sum256([]byte(strconv.Itoa(i)))
		rec := store.Interaction{ID: snowflake.ID(1_000 + 2*i), ApplicationID: 5, Type: 2, TokenHash: token[:],
			GuildID: g, ChannelID: ch, UserID: owner, CreatedAt: at}
		if _, err := s.CreateAnsweredInteraction(ctx, rec, answer); err != nil {
			t.Fatal(err)
		}
	}
	// The checkpointer may start one or two of its own meanwhile.
	if started := goroutinesCreated() - before; started >= n {
		t.Errorf("%d goroutines started for %d answered records, want fewer than one each", started, n)
	}
	for i := range n {
		id := snowflake.ID(1_000 + 2*i)
		in, err := s.Interaction(ctx, id)
		if err != nil || in.OriginalMessageID != id+1 || in.ResponseType != 4 {
			t.Fatalf("interaction %d: %+v, %v", id, in, err)
		}
		if m, err := s.Message(ctx, id+1); err != nil || string(m.Body) != `{"content":"hello"}` {
			t.Fatalf("message %d: %+v, %v", id+1, m, err)
		}
	}
}

// goroutinesCreated is how many goroutines this process has started.
func goroutinesCreated() uint64 {
	sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

package storetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// testFollowups: CreateFollowup inserts the message and counts it; a
// limited interaction gets at most its limit, also under concurrent
// follow-ups; an unlimited one any number.
func testFollowups(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	limited := interaction(8101, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, limited))
	const limit, tries = 5, 12
	var (
		wg            sync.WaitGroup
		mu            sync.Mutex
		made, refused int
		unexpected    []error
	)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := msg(snowflake.ID(9101+i), textID, guildID, appID, `{"content":"more"}`)
			m.InteractionID = limited.ID
			err := f.s.CreateFollowup(f.ctx, limited.ID, limit, m)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case errors.Is(err, store.ErrConflict):
				refused++
			default:
				unexpected = append(unexpected, err)
			}
		}()
	}
	wg.Wait()
	if len(unexpected) > 0 || made != limit || refused != tries-limit {
		t.Fatalf("%d made, %d refused, errors %v; want %d made", made, refused, unexpected, limit)
	}
	msgs, err := f.s.ChannelMessages(f.ctx, textID, aliceID, 0, 100)
	must(t, err)
	if len(msgs) != limit {
		t.Fatalf("%d messages stored, want %d", len(msgs), limit)
	}

	free := interaction(8102, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, free))
	for i := range tries {
		m := msg(snowflake.ID(9201+i), textID, guildID, appID, `{"content":"free"}`)
		must(t, f.s.CreateFollowup(f.ctx, free.ID, 0, m))
	}

	m := msg(9301, textID, guildID, appID, `{}`)
	if err := f.s.CreateFollowup(f.ctx, unknown, 0, m); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown interaction: %v, want ErrNotFound", err)
	}
	m.ChannelID = unknown
	if err := f.s.CreateFollowup(f.ctx, free.ID, 0, m); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown channel: %v, want ErrNotFound", err)
	}
	if _, err := f.s.Message(f.ctx, m.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused follow-up was stored: %v", err)
	}
}

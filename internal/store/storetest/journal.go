package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

func journalEntry(world snowflake.ID, typ string, n int) store.JournalEntry {
	return store.JournalEntry{WorldID: world, ID: snowflake.ID(1000 + n), Type: typ, At: ms(1_700_000_000_000 + int64(n)),
		Body: []byte(fmt.Sprintf(`{"n":%d}`, n))}
}

func testJournal(t *testing.T, open func(t *testing.T) store.Store) {
	const w1, w2 snowflake.ID = 7001, 7002
	t.Run("AppendAndRead", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		if last, err := s.JournalLast(ctx, w1); err != nil || last != 0 {
			t.Fatalf("JournalLast of an empty journal = %d, %v; want 0", last, err)
		}
		batch := []store.JournalEntry{journalEntry(w1, "rest.request", 1), journalEntry(w2, "rest.request", 2),
			journalEntry(w1, "interaction.answered", 3)}
		must(t, s.AppendJournal(ctx, batch, 0))
		if !(batch[0].Seq > 0 && batch[1].Seq == batch[0].Seq+1 && batch[2].Seq == batch[1].Seq+1) {
			t.Fatalf("seqs %d %d %d: want consecutive, increasing", batch[0].Seq, batch[1].Seq, batch[2].Seq)
		}
		got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w1, Limit: 10})
		must(t, err)
		if len(got) != 2 || got[0].Seq != batch[0].Seq || got[1].Seq != batch[2].Seq {
			t.Fatalf("world 1's entries = %+v; want seqs %d, %d", got, batch[0].Seq, batch[2].Seq)
		}
		e := got[1]
		if e.WorldID != w1 || e.ID != 1003 || e.Type != "interaction.answered" || !e.At.Equal(ms(1_700_000_000_003)) ||
			string(e.Body) != `{"n":3}` {
			t.Errorf("entry read back = %+v; want it as appended", e)
		}
		for _, c := range []struct {
			name string
			q    store.JournalQuery
			want []int64
		}{
			{"after the first", store.JournalQuery{WorldID: w1, After: batch[0].Seq, Limit: 10}, []int64{batch[2].Seq}},
			{"after the last", store.JournalQuery{WorldID: w1, After: batch[2].Seq, Limit: 10}, nil},
			{"by type", store.JournalQuery{WorldID: w1, Types: []string{"interaction.answered", "gateway.close"}, Limit: 10}, []int64{batch[2].Seq}},
			{"limited", store.JournalQuery{WorldID: w1, Limit: 1}, []int64{batch[0].Seq}},
			{"no limit is one", store.JournalQuery{WorldID: w1}, []int64{batch[0].Seq}},
			{"other world", store.JournalQuery{WorldID: w2, Limit: 10}, []int64{batch[1].Seq}},
			{"unknown world", store.JournalQuery{WorldID: 1, Limit: 10}, nil},
		} {
			got, err := s.JournalEntries(ctx, c.q)
			must(t, err)
			var seqs []int64
			for _, e := range got {
				seqs = append(seqs, e.Seq)
			}
			if fmt.Sprint(seqs) != fmt.Sprint(c.want) {
				t.Errorf("%s: seqs %v; want %v", c.name, seqs, c.want)
			}
		}
		if last, err := s.JournalLast(ctx, w1); err != nil || last != batch[2].Seq {
			t.Errorf("JournalLast = %d, %v; want %d", last, err, batch[2].Seq)
		}
	})
	t.Run("KeepsTheNewest", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		for n := range 5 {
			must(t, s.AppendJournal(ctx, []store.JournalEntry{journalEntry(w1, "rest.request", n), journalEntry(w2, "rest.request", 100+n)}, 3))
		}
		got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w1, Limit: 100})
		must(t, err)
		if len(got) != 3 || string(got[0].Body) != `{"n":2}` || string(got[2].Body) != `{"n":4}` {
			t.Fatalf("world 1 keeps %d entries %v; want the newest 3 (n 2..4)", len(got), got)
		}
		got, err = s.JournalEntries(ctx, store.JournalQuery{WorldID: w2, Limit: 100})
		must(t, err)
		if len(got) != 3 {
			t.Fatalf("world 2 keeps %d entries; want 3", len(got))
		}
		// A batch larger than the cap keeps its newest.
		var big []store.JournalEntry
		for n := range 5 {
			big = append(big, journalEntry(w1, "rest.request", 10+n))
		}
		must(t, s.AppendJournal(ctx, big, 2))
		got, err = s.JournalEntries(ctx, store.JournalQuery{WorldID: w1, Limit: 100})
		must(t, err)
		if len(got) != 2 || string(got[1].Body) != `{"n":14}` {
			t.Fatalf("after a batch over the cap world 1 keeps %v; want n 13, 14", got)
		}
	})
	t.Run("BatchesOfEverySize", func(t *testing.T) {
		// A batch is written in statements of a few fixed sizes: each
		// size, and a batch over the largest, keeps every entry in order.
		s, ctx := open(t), t.Context()
		n := 0
		for _, size := range []int{1, 2, 3, 7, 31, 161, 300} {
			var batch []store.JournalEntry
			for range size {
				n++
				batch = append(batch, journalEntry(w2, "rest.request", n))
			}
			must(t, s.AppendJournal(ctx, batch, 0))
		}
		got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w2, Limit: 1000})
		must(t, err)
		if len(got) != n {
			t.Fatalf("the journal keeps %d entries; want %d", len(got), n)
		}
		for i, e := range got {
			if want := fmt.Sprintf(`{"n":%d}`, i+1); string(e.Body) != want || i > 0 && e.Seq <= got[i-1].Seq {
				t.Fatalf("entry %d = seq %d %s; want %s after seq %d", i, e.Seq, e.Body, want, got[max(i-1, 0)].Seq)
			}
		}
	})
	t.Run("OneOrderAcrossWriters", func(t *testing.T) {
		// Writers append concurrently while a reader follows the cursor:
		// if a smaller seq could commit after a larger one the reader
		// has passed, the reader would miss it.
		s, ctx := open(t), t.Context()
		const writers, batches, per = 4, 15, 3
		total := writers * batches * per
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for wr := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range batches {
					var batch []store.JournalEntry
					for i := range per {
						batch = append(batch, journalEntry(w1, "rest.request", (wr*batches+b)*per+i))
					}
					if err := s.AppendJournal(ctx, batch, 0); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		seen := map[string]bool{}
		var cursor int64
		for finished := false; ; {
			select {
			case <-done:
				finished = true
			default:
			}
			got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w1, After: cursor, Limit: 50})
			must(t, err)
			for _, e := range got {
				if e.Seq <= cursor {
					t.Fatalf("seq %d after cursor %d", e.Seq, cursor)
				}
				cursor = e.Seq
				seen[string(e.Body)] = true
			}
			if finished && len(got) == 0 {
				break
			}
		}
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(seen) != total {
			t.Fatalf("the reader saw %d of %d entries: some committed behind its cursor", len(seen), total)
		}
	})
	t.Run("DeleteJournal", func(t *testing.T) {
		s, ctx := open(t), t.Context()
		must(t, s.AppendJournal(ctx, []store.JournalEntry{journalEntry(w1, "rest.request", 1), journalEntry(w2, "rest.request", 2)}, 0))
		txer, ok := s.(interface {
			Tx(context.Context, func(*sql.Tx) error) error
		})
		if !ok {
			t.Skip("the store runs no SQL transactions")
		}
		must(t, txer.Tx(ctx, func(tx *sql.Tx) error { return sqlstore.DeleteJournal(ctx, tx, w1) }))
		if got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w1, Limit: 10}); err != nil || len(got) != 0 {
			t.Errorf("world 1's journal after DeleteJournal = %v, %v; want none", got, err)
		}
		if got, err := s.JournalEntries(ctx, store.JournalQuery{WorldID: w2, Limit: 10}); err != nil || len(got) != 1 {
			t.Errorf("world 2's journal = %v, %v; want its one entry", got, err)
		}
		// A failed transaction keeps the journal.
		boom := errors.New("boom")
		if err := txer.Tx(ctx, func(tx *sql.Tx) error {
			if err := sqlstore.DeleteJournal(ctx, tx, w2); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("Tx = %v; want boom", err)
		}
		if got, _ := s.JournalEntries(ctx, store.JournalQuery{WorldID: w2, Limit: 10}); len(got) != 1 {
			t.Errorf("world 2's journal after a rolled-back delete = %v; want its entry", got)
		}
	})
}

package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// BenchmarkAppendJournal is the journal writer's store work as a test
// world's gateway invocations make it (internal/journal: a batch every
// 10 ms; five entries an invocation, of the sizes BenchmarkInvokeWorld-
// JournalOn writes): one op is a batch of eleven invocations' entries,
// trimmed to the default cap once per tenth of it written. It reports
// the write-ahead log's bytes per entry (each a frame written, and
// copied back by a checkpoint).
func BenchmarkAppendJournal(b *testing.B) {
	const world snowflake.ID = 7001
	const keep, perBatch = 10_000, 11
	sizes := []struct {
		typ  string
		size int
	}{{"interaction.delivered", 2316}, {"gateway.dispatch", 88}, {"rest.request", 272},
		{"message.created", 1755}, {"interaction.answered", 1929}}
	dir := b.TempDir()
	s := openTest(b, filepath.Join(dir, "db.sqlite"))
	ctx := b.Context()
	at := time.UnixMilli(1_700_000_000_000)
	id, sinceTrim, entries := snowflake.ID(1), 0, 0
	var wal int64
	walSize := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, "db.sqlite-wal"))
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	b.ResetTimer()
	for range b.N {
		batch := make([]store.JournalEntry, 0, perBatch*len(sizes))
		for range perBatch {
			for _, e := range sizes {
				id++
				body := `{"n":"` + strings.Repeat("x", e.size-9) + `"}`
				batch = append(batch, store.JournalEntry{WorldID: world, ID: id, Type: e.typ, At: at, Body: []byte(body)})
			}
		}
		trim := 0
		if sinceTrim += len(batch); sinceTrim >= keep/10 {
			trim, sinceTrim = keep, 0
		}
		before := walSize()
		mustBench(b, s.AppendJournal(ctx, batch, trim))
		if after := walSize(); after > before {
			wal += after - before
		}
		entries += len(batch)
	}
	b.StopTimer()
	b.ReportMetric(float64(wal)/float64(entries), "wal-B/entry")
}

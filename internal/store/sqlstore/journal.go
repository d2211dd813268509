package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// The journal (migration 0017, docs/journal.md). Seqs come from
// journal_seq's one row: the UPDATE that takes them holds its row lock
// (PostgreSQL at READ COMMITTED; SQLite's write lock) until the commit,
// so batches commit in the order of their seqs and a reader never sees
// a smaller seq appear after a larger one.

// journalInsertSizes are the row counts of the INSERTs a batch is cut
// into, largest first (6 parameters a row: well under SQLite's and
// PostgreSQL's parameter limits). Powers of two, each prepared once: a
// batch runs one statement per bit of its size (a few) and parses none.
func journalInsertSizes() [8]int { return [...]int{128, 64, 32, 16, 8, 4, 2, 1} }

const (
	queryTakeJournalSeqs = `UPDATE journal_seq SET last = last + $1 WHERE id = 1 RETURNING last`
	queryTrimJournal     = `DELETE FROM journal WHERE world_id = $1 AND seq <=
		(SELECT seq FROM journal WHERE world_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)`
)

// journalInsert is the INSERT of n entries.
func journalInsert(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO journal (seq, world_id, id, type, at, body) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		p := 6 * i
		b.WriteString("($" + strconv.Itoa(p+1) + ", $" + strconv.Itoa(p+2) + ", $" + strconv.Itoa(p+3) + ", $" +
			strconv.Itoa(p+4) + ", $" + strconv.Itoa(p+5) + ", $" + strconv.Itoa(p+6) + ")")
	}
	return b.String()
}

// journalChunks cuts n entries into chunks of journalInsertSizes.
func journalChunks(n int) []int {
	var out []int
	for _, size := range journalInsertSizes() {
		for ; n >= size; n -= size {
			out = append(out, size)
		}
	}
	return out
}

// AppendJournal implements store.Journal.
func (s *Store) AppendJournal(ctx context.Context, entries []store.JournalEntry, keep int) error {
	if len(entries) == 0 {
		return nil
	}
	chunks := journalChunks(len(entries))
	inserts := make([]string, len(chunks))
	queries := []string{queryTakeJournalSeqs, queryTrimJournal}
	for i, n := range chunks {
		if i > 0 && n == chunks[i-1] {
			inserts[i] = inserts[i-1]
			continue
		}
		inserts[i] = journalInsert(n)
		queries = append(queries, inserts[i])
	}
	// Prepared before the transaction, which then reuses them (see
	// preparedStmt).
	if err := s.prepareAll(ctx, queries...); err != nil {
		return fmt.Errorf("append %d journal entries: %w", len(entries), err)
	}
	return s.lockedTx(ctx, func(tx *sql.Tx) error {
		var last int64
		if err := (txReader{s: s, tx: tx}).QueryRowContext(ctx, queryTakeJournalSeqs, len(entries)).Scan(&last); err != nil {
			return fmt.Errorf("take journal seqs: %w", s.formatError(err))
		}
		first := last - int64(len(entries)) + 1
		var worlds []snowflake.ID
		for i := range entries {
			entries[i].Seq = first + int64(i)
			if !slices.Contains(worlds, entries[i].WorldID) {
				worlds = append(worlds, entries[i].WorldID)
			}
		}
		rest := entries
		for i, n := range chunks {
			chunk := rest[:n]
			rest = rest[n:]
			args := make([]any, 0, 6*n)
			for _, e := range chunk {
				args = append(args, e.Seq, id64(e.WorldID), id64(e.ID), e.Type, unix(e.At), string(e.Body))
			}
			if _, err := s.txExec(ctx, tx, inserts[i], args...); err != nil {
				return fmt.Errorf("append %d journal entries: %w", n, s.formatError(err))
			}
		}
		if keep <= 0 {
			return nil
		}
		for _, w := range worlds {
			// The (keep+1)th newest and everything older go; NULL (fewer
			// kept) deletes nothing.
			if _, err := s.txExec(ctx, tx, queryTrimJournal, id64(w), keep); err != nil {
				return fmt.Errorf("trim world %d's journal: %w", w, s.formatError(err))
			}
		}
		return nil
	})
}

// JournalEntries implements store.Journal.
func (s *Store) JournalEntries(ctx context.Context, q store.JournalQuery) ([]store.JournalEntry, error) {
	limit := max(q.Limit, 1)
	var b strings.Builder
	b.WriteString(`SELECT seq, world_id, id, type, at, body FROM journal WHERE world_id = $1 AND seq > $2`)
	args := []any{id64(q.WorldID), q.After}
	if len(q.Types) > 0 {
		b.WriteString(` AND type IN (`)
		for i, t := range q.Types {
			if i > 0 {
				b.WriteString(", ")
			}
			args = append(args, t)
			b.WriteString("$" + strconv.Itoa(len(args)))
		}
		b.WriteString(")")
	}
	args = append(args, limit)
	b.WriteString(` ORDER BY seq LIMIT $` + strconv.Itoa(len(args)))
	rows, err := s.db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("read world %d's journal: %w", q.WorldID, s.formatError(err))
	}
	defer rows.Close()
	var out []store.JournalEntry
	for rows.Next() {
		var (
			e         store.JournalEntry
			world, id int64
			at        int64
			body      string
		)
		if err := rows.Scan(&e.Seq, &world, &id, &e.Type, &at, &body); err != nil {
			return nil, fmt.Errorf("read world %d's journal: %w", q.WorldID, err)
		}
		e.WorldID, e.ID, e.At, e.Body = snowflake.ID(world), snowflake.ID(id), fromUnix(at), []byte(body)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read world %d's journal: %w", q.WorldID, err)
	}
	return out, nil
}

// JournalLast implements store.Journal.
func (s *Store) JournalLast(ctx context.Context, worldID snowflake.ID) (int64, error) {
	var last sql.NullInt64
	if err := s.queryRow(ctx, `SELECT MAX(seq) FROM journal WHERE world_id = $1`, id64(worldID)).Scan(&last); err != nil {
		return 0, fmt.Errorf("read world %d's last journal entry: %w", worldID, s.formatError(err))
	}
	return last.Int64, nil
}

// DeleteJournal deletes a world's journal in tx: the world's DeleteWorld
// calls it in its transaction, so that the journal goes with the world.
func DeleteJournal(ctx context.Context, tx *sql.Tx, worldID snowflake.ID) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE world_id = $1`, id64(worldID)); err != nil {
		return fmt.Errorf("delete world %d's journal: %w", worldID, err)
	}
	return nil
}

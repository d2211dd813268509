package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var _ store.Files = (*Store)(nil)

// ---- files uploaded with messages ----

// File reads one stored file.
func (s *Store) File(ctx context.Context, id snowflake.ID) (store.File, error) {
	var (
		f          store.File
		fid, m, ch int64
	)
	err := s.queryRow(ctx, `SELECT id, message_id, channel_id, filename, content_type, data
		FROM message_files WHERE id = $1`, id64(id)).Scan(&fid, &m, &ch, &f.Filename, &f.ContentType, &f.Data)
	if err != nil {
		return store.File{}, notFound(err, fmt.Sprintf("file %d", id))
	}
	f.ID, f.MessageID, f.ChannelID = snowflake.ID(fid), snowflake.ID(m), snowflake.ID(ch)
	return f, nil
}

// FileSigningKey returns the stored signing key, storing candidate when
// there is none: of concurrent first calls, one row wins and all read it.
func (s *Store) FileSigningKey(ctx context.Context, candidate []byte) ([]byte, error) {
	if len(candidate) == 0 {
		return nil, fmt.Errorf("file signing key: empty candidate")
	}
	if _, err := s.exec(ctx, `INSERT INTO file_signing_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`,
		candidate); err != nil {
		return nil, fmt.Errorf("store file signing key: %w", s.formatError(err))
	}
	var key []byte
	if err := s.queryRow(ctx, `SELECT key FROM file_signing_key WHERE id = 1`).Scan(&key); err != nil {
		return nil, fmt.Errorf("read file signing key: %w", err)
	}
	return key, nil
}

// writeFiles applies m.Files within tx, once m's row is written: the
// files m no longer keeps are deleted (when replaced is set: m was
// there before), the new ones inserted, and the oldest evicted past the
// quota.
func (s *Store) writeFiles(ctx context.Context, tx *sql.Tx, m store.Message, replaced bool) error {
	fw := m.Files
	if fw == nil {
		return nil
	}
	fw.Evicted, fw.EvictedBytes = 0, 0 // a retried transaction starts again
	if replaced {
		if err := dropUnkept(ctx, tx, m.ID, fw.Keep); err != nil {
			return err
		}
	}
	for _, f := range fw.Add {
		if _, err := tx.ExecContext(ctx, `INSERT INTO message_files
			(id, message_id, channel_id, filename, content_type, size, data) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			id64(f.ID), id64(m.ID), id64(m.ChannelID), f.Filename, f.ContentType, int64(len(f.Data)), f.Data); err != nil {
			return fmt.Errorf("insert file %d of message %d: %w", f.ID, m.ID, s.formatError(err))
		}
	}
	if len(fw.Add) == 0 || fw.Quota <= 0 {
		return nil
	}
	return evictFiles(ctx, tx, fw)
}

// dropUnkept deletes the files of message id whose ids keep lacks.
func dropUnkept(ctx context.Context, tx *sql.Tx, id snowflake.ID, keep []snowflake.ID) error {
	q := `DELETE FROM message_files WHERE message_id = $1`
	args := []any{id64(id)}
	if len(keep) > 0 {
		marks := make([]string, len(keep))
		for i, k := range keep {
			args = append(args, id64(k))
			marks[i] = fmt.Sprintf("$%d", i+2)
		}
		q += ` AND id NOT IN (` + strings.Join(marks, ", ") + `)`
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("delete dropped files of message %d: %w", id, err)
	}
	return nil
}

// queryEvictFiles deletes the oldest files until the rest fit in $1
// bytes: a file goes when it and the newer ones add up to more. The
// running sum reads the by_age index (id, size), not the files.
const queryEvictFiles = `DELETE FROM message_files WHERE id IN (
	SELECT id FROM (
		SELECT id, SUM(size) OVER (ORDER BY id DESC ROWS UNBOUNDED PRECEDING) AS newer FROM message_files
	) AS running WHERE newer > $1)
	RETURNING size`

// evictFiles applies fw's quota, counting what it evicts into fw.
func evictFiles(ctx context.Context, tx *sql.Tx, fw *store.FileWrite) error {
	rows, err := tx.QueryContext(ctx, queryEvictFiles, fw.Quota)
	if err != nil {
		return fmt.Errorf("evict files past %d bytes: %w", fw.Quota, err)
	}
	defer rows.Close()
	for rows.Next() {
		var size int64
		if err := rows.Scan(&size); err != nil {
			return fmt.Errorf("evict files: %w", err)
		}
		fw.Evicted++
		fw.EvictedBytes += size
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("evict files: %w", err)
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/slashd/slashd/internal/store"
)

var _ store.PlaygroundSessions = (*Store)(nil)

// CreatePlaygroundSession inserts a session after the table's upkeep:
// the expired sessions go, then, when keep more would be there, the ones
// that expire first. The upkeep runs on every login, so the table never
// holds more than keep rows and a purge never deletes more than that.
func (s *Store) CreatePlaygroundSession(ctx context.Context, ps store.PlaygroundSession, keep int) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM playground_sessions WHERE expires_at <= $1`, unix(ps.CreatedAt)); err != nil {
			return fmt.Errorf("delete expired playground sessions: %w", err)
		}
		if keep > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM playground_sessions`).Scan(&n); err != nil {
				return fmt.Errorf("count playground sessions: %w", err)
			}
			if over := n - keep + 1; over > 0 {
				_, err := tx.ExecContext(ctx, `DELETE FROM playground_sessions WHERE hash IN
					(SELECT hash FROM playground_sessions ORDER BY expires_at, hash LIMIT $1)`, over)
				if err != nil {
					return fmt.Errorf("delete the oldest playground sessions: %w", err)
				}
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO playground_sessions
			(hash, admin_token_hash, admin_token, csrf, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			ps.Hash, ps.AdminTokenHash, ps.SealedAdminToken, ps.CSRF, unix(ps.ExpiresAt), unix(ps.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert playground session: %w", s.formatError(err))
		}
		return nil
	})
}

// PlaygroundSession reads a session, expired or not.
func (s *Store) PlaygroundSession(ctx context.Context, hash []byte) (store.PlaygroundSession, error) {
	var (
		ps               store.PlaygroundSession
		expires, created int64
	)
	err := s.queryRow(ctx, `SELECT hash, admin_token_hash, admin_token, csrf, expires_at, created_at
		FROM playground_sessions WHERE hash = $1`, hash).
		Scan(&ps.Hash, &ps.AdminTokenHash, &ps.SealedAdminToken, &ps.CSRF, &expires, &created)
	if err != nil {
		return ps, notFound(err, "playground session")
	}
	ps.ExpiresAt, ps.CreatedAt = fromUnix(expires), fromUnix(created)
	return ps, nil
}

// DeletePlaygroundSession ends a session; an unknown one is no error.
func (s *Store) DeletePlaygroundSession(ctx context.Context, hash []byte) error {
	if _, err := s.execWrite(ctx, `DELETE FROM playground_sessions WHERE hash = $1`, hash); err != nil {
		return fmt.Errorf("delete playground session: %w", err)
	}
	return nil
}

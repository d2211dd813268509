package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var _ store.Faults = (*Store)(nil)

const faultColumns = `id, world_id, kind, app_id, route, session, params, count, remaining,
	probability, seed, matched, fired, created_at`

// CreateFault inserts a fault with all its firings left, if its world
// has fewer than limit faults (limit 0: no cap). The count and the insert
// share a serializable transaction (SQLite: the write lock), so two
// creations racing for the last place cannot both take it: PostgreSQL
// fails one of them, which is retried and then sees the other's row.
func (s *Store) CreateFault(ctx context.Context, f store.Fault, limit int) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if limit > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM faults WHERE world_id = $1`,
				id64(f.WorldID)).Scan(&n); err != nil {
				return fmt.Errorf("count the faults of world %v: %w", f.WorldID, err)
			}
			if n >= limit {
				return fmt.Errorf("world %v has %d faults (at most %d): %w", f.WorldID, n, limit, store.ErrLimit)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO faults (`+faultColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, 0, 0, $11)`,
			id64(f.ID), id64(f.WorldID), f.Kind, id64(f.AppID), f.Route, f.Session, string(f.Params),
			f.Count, f.Probability, f.Seed, unix(f.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert fault %v: %w", f.ID, s.formatError(err))
		}
		return nil
	})
}

// WorldFaults lists a world's faults by id.
func (s *Store) WorldFaults(ctx context.Context, worldID snowflake.ID) ([]store.Fault, error) {
	return s.faults(ctx, `SELECT `+faultColumns+` FROM faults WHERE world_id = $1 ORDER BY id`, id64(worldID))
}

// LiveFaults lists the faults that may still fire, by id.
func (s *Store) LiveFaults(ctx context.Context) ([]store.Fault, error) {
	return s.faults(ctx, `SELECT `+faultColumns+` FROM faults WHERE count = 0 OR remaining > 0 ORDER BY id`)
}

func (s *Store) faults(ctx context.Context, query string, args ...any) ([]store.Fault, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list faults: %w", err)
	}
	defer rows.Close()
	out := []store.Fault{}
	for rows.Next() {
		f, err := scanFault(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list faults: %w", err)
	}
	return out, nil
}

func scanFault(row scanner) (store.Fault, error) {
	var (
		f              store.Fault
		id, world, app int64
		params         string
		created        int64
	)
	err := row.Scan(&id, &world, &f.Kind, &app, &f.Route, &f.Session, &params, &f.Count, &f.Remaining,
		&f.Probability, &f.Seed, &f.Matched, &f.Fired, &created)
	if err != nil {
		return f, fmt.Errorf("scan fault: %w", err)
	}
	f.ID, f.WorldID, f.AppID = snowflake.ID(id), snowflake.ID(world), snowflake.ID(app)
	f.Params, f.CreatedAt = []byte(params), fromUnix(created)
	return f, nil
}

// DeleteFault deletes one of a world's faults.
func (s *Store) DeleteFault(ctx context.Context, worldID, id snowflake.ID) error {
	res, err := s.execWrite(ctx, `DELETE FROM faults WHERE world_id = $1 AND id = $2`, id64(worldID), id64(id))
	if err != nil {
		return fmt.Errorf("delete fault %v: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete fault %v: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("fault %v: %w", id, store.ErrNotFound)
	}
	return nil
}

// DeleteWorldFaults deletes all of a world's faults.
func (s *Store) DeleteWorldFaults(ctx context.Context, worldID snowflake.ID) (int64, error) {
	res, err := s.execWrite(ctx, `DELETE FROM faults WHERE world_id = $1`, id64(worldID))
	if err != nil {
		return 0, fmt.Errorf("delete the faults of world %v: %w", worldID, err)
	}
	return res.RowsAffected()
}

// DeleteWorldFaultsTx deletes a world's faults inside tx: DeleteWorld
// calls it in its transaction, so that the faults go with their world.
func DeleteWorldFaultsTx(ctx context.Context, tx *sql.Tx, worldID snowflake.ID) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM faults WHERE world_id = $1`, id64(worldID)); err != nil {
		return fmt.Errorf("delete the faults of world %v: %w", worldID, err)
	}
	return nil
}

// MatchFault counts a match and decides the firing in one transaction.
// Its first statement bumps the row, which takes the row's lock (SQLite:
// the write lock): concurrent matches, on any node, run one after the
// other, so a counted fault never fires more than its count.
func (s *Store) MatchFault(ctx context.Context, id snowflake.ID, fires func(match int64) bool) (store.Fault, bool, error) {
	var (
		f     store.Fault
		fired bool
	)
	err := s.lockedTx(ctx, func(tx *sql.Tx) error {
		fired = false
		var err error
		f, err = scanFault(tx.QueryRowContext(ctx, `UPDATE faults SET matched = matched + 1
			WHERE id = $1 AND (count = 0 OR remaining > 0) RETURNING `+faultColumns, id64(id)))
		if errors.Is(err, sql.ErrNoRows) {
			// Spent, or gone: which one the caller learns from the error.
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM faults WHERE id = $1`, id64(id)).Scan(&n); err != nil {
				return fmt.Errorf("read fault %v: %w", id, err)
			}
			if n == 0 {
				return fmt.Errorf("fault %v: %w", id, store.ErrNotFound)
			}
			return errSpent
		}
		if err != nil {
			return fmt.Errorf("match fault %v: %w", id, err)
		}
		if f.Probability > 0 && !fires(f.Matched) {
			return nil
		}
		f, err = scanFault(tx.QueryRowContext(ctx, `UPDATE faults SET fired = fired + 1,
			remaining = CASE WHEN count > 0 THEN remaining - 1 ELSE remaining END
			WHERE id = $1 RETURNING `+faultColumns, id64(id)))
		if err != nil {
			return fmt.Errorf("fire fault %v: %w", id, err)
		}
		fired = true
		return nil
	})
	if errors.Is(err, errSpent) {
		spent, err := s.faults(ctx, `SELECT `+faultColumns+` FROM faults WHERE id = $1`, id64(id))
		if err != nil || len(spent) == 0 {
			return store.Fault{}, false, fmt.Errorf("fault %v: %w", id, store.ErrNotFound)
		}
		return spent[0], false, nil
	}
	if err != nil {
		return store.Fault{}, false, err
	}
	return f, fired, nil
}

// errSpent ends MatchFault's transaction for a fault with no firing left.
var errSpent = errors.New("fault spent")

package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/slashd/slashd/internal/store"
)

var _ store.RateLimits = (*Store)(nil)

// HitRateLimit counts a request in one statement: insert the window, or
// bump it, or restart it when it has ended. The row lock of the upsert
// serializes concurrent hits, so none is lost on any backend.
func (s *Store) HitRateLimit(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	var (
		count   int
		resetAt int64
	)
	err := s.writeRow(ctx, []any{&count, &resetAt}, `INSERT INTO rate_limits (key, count, reset_at) VALUES ($1, 1, $2)
		ON CONFLICT (key) DO UPDATE SET
			count = CASE WHEN rate_limits.reset_at <= $3 THEN 1 ELSE rate_limits.count + 1 END,
			reset_at = CASE WHEN rate_limits.reset_at <= $3 THEN excluded.reset_at ELSE rate_limits.reset_at END
		RETURNING count, reset_at`, key, unix(now.Add(window)), unix(now))
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("hit rate limit %q: %w", key, s.formatError(err))
	}
	return count, fromUnix(resetAt), nil
}

// DeleteRateLimitsBefore forgets windows that ended before t.
func (s *Store) DeleteRateLimitsBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.execWrite(ctx, `DELETE FROM rate_limits WHERE reset_at < $1`, unix(t))
	if err != nil {
		return 0, fmt.Errorf("delete rate limits: %w", err)
	}
	return res.RowsAffected()
}

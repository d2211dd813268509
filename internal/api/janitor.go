package api

import (
	"context"
	"time"
)

// interactionRetention is how long an interaction is remembered: its
// token stops serving after 15 minutes (50027), and after a day the token
// is forgotten (10015); the messages stay.
const interactionRetention = 24 * time.Hour

// ForgetOldInteractions deletes the interactions older than the
// retention and returns how many.
func (s *Server) ForgetOldInteractions(ctx context.Context) (int64, error) {
	return s.store.DeleteInteractionsBefore(ctx, s.now().Add(-interactionRetention))
}

// RunJanitor forgets old interactions (and, when the store counts the
// rate limits, ended windows) every interval until ctx ends.
func (s *Server) RunJanitor(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.ForgetOldInteractions(ctx); err != nil {
				s.log.Error("forget old interactions", "err", err)
			} else if n > 0 {
				s.log.Debug("forgot old interactions", "count", n)
			}
			if s.cfg.SharedRateLimits {
				if _, err := s.store.DeleteRateLimitsBefore(ctx, s.now()); err != nil {
					s.log.Error("forget ended rate-limit windows", "err", err)
				}
			}
		}
	}
}

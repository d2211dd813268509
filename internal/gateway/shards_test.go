package gateway_test

import (
	"testing"

	"github.com/slashd/slashd/internal/gateway"
)

// TestRecommendedShards: one shard per 1,000 guilds with the real
// gateway's limit of 2,500 per shard, never fewer than one.
func TestRecommendedShards(t *testing.T) {
	t.Parallel()
	g := gateway.New(gateway.DefaultConfig(), nil, nil)
	for _, c := range []struct{ guilds, want int }{
		{0, 1}, {1, 1}, {999, 1}, {1000, 1}, {1001, 2}, {2500, 3}, {10_000, 10}, {100_000, 100}, {100_001, 101},
	} {
		if got := g.RecommendedShards(c.guilds); got != c.want {
			t.Errorf("RecommendedShards(%d) = %d, want %d", c.guilds, got, c.want)
		}
	}
}

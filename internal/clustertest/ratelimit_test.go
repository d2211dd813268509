package clustertest_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/ratelimit"
)

// Per-token rate limits are counted in the store, so they hold across
// nodes: of N requests with one token spread over three nodes, exactly
// the limit gets through, whichever limit it is.
func TestRateLimitsAcrossNodes(t *testing.T) {
	t.Parallel()
	const limit, sent = 10, 45
	for _, tc := range []struct {
		name   string
		adjust func(*api.Config)
		scope  string // X-RateLimit-Scope of the 429s
	}{
		{"route", func(c *api.Config) {
			c.ReadLimit = ratelimit.Limit{Count: limit, Window: time.Minute}
			c.GlobalLimit = ratelimit.Limit{Count: 1000, Window: time.Minute}
		}, "user"},
		{"global", func(c *api.Config) {
			c.ReadLimit = ratelimit.Limit{Count: 1000, Window: time.Minute}
			c.GlobalLimit = ratelimit.Limit{Count: limit, Window: time.Minute}
		}, "global"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := clustertest.Start(t, 3, clustertest.WithRateLimit(tc.adjust))
			res := make([]clustertest.Response, sent)
			errs := make([]error, sent)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range sent {
				wg.Go(func() {
					<-start
					res[i], errs[i] = c.Node(i).Request(context.Background(), "GET", c.GuildCommands(), c.Bot(), nil)
				})
			}
			close(start)
			wg.Wait()
			ok, limited := 0, 0
			for i, r := range res {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				switch r.Status {
				case 200:
					ok++
				case 429:
					limited++
					if got := r.Header.Get("X-RateLimit-Scope"); got != tc.scope {
						t.Errorf("node %d: 429 with X-RateLimit-Scope %q, want %q", i%3, got, tc.scope)
					}
				default:
					t.Errorf("node %d: %s, want 200 or 429", i%3, r)
				}
			}
			if ok != limit || limited != sent-limit {
				t.Fatalf("%d × 200 and %d × 429, want %d and %d", ok, limited, limit, sent-limit)
			}
			// Every node now refuses the token; the limit is the token's,
			// so another one (the app owner's client token) still gets
			// through.
			for _, n := range c.Nodes {
				if r := n.Do(t, "GET", c.GuildCommands(), c.Bot(), nil); r.Status != 429 {
					t.Errorf("node %d after the burst: %s, want 429", n.Index, r)
				}
			}
			m, err := c.NewMember(ctxT(t), "bystander")
			if err != nil {
				t.Fatal(err)
			}
			ch, err := c.NewChannel(ctxT(t), "general")
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range c.Nodes {
				r := n.Do(t, "GET", "/api/v10/channels/"+ch+"/messages", m.Client, nil)
				if r.Status != 200 {
					t.Errorf("node %d, another token: %s, want 200", n.Index, r)
				}
				if tc.name == "route" {
					if got := r.Header.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
						t.Errorf("node %d: X-RateLimit-Limit %q, want %d", n.Index, got, limit)
					}
				}
			}
		})
	}
}

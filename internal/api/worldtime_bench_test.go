package api_test

import (
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkWorldlessRateLimitedRead: an app of no test world GETs its
// guild's commands with the rate limiter on, which counts each request
// on its principal's world clock (internal/worldclock): for a principal
// of no world that clock must cost nothing (compare allocs/op and ns/op
// with the limiter off, in the same run). In-process, no network.
func BenchmarkWorldlessRateLimitedRead(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []testenv.Option
	}{
		{"limiter off", nil},
		{"limiter on", []testenv.Option{testenv.WithRateLimit(func(c *api.Config) {
			unlimited := ratelimit.Limit{Count: 1 << 30, Window: time.Second}
			c.GlobalLimit, c.ReadLimit, c.WriteLimit = unlimited, unlimited, unlimited
		})}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := testenv.New(b, c.opts...)
			path := guildCommandsPath(e.App)
			serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), benchCommands(5, "v1"), 200)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				serveBench(b, e.Server.Config.Handler, "GET", path, e.Bot(), nil, 200)
			}
		})
	}
}

package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// BenchmarkRatioMembersMillion is BenchmarkRatioMembers at the size
// docs/scaling.md plans for: an invocation in a guild of 1,000,000
// members against one in a guild of 10, same store, same server, same
// app, alternating. It also reports what the big guild costs to set up
// and to count: seed-s (1,000,000 users and members in one transaction,
// as the 100,000 of BenchmarkRatioMembers), and membercount-ms, the
// median of 5 uncached MemberCount calls (GUILD_CREATE's member_count,
// a COUNT(*) over the primary key's index, which the cache keeps).
//
//	go test -run '^$' -bench RatioMembersMillion -benchtime 2000x -timeout 30m ./internal/api
func BenchmarkRatioMembersMillion(b *testing.B) {
	const bigGuild, smallGuild = 1_000_000, 10
	e := testenv.New(b)
	echo := func(i *interactions.Interaction) (interactions.Response, error) {
		opt, _ := i.Data.Option("text")
		s, _ := opt.String()
		return interactions.Message(s), nil
	}
	var urls, auths [2]string
	var bodies [2][]byte
	var bigID snowflake.ID
	var seedTime time.Duration
	for k, size := range []int{smallGuild, bigGuild} {
		w := newInvokeWorld(b, e)
		w.answerWith(echo)
		cmd := w.command(jsonObj{"name": "echo", "description": "Echo", "options": []jsonObj{
			{"type": 3, "name": "text", "description": "Text", "required": true},
		}})
		gid, err := snowflake.Parse(w.guild)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		seedMembers(b, e, gid, size-guildMembers(b, e, gid))
		if size == bigGuild {
			bigID, seedTime = gid, time.Since(start)
		}
		if got := guildMembers(b, e, gid); got != size {
			b.Fatalf("guild %s has %d members, want %d", w.guild, got, size)
		}
		urls[k], auths[k] = e.URL+"/api/v10/interactions", w.client
		bodies[k] = mustJSON(b, w.invocation(2, cmd, "options", []jsonObj{{"type": 3, "name": "text", "value": "hello"}}))
	}
	counts := make([]time.Duration, 5)
	for i := range counts {
		start := time.Now()
		if n, err := e.Store.MemberCount(context.Background(), bigID); err != nil || n != bigGuild {
			b.Fatalf("MemberCount: %d, %v; want %d", n, err, bigGuild)
		}
		counts[i] = time.Since(start)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	b.ResetTimer()
	var lat [2][]time.Duration
	for i := range 2 * b.N {
		k := i % 2
		lat[k] = append(lat[k], postTimed(b, client, urls[k], auths[k], bodies[k]))
	}
	b.StopTimer()
	reportLatency(b, "small", lat[0])
	reportLatency(b, "big", lat[1])
	b.ReportMetric(float64(median(lat[1]))/float64(median(lat[0])), "ratio-p50")
	b.ReportMetric(seedTime.Seconds(), "seed-s")
	b.ReportMetric(float64(median(counts).Microseconds())/1000, "membercount-ms")
}

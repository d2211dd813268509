package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkRatioMembers: a member invokes a command (as in
// BenchmarkRatioInvoke) in a guild of 100,000 members and in one of 10,
// both in the same store, served by the same server to the same app;
// invocations alternate between the two. The cost of an invocation
// should not follow the guild's size: ratio-p50 is big over small.
func BenchmarkRatioMembers(b *testing.B) { benchmarkGuildSize(b, 100_000) }

// benchmarkGuildSize is BenchmarkRatioMembers with a big guild of
// bigGuild members. Besides the latencies it reports what the big guild
// cost to set up and to count: seed-s (its users and members written in
// one transaction, seedMembers), and membercount-ms, the median of 5
// uncached MemberCount calls (GUILD_CREATE's member_count, a COUNT(*)
// over the primary key's index, which the cache keeps).
func benchmarkGuildSize(b *testing.B, bigGuild int) {
	const smallGuild = 10
	e := testenv.New(b)
	var urls, auths [2]string
	var bodies [2][]byte
	var bigID snowflake.ID
	var seedTime time.Duration
	for k, size := range []int{smallGuild, bigGuild} {
		// Each world points the app's endpoint at its own app server, so
		// both answer alike.
		w, body := echoInvocation(b, e)
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
		bodies[k] = body
	}
	counts := make([]time.Duration, 5)
	for i := range counts {
		start := time.Now()
		if n, err := e.Store.MemberCount(context.Background(), bigID); err != nil || n != bigGuild {
			b.Fatalf("MemberCount: %d, %v; want %d", n, err, bigGuild)
		}
		counts[i] = time.Since(start)
	}

	alternateGuilds(b, urls, auths, bodies)
	b.ReportMetric(seedTime.Seconds(), "seed-s")
	b.ReportMetric(float64(median(counts).Microseconds())/1000, "membercount-ms")
}

// alternateGuilds times b.N invocations in each of two guilds, small
// (index 0) then big, taking turns, and reports their latencies and
// ratio-p50, big over small.
func alternateGuilds(b *testing.B, urls, auths [2]string, bodies [2][]byte) {
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
	b.ReportMetric(float64(mean(lat[1]))/float64(mean(lat[0])), "ratio-mean")
}

// BenchmarkRatioChannels: a member invokes a command (as in
// BenchmarkRatioMembers) in a guild of 500 channels, each with two
// permission overwrites, and 250 roles the member has 10 of, and in a
// guild of one channel and no roles, alternating. Deciding access reads
// the guild's roles and channels: the invocation should not cost more
// with more of them (ratio-p50, big over small).
func BenchmarkRatioChannels(b *testing.B) {
	const channels, roles, memberRoles = 500, 250, 10
	e := testenv.New(b)
	var urls, auths [2]string
	var bodies [2][]byte
	for k := range 2 {
		w, body := echoInvocation(b, e)
		if k == 1 {
			growGuild(b, e, w, channels, roles, memberRoles)
		}
		urls[k], auths[k] = e.URL+"/api/v10/interactions", w.client
		bodies[k] = body
		postTimed(b, http.DefaultClient, urls[k], auths[k], bodies[k]) // it works, and the cache is warm
	}
	alternateGuilds(b, urls, auths, bodies)
}

// growGuild adds to w's guild the given numbers of channels (each with an
// overwrite for @everyone and one for a role) and roles, and gives the
// invoking member the first memberRoles of those roles.
func growGuild(b *testing.B, e *testenv.Env, w *invokeWorld, channels, roles, memberRoles int) {
	b.Helper()
	ctx := context.Background()
	gid, err := snowflake.Parse(w.guild)
	if err != nil {
		b.Fatal(err)
	}
	uid, err := snowflake.Parse(w.member)
	if err != nil {
		b.Fatal(err)
	}
	roleIDs := make([]snowflake.ID, roles)
	for i := range roleIDs {
		roleIDs[i] = e.IDs.Next()
		if err := e.Store.CreateRole(ctx, guild.Role{ID: roleIDs[i], GuildID: gid, Name: fmt.Sprintf("role%d", i),
			Permissions: guild.SendMessages, Position: i + 1}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range channels {
		if err := e.Store.CreateChannel(ctx, guild.Channel{ID: e.IDs.Next(), GuildID: gid, Name: fmt.Sprintf("channel%d", i),
			Position: i + 1, Overwrites: []guild.Overwrite{
				{ID: gid, Type: 0, Deny: guild.SendMessages},
				{ID: roleIDs[i%roles], Type: 0, Allow: guild.SendMessages},
			}}); err != nil {
			b.Fatal(err)
		}
	}
	m, err := e.Store.Member(ctx, gid, uid)
	if err != nil {
		b.Fatal(err)
	}
	m.Roles = append(m.Roles, roleIDs[:memberRoles]...)
	if err := e.Store.PutMember(ctx, m); err != nil {
		b.Fatal(err)
	}
}

// postTimed POSTs body and returns how long the answer took to arrive in
// full; any status but 200 fails the benchmark.
func postTimed(b *testing.B, client *http.Client, url, auth string, body []byte) time.Duration {
	d, _ := doTimed(b, client, "POST", url, auth, body)
	return d
}

// seedMembers adds n new users to the guild as members without roles, in
// one transaction with one prepared INSERT per table, straight into the
// store's database: 100,000 take seconds where the admin API would take
// many minutes. The same transaction drops the GUILD_MEMBER_ADD changes
// the inserts leave in the world-events outbox, as if the members had
// joined long ago and been announced then: the benchmark measures a big
// guild at rest, not the relay of 100,000 joins at once (which the
// outbox relay takes time in proportion to, per batch: BotMembers).
func seedMembers(b *testing.B, e *testenv.Env, guildID snowflake.ID, n int) {
	b.Helper()
	addMembers(b, e, guildID, n, false)
}

// addMembers is seedMembers, the joins left in the outbox when announce.
func addMembers(b *testing.B, e *testenv.Env, guildID snowflake.ID, n int, announce bool) {
	b.Helper()
	if n <= 0 {
		return
	}
	ctx := context.Background()
	tx, err := e.Store.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	users, err := tx.PrepareContext(ctx, `INSERT INTO users (id, username, created_at) VALUES ($1, $2, $3)`)
	if err != nil {
		b.Fatal(err)
	}
	members, err := tx.PrepareContext(ctx, `INSERT INTO members (guild_id, user_id, joined_at) VALUES ($1, $2, $3)`)
	if err != nil {
		b.Fatal(err)
	}
	var before int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM world_events`).Scan(&before); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UnixMilli()
	for i := range n {
		id := int64(e.IDs.Next())
		if _, err := users.ExecContext(ctx, id, fmt.Sprintf("member%d", i), now); err != nil {
			b.Fatalf("insert user: %v", err)
		}
		if _, err := members.ExecContext(ctx, int64(guildID), id, now); err != nil {
			b.Fatalf("insert member: %v", err)
		}
	}
	if announce {
		before = 1 << 62
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM world_events WHERE id > $1 AND guild_id = $2 AND kind = 'member'`,
		before, int64(guildID)); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// guildMembers counts the guild's members in the store.
func guildMembers(b *testing.B, e *testenv.Env, guildID snowflake.ID) int {
	b.Helper()
	var n int
	if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM members WHERE guild_id = $1`, int64(guildID)).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkRelayMemberJoins: 10,000 members join a guild at once (one
// transaction, as a bulk import would) and the world-events relay
// announces them; it reports joins relayed per second. Each batch the
// relay claims asks which bots are in the guild (BotMembers), whose cost
// follows the guild's size; with the outbox check evaluated for every
// member rather than for bots only, 2,000 joins took 11 s and 8,000 six
// minutes.
func BenchmarkRelayMemberJoins(b *testing.B) {
	const joins = 10_000
	e := testenv.New(b)
	w := newInvokeWorld(b, e)
	gid, err := snowflake.Parse(w.guild)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		addMembers(b, e, gid, joins, true)
		waitOutboxEmpty(b, e, 5*time.Minute)
	}
	b.ReportMetric(float64(joins*b.N)/b.Elapsed().Seconds(), "joins/s")
}

// waitOutboxEmpty waits until the relay has claimed every world event.
func waitOutboxEmpty(b *testing.B, e *testenv.Env, limit time.Duration) {
	b.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(limit)
	for {
		var left int
		if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM world_events`).Scan(&left); err != nil {
			b.Fatal(err)
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d world events still unclaimed after %s", left, limit)
		}
		<-tick.C
	}
}

package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkIdentifyShard (issue 28): the time from IDENTIFY to the last
// GUILD_CREATE of shard 3 of 8, for a bot in 10,000 small guilds (1,250
// of them in the shard) and, in the same run, for a bot in only those
// 1,250 guilds. Both stores hold the same guilds of the shard, each with
// one text channel, the @everyone role and the bot as its one member.
// An identify that reads and renders only its shard's guilds costs the
// same for both: the ratio says how far from that slashd is (target
// ≤ 1.3). Each env is identified once first (its first-* figures, with
// cold caches); then identifies alternate between the two, and the
// medians are compared.
//
// The third in each round is a bare coder/websocket server on the same
// loopback that answers IDENTIFY with the frames slashd sent in the
// first identify, pre-rendered, byte for byte (READY and every
// GUILD_CREATE), written as fast as the socket takes them, read by the
// same client: the time any server needs for those frames (bare-*,
// ratio-bare-*; target ≤ 5).
//
//	go test -run '^$' -bench IdentifyShard -benchtime 20x ./internal/api
func BenchmarkIdentifyShard(b *testing.B) {
	const guilds, shards, shard = 10_000, 8, 3
	base := time.Now().UnixMilli() - 1_000_000 - snowflake.Epoch
	var mine []int64 // the shard's guilds' timestamps
	for i := range int64(guilds) {
		if (base+i)%shards == shard {
			mine = append(mine, base+i)
		}
	}
	all := make([]int64, guilds)
	for i := range all {
		all[i] = base + int64(i)
	}
	many, few := testenv.New(b), testenv.New(b)
	start := time.Now()
	seedBotGuilds(b, many, all)
	seedBotGuilds(b, few, mine)
	b.Logf("seeded %d + %d guilds in %v", len(all), len(mine), time.Since(start).Round(time.Millisecond))

	manyFirst, frames := identifyShard(b, gatewayURL(many), many.Bot(), shard, shards, len(mine), true)
	fewFirst := identifyShardTimed(b, few, shard, shards, len(mine))
	bare := bareIdentifyServer(b, frames)
	b.ResetTimer()
	var manyTimes, fewTimes, bareTimes []time.Duration
	for range b.N {
		manyTimes = append(manyTimes, identifyShardTimed(b, many, shard, shards, len(mine)))
		fewTimes = append(fewTimes, identifyShardTimed(b, few, shard, shards, len(mine)))
		d, _ := identifyShard(b, bare, "bare", shard, shards, len(mine), false)
		bareTimes = append(bareTimes, d)
	}
	b.StopTimer()
	manyP50, fewP50, bareP50 := identifyMedian(manyTimes), identifyMedian(fewTimes), identifyMedian(bareTimes)
	b.ReportMetric(float64(bareP50.Microseconds())/1000, "bare-p50-ms")
	b.ReportMetric(float64(manyP50)/float64(bareP50), "ratio-bare-p50")
	bareMin := slices.Min(bareTimes)
	b.ReportMetric(float64(bareMin.Microseconds())/1000, "bare-min-ms")
	b.ReportMetric(float64(slices.Min(manyTimes))/float64(bareMin), "ratio-bare-min")
	frameBytes := 0
	for _, f := range frames {
		frameBytes += len(f)
	}
	b.ReportMetric(float64(frameBytes), "frame-bytes")
	b.ReportMetric(float64(manyP50.Microseconds())/1000, "many-p50-ms")
	b.ReportMetric(float64(fewP50.Microseconds())/1000, "few-p50-ms")
	b.ReportMetric(float64(manyP50)/float64(fewP50), "ratio-p50")
	// The fastest of each: on a busy machine, the least disturbed run.
	manyMin, fewMin := slices.Min(manyTimes), slices.Min(fewTimes)
	b.ReportMetric(float64(manyMin.Microseconds())/1000, "many-min-ms")
	b.ReportMetric(float64(fewMin.Microseconds())/1000, "few-min-ms")
	b.ReportMetric(float64(manyMin)/float64(fewMin), "ratio-min")
	b.ReportMetric(float64(manyFirst.Microseconds())/1000, "many-first-ms")
	b.ReportMetric(float64(fewFirst.Microseconds())/1000, "few-first-ms")
	b.ReportMetric(float64(len(mine)), "shard-guilds")
}

// seedBotGuilds puts e's bot in a guild for each timestamp (ms after
// the snowflake epoch: the shard is read from it), with one text
// channel and the @everyone role, owned by the bot, its only member and
// its app installed; the bot leaves the env's own guild. It writes the rows straight into slashd's schema,
// in one transaction with prepared statements (the store's own writes
// take a transaction each), and drops the world events their triggers
// queued: the guilds are as old as their ids say, not news to a session.
func seedBotGuilds(b *testing.B, e *testenv.Env, at []int64) {
	b.Helper()
	ctx := context.Background()
	bot := int64(mustID(b, e.App.ApplicationID))
	now := time.Now().UnixMilli()
	tx, err := e.Store.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stmts := map[string]string{
		"guild":   `INSERT INTO guilds (id, name, owner_id, created_at) VALUES (?, ?, ?, ?)`,
		"role":    `INSERT INTO roles (id, guild_id, name, permissions, position, managed) VALUES (?, ?, '@everyone', ?, 0, 0)`,
		"channel": `INSERT INTO channels (id, guild_id, type, name, position) VALUES (?, ?, 0, 'general', 0)`,
		"member":  `INSERT INTO members (guild_id, user_id, nick, roles, joined_at) VALUES (?, ?, '', '[]', ?)`,
		"install": `INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES (?, ?, 'applications.commands bot', ?)`,
	}
	exec := map[string]func(args ...any){}
	for name, q := range stmts {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			b.Fatalf("prepare %s: %v", name, err)
		}
		defer st.Close()
		exec[name] = func(args ...any) {
			if _, err := st.ExecContext(ctx, args...); err != nil {
				b.Fatalf("insert %s %v: %v", name, args, err)
			}
		}
	}
	for _, ms := range at {
		id := ms<<22 | 0x3fffff // no id of the server's generator (worker 0) has these low bits
		exec["guild"](id, fmt.Sprintf("guild %d", ms), bot, now)
		exec["role"](id, id, int64(guild.DefaultEveryone))
		exec["channel"](id^1, id) // …0x3ffffe: the guild's one channel
		exec["member"](id, bot, now)
		exec["install"](id, bot, now)
	}
	// The bot leaves the guild the env made for its app: it is in these
	// guilds only.
	if _, err := tx.ExecContext(ctx, `DELETE FROM members WHERE guild_id = ? AND user_id = ?`,
		int64(mustID(b, e.App.GuildID)), bot); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM world_events`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// bareIdentifyServer serves a bare coder/websocket server on loopback
// that sends HELLO, reads IDENTIFY and writes frames, pre-rendered, as
// fast as the socket takes them; it returns its URL.
func bareIdentifyServer(b *testing.B, frames [][]byte) string {
	b.Helper()
	hello := []byte(`{"op":10,"d":{"heartbeat_interval":41250}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		if c.Write(ctx, websocket.MessageText, hello) != nil {
			return
		}
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
		for _, f := range frames {
			if c.Write(ctx, websocket.MessageText, f) != nil {
				return
			}
		}
		_, _, _ = c.Read(ctx) // until the client closes
	}))
	b.Cleanup(srv.Close)
	return strings.Replace(srv.URL, "http", "ws", 1) + "/"
}

func gatewayURL(e *testenv.Env) string {
	return strings.Replace(e.URL, "http", "ws", 1) + "/gateway?v=10&encoding=json"
}

// identifyShardTimed identifies e's bot on shard [shard, shards] with
// the GUILDS intent and returns the time from sending IDENTIFY to
// reading the want-th GUILD_CREATE; it checks READY listed want guilds.
func identifyShardTimed(b *testing.B, e *testenv.Env, shard, shards, want int) time.Duration {
	b.Helper()
	d, _ := identifyShard(b, gatewayURL(e), e.Bot(), shard, shards, want, false)
	return d
}

// identifyShard is identifyShardTimed against the server at url; with
// capture it also returns the frames it read after IDENTIFY, as sent.
func identifyShard(b *testing.B, url, token string, shard, shards, want int, capture bool) (time.Duration, [][]byte) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close(websocket.StatusNormalClosure, "")
	ws.SetReadLimit(1 << 20)
	if _, _, err := ws.Read(ctx); err != nil { // HELLO
		b.Fatal(err)
	}
	id, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 1,
		"shard": []int{shard, shards}, "properties": map[string]string{"os": "linux", "browser": "b", "device": "b"}}})
	start := time.Now()
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		b.Fatal(err)
	}
	creates := 0
	var frames [][]byte
	for creates < want {
		_, data, err := ws.Read(ctx)
		if err != nil {
			b.Fatalf("after %d GUILD_CREATEs: %v", creates, err)
		}
		if capture {
			frames = append(frames, data)
		}
		var f struct {
			T string `json:"t"`
			D struct {
				Guilds []json.RawMessage `json:"guilds"`
			} `json:"d"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			b.Fatal(err)
		}
		switch f.T {
		case "READY":
			if len(f.D.Guilds) != want {
				b.Fatalf("READY lists %d guilds, want %d", len(f.D.Guilds), want)
			}
		case "GUILD_CREATE":
			creates++
		}
	}
	return time.Since(start), frames
}

// identifyMedian is the median of ds.
func identifyMedian(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

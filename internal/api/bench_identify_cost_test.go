package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkIdentifyShardCost: what one shard of the size the real
// service plans for (2,500 guilds) costs to identify: a bot in 10,000
// small guilds (as BenchmarkIdentifyShard's) on 4 shards, identifying
// shard 1 with the GUILDS intent, READY through the last GUILD_CREATE.
// Besides the time it reports the process's CPU time per identify
// (getrusage: the server's work and this client's reading of the
// frames, which only looks for the dispatch's name), the bytes of
// frames sent, and both per GUILD_CREATE, for the first identify (cold
// caches) and the median of the warm ones. CPU time is what a loaded
// machine does not stretch.
//
//	go test -run '^$' -bench IdentifyShardCost -benchtime 10x ./internal/api
func BenchmarkIdentifyShardCost(b *testing.B) {
	const guilds, shards, shard = 10_000, 4, 1
	base := time.Now().UnixMilli() - 1_000_000 - snowflake.Epoch // ms after the epoch, as BenchmarkIdentifyShard's
	base -= base % shards                                        // so that each shard has a quarter exactly
	all := make([]int64, guilds)
	for i := range all {
		all[i] = base + int64(i)
	}
	e := identifyEnv{testenv.New(b)}
	seedBotGuilds(b, e.env, all)
	want := guilds / shards

	first := e.identify(b, shard, shards, want)
	b.ResetTimer()
	var runs []identifyCost
	for range b.N {
		runs = append(runs, e.identify(b, shard, shards, want))
	}
	b.StopTimer()
	warm := medianCost(runs)
	for _, c := range []struct {
		name string
		cost identifyCost
	}{{"first", first}, {"warm", warm}} {
		b.ReportMetric(float64(c.cost.wall.Microseconds())/1000, c.name+"-ms")
		b.ReportMetric(float64(c.cost.cpu.Microseconds())/1000, c.name+"-cpu-ms")
		b.ReportMetric(float64(c.cost.cpu.Microseconds())/float64(want), c.name+"-cpu-µs/guild")
	}
	b.ReportMetric(float64(warm.bytes)/float64(want), "bytes/guild")
	b.ReportMetric(float64(warm.bytes)/(1<<20), "MiB/identify")
	b.ReportMetric(float64(want), "shard-guilds")
}

// identifyCost is one identify's wall time, the process's CPU time and
// the bytes of the frames read (READY and the GUILD_CREATEs).
type identifyCost struct {
	wall, cpu time.Duration
	bytes     int
}

func medianCost(runs []identifyCost) identifyCost {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b identifyCost) int { return int(a.cpu - b.cpu) })
	m := s[len(s)/2]
	walls := make([]time.Duration, len(runs))
	for i, r := range runs {
		walls[i] = r.wall
	}
	m.wall = identifyMedian(walls)
	return m
}

// identifyEnv is a server whose bot is in BenchmarkIdentifyShard's
// guilds.
type identifyEnv struct{ env *testenv.Env }

func (e identifyEnv) identify(b *testing.B, shard, shards, want int) identifyCost {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.env.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close(websocket.StatusNormalClosure, "")
	ws.SetReadLimit(1 << 20)
	if _, _, err := ws.Read(ctx); err != nil { // HELLO
		b.Fatal(err)
	}
	id, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": e.env.Bot(), "intents": 1,
		"shard": []int{shard, shards}, "properties": map[string]string{"os": "linux", "browser": "b", "device": "b"}}})
	cpu0 := processCPU(b)
	start := time.Now()
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		b.Fatal(err)
	}
	var c identifyCost
	creates := 0
	for creates < want {
		_, data, err := ws.Read(ctx)
		if err != nil {
			b.Fatalf("after %d GUILD_CREATEs: %v", creates, err)
		}
		c.bytes += len(data)
		if bytes.Contains(data[:min(len(data), 64)], []byte(`"t":"GUILD_CREATE"`)) {
			creates++
		}
	}
	c.wall, c.cpu = time.Since(start), processCPU(b)-cpu0
	return c
}

// processCPU is this process's user and system time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

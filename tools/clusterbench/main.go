// Command clusterbench measures slashd nodes running as a cluster, in
// one process (internal/clustertest): N nodes, each with its own
// listener, store pool and event bus connection, on one database
// (PostgreSQL: a fresh schema, dropped at the end; or one SQLite file)
// and one NATS subject prefix.
//
// HTTP mode (the default) seeds 100 guild commands, then for -duration
// each runs C clients sending requests round-robin over the nodes:
//
//   - read: GET the guild's commands (the list of 100);
//   - write: PATCH one of them (a new description each time, so a new
//     version), or with -write upsert POST it by name.
//
// and prints requests/s and the p50/p99 latency of each. -gateway mode
// instead measures a cross-node dispatch: a bot's session on node 1,
// events published on node 0's bus with their send time in the payload,
// the latency until the bot reads them.
//
//	go run ./tools/clusterbench -nodes 1 -store sqlite
//	go run ./tools/clusterbench -nodes 3 -store postgres
//	go run ./tools/clusterbench -gateway -nodes 2 -events 1000
//
// PostgreSQL is $SLASHD_TEST_POSTGRES (or the tests' default local
// server), NATS $SLASHD_TEST_NATS (or nats://127.0.0.1:4222).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/event/natsbus/natstest"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
)

type options struct {
	nodes     int
	store     string
	pgDSN     string
	pool      int
	nats      string
	duration  time.Duration
	clients   int
	commands  int
	write     string
	rateLimit bool
	gateway   bool
	events    int
	rate      int
	verbose   bool
}

func main() {
	var o options
	natsURL := os.Getenv("SLASHD_TEST_NATS")
	if natsURL == "" {
		natsURL = natstest.DefaultURL
	}
	flag.IntVar(&o.nodes, "nodes", 3, "how many nodes")
	flag.StringVar(&o.store, "store", "postgres", "sqlite or postgres")
	flag.StringVar(&o.pgDSN, "pg", pgtest.ServerDSN(), "PostgreSQL server (a schema is created and dropped)")
	flag.IntVar(&o.pool, "pool", 0, "each node's PostgreSQL pool size (0: the store's default)")
	flag.StringVar(&o.nats, "nats", natsURL, `NATS server of the event bus ("": one in-process bus)`)
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each HTTP measurement runs")
	flag.IntVar(&o.clients, "clients", 32, "concurrent HTTP clients")
	flag.IntVar(&o.commands, "commands", 100, "guild commands seeded (at most 100)")
	flag.StringVar(&o.write, "write", "patch", "the write measured: patch (PATCH a command's description) or upsert (POST it by name)")
	flag.BoolVar(&o.rateLimit, "ratelimit", false, "count rate limits (in the store, with limits too high to hit)")
	flag.BoolVar(&o.gateway, "gateway", false, "measure a cross-node gateway dispatch instead of HTTP")
	flag.IntVar(&o.events, "events", 1000, "gateway mode: events published")
	flag.IntVar(&o.rate, "rate", 1000, "gateway mode: events per second (0: as fast as possible)")
	flag.BoolVar(&o.verbose, "v", false, "log the nodes' warnings and errors")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	ctx := context.Background()
	if o.write != "patch" && o.write != "upsert" {
		return fmt.Errorf("-write %q: want patch or upsert", o.write)
	}
	if o.commands < 1 || o.commands > 100 {
		return fmt.Errorf("-commands %d: want 1 to 100", o.commands)
	}
	if o.gateway && o.nodes < 2 {
		return errors.New("-gateway needs -nodes 2 or more (the session on node 1, events from node 0)")
	}
	apiCfg := clustertest.DefaultAPIConfig()
	if o.rateLimit {
		apiCfg.RateLimit = true
		huge := ratelimit.Limit{Count: 1 << 30, Window: time.Minute}
		apiCfg.GlobalLimit, apiCfg.ReadLimit, apiCfg.WriteLimit = huge, huge, huge
	}
	cfg := clustertest.Config{Nodes: o.nodes, API: &apiCfg, PoolSize: o.pool, NATSURL: o.nats,
		NATSPrefix: fmt.Sprintf("slashd.clusterbench.%d", time.Now().UnixNano())}
	if o.verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	switch o.store {
	case "postgres":
		dsn, drop, err := clustertest.NewSchema(ctx, o.pgDSN)
		if err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
		defer func() {
			if err := drop(context.Background()); err != nil {
				log.Print(err)
			}
		}()
		cfg.PostgresDSN = dsn
	case "sqlite":
		dir, err := os.MkdirTemp("", "clusterbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.SQLitePath = filepath.Join(dir, "slashd.db")
	default:
		return fmt.Errorf("-store %q: want sqlite or postgres", o.store)
	}
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	c, err := clustertest.New(startCtx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer c.Close()
	bus := "NATS " + o.nats
	if o.nats == "" {
		bus = "in-process"
	}
	fmt.Printf("clusterbench: %d node(s), store %s, bus %s, rate limits %v\n", o.nodes, o.store, bus, o.rateLimit)
	if o.gateway {
		return gatewayBench(ctx, c, o)
	}
	return httpBench(ctx, c, o)
}

// ---- HTTP ----

func httpBench(ctx context.Context, c *clustertest.Cluster, o options) error {
	path := c.GuildCommands()
	cmds := make([]map[string]any, o.commands)
	for i := range cmds {
		cmds[i] = map[string]any{"name": fmt.Sprintf("command-%03d", i), "description": "A seeded command",
			"options": []map[string]any{
				{"type": 3, "name": "text", "description": "Some text", "required": true},
				{"type": 4, "name": "count", "description": "How many", "min_value": 1, "max_value": 10},
				{"type": 3, "name": "color", "description": "A color", "choices": []map[string]any{
					{"name": "Red", "value": "red"}, {"name": "Green", "value": "green"}, {"name": "Blue", "value": "blue"}}},
			}}
	}
	r, err := c.Nodes[0].Request(ctx, "PUT", path, c.Bot(), cmds)
	if err != nil {
		return err
	}
	if r.Status != 200 {
		return fmt.Errorf("seed: %s", r)
	}
	var seeded []struct{ ID, Name string }
	if err := r.Decode(&seeded); err != nil {
		return err
	}
	fmt.Printf("%d clients round-robin over the nodes, %s per measurement, %d guild commands\n\n",
		o.clients, o.duration, len(seeded))

	read := func(ctx context.Context, node *clustertest.Node, _ int64) (int, error) {
		r, err := node.Request(ctx, "GET", path, c.Bot(), nil)
		return r.Status, err
	}
	var write func(ctx context.Context, node *clustertest.Node, n int64) (int, error)
	switch o.write {
	case "patch":
		write = func(ctx context.Context, node *clustertest.Node, n int64) (int, error) {
			cmd := seeded[n%int64(len(seeded))]
			r, err := node.Request(ctx, "PATCH", path+"/"+cmd.ID, c.Bot(),
				map[string]any{"description": fmt.Sprintf("Edited %d", n)})
			return r.Status, err
		}
	case "upsert":
		write = func(ctx context.Context, node *clustertest.Node, n int64) (int, error) {
			cmd := cmds[n%int64(len(cmds))]
			body := map[string]any{"name": cmd["name"], "description": fmt.Sprintf("Upserted %d", n),
				"options": cmd["options"]}
			r, err := node.Request(ctx, "POST", path, c.Bot(), body)
			return r.Status, err
		}
	}
	for _, m := range []struct {
		name string
		do   func(context.Context, *clustertest.Node, int64) (int, error)
	}{
		{"read  GET guild commands", read},
		{"write " + map[string]string{"patch": "PATCH command", "upsert": "POST (upsert) command"}[o.write], write},
	} {
		// A short warm-up (caches, connections), not measured.
		if _, err := measure(ctx, c, o.clients, 500*time.Millisecond, m.do); err != nil {
			return err
		}
		res, err := measure(ctx, c, o.clients, o.duration, m.do)
		if err != nil {
			return err
		}
		fmt.Printf("%-30s %8.0f req/s   p50 %7s   p99 %7s   (%d requests, %d not 200)\n", m.name,
			float64(len(res.latencies))/res.elapsed.Seconds(), ms(percentile(res.latencies, 50)),
			ms(percentile(res.latencies, 99)), len(res.latencies), res.failed)
		for status, n := range res.statuses {
			if status != 200 {
				fmt.Printf("    status %d: %d\n", status, n)
			}
		}
	}
	return nil
}

type measurement struct {
	latencies []time.Duration
	elapsed   time.Duration
	failed    int
	statuses  map[int]int
}

// measure runs clients goroutines for d, each sending requests (to the
// nodes in turn) and timing them.
func measure(ctx context.Context, c *clustertest.Cluster, clients int, d time.Duration,
	do func(context.Context, *clustertest.Node, int64) (int, error)) (measurement, error) {
	var next atomic.Int64
	per := make([][]time.Duration, clients)
	statuses := make([]map[int]int, clients)
	errs := make([]error, clients)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		statuses[w] = map[int]int{}
		wg.Go(func() {
			for time.Now().Before(deadline) {
				n := next.Add(1)
				t0 := time.Now()
				status, err := do(ctx, c.Node(int(n)), n)
				if err != nil {
					errs[w] = err
					return
				}
				per[w] = append(per[w], time.Since(t0))
				statuses[w][status]++
			}
		})
	}
	wg.Wait()
	m := measurement{elapsed: time.Since(start), statuses: map[int]int{}}
	if err := errors.Join(errs...); err != nil {
		return m, err
	}
	for w := range clients {
		m.latencies = append(m.latencies, per[w]...)
		for s, n := range statuses[w] {
			m.statuses[s] += n
			if s != 200 {
				m.failed += n
			}
		}
	}
	slices.Sort(m.latencies)
	return m, nil
}

// ---- gateway ----

func gatewayBench(ctx context.Context, c *clustertest.Cluster, o options) error {
	app, err := snowflake.Parse(c.App.ApplicationID)
	if err != nil {
		return err
	}
	guild, err := snowflake.Parse(c.App.GuildID)
	if err != nil {
		return err
	}
	pub, sub := c.Nodes[0], c.Nodes[1]
	dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	bot, err := sub.DialGateway(dialCtx)
	if err == nil {
		_, err = bot.Identify(dialCtx, c.Bot(), 0)
	}
	cancel()
	if err != nil {
		return err
	}
	defer bot.Close()

	type payload struct {
		N    int   `json:"n"`
		Sent int64 `json:"sent"` // UnixNano
	}
	latencies := make([]time.Duration, 0, o.events)
	done := make(chan error, 1)
	go func() {
		seen := 0
		for seen < o.events {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			f, err := bot.Read(rctx)
			cancel()
			if err != nil {
				done <- fmt.Errorf("after %d events: %w", seen, err)
				return
			}
			now := time.Now()
			if f.Name() != event.InteractionCreate {
				continue
			}
			var p payload
			if err := json.Unmarshal(f.D, &p); err != nil {
				done <- err
				return
			}
			if p.N != seen {
				done <- fmt.Errorf("event %d arrived when %d was due", p.N, seen)
				return
			}
			latencies = append(latencies, now.Sub(time.Unix(0, p.Sent)))
			seen++
		}
		done <- nil
	}()
	var interval time.Duration
	if o.rate > 0 {
		interval = time.Second / time.Duration(o.rate)
	}
	start := time.Now()
	for i := range o.events {
		if interval > 0 {
			if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
				time.Sleep(wait)
			}
		}
		pub.Bus.Publish(ctx, event.Event{Type: event.InteractionCreate, ApplicationID: app, GuildID: guild,
			Data: payload{N: i, Sent: time.Now().UnixNano()}})
	}
	if err := <-done; err != nil {
		return err
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	rate := "as fast as possible"
	if o.rate > 0 {
		rate = fmt.Sprintf("%d/s", o.rate)
	}
	fmt.Printf("gateway: %d INTERACTION_CREATE published on node 0's bus (%s), read by a bot on node 1 in %s\n",
		o.events, rate, elapsed.Round(time.Millisecond))
	fmt.Printf("publish → receive   p50 %s   p99 %s   max %s\n", ms(percentile(latencies, 50)),
		ms(percentile(latencies, 99)), ms(latencies[len(latencies)-1]))
	return nil
}

// ---- figures ----

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

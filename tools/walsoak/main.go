// Command walsoak measures how large SQLite's write-ahead log grows while
// slashd takes sustained writes, and what that costs in latency. It runs
// the real server (api.Server on a SQLite store in a fresh data
// directory, as `slashd serve` does, rate limits off) on a TCP listener
// and drives it over HTTP for -duration, while a sampler stats the WAL
// file every -sample (1 ms by default) and keeps the largest size seen.
//
// Modes:
//
//   - one:  one client PUTs the guild's whole command set (-commands
//     commands, each with a new description) again and again, the
//     sequential bulk overwrite;
//   - many: -writers clients, each on a guild of its own, mixing PATCHes
//     of one command, POST upserts and, one time in ten, a bulk PUT;
//   - bulk: -writers clients, each bulk-overwriting a guild of its own.
//
// In every mode -readers clients list a guild's commands meanwhile: a
// reader holding a snapshot is what keeps a checkpoint from resetting the
// log. At the end it prints the largest and final WAL, the database's
// size, and requests/s and latency percentiles per kind of request.
//
//	go run ./tools/walsoak -mode one -duration 60s
//	go run ./tools/walsoak -mode many -writers 16 -readers 8
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

type options struct {
	mode     string
	duration time.Duration
	writers  int
	readers  int
	commands int
	sample   time.Duration
	dataDir  string
}

func main() {
	var o options
	flag.StringVar(&o.mode, "mode", "one", "one, many or bulk (see the package comment)")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long the load runs")
	flag.IntVar(&o.writers, "writers", 16, "concurrent writers (many, bulk)")
	flag.IntVar(&o.readers, "readers", 4, "concurrent readers listing commands")
	flag.IntVar(&o.commands, "commands", 100, "commands per guild, each bulk overwrite rewrites them all (1-100)")
	flag.DurationVar(&o.sample, "sample", time.Millisecond, "how often the WAL's size is sampled")
	flag.StringVar(&o.dataDir, "data", "", "data directory (default: a temporary one, removed at the end)")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal("walsoak: ", err)
	}
}

func run(o options) error {
	if o.commands < 1 || o.commands > 100 {
		return fmt.Errorf("-commands %d: want 1 to 100", o.commands)
	}
	writers := o.writers
	switch o.mode {
	case "one":
		writers = 1
	case "many", "bulk":
		if writers < 1 {
			return fmt.Errorf("-writers %d: want at least 1", writers)
		}
	default:
		return fmt.Errorf("-mode %q: want one, many or bulk", o.mode)
	}
	dir := o.dataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "walsoak")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ctx := context.Background()
	dbPath := filepath.Join(dir, "slashd.db")
	st, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer st.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	ids := snowflake.NewGenerator(0, nil)
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "soak", BaseURL: base})
	if err != nil {
		return err
	}
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	handler := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	c := &client{base: base, app: creds.ApplicationID, auth: "Bot " + creds.BotToken,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: writers + o.readers + 4}}}
	guilds, err := seed(ctx, c, env, creds, writers, o.commands)
	if err != nil {
		return err
	}

	fmt.Printf("walsoak: mode %s, %d writer(s), %d reader(s), %d commands per guild, %s, WAL sampled every %s\n",
		o.mode, writers, o.readers, o.commands, o.duration, o.sample)
	sampler := startSampler(dbPath+"-wal", o.sample)
	res := soak(ctx, c, guilds, o, writers)
	walMax, samples := sampler.stop()
	return report(res, walMax, samples, dbPath, o.duration)
}

// client sends the soak's requests.
type client struct {
	base, app, auth string
	http            *http.Client
}

func (c *client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := jsonenc.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", c.auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// guild is one writer's guild and its seeded commands' ids.
type guild struct {
	path string // the guild's commands
	ids  []string
}

// seed creates one guild per writer (the first is the app's) and
// bulk-writes its commands.
func seed(ctx context.Context, c *client, env bootstrap.Env, creds bootstrap.Credentials, n, commands int) ([]guild, error) {
	owner, err := snowflake.Parse(creds.OwnerUserID)
	if err != nil {
		return nil, err
	}
	app, err := snowflake.Parse(creds.ApplicationID)
	if err != nil {
		return nil, err
	}
	guildIDs := []string{creds.GuildID}
	for i := 1; i < n; i++ {
		id, err := bootstrap.CreateGuild(ctx, env, fmt.Sprintf("soak %d", i), owner, app)
		if err != nil {
			return nil, err
		}
		guildIDs = append(guildIDs, id.String())
	}
	out := make([]guild, len(guildIDs))
	for i, id := range guildIDs {
		g := guild{path: "/api/v10/applications/" + c.app + "/guilds/" + id + "/commands"}
		status, body, err := c.do(ctx, "PUT", g.path, commandSet(commands, 0))
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("seed guild %s: %d %s", id, status, body)
		}
		var cmds []struct{ ID string }
		if err := json.Unmarshal(body, &cmds); err != nil {
			return nil, err
		}
		for _, cmd := range cmds {
			g.ids = append(g.ids, cmd.ID)
		}
		out[i] = g
	}
	return out, nil
}

// commandSet is n commands of a realistic size (about 1 KiB of JSON
// each); round changes every description, so that a PUT rewrites them
// all.
func commandSet(n int, round int64) []map[string]any {
	cmds := make([]map[string]any, n)
	for i := range cmds {
		cmds[i] = command(i, round)
	}
	return cmds
}

func command(i int, round int64) map[string]any {
	return map[string]any{
		"name":        fmt.Sprintf("command-%03d", i),
		"description": fmt.Sprintf("Round %d of command %d, rewritten by the soak", round, i),
		"description_localizations": map[string]string{
			"fr": fmt.Sprintf("Tour %d de la commande %d", round, i), "de": fmt.Sprintf("Runde %d, Befehl %d", round, i)},
		"options": []map[string]any{
			{"type": 3, "name": "text", "description": "Some text to echo back", "required": true},
			{"type": 4, "name": "count", "description": "How many times", "min_value": 1, "max_value": 10},
			{"type": 3, "name": "color", "description": "A color to paint it", "choices": []map[string]any{
				{"name": "Red", "value": "red"}, {"name": "Green", "value": "green"}, {"name": "Blue", "value": "blue"}}},
		},
	}
}

// ---- load ----

// op is one kind of request's outcome.
type op struct {
	latencies []time.Duration
	failed    int
	firstErr  string
}

type results map[string]*op

func (r results) add(name string, d time.Duration, status int, body []byte, err error) {
	o := r[name]
	if o == nil {
		o = &op{}
		r[name] = o
	}
	if err != nil || status != http.StatusOK {
		o.failed++
		if o.firstErr == "" {
			o.firstErr = fmt.Sprintf("%d %s %v", status, bytes.TrimSpace(body), err)
		}
		return
	}
	o.latencies = append(o.latencies, d)
}

// soak runs the writers and readers for o.duration; each goroutine keeps
// its own results, merged at the end.
func soak(ctx context.Context, c *client, guilds []guild, o options, writers int) results {
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		all   = results{}
		round atomic.Int64
	)
	merge := func(r results) {
		mu.Lock()
		defer mu.Unlock()
		for name, x := range r {
			o := all[name]
			if o == nil {
				o = &op{}
				all[name] = o
			}
			o.latencies = append(o.latencies, x.latencies...)
			o.failed += x.failed
			if o.firstErr == "" {
				o.firstErr = x.firstErr
			}
		}
	}
	timed := func(r results, name string, f func() (int, []byte, error)) {
		t0 := time.Now()
		status, body, err := f()
		if ctx.Err() != nil {
			return // cut off by the end of the soak, not a failure
		}
		r.add(name, time.Since(t0), status, body, err)
	}
	for w := range writers {
		g := guilds[w]
		wg.Go(func() {
			r := results{}
			defer merge(r)
			for n := 0; ctx.Err() == nil; n++ {
				k := round.Add(1)
				switch {
				case o.mode != "many" || n%10 == 0:
					timed(r, "PUT bulk overwrite", func() (int, []byte, error) {
						return c.do(ctx, "PUT", g.path, commandSet(len(g.ids), k))
					})
				case n%2 == 0:
					i := n % len(g.ids)
					timed(r, "PATCH command", func() (int, []byte, error) {
						return c.do(ctx, "PATCH", g.path+"/"+g.ids[i], map[string]any{"description": fmt.Sprintf("Patched %d", k)})
					})
				default:
					i := n % len(g.ids)
					timed(r, "POST upsert", func() (int, []byte, error) {
						return c.do(ctx, "POST", g.path, command(i, k))
					})
				}
			}
		})
	}
	for rd := range o.readers {
		g := guilds[rd%len(guilds)]
		wg.Go(func() {
			r := results{}
			defer merge(r)
			for ctx.Err() == nil {
				timed(r, "GET commands", func() (int, []byte, error) { return c.do(ctx, "GET", g.path, nil) })
			}
		})
	}
	wg.Wait()
	return all
}

// ---- WAL sampling ----

type sampler struct {
	stopc chan struct{}
	done  chan struct{}
	max   atomic.Int64
	n     atomic.Int64
}

// startSampler stats path every interval and keeps the largest size.
func startSampler(path string, interval time.Duration) *sampler {
	s := &sampler{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stopc:
				return
			case <-t.C:
			}
			if fi, err := os.Stat(path); err == nil && fi.Size() > s.max.Load() {
				s.max.Store(fi.Size())
			}
			s.n.Add(1)
		}
	}()
	return s
}

func (s *sampler) stop() (maxSize, samples int64) {
	close(s.stopc)
	<-s.done
	return s.max.Load(), s.n.Load()
}

// ---- report ----

func report(res results, walMax, samples int64, dbPath string, d time.Duration) error {
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	fmt.Printf("\nlargest WAL %s (%d samples); at the end: WAL %s, database %s\n\n",
		mib(walMax), samples, mib(size(dbPath+"-wal")), mib(size(dbPath)))
	names := make([]string, 0, len(res))
	for name := range res {
		names = append(names, name)
	}
	sort.Strings(names)
	var failed int
	fmt.Printf("%-20s %9s %8s %8s %8s %8s %8s\n", "request", "count", "req/s", "p50", "p90", "p99", "max")
	for _, name := range names {
		o := res[name]
		slices.Sort(o.latencies)
		fmt.Printf("%-20s %9d %8.0f %8s %8s %8s %8s\n", name, len(o.latencies), float64(len(o.latencies))/d.Seconds(),
			ms(pct(o.latencies, 50)), ms(pct(o.latencies, 90)), ms(pct(o.latencies, 99)), ms(pct(o.latencies, 100)))
		if o.failed > 0 {
			fmt.Printf("    %d failed, the first: %s\n", o.failed, o.firstErr)
			failed += o.failed
		}
	}
	if failed > 0 {
		return errors.New("some requests failed")
	}
	return nil
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

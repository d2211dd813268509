// Command costbench measures what one request costs each process that
// serves it: real `slashd serve` processes (one on SQLite, or -nodes on
// PostgreSQL with NATS), driven over HTTP by -clients clients for
// -duration, with the CPU time of every process read from the kernel
// before and after (getrusage for this process, /proc/PID/stat for the
// nodes, the PostgreSQL backends serving them and the NATS server). CPU
// time, unlike a wall time, is not stretched by other programs on the
// machine, so "CPU per request" holds on a loaded machine; requests/s
// and latencies are printed too and are not.
//
// Operations (-op):
//
//   - invoke: a member runs a guild command, slashd signs and delivers it
//     to an HTTP app (in this process, on the SDK's handler), the app
//     answers inline, slashd stores the answer as a message;
//   - overwrite: the bot bulk-overwrites its guild's 100 commands, every
//     one changed;
//   - join: a new user is made and joins the guild (two admin API
//     requests, both measured), which the world-event outbox relays;
//   - identify: the bot, in 9,996 small guilds besides its app's own
//     (written straight into the store first, as BenchmarkIdentifyShard
//     seeds them), identifies shard 1 of 4 (2,499 or 2,500 guilds) with
//     the GUILDS intent and reads READY and every GUILD_CREATE.
//
// This process holds the clients and the app: its CPU is reported apart
// and is not slashd's. On PostgreSQL the rows each request writes are
// read from pg_stat_user_tables of the run's own schema, and the WAL it
// writes from pg_current_wal_lsn() (the whole server's: other databases'
// writes count too).
//
//	go build -o /tmp/slashd ./cmd/slashd
//	go run ./tools/costbench -slashd /tmp/slashd -store sqlite
//	go run ./tools/costbench -slashd /tmp/slashd -store postgres -nodes 3
//	go run ./tools/costbench -slashd /tmp/slashd -store postgres -op join
//
// -cpuprofile FILE writes node 0's CPU profile of the measured run.
//
// PostgreSQL is $SLASHD_TEST_POSTGRES (or the tests' default local
// server, a schema of its own is created and dropped), NATS
// $SLASHD_TEST_NATS (or nats://127.0.0.1:4222).
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the store's statistics
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/event/natsbus/natstest"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/sdk/interactions"
)

type options struct {
	slashd   string
	store    string
	pgDSN    string
	nats     string
	nodes    int
	clients  int
	duration time.Duration
	warmup   time.Duration
	op       string
	logLevel string
	profile  string

	natsPrefix string // the run's, set by run
}

func main() {
	var o options
	natsURL := os.Getenv("SLASHD_TEST_NATS")
	if natsURL == "" {
		natsURL = natstest.DefaultURL
	}
	flag.StringVar(&o.slashd, "slashd", "", "the slashd binary (go build -o /tmp/slashd ./cmd/slashd)")
	flag.StringVar(&o.store, "store", "sqlite", "sqlite (one node) or postgres")
	flag.StringVar(&o.pgDSN, "pg", pgtest.ServerDSN(), "PostgreSQL server (a schema is created and dropped)")
	flag.StringVar(&o.nats, "nats", natsURL, "NATS server of the nodes' bus (postgres only)")
	flag.IntVar(&o.nodes, "nodes", 1, "slashd processes (more than one needs -store postgres)")
	flag.IntVar(&o.clients, "clients", 8, "concurrent HTTP clients, round-robin over the nodes")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long the measurement runs")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured load first (caches, connection pools)")
	flag.StringVar(&o.op, "op", "invoke", "invoke, overwrite, join or identify")
	flag.StringVar(&o.logLevel, "log-level", "info", "the nodes' --log-level (info, as served, logs a line per invocation)")
	flag.StringVar(&o.profile, "cpuprofile", "", "write node 0's CPU profile of the measured run to this file")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	ctx := context.Background()
	if o.slashd == "" {
		return errors.New("-slashd: build one with go build -o /tmp/slashd ./cmd/slashd")
	}
	if o.nodes < 1 || (o.nodes > 1 && o.store != "postgres") {
		return fmt.Errorf("-nodes %d: want 1, or more with -store postgres", o.nodes)
	}
	root, err := os.MkdirTemp("", "costbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)

	args := []string{"--ratelimit=false", "--log-level", o.logLevel, "--ui=false"}
	pprofAddr := ""
	if o.profile != "" {
		port, err := freePort()
		if err != nil {
			return err
		}
		pprofAddr = "127.0.0.1:" + strconv.Itoa(port)
	}
	var pg *pgStats
	var bus *busStats
	switch o.store {
	case "sqlite":
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
		appName := fmt.Sprintf("costbench_%d", os.Getpid())
		if dsn, err = addParam(dsn, "application_name", appName); err != nil {
			return err
		}
		if pg, err = openPGStats(o.pgDSN, dsn, appName); err != nil {
			return err
		}
		defer pg.close()
		prefix := fmt.Sprintf("slashd.costbench.%d", time.Now().UnixNano())
		o.natsPrefix = prefix
		args = append(args, "--store", dsn, "--nats", o.nats, "--nats-prefix", prefix)
		if bus, err = openBusStats(o.nats, prefix); err != nil {
			return err
		}
		defer bus.close()
	default:
		return fmt.Errorf("-store %q: want sqlite or postgres", o.store)
	}

	nodes := make([]*node, o.nodes)
	for i := range nodes {
		nodes[i] = &node{dir: filepath.Join(root, fmt.Sprintf("node%d", i))}
		nodeArgs := append(slices.Clone(args), "--node-id", strconv.Itoa(100+i))
		if i == 0 && pprofAddr != "" {
			nodeArgs = append(nodeArgs, "--pprof-addr", pprofAddr)
		}
		if err := nodes[i].start(o.slashd, nodeArgs); err != nil {
			return err
		}
		defer nodes[i].stop()
	}
	creds, err := readBootstrap(nodes[0].dir)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	w := &world{http: client, base: nodes[0].url, admin: creds.AdminToken}
	storeDSN := "" // the store the identify op seeds: the nodes' PostgreSQL schema, or node 0's SQLite file
	for i, a := range args {
		if a == "--store" {
			storeDSN = args[i+1]
		}
	}
	do, err := prepare(ctx, w, o.op, o.clients, nodes, storeDSN)
	if err != nil {
		return err
	}
	fmt.Printf("costbench: -op %s, %d node(s), store %s, %d clients, %s (after %s unmeasured)\n",
		o.op, o.nodes, o.store, o.clients, o.duration, o.warmup)
	if up, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average before: %s", up)
	}

	if _, err := drive(ctx, o.clients, o.warmup, do); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	before, err := sample(nodes, pg, bus, true)
	if err != nil {
		return err
	}
	profiled := make(chan error, 1)
	if pprofAddr != "" {
		go func() { profiled <- saveProfile(pprofAddr, o.duration, o.profile) }()
	} else {
		profiled <- nil
	}
	res, err := drive(ctx, o.clients, o.duration, do)
	if err != nil {
		return err
	}
	if err := <-profiled; err != nil {
		return err
	}
	after, err := sample(nodes, pg, bus, false)
	if err != nil {
		return err
	}
	report(o, res, before, after)
	if up, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average after: %s", up)
	}
	return nil
}

// ---- the nodes ----

type node struct {
	dir string
	url string
	cmd *exec.Cmd
	out *os.File
}

func (n *node) start(bin string, args []string) error {
	if err := os.MkdirAll(n.dir, 0o700); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if n.out, err = os.Create(filepath.Join(n.dir, "serve.log")); err != nil {
		return err
	}
	n.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr, "--data", n.dir}, args...)...)
	n.cmd.Stdout, n.cmd.Stderr = n.out, n.out
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	n.url = "http://" + addr
	if err := waitHealthy(n.url, time.Minute); err != nil {
		log, _ := os.ReadFile(n.out.Name())
		return fmt.Errorf("node %s: %w\n%s", n.dir, err, log)
	}
	return nil
}

func (n *node) stop() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
	n.out.Close()
}

// saveProfile fetches a node's CPU profile over d into file.
func saveProfile(addr string, d time.Duration, file string) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds())))
	if err != nil {
		return fmt.Errorf("CPU profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("CPU profile: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func waitHealthy(url string, timeout time.Duration) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := c.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no 200 from %s/healthz within %s (last: %v)", url, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type bootstrapFile struct {
	AdminToken string `json:"admin_token"`
}

// readBootstrap waits for the first start's bootstrap.json (on
// PostgreSQL one of the nodes writes it; node 0 is started first).
func readBootstrap(dir string) (bootstrapFile, error) {
	var b bootstrapFile
	data, err := os.ReadFile(filepath.Join(dir, "bootstrap.json"))
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil || b.AdminToken == "" {
		return b, fmt.Errorf("bootstrap.json without admin_token: %v", err)
	}
	return b, nil
}

// ---- the world and the operations ----

type world struct {
	http  *http.Client
	base  string
	admin string
}

type reply struct {
	status int
	body   []byte
}

func (w *world) call(ctx context.Context, base, method, path, auth string, body any) (reply, error) {
	var rd io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				return reply{}, err
			}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return reply{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, b}, err
}

// must makes a setup request through node 0 and decodes its answer;
// want 200 takes 201 too (the admin API's creates).
func (w *world) must(ctx context.Context, method, path, auth string, body, out any, want int) error {
	r, err := w.call(ctx, w.base, method, path, auth, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if r.status != want && !(want == 200 && r.status == 201) {
		return fmt.Errorf("%s %s: %d %s, want %d", method, path, r.status, r.body, want)
	}
	if out != nil {
		return json.Unmarshal(r.body, out)
	}
	return nil
}

type appCredentials struct {
	ApplicationID string `json:"application_id"`
	BotToken      string `json:"bot_token"`
	PublicKey     string `json:"public_key"`
	GuildID       string `json:"guild_id"`
	OwnerUserID   string `json:"owner_user_id"`
}

// op is one measured request: its status, or an error that stops the run.
type op func(ctx context.Context, n int64) (int, error)

// prepare makes the op's world in world 0 (an app with its guild, as a
// real deployment has: no test world, no journal) and returns the op.
func prepare(ctx context.Context, w *world, name string, clients int, nodes []*node, storeDSN string) (op, error) {
	admin := "Admin " + w.admin
	var app appCredentials
	if err := w.must(ctx, "POST", "/admin/v1/applications", admin,
		map[string]any{"name": "costbench", "world_id": "0"}, &app, 200); err != nil {
		return nil, err
	}
	bot := "Bot " + app.BotToken
	guildCmds := "/api/v10/applications/" + app.ApplicationID + "/guilds/" + app.GuildID + "/commands"
	nodeURL := func(n int64) string { return nodes[int(n)%len(nodes)].url }
	switch name {
	case "invoke":
		var channel struct{ ID string }
		if err := w.must(ctx, "POST", "/admin/v1/guilds/"+app.GuildID+"/channels", admin,
			map[string]any{"name": "general"}, &channel, 200); err != nil {
			return nil, err
		}
		var tok struct{ Token string }
		if err := w.must(ctx, "POST", "/admin/v1/users/"+app.OwnerUserID+"/tokens", admin,
			map[string]any{"type": "client"}, &tok, 200); err != nil {
			return nil, err
		}
		var cmd struct {
			ID, Name, Version string
			Type              int
		}
		if err := w.must(ctx, "POST", guildCmds, bot, map[string]any{"name": "echo", "description": "Echo"},
			&cmd, 201); err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		appServer := &http.Server{Handler: interactions.Handler(app.PublicKey,
			func(context.Context, *interactions.Interaction) (interactions.Response, error) {
				return interactions.Message("hello"), nil
			})}
		go func() { _ = appServer.Serve(ln) }()
		if err := w.must(ctx, "PUT", "/admin/v1/applications/"+app.ApplicationID+"/interactions-endpoint", admin,
			map[string]any{"interactions_endpoint_url": "http://" + ln.Addr().String()}, nil, 200); err != nil {
			return nil, err
		}
		body, err := json.Marshal(map[string]any{"type": 2, "application_id": app.ApplicationID,
			"guild_id": app.GuildID, "channel_id": channel.ID,
			"data": map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version}})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, n int64) (int, error) {
			r, err := w.call(ctx, nodeURL(n), "POST", "/api/v10/interactions", tok.Token, body)
			return r.status, err
		}, nil
	case "overwrite":
		// Each client overwrites a guild of its own (a scope's writes
		// serialize on its row), every command changed each time.
		guilds := make([]string, clients)
		for c := range guilds {
			var g struct{ ID string }
			if err := w.must(ctx, "POST", "/admin/v1/guilds", admin,
				map[string]any{"name": fmt.Sprintf("guild %d", c), "owner_id": app.OwnerUserID, "world_id": "0"}, &g, 200); err != nil {
				return nil, err
			}
			if err := w.must(ctx, "PUT", "/admin/v1/guilds/"+g.ID+"/installations/"+app.ApplicationID, admin,
				map[string]any{"scopes": []string{"applications.commands"}}, nil, 200); err != nil {
				return nil, err
			}
			guilds[c] = g.ID
		}
		var turn atomic.Int64
		return func(ctx context.Context, n int64) (int, error) {
			g := guilds[int(turn.Add(1))%len(guilds)]
			r, err := w.call(ctx, nodeURL(n), "PUT",
				"/api/v10/applications/"+app.ApplicationID+"/guilds/"+g+"/commands", bot, hundredCommands(n))
			return r.status, err
		}, nil
	case "identify":
		if err := seedBotGuilds(ctx, storeDSN, nodes[0].dir, app, identifyGuilds); err != nil {
			return nil, err
		}
		return func(ctx context.Context, n int64) (int, error) {
			return identifyShard(ctx, nodeURL(n), app.BotToken)
		}, nil
	case "join":
		// A new user is made and joins: two admin requests, both
		// measured (the user's row is part of a first join).
		return func(ctx context.Context, n int64) (int, error) {
			var u struct{ ID string }
			r, err := w.call(ctx, nodeURL(n), "POST", "/admin/v1/users", admin,
				map[string]any{"username": fmt.Sprintf("u%d", n), "world_id": "0"})
			if err != nil || r.status != 201 {
				return r.status, err
			}
			if err := json.Unmarshal(r.body, &u); err != nil {
				return 0, err
			}
			r, err = w.call(ctx, nodeURL(n), "PUT", "/admin/v1/guilds/"+app.GuildID+"/members/"+u.ID, admin, nil)
			return r.status, err
		}, nil
	}
	return nil, fmt.Errorf("-op %q: want invoke, overwrite, join or identify", name)
}

// hundredCommands is a bulk overwrite's body whose every description
// differs from the previous one's.
func hundredCommands(n int64) []byte {
	cmds := make([]map[string]any, 100)
	for i := range cmds {
		cmds[i] = map[string]any{"name": fmt.Sprintf("command-%03d", i), "description": fmt.Sprintf("Version %d", n),
			"options": []map[string]any{
				{"type": 3, "name": "text", "description": "Some text", "required": true},
				{"type": 4, "name": "count", "description": "How many", "min_value": 1, "max_value": 10},
			}}
	}
	b, _ := json.Marshal(cmds)
	return b
}

// ---- load ----

type result struct {
	latencies []time.Duration
	elapsed   time.Duration
	statuses  map[int]int
}

func drive(ctx context.Context, clients int, d time.Duration, do op) (result, error) {
	var next atomic.Int64
	per := make([][]time.Duration, clients)
	statuses := make([]map[int]int, clients)
	errs := make([]error, clients)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		statuses[c] = map[int]int{}
		wg.Go(func() {
			for time.Now().Before(deadline) {
				t0 := time.Now()
				status, err := do(ctx, next.Add(1))
				if err != nil {
					errs[c] = err
					return
				}
				per[c] = append(per[c], time.Since(t0))
				statuses[c][status]++
			}
		})
	}
	wg.Wait()
	res := result{elapsed: time.Since(start), statuses: map[int]int{}}
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for c := range clients {
		res.latencies = append(res.latencies, per[c]...)
		for s, n := range statuses[c] {
			res.statuses[s] += n
		}
	}
	slices.Sort(res.latencies)
	return res, nil
}

// ---- CPU and store statistics ----

type snapshot struct {
	self     time.Duration
	nodes    time.Duration
	postgres time.Duration
	nats     time.Duration
	backends int
	rows     map[string]rowCounts // table → counts
	walBytes int64
	bus      streamState
}

// streamState is the JetStream stream's count of events (and bytes) so
// far, in all and per subject (event type).
type streamState struct {
	msgs, bytes uint64
	bySubject   map[string]uint64
}

// busStats reads the nodes' JetStream stream, on a connection of its
// own.
type busStats struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	prefix string
}

func openBusStats(url, prefix string) (*busStats, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, fmt.Errorf("NATS %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &busStats{nc: nc, js: js, prefix: prefix}, nil
}

func (b *busStats) close() { b.nc.Close() }

// sample reads the stream natsbus made for the prefix (its name is the
// prefix with "_" for ".").
func (b *busStats) sample() (streamState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := b.js.Stream(ctx, strings.ReplaceAll(b.prefix, ".", "_"))
	if err != nil {
		return streamState{}, fmt.Errorf("the bus's stream: %w", err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(b.prefix+".>"))
	if err != nil {
		return streamState{}, fmt.Errorf("the bus's stream: %w", err)
	}
	return streamState{msgs: info.State.Msgs, bytes: info.State.Bytes, bySubject: info.State.Subjects}, nil
}

type rowCounts struct{ ins, upd, del int64 }

// sample reads every counter. The store's statistics settle first
// (before the CPU times, at the start) or last (after them, at the end),
// so that their wait is outside the measured CPU.
func sample(nodes []*node, pg *pgStats, bus *busStats, start bool) (snapshot, error) {
	var s snapshot
	if bus != nil {
		var err error
		if s.bus, err = bus.sample(); err != nil {
			return s, err
		}
	}
	if pg != nil && start {
		if err := pg.sample(&s); err != nil {
			return s, err
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return s, err
	}
	s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	for _, n := range nodes {
		t, err := procCPU(n.cmd.Process.Pid)
		if err != nil {
			return s, err
		}
		s.nodes += t
	}
	if pid, ok := findProcess("nats-server"); ok {
		s.nats, _ = procCPU(pid)
	}
	if pg != nil {
		pids, err := pg.backends()
		if err != nil {
			return s, err
		}
		for _, pid := range pids {
			t, err := procCPU(pid)
			if err != nil {
				continue // ended meanwhile
			}
			s.postgres += t
		}
		s.backends = len(pids)
		if !start {
			if err := pg.sample(&s); err != nil {
				return s, err
			}
		}
	}
	return s, nil
}

func (p *pgStats) sample(s *snapshot) error {
	var err error
	if s.rows, err = p.rows(); err != nil {
		return err
	}
	s.walBytes, err = p.wal()
	return err
}

// clockTick is USER_HZ, the unit of /proc/PID/stat's times (100 on
// every Linux architecture Go runs on).
const clockTick = 10 * time.Millisecond

// procCPU is a process's user + system time so far.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// findProcess finds a process by its command name (the first one).
func findProcess(comm string) (int, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err == nil && strings.TrimSpace(string(b)) == comm {
			return pid, true
		}
	}
	return 0, false
}

// pgStats reads the server's statistics about the run's own schema and
// connections.
type pgStats struct {
	server  *sql.DB // the server, as the tests reach it
	schema  *sql.DB // the run's schema
	appName string
}

func openPGStats(serverDSN, schemaDSN, appName string) (*pgStats, error) {
	server, err := sql.Open("pgx", serverDSN)
	if err != nil {
		return nil, err
	}
	schema, err := sql.Open("pgx", schemaDSN)
	if err != nil {
		server.Close()
		return nil, err
	}
	schema.SetMaxOpenConns(1)
	server.SetMaxOpenConns(1)
	return &pgStats{server: server, schema: schema, appName: appName}, nil
}

func (p *pgStats) close() { p.server.Close(); p.schema.Close() }

// backends are the server processes of the nodes' connections (this
// tool's own statistics connection has another application_name).
func (p *pgStats) backends() ([]int, error) {
	rows, err := p.server.Query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, p.appName)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_activity: %w", err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return pids, rows.Err()
}

// rows are the run's schema's tuples inserted, updated and deleted per
// table. The counters arrive from the backends with a delay (a backend
// that goes idle flushes them within 10 s: PGSTAT_IDLE_INTERVAL), so
// rows waits for them.
func (p *pgStats) rows() (map[string]rowCounts, error) {
	time.Sleep(11 * time.Second)
	if _, err := p.schema.Exec(`SELECT pg_stat_clear_snapshot()`); err != nil {
		return nil, err
	}
	rows, err := p.schema.Query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables
		WHERE schemaname = current_schema()`)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_user_tables: %w", err)
	}
	defer rows.Close()
	out := map[string]rowCounts{}
	for rows.Next() {
		var name string
		var c rowCounts
		if err := rows.Scan(&name, &c.ins, &c.upd, &c.del); err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, rows.Err()
}

func (p *pgStats) wal() (int64, error) {
	var lsn int64
	err := p.server.QueryRow(`SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&lsn)
	return lsn, err
}

func addParam(dsn, key, value string) (string, error) {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + key + "=" + value, nil
	}
	return dsn + " " + key + "=" + value, nil
}

// ---- report ----

func report(o options, res result, before, after snapshot) {
	n := len(res.latencies)
	if n == 0 {
		fmt.Println("no requests finished")
		return
	}
	per := func(d time.Duration) string {
		return fmt.Sprintf("%7.1f µs", float64(d.Microseconds())/float64(n))
	}
	wall := res.elapsed
	fmt.Printf("%d requests in %s: %.0f/s   p50 %s   p99 %s\n", n, wall.Round(time.Millisecond),
		float64(n)/wall.Seconds(), percentile(res.latencies, 50), percentile(res.latencies, 99))
	for s, c := range res.statuses {
		fmt.Printf("    status %d: %d\n", s, c)
	}
	nodes := after.nodes - before.nodes
	pg := after.postgres - before.postgres
	nats := after.nats - before.nats
	self := after.self - before.self
	total := nodes + pg + nats + self
	fmt.Println("CPU per request (user+system; busy cores = CPU / wall):")
	fmt.Printf("  slashd node(s)        %s   (%.2f cores)\n", per(nodes), nodes.Seconds()/wall.Seconds())
	if o.store == "postgres" {
		fmt.Printf("  PostgreSQL backends   %s   (%.2f cores; %d backends at the start, %d at the end)\n",
			per(pg), pg.Seconds()/wall.Seconds(), before.backends, after.backends)
		fmt.Printf("  nats-server           %s   (%.2f cores; the whole server's)\n", per(nats), nats.Seconds()/wall.Seconds())
	}
	fmt.Printf("  clients + app (here)  %s   (%.2f cores)\n", per(self), self.Seconds()/wall.Seconds())
	fmt.Printf("  all of them           %s   (%.2f cores)\n", per(total), total.Seconds()/wall.Seconds())
	if o.store != "postgres" {
		return
	}
	fmt.Println("rows per request (pg_stat_user_tables of the run's schema):")
	var names []string
	for t := range after.rows {
		names = append(names, t)
	}
	slices.Sort(names)
	var sum rowCounts
	for _, t := range names {
		a, b := after.rows[t], before.rows[t]
		d := rowCounts{a.ins - b.ins, a.upd - b.upd, a.del - b.del}
		if d == (rowCounts{}) {
			continue
		}
		sum.ins, sum.upd, sum.del = sum.ins+d.ins, sum.upd+d.upd, sum.del+d.del
		fmt.Printf("  %-24s inserted %6.2f  updated %6.2f  deleted %6.2f\n", t,
			float64(d.ins)/float64(n), float64(d.upd)/float64(n), float64(d.del)/float64(n))
	}
	fmt.Printf("  %-24s inserted %6.2f  updated %6.2f  deleted %6.2f\n", "all", float64(sum.ins)/float64(n),
		float64(sum.upd)/float64(n), float64(sum.del)/float64(n))
	fmt.Printf("WAL per request: %.0f bytes (the server's, other databases' writes included)\n",
		float64(after.walBytes-before.walBytes)/float64(n))
	fmt.Printf("bus events per request: %.2f, %.0f bytes (JetStream stream %s)\n",
		float64(after.bus.msgs-before.bus.msgs)/float64(n), float64(after.bus.bytes-before.bus.bytes)/float64(n),
		strings.ReplaceAll(o.natsPrefix, ".", "_"))
	var subjects []string
	for subj := range after.bus.bySubject {
		subjects = append(subjects, subj)
	}
	slices.Sort(subjects)
	for _, subj := range subjects {
		if d := after.bus.bySubject[subj] - before.bus.bySubject[subj]; d > 0 {
			fmt.Printf("  %-40s %6.3f\n", strings.TrimPrefix(subj, o.natsPrefix+"."), float64(d)/float64(n))
		}
	}
}

func percentile(sorted []time.Duration, p float64) string {
	i := int(float64(len(sorted))*p/100+0.5) - 1
	d := sorted[min(max(i, 0), len(sorted)-1)]
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

// ---- identify ----

// identifyGuilds is how many guilds the identify op's bot is in beside
// its app's own, and identifyShards how many shards it identifies with
// (shard 1 is read): 2,499 a shard, 2,500 with the app's guild, the most
// a shard may hold before the gateway asks for more shards (4011).
const (
	identifyGuilds = 9_996
	identifyShards = 4
	identifyShard1 = 1
)

// seedBotGuilds puts the app's bot in guilds small guilds (one text
// channel, the @everyone role, the bot as the only member, the app
// installed), in one transaction straight into the store, and drops the
// world events their triggers queued: the guilds are old, not news.
// Their ids have the low 22 bits set, which no node's generator makes.
func seedBotGuilds(ctx context.Context, storeDSN, dataDir string, app appCredentials, guilds int) error {
	var db *sql.DB
	if strings.HasPrefix(storeDSN, "postgres") {
		pg, err := sql.Open("pgx", storeDSN)
		if err != nil {
			return err
		}
		defer pg.Close()
		db = pg
	} else {
		st, err := sqlite.Open(ctx, filepath.Join(dataDir, "slashd.db"))
		if err != nil {
			return err
		}
		defer st.Close()
		db = st.DB()
	}
	bot, err := strconv.ParseInt(app.ApplicationID, 10, 64)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	base := now - 1_000_000 - snowflake.Epoch // ms after the epoch
	stmts := []string{
		`INSERT INTO guilds (id, name, owner_id, created_at) VALUES ($1, 'guild', $2, $3)`,
		`INSERT INTO roles (id, guild_id, name, permissions, position, managed) VALUES ($1, $1, '@everyone', $2, 0, 0)`,
		`INSERT INTO channels (id, guild_id, type, name, position) VALUES ($1, $2, 0, 'general', 0)`,
		`INSERT INTO members (guild_id, user_id, nick, roles, joined_at) VALUES ($1, $2, '', '[]', $3)`,
		`INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES ($1, $2, 'applications.commands bot', $3)`,
	}
	prepared := make([]*sql.Stmt, len(stmts))
	for i, q := range stmts {
		if prepared[i], err = tx.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		defer prepared[i].Close()
	}
	for i := range int64(guilds) {
		id := (base+i)<<22 | 0x3fffff
		for k, args := range [][]any{
			{id, bot, now}, {id, int64(guild.DefaultEveryone)}, {id ^ 1, id}, {id, bot, now}, {id, bot, now},
		} {
			if _, err := prepared[k].ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("seed guild %d: %w", id, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM world_events`); err != nil {
		return err
	}
	return tx.Commit()
}

// identifyShard identifies the bot on shard 1 of 4 with the GUILDS
// intent through the node at base, and reads READY and as many
// GUILD_CREATEs as READY lists guilds.
func identifyShard(ctx context.Context, base, token string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		return 0, fmt.Errorf("gateway: %w", err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	if _, _, err := ws.Read(ctx); err != nil { // HELLO
		return 0, err
	}
	id, err := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 1,
		"shard": []int{identifyShard1, identifyShards}, "properties": map[string]string{"os": "linux", "browser": "costbench", "device": "costbench"}}})
	if err != nil {
		return 0, err
	}
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		return 0, err
	}
	want, creates := -1, 0
	for want < 0 || creates < want {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return 0, fmt.Errorf("after %d GUILD_CREATEs: %w", creates, err)
		}
		head := data[:min(len(data), 64)]
		switch {
		case bytes.Contains(head, []byte(`"t":"READY"`)):
			var ready struct {
				D struct{ Guilds []json.RawMessage } `json:"d"`
			}
			if err := json.Unmarshal(data, &ready); err != nil {
				return 0, err
			}
			want = len(ready.D.Guilds)
		case bytes.Contains(head, []byte(`"t":"GUILD_CREATE"`)):
			creates++
		}
	}
	_ = ws.Close(websocket.StatusNormalClosure, "")
	return http.StatusOK, nil
}

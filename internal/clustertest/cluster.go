// Package clustertest runs several slashd nodes in one process as a
// cluster runs them: each node is its own api.Server behind its own
// listener, with its own store connection pool on one shared database
// (PostgreSQL, or one SQLite file) and its own event bus connection on
// one shared NATS subject prefix (or one in-process bus), and its own
// snowflake node number. The first node bootstraps one application.
//
// Start is for tests (PostgreSQL and NATS as pgtest and natstest find
// them, skipped or failed by their policy); New is for benchmarks and
// tools, which have no testing.T. Requests go to one node at a time, as
// a load balancer would send them; the gateway client speaks the raw
// websocket protocol.
package clustertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for NewSchema

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/event/natsbus"
	"github.com/slashd/slashd/internal/event/natsbus/natstest"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// Config describes a cluster for New.
type Config struct {
	// Nodes is how many nodes run (at least 1).
	Nodes int
	// API is every node's configuration; New sets SharedRateLimits, as
	// `slashd serve` does with a shared store. The zero value means
	// api.DefaultConfig() with rate limiting off.
	API *api.Config
	// PostgresDSN names the shared database (a schema of its own: see
	// NewSchema). When empty, the nodes share the SQLite file SQLitePath.
	PostgresDSN string
	SQLitePath  string
	// PoolSize caps each node's PostgreSQL connections (pool_max_conns;
	// 0: the store's default, postgres.DefaultMaxConns).
	PoolSize int
	// NATSURL is the NATS server of the event bus, NATSPrefix the
	// subject prefix the nodes share. When NATSURL is empty, the nodes
	// share one in-process bus (event.Memory).
	NATSURL    string
	NATSPrefix string
	// BusLatency delays every event on its way to each node's API by
	// this much (in order), as a slow network would: tests that what one
	// node acknowledged is never read stale on another use it.
	BusLatency time.Duration
	// Logger receives every node's log (default: discarded).
	Logger *slog.Logger
	// AppName names the bootstrapped application (default "clusterapp").
	AppName string
}

// Cluster is a running set of nodes with one bootstrapped application.
type Cluster struct {
	Nodes []*Node
	// App is the bootstrapped application, its guild (where it is
	// installed) and its owner, who owns the guild.
	App bootstrap.Credentials
	// Admin is an admin API token (Authorization: Admin …).
	Admin string
	// HTTP is the client requests go through (shared by the nodes, with
	// a connection pool large enough for benchmarks).
	HTTP *http.Client

	memory    *event.Memory
	closeOnce sync.Once
}

// Node is one slashd process of the cluster.
type Node struct {
	Index  int
	URL    string // base URL, without /api
	API    *api.Server
	Store  *sqlstore.Store
	Bus    event.Bus    // this node's bus: its own NATS connection, or the shared in-process bus
	NATS   *natsbus.Bus // the same as Bus on NATS; nil in process
	IDs    *snowflake.Generator
	Server *httptest.Server

	c      *Cluster
	killed atomic.Bool
}

// Option adjusts Start's cluster.
type Option func(*startSettings)

type startSettings struct {
	cfg     api.Config
	logger  *slog.Logger
	pool    int
	latency time.Duration
}

// TestPoolSize is each node's PostgreSQL pool in Start's clusters, and
// maxClusters how many of them run at once in a test binary: test
// servers allow few connections (100 by default), and other packages'
// tests use them too.
const (
	TestPoolSize = 4
	maxClusters  = 4
)

var clusterSlots = make(chan struct{}, maxClusters)

// WithConfig changes every node's API configuration.
func WithConfig(adjust func(*api.Config)) Option {
	return func(s *startSettings) { adjust(&s.cfg) }
}

// WithRateLimit turns rate limiting on, then applies adjust (may be nil).
func WithRateLimit(adjust func(*api.Config)) Option {
	return func(s *startSettings) {
		s.cfg.RateLimit = true
		if adjust != nil {
			adjust(&s.cfg)
		}
	}
}

// WithPoolSize sets each node's PostgreSQL pool size (default
// TestPoolSize).
func WithPoolSize(n int) Option {
	return func(s *startSettings) { s.pool = n }
}

// WithBusLatency delays what each node publishes (Config.BusLatency).
func WithBusLatency(d time.Duration) Option {
	return func(s *startSettings) { s.latency = d }
}

// WithLogger sends the nodes' logs to l.
func WithLogger(l *slog.Logger) Option {
	return func(s *startSettings) { s.logger = l }
}

// Start runs n nodes on a fresh PostgreSQL schema (pgtest) and a fresh
// NATS subject prefix (natstest), with rate limiting off unless an
// option turns it on; everything is stopped when t ends. Without a
// PostgreSQL or NATS server t is skipped (failed under CI).
func Start(t testing.TB, n int, opts ...Option) *Cluster {
	t.Helper()
	natsURL := natstest.URL(t)
	dsn := pgtest.DSN(t)
	st := startSettings{cfg: DefaultAPIConfig(), pool: TestPoolSize}
	for _, o := range opts {
		o(&st)
	}
	select {
	case clusterSlots <- struct{}{}:
	case <-time.After(2 * time.Minute):
		t.Fatalf("no cluster slot in 2 minutes: at most %d clusters run at once (does one test start more?)", maxClusters)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := New(ctx, Config{Nodes: n, API: &st.cfg, PostgresDSN: dsn, PoolSize: st.pool, NATSURL: natsURL,
		NATSPrefix: natstest.Prefix(t), Logger: st.logger, BusLatency: st.latency})
	if err != nil {
		<-clusterSlots
		t.Fatalf("start a cluster of %d nodes: %v", n, err)
	}
	// Registered after pgtest's schema drop, so it runs before it.
	t.Cleanup(func() {
		c.Close()
		<-clusterSlots
	})
	return c
}

// DefaultAPIConfig is api.DefaultConfig with rate limiting off and the
// limits, when turned on, counted in the store.
func DefaultAPIConfig() api.Config {
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	cfg.SharedRateLimits = true
	return cfg
}

// New starts a cluster as cfg describes and bootstraps its application
// through the first node's store. Close stops it.
func New(ctx context.Context, cfg Config) (_ *Cluster, err error) {
	if cfg.Nodes < 1 {
		return nil, fmt.Errorf("clustertest: %d nodes", cfg.Nodes)
	}
	apiCfg := DefaultAPIConfig()
	if cfg.API != nil {
		apiCfg = *cfg.API
	}
	apiCfg.SharedRateLimits = true
	if apiCfg.Cache != api.CacheOff {
		// The nodes write one store: their caches invalidate each
		// other over the bus.
		apiCfg.Cache = api.CacheShared
	}
	if cfg.PostgresDSN == "" && cfg.SQLitePath == "" {
		return nil, errors.New("clustertest: neither PostgresDSN nor SQLitePath is set")
	}
	dsn := cfg.PostgresDSN
	if dsn != "" && cfg.PoolSize > 0 {
		var err error
		if dsn, err = withParam(dsn, "pool_max_conns", strconv.Itoa(cfg.PoolSize)); err != nil {
			return nil, err
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 1024
	tr.MaxIdleConnsPerHost = 512
	c := &Cluster{HTTP: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
	if cfg.NATSURL == "" {
		c.memory = event.NewMemory()
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()

	// The stores open (and migrate) at once, as nodes starting together
	// would; the migrations take turns.
	stores := make([]*sqlstore.Store, cfg.Nodes)
	errs := make([]error, cfg.Nodes)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() {
			if dsn != "" {
				stores[i], errs[i] = postgres.Open(ctx, dsn)
			} else {
				stores[i], errs[i] = sqlite.Open(ctx, cfg.SQLitePath)
			}
		})
	}
	wg.Wait()
	for i, st := range stores {
		if st != nil {
			c.Nodes = append(c.Nodes, &Node{Index: i, Store: st, c: c})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("open the stores: %w", err)
	}

	for _, n := range c.Nodes {
		n.IDs = snowflake.NewGenerator(uint16(n.Index+1), nil)
		if c.memory != nil {
			n.Bus = c.memory
		} else {
			nc, err := natsbus.Connect(cfg.NATSURL, fmt.Sprintf("slashd clustertest node %d", n.Index))
			if err != nil {
				return nil, fmt.Errorf("node %d: connect to NATS: %w", n.Index, err)
			}
			b, err := natsbus.New(nc, natsbus.Options{Prefix: cfg.NATSPrefix, Logger: cfg.Logger, Ordered: true})
			if err != nil {
				nc.Close()
				return nil, fmt.Errorf("node %d: %w", n.Index, err)
			}
			n.Bus, n.NATS = b, b
		}
		events := n.Bus
		if cfg.BusLatency > 0 {
			events = latencyBus{Bus: n.Bus, delay: cfg.BusLatency}
		}
		n.API = api.New(apiCfg, api.Deps{Store: n.Store, IDs: n.IDs, Now: time.Now, Rand: rand.Reader,
			Logger: cfg.Logger, Events: events})
		n.Server = httptest.NewServer(n.API)
		n.URL = n.Server.URL
	}

	first := c.Nodes[0]
	env := bootstrap.Env{Store: first.API.Store(), IDs: first.IDs, Rand: rand.Reader, Now: time.Now}
	name := cfg.AppName
	if name == "" {
		name = "clusterapp"
	}
	if c.App, err = bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: name, BaseURL: first.URL}); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	if c.Admin, err = bootstrap.CreateAdminToken(ctx, env); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return c, nil
}

// Close stops every node still running and closes the stores and buses.
func (c *Cluster) Close() {
	c.closeOnce.Do(func() {
		// The stream of the cluster's prefix goes with it (through a
		// node whose connection is still open).
		for _, n := range c.Nodes {
			if n.NATS != nil && !n.killed.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				n.NATS.DeleteStream(ctx)
				cancel()
				break
			}
		}
		var wg sync.WaitGroup
		for _, n := range c.Nodes {
			wg.Go(func() {
				if n.API != nil && !n.killed.Load() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					n.API.Shutdown(ctx)
					cancel()
					n.Server.Close()
				}
				if n.NATS != nil {
					n.NATS.Close()
				}
				n.Store.Close()
			})
		}
		wg.Wait()
		if tr, ok := c.HTTP.Transport.(*http.Transport); ok {
			tr.CloseIdleConnections()
		}
	})
}

// Kill makes the node look crashed: its gateway connections drop
// without close frames, it stops reading the bus and announcing itself,
// its listener closes and its NATS connection goes. Its store stays
// open until the cluster closes.
func (n *Node) Kill() {
	if n.killed.Swap(true) {
		return
	}
	n.API.Kill()
	n.Server.CloseClientConnections()
	n.Server.Close()
	if n.NATS != nil {
		n.NATS.Close()
	}
}

// Killed reports whether Kill was called.
func (n *Node) Killed() bool { return n.killed.Load() }

// Node is the i-th node, counting modulo the cluster's size (so that
// round-robin callers need not).
func (c *Cluster) Node(i int) *Node { return c.Nodes[i%len(c.Nodes)] }

// Bot is the Authorization value of the application's bot token.
func (c *Cluster) Bot() string { return "Bot " + c.App.BotToken }

// Owner is the Authorization value of the owner's Bearer token (it may
// edit command permissions in the app's guild, which the owner owns).
func (c *Cluster) Owner() string { return "Bearer " + c.App.OwnerBearerToken }

// AdminAuth is the Authorization value of the admin token.
func (c *Cluster) AdminAuth() string { return "Admin " + c.Admin }

// GlobalCommands is the path of the application's global commands.
func (c *Cluster) GlobalCommands() string {
	return "/api/v10/applications/" + c.App.ApplicationID + "/commands"
}

// GuildCommands is the path of the application's commands in its guild.
func (c *Cluster) GuildCommands() string {
	return "/api/v10/applications/" + c.App.ApplicationID + "/guilds/" + c.App.GuildID + "/commands"
}

// Response is a finished HTTP exchange.
type Response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
}

func (r Response) String() string {
	return fmt.Sprintf("%s %s: %d %s", r.Method, r.Path, r.Status, r.Body)
}

// Decode decodes the body into v.
func (r Response) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%s %s: decode %s: %w", r.Method, r.Path, r.Body, err)
	}
	return nil
}

// Request sends a request to this node; it is safe in any goroutine.
// auth is the whole Authorization value ("Bot …", "Bearer …", a bare
// client token or ""); body is marshalled unless it is a string or a
// []byte, sent as they are (application/json either way).
func (n *Node) Request(ctx context.Context, method, path, auth string, body any) (Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return Response{}, fmt.Errorf("marshal body: %w", err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, n.URL+path, rd)
	if err != nil {
		return Response{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := n.c.HTTP.Do(req)
	if err != nil {
		return Response{}, fmt.Errorf("node %d: %s %s: %w", n.Index, method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("node %d: %s %s: read body: %w", n.Index, method, path, err)
	}
	return Response{Method: method, Path: path, Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// Do is Request for a test's own goroutine: an error fails t.
func (n *Node) Do(t testing.TB, method, path, auth string, body any) Response {
	t.Helper()
	r, err := n.Request(context.Background(), method, path, auth, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Expect is Do checking the status.
func (n *Node) Expect(t testing.TB, status int, method, path, auth string, body any) Response {
	t.Helper()
	r := n.Do(t, method, path, auth, body)
	if r.Status != status {
		t.Fatalf("node %d: %s, want %d", n.Index, r, status)
	}
	return r
}

// Admin sends an admin API request (path relative to /admin/v1) to this
// node and decodes an object answer with the given status into out
// (which may be nil).
func (n *Node) Admin(ctx context.Context, method, path string, body any, status int, out any) error {
	r, err := n.Request(ctx, method, "/admin/v1"+path, n.c.AdminAuth(), body)
	if err != nil {
		return err
	}
	if r.Status != status {
		return fmt.Errorf("node %d: %s, want %d", n.Index, r, status)
	}
	if out != nil {
		return r.Decode(out)
	}
	return nil
}

// Member is a user who is a member of the app's guild, with a client
// token (the bare Authorization value a chat client sends).
type Member struct {
	ID     string
	Client string
}

// NewMember creates a user, makes them a member of the app's guild
// without roles and mints their client token, through node 0.
func (c *Cluster) NewMember(ctx context.Context, name string) (Member, error) {
	n := c.Nodes[0]
	var u struct{ ID string }
	if err := n.Admin(ctx, "POST", "/users", map[string]any{"username": name}, 201, &u); err != nil {
		return Member{}, err
	}
	if err := n.Admin(ctx, "PUT", "/guilds/"+c.App.GuildID+"/members/"+u.ID, map[string]any{"roles": []string{}}, 201,
		nil); err != nil {
		return Member{}, err
	}
	var tok struct{ Token string }
	if err := n.Admin(ctx, "POST", "/users/"+u.ID+"/tokens", map[string]any{"type": "client"}, 201, &tok); err != nil {
		return Member{}, err
	}
	return Member{ID: u.ID, Client: tok.Token}, nil
}

// NewChannel creates a text channel in the app's guild through node 0.
func (c *Cluster) NewChannel(ctx context.Context, name string) (string, error) {
	var ch struct{ ID string }
	err := c.Nodes[0].Admin(ctx, "POST", "/guilds/"+c.App.GuildID+"/channels", map[string]any{"name": name, "type": 0},
		201, &ch)
	return ch.ID, err
}

// NewSchema creates an empty schema on the PostgreSQL server serverDSN
// names and returns a DSN whose connections work in it, and a function
// that drops it. It is pgtest.DSN without a testing.T.
func NewSchema(ctx context.Context, serverDSN string) (dsn string, drop func(context.Context) error, err error) {
	db, err := sql.Open("pgx", serverDSN)
	if err != nil {
		return "", nil, err
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		db.Close()
		return "", nil, err
	}
	schema := "slashd_bench_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	drop = func(ctx context.Context) error {
		defer db.Close()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	if dsn, err = withParam(serverDSN, "search_path", schema); err != nil {
		_ = drop(ctx)
		return "", nil, err
	}
	return dsn, drop, nil
}

// withParam adds a parameter to a URL or key=value DSN.
func withParam(dsn, key, value string) (string, error) {
	if !strings.Contains(dsn, "://") {
		return dsn + " " + key + "=" + value, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("DSN: %w", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// ---- gateway ----

// Frame is a gateway payload as the server sends it.
type Frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

// Name is a dispatch's event name ("" for other opcodes).
func (f Frame) Name() string {
	if f.T == nil {
		return ""
	}
	return *f.T
}

// Seq is a dispatch's sequence number (0 when null).
func (f Frame) Seq() int64 {
	if f.S == nil {
		return 0
	}
	return *f.S
}

func (f Frame) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

// Ready is the part of READY the harness reads.
type Ready struct {
	SessionID        string `json:"session_id"`
	ResumeGatewayURL string `json:"resume_gateway_url"`
}

// Gateway is a raw websocket client of one node's gateway.
type Gateway struct {
	Node *Node
	WS   *websocket.Conn
}

// DialGateway connects to the node's gateway (?v=10&encoding=json).
func (n *Node) DialGateway(ctx context.Context) (*Gateway, error) {
	u := strings.Replace(n.URL, "http", "ws", 1) + "/gateway?v=10&encoding=json"
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		return nil, fmt.Errorf("node %d: dial the gateway: %w", n.Index, err)
	}
	ws.SetReadLimit(1 << 20)
	return &Gateway{Node: n, WS: ws}, nil
}

// Send writes {"op": op, "d": d}.
func (g *Gateway) Send(ctx context.Context, op int, d any) error {
	b, err := json.Marshal(map[string]any{"op": op, "d": d})
	if err != nil {
		return err
	}
	return g.WS.Write(ctx, websocket.MessageText, b)
}

// Read reads one frame.
func (g *Gateway) Read(ctx context.Context) (Frame, error) {
	typ, data, err := g.WS.Read(ctx)
	if err != nil {
		return Frame{}, err
	}
	if typ != websocket.MessageText {
		return Frame{}, fmt.Errorf("a %v message, want text", typ)
	}
	var f Frame
	if err := json.Unmarshal(data, &f); err != nil {
		return Frame{}, fmt.Errorf("decode frame %s: %w", data, err)
	}
	return f, nil
}

// ReadDispatch reads one frame that must be a dispatch named name.
func (g *Gateway) ReadDispatch(ctx context.Context, name string) (Frame, error) {
	f, err := g.Read(ctx)
	if err != nil {
		return f, fmt.Errorf("node %d: waiting for %s: %w", g.Node.Index, name, err)
	}
	if f.Op != 0 || f.Name() != name || f.S == nil {
		return f, fmt.Errorf("node %d: got %s, want dispatch %s", g.Node.Index, f, name)
	}
	return f, nil
}

// Hello reads the Hello frame.
func (g *Gateway) Hello(ctx context.Context) error {
	f, err := g.Read(ctx)
	if err != nil {
		return fmt.Errorf("node %d: waiting for Hello: %w", g.Node.Index, err)
	}
	if f.Op != 10 {
		return fmt.Errorf("node %d: got %s, want Hello", g.Node.Index, f)
	}
	return nil
}

// Identify reads Hello, identifies with token and intents and reads
// READY.
func (g *Gateway) Identify(ctx context.Context, token string, intents uint64) (Ready, error) {
	if err := g.Hello(ctx); err != nil {
		return Ready{}, err
	}
	if err := g.Send(ctx, 2, map[string]any{"token": token, "intents": intents,
		"properties": map[string]string{"os": "linux", "browser": "clustertest", "device": "clustertest"}}); err != nil {
		return Ready{}, err
	}
	f, err := g.ReadDispatch(ctx, "READY")
	if err != nil {
		return Ready{}, err
	}
	var r Ready
	if err := json.Unmarshal(f.D, &r); err != nil || r.SessionID == "" {
		return Ready{}, fmt.Errorf("READY without a session: %s (%v)", f.D, err)
	}
	return r, nil
}

// Resume reads Hello and asks to resume session after seq (op 6); the
// replayed dispatches and RESUMED follow.
func (g *Gateway) Resume(ctx context.Context, token, session string, seq int64) error {
	if err := g.Hello(ctx); err != nil {
		return err
	}
	return g.Send(ctx, 6, map[string]any{"token": token, "session_id": session, "seq": seq})
}

// Close closes the connection with 1000 (ending the session).
func (g *Gateway) Close() error { return g.WS.Close(websocket.StatusNormalClosure, "") }

// Drop closes the connection without a close frame (resumable).
func (g *Gateway) Drop() error { return g.WS.CloseNow() }

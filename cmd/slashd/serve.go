package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/datadir"
	"github.com/slashd/slashd/internal/demo"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/event/natsbus"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/realip"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/ui"
	"github.com/slashd/slashd/internal/worlds"
)

type serveConfig struct {
	addr        string
	dataDir     string
	store       string // a postgres:// URL; empty: SQLite in dataDir
	rateLimit   bool
	ui          bool // serve the playground UI at /
	journal     int  // journal entries kept per test world (0: off)
	limits      abuseLimits
	logLevel    slog.Level
	nats        string // NATS URL(s) of the cluster's event bus; "" = in-process
	natsPrefix  string // subject prefix: clusters sharing one NATS server keep apart
	nodeID      int    // the snowflake node (0-1023); -1: 0 alone, random with a shared store
	logFormat   string // text or json
	metricsAddr string // serve /metrics there only; "": on addr
	pprofAddr   string // serve the profiler there; "": off
	secrets     secrets.Config
	// trustedProxies may name the client in X-Forwarded-For; empty:
	// the connection's address is the client's.
	trustedProxies realip.Trusted
	// worlds are the --world files applied at start.
	worlds worldFiles
	// sweep is how often ended rate-limit windows are deleted from a
	// shared store; 0: every 30 s (tests shorten it).
	sweep time.Duration
	// noDemo: a first start makes no demo, only the admin token
	// (`slashd test --world`, whose worlds are the test's own).
	noDemo bool
	// publicURL is where clients reach slashd: the links of uploaded
	// files start with it ("": each request's own host). filesQuota
	// bounds the stored files' bytes; uploadBudget the multipart bytes a
	// node reads at once.
	publicURL                string
	filesQuota, uploadBudget byteSize
}

// windowSweep is how often the janitor deletes ended rate-limit windows.
func (c serveConfig) windowSweep() time.Duration {
	if c.sweep > 0 {
		return c.sweep
	}
	return 30 * time.Second
}

// snowflakeNode is the node number of this process's ids: nodes sharing
// a store must not make the same id in the same millisecond.
func (c serveConfig) snowflakeNode() uint16 {
	switch {
	case c.nodeID >= 0:
		return uint16(c.nodeID)
	case c.store == "":
		return 0
	}
	return uint16(mathrand.IntN(1024))
}

// defaultAddr is where serve listens, and where the other commands find
// it, unless told otherwise.
const defaultAddr = "127.0.0.1:8080"

// addrFlag registers --addr (SLASHD_ADDR).
func addrFlag(fs *flagSet, p *string, usage string) {
	fs.envString(p, "addr", defaultAddr, usage)
}

// serveFlags registers serve's flags on fs. The function it returns
// checks them once parsed and makes the configuration.
func serveFlags(fs *flagSet) func() (serveConfig, error) {
	cfg := serveConfig{}
	// --help lists the flags by section, alphabetically within each.
	fs.section("essentials")
	addrFlag(fs, &cfg.addr, "listen address, host:port (0.0.0.0:PORT listens on every interface, as in a container)")
	dataFlag(fs, &cfg.dataDir)
	fs.envBool(&cfg.ui, "ui", true, "serve the playground web UI at / (--ui=false turns it off)")
	fs.envInt(&cfg.journal, "journal-entries", journal.DefaultKeep,
		"journal entries each test world keeps, the oldest dropped first (GET /admin/v1/worlds/{world}/events; 0: no journal)")
	fs.envBool(&cfg.rateLimit, "ratelimit", true, "enforce rate limits like the real service (--ratelimit=false turns them off)")
	var level, proxies string
	fs.envString(&level, "log-level", "info", "debug, info, warn or error")
	worldFlag(fs, &cfg.worlds)
	fs.envString(&cfg.publicURL, "public-url", "",
		"the `URL` clients reach slashd at (https://slashd.example.com behind a proxy): uploaded files' links start with it; unset: each request's own scheme and host")
	cfg.filesQuota, cfg.uploadBudget = byteSize(api.DefaultFilesQuota), byteSize(api.DefaultUploadBudget)
	fs.envText(&cfg.filesQuota, "files-quota", cfg.filesQuota,
		"the most bytes of uploaded files kept (`SIZE`: 1GiB, 500MB, …); past it the oldest files go, their links then 404")
	fs.envText(&cfg.uploadBudget, "upload-budget", cfg.uploadBudget,
		"the most bytes of multipart bodies (files being uploaded) a node reads at once (`SIZE`); more uploads wait their turn")

	fs.section("production (a database server; logs, metrics and profiles for your tooling)")
	storeFlag(fs, &cfg.store)
	observeFlags(fs, &cfg)

	fs.section("cluster (several nodes sharing one PostgreSQL store)")
	fs.envString(&cfg.nats, "nats", "",
		"NATS server `URLS`, comma-separated (nats://host:4222): share events with the other slashd nodes; unset: in-process")
	fs.envString(&cfg.natsPrefix, "nats-prefix", "slashd.events", "NATS subject prefix of this cluster's events")
	fs.envInt(&cfg.nodeID, "node-id", -1,
		"this node's id in the snowflakes it makes, 0-1023, distinct per node of a cluster (-1: 0 alone, random with --store)")

	fs.section("security (secrets at rest, reverse proxies, abuse budgets)")
	secretKeyFlags(fs, &cfg.secrets)
	fs.envString(&proxies, "trusted-proxies", "",
		"reverse proxies whose X-Forwarded-For names the client, as comma-separated `NETWORKS` (CIDRs or addresses); "+
			"the client's address then counts for rate limits, abuse budgets and logs; unset: the connection's address")
	abuseLimitFlags(fs, &cfg.limits)
	return func() (serveConfig, error) {
		if err := cfg.logLevel.UnmarshalText([]byte(level)); err != nil {
			return cfg, fmt.Errorf("--log-level: %w", err)
		}
		trusted, err := realip.Parse(proxies)
		if err != nil {
			return cfg, fmt.Errorf("--trusted-proxies: %w", err)
		}
		cfg.trustedProxies = trusted
		if err := cfg.checkObserve(); err != nil {
			return cfg, err
		}
		if err := checkPublicURL(cfg.publicURL); err != nil {
			return cfg, err
		}
		if cfg.filesQuota <= 0 || cfg.uploadBudget <= 0 {
			return cfg, fmt.Errorf("--files-quota and --upload-budget must be more than 0")
		}
		if cfg.nodeID > 1023 {
			return cfg, fmt.Errorf("--node-id %d: must be 0-1023", cfg.nodeID)
		}
		return cfg, nil
	}
}

// defineServe is `slashd serve`.
func defineServe(fs *flagSet) runFunc {
	config := serveFlags(fs)
	return func(ctx context.Context, out io.Writer) error {
		cfg, err := config()
		if err != nil {
			return err
		}
		return serve(ctx, cfg, out, nil)
	}
}

// parseServeFlags reads serve's command line and environment.
func parseServeFlags(args []string, getenv func(string) string) (serveConfig, error) {
	fs := newFlagSet("serve", getenv)
	config := serveFlags(fs)
	if err := fs.parse(args); err != nil {
		return serveConfig{}, err
	}
	return config()
}

// serve runs the HTTP server until ctx ends. ready, if set, is told the
// listening address (tests listen on port 0).
func serve(ctx context.Context, cfg serveConfig, stdout io.Writer, ready func(addr string)) error {
	log := newLogger(stdout, cfg.logFormat, cfg.logLevel)
	build := currentBuild()
	// Read and checked before anything is written: a bad spec stops the
	// start with its errors' paths.
	worldSpecs, err := readWorldFiles(cfg.worlds.paths)
	if err != nil {
		return err
	}
	// Before anything is written to the data directory: a second server
	// on it stops here, having changed nothing.
	lock, err := lockDataDir(cfg, log)
	if err != nil {
		return err
	}
	defer lock.release()
	// Said before anything slow (opening and migrating the store), so a
	// start is never silent.
	log.Info("slashd starting", "version", build.Version, "addr", cfg.addr, "data", cfg.dataDir, "store", describeStore(cfg.store))
	st, err := openStore(ctx, cfg.store, cfg.dataDir, cfg.secrets, log)
	if err != nil {
		return err
	}
	defer st.Close()

	ln, err := listen("addr", cfg.addr)
	if err != nil {
		return err
	}
	baseURL := baseURLOf(ln.Addr().String())
	lock.listening(ln.Addr().String(), baseURL, log)
	ids := snowflake.NewGenerator(cfg.snowflakeNode(), nil)
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	// JSON logs keep stdout to JSON lines: the first run's credentials
	// are then only in the file (the start line says where).
	if err := firstRun(ctx, env, demoModeOf(cfg, worldSpecs), cfg.dataDir, baseURL, stdout, cfg.logFormat != logJSON); err != nil {
		ln.Close()
		return err
	}
	upgradeBootstrap(ctx, env, cfg.dataDir, log)
	followAddress(cfg.dataDir, baseURL, log)
	// Before the server answers anything, /healthz included: a client
	// that saw it healthy finds every world there.
	if err := applyWorlds(ctx, worlds.Env{Store: st, IDs: ids.Next, Rand: rand.Reader, Now: time.Now}, worldSpecs, log); err != nil {
		ln.Close()
		return err
	}

	var events event.Bus // nil: the API's in-process bus
	var bus *natsbus.Bus
	if cfg.nats != "" {
		if bus, err = connectNATS(cfg.nats, cfg.natsPrefix, ln.Addr().String(), log); err != nil {
			ln.Close()
			return err
		}
		// Closes the connection if serve returns early; after the
		// drain below it does nothing.
		defer bus.Close()
		events = bus
	}

	apiCfg := api.DefaultConfig()
	apiCfg.RateLimit = cfg.rateLimit
	// Message events feed the playground's live chat; without it nobody
	// reads them (in a cluster, run every node with the same --ui).
	apiCfg.MessageEventsOff = !cfg.ui
	apiCfg.JournalEntries = max(cfg.journal, 0)
	apiCfg.Build = build
	apiCfg.PublicURL, apiCfg.FilesQuota, apiCfg.UploadBudget = cfg.publicURL, int64(cfg.filesQuota), int64(cfg.uploadBudget)
	cfg.limits.apply(&apiCfg)
	// A PostgreSQL store may serve several nodes: they count the rate
	// limits there, so that the limits hold across them.
	apiCfg.SharedRateLimits = cfg.store != ""
	apiCfg.ServeMetrics = cfg.metricsAddr == ""
	// Caches (internal/store/cache): nodes of a cluster invalidate each
	// other's over NATS; a shared store without NATS gets none, since a
	// node could not learn what another changed.
	switch {
	case cfg.nats != "":
		apiCfg.Cache = api.CacheShared
	case cfg.store != "":
		apiCfg.Cache = api.CacheOff
	}
	handler := api.New(apiCfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader, Logger: log, Events: events})
	if bus != nil {
		guardCache(bus.Conn(), handler)
	}
	metricsSide, pprofSide, err := startSideServers(cfg, handler.Metrics().Handler(), log)
	if err != nil {
		handler.Shutdown(ctx)
		ln.Close()
		return err
	}
	// Last to go: the metrics stay readable while the API drains.
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		metricsSide.shutdown(ctx)
		pprofSide.shutdown(ctx)
	}()
	janitorCtx, stopJanitor := context.WithCancel(ctx)
	defer stopJanitor()
	go handler.RunJanitor(janitorCtx, 10*time.Minute, cfg.windowSweep())
	var root http.Handler = handler
	var playground *ui.Handler
	if cfg.ui {
		playground = ui.New(ui.Config{API: handler, Sessions: handler.Store(), Logger: log, Events: handler.Events()})
		handler.OnDelivery(playground.Record)
		root = playground
		// Its live streams never end on their own: end them first, or
		// http.Server.Shutdown would wait for them.
		defer playground.Close()
	}
	srv := &http.Server{
		Handler:           cfg.trustedProxies.Handler(root),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Info("slashd listening", startAttrs(cfg, ids.Node(), baseURL, metricsSide, pprofSide)...)
	if playground != nil {
		announceUI(stdout, playground, cfg, baseURL, log)
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("slashd shutting down", "gateway_connections", handler.Gateway().Stats().Connections)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	// Gateway clients are told to reconnect (op 7) before the listener
	// goes: http.Server.Shutdown does not close websockets.
	handler.Shutdown(shutdownCtx)
	if playground != nil {
		playground.Close()
	}
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	// Last, so what the API published while finishing its requests
	// still reaches the other nodes.
	if bus != nil {
		if err := bus.Drain(shutdownCtx); err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
	}
	log.Info("slashd stopped")
	return nil
}

// dataDirLock is serve's hold on its data directory (see
// internal/datadir); nil where the platform has no file locks.
type dataDirLock struct {
	lock   *datadir.Lock
	holder datadir.Holder
}

// lockDataDir takes cfg's data directory for this process, or says who
// holds it.
func lockDataDir(cfg serveConfig, log *slog.Logger) (*dataDirLock, error) {
	h := datadir.Holder{PID: os.Getpid(), Addr: cfg.addr, Started: time.Now().UTC()}
	l, err := datadir.Acquire(cfg.dataDir, h)
	switch {
	case errors.Is(err, datadir.ErrUnsupported):
		log.Warn("the data directory cannot be locked on this platform: make sure one server at a time runs on it",
			"data", cfg.dataDir)
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &dataDirLock{lock: l, holder: h}, nil
}

// listening records where the server listens, for the message a second
// server on the directory gives. Failing to is logged, never fatal.
func (d *dataDirLock) listening(addr, url string, log *slog.Logger) {
	if d == nil {
		return
	}
	d.holder.Addr, d.holder.URL = addr, url
	if err := d.lock.Update(d.holder); err != nil {
		log.Warn("could not record the address in the data directory's lock", "err", err)
	}
}

func (d *dataDirLock) release() {
	if d != nil {
		d.lock.Release()
	}
}

// listen listens on addr, the value of the flag --flagName; an address
// in use is told with what to do about it.
func listen(flagName, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case isAddrInUse(err):
		return nil, &addrInUseError{flag: flagName, addr: addr, err: err}
	}
	return nil, fmt.Errorf("listen on %s: %w", addr, err)
}

// addrInUseError is a listen on an address something else listens on.
type addrInUseError struct {
	flag, addr string
	err        error
}

func (e *addrInUseError) Error() string {
	return fmt.Sprintf("listen on %s: address already in use (by another slashd? `slashd healthcheck --addr %s` tells); "+
		"choose another with --%s HOST:PORT (or %s)", e.addr, e.addr, e.flag, envName(e.flag))
}

func (e *addrInUseError) Unwrap() error { return e.err }

// isAddrInUse reports whether err is a listen's on an address in use.
func isAddrInUse(err error) bool {
	if errors.Is(err, syscall.EADDRINUSE) {
		return true
	}
	// Windows' WSAEADDRINUSE is no syscall.EADDRINUSE.
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "address already in use") || strings.Contains(msg, "only one usage of each socket address")
}

// startAttrs are the start line's: where the API is, what it stores
// where, where the credentials file is, and the side listeners.
func startAttrs(cfg serveConfig, node uint16, baseURL string, metricsSide, pprofSide *sideServer) []any {
	attrs := []any{"url", baseURL, "node", node, "store", describeStore(cfg.store), "data", cfg.dataDir}
	creds := filepath.Join(cfg.dataDir, bootstrap.FileName)
	if _, err := os.Stat(creds); err != nil {
		creds = "none in the data directory (another node's, or deleted)"
	}
	attrs = append(attrs, "credentials", creds, "ratelimit", cfg.rateLimit)
	if len(cfg.trustedProxies) > 0 {
		attrs = append(attrs, "trusted_proxies", cfg.trustedProxies.String())
	}
	metrics := baseURL + "/metrics"
	if metricsSide != nil {
		metrics = metricsSide.url + "/metrics"
	}
	attrs = append(attrs, "metrics", metrics)
	if pprofSide != nil {
		attrs = append(attrs, "pprof", pprofSide.url+"/debug/pprof/")
	}
	return attrs
}

// baseURLOf is the URL clients reach a server listening on addr at: a
// wildcard host (0.0.0.0, ::, none) is reached on the loopback address.
func baseURLOf(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// followAddress keeps bootstrap.json's base_url on the address the
// server now listens on. The file is a convenience: failing to update it
// is logged, never fatal.
func followAddress(dataDir, baseURL string, log *slog.Logger) {
	old, err := bootstrap.SetBaseURL(dataDir, baseURL)
	switch {
	case err != nil:
		log.Warn("could not update bootstrap.json's base_url", "err", err)
	case old != "":
		log.Info("bootstrap.json follows the new address", "base_url", baseURL, "was", old)
	}
}

// upgradeBootstrap completes a bootstrap.json written before the demo
// guild had its #general and the owner a client token (see
// bootstrap.Upgrade). Like followAddress, a failure is logged, never
// fatal: the file is a convenience.
func upgradeBootstrap(ctx context.Context, env bootstrap.Env, dataDir string, log *slog.Logger) {
	added, err := bootstrap.Upgrade(ctx, env, dataDir)
	switch {
	case err != nil:
		log.Warn("could not complete bootstrap.json", "err", err)
	case len(added) > 0:
		log.Info("bootstrap.json completed", "added", strings.Join(added, ","))
	}
}

// connectNATS connects the node listening on addr to the event bus at
// url (see natsbus.Connect: it reconnects forever once connected).
func connectNATS(url, prefix, addr string, log *slog.Logger) (*natsbus.Bus, error) {
	nc, err := natsbus.Connect(url, "slashd "+addr, natsbus.Logging(log))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", redactURL(url), err)
	}
	// Ordered: the gateway numbers every node's events alike (see
	// internal/gateway/cluster.go).
	bus, err := natsbus.New(nc, natsbus.Options{Logger: log, Prefix: prefix, Ordered: true})
	if err != nil {
		nc.Close()
		return nil, err
	}
	log.Info("event bus on NATS", "url", nc.ConnectedUrlRedacted(), "prefix", bus.Prefix())
	return bus, nil
}

// guardCache keeps the API's caches exact across NATS trouble: while the
// connection is down other nodes' invalidations may be lost, so reads go
// to the store; on reconnection, or when the client dropped messages (a
// slow consumer), the caches are emptied. The connection's existing
// callbacks (natsbus.Logging) still run.
func guardCache(nc *nats.Conn, h *api.Server) {
	disconnected, reconnected, asyncErr := nc.Opts.DisconnectedErrCB, nc.Opts.ReconnectedCB, nc.Opts.AsyncErrorCB
	nc.SetDisconnectErrHandler(func(c *nats.Conn, err error) {
		h.SuspendCache()
		if disconnected != nil {
			disconnected(c, err)
		}
	})
	nc.SetReconnectHandler(func(c *nats.Conn) {
		h.ResumeCache()
		if reconnected != nil {
			reconnected(c)
		}
	})
	nc.SetErrorHandler(func(c *nats.Conn, sub *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) {
			h.ResumeCache()
		}
		if asyncErr != nil {
			asyncErr(c, sub, err)
		}
	})
}

// redactURL hides the password of NATS URLs (user:pass@host) in
// messages.
func redactURL(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		if u, err := neturl.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			parts[i] = u.Redacted()
		}
	}
	return strings.Join(parts, ",")
}

// demoMode is what a first start makes of the demo.
type demoMode int

const (
	// demoWorld: the demo is the test world "demo", the node's default
	// world (internal/demo).
	demoWorld demoMode = iota
	// demoNoWorld: the demo is made in no world (world 0), as before it
	// was a world, when a --world file takes the name "demo": that
	// world is the file's.
	demoNoWorld
	// demoNone: no demo, only the admin token (slashd test --world).
	demoNone
)

// demoModeOf is cfg's demo, given the --world files it applies.
func demoModeOf(cfg serveConfig, files []worldFile) demoMode {
	if cfg.noDemo {
		return demoNone
	}
	for _, f := range files {
		if f.spec.Name == demo.WorldName {
			return demoNoWorld
		}
	}
	return demoWorld
}

// firstRun bootstraps a demo on a store with no application and, with
// showTryIt, prints how to try it.
func firstRun(ctx context.Context, env bootstrap.Env, mode demoMode, dataDir, baseURL string, out io.Writer, showTryIt bool) error {
	n, err := env.Store.CountApplications(ctx)
	if err != nil || n > 0 {
		return err
	}
	// Nodes of a cluster may start together on an empty store: one of
	// them bootstraps, the others wait for its application.
	owner, err := randomOwner()
	if err != nil {
		return err
	}
	claimed, err := env.Store.ClaimFirstRun(ctx, owner, env.Now(), firstRunStale)
	if err != nil {
		return err
	}
	if !claimed {
		return waitForBootstrap(ctx, env)
	}
	// The credentials are shown once: make sure they can be written
	// before anything is created.
	if err := checkWritable(dataDir); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	creds, err := makeDemo(ctx, env, mode, baseURL)
	if err != nil {
		return err
	}
	if creds.AdminToken, err = bootstrap.CreateAdminToken(ctx, env); err != nil {
		return err
	}
	if err := bootstrap.WriteFile(dataDir, creds); err != nil {
		// Only hashes are stored: print the secrets rather than lose them.
		b, _ := jsonenc.MarshalIndent(creds, "", "  ")
		fmt.Fprintf(out, "could not write %s; the credentials are:\n%s\n", bootstrap.FileName, b)
		return err
	}
	if showTryIt && mode != demoNone {
		fmt.Fprint(out, tryIt(creds, filepath.Join(dataDir, bootstrap.FileName)))
	}
	return nil
}

// makeDemo makes the demo of mode and returns its credentials.
func makeDemo(ctx context.Context, env bootstrap.Env, mode demoMode, baseURL string) (bootstrap.Credentials, error) {
	switch mode {
	case demoNone:
		return bootstrap.Credentials{BaseURL: baseURL}, nil
	case demoNoWorld:
		creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "demo", GuildName: "demo guild", BaseURL: baseURL})
		if err != nil {
			return creds, fmt.Errorf("bootstrap demo app: %w", err)
		}
		if _, err := bootstrap.Furnish(ctx, env, &creds); err != nil {
			return creds, fmt.Errorf("bootstrap demo channel: %w", err)
		}
		return creds, nil
	}
	return demo.Create(ctx, env, baseURL)
}

// firstRunStale is how long a bootstrap claim holds before another node
// may take it over (its claimer died before finishing).
const firstRunStale = time.Minute

// waitForBootstrap waits until the node that claimed the first run has
// created its application.
func waitForBootstrap(ctx context.Context, env bootstrap.Env) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	deadline := time.After(firstRunStale)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return errors.New("bootstrap: another node claimed the first run and has not finished; start again")
		case <-t.C:
		}
		n, err := env.Store.CountApplications(ctx)
		if err != nil || n > 0 {
			return err
		}
	}
}

// checkWritable makes dataDir and checks a file can be written there.
func checkWritable(dataDir string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dataDir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dataDir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

func randomOwner() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func tryIt(c bootstrap.Credentials, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nslashd: created a demo application; credentials are in %s\n\n", path)
	fmt.Fprintf(&b, "Try it:\n\n  curl -s -X POST %s/api/v10/applications/%s/guilds/%s/commands \\\n", c.BaseURL, c.ApplicationID, c.GuildID)
	fmt.Fprintf(&b, "    -H 'Authorization: Bot %s' \\\n", c.BotToken)
	fmt.Fprintf(&b, "    -H 'Content-Type: application/json' \\\n")
	fmt.Fprintf(&b, "    -d '{\"name\":\"ping\",\"description\":\"Replies with pong\"}'\n\n")
	if c.WorldName != "" {
		fmt.Fprintf(&b, "The demo is the test world %q, the default world: what the admin API creates without\n"+
			"a world_id joins it, and POST %s/admin/v1/worlds/%s/reset puts it back as it was made.\n\n",
			c.WorldName, c.BaseURL, c.WorldName)
	}
	return b.String()
}

// announceUI says where the playground is. With text logs and an admin
// token in bootstrap.json (this data directory's first run made it), it
// prints a one-time login link, as notebook servers do; JSON logs keep
// stdout to JSON lines and secrets out of them, so they only say where
// the UI is.
func announceUI(out io.Writer, h *ui.Handler, cfg serveConfig, baseURL string, log *slog.Logger) {
	var creds bootstrap.Credentials
	raw, err := os.ReadFile(filepath.Join(cfg.dataDir, bootstrap.FileName))
	if err == nil {
		err = json.Unmarshal(raw, &creds)
	}
	if cfg.logFormat == logJSON || err != nil || creds.AdminToken == "" {
		log.Info("playground UI", "url", baseURL+"/", "login", "the admin token")
		return
	}
	link, err := h.LoginLink(baseURL, creds.AdminToken)
	if err != nil {
		log.Warn("playground UI: no login link", "err", err)
		return
	}
	fmt.Fprintf(out, "\nslashd: playground UI at %s/ ; log in once with this link (it works one time):\n\n  %s\n\n", baseURL, link)
}

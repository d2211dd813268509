// Package api is slashd's HTTP interface: the commands API under /api/v10
// (also /api/v9 and /api, which libraries use), the OAuth2 server
// (internal/oauth) mounted under the same prefixes, the admin API
// (internal/adminapi) mounted under /admin/v1, and health. Handlers
// decode, call the domain and store, and render; every error goes through
// one function, so that all of them carry the real service's JSON
// envelope.
package api

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/buildinfo"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/fault"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	cachepkg "github.com/slashd/slashd/internal/store/cache"
	"github.com/slashd/slashd/internal/store/timed"
	"github.com/slashd/slashd/internal/webhook"
)

// Config tunes the server.
type Config struct {
	// MessageEventsOff stops publishing the MESSAGE_CREATE/UPDATE/DELETE
	// events no bot gets on the event bus (message_events.go): only the
	// playground reads those. serve turns them off with --ui=false,
	// which saves a bus publish per such message written (a NATS round
	// trip in a cluster).
	MessageEventsOff bool
	// JournalEntries is how many journal entries each test world keeps
	// (docs/journal.md); 0 turns the journal off (nothing recorded).
	JournalEntries int
	// FaultsPerWorld caps each test world's faults, spent ones included
	// (docs/faults.md; 0: fault.DefaultMaxPerWorld).
	FaultsPerWorld int
	// RateLimit turns the rate limiter on (the default in production).
	RateLimit bool
	// SharedRateLimits counts in the store rather than in memory, so
	// that the limits hold across the nodes of a cluster.
	SharedRateLimits bool
	// GlobalLimit is the per-token (or per-IP) global limit: 50/s.
	GlobalLimit ratelimit.Limit
	// ReadLimit and WriteLimit are the per-route bucket sizes.
	ReadLimit  ratelimit.Limit
	WriteLimit ratelimit.Limit
	// AuthFailureLimit is how many requests answered 401 (a missing or
	// bad token) a client address may make per window on the routes that
	// take a credential (and IDENTIFYs or RESUMEs with a bad token on the
	// gateway): the real service's invalid request limit, 10,000 per 10
	// minutes. Past it, until the window ends, the address's failures get
	// a global 429 instead, and its credentials are looked up only when
	// known to be valid (or for a trickle): valid ones are still served.
	// It counts in this process even with SharedRateLimits, and applies
	// whether RateLimit is on or not; the zero Limit turns it off. See
	// abuse.go and docs/compat.md.
	AuthFailureLimit ratelimit.Limit
	// LoginAccountLimit and LoginAddressLimit are how many password
	// checks the consent page's login form makes per login name and per
	// client address per window; the zero Limit turns one off.
	LoginAccountLimit ratelimit.Limit
	LoginAddressLimit ratelimit.Limit
	// RateLimitKeys caps the keys each in-memory limiter holds
	// (ratelimit.DefaultMaxKeys when 0).
	RateLimitKeys int
	// MaxBodyBytes caps request bodies (a multipart message body with
	// files may be up to interaction.MaxMessageRequest).
	MaxBodyBytes int64
	// PublicURL is the base URL clients reach slashd at, which the links
	// of uploaded files start with ("": each request's own scheme and
	// Host).
	PublicURL string
	// FilesQuota bounds the bytes of all uploaded files kept (the oldest
	// are evicted past it; 0: no bound). UploadBudget bounds the bytes of
	// multipart bodies this node reads at once (0: DefaultUploadBudget).
	FilesQuota, UploadBudget int64
	// RenderCache is how many rendered list items (and, separately,
	// decoded commands) are kept (0 disables).
	RenderCache int
	// Cache says how the store's hottest reads are cached in memory
	// (see internal/store/cache): CacheLocal when this process is the
	// only one writing the store (other processes may only create rows,
	// as the CLI does), CacheShared when other nodes write it and
	// publish their invalidations on the same event bus, CacheOff
	// otherwise.
	Cache CacheMode
	// CacheEntries bounds each cached map (tokens, applications, guilds,
	// installations; 0: cache.DefaultEntries); CacheBytes the cached
	// commands and, separately, the rendered command lists and the
	// rendered GUILD_CREATEs (0: cache.DefaultCommandBytes).
	CacheEntries, CacheBytes int
	// Gateway tunes the websocket gateway (zero values: the real one's).
	Gateway gateway.Config
	// Build is the version GET /healthz reports.
	Build buildinfo.Info
	// ServeMetrics serves GET /metrics on the API's address; without it
	// the caller serves Server.Metrics where it wants (another listener).
	ServeMetrics bool
}

// acceptedCredentials bounds the credentials remembered as valid (for
// addresses over their failure budget): far more than the bots and
// clients one server has.
const acceptedCredentials = 100_000

// DefaultConfig is what `slashd serve` runs with.
func DefaultConfig() Config {
	return Config{
		RateLimit:   true,
		GlobalLimit: ratelimit.Limit{Count: 50, Window: time.Second},
		ReadLimit:   ratelimit.Limit{Count: 50, Window: time.Second},
		WriteLimit:  ratelimit.Limit{Count: 25, Window: 5 * time.Second},
		// docs/compat.md ("Abuse limits") says why these budgets.
		AuthFailureLimit:  ratelimit.Limit{Count: 10_000, Window: 10 * time.Minute},
		LoginAccountLimit: ratelimit.Limit{Count: 10, Window: 15 * time.Minute},
		LoginAddressLimit: ratelimit.Limit{Count: 30, Window: 15 * time.Minute},
		RateLimitKeys:     ratelimit.DefaultMaxKeys,
		MaxBodyBytes:      8 << 20,
		FilesQuota:        DefaultFilesQuota,
		UploadBudget:      DefaultUploadBudget,
		RenderCache:       100_000,
		JournalEntries:    journal.DefaultKeep,
		Cache:             CacheLocal,
		Gateway:           gateway.DefaultConfig(),
		Build:             buildinfo.Read(buildinfo.Info{}),
		ServeMetrics:      true,
	}
}

// CacheMode: see Config.Cache.
type CacheMode int

const (
	CacheOff CacheMode = iota
	CacheLocal
	CacheShared
)

// Deps are the server's collaborators, injected so tests control time,
// ids and randomness.
type Deps struct {
	Store store.Store
	IDs   *snowflake.Generator
	Now   func() time.Time
	// AfterFunc sets timers on Now's clock (nil: time.AfterFunc): the
	// gateway's heartbeat watchdogs, the end of an interaction's answer
	// window.
	AfterFunc func(d time.Duration, f func()) gateway.Timer
	Rand      io.Reader
	Logger    *slog.Logger
	// Events receives what the API publishes (permission updates); nil
	// means an in-memory bus nobody listens to yet.
	Events event.Bus
}

// Server serves the API.
type Server struct {
	cfg   Config
	store store.Store
	// outbox is the store beneath the metrics, where the world events'
	// poll looks for changes (world_events.go); claiming lets one claim
	// of this process run at a time.
	outbox   store.WorldEvents
	claiming sync.Mutex
	ids      *snowflake.Generator
	now      func() time.Time
	// afterFunc sets a timer on now's clock.
	afterFunc func(time.Duration, func()) gateway.Timer
	rand      io.Reader
	log       *slog.Logger
	limiter   ratelimit.Checker
	// failures counts authentication failures per client address (nil:
	// not limited); lookups, the credential lookups of addresses over
	// their budget; accepted remembers the credentials accepted.
	failures *ratelimit.Limiter
	lookups  *ratelimit.Limiter
	accepted *credentialSet
	renders  *cache[renderKey, []byte]
	decoded  *cache[versionKey, command.Command]
	events   event.Bus
	// cache is the caching store (nil: CacheOff); lists the rendered
	// command lists, under the version of the list they render.
	cache *cachepkg.Store
	lists *bodyCache[listKey, uint64]
	// creates keeps identify's rendered GUILD_CREATEs (gateway.go:
	// guildCreateKey); guildCreateRenders counts the renders, cached or
	// not, for the tests that tell a served body from a rendered one.
	creates            *bodyCache[guildCreateKey, cachepkg.MemberViewStamp]
	guildCreateRenders atomic.Uint64
	webhooks           *webhook.Deliverer
	answers            answerWaiters
	// pending holds records of invocations being delivered, when
	// holdRecords (this node is its store's only writer).
	pending     pendingRecords
	holdRecords bool
	oauth       *oauth.Server
	gateway     *gateway.Gateway
	stop        context.CancelFunc // ends the gateway's event loop
	metrics     *serverMetrics
	mux         *http.ServeMux
	// fileKey signs the links of uploaded files; uploads bounds the
	// multipart bytes held at once (files.go).
	fileKey fileKey
	uploads uploadBudget
	// deliveryHook observes deliveries (OnDelivery); nil: none.
	deliveryHook atomic.Pointer[func(Delivery)]
	// registered lists the mux's patterns (Routes).
	registered []string
	// faults are the test worlds' faults this node applies (faults.go).
	faults *fault.Engine
	// journal records the test worlds' journal (nil: off); journalWaiters
	// wake its long-polls (journal.go).
	journal        *journal.Recorder
	journalWaiters *journal.Waiters
	// principalWorlds remembers principals' worlds (worldtime.go).
	principalWorlds principalWorlds
}

// New builds the server and its routes.
func New(cfg Config, d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.AfterFunc == nil {
		d.AfterFunc = gateway.RealAfterFunc
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.Rand == nil {
		d.Rand = rand.Reader
	}
	if d.Events == nil {
		d.Events = event.NewMemory()
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultConfig().MaxBodyBytes
	}
	s := &Server{
		cfg: cfg, ids: d.IDs, now: d.Now, afterFunc: d.AfterFunc, rand: d.Rand, log: d.Logger,
		renders: newCache[renderKey, []byte](cfg.RenderCache),
		decoded: newCache[versionKey, command.Command](cfg.RenderCache), events: d.Events,
		mux: http.NewServeMux(),
	}
	// An endpoint's inline answer with files may be as large as a
	// message request, within the upload budget.
	s.webhooks = webhook.New(webhook.Config{Now: d.Now, MaxMultipartBytes: interaction.MaxMessageRequest,
		Reserve: s.reserveUpload})
	s.metrics = newServerMetrics(time.Now(), func() gateway.Stats { return s.gateway.Stats() })
	s.uploads.limit = cfg.UploadBudget
	if s.uploads.limit <= 0 {
		s.uploads.limit = DefaultUploadBudget
	}
	s.metrics.registry.GaugeFunc("slashd_upload_bytes_in_flight",
		"Bytes of multipart request bodies (message files) this node holds the upload budget for.",
		func() float64 { return float64(s.uploads.inFlight()) })
	// A store that other processes may write (SQLite: the CLI) keeps a
	// world clock, which tells the cache when they changed the world.
	var worldClock func(context.Context) (int64, error)
	if c, ok := d.Store.(interface {
		WorldClock() func(context.Context) (int64, error)
	}); ok {
		worldClock = c.WorldClock()
	}
	// The world events' poll reads beneath the metrics, as the world
	// clock is read: an idle server's ten looks a second are no traffic.
	s.outbox = d.Store
	// Every store call is timed, whoever makes it (the API, the OAuth2
	// server, the gateway's directory, the rate limiter, the janitor).
	d.Store = timed.New(d.Store, s.metrics.observeStore)
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	if cfg.Cache != CacheOff {
		// Outside the timing: the metrics count what reaches the store.
		s.cache = cachepkg.New(ctx, d.Store, cachepkg.Options{Bus: d.Events, Shared: cfg.Cache == CacheShared,
			Entries: cfg.CacheEntries, CommandBytes: cfg.CacheBytes, Logger: d.Logger, WorldClock: worldClock,
			OnGap: s.metrics.busGap(gapCache)})
		s.lists = newBodyCache[listKey, uint64](cfg.CacheBytes)
		s.creates = newBodyCache[guildCreateKey, cachepkg.MemberViewStamp](cfg.CacheBytes)
		d.Store = s.cache
	}
	s.store, s.limiter = d.Store, newRateLimiter(cfg, d)
	// Only a node that is its store's only writer may hold an
	// invocation's record until its answer: another node could not see it.
	s.holdRecords = cfg.Cache == CacheLocal
	// Message events feed the playground and the gateway's MESSAGE_*
	// dispatches; MessageEventsOff publishes only those a bot gets.
	s.store = messageEvents{Store: d.Store, bus: s.events, ui: !cfg.MessageEventsOff, bots: s.messageBots}
	s.startJournal(ctx, cfg, d)
	if cfg.AuthFailureLimit.On() {
		s.failures = ratelimit.NewWithMaxKeys(d.Now, cfg.RateLimitKeys)
		s.lookups = ratelimit.NewWithMaxKeys(d.Now, cfg.RateLimitKeys)
		s.accepted = newCredentialSet(acceptedCredentials)
	}
	s.oauth = oauth.New(oauth.Deps{Store: d.Store, IDs: d.IDs, Now: d.Now, Rand: d.Rand, Logger: d.Logger,
		Wrap: s.wrapPublic, Guard: s.guardCredential, Limiter: s.limiter,
		Logins: oauth.LoginLimits{Account: cfg.LoginAccountLimit, Address: cfg.LoginAddressLimit}})
	s.startFaults(ctx, d.Store)
	s.faults.OnFired(s.journalFault) // a fault that fires is journaled in its world
	gcfg := cfg.Gateway
	gcfg.Faults = gatewayFaults{s}
	gcfg.Now, gcfg.AfterFunc, gcfg.Logger, gcfg.Limiter = d.Now, d.AfterFunc, d.Logger, s.limiter
	gcfg.OnBusGap = s.metrics.busGap(gapGateway)
	if s.journal != nil {
		gcfg.Observe = s.journalGateway
	}
	s.gateway = gateway.New(gcfg, gatewayDirectory{s}, s.events)
	// Both listen to the bus from now on: a node started beside others
	// must not miss a session started there a moment later.
	s.gateway.Start(ctx)
	s.watchFaults(ctx)
	go s.wakeOnAnswers(s.events.Subscribe(ctx, 1024))
	go s.tailWorld(ctx)
	s.routes()
	return s
}

// Store is the store as the server uses it: writes made through it keep
// the server's caches (and, with CacheShared, the other nodes') exact;
// a write made around it to a row the caches hold (a guild's, an app's,
// an installation's, a token's, commands) may not be seen.
func (s *Server) Store() store.Store { return s.store }

// SuspendCache makes reads bypass the caches: call it when the event bus
// loses its connection (other nodes' invalidations may be lost);
// ResumeCache, when it is back (or lost messages), empties them and
// uses them again. Without caches they do nothing.
func (s *Server) SuspendCache() {
	if s.cache != nil {
		s.cache.Suspend()
	}
}

// ResumeCache: see SuspendCache.
func (s *Server) ResumeCache() {
	if s.cache != nil {
		s.cache.Resume()
	}
}

// Shutdown asks the gateway's clients to reconnect (op 7), closes their
// connections and stops the gateway's event loop. http.Server.Shutdown
// does not close websockets (they are hijacked): call this first.
func (s *Server) Shutdown(ctx context.Context) {
	s.gateway.Shutdown(ctx)
	s.stop()
	s.journal.Close(ctx) // what is queued is written
}

// Kill makes this server look crashed to the rest of a cluster (for
// failover tests): its gateway connections drop without a word, it stops
// announcing itself and reading the bus. Its HTTP listener is the
// caller's to close.
func (s *Server) Kill() {
	s.stop()
	s.gateway.Abandon()
}

// Gateway is the websocket gateway (for tests and benchmarks).
func (s *Server) Gateway() *gateway.Gateway { return s.gateway }

// newRateLimiter counts in the store when the nodes share it, else in
// this process (one node).
func newRateLimiter(cfg Config, d Deps) ratelimit.Checker {
	if cfg.SharedRateLimits {
		return ratelimit.NewShared(d.Store, d.Now)
	}
	return ratelimit.Local{L: ratelimit.NewWithMaxKeys(d.Now, cfg.RateLimitKeys)}
}

// OAuth is the OAuth2 server the API mounts (its consent page issues
// codes through it).
func (s *Server) OAuth() *oauth.Server { return s.oauth }

// wrapPublic puts a handler another package serves (the OAuth2
// endpoints) behind the rate limiter of unauthenticated routes.
func (s *Server) wrapPublic(pattern string, h http.Handler) http.Handler {
	return s.wrap(pattern, publicRoute, func(w http.ResponseWriter, r *http.Request) error {
		h.ServeHTTP(w, r)
		return nil
	})
}

// via is the Via header of every answer under /api: the real service's
// answers pass Google's load balancer, which adds "Via: 1.1 google"
// (discord-api-docs#1463), and discord.py (http.py) reads a 429 without
// Via as Cloudflare's ban and raises instead of waiting.
const via = "1.1 google"

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if p := r.URL.Path; p == "/api" || strings.HasPrefix(p, "/api/") {
		w.Header().Set("Via", via) // before any handler: errors, 429s and 404s too
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeJSON(rec, http.StatusInternalServerError, map[string]any{"message": "500: Internal Server Error", "code": 0})
		}
		took := time.Since(start)
		// The mux has set r.Pattern: the route, whatever the path.
		s.metrics.observeRequest(r.Pattern, r.Method, rec.status, took)
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", took)
	}()
	s.mux.ServeHTTP(rec, r)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Hijack lets the gateway take the connection over for its websocket.
func (r *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	r.status = http.StatusSwitchingProtocols
	return h.Hijack()
}

// Unwrap gives http.ResponseController the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// requestContext bounds store work done for one request.
func requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 30*time.Second)
}

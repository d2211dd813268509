// Package gateway is slashd's websocket gateway: bots connect to it with
// unmodified libraries (discordgo, discord.js, disgo), identify with their
// bot token, and receive INTERACTION_CREATE (for apps without an
// Interactions Endpoint URL) and APPLICATION_COMMAND_PERMISSIONS_UPDATE
// from the internal event bus, the world's changes (GUILD_*, CHANNEL_*,
// THREAD_*, GUILD_ROLE_*, GUILD_MEMBER_*) and MESSAGE_* as their intents
// ask, GUILD_MEMBERS_CHUNK when they ask (op 8), with sequence numbers, heartbeats, resume
// and the real gateway's close codes (api-facts §6).
//
// Sessions live in this process's memory: a dropped connection can resume
// its session (and get what it missed) within the resume window.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
)

// ErrUnknownToken is what a Directory returns for a token that is not a
// bot token.
var ErrUnknownToken = errors.New("unknown bot token")

// Directory is what the gateway reads of the rest of slashd.
type Directory interface {
	// Bot authenticates a bot token ("Bot …" or bare) and returns its
	// application; ErrUnknownToken if it is none.
	Bot(ctx context.Context, token string) (Bot, error)
	// Guilds returns the guilds of q's shard that the app's bot is in,
	// each as the GUILD_CREATE object the libraries read when
	// q.WithCreate is true (a session without the GUILDS intent gets
	// none, and rendering them is most of an identify's work). It reads
	// no other shard's guild: an identify costs what its shard holds,
	// not what the bot holds. More than q.Max of them:
	// ErrShardingRequired, with none rendered.
	Guilds(ctx context.Context, appID snowflake.ID, q GuildsQuery) ([]Guild, error)
	// Members returns the members q selects of a guild the app's bot is
	// in, by user id, each as GUILD_CREATE renders a member;
	// ErrUnknownGuild if the bot is not in the guild (or there is none).
	Members(ctx context.Context, appID, guildID snowflake.ID, q MemberQuery) ([]Member, error)
}

// ErrUnknownGuild is what a Directory returns for a guild its bot is not
// in.
var ErrUnknownGuild = errors.New("the bot is not in the guild")

// ErrShardingRequired is what a Directory returns for a shard holding
// more guilds than a GuildsQuery's Max.
var ErrShardingRequired = errors.New("more guilds in the shard than a shard may hold")

// GuildsQuery is what an identify asks the Directory for: the bot's
// guilds of one shard, those with (guild_id >> 22) % Shards == Shard
// (Shards 1: all of them).
type GuildsQuery struct {
	Shard, Shards int
	WithCreate    bool // with each guild's GUILD_CREATE object
	Max           int  // more guilds than this: ErrShardingRequired (0: no limit)
}

// MemberQuery selects members: with UserIDs not nil, those users;
// otherwise those whose username starts with Prefix, case-insensitively
// ("" for all), at most Limit of them (0: no limit).
type MemberQuery struct {
	UserIDs []snowflake.ID
	Prefix  string
	Limit   int
}

// Member is one member of a guild.
type Member struct {
	UserID snowflake.ID
	Object json.RawMessage // the guild member object
}

// Bot is an application as the gateway sees it.
type Bot struct {
	ApplicationID snowflake.ID
	Flags         uint64
	User          json.RawMessage // the bot's user object for READY
	// InteractionsEndpointURL is where the app's interactions go
	// instead of its gateway sessions ("": to the sessions).
	InteractionsEndpointURL string
}

// Guild is one guild of a bot.
type Guild struct {
	ID     snowflake.ID
	Create json.RawMessage // the GUILD_CREATE data (nil when not asked for)
}

// Config tunes the gateway.
type Config struct {
	// HeartbeatInterval is what Hello tells clients (the real gateway's
	// 41.25 s); a connection silent for 1.5 intervals is closed (4009).
	HeartbeatInterval time.Duration
	// IdentifyTimeout is how long a connection may stay without sending
	// IDENTIFY or RESUME (60 s); then it is closed 4009, heartbeats or
	// not. docs/compat.md says why.
	IdentifyTimeout time.Duration
	// MaxConnsPerAddress caps the open connections of one client
	// address (ratelimit.AddressKey of the request's RemoteAddr, which
	// internal/realip sets behind trusted proxies): more are refused
	// with a 429 before the upgrade. 0: DefaultConfig's 1000; negative:
	// no cap.
	MaxConnsPerAddress int
	// ResumeWindow is how long a dropped session stays resumable.
	ResumeWindow time.Duration
	// ReplayLimit is how many dispatches a session keeps for resume.
	ReplayLimit int
	// SendLimit is how many payloads a client may send per SendWindow
	// (120 per 60 s); more closes with 4008.
	SendLimit  int
	SendWindow time.Duration
	// MaxPayload is the largest payload a client may send (4096 bytes);
	// larger closes with 4002.
	MaxPayload int
	// GuildsPerShard is how many guilds a shard may hold before 4011.
	GuildsPerShard int
	// MemberRequestWindow is how often a bot may ask for all the members
	// of one guild (op 8 with query "" and limit 0: once per 30 s); more
	// are answered RATE_LIMITED.
	MemberRequestWindow time.Duration
	// Limiter counts those requests (nil: in this process). A limiter
	// the nodes share makes the limit hold across a cluster.
	Limiter ratelimit.Checker
	// Node names this process among the nodes sharing the bus (random
	// when empty).
	Node string
	// Now is the clock, and AfterFunc sets the heartbeat watchdogs on it
	// (nil: time.Now and time.AfterFunc). A test clock fires them when it
	// is moved past their deadline.
	Now       func() time.Time
	AfterFunc func(d time.Duration, f func()) Timer
	Logger    *slog.Logger
	// OnBusGap is called when the gateway's bus subscription lost
	// events to its full buffer (sessions may have missed dispatches);
	// nil: only logged.
	OnBusGap func()
	// Faults are test worlds' faults on the send path (faults.go); nil:
	// none.
	Faults Faults
	// Observe, when set, is told of sessions identified, resumed and
	// closed and of every dispatch written (the test worlds' journal);
	// it runs on the connection's goroutines and must be quick.
	Observe func(Observation)
}

// Timer is a timer AfterFunc started (*time.Timer is one).
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// RealAfterFunc is time.AfterFunc, as an AfterFunc of Config.
func RealAfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// DefaultConfig is the real gateway's numbers, and slashd's own where
// the real gateway's are not known (IdentifyTimeout) or have no
// counterpart (MaxConnsPerAddress).
func DefaultConfig() Config {
	return Config{HeartbeatInterval: 41250 * time.Millisecond, IdentifyTimeout: time.Minute, MaxConnsPerAddress: 1000,
		ResumeWindow: 5 * time.Minute, ReplayLimit: 1000,
		SendLimit: 120, SendWindow: time.Minute, MaxPayload: 4096, GuildsPerShard: 2500,
		MemberRequestWindow: 30 * time.Second}
}

// RecommendedShards is the shard count GET /gateway/bot recommends to a
// bot in guilds guilds: one shard per 1,000 guilds, as the real service
// recommends, which is two fifths of its 2,500-guild limit. A gateway
// configured with another limit keeps the same proportion, so a bot that
// follows the recommendation never has a shard closed with 4011 for
// holding too many guilds when its guilds spread evenly over the shards.
func (g *Gateway) RecommendedShards(guilds int) int {
	perShard := max(1, g.cfg.GuildsPerShard*2/5)
	return max(1, (guilds+perShard-1)/perShard)
}

// Gateway accepts connections and dispatches events to their sessions.
type Gateway struct {
	cfg     Config
	dir     Directory
	bus     event.Bus
	log     *slog.Logger
	started time.Time
	// compressors are lent to zlib-stream and zstd-stream connections
	// one message at a time (compress.go).
	compressors compressorPools
	// frameBuffers lend flushers the buffer a dispatch's frame is
	// written out in (*[]byte): sessions keep a dispatch's shared data,
	// not a frame each, and a fan-out's flushers (one per connection)
	// would otherwise allocate one each.
	frameBuffers sync.Pool

	mu       sync.Mutex
	sessions map[string]*session
	byApp    map[snowflake.ID]map[*session]struct{}
	conns    map[*conn]struct{}
	// perAddress counts the connections of each client address, from
	// before the upgrade to the socket's close (MaxConnsPerAddress).
	perAddress map[string]int
	seen       map[string]time.Time     // when each other node last said it was alive
	syncs      map[string]chan struct{} // this node's sync markers on their way (catchUp)
	closing    bool
	// readers counts the sessions (any node's) whose intents ask for
	// messages (GUILD_MESSAGES or DIRECT_MESSAGES).
	readers int
}

// New makes a gateway on bus (nil: no bus, sessions start at once and
// nothing is dispatched); Start feeds it the bus's events.
func New(cfg Config, dir Directory, bus event.Bus) *Gateway {
	def := DefaultConfig()
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = def.HeartbeatInterval
	}
	if cfg.IdentifyTimeout <= 0 {
		cfg.IdentifyTimeout = def.IdentifyTimeout
	}
	if cfg.MaxConnsPerAddress == 0 {
		cfg.MaxConnsPerAddress = def.MaxConnsPerAddress
	}
	if cfg.ResumeWindow <= 0 {
		cfg.ResumeWindow = def.ResumeWindow
	}
	if cfg.ReplayLimit <= 0 {
		cfg.ReplayLimit = def.ReplayLimit
	}
	if cfg.SendLimit <= 0 || cfg.SendWindow <= 0 {
		cfg.SendLimit, cfg.SendWindow = def.SendLimit, def.SendWindow
	}
	if cfg.MaxPayload <= 0 {
		cfg.MaxPayload = def.MaxPayload
	}
	if cfg.GuildsPerShard <= 0 {
		cfg.GuildsPerShard = def.GuildsPerShard
	}
	if cfg.MemberRequestWindow <= 0 {
		cfg.MemberRequestWindow = def.MemberRequestWindow
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AfterFunc == nil {
		cfg.AfterFunc = RealAfterFunc
	}
	if cfg.Limiter == nil {
		cfg.Limiter = ratelimit.Local{L: ratelimit.New(cfg.Now)}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Node == "" {
		cfg.Node, _ = newSessionID()
	}
	return &Gateway{cfg: cfg, dir: dir, bus: bus, log: cfg.Logger, started: cfg.Now(), sessions: map[string]*session{},
		byApp: map[snowflake.ID]map[*session]struct{}{}, conns: map[*conn]struct{}{}, perAddress: map[string]int{},
		seen: map[string]time.Time{}, syncs: map[string]chan struct{}{},
		frameBuffers: sync.Pool{New: func() any { return new([]byte) }}}
}

// Start subscribes to the bus, then, until ctx ends, dispatches its
// events to the sessions of their apps, applies the other nodes' session
// events, says this node is alive and forgets sessions whose resume
// window has passed. Every event published after Start returns reaches
// the gateway.
func (g *Gateway) Start(ctx context.Context) {
	if g.bus == nil {
		return
	}
	go g.run(ctx, g.bus.Subscribe(ctx, 8192))
}

func (g *Gateway) run(ctx context.Context, events <-chan event.Event) {
	sweep := time.NewTicker(min(max(g.cfg.ResumeWindow/4, time.Second), aliveInterval))
	defer sweep.Stop()
	g.announceAlive()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			if e.AfterGap {
				g.log.Warn("gateway: the event bus dropped events for this node (its subscription buffer was full): " +
					"sessions may have missed dispatches")
				if g.cfg.OnBusGap != nil {
					g.cfg.OnBusGap()
				}
			}
			switch {
			case dispatched[e.Type]:
				g.Dispatch(e)
			case worldIntents[e.Type] != 0:
				g.dispatchWorld(e)
			case isMessageEvent(e.Type):
				g.dispatchMessage(e)
			default:
				g.control(e)
			}
		case <-sweep.C:
			g.announceAlive()
			g.forgetExpired()
		case <-ctx.Done():
			return
		}
	}
}

// dispatched says which bus events go to every session of their app
// (world and message events go to the apps they name: world.go).
var dispatched = map[string]bool{
	event.InteractionCreate:                   true,
	event.ApplicationCommandPermissionsUpdate: true,
}

// Dispatch sends one event to every session of its app whose shard holds
// its guild. It never blocks on a connection: each session buffers.
func (g *Gateway) Dispatch(e event.Event) {
	if !dispatched[e.Type] {
		return
	}
	data, err := jsonenc.Marshal(e.Data)
	if err != nil {
		g.log.Error("gateway: encode event", "type", e.Type, "err", err)
		return
	}
	g.mu.Lock()
	targets := make([]*session, 0, len(g.byApp[e.ApplicationID]))
	for s := range g.byApp[e.ApplicationID] {
		if s.holds(e.GuildID) && !s.isPending() {
			targets = append(targets, s)
		}
	}
	g.mu.Unlock()
	for _, s := range targets {
		s.dispatch(e.Type, data)
	}
}

// Sessions counts the live sessions (connected or resumable).
func (g *Gateway) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// Stats counts what this node holds, for its metrics.
type Stats struct {
	// Connections are the open websocket connections, identified or not.
	Connections int
	// Connected are this node's sessions with a connection.
	Connected int
	// Resumable are this node's sessions waiting for their client to
	// resume (within the resume window).
	Resumable int
}

// Stats counts this node's connections and sessions (the shadows of
// other nodes' sessions are theirs to count).
func (g *Gateway) Stats() Stats {
	g.mu.Lock()
	st := Stats{Connections: len(g.conns)}
	all := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		all = append(all, s)
	}
	g.mu.Unlock()
	for _, s := range all {
		switch connected, ours := s.state(); {
		case !ours:
		case connected:
			st.Connected++
		default:
			st.Resumable++
		}
	}
	return st
}

// ReadsMessages reports whether a session on any node asks for
// messages: while none does, the API need not work out which bots see
// a message.
func (g *Gateway) ReadsMessages() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.readers > 0
}

func readsMessages(s *session) bool { return s.intents&(intentGuildMessages|intentDirectMessages) != 0 }

func (g *Gateway) addSession(s *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, known := g.sessions[s.id]; !known && readsMessages(s) {
		g.readers++
	}
	g.sessions[s.id] = s
	if g.byApp[s.appID] == nil {
		g.byApp[s.appID] = map[*session]struct{}{}
	}
	g.byApp[s.appID][s] = struct{}{}
}

func (g *Gateway) session(id string) *session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[id]
}

func (g *Gateway) removeSession(s *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sessions[s.id] == s && readsMessages(s) {
		g.readers--
	}
	delete(g.sessions, s.id)
	if m := g.byApp[s.appID]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(g.byApp, s.appID)
		}
	}
}

// forgetExpired drops sessions disconnected for longer than the resume
// window (a shadow counts as disconnected once its node went silent) and
// tells the other nodes about its own.
func (g *Gateway) forgetExpired() {
	now := g.cfg.Now()
	g.mu.Lock()
	all := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		all = append(all, s)
	}
	g.mu.Unlock()
	for _, s := range all {
		if owner, shadow := s.ownerNode(); shadow {
			if last, silent := g.silentSince(owner, now); silent {
				s.markLeft(last)
			}
		}
		if !s.expired(now, g.cfg.ResumeWindow) {
			continue
		}
		g.removeSession(s)
		if _, shadow := s.ownerNode(); !shadow {
			g.publish(eventSessionEnd, sessionEvent{Session: s.id, Node: g.cfg.Node})
		}
	}
}

// Shutdown asks every connected client to reconnect (op 7) and closes
// the connections, so that clients resume elsewhere (or here, once the
// server is back) without losing events.
func (g *Gateway) Shutdown(ctx context.Context) {
	g.mu.Lock()
	g.closing = true
	conns := make([]*conn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.reconnect(ctx)
		}()
	}
	wg.Wait()
}

// Abandon is what a node's crash looks like to its clients and to the
// other nodes: every connection drops without a close frame, nothing is
// announced, and the gateway stops listening. For tests of failover.
func (g *Gateway) Abandon() {
	g.mu.Lock()
	g.closing = true
	conns := make([]*conn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	g.mu.Unlock()
	for _, c := range conns {
		c.abandon()
	}
}

func (g *Gateway) addConn(c *conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return false
	}
	g.conns[c] = struct{}{}
	return true
}

func (g *Gateway) removeConn(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
}

// admit counts one more connection of a client address, unless the
// address has MaxConnsPerAddress open already; release uncounts it.
func (g *Gateway) admit(addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if max := g.cfg.MaxConnsPerAddress; max > 0 && g.perAddress[addr] >= max {
		return false
	}
	g.perAddress[addr]++
	return true
}

func (g *Gateway) release(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perAddress[addr]--; g.perAddress[addr] <= 0 {
		delete(g.perAddress, addr)
	}
}

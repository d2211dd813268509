package clienttest

// A disgo bot on slashd's gateway, built the way its README does it:
// disgo.New(token, bot.WithGatewayConfigOpts(…), listeners) and
// OpenGateway. Only the REST URL is given (rest.WithURL); disgo finds the
// websocket itself with GET /api/v10/gateway. Its websocket dials through
// netLink (gateway.WithDialer) so that the test can cut the connection.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disgoorg/disgo"
	"github.com/disgoorg/disgo/bot"
	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/events"
	"github.com/disgoorg/disgo/gateway"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/snowflake/v2"

	"github.com/slashd/slashd/internal/testenv"
)

// bridgeHandler is disgo's logger: it keeps what disgo logs as errors
// (for failure messages) and its Enabled is a synchronization point on
// the link.
//
// disgo v0.19.6's gateway shares fields between its listen goroutine and
// its heartbeat goroutine without locks (heartbeatCancel, the last
// sequence, the last ACK time, …), so the race detector reports disgo's
// own code whenever it closes or reconnects. The tests keep disgo within
// one heartbeat per connection and give its accesses an order the race
// detector can see, so that -race still checks slashd:
//   - every synchronization point disgo reaches in both goroutines goes
//     through netLink.order: the logger (Enabled is called by every
//     Debug), the connection's reads and writes, and a listener of every
//     event;
//   - a connection is closed or cut only after its first heartbeat was
//     ACKed (waitHeartbeat), and well before its second (disgo sends one
//     every heartbeatInterval after Hello): the second would read the ACK
//     time the listen goroutine wrote with nothing in between.
type bridgeHandler struct {
	l    *netLink
	errs *errorLog
}

type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (h bridgeHandler) Enabled(_ context.Context, level slog.Level) bool {
	h.l.touch()
	return level >= slog.LevelError
}

func (h bridgeHandler) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	h.errs.mu.Lock()
	defer h.errs.mu.Unlock()
	h.errs.msgs = append(h.errs.msgs, msg)
	return nil
}

func (h bridgeHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h bridgeHandler) WithGroup(string) slog.Handler      { return h }

func (l *errorLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "; ")
}

// disgoBot is a connected disgo bot that answers every command with
// "pong N" (N counts its answers) and reports what it receives.
type disgoBot struct {
	c            *bot.Client
	link         *netLink
	errs         *errorLog // what disgo logged as errors
	ready        chan *events.Ready
	guilds       chan *events.GuildReady
	interactions chan *events.ApplicationCommandInteractionCreate
	answered     chan error // CreateMessage's result, one per interaction
	perms        chan *events.GuildApplicationCommandPermissionsUpdate
	resumed      chan *events.Resumed
	n            atomic.Int64

	mu       sync.Mutex
	firstAck chan struct{} // closed at the current connection's first heartbeat ACK
	acked    bool
}

// connected notes a new connection (READY or RESUMED).
func (b *disgoBot) connected() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.firstAck, b.acked = make(chan struct{}), false
}

func (b *disgoBot) heartbeatACKed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.acked && b.firstAck != nil {
		close(b.firstAck)
		b.acked = true
	}
}

// waitHeartbeat waits until the current connection's first heartbeat has
// been ACKed (see bridgeHandler); false if it was not within d.
func (b *disgoBot) waitHeartbeat(d time.Duration) bool {
	b.mu.Lock()
	c := b.firstAck
	b.mu.Unlock()
	if c == nil { // never connected
		return false
	}
	select {
	case <-c:
		return true
	case <-time.After(d):
		return false
	}
}

// startDisgoBot connects a disgo bot with the gateway options given
// (after the link's dialer, so they may replace it). The server must run
// with fastHeartbeat (see bridgeHandler).
func startDisgoBot(t *testing.T, e *testenv.Env, opts ...gateway.ConfigOpt) *disgoBot {
	t.Helper()
	b := &disgoBot{link: newNetLink(), errs: &errorLog{},
		ready: make(chan *events.Ready, 8), guilds: make(chan *events.GuildReady, 8),
		interactions: make(chan *events.ApplicationCommandInteractionCreate, 8), answered: make(chan error, 8),
		perms: make(chan *events.GuildApplicationCommandPermissionsUpdate, 8), resumed: make(chan *events.Resumed, 8)}
	c, err := disgo.New(e.App.BotToken,
		bot.WithLogger(slog.New(bridgeHandler{b.link, b.errs})),
		bot.WithRestClientConfigOpts(rest.WithURL(e.URL+"/api/v10")),
		bot.WithGatewayConfigOpts(append([]gateway.ConfigOpt{gateway.WithIntents(gateway.IntentGuilds), gateway.WithDialer(b.link.dialer())}, opts...)...),
		bot.WithEventListeners(bot.NewListenerFunc(func(bot.Event) { b.link.touch() })),
		bot.WithEventListenerFunc(func(ev *events.HeartbeatAck) { b.heartbeatACKed() }),
		bot.WithEventListenerFunc(func(ev *events.Ready) { b.connected(); b.ready <- ev }),
		bot.WithEventListenerFunc(func(ev *events.GuildReady) { b.guilds <- ev }),
		bot.WithEventListenerFunc(func(ev *events.Resumed) { b.connected(); b.resumed <- ev }),
		bot.WithEventListenerFunc(func(ev *events.GuildApplicationCommandPermissionsUpdate) { b.perms <- ev }),
		bot.WithEventListenerFunc(func(ev *events.ApplicationCommandInteractionCreate) {
			b.interactions <- ev
			b.answered <- ev.CreateMessage(discord.MessageCreate{Content: fmt.Sprintf("pong %d", b.n.Add(1))})
		}),
	)
	if err != nil {
		t.Fatalf("disgo.New: %v", err)
	}
	b.c = c
	t.Cleanup(func() {
		b.waitHeartbeat(3 * heartbeatInterval)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.Close(ctx)
	})
	t.Cleanup(b.link.release) // runs first: a failed test may leave dials held
	// disgo waits 1 s before its first dial (then 2 s, 4 s… between failed
	// ones): one attempt.
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	if err := c.OpenGateway(ctx); err != nil {
		t.Fatalf("disgo OpenGateway: %v (disgo logged: %s)", err, b.errs)
	}
	return b
}

// command registers the guild command "ping" through disgo.
func (b *disgoBot) command(t *testing.T, w *gwWorld) discord.ApplicationCommand {
	t.Helper()
	cmd, err := b.c.Rest.CreateGuildCommand(b.c.ApplicationID, snowflake.MustParse(w.guild),
		discord.SlashCommandCreate{Name: "ping", Description: "Ping the bot"})
	if err != nil {
		t.Fatalf("create command: %v", err)
	}
	return cmd
}

// handled checks the interaction the bot got and that its answer went
// through.
func (b *disgoBot) handled(t *testing.T, w *gwWorld, cmd discord.ApplicationCommand) {
	t.Helper()
	i := recv(t, b.interactions, "INTERACTION_CREATE")
	if err := recv(t, b.answered, "CreateMessage"); err != nil {
		t.Errorf("CreateMessage: %v", err)
	}
	if i.ApplicationID().String() != w.app || i.GuildID() == nil || i.GuildID().String() != w.guild ||
		i.Channel().ID().String() != w.channel || i.Token() == "" || i.ID() == 0 {
		t.Errorf("interaction: app %s guild %v channel %s id %s", i.ApplicationID(), i.GuildID(), i.Channel().ID(), i.ID())
	}
	if m := i.Member(); m == nil || m.User.ID.String() != w.member {
		t.Errorf("interaction member: %+v", m)
	}
	if d := i.SlashCommandInteractionData(); d.CommandID() != cmd.ID() || d.CommandName() != "ping" {
		t.Errorf("interaction data: %+v", d)
	}
}

// putPerms sets one user overwrite with the owner's Bearer token (disgo
// has no permissions PUT).
func putPerms(t *testing.T, e *testenv.Env, w *gwWorld, cmd snowflake.ID, user string, allow bool) {
	t.Helper()
	path := "/api/v10/applications/" + w.app + "/guilds/" + w.guild + "/commands/" + cmd.String() + "/permissions"
	if r := e.Do("PUT", path, e.Owner(), permissionsBody(user, allow)); r.Status != http.StatusOK {
		t.Fatalf("PUT permissions: %d %s", r.Status, r.Body)
	}
}

func TestDisgoGatewayInteraction(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	// zlib-stream: the compression slashd implements (disgo's default,
	// zstd-stream, is TestDisgoGatewayDefaultCompression's).
	b := startDisgoBot(t, e, gateway.WithCompression(gateway.CompressionZlibStream))

	r := recv(t, b.ready, "READY")
	if r.Version != 10 || r.SessionID == "" || r.User.ID.String() != w.app || !r.User.Bot ||
		r.Application.ID.String() != w.app || r.ResumeGatewayURL != "ws"+e.URL[len("http"):]+"/gateway" || r.Shard != [2]int{0, 1} {
		t.Errorf("READY: %+v", r.EventReady)
	}
	if len(r.Guilds) != 1 || r.Guilds[0].ID.String() != w.guild {
		t.Errorf("READY guilds: %+v", r.Guilds)
	}
	g := recv(t, b.guilds, "GUILD_CREATE (disgo's GuildReady)")
	if g.Guild.ID.String() != w.guild || g.Guild.Unavailable {
		t.Errorf("GUILD_CREATE: %+v", g.Guild.Guild)
	}
	found := false
	for _, c := range g.Guild.Channels {
		found = found || (c.ID().String() == w.channel && c.Type() == discord.ChannelTypeGuildText && c.Name() == "general")
	}
	if !found {
		t.Errorf("GUILD_CREATE channels lack %s: %+v", w.channel, g.Guild.Channels)
	}

	// What disgo sent: one Identify, with its shard and intents, the bare
	// token.
	ids := b.link.payloads(2)
	if len(ids) != 1 {
		t.Fatalf("%d identifies sent", len(ids))
	}
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
		Shard   []int  `json:"shard"`
	}
	if err := json.Unmarshal(ids[0], &id); err != nil || id.Token != e.App.BotToken || id.Intents != int(gateway.IntentGuilds) ||
		len(id.Shard) != 2 || id.Shard[1] != 1 {
		t.Errorf("identify %s: %v", ids[0], err)
	}

	cmd := b.command(t, w)
	done := w.invoke(w.invocationBody(cmd.ID().String(), cmd.Name(), cmd.Version().String()))
	b.handled(t, w, cmd)
	msg := w.answer(t, done, "pong 1")
	w.stored(t, msg, "pong 1")

	putPerms(t, e, w, cmd.ID(), w.member, true)
	p := recv(t, b.perms, "APPLICATION_COMMAND_PERMISSIONS_UPDATE")
	if p.Permissions.ID != cmd.ID() || p.Permissions.ApplicationID.String() != w.app || p.Permissions.GuildID.String() != w.guild ||
		len(p.Permissions.Permissions) != 1 {
		t.Fatalf("APPLICATION_COMMAND_PERMISSIONS_UPDATE: %+v", p.Permissions)
	}
	if u, ok := p.Permissions.Permissions[0].(discord.ApplicationCommandPermissionUser); !ok || u.UserID.String() != w.member || !u.Permission {
		t.Errorf("permission: %#v", p.Permissions.Permissions[0])
	}
	// disgo's first heartbeat comes one interval after Hello; slashd ACKs
	// it.
	if !b.waitHeartbeat(gatewayTimeout) || len(b.link.payloads(1)) == 0 {
		t.Error("no heartbeat ACKed")
	}
	if len(b.link.payloads(6)) != 0 || len(b.ready) != 0 {
		t.Errorf("unexpected reconnect: %d resumes, %d more READY", len(b.link.payloads(6)), len(b.ready))
	}
}

func TestDisgoGatewayResume(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDisgoBot(t, e, gateway.WithCompression(gateway.CompressionZlibStream))
	r := recv(t, b.ready, "READY")
	cmd := b.command(t, w)
	// The overwrite toggled is the owner's, so that the member may still
	// run the command.
	setPerms := func(allow bool) { putPerms(t, e, w, cmd.ID(), e.App.OwnerUserID, allow) }
	allowed := func(p *events.GuildApplicationCommandPermissionsUpdate) bool {
		t.Helper()
		if p.Permissions.ID != cmd.ID() || len(p.Permissions.Permissions) != 1 {
			t.Fatalf("permissions update: %+v", p.Permissions)
		}
		u, ok := p.Permissions.Permissions[0].(discord.ApplicationCommandPermissionUser)
		if !ok {
			t.Fatalf("permission: %#v", p.Permissions.Permissions[0])
		}
		return u.Permission
	}
	setPerms(true)
	if !allowed(recv(t, b.perms, "the first permissions update")) {
		t.Fatal("first update: not allowed")
	}

	// The network drops; while disgo is away a permissions update and an
	// interaction are published.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bus := e.Events.Subscribe(ctx, 64)
	if !b.waitHeartbeat(gatewayTimeout) { // see bridgeHandler
		t.Fatal("no heartbeat ACKed")
	}
	b.link.cut()
	setPerms(false)
	done := w.invoke(w.invocationBody(cmd.ID().String(), cmd.Name(), cmd.Version().String()))
	w.awaitBusInteraction(t, bus, done)
	b.link.heldDial(t)
	b.link.release()

	recv(t, b.resumed, "RESUMED")
	if allowed(recv(t, b.perms, "the permissions update sent while away")) {
		t.Error("replayed update: allowed, want the update made while away")
	}
	b.handled(t, w, cmd)
	msg := w.answer(t, done, "pong 1")
	w.stored(t, msg, "pong 1")

	resumes := b.link.payloads(6)
	if len(resumes) != 1 {
		t.Fatalf("%d resumes sent", len(resumes))
	}
	var rs struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(resumes[0], &rs); err != nil || rs.SessionID != r.SessionID || rs.Token != e.App.BotToken || rs.Seq < 3 {
		t.Errorf("resume %s: %v (READY session %s)", resumes[0], err, r.SessionID)
	}
	if n := len(b.link.payloads(2)); n != 1 || len(b.ready) != 0 {
		t.Errorf("disgo identified again: %d identifies, %d more READY", n, len(b.ready))
	}

	setPerms(true)
	if !allowed(recv(t, b.perms, "the update after the resume")) {
		t.Error("after the resume, got a stale update")
	}
	if len(b.interactions) != 0 {
		t.Errorf("the interaction was delivered again")
	}
}

// TestDisgoGatewayDefaultCompression connects disgo with its default
// compression: it dials ?v=10&encoding=json&compress=zstd-stream (which
// the real gateway supports: one zstd stream over the connection, each
// payload a flushed binary frame) and reads only binary zstd frames, so
// a gateway that ignores the parameter and sends text frames fails its
// Hello ("expected binary message, received 1") and disgo retries
// forever.
func TestDisgoGatewayDefaultCompression(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDisgoBot(t, e)
	r := recv(t, b.ready, "READY")
	if r.SessionID == "" || r.User.ID.String() != w.app {
		t.Errorf("READY: %+v", r.EventReady)
	}
	// Dispatches after READY go through the same stream.
	g := recv(t, b.guilds, "GUILD_CREATE (disgo's GuildReady)")
	if g.Guild.ID.String() != w.guild {
		t.Errorf("GUILD_CREATE: %+v", g.Guild.Guild)
	}
}

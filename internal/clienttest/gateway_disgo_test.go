package clienttest

// A disgo bot on slashd's gateway, built as
// _examples/application_commands/gateway/example.go (disgo v0.19.6) builds
// it: disgo.New(token, bot.WithDefaultGateway(),
// bot.WithEventListenerFunc(commandListener)),
// client.Rest.SetGuildCommands, OpenGateway, and a listener answering
// /say with event.CreateMessage. Defaults kept: no intents, zstd-stream
// compression (one zstd stream over the connection, binary frames; a
// gateway sending text frames fails disgo's Hello), resume on a dropped
// connection. Only the REST URL is given (rest.WithURL); disgo finds the
// websocket itself with GET /api/v10/gateway. The disgoRaceKit's options
// are the one addition, for disgo's own data races (below).

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disgoorg/disgo"
	"github.com/disgoorg/disgo/bot"
	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/events"
	"github.com/disgoorg/disgo/gateway"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/snowflake/v2"

	"github.com/slashd/slashd/internal/clienttest/netlink"
	"github.com/slashd/slashd/internal/testenv"
)

// disgoRaceKit gives the race detector an order over disgo's goroutines.
//
// disgo v0.19.6's gateway shares fields between its listen goroutine, its
// heartbeat goroutine and Close without locks (heartbeatCancel, the last
// sequence, the last ACK time, …), so -race reports disgo's own code
// whenever a connection closes or reconnects. These options change nothing
// slashd sees (the same websocket, frames and events); they make disgo's
// accesses ordered for the race detector, so that -race still checks
// slashd and the tests:
//   - every synchronization point disgo reaches in both goroutines goes
//     through netlink.Link's order: the logger (Enabled is called by every
//     Debug), the connection's reads and writes (disgo dials through the
//     link), and a listener of every event;
//   - a connection is closed or cut only after its first heartbeat was
//     ACKed (waitHeartbeat), which orders the heartbeat goroutine's start,
//     and before its second: that one reads the ACK time the listen
//     goroutine wrote with nothing in between. So a test's connection
//     lives between one and two heartbeat intervals (the server's,
//     heartbeatInterval or exampleHeartbeatInterval).
type disgoRaceKit struct {
	link *netlink.Link
	errs *errorLog // what disgo logged as errors

	mu          sync.Mutex
	firstAck    chan struct{} // closed at the current connection's first heartbeat ACK
	acked       bool
	connectedAt time.Time
}

func newDisgoRaceKit(t *testing.T) *disgoRaceKit {
	k := &disgoRaceKit{link: netlink.New(), errs: &errorLog{}}
	t.Cleanup(k.link.Release) // a failed test may leave dials held
	return k
}

// options are the client options of the kit.
func (k *disgoRaceKit) options() []bot.ConfigOpt {
	return []bot.ConfigOpt{
		bot.WithLogger(slog.New(bridgeHandler{k.link, k.errs})),
		bot.WithGatewayConfigOpts(gateway.WithDialer(k.link.Dialer())),
		bot.WithEventListeners(bot.NewListenerFunc(func(bot.Event) { k.link.Touch() })),
		bot.WithEventListenerFunc(func(*events.HeartbeatAck) { k.heartbeatACKed() }),
		bot.WithEventListenerFunc(func(*events.Ready) { k.connected() }),
		bot.WithEventListenerFunc(func(*events.Resumed) { k.connected() }),
	}
}

// connected notes a new connection (READY or RESUMED).
func (k *disgoRaceKit) connected() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.firstAck, k.acked, k.connectedAt = make(chan struct{}), false, time.Now()
}

func (k *disgoRaceKit) heartbeatACKed() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.acked && k.firstAck != nil {
		close(k.firstAck)
		k.acked = true
	}
}

// waitHeartbeat waits until the current connection's first heartbeat has
// been ACKed; false if it was not within d.
func (k *disgoRaceKit) waitHeartbeat(d time.Duration) bool {
	k.mu.Lock()
	c := k.firstAck
	k.mu.Unlock()
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

// close closes client when the kit allows it (see disgoRaceKit): after
// the connection's first heartbeat ACK, and noting when a test kept it
// open past its second heartbeat (interval is the server's).
func (k *disgoRaceKit) close(t *testing.T, client *bot.Client, interval time.Duration) {
	if !k.waitHeartbeat(2 * interval) {
		t.Errorf("disgo's first heartbeat was not ACKed (disgo logged: %s)", k.errs)
	}
	k.mu.Lock()
	lived := time.Since(k.connectedAt)
	k.mu.Unlock()
	if lived > 2*interval {
		t.Logf("the connection lived %v, past disgo's second heartbeat: -race may report disgo's own races", lived)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client.Close(ctx)
}

// bridgeHandler is disgo's logger under the kit: it keeps what disgo logs
// as errors (for failure messages) and its Enabled is a synchronization
// point on the link.
type bridgeHandler struct {
	l    *netlink.Link
	errs *errorLog
}

type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (h bridgeHandler) Enabled(_ context.Context, level slog.Level) bool {
	h.l.Touch()
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

// sayCommands is the application_commands/gateway example's command list.
func sayCommands() []discord.ApplicationCommandCreate {
	return []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{
			Name:        "say",
			Description: "says what you say",
			Options: []discord.ApplicationCommandOption{
				discord.ApplicationCommandOptionString{Name: "message", Description: "What to say", Required: true},
				discord.ApplicationCommandOptionBool{Name: "ephemeral", Description: "If the response should only be visible to you", Required: true},
			},
		},
	}
}

// disgoBot is a connected disgo bot running the example's /say, which
// reports what it receives.
type disgoBot struct {
	c            *bot.Client
	kit          *disgoRaceKit
	link         *netlink.Link
	ready        chan *events.Ready
	interactions chan *events.ApplicationCommandInteractionCreate
	answered     chan error // CreateMessage's result, one per interaction
	perms        chan *events.GuildApplicationCommandPermissionsUpdate
	resumed      chan *events.Resumed
}

// startDisgoBot connects the example's bot; the server must run with
// fastHeartbeat (see disgoRaceKit).
func startDisgoBot(t *testing.T, e *testenv.Env) *disgoBot {
	t.Helper()
	kit := newDisgoRaceKit(t)
	b := &disgoBot{kit: kit, link: kit.link,
		ready:        make(chan *events.Ready, 8),
		interactions: make(chan *events.ApplicationCommandInteractionCreate, 8), answered: make(chan error, 8),
		perms: make(chan *events.GuildApplicationCommandPermissionsUpdate, 8), resumed: make(chan *events.Resumed, 8)}
	commandListener := func(event *events.ApplicationCommandInteractionCreate) {
		data := event.SlashCommandInteractionData()
		if data.CommandName() == "say" {
			b.interactions <- event
			b.answered <- event.CreateMessage(discord.NewMessageCreate().
				WithContent(data.String("message")).
				WithEphemeral(data.Bool("ephemeral")),
			)
		}
	}
	opts := append([]bot.ConfigOpt{
		bot.WithRestClientConfigOpts(rest.WithURL(e.URL + "/api/v10")),
		bot.WithDefaultGateway(),
		bot.WithEventListenerFunc(commandListener),
		// What the test watches for.
		bot.WithEventListenerFunc(func(ev *events.Ready) { b.ready <- ev }),
		bot.WithEventListenerFunc(func(ev *events.Resumed) { b.resumed <- ev }),
		bot.WithEventListenerFunc(func(ev *events.GuildApplicationCommandPermissionsUpdate) { b.perms <- ev }),
	}, kit.options()...)
	c, err := disgo.New(e.App.BotToken, opts...)
	if err != nil {
		t.Fatalf("error while building disgo instance: %v", err)
	}
	b.c = c
	t.Cleanup(func() { kit.close(t, c, heartbeatInterval) })
	if _, err := c.Rest.SetGuildCommands(c.ApplicationID, snowflake.MustParse(e.App.GuildID), sayCommands()); err != nil {
		t.Fatalf("error while registering commands: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gatewayTimeout)
	defer cancel()
	if err := c.OpenGateway(ctx); err != nil {
		t.Fatalf("error while connecting to gateway: %v (disgo logged: %s)", err, kit.errs)
	}
	// disgo waits 1 s before its first dial (then 2 s, 4 s… between failed
	// ones): the first one worked.
	if n := b.link.Dials(); n != 1 {
		t.Fatalf("disgo dialed %d times to connect, want once (disgo logged: %s)", n, kit.errs)
	}
	return b
}

// say is the member running /say.
func (w *gwWorld) say(t *testing.T, message string) map[string]any {
	t.Helper()
	return w.run(w.pick(t, "say"), option("message", 3, message), option("ephemeral", 5, false))
}

// handled checks the interaction the bot got and that its answer went
// through.
func (b *disgoBot) handled(t *testing.T, w *gwWorld, message string) {
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
	if d := i.SlashCommandInteractionData(); d.CommandName() != "say" || d.String("message") != message {
		t.Errorf("interaction data: %+v", d)
	}
}

// putPerms sets one user overwrite with the owner's Bearer token (disgo
// has no permissions PUT).
func putPerms(t *testing.T, e *testenv.Env, w *gwWorld, cmd, user string, allow bool) {
	t.Helper()
	path := "/api/v10/applications/" + w.app + "/guilds/" + w.guild + "/commands/" + cmd + "/permissions"
	if r := e.Do("PUT", path, e.Owner(), permissionsBody(user, allow)); r.Status != http.StatusOK {
		t.Fatalf("PUT permissions: %d %s", r.Status, r.Body)
	}
}

func TestDisgoGatewayInteraction(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDisgoBot(t, e)

	r := recv(t, b.ready, "READY")
	if r.Version != 10 || r.SessionID == "" || r.User.ID.String() != w.app || !r.User.Bot ||
		r.Application.ID.String() != w.app || r.ResumeGatewayURL != "ws"+e.URL[len("http"):]+"/gateway" || r.Shard != [2]int{0, 1} {
		t.Errorf("READY: %+v", r.EventReady)
	}
	if len(r.Guilds) != 1 || r.Guilds[0].ID.String() != w.guild {
		t.Errorf("READY guilds: %+v", r.Guilds)
	}

	// What disgo sent: one Identify, with its shard and default intents
	// (none), the bare token.
	ids := b.link.Payloads(2)
	if len(ids) != 1 {
		t.Fatalf("%d identifies sent", len(ids))
	}
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
		Shard   []int  `json:"shard"`
	}
	if err := json.Unmarshal(ids[0], &id); err != nil || id.Token != e.App.BotToken || id.Intents != int(gateway.IntentsDefault) ||
		len(id.Shard) != 2 || id.Shard[1] != 1 {
		t.Errorf("identify %s: %v", ids[0], err)
	}

	done := w.invoke(w.say(t, "hello from disgo"))
	b.handled(t, w, "hello from disgo")
	msg := w.answer(t, done, "hello from disgo")
	w.stored(t, msg, "hello from disgo")

	say := w.pick(t, "say")
	putPerms(t, e, w, say.ID, w.member, true)
	p := recv(t, b.perms, "APPLICATION_COMMAND_PERMISSIONS_UPDATE")
	if p.Permissions.ID.String() != say.ID || p.Permissions.ApplicationID.String() != w.app || p.Permissions.GuildID.String() != w.guild ||
		len(p.Permissions.Permissions) != 1 {
		t.Fatalf("APPLICATION_COMMAND_PERMISSIONS_UPDATE: %+v", p.Permissions)
	}
	if u, ok := p.Permissions.Permissions[0].(discord.ApplicationCommandPermissionUser); !ok || u.UserID.String() != w.member || !u.Permission {
		t.Errorf("permission: %#v", p.Permissions.Permissions[0])
	}
	// disgo's first heartbeat comes one interval after Hello; slashd ACKs
	// it.
	if !b.kit.waitHeartbeat(gatewayTimeout) || len(b.link.Payloads(1)) == 0 {
		t.Error("no heartbeat ACKed")
	}
	if len(b.link.Payloads(6)) != 0 || len(b.ready) != 0 {
		t.Errorf("unexpected reconnect: %d resumes, %d more READY", len(b.link.Payloads(6)), len(b.ready))
	}
}

func TestDisgoGatewayResume(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDisgoBot(t, e)
	r := recv(t, b.ready, "READY")
	say := w.pick(t, "say")
	// The overwrite toggled is the owner's, so that the member may still
	// run the command.
	setPerms := func(allow bool) { putPerms(t, e, w, say.ID, e.App.OwnerUserID, allow) }
	allowed := func(p *events.GuildApplicationCommandPermissionsUpdate) bool {
		t.Helper()
		if p.Permissions.ID.String() != say.ID || len(p.Permissions.Permissions) != 1 {
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
	if !b.kit.waitHeartbeat(gatewayTimeout) { // see disgoRaceKit
		t.Fatal("no heartbeat ACKed")
	}
	b.link.Cut()
	setPerms(false)
	done := w.invoke(w.say(t, "while you were away"))
	w.awaitBusInteraction(t, bus, done)
	b.link.HeldDial(t, gatewayTimeout)
	b.link.Release()

	recv(t, b.resumed, "RESUMED")
	if allowed(recv(t, b.perms, "the permissions update sent while away")) {
		t.Error("replayed update: allowed, want the update made while away")
	}
	b.handled(t, w, "while you were away")
	msg := w.answer(t, done, "while you were away")
	w.stored(t, msg, "while you were away")

	resumes := b.link.Payloads(6)
	if len(resumes) != 1 {
		t.Fatalf("%d resumes sent", len(resumes))
	}
	var rs struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(resumes[0], &rs); err != nil || rs.SessionID != r.SessionID || rs.Token != e.App.BotToken || rs.Seq < 2 {
		t.Errorf("resume %s: %v (READY session %s)", resumes[0], err, r.SessionID)
	}
	if n := len(b.link.Payloads(2)); n != 1 || len(b.ready) != 0 {
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

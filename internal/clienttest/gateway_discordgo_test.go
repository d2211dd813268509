package clienttest

// A discordgo bot on slashd's gateway, built the way its README does it:
// discordgo.New("Bot "+token), handlers, session.Open(). It is aimed at
// the test server through its http.Client (rewriteTransport: GET
// /api/v9/gateway tells it where the websocket is) and its websocket
// Dialer (netLink), never through discordgo's package-global endpoints.
// discordgo keeps its defaults: API v9, Identify compress:true, intents
// IntentsAllWithoutPrivileged, handlers in their own goroutines.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/testenv"
)

// dgoBot is a connected discordgo bot that answers every command with
// "pong N" (N counts its answers) and reports what it receives.
type dgoBot struct {
	s            *discordgo.Session
	link         *netLink
	ready        chan *discordgo.Ready
	guilds       chan *discordgo.GuildCreate
	interactions chan *discordgo.InteractionCreate
	answered     chan error // InteractionRespond's result, one per interaction
	perms        chan *discordgo.ApplicationCommandPermissionsUpdate
	resumed      chan *discordgo.Resumed
	n            atomic.Int64
}

func startDiscordgoBot(t *testing.T, e *testenv.Env) *dgoBot {
	t.Helper()
	s, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	b := &dgoBot{s: s, link: newNetLink(),
		ready: make(chan *discordgo.Ready, 8), guilds: make(chan *discordgo.GuildCreate, 8),
		interactions: make(chan *discordgo.InteractionCreate, 8), answered: make(chan error, 8),
		perms: make(chan *discordgo.ApplicationCommandPermissionsUpdate, 8), resumed: make(chan *discordgo.Resumed, 8)}
	s.Dialer = b.link.dialer()
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { b.ready <- r })
	s.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) { b.guilds <- g })
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Resumed) { b.resumed <- r })
	s.AddHandler(func(_ *discordgo.Session, p *discordgo.ApplicationCommandPermissionsUpdate) { b.perms <- p })
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		b.interactions <- i
		b.answered <- s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: fmt.Sprintf("pong %d", b.n.Add(1))},
		})
	})
	if err := s.Open(); err != nil {
		t.Fatalf("discordgo Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	t.Cleanup(b.link.release) // runs first: a failed test may leave dials held
	return b
}

// command registers the guild command "ping" through discordgo.
func (b *dgoBot) command(t *testing.T, w *gwWorld) *discordgo.ApplicationCommand {
	t.Helper()
	cmd, err := b.s.ApplicationCommandCreate(w.app, w.guild, &discordgo.ApplicationCommand{Name: "ping", Description: "Ping the bot"})
	if err != nil {
		t.Fatalf("create command: %v", err)
	}
	return cmd
}

// handled checks the interaction the bot got and that its answer went
// through.
func (b *dgoBot) handled(t *testing.T, w *gwWorld, cmd *discordgo.ApplicationCommand) {
	t.Helper()
	i := recv(t, b.interactions, "INTERACTION_CREATE")
	if err := recv(t, b.answered, "InteractionRespond"); err != nil {
		t.Errorf("InteractionRespond: %v", err)
	}
	if i.Type != discordgo.InteractionApplicationCommand || i.AppID != w.app || i.GuildID != w.guild || i.ChannelID != w.channel ||
		i.Token == "" || i.ID == "" {
		t.Errorf("interaction: type %d app %s guild %s channel %s id %q", i.Type, i.AppID, i.GuildID, i.ChannelID, i.ID)
	}
	if i.Member == nil || i.Member.User == nil || i.Member.User.ID != w.member {
		t.Errorf("interaction member: %+v", i.Member)
	}
	if d := i.ApplicationCommandData(); d.ID != cmd.ID || d.Name != "ping" || d.CommandType != discordgo.ChatApplicationCommand {
		t.Errorf("interaction data: %+v", d)
	}
}

func TestDiscordgoGatewayInteraction(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDiscordgoBot(t, e)

	r := recv(t, b.ready, "READY")
	if r.Version != 9 || r.SessionID == "" || r.User == nil || r.User.ID != w.app || !r.User.Bot ||
		r.Application == nil || r.Application.ID != w.app {
		t.Errorf("READY: v %d session %q user %+v application %+v", r.Version, r.SessionID, r.User, r.Application)
	}
	if len(r.Guilds) != 1 || r.Guilds[0].ID != w.guild {
		t.Errorf("READY guilds: %+v", r.Guilds)
	}
	// discordgo's default intents include GUILDS: the guild follows.
	g := recv(t, b.guilds, "GUILD_CREATE")
	if g.ID != w.guild || g.Unavailable {
		t.Errorf("GUILD_CREATE: id %s unavailable %v", g.ID, g.Unavailable)
	}
	found := false
	for _, c := range g.Channels {
		found = found || (c.ID == w.channel && c.Type == discordgo.ChannelTypeGuildText && c.Name == "general")
	}
	if !found {
		t.Errorf("GUILD_CREATE channels lack %s: %+v", w.channel, g.Channels)
	}

	// What discordgo sent: one Identify with its defaults.
	ids := b.link.payloads(2)
	if len(ids) != 1 {
		t.Fatalf("%d identifies sent", len(ids))
	}
	var id struct {
		Token    string `json:"token"`
		Intents  int    `json:"intents"`
		Compress bool   `json:"compress"`
	}
	if err := json.Unmarshal(ids[0], &id); err != nil || id.Token != "Bot "+e.App.BotToken ||
		id.Intents != int(discordgo.IntentsAllWithoutPrivileged) || !id.Compress {
		t.Errorf("identify %s: %v", ids[0], err)
	}

	// A member runs the command the bot registered; the bot answers with
	// InteractionRespond while the invocation waits.
	cmd := b.command(t, w)
	done := w.invoke(w.invocationBody(cmd.ID, cmd.Name, cmd.Version))
	b.handled(t, w, cmd)
	msg := w.answer(t, done, "pong 1")
	w.stored(t, msg, "pong 1")

	// A permissions edit (the owner's Bearer token, through discordgo)
	// reaches the bot as APPLICATION_COMMAND_PERMISSIONS_UPDATE.
	owner, _ := newDiscordgo(t, e, "Bearer "+e.App.OwnerBearerToken)
	err := owner.ApplicationCommandPermissionsEdit(w.app, w.guild, cmd.ID, &discordgo.ApplicationCommandPermissionsList{
		Permissions: []*discordgo.ApplicationCommandPermissions{{ID: w.member, Type: discordgo.ApplicationCommandPermissionTypeUser, Permission: true}},
	})
	if err != nil {
		t.Fatalf("edit permissions: %v", err)
	}
	p := recv(t, b.perms, "APPLICATION_COMMAND_PERMISSIONS_UPDATE")
	if p.GuildApplicationCommandPermissions == nil || p.ID != cmd.ID || p.ApplicationID != w.app || p.GuildID != w.guild ||
		len(p.Permissions) != 1 || p.Permissions[0].ID != w.member ||
		p.Permissions[0].Type != discordgo.ApplicationCommandPermissionTypeUser || !p.Permissions[0].Permission {
		t.Errorf("APPLICATION_COMMAND_PERMISSIONS_UPDATE: %+v", p.GuildApplicationCommandPermissions)
	}
	// discordgo heartbeats as soon as it is connected; slashd ACKs (a
	// missing ACK would make discordgo reconnect, a missing heartbeat
	// would make slashd close).
	if len(b.link.payloads(1)) == 0 {
		t.Error("discordgo sent no heartbeat")
	}
	if len(b.link.payloads(6)) != 0 || len(b.ready) != 0 {
		t.Errorf("unexpected reconnect: %d resumes, %d more READY", len(b.link.payloads(6)), len(b.ready))
	}
}

func TestDiscordgoGatewayResume(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	b := startDiscordgoBot(t, e)
	r := recv(t, b.ready, "READY")
	cmd := b.command(t, w)
	owner, _ := newDiscordgo(t, e, "Bearer "+e.App.OwnerBearerToken)
	// The overwrite toggled is the owner's, so that the member may still
	// run the command.
	setPerms := func(allow bool) {
		t.Helper()
		err := owner.ApplicationCommandPermissionsEdit(w.app, w.guild, cmd.ID, &discordgo.ApplicationCommandPermissionsList{
			Permissions: []*discordgo.ApplicationCommandPermissions{{ID: e.App.OwnerUserID, Type: discordgo.ApplicationCommandPermissionTypeUser, Permission: allow}},
		})
		if err != nil {
			t.Fatalf("edit permissions: %v", err)
		}
	}
	// One event before the drop, so that the resume has a sequence to
	// start from beyond READY and GUILD_CREATE.
	setPerms(true)
	if p := recv(t, b.perms, "the first permissions update"); !p.Permissions[0].Permission {
		t.Fatalf("first update: %+v", p.Permissions[0])
	}

	// The network drops; while discordgo is away a permissions update and
	// an interaction are published.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bus := e.Events.Subscribe(ctx, 64)
	b.link.cut()
	setPerms(false)
	done := w.invoke(w.invocationBody(cmd.ID, cmd.Name, cmd.Version))
	w.awaitBusInteraction(t, bus, done)
	b.link.heldDial(t)
	b.link.release()

	// discordgo resumes (op 6 with READY's session and its last sequence),
	// gets what it missed, then RESUMED.
	recv(t, b.resumed, "RESUMED")
	p := recv(t, b.perms, "the permissions update sent while away")
	if p.ID != cmd.ID || len(p.Permissions) != 1 || p.Permissions[0].Permission {
		t.Errorf("replayed update: %+v", p.GuildApplicationCommandPermissions)
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
	if err := json.Unmarshal(resumes[0], &rs); err != nil || rs.SessionID != r.SessionID || rs.Token != "Bot "+e.App.BotToken || rs.Seq < 3 {
		t.Errorf("resume %s: %v (READY session %s)", resumes[0], err, r.SessionID)
	}
	if n := len(b.link.payloads(2)); n != 1 || len(b.ready) != 0 {
		t.Errorf("discordgo identified again: %d identifies, %d more READY", n, len(b.ready))
	}

	// Nothing is delivered twice: the next update is the next one.
	setPerms(true)
	if p := recv(t, b.perms, "the update after the resume"); !p.Permissions[0].Permission {
		t.Errorf("after the resume, got a stale update: %+v", p.Permissions[0])
	}
	if len(b.interactions) != 0 {
		t.Errorf("the interaction was delivered again")
	}
}

package clienttest

// A discordgo bot on slashd's gateway, built as
// examples/slash_commands/main.go (discordgo v0.29.0) builds it:
// discordgo.New("Bot " + token), an InteractionCreate handler routing
// commands by name, s.Open(), commands created with s.State.User.ID. It is
// aimed at the test server through its http.Client (exampleSession: GET
// /api/v9/gateway tells it where the websocket is) and keeps every
// default (API v9, state on, Identify compress:true and intents
// IntentsAllWithoutPrivileged, handlers in their own goroutines). Its
// websocket Dialer is the one addition, for a reason that is not slashd's:
// it dials through a netlink.Link, so that the test sees what discordgo sends and
// can drop the connection the way a network failure does.

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/clienttest/netlink"
	"github.com/slashd/slashd/internal/testenv"
)

// basicCommandAnswer is examples/slash_commands' answer to basic-command.
const basicCommandAnswer = "Hey there! Congratulations, you just executed your first slash command"

// dgoBot is a connected discordgo bot with the slash_commands example's
// basic-command, which reports what it receives.
type dgoBot struct {
	s            *discordgo.Session
	link         *netlink.Link
	ready        chan *discordgo.Ready
	guilds       chan *discordgo.GuildCreate
	interactions chan *discordgo.InteractionCreate
	answered     chan error // InteractionRespond's result, one per interaction
	perms        chan *discordgo.ApplicationCommandPermissionsUpdate
	resumed      chan *discordgo.Resumed
}

func startDiscordgoBot(t *testing.T, e *testenv.Env) *dgoBot {
	t.Helper()
	s := exampleSession(t, e)
	b := &dgoBot{s: s, link: netlink.New(),
		ready: make(chan *discordgo.Ready, 8), guilds: make(chan *discordgo.GuildCreate, 8),
		interactions: make(chan *discordgo.InteractionCreate, 8), answered: make(chan error, 8),
		perms: make(chan *discordgo.ApplicationCommandPermissionsUpdate, 8), resumed: make(chan *discordgo.Resumed, 8)}
	s.Dialer = b.link.Dialer()
	commandHandlers := map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"basic-command": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			b.interactions <- i
			b.answered <- s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: basicCommandAnswer},
			})
		},
	}
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		if h, ok := commandHandlers[i.ApplicationCommandData().Name]; ok {
			h(s, i)
		}
	})
	// The state keeps READY's and GUILD_CREATE's guilds and changes them
	// from its own goroutine: the test reads copies made under the
	// state's lock, as discordgo's State documents.
	s.AddHandler(func(s *discordgo.Session, r *discordgo.Ready) {
		s.State.RLock()
		defer s.State.RUnlock()
		seen := *r
		seen.Guilds = nil
		for _, g := range r.Guilds {
			c := *g
			seen.Guilds = append(seen.Guilds, &c)
		}
		b.ready <- &seen
	})
	s.AddHandler(func(s *discordgo.Session, g *discordgo.GuildCreate) {
		s.State.RLock()
		defer s.State.RUnlock()
		seen := *g.Guild
		seen.Channels = nil
		for _, ch := range g.Channels {
			c := *ch
			seen.Channels = append(seen.Channels, &c)
		}
		b.guilds <- &discordgo.GuildCreate{Guild: &seen}
	})
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Resumed) { b.resumed <- r })
	s.AddHandler(func(_ *discordgo.Session, p *discordgo.ApplicationCommandPermissionsUpdate) { b.perms <- p })
	open(t, s)
	t.Cleanup(b.link.Release) // runs first: a failed test may leave dials held
	return b
}

// command registers basic-command in the guild, as the example does.
func (b *dgoBot) command(t *testing.T, w *gwWorld) *discordgo.ApplicationCommand {
	t.Helper()
	cmd, err := b.s.ApplicationCommandCreate(b.s.State.User.ID, w.guild, &discordgo.ApplicationCommand{Name: "basic-command", Description: "Basic command"})
	if err != nil {
		t.Fatalf("Cannot create 'basic-command' command: %v", err)
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
	if d := i.ApplicationCommandData(); d.ID != cmd.ID || d.Name != "basic-command" || d.CommandType != discordgo.ChatApplicationCommand {
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
	ids := b.link.Payloads(2)
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
	msg := w.answer(t, done, basicCommandAnswer)
	w.stored(t, msg, basicCommandAnswer)

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
	if len(b.link.Payloads(1)) == 0 {
		t.Error("discordgo sent no heartbeat")
	}
	if len(b.link.Payloads(6)) != 0 || len(b.ready) != 0 {
		t.Errorf("unexpected reconnect: %d resumes, %d more READY", len(b.link.Payloads(6)), len(b.ready))
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
	b.link.Cut()
	setPerms(false)
	done := w.invoke(w.invocationBody(cmd.ID, cmd.Name, cmd.Version))
	w.awaitBusInteraction(t, bus, done)
	b.link.HeldDial(t, gatewayTimeout)
	b.link.Release()

	// discordgo resumes (op 6 with READY's session and its last sequence),
	// gets what it missed, then RESUMED.
	recv(t, b.resumed, "RESUMED")
	p := recv(t, b.perms, "the permissions update sent while away")
	if p.ID != cmd.ID || len(p.Permissions) != 1 || p.Permissions[0].Permission {
		t.Errorf("replayed update: %+v", p.GuildApplicationCommandPermissions)
	}
	b.handled(t, w, cmd)
	msg := w.answer(t, done, basicCommandAnswer)
	w.stored(t, msg, basicCommandAnswer)

	resumes := b.link.Payloads(6)
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
	if n := len(b.link.Payloads(2)); n != 1 || len(b.ready) != 0 {
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

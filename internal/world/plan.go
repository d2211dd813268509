package world

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// State is what a world keeps beside its spec so that a reset makes the
// same world: every id and every secret, by handle path ("users.alice",
// "guilds.club.roles.mods", "apps.modbot.bot_token", …). IDs are stored
// in the worlds table's handles column, Secrets (sealed) in its
// credentials column.
type State struct {
	IDs     map[string]snowflake.ID `json:"ids"`
	Secrets map[string]string       `json:"secrets"`
}

// Keys of State.
func userKey(h string) string           { return "users." + h }
func appKey(h string) string            { return "apps." + h }
func guildKey(h string) string          { return "guilds." + h }
func roleKey(g, h string) string        { return "guilds." + g + ".roles." + h }
func botRoleKey(g, app string) string   { return "guilds." + g + ".bot_roles." + app }
func channelKey(g, h string) string     { return "guilds." + g + ".channels." + h }
func dmKey(h string) string             { return "dms." + h }
func groupDMKey(h string) string        { return "group_dms." + h }
func bearerKey(user, app string) string { return "bearer_tokens." + user + ":" + app }
func commandKey(app, scope, name string) string {
	return "apps." + app + ".commands." + scope + name
}

// Sources are what Plan draws on: ids for new objects and randomness for
// new credentials.
type Sources struct {
	IDs  func() snowflake.ID
	Rand io.Reader
	Now  time.Time
}

// planner accumulates a plan.
type planner struct {
	spec    Spec
	world   snowflake.ID
	src     Sources
	prior   State
	next    State
	plan    store.WorldPlan
	users   map[string]snowflake.ID // users and apps' bot users, by handle
	guilds  map[string]snowflake.ID
	botApps map[string]store.Application
	// roles and channels of each guild by handle (roles: @everyone
	// included), for command permissions and messages.
	roles, channels map[string]map[string]snowflake.ID
	// authors are users and bot users by handle, as messages show them.
	authors map[string]store.User
}

// Plan computes every row of the world spec describes. prior is the
// world's state when it is reset (its ids and secrets are kept; what it
// lacks is made anew), empty for a new world. It returns the plan and
// the world's state after it.
func Plan(spec Spec, worldID snowflake.ID, prior State, src Sources) (store.WorldPlan, State, error) {
	p := &planner{spec: spec, world: worldID, src: src, prior: prior,
		next:  State{IDs: map[string]snowflake.ID{}, Secrets: map[string]string{}},
		users: map[string]snowflake.ID{}, guilds: map[string]snowflake.ID{}, botApps: map[string]store.Application{},
		roles: map[string]map[string]snowflake.ID{}, channels: map[string]map[string]snowflake.ID{},
		authors: map[string]store.User{}}
	if err := p.run(); err != nil {
		return store.WorldPlan{}, State{}, err
	}
	return p.plan, p.next, nil
}

// id is the id at key: the prior one, else a new one.
func (p *planner) id(key string) snowflake.ID {
	id, ok := p.prior.IDs[key]
	if !ok || id == 0 {
		id = p.src.IDs()
	}
	p.next.IDs[key] = id
	return id
}

// secret is the secret at key: the prior one, else a new one from make.
func (p *planner) secret(key string, make func() (string, error)) (string, error) {
	s, ok := p.prior.Secrets[key]
	if !ok || s == "" {
		var err error
		if s, err = make(); err != nil {
			return "", fmt.Errorf("world: make %s: %w", key, err)
		}
	}
	p.next.Secrets[key] = s
	return s, nil
}

func (p *planner) run() error {
	now := p.src.Now.UTC()
	for _, u := range p.spec.Users {
		id := p.id(userKey(u.Handle))
		p.users[u.Handle] = id
		p.plan.Users = append(p.plan.Users, store.User{ID: id, Username: u.Username, GlobalName: u.GlobalName,
			Locale: u.Locale, Adult: u.Adult, CreatedAt: now, WorldID: p.world})
		p.authors[u.Handle] = p.plan.Users[len(p.plan.Users)-1]
		tok, err := p.secret(userKey(u.Handle)+".client_token", func() (string, error) { return auth.NewClientToken(p.src.Rand) })
		if err != nil {
			return err
		}
		p.plan.ClientTokens = append(p.plan.ClientTokens, store.ClientToken{Hash: auth.Hash(tok), UserID: id, CreatedAt: now})
	}
	for _, a := range p.spec.Apps {
		if err := p.app(a, now); err != nil {
			return err
		}
	}
	for _, g := range p.spec.Guilds {
		p.guild(g, now)
	}
	for _, a := range p.spec.Apps {
		if err := p.commands(a); err != nil {
			return err
		}
	}
	for _, g := range p.spec.Guilds {
		p.commandPermissions(g)
		for _, c := range g.Channels {
			if err := p.messages(p.channels[g.Handle][c.Handle], p.guilds[g.Handle], g.Handle, c.Messages, now); err != nil {
				return err
			}
		}
	}
	for _, u := range p.spec.Users {
		uid := p.users[u.Handle]
		for _, app := range u.Installs {
			p.plan.UserInstalls = append(p.plan.UserInstalls, store.UserInstallation{UserID: uid,
				ApplicationID: p.users[app], Scopes: []string{auth.ScopeApplicationsCommands}, CreatedAt: now})
		}
		for _, g := range u.Grants {
			tok, err := p.secret(bearerKey(u.Handle, g.App), func() (string, error) { return auth.NewAccessToken(p.src.Rand) })
			if err != nil {
				return err
			}
			// A world's Bearer tokens do not expire: a test's world
			// outlives 7 days of CI runs (POST …/clock moves time for
			// the ones the OAuth2 flow makes).
			p.plan.Tokens = append(p.plan.Tokens, store.Token{Hash: auth.Hash(tok), Kind: store.TokenBearer,
				ApplicationID: p.users[g.App], UserID: uid, Scopes: g.Scopes, CreatedAt: now})
		}
	}
	for _, dm := range p.spec.DMs {
		a, b := p.users[dm.Between[0]], p.users[dm.Between[1]]
		rec := []snowflake.ID{min(a, b), max(a, b)}
		id := p.id(dmKey(dm.Handle))
		p.plan.Private = append(p.plan.Private, store.PrivateChannel{ID: id, Type: guild.ChannelDM,
			Recipients: rec, CreatedAt: now})
		if err := p.messages(id, 0, "", dm.Messages, now); err != nil {
			return err
		}
	}
	for _, g := range p.spec.GroupDMs {
		rec := make([]snowflake.ID, 0, len(g.Recipients))
		for _, h := range g.Recipients {
			rec = append(rec, p.users[h])
		}
		slices.Sort(rec)
		id := p.id(groupDMKey(g.Handle))
		p.plan.Private = append(p.plan.Private, store.PrivateChannel{ID: id, Type: guild.ChannelGroupDM,
			Name: g.Name, OwnerID: p.users[g.Owner], Recipients: rec, CreatedAt: now})
		if err := p.messages(id, 0, "", g.Messages, now); err != nil {
			return err
		}
	}
	return nil
}

func (p *planner) app(a App, now time.Time) error {
	id := p.id(appKey(a.Handle))
	p.users[a.Handle] = id
	k := appKey(a.Handle)
	seed, err := p.secret(k+".private_key", func() (string, error) {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(p.src.Rand, seed); err != nil {
			return "", err
		}
		return hex.EncodeToString(seed), nil
	})
	if err != nil {
		return err
	}
	raw, err := hex.DecodeString(seed)
	if err != nil || len(raw) != ed25519.SeedSize {
		return fmt.Errorf("world: the private key of app %q is not a hex seed", a.Handle)
	}
	priv := ed25519.NewKeyFromSeed(raw)
	secret, err := p.secret(k+".client_secret", func() (string, error) { return auth.NewClientSecret(p.src.Rand) })
	if err != nil {
		return err
	}
	botToken, err := p.secret(k+".bot_token", func() (string, error) { return auth.NewBotToken(p.src.Rand, id) })
	if err != nil {
		return err
	}
	owner := id // an app of no owner is its own bot user's
	if a.Owner != "" {
		owner = p.users[a.Owner]
	}
	app := store.Application{ID: id, Name: a.Name, OwnerID: owner, Flags: a.Flags, IntegrationTypes: a.IntegrationTypes,
		InstallParams: a.InstallParams, ClientSecretHash: auth.Hash(secret),
		PublicKey: hex.EncodeToString(priv.Public().(ed25519.PublicKey)), PrivateKey: priv, CreatedAt: now,
		InteractionsEndpointURL: a.EndpointURL, Discoverable: a.Discoverable, WorldID: p.world}
	p.botApps[a.Handle] = app
	bot := store.User{ID: id, Username: a.Name, Bot: true, CreatedAt: now, WorldID: p.world}
	p.plan.Apps = append(p.plan.Apps, store.WorldApp{App: app, Bot: bot})
	p.authors[a.Handle] = bot
	p.plan.Tokens = append(p.plan.Tokens, store.Token{Hash: auth.Hash(botToken), Kind: store.TokenBot, ApplicationID: id,
		UserID: id, Scopes: []string{auth.ScopeBot, auth.ScopeApplicationsCommands}, CreatedAt: now})
	return nil
}

func (p *planner) guild(g Guild, now time.Time) {
	gid := p.id(guildKey(g.Handle))
	p.guilds[g.Handle] = gid
	owner := p.users[g.Owner]
	p.plan.Guilds = append(p.plan.Guilds, store.Guild{ID: gid, Name: g.Name, OwnerID: owner, CreatedAt: now, WorldID: p.world})
	everyone := guild.DefaultEveryone
	if g.Everyone != nil {
		everyone = *g.Everyone
	}
	p.plan.Roles = append(p.plan.Roles, guild.Role{ID: guild.EveryoneRoleID(gid), GuildID: gid, Name: Everyone,
		Permissions: everyone})
	roles := map[string]snowflake.ID{Everyone: guild.EveryoneRoleID(gid)}
	// Roles with a position keep it; the others follow, by handle.
	pos := 0
	for _, r := range g.Roles {
		pos = max(pos, r.Position)
	}
	for _, r := range g.Roles {
		id := p.id(roleKey(g.Handle, r.Handle))
		roles[r.Handle] = id
		position := r.Position
		if !r.PositionSet {
			pos++
			position = pos
		}
		p.plan.Roles = append(p.plan.Roles, guild.Role{ID: id, GuildID: gid, Name: r.Name, Permissions: r.Permissions,
			Position: position})
	}
	chans := map[string]snowflake.ID{}
	for _, c := range g.Channels {
		chans[c.Handle] = p.id(channelKey(g.Handle, c.Handle))
	}
	// Categories first: a channel's parent is written before it.
	for _, categories := range []bool{true, false} {
		for i, c := range g.Channels {
			if (c.Type == guild.ChannelCategory) != categories {
				continue
			}
			ch := guild.Channel{ID: chans[c.Handle], GuildID: gid, Type: c.Type, Name: c.Name, ParentID: chans[c.Parent],
				NSFW: c.NSFW, Position: c.Position, Overwrites: []guild.Overwrite{}}
			if !c.PositionSet {
				ch.Position = i
			}
			if c.Parent == "" {
				ch.ParentID = 0
			}
			for _, o := range c.Overwrites {
				ow := guild.Overwrite{Allow: o.Allow, Deny: o.Deny}
				if id, ok := roles[o.Target]; ok {
					ow.ID, ow.Type = id, guild.OverwriteRole
				} else {
					ow.ID, ow.Type = p.users[o.Target], guild.OverwriteMember
				}
				ch.Overwrites = append(ch.Overwrites, ow)
			}
			p.plan.Channels = append(p.plan.Channels, ch)
		}
	}
	p.roles[g.Handle], p.channels[g.Handle] = roles, chans
	members := map[snowflake.ID]int{} // user → index in the plan
	put := func(m guild.Member) {
		if i, ok := members[m.UserID]; ok {
			p.plan.Members[i] = m
			return
		}
		members[m.UserID] = len(p.plan.Members)
		p.plan.Members = append(p.plan.Members, m)
	}
	put(guild.Member{GuildID: gid, UserID: owner, Roles: []snowflake.ID{}, JoinedAt: now})
	for _, m := range g.Members {
		gm := guild.Member{GuildID: gid, UserID: p.users[m.User], Nick: m.Nick, Roles: []snowflake.ID{}, JoinedAt: now}
		for _, r := range m.Roles {
			gm.Roles = append(gm.Roles, roles[r])
		}
		put(gm)
	}
	for _, in := range g.Installs {
		app := p.botApps[in.App]
		p.plan.Installations = append(p.plan.Installations, store.Installation{GuildID: gid, ApplicationID: app.ID,
			Scopes: in.Scopes, CreatedAt: now})
		if !slices.Contains(in.Scopes, auth.ScopeBot) {
			continue
		}
		// As an installation with bot does: the bot joins with a managed
		// role named after the app that carries the permissions.
		rid := p.id(botRoleKey(g.Handle, in.App))
		pos++
		p.plan.Roles = append(p.plan.Roles, guild.Role{ID: rid, GuildID: gid, Name: app.Name, Permissions: in.Permissions,
			Position: pos, Managed: true})
		bot := guild.Member{GuildID: gid, UserID: app.ID, Roles: []snowflake.ID{rid}, JoinedAt: now}
		if i, ok := members[app.ID]; ok { // the spec's members entry: its nick and other roles
			bot.Nick = p.plan.Members[i].Nick
			bot.Roles = append(bot.Roles, p.plan.Members[i].Roles...)
		}
		put(bot)
	}
}

// commands plans an app's commands, global and per guild, as a bulk
// overwrite of an empty scope.
func (p *planner) commands(a App) error {
	appID := p.users[a.Handle]
	scopes := []struct {
		key   string
		scope command.Scope
		list  []command.Parsed
	}{{"", command.Scope{ApplicationID: appID}, a.Commands}}
	for _, gc := range a.GuildCommands {
		scopes = append(scopes, struct {
			key   string
			scope command.Scope
			list  []command.Parsed
		}{gc.Guild + ".", command.Scope{ApplicationID: appID, GuildID: p.guilds[gc.Guild]}, gc.Commands})
	}
	for _, sc := range scopes {
		if len(sc.list) == 0 {
			continue
		}
		in := make([]command.Parsed, len(sc.list))
		for i, c := range sc.list {
			c.ApplicationID, c.GuildID = appID, sc.scope.GuildID
			c.ID = 0
			in[i] = c
		}
		// The ids: the prior ones by name, new ones otherwise; versions
		// are always new (a reset is a new version of every command).
		var pending []string
		for _, c := range in {
			pending = append(pending, commandName(c.Command))
		}
		i := 0
		plan, err := command.Overwrite(nil, in, sc.scope.Global(), 0, func() snowflake.ID {
			// Overwrite asks for the id then the version of each new
			// command, in order.
			defer func() { i++ }()
			if i%2 == 0 {
				return p.id(commandKey(a.Handle, sc.key, pending[i/2]))
			}
			return p.src.IDs()
		})
		if err != nil {
			return err
		}
		p.plan.Commands = append(p.plan.Commands, store.WorldCommands{Scope: sc.scope, Commands: plan.Put})
	}
	return nil
}

// commandName keys a command in the state and the answer: its name, with
// its type when it is not a slash command (a user and a slash command
// may share a name).
func commandName(c command.Command) string {
	if c.Type == command.ChatInput {
		return c.Name
	}
	return c.Name + "#" + strconv.Itoa(int(c.Type))
}

// View is a world's ids and credentials keyed by handle: the admin API's
// answer (docs/worlds.md) without the world's own fields.
type View struct {
	Users        map[string]UserView     `json:"users"`
	Apps         map[string]AppView      `json:"apps"`
	Guilds       map[string]GuildView    `json:"guilds"`
	DMs          map[string]snowflake.ID `json:"dms"`
	GroupDMs     map[string]snowflake.ID `json:"group_dms"`
	BearerTokens map[string]BearerView   `json:"bearer_tokens"`
}

// UserView is a user's id and client token.
type UserView struct {
	ID          snowflake.ID `json:"id"`
	ClientToken string       `json:"client_token"`
}

// AppView is an app's id and credentials, with its commands' ids by
// name (a user or message command: "name#2", "name#3").
type AppView struct {
	ID            snowflake.ID                       `json:"id"`
	BotUserID     snowflake.ID                       `json:"bot_user_id"`
	BotToken      string                             `json:"bot_token"`
	PublicKey     string                             `json:"public_key"`
	ClientSecret  string                             `json:"client_secret"`
	Commands      map[string]snowflake.ID            `json:"commands"`
	GuildCommands map[string]map[string]snowflake.ID `json:"guild_commands"`
}

// GuildView is a guild's id with its roles' (@everyone included) and
// channels' ids by handle.
type GuildView struct {
	ID       snowflake.ID            `json:"id"`
	Roles    map[string]snowflake.ID `json:"roles"`
	Channels map[string]snowflake.ID `json:"channels"`
}

// BearerView is a Bearer token a user granted an app.
type BearerView struct {
	AccessToken string   `json:"access_token"`
	TokenType   string   `json:"token_type"`
	Scopes      []string `json:"scopes"`
}

// ViewOf renders a world's spec and state.
func ViewOf(s Spec, st State) View {
	v := View{Users: map[string]UserView{}, Apps: map[string]AppView{}, Guilds: map[string]GuildView{},
		DMs: map[string]snowflake.ID{}, GroupDMs: map[string]snowflake.ID{}, BearerTokens: map[string]BearerView{}}
	for _, u := range s.Users {
		k := userKey(u.Handle)
		v.Users[u.Handle] = UserView{ID: st.IDs[k], ClientToken: st.Secrets[k+".client_token"]}
		for _, g := range u.Grants {
			v.BearerTokens[u.Handle+":"+g.App] = BearerView{AccessToken: st.Secrets[bearerKey(u.Handle, g.App)],
				TokenType: "Bearer", Scopes: g.Scopes}
		}
	}
	for _, a := range s.Apps {
		k := appKey(a.Handle)
		av := AppView{ID: st.IDs[k], BotUserID: st.IDs[k], BotToken: st.Secrets[k+".bot_token"],
			ClientSecret: st.Secrets[k+".client_secret"], Commands: map[string]snowflake.ID{},
			GuildCommands: map[string]map[string]snowflake.ID{}}
		if seed, err := hex.DecodeString(st.Secrets[k+".private_key"]); err == nil && len(seed) == ed25519.SeedSize {
			av.PublicKey = hex.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
		}
		for _, c := range a.Commands {
			n := commandName(c.Command)
			av.Commands[n] = st.IDs[commandKey(a.Handle, "", n)]
		}
		for _, gc := range a.GuildCommands {
			m := map[string]snowflake.ID{}
			for _, c := range gc.Commands {
				n := commandName(c.Command)
				m[n] = st.IDs[commandKey(a.Handle, gc.Guild+".", n)]
			}
			av.GuildCommands[gc.Guild] = m
		}
		v.Apps[a.Handle] = av
	}
	for _, g := range s.Guilds {
		gid := st.IDs[guildKey(g.Handle)]
		gv := GuildView{ID: gid, Roles: map[string]snowflake.ID{Everyone: guild.EveryoneRoleID(gid)},
			Channels: map[string]snowflake.ID{}}
		for _, r := range g.Roles {
			gv.Roles[r.Handle] = st.IDs[roleKey(g.Handle, r.Handle)]
		}
		for _, c := range g.Channels {
			gv.Channels[c.Handle] = st.IDs[channelKey(g.Handle, c.Handle)]
		}
		v.Guilds[g.Handle] = gv
	}
	for _, d := range s.DMs {
		v.DMs[d.Handle] = st.IDs[dmKey(d.Handle)]
	}
	for _, g := range s.GroupDMs {
		v.GroupDMs[g.Handle] = st.IDs[groupDMKey(g.Handle)]
	}
	return v
}

// commandPermissions plans a guild's overwrite lists; the commands are
// planned (their ids are in the state).
func (p *planner) commandPermissions(g Guild) {
	gid := p.guilds[g.Handle]
	for _, cp := range g.CommandPermissions {
		appID := p.users[cp.App]
		cmd := p.commandID(cp.App, g.Handle, cp.Command)
		if cmd == 0 {
			continue // Decode checked every key
		}
		list := command.GuildPermissions{ID: cmd, ApplicationID: appID, GuildID: gid, Permissions: []command.Permission{}}
		for _, o := range cp.Permissions {
			var id snowflake.ID
			switch o.Type {
			case command.PermissionRole:
				id = p.roles[g.Handle][o.Target]
			case command.PermissionUser:
				id = p.users[o.Target]
			case command.PermissionChannel:
				id = p.channels[g.Handle][o.Target]
				if o.Target == AllChannels {
					id = command.AllChannelsID(gid)
				}
			}
			list.Permissions = append(list.Permissions, command.Permission{ID: id, Type: o.Type, Permission: o.Allow})
		}
		p.plan.Permissions = append(p.plan.Permissions, list)
	}
}

// commandID is the id of the command key names (CommandPermissions.Command)
// for app in guild g: the app's own id for AllCommands; 0 for none.
func (p *planner) commandID(app, g, key string) snowflake.ID {
	if key == AllCommands {
		return p.users[app]
	}
	if name, ok := strings.CutPrefix(key, GlobalPrefix); ok {
		return p.next.IDs[commandKey(app, "", name)]
	}
	if id := p.next.IDs[commandKey(app, g+".", key)]; id != 0 {
		return id
	}
	return p.next.IDs[commandKey(app, "", key)]
}

// messages plans a channel's messages, oldest first, as POST
// /channels/{id}/messages renders them (new ids: a message is not kept
// across a reset).
func (p *planner) messages(channel, guildID snowflake.ID, guildHandle string, msgs []Message, now time.Time) error {
	ts := now.UTC().Format(interaction.TimestampLayout)
	for _, m := range msgs {
		u := p.authors[m.Author]
		msg := interaction.NewMessage(p.src.IDs(), channel, wire.NewUser(u.ID, u.Username, u.GlobalName, u.Bot), ts)
		msg.Apply(m.Data)
		// Mentions by handle (as an export writes them) become the
		// world's ids.
		msg.Content = rewriteMentions(msg.Content, func(kind, h string) (string, bool) {
			var id snowflake.ID
			switch kind {
			case mentionUser:
				id = p.users[h]
			case mentionRole:
				id = p.roles[guildHandle][h]
			case mentionChannel:
				id = p.channels[guildHandle][h]
			}
			return id.String(), id != 0
		})
		msg.ExpirePoll(func(hours int64) string {
			return now.Add(time.Duration(hours) * time.Hour).UTC().Format(interaction.TimestampLayout)
		})
		body, err := jsonenc.Marshal(msg)
		if err != nil {
			return fmt.Errorf("world: render a message of %s: %w", m.Author, err)
		}
		p.plan.Messages = append(p.plan.Messages, store.Message{ID: msg.ID, ChannelID: channel, GuildID: guildID,
			AuthorID: u.ID, Body: body, CreatedAt: now})
	}
	return nil
}

package world

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Export: a world as it is now, written back as a spec that makes it
// again (GET /admin/v1/worlds/{world}/export, slashd world export). It is
// pure: the store's rows of the world come in (store.WorldPlan's shape,
// read back), a spec document goes out. Objects the world's spec made
// keep their handles; objects made since get handles derived from their
// names. No credential is written: the world a spec makes has new ones.

// Document is an exported spec: JSON that Decode reads back. Maps are
// written sorted by key, lists in a fixed order, so that exporting the
// same world twice gives the same bytes.
type Document struct {
	Name     string                `json:"name"`
	Users    map[string]UserDoc    `json:"users,omitempty"`
	Apps     map[string]AppDoc     `json:"apps,omitempty"`
	Guilds   map[string]GuildDoc   `json:"guilds,omitempty"`
	DMs      map[string]DMDoc      `json:"dms,omitempty"`
	GroupDMs map[string]GroupDMDoc `json:"group_dms,omitempty"`
}

// UserDoc is an exported user.
type UserDoc struct {
	Username   string              `json:"username,omitempty"`
	GlobalName string              `json:"global_name,omitempty"`
	Locale     string              `json:"locale,omitempty"`
	Adult      bool                `json:"adult,omitempty"`
	Installs   []string            `json:"installs,omitempty"`
	Grants     map[string][]string `json:"grants,omitempty"`
}

// AppDoc is an exported application.
type AppDoc struct {
	Name                   string                      `json:"name,omitempty"`
	Owner                  string                      `json:"owner,omitempty"` // a user handle; none: its bot owns it
	Flags                  uint64                      `json:"flags,omitempty"`
	IntegrationTypesConfig any                         `json:"integration_types_config,omitempty"`
	InteractionsEndpoint   string                      `json:"interactions_endpoint_url,omitempty"`
	Discoverable           bool                        `json:"discoverable,omitempty"`
	Commands               []map[string]any            `json:"commands,omitempty"`
	GuildCommands          map[string][]map[string]any `json:"guild_commands,omitempty"`
}

// GuildDoc is an exported guild.
type GuildDoc struct {
	Name               string                                    `json:"name,omitempty"`
	Owner              string                                    `json:"owner"`
	Roles              map[string]RoleDoc                        `json:"roles,omitempty"`
	Channels           map[string]ChannelDoc                     `json:"channels,omitempty"`
	Members            map[string]MemberDoc                      `json:"members,omitempty"`
	Install            map[string]InstallDoc                     `json:"install,omitempty"`
	CommandPermissions map[string]map[string][]CommandPermission `json:"command_permissions,omitempty"`
}

// RoleDoc is an exported role (@everyone: Permissions alone).
type RoleDoc struct {
	Name        string `json:"name,omitempty"`
	Permissions any    `json:"permissions,omitempty"`
	Position    *int   `json:"position,omitempty"`
}

// ChannelDoc is an exported channel.
type ChannelDoc struct {
	Name       string                  `json:"name,omitempty"`
	Type       int                     `json:"type,omitempty"`
	Parent     string                  `json:"parent,omitempty"`
	NSFW       bool                    `json:"nsfw,omitempty"`
	Position   int                     `json:"position"`
	Overwrites map[string]OverwriteDoc `json:"overwrites,omitempty"`
	Messages   []MessageDoc            `json:"messages,omitempty"`
}

// OverwriteDoc is an exported channel overwrite.
type OverwriteDoc struct {
	Allow any `json:"allow,omitempty"`
	Deny  any `json:"deny,omitempty"`
}

// MemberDoc is an exported membership.
type MemberDoc struct {
	Nick  string   `json:"nick,omitempty"`
	Roles []string `json:"roles,omitempty"`
}

// InstallDoc is an exported installation.
type InstallDoc struct {
	Scopes      []string `json:"scopes"`
	Permissions any      `json:"permissions,omitempty"`
}

// DMDoc is an exported DM.
type DMDoc struct {
	Between  [2]string    `json:"between"`
	Messages []MessageDoc `json:"messages,omitempty"`
}

// GroupDMDoc is an exported group DM.
type GroupDMDoc struct {
	Name       string       `json:"name,omitempty"`
	Owner      string       `json:"owner,omitempty"`
	Recipients []string     `json:"recipients"`
	Messages   []MessageDoc `json:"messages,omitempty"`
}

// MessageDoc is an exported message: its author and what it says.
type MessageDoc struct {
	Author     string            `json:"author"`
	Content    string            `json:"content,omitempty"`
	Embeds     []json.RawMessage `json:"embeds,omitempty"`
	Components []json.RawMessage `json:"components,omitempty"`
	Flags      uint64            `json:"flags,omitempty"`
	TTS        bool              `json:"tts,omitempty"`
}

// MarshalJSON writes an overwrite as the spec has it: exactly one of
// role, user or channel, and permission.
func (p CommandPermission) MarshalJSON() ([]byte, error) {
	return jsonenc.Marshal(map[string]any{PermissionKey(p.Type): p.Target, "permission": p.Allow})
}

// exportFlags are the message flags a spec's message may set.
const exportFlags = interaction.FlagSuppressEmbeds | interaction.FlagSuppressNotifications | interaction.FlagComponentsV2

// Export writes the world whose rows are rows as a spec named name. spec
// and st are the world's own (its handles); rows hold only the world's
// objects (users with its id, its apps with their bot users, its guilds
// and what is in them, the DMs and group DMs of its users, the messages
// to export, oldest first).
func Export(name string, rows store.WorldPlan, spec Spec, st State) (Document, error) {
	x := newExporter(rows, spec, st)
	doc := Document{Name: name, Users: map[string]UserDoc{}, Apps: map[string]AppDoc{}, Guilds: map[string]GuildDoc{},
		DMs: map[string]DMDoc{}, GroupDMs: map[string]GroupDMDoc{}}
	for _, u := range rows.Users {
		doc.Users[x.party[u.ID]] = x.user(u)
	}
	for _, a := range rows.Apps {
		ad, err := x.app(a.App)
		if err != nil {
			return Document{}, err
		}
		doc.Apps[x.party[a.App.ID]] = ad
	}
	for _, g := range rows.Guilds {
		doc.Guilds[x.guild[g.ID]] = x.guildDoc(g)
	}
	for _, c := range rows.Private {
		if !x.allParties(c.Recipients) {
			continue // a conversation with someone outside the world is not the world's alone
		}
		msgs := x.messages(c.ID, 0)
		if c.Type == guild.ChannelDM && len(c.Recipients) == 2 {
			between := [2]string{x.party[c.Recipients[0]], x.party[c.Recipients[1]]}
			if between[0] > between[1] {
				between[0], between[1] = between[1], between[0]
			}
			doc.DMs[x.private[c.ID]] = DMDoc{Between: between, Messages: msgs}
			continue
		}
		rec := make([]string, 0, len(c.Recipients))
		for _, u := range c.Recipients {
			rec = append(rec, x.party[u])
		}
		sort.Strings(rec)
		gd := GroupDMDoc{Name: c.Name, Recipients: rec, Messages: msgs}
		if owner := x.party[c.OwnerID]; owner != rec[0] {
			gd.Owner = owner
		}
		doc.GroupDMs[x.private[c.ID]] = gd
	}
	return doc, nil
}

// exporter holds the handles of a world's objects by id.
type exporter struct {
	rows                  store.WorldPlan
	spec                  Spec
	party                 map[snowflake.ID]string // users and apps (their bot users)
	guild, private        map[snowflake.ID]string
	roles, channels       map[snowflake.ID]map[snowflake.ID]string // by guild
	managed               map[snowflake.ID]guild.Role              // managed roles by id
	bots                  map[snowflake.ID]bool
	messagesOf            map[snowflake.ID][]store.Message
	commandsOf            map[command.Scope][]command.Command
	guildCommandNamesOf   map[command.Scope]map[string]bool
	commandName, isGlobal map[snowflake.ID]string
}

func newExporter(rows store.WorldPlan, spec Spec, st State) *exporter {
	x := &exporter{rows: rows, spec: spec, party: map[snowflake.ID]string{}, guild: map[snowflake.ID]string{},
		private: map[snowflake.ID]string{}, roles: map[snowflake.ID]map[snowflake.ID]string{},
		channels: map[snowflake.ID]map[snowflake.ID]string{}, managed: map[snowflake.ID]guild.Role{},
		bots: map[snowflake.ID]bool{}, messagesOf: map[snowflake.ID][]store.Message{},
		commandsOf: map[command.Scope][]command.Command{}, guildCommandNamesOf: map[command.Scope]map[string]bool{},
		commandName: map[snowflake.ID]string{}, isGlobal: map[snowflake.ID]string{}}
	// The spec's handles first, for the objects still there; then the
	// others', derived from their names in id order.
	parties := handleSet{}
	for _, u := range spec.Users {
		parties.keep(x.party, st.IDs[userKey(u.Handle)], u.Handle)
	}
	for _, a := range spec.Apps {
		parties.keep(x.party, st.IDs[appKey(a.Handle)], a.Handle)
	}
	for _, u := range rows.Users {
		parties.derive(x.party, u.ID, u.Username, "user")
	}
	for _, a := range rows.Apps {
		parties.derive(x.party, a.App.ID, a.App.Name, "app")
		x.bots[a.App.ID] = true
	}
	guilds := handleSet{}
	for _, g := range spec.Guilds {
		gid := st.IDs[guildKey(g.Handle)]
		guilds.keep(x.guild, gid, g.Handle)
		x.roles[gid], x.channels[gid] = map[snowflake.ID]string{}, map[snowflake.ID]string{}
		roles, chans := x.roleHandles(parties), handleSet{}
		for _, r := range g.Roles {
			roles.keep(x.roles[gid], st.IDs[roleKey(g.Handle, r.Handle)], r.Handle)
		}
		for _, c := range g.Channels {
			chans.keep(x.channels[gid], st.IDs[channelKey(g.Handle, c.Handle)], c.Handle)
		}
		x.deriveGuildParts(gid, roles, chans)
	}
	for _, g := range rows.Guilds {
		if _, ok := x.guild[g.ID]; !ok {
			guilds.derive(x.guild, g.ID, g.Name, "guild")
			x.roles[g.ID], x.channels[g.ID] = map[snowflake.ID]string{}, map[snowflake.ID]string{}
			x.deriveGuildParts(g.ID, x.roleHandles(parties), handleSet{})
		}
	}
	privates := handleSet{}
	for _, d := range spec.DMs {
		privates.keep(x.private, st.IDs[dmKey(d.Handle)], d.Handle)
	}
	for _, g := range spec.GroupDMs {
		privates.keep(x.private, st.IDs[groupDMKey(g.Handle)], g.Handle)
	}
	for _, c := range rows.Private {
		if c.Type == guild.ChannelDM {
			var names []string
			for _, u := range c.Recipients {
				names = append(names, x.party[u])
			}
			sort.Strings(names)
			privates.derive(x.private, c.ID, "dm-"+strings.Join(names, "-"), "dm")
		} else {
			privates.derive(x.private, c.ID, c.Name, "group")
		}
	}
	for _, m := range rows.Messages {
		x.messagesOf[m.ChannelID] = append(x.messagesOf[m.ChannelID], m)
	}
	for _, wc := range rows.Commands {
		x.commandsOf[wc.Scope] = append(x.commandsOf[wc.Scope], wc.Commands...)
		names := map[string]bool{}
		for _, c := range wc.Commands {
			n := commandName(c)
			x.commandName[c.ID] = n
			names[n] = true
			if wc.Scope.GuildID == 0 {
				x.isGlobal[c.ID] = n
			}
		}
		x.guildCommandNamesOf[wc.Scope] = names
	}
	return x
}

// deriveGuildParts gives the guild's roles and channels that have no
// handle one from their names; @everyone and managed roles have none
// (an installation stands for its bot's role).
func (x *exporter) deriveGuildParts(gid snowflake.ID, roles, chans handleSet) {
	for _, r := range x.rows.Roles {
		switch {
		case r.GuildID != gid || r.ID == guild.EveryoneRoleID(gid):
		case r.Managed:
			x.managed[r.ID] = r
			delete(x.roles[gid], r.ID)
		default:
			roles.derive(x.roles[gid], r.ID, r.Name, "role")
		}
	}
	for _, c := range x.rows.Channels {
		if c.GuildID == gid && slices.Contains(guildChannelTypes, c.Type) {
			chans.derive(x.channels[gid], c.ID, c.Name, "channel")
		}
	}
}

// roleHandles is a guild's role namespace to derive handles in: a
// derived role handle is never a user's or app's, since an overwrite
// keyed by a handle both have would name the role.
func (x *exporter) roleHandles(parties handleSet) handleSet {
	s := handleSet{Everyone: true}
	for h := range parties {
		s[h] = true
	}
	return s
}

// handleSet is a namespace of handles.
type handleSet map[string]bool

// keep records a handle of the spec (id 0: the object is gone; its
// handle stays taken, so that it never names another).
func (s handleSet) keep(of map[snowflake.ID]string, id snowflake.ID, h string) {
	s[h] = true
	if id != 0 {
		of[id] = h
	}
}

// derive gives id, when it has no handle, one made of name: the
// characters a handle may have, others made '-', unique by a suffix.
func (s handleSet) derive(of map[snowflake.ID]string, id snowflake.ID, name, fallback string) {
	if _, ok := of[id]; ok {
		return
	}
	base := HandleOf(name, fallback)
	h := base
	for n := 2; s[h]; n++ {
		suffix := "-" + strconv.Itoa(n)
		h = base[:min(len(base), 64-len(suffix))] + suffix
	}
	s[h] = true
	of[id] = h
}

// HandleOf is a valid handle made of name: its letters, digits, '.',
// '_' and '-', other runs made one '-', cut to 64; fallback when nothing
// is left.
func HandleOf(name, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		switch {
		case ok:
			b.WriteRune(r)
			dash = r == '-'
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	h := strings.TrimLeft(strings.TrimRight(b.String(), "-"), ".-")
	if len(h) > 64 {
		h = strings.TrimRight(h[:64], "-")
	}
	if !handleRE.MatchString(h) {
		return fallback
	}
	return h
}

// allParties reports whether every id is a user or app of the world.
func (x *exporter) allParties(ids []snowflake.ID) bool {
	for _, id := range ids {
		if _, ok := x.party[id]; !ok {
			return false
		}
	}
	return len(ids) > 0
}

func (x *exporter) user(u store.User) UserDoc {
	h := x.party[u.ID]
	d := UserDoc{GlobalName: u.GlobalName, Adult: u.Adult}
	if u.Username != h {
		d.Username = u.Username
	}
	if u.Locale != admin.DefaultLocale {
		d.Locale = u.Locale
	}
	for _, in := range x.rows.UserInstalls {
		if app, ok := x.party[in.ApplicationID]; ok && in.UserID == u.ID && x.bots[in.ApplicationID] {
			d.Installs = append(d.Installs, app)
		}
	}
	sort.Strings(d.Installs)
	// Grants are the spec's: a Bearer token is a credential, not
	// something the world shows; the grant stands while its app does.
	for _, su := range x.spec.Users {
		if su.Handle != h {
			continue
		}
		for _, g := range su.Grants {
			if slices.ContainsFunc(x.rows.Apps, func(a store.WorldApp) bool { return x.party[a.App.ID] == g.App }) {
				if d.Grants == nil {
					d.Grants = map[string][]string{}
				}
				d.Grants[g.App] = g.Scopes
			}
		}
	}
	return d
}

func (x *exporter) app(a store.Application) (AppDoc, error) {
	h := x.party[a.ID]
	d := AppDoc{Flags: a.Flags, InteractionsEndpoint: a.InteractionsEndpointURL, Discoverable: a.Discoverable}
	if a.Name != h {
		d.Name = a.Name
	}
	// An app owned by one of the world's users (the demo app is its
	// owner's) says so; one owned by its own bot, a spec's default, not.
	if owner, ok := x.party[a.OwnerID]; ok && a.OwnerID != a.ID && !x.bots[a.OwnerID] {
		d.Owner = owner
	}
	types := slices.Clone(a.IntegrationTypes)
	slices.Sort(types)
	if !slices.Equal(types, []int{command.GuildInstall, command.UserInstall}) || len(a.InstallParams) > 0 {
		d.IntegrationTypesConfig = admin.IntegrationTypesConfigOf(a)
	}
	var err error
	if d.Commands, err = x.commandDocs(x.commandsOf[command.Scope{ApplicationID: a.ID}]); err != nil {
		return d, err
	}
	for _, g := range x.rows.Guilds {
		cmds := x.commandsOf[command.Scope{ApplicationID: a.ID, GuildID: g.ID}]
		if len(cmds) == 0 {
			continue
		}
		docs, err := x.commandDocs(cmds)
		if err != nil {
			return d, err
		}
		if d.GuildCommands == nil {
			d.GuildCommands = map[string][]map[string]any{}
		}
		d.GuildCommands[x.guild[g.ID]] = docs
	}
	return d, nil
}

// commandDocs writes commands as a bulk overwrite takes them: their wire
// form without what the service gives (ids, version), sorted by key.
func (x *exporter) commandDocs(cmds []command.Command) ([]map[string]any, error) {
	cmds = slices.Clone(cmds)
	slices.SortFunc(cmds, func(a, b command.Command) int { return strings.Compare(commandName(a), commandName(b)) })
	var out []map[string]any
	for i := range cmds {
		raw, err := jsonenc.Marshal(&cmds[i])
		if err != nil {
			return nil, fmt.Errorf("world: encode command %q: %w", cmds[i].Name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("world: decode command %q: %w", cmds[i].Name, err)
		}
		for _, k := range []string{"id", "application_id", "guild_id", "version"} {
			delete(m, k)
		}
		for k, v := range m {
			if v == nil {
				delete(m, k)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func (x *exporter) guildDoc(g store.Guild) GuildDoc {
	h := x.guild[g.ID]
	d := GuildDoc{Owner: x.party[g.OwnerID], Roles: map[string]RoleDoc{}, Channels: map[string]ChannelDoc{},
		Members: map[string]MemberDoc{}, Install: map[string]InstallDoc{},
		CommandPermissions: map[string]map[string][]CommandPermission{}}
	if g.Name != h {
		d.Name = g.Name
	}
	roles, chans := x.roles[g.ID], x.channels[g.ID]
	for _, r := range x.rows.Roles {
		if r.GuildID != g.ID {
			continue
		}
		if r.ID == guild.EveryoneRoleID(g.ID) {
			if r.Permissions != guild.DefaultEveryone {
				d.Roles[Everyone] = RoleDoc{Permissions: permsDoc(r.Permissions, true)}
			}
			continue
		}
		rh, ok := roles[r.ID]
		if !ok {
			continue
		}
		rd := RoleDoc{Permissions: permsDoc(r.Permissions, false), Position: &r.Position}
		if r.Name != rh {
			rd.Name = r.Name
		}
		d.Roles[rh] = rd
	}
	for _, c := range x.rows.Channels {
		ch, ok := chans[c.ID]
		if c.GuildID != g.ID || !ok {
			continue
		}
		cd := ChannelDoc{Type: c.Type, Parent: chans[c.ParentID], NSFW: c.NSFW, Position: c.Position,
			Overwrites: map[string]OverwriteDoc{}, Messages: x.messages(c.ID, g.ID)}
		if c.Name != ch {
			cd.Name = c.Name
		}
		for _, o := range c.Overwrites {
			var target string
			switch {
			case o.Type == guild.OverwriteRole && o.ID == guild.EveryoneRoleID(g.ID):
				target = Everyone
			case o.Type == guild.OverwriteRole:
				target = roles[o.ID]
			default:
				target = x.party[o.ID]
			}
			if target != "" {
				cd.Overwrites[target] = OverwriteDoc{Allow: permsDoc(o.Allow, false), Deny: permsDoc(o.Deny, false)}
			}
		}
		d.Channels[ch] = cd
	}
	for _, m := range x.rows.Members {
		uh, ok := x.party[m.UserID]
		if m.GuildID != g.ID || !ok {
			continue
		}
		md := MemberDoc{Nick: m.Nick}
		for _, r := range m.Roles {
			if rh, ok := roles[r]; ok {
				md.Roles = append(md.Roles, rh)
			}
		}
		sort.Strings(md.Roles)
		// A bot is a member by its installation with bot (one that is not
		// is left out: no spec field makes it); an entry only gives it
		// a nick or roles beside its managed one.
		if x.bots[m.UserID] && (!x.botInstalled(g.ID, m.UserID) || md.Nick == "" && len(md.Roles) == 0) {
			continue
		}
		d.Members[uh] = md
	}
	for _, in := range x.rows.Installations {
		ah, ok := x.party[in.ApplicationID]
		if in.GuildID != g.ID || !ok {
			continue
		}
		id := InstallDoc{}
		for _, sc := range installScopes {
			if slices.Contains(in.Scopes, sc) {
				id.Scopes = append(id.Scopes, sc)
			}
		}
		if slices.Contains(in.Scopes, "bot") {
			id.Permissions = permsDoc(x.botRolePermissions(g.ID, in.ApplicationID), false)
		}
		d.Install[ah] = id
	}
	for _, gp := range x.rows.Permissions {
		ah, ok := x.party[gp.ApplicationID]
		if gp.GuildID != g.ID || !ok {
			continue
		}
		key := x.commandKey(gp, g.ID)
		if key == "" {
			continue
		}
		var list []CommandPermission
		for _, p := range gp.Permissions {
			var target string
			switch p.Type {
			case command.PermissionRole:
				target = roles[p.ID]
				if p.ID == guild.EveryoneRoleID(g.ID) {
					target = Everyone
				}
			case command.PermissionUser:
				target = x.party[p.ID]
			case command.PermissionChannel:
				target = chans[p.ID]
				if p.ID == command.AllChannelsID(g.ID) {
					target = AllChannels
				}
			}
			if target != "" {
				list = append(list, CommandPermission{Type: p.Type, Target: target, Allow: p.Permission})
			}
		}
		if d.CommandPermissions[ah] == nil {
			d.CommandPermissions[ah] = map[string][]CommandPermission{}
		}
		d.CommandPermissions[ah][key] = list
	}
	return d
}

// commandKey is the spec's key of an overwrite list (see
// CommandPermissions.Command); "" for a command that is gone.
func (x *exporter) commandKey(gp command.GuildPermissions, gid snowflake.ID) string {
	if gp.ID == gp.ApplicationID {
		return AllCommands
	}
	name, ok := x.commandName[gp.ID]
	if !ok {
		return ""
	}
	if _, global := x.isGlobal[gp.ID]; global &&
		x.guildCommandNamesOf[command.Scope{ApplicationID: gp.ApplicationID, GuildID: gid}][name] {
		return GlobalPrefix + name
	}
	return name
}

// botInstalled reports whether app is installed in the guild with bot.
func (x *exporter) botInstalled(gid, app snowflake.ID) bool {
	return slices.ContainsFunc(x.rows.Installations, func(in store.Installation) bool {
		return in.GuildID == gid && in.ApplicationID == app && slices.Contains(in.Scopes, "bot")
	})
}

// botRolePermissions are the permissions of the managed role of app's
// bot in the guild.
func (x *exporter) botRolePermissions(gid, app snowflake.ID) guild.Permissions {
	for _, m := range x.rows.Members {
		if m.GuildID != gid || m.UserID != app {
			continue
		}
		for _, r := range m.Roles {
			if role, ok := x.managed[r]; ok {
				return role.Permissions
			}
		}
	}
	return 0
}

// messages are a channel's messages to export: those everyone sees, by
// authors of the world, that say something a spec can say; the newest
// MaxMessages.
func (x *exporter) messages(channel, gid snowflake.ID) []MessageDoc {
	var out []MessageDoc
	for _, m := range x.messagesOf[channel] {
		author, ok := x.party[m.AuthorID]
		if m.VisibleTo != 0 || !ok {
			continue
		}
		var body interaction.Message
		if err := json.Unmarshal(m.Body, &body); err != nil {
			continue
		}
		content := rewriteMentions(body.Content, func(kind, ref string) (string, bool) {
			id, err := snowflake.Parse(ref)
			if err != nil {
				return "", false
			}
			var h string
			switch kind {
			case mentionUser:
				h = x.party[id]
			case mentionRole:
				h = x.roles[gid][id]
			case mentionChannel:
				h = x.channels[gid][id]
			}
			return h, h != ""
		})
		if utf8.RuneCountInString(content) > interaction.MaxContentLength {
			content = body.Content // handles longer than the ids would not fit
		}
		md := MessageDoc{Author: author, Content: content, Embeds: body.Embeds, Components: body.Components,
			Flags: body.Flags & exportFlags, TTS: body.TTS}
		if md.Content == "" && len(md.Embeds) == 0 && len(md.Components) == 0 {
			continue // a deferred answer never filled, a poll, attachments alone
		}
		out = append(out, md)
	}
	if len(out) > MaxMessages {
		out = out[len(out)-MaxMessages:]
	}
	return out
}

// permsDoc writes a permission set as the names of its flags when every
// bit has one, else as the API writes it; nil for none (unless always).
func permsDoc(p guild.Permissions, always bool) any {
	if p == 0 && !always {
		return nil
	}
	names := []string{}
	for rest := uint64(p); rest != 0; rest &= rest - 1 {
		bit := uint(bits.TrailingZeros64(rest))
		name, ok := permissionNameOf(bit)
		if !ok {
			return p.String()
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return p.String()
	}
	return names
}

// permissionNameOf is the name of a permission bit.
func permissionNameOf(bit uint) (string, bool) {
	for n, b := range permissionNames {
		if b == bit {
			return n, true
		}
	}
	return "", false
}

// Kinds of mention in a message's content.
const (
	mentionUser    = "@"
	mentionRole    = "@&"
	mentionChannel = "#"
)

// mentionRE finds <@x>, <@!x>, <@&x> and <#x>, x an id or a handle.
var mentionRE = regexp.MustCompile(`<(@!?|@&|#)([A-Za-z0-9_][A-Za-z0-9._-]{0,63})>`)

// rewriteMentions replaces each mention's target by what to gives it
// (kind: mentionUser, mentionRole or mentionChannel), keeping the
// mentions it gives nothing for: an export writes the world's ids as
// handles, a plan the handles as the new world's ids.
func rewriteMentions(content string, to func(kind, ref string) (string, bool)) string {
	if !strings.Contains(content, "<") {
		return content
	}
	return mentionRE.ReplaceAllStringFunc(content, func(m string) string {
		sub := mentionRE.FindStringSubmatch(m)
		kind := sub[1]
		if kind == "@!" {
			kind = mentionUser
		}
		if ref, ok := to(kind, sub[2]); ok {
			return "<" + kind + ref + ">"
		}
		return m
	})
}

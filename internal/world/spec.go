// Package world reads test world specs (docs/worlds.md) and plans the
// rows a world is made of. It is pure: a spec is decoded from an already
// parsed JSON (or YAML) value with the admin API's readers, so that a bad
// spec is refused with the admin API's 50035 errors at the path inside
// the spec, and Plan turns a spec, ids and a source of randomness into
// every row to write (store.WorldPlan), which the store applies in one
// transaction. Nothing here reads a clock, the network or a database.
package world

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Field error codes of world specs, beside the admin API's (admin.Code…)
// and the generic ones (form.Code…).
const (
	CodeNameInvalid   = "WORLD_NAME_INVALID"
	CodeNameTaken     = "WORLD_NAME_TAKEN"
	CodeHandleInvalid = "WORLD_HANDLE_INVALID"
	CodeUnknownGuild  = "UNKNOWN_GUILD"
	CodeUnknownHandle = "UNKNOWN_HANDLE"
	CodeUnknownKey    = "UNKNOWN_FIELD"
	CodePermission    = "PERMISSION_INVALID"
	CodeDuplicate     = "DUPLICATE_INVALID"
	// CodeContext: an app installed where its integration_types_config
	// does not allow (a guild without "0", a user without "1").
	CodeContext = "APPLICATION_INTEGRATION_TYPE_INVALID"
	// CodeCommands carries a rule of a whole list of commands (a name
	// used twice, too many of a type) with the API's message.
	CodeCommands = "APPLICATION_COMMANDS_INVALID"
)

// Error messages of those codes.
const (
	msgName          = "Must be 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit, and not all digits"
	msgHandle        = "A handle is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter, digit or '_'"
	msgUnknownUser   = "No user of the world has this handle"
	msgUnknownApp    = "No application of the world has this handle"
	msgUnknownRole   = "No role of the guild has this handle"
	msgUnknownChan   = "No channel of the guild has this handle"
	msgUnknownTarget = "Names no role of the guild (nor @everyone) and no user of the world"
	msgUnknownParty  = "Names no user and no application of the world"
	msgUnknownField  = "Not a field of this object"
	msgPermission    = "Not a permission name or bit set"
)

// MsgNameTaken is the refusal of a world name another world has.
const MsgNameTaken = "A world with this name already exists"

var (
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	handleRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$`)
)

// ValidName reports whether s may name a world: it is never all digits,
// so that a name and an id never collide in a path.
func ValidName(s string) bool {
	return nameRE.MatchString(s) && strings.Trim(s, "0123456789") != ""
}

// Spec is a decoded world spec. Every list is sorted by handle (a JSON
// object has no order).
type Spec struct {
	Name     string
	Users    []User
	Apps     []App
	Guilds   []Guild
	DMs      []DM
	GroupDMs []GroupDM
}

// User is a person of the world; each gets a client token.
type User struct {
	Handle     string
	Username   string
	GlobalName string
	Locale     string
	Adult      bool
	// Installs are the apps the user installed to their account (app
	// handles).
	Installs []string
	// Grants are Bearer tokens the user granted apps.
	Grants []Grant
}

// Grant is a Bearer token a user granted an app with scopes.
type Grant struct {
	App    string
	Scopes []string
}

// App is an application with its bot user.
type App struct {
	Handle string
	Name   string
	// Owner is the user handle of the app's owner; "": the app's own
	// bot user.
	Owner            string
	Flags            uint64
	IntegrationTypes []int
	InstallParams    map[int]store.InstallParams
	EndpointURL      string
	Discoverable     bool
	// Commands are the global commands; GuildCommands the commands of
	// one guild each (by guild handle, sorted).
	Commands      []command.Parsed
	GuildCommands []GuildCommands
}

// GuildCommands are an app's commands in one guild.
type GuildCommands struct {
	Guild    string
	Commands []command.Parsed
}

// Guild is a server of the world.
type Guild struct {
	Handle   string
	Name     string
	Owner    string // user handle
	Everyone *guild.Permissions
	Roles    []Role
	Channels []Channel
	Members  []Member
	Installs []Install
	// CommandPermissions are the overwrite lists of apps' commands in
	// the guild (sorted by app, then command key).
	CommandPermissions []CommandPermissions
}

// CommandPermissions is one overwrite list of an app in a guild: of one
// command, or of the whole app.
type CommandPermissions struct {
	App string
	// Command is AllCommands (the app's list), a command's key (its
	// name, "#2"/"#3" for a user/message command: the guild's command of
	// that key if the app has one there, else the global one), or
	// GlobalPrefix and a key (the global one even when the guild has a
	// command of that key).
	Command     string
	Permissions []CommandPermission
}

// CommandPermission allows or denies a command to a role (Everyone
// included), a user (or an app's bot) or a channel (AllChannels: every
// channel), by handle.
type CommandPermission struct {
	Type   command.PermissionType
	Target string
	Allow  bool
}

// Keys of command permissions.
const (
	AllCommands  = "*"
	AllChannels  = "*"
	GlobalPrefix = "global:"
)

// Message is a message in a channel, DM or group DM: its author (a user's
// or an app's handle) and what it says, as POST /channels/{id}/messages
// takes it.
type Message struct {
	Author string
	Data   interaction.MessageData
}

// MaxMessages is the most messages a spec gives one channel (an export
// keeps each channel's newest).
const MaxMessages = 1000

// Role is a guild role.
type Role struct {
	Handle      string
	Name        string
	Permissions guild.Permissions
	// Position: without PositionSet, after the roles with positions, by
	// handle.
	Position    int
	PositionSet bool
}

// Channel is a guild channel or category.
type Channel struct {
	Handle string
	Name   string
	Type   int
	Parent string // a category's handle, or ""
	NSFW   bool
	// Position: without PositionSet, the channel's index by handle.
	Position    int
	PositionSet bool
	Overwrites  []Overwrite
	Messages    []Message
}

// Overwrite is a channel's permission overwrite for a role (or
// @everyone) or a user, by handle.
type Overwrite struct {
	Target      string
	Allow, Deny guild.Permissions
}

// Member is a user's membership.
type Member struct {
	User  string
	Nick  string
	Roles []string
}

// Install is an app's installation in a guild.
type Install struct {
	App         string
	Scopes      []string
	Permissions guild.Permissions
}

// DM is a DM between two parties (users or apps, whose bot users take
// part).
type DM struct {
	Handle   string
	Between  [2]string
	Messages []Message
}

// GroupDM is a group DM of users.
type GroupDM struct {
	Handle     string
	Name       string
	Owner      string
	Recipients []string
	Messages   []Message
}

// Everyone is the overwrite target and role key of a guild's @everyone
// role.
const Everyone = "@everyone"

// guildChannelTypes are the channel types a spec may make (threads are
// made by messages, not by specs).
var guildChannelTypes = []int{guild.ChannelText, guild.ChannelVoice, guild.ChannelCategory, guild.ChannelAnnouncement,
	guild.ChannelStageVoice, guild.ChannelForum, guild.ChannelMedia}

// installScopes are the scopes of a guild installation.
var installScopes = []string{auth.ScopeBot, auth.ScopeApplicationsCommands}

// Decode reads a spec from a decoded JSON object (form.DecodeJSON's
// values; YAML through FromYAML). Every error is collected and returned
// as one 50035 with paths inside the spec.
func Decode(body any) (Spec, error) {
	errs := &apierr.Fields{}
	root, ok := admin.SubForm(body, errs)
	if !ok {
		return Spec{}, errs.Err()
	}
	m, _ := body.(map[string]any)
	d := decoder{root: root, rootMap: m}
	d.spec()
	if err := errs.Err(); err != nil {
		return Spec{}, err
	}
	return d.s, nil
}

type decoder struct {
	root    admin.Form
	rootMap map[string]any
	s       Spec
	// handles known once their section is read, for references.
	users, apps map[string]bool
	guilds      map[string]*Guild
}

// fieldsOf are the fields each object of a spec may have, by its
// definition's name in docs/world.schema.json (a test keeps the two
// equal).
var fieldsOf = map[string][]string{
	"spec":               {"$schema", "name", "users", "apps", "guilds", "dms", "group_dms"},
	"user":               {"username", "global_name", "locale", "adult", "installs", "grants"},
	"app":                {"name", "owner", "flags", "integration_types_config", "interactions_endpoint_url", "discoverable", "commands", "guild_commands"},
	"guild":              {"name", "owner", "roles", "channels", "members", "install", "command_permissions"},
	"role":               {"name", "permissions", "position"},
	"everyone":           {"permissions"},
	"channel":            {"name", "type", "parent", "nsfw", "position", "overwrites", "messages"},
	"overwrite":          {"allow", "deny"},
	"member":             {"nick", "roles"},
	"install":            {"scopes", "permissions"},
	"dm":                 {"between", "messages"},
	"group_dm":           {"name", "owner", "recipients", "messages"},
	"command_permission": {"role", "user", "channel", "permission"},
	"message":            {"author", "content", "embeds", "components", "flags", "tts"},
}

// known checks that an object has only the keys it may have.
func known(f admin.Form, m map[string]any, keys ...string) {
	for k := range m {
		if !slices.Contains(keys, k) {
			f.At(k).Add(CodeUnknownKey, msgUnknownField)
		}
	}
}

// entries reads an object of handle → object, sorted by handle; each
// value's form has its errors at its handle.
func entries(f admin.Form, key string, allowHandle func(string) bool) []entry {
	d, ok := f.Dict(key)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]entry, 0, len(keys))
	for _, k := range keys {
		at := f.At(key, k)
		if !handleRE.MatchString(k) && (allowHandle == nil || !allowHandle(k)) {
			at.Add(CodeHandleInvalid, msgHandle)
			continue
		}
		v := d[k]
		if v == nil {
			v = map[string]any{} // "alice": null is "alice": {}
		}
		sub, ok := admin.SubForm(v, at)
		if !ok {
			continue
		}
		m, _ := v.(map[string]any)
		out = append(out, entry{k, sub, m})
	}
	return out
}

type entry struct {
	handle string
	f      admin.Form
	m      map[string]any
}

func (d *decoder) spec() {
	f := d.root
	if f.Require("name") {
		if name, ok := f.Str("name"); ok && !ValidName(name) {
			f.At("name").Add(CodeNameInvalid, msgName)
		} else {
			d.s.Name = name
		}
	}
	d.users, d.apps, d.guilds = map[string]bool{}, map[string]bool{}, map[string]*Guild{}
	users := entries(f, "users", nil)
	for _, e := range users {
		d.users[e.handle] = true
	}
	apps := entries(f, "apps", nil)
	for _, e := range apps {
		if d.users[e.handle] {
			// One namespace for the parties of DMs and overwrites.
			e.f.At().Add(CodeDuplicate, "A user of the world has this handle")
		}
		d.apps[e.handle] = true
	}
	guilds := entries(f, "guilds", nil)
	d.s.Guilds = make([]Guild, len(guilds))
	for i, e := range guilds {
		d.guilds[e.handle] = &d.s.Guilds[i]
	}
	for _, e := range users {
		d.s.Users = append(d.s.Users, d.user(e))
	}
	for _, e := range apps {
		d.s.Apps = append(d.s.Apps, d.app(e))
	}
	for i, e := range guilds {
		d.s.Guilds[i] = d.guild(e)
	}
	d.checkContexts(users, guilds)
	pairs := map[[2]string]bool{}
	for _, e := range entries(f, "dms", nil) {
		dm := d.dm(e)
		pair := dm.Between
		if pair[0] > pair[1] {
			pair[0], pair[1] = pair[1], pair[0]
		}
		if pair[0] != "" && pairs[pair] {
			e.f.At("between").Add(CodeDuplicate, "Two parties have one DM")
		}
		pairs[pair] = true
		d.s.DMs = append(d.s.DMs, dm)
	}
	for _, e := range entries(f, "group_dms", nil) {
		d.s.GroupDMs = append(d.s.GroupDMs, d.groupDM(e))
	}
	known(f, d.rootMap, fieldsOf["spec"]...)
}

func (d *decoder) user(e entry) User {
	f := e.f
	known(f, e.m, fieldsOf["user"]...)
	su := store.User{Username: e.handle, Locale: admin.DefaultLocale}
	if !f.Present("username") && len(e.handle) > admin.MaxUsername {
		f.At().Add(form.CodeBadLength, "A user's handle is its username unless it has one: "+form.MsgBadLength(1, admin.MaxUsername))
	}
	admin.UserFields(f, &su, false)
	u := User{Handle: e.handle, Username: su.Username, GlobalName: su.GlobalName, Locale: su.Locale, Adult: su.Adult}
	u.Installs = d.handleList(f, "installs", d.apps, admin.CodeUnknownApp, msgUnknownApp)
	if g, ok := f.Dict("grants"); ok {
		keys := sortedKeys(g)
		for _, app := range keys {
			at := f.At("grants", app)
			if !d.apps[app] {
				at.Add(admin.CodeUnknownApp, msgUnknownApp)
				continue
			}
			sub := admin.NewForm(map[string]any{"type": admin.TokenBearer, "application_id": "1", "scopes": g[app]})
			t := admin.TokenFields(sub)
			at.Merge(sub.At("scopes"))
			u.Grants = append(u.Grants, Grant{App: app, Scopes: t.Scopes})
		}
	}
	return u
}

// handleList reads a list of handles that must be in set.
func (d *decoder) handleList(f admin.Form, key string, set map[string]bool, code, msg string) []string {
	l, ok := f.List(key)
	if !ok {
		return nil
	}
	var out []string
	for i, v := range l {
		h, ok := v.(string)
		switch {
		case !ok:
			f.At(key, i).Add(form.CodeStringConvert, form.MsgNotString(v))
		case !set[h]:
			f.At(key, i).Add(code, msg)
		case !slices.Contains(out, h):
			out = append(out, h)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (d *decoder) app(e entry) App {
	f := e.f
	known(f, e.m, fieldsOf["app"]...)
	a := App{Handle: e.handle, Name: e.handle, IntegrationTypes: []int{command.GuildInstall, command.UserInstall}}
	if name, ok := f.StrLen("name", 1, admin.MaxUsername); ok {
		a.Name = name
	} else if !f.Present("name") && len(e.handle) > admin.MaxUsername {
		f.At().Add(form.CodeBadLength, "An app's handle is its name unless it has one: "+form.MsgBadLength(1, admin.MaxUsername))
	}
	if owner, ok := f.Str("owner"); ok {
		if !d.users[owner] {
			f.At("owner").Add(admin.CodeUnknownUser, msgUnknownUser)
		}
		a.Owner = owner
	}
	if flags, ok := f.Integer("flags", 0, 1<<53-1); ok {
		a.Flags = uint64(flags)
	}
	if types, params, ok := admin.IntegrationTypesConfig(f); ok {
		a.IntegrationTypes, a.InstallParams = types, params
	}
	if url, ok := f.Str("interactions_endpoint_url"); ok && url != "" {
		if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
			f.At("interactions_endpoint_url").Add("URL_TYPE_INVALID_URL", "Not a well formed URL.")
		} else {
			a.EndpointURL = url
		}
	}
	a.Discoverable, _ = f.Bool("discoverable")
	capp := command.App{Flags: a.Flags, IntegrationTypes: a.IntegrationTypes}
	a.Commands = commands(f, "commands", capp, command.Scope{ApplicationID: 1})
	if gc, ok := f.Dict("guild_commands"); ok {
		for _, gh := range sortedKeys(gc) {
			if d.guilds[gh] == nil {
				f.At("guild_commands", gh).Add(CodeUnknownGuild, "No guild of the world has this handle")
				continue
			}
			sub := admin.NewForm(map[string]any{"commands": gc[gh]})
			cmds := commands(sub, "commands", capp, command.Scope{ApplicationID: 1, GuildID: 1})
			f.At("guild_commands", gh).Merge(sub.At("commands"))
			a.GuildCommands = append(a.GuildCommands, GuildCommands{Guild: gh, Commands: cmds})
		}
	}
	if a.Discoverable && a.hasNSFW() {
		f.At("discoverable").Add(admin.CodeDiscoveryNSFW, admin.MsgDiscoveryNSFW)
	}
	return a
}

// commands reads a list of command definitions as a bulk overwrite of an
// empty scope reads them: the API's rules, errors and normalization.
func commands(f admin.Form, key string, app command.App, scope command.Scope) []command.Parsed {
	l, ok := f.List(key)
	if !ok {
		return nil
	}
	out := make([]command.Parsed, 0, len(l))
	for i, v := range l {
		p, errs := command.Parse(v, command.Target{App: app, Scope: scope, Mode: command.ModeBulk})
		if !errs.Empty() {
			f.At(key, i).Merge(errs)
			continue
		}
		p.RequestedID = 0 // ids are the world's to give
		out = append(out, p)
	}
	if f.At(key).Empty() {
		if _, err := command.Overwrite(nil, out, scope.Global(), 0, func() snowflake.ID { return 1 }); err != nil {
			if e, ok := apierr.As(err); ok {
				f.At(key).Add(CodeCommands, e.Message)
			}
		}
	}
	return out
}

func (d *decoder) guild(e entry) Guild {
	f := e.f
	known(f, e.m, fieldsOf["guild"]...)
	g := Guild{Handle: e.handle, Name: e.handle}
	if name, ok := admin.GuildName(f, false); ok {
		g.Name = name
	} else if !f.Present("name") && (len(e.handle) < admin.MinGuildName || len(e.handle) > admin.MaxGuildName) {
		f.At().Add(form.CodeBadLength, "A guild's handle is its name unless it has one: "+
			form.MsgBadLength(admin.MinGuildName, admin.MaxGuildName))
	}
	if f.Require("owner") {
		if owner, ok := f.Str("owner"); ok {
			if !d.users[owner] {
				f.At("owner").Add(admin.CodeUnknownUser, msgUnknownUser)
			}
			g.Owner = owner
		}
	}
	roles := map[string]bool{}
	for _, re := range entries(f, "roles", func(h string) bool { return h == Everyone }) {
		rf := re.f
		if re.handle == Everyone {
			known(rf, re.m, fieldsOf["everyone"]...)
			if p, ok := perms(rf, "permissions"); ok {
				g.Everyone = &p
			}
			continue
		}
		known(rf, re.m, fieldsOf["role"]...)
		roles[re.handle] = true
		r := Role{Handle: re.handle, Name: re.handle}
		if name, ok := rf.StrLen("name", 1, admin.MaxRoleName); ok {
			r.Name = name
		}
		r.Permissions, _ = perms(rf, "permissions")
		if pos, ok := rf.Integer("position", 0, admin.MaxPosition); ok {
			r.Position, r.PositionSet = int(pos), true
		}
		g.Roles = append(g.Roles, r)
	}
	chans := entries(f, "channels", nil)
	types := map[string]int{}
	for _, ce := range chans {
		t, _ := ce.f.OneOf("type", guildChannelTypes)
		types[ce.handle] = t
	}
	for _, ce := range chans {
		cf := ce.f
		known(cf, ce.m, fieldsOf["channel"]...)
		c := Channel{Handle: ce.handle, Name: ce.handle, Type: types[ce.handle]}
		if name, ok := cf.StrLen("name", 1, 100); ok {
			c.Name = name
		}
		if parent, ok := cf.Str("parent"); ok {
			t, exists := types[parent]
			switch {
			case !exists:
				cf.At("parent").Add(admin.CodeUnknownChannel, msgUnknownChan)
			case t != guild.ChannelCategory || c.Type == guild.ChannelCategory:
				cf.At("parent").Add(admin.CodeParent, "A channel's parent must be a category, and a category has none")
			default:
				c.Parent = parent
			}
		}
		c.NSFW, _ = cf.Bool("nsfw")
		if pos, ok := cf.Integer("position", 0, admin.MaxPosition); ok {
			c.Position, c.PositionSet = int(pos), true
		}
		for _, oe := range entries(cf, "overwrites", func(h string) bool { return h == Everyone }) {
			known(oe.f, oe.m, fieldsOf["overwrite"]...)
			if oe.handle != Everyone && !roles[oe.handle] && !d.users[oe.handle] && !d.apps[oe.handle] {
				oe.f.At().Add(CodeUnknownHandle, msgUnknownTarget)
				continue
			}
			o := Overwrite{Target: oe.handle}
			o.Allow, _ = perms(oe.f, "allow")
			o.Deny, _ = perms(oe.f, "deny")
			c.Overwrites = append(c.Overwrites, o)
		}
		c.Messages = d.messages(cf, nil)
		g.Channels = append(g.Channels, c)
	}
	var botMembers []entry
	for _, me := range entries(f, "members", nil) {
		known(me.f, me.m, fieldsOf["member"]...)
		if d.apps[me.handle] {
			botMembers = append(botMembers, me) // checked against the installations below
		} else if !d.users[me.handle] {
			me.f.At().Add(admin.CodeUnknownUser, msgUnknownUser)
			continue
		}
		m := Member{User: me.handle}
		m.Nick, _ = me.f.StrLen("nick", 0, admin.MaxNick)
		m.Roles = d.handleList(me.f, "roles", roles, admin.CodeUnknownRole, msgUnknownRole)
		g.Members = append(g.Members, m)
	}
	for _, ie := range entries(f, "install", nil) {
		known(ie.f, ie.m, fieldsOf["install"]...)
		if !d.apps[ie.handle] {
			ie.f.At().Add(admin.CodeUnknownApp, msgUnknownApp)
			continue
		}
		in := Install{App: ie.handle, Scopes: installScopes}
		if ie.f.Present("scopes") {
			in.Scopes = stringChoices(ie.f, "scopes", installScopes)
		}
		in.Permissions, _ = perms(ie.f, "permissions")
		if in.Permissions != 0 && !slices.Contains(in.Scopes, auth.ScopeBot) {
			ie.f.At("permissions").Add(admin.CodeInstallPerms, "Permissions are only granted with the bot scope")
		}
		g.Installs = append(g.Installs, in)
	}
	// An app's bot is a member through its installation with bot; a
	// members entry gives it a nick and roles beside its managed one.
	for _, me := range botMembers {
		if !slices.ContainsFunc(g.Installs, func(in Install) bool {
			return in.App == me.handle && slices.Contains(in.Scopes, auth.ScopeBot)
		}) {
			me.f.At().Add(admin.CodeUserBot, "An app's bot is a member through its installation: install the app here with the bot scope")
		}
	}
	g.CommandPermissions = d.commandPermissions(f, &g, roles)
	return g
}

// stringChoices reads a non-empty list of strings, each one of choices.
func stringChoices(f admin.Form, key string, choices []string) []string {
	l, ok := f.List(key)
	if !ok {
		return nil
	}
	if len(l) == 0 {
		f.At(key).Add(form.CodeMinLength, form.MsgMinLength(1))
	}
	var out []string
	for i, v := range l {
		s, ok := v.(string)
		switch {
		case !ok:
			f.At(key, i).Add(form.CodeStringConvert, form.MsgNotString(v))
		case !slices.Contains(choices, s):
			f.At(key, i).Add(form.CodeChoices, form.MsgChoicesOf(choices))
		case !slices.Contains(out, s):
			out = append(out, s)
		}
	}
	return out
}

// perms reads a permission set: a bit set (a decimal string or an
// integer, as the API writes them) or a list of permission names (or bit
// sets), each checked at its index.
func perms(f admin.Form, key string) (guild.Permissions, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	l, isList := v.([]any)
	if !isList {
		return f.Perms(key)
	}
	var p guild.Permissions
	good := true
	for i, item := range l {
		bit, ok := permissionValue(item)
		if !ok {
			f.At(key, i).Add(CodePermission, msgPermission)
			good = false
			continue
		}
		p |= bit
	}
	return p, good
}

// permissionValue is one element of a permission list: a flag's name
// (BAN_MEMBERS) or a bit set.
func permissionValue(v any) (guild.Permissions, bool) {
	if s, ok := v.(string); ok {
		if bit, ok := PermissionByName(s); ok {
			return bit, true
		}
	}
	if n, ok := form.ToInt(v); ok && n >= 0 && guild.Permissions(n)&^guild.All == 0 {
		return guild.Permissions(n), true
	}
	return 0, false
}

func (d *decoder) party(f admin.Form, at *apierr.Fields, v any) string {
	h, ok := v.(string)
	switch {
	case !ok:
		at.Add(form.CodeStringConvert, form.MsgNotString(v))
	case !d.users[h] && !d.apps[h]:
		at.Add(CodeUnknownHandle, msgUnknownParty)
	default:
		return h
	}
	return ""
}

func (d *decoder) dm(e entry) DM {
	f := e.f
	known(f, e.m, fieldsOf["dm"]...)
	dm := DM{Handle: e.handle}
	if !f.Require("between") {
		return dm
	}
	l, ok := f.List("between")
	if !ok {
		return dm
	}
	if len(l) != 2 {
		f.At("between").Add(form.CodeBadLength, form.MsgBadLength(2, 2))
		return dm
	}
	for i, v := range l {
		dm.Between[i] = d.party(f, f.At("between", i), v)
	}
	if dm.Between[0] != "" && dm.Between[0] == dm.Between[1] {
		f.At("between", 1).Add(CodeDuplicate, "A DM is between two different parties")
	}
	if d.apps[dm.Between[0]] && d.apps[dm.Between[1]] {
		f.At("between").Add(CodeDuplicate, "Two bots cannot have a DM")
	}
	dm.Messages = d.messages(f, dm.Between[:])
	return dm
}

// maxGroupDM is the most recipients a group DM has (the real service's).
const maxGroupDM = 10

func (d *decoder) groupDM(e entry) GroupDM {
	f := e.f
	known(f, e.m, fieldsOf["group_dm"]...)
	g := GroupDM{Handle: e.handle}
	g.Name, _ = f.StrLen("name", 1, 100)
	g.Recipients = d.handleList(f, "recipients", d.users, admin.CodeUnknownUser, msgUnknownUser)
	if f.Require("recipients") && f.At("recipients").Empty() && (len(g.Recipients) < 2 || len(g.Recipients) > maxGroupDM) {
		f.At("recipients").Add(form.CodeBadLength, form.MsgBadLength(2, maxGroupDM))
	}
	g.Owner = g.Recipients0()
	if owner, ok := f.Str("owner"); ok {
		if !slices.Contains(g.Recipients, owner) {
			f.At("owner").Add(CodeUnknownHandle, "The owner must be one of the recipients")
		}
		g.Owner = owner
	}
	g.Messages = d.messages(f, g.Recipients)
	return g
}

// Recipients0 is the first recipient ("" for none): a group DM's owner
// when the spec names none.
func (g GroupDM) Recipients0() string {
	if len(g.Recipients) == 0 {
		return ""
	}
	return g.Recipients[0]
}

// checkContexts refuses installations an app does not support, as the
// admin API does: in a guild without GUILD_INSTALL ("0"), to a user's
// account without USER_INSTALL ("1").
func (d *decoder) checkContexts(users, guilds []entry) {
	types := map[string][]int{}
	for _, a := range d.s.Apps {
		types[a.Handle] = a.IntegrationTypes
	}
	for i, u := range d.s.Users {
		for j, app := range u.Installs {
			if ts, ok := types[app]; ok && !slices.Contains(ts, command.UserInstall) {
				users[i].f.At("installs", j).Add(CodeContext,
					"The application does not support user installs: its integration_types_config has no \"1\" (USER_INSTALL)")
			}
		}
	}
	for i, g := range d.s.Guilds {
		for _, in := range g.Installs {
			if ts, ok := types[in.App]; ok && !slices.Contains(ts, command.GuildInstall) {
				guilds[i].f.At("install", in.App).Add(CodeContext,
					"The application does not support guild installs: its integration_types_config has no \"0\" (GUILD_INSTALL)")
			}
		}
	}
}

// hasNSFW reports whether one of the app's commands is age-restricted:
// a discoverable app may have none.
func (a App) hasNSFW() bool {
	nsfw := func(c command.Parsed) bool { return c.NSFW }
	if slices.ContainsFunc(a.Commands, nsfw) {
		return true
	}
	for _, gc := range a.GuildCommands {
		if slices.ContainsFunc(gc.Commands, nsfw) {
			return true
		}
	}
	return false
}

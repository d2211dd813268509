package access

import (
	"cmp"
	"slices"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// entry is one compiled overwrite.
type entry struct {
	id    snowflake.ID
	allow bool
}

func byID(e entry, id snowflake.ID) int { return cmp.Compare(e.id, id) }

// Overwrites is one overwrite list (a command's or the app's) compiled for
// lookups: per target type, sorted by id, one entry per id (the list's
// last, as command.ParsePermissions keeps). Entries of an unknown type are
// dropped. The zero value is the empty list. It is read-only once built.
type Overwrites struct {
	roles, users, channels []entry
}

// CompileOverwrites compiles a list. It allocates once.
func CompileOverwrites(list []command.Permission) Overwrites {
	var nr, nu, nc int
	for _, p := range list {
		switch p.Type {
		case command.PermissionRole:
			nr++
		case command.PermissionUser:
			nu++
		case command.PermissionChannel:
			nc++
		}
	}
	if nr+nu+nc == 0 {
		return Overwrites{}
	}
	buf := make([]entry, nr+nu+nc)
	o := Overwrites{roles: buf[:0:nr], users: buf[nr : nr : nr+nu], channels: buf[nr+nu : nr+nu : nr+nu+nc]}
	for _, p := range list {
		e := entry{id: p.ID, allow: p.Permission}
		switch p.Type {
		case command.PermissionRole:
			o.roles = append(o.roles, e)
		case command.PermissionUser:
			o.users = append(o.users, e)
		case command.PermissionChannel:
			o.channels = append(o.channels, e)
		}
	}
	o.roles, o.users, o.channels = sortLastWins(o.roles), sortLastWins(o.users), sortLastWins(o.channels)
	return o
}

// sortLastWins sorts by id, keeping only the last of equal ids.
func sortLastWins(es []entry) []entry {
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
	out := es[:0]
	for i, e := range es {
		if i+1 < len(es) && es[i+1].id == e.id {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Len is the number of distinct targets.
func (o *Overwrites) Len() int { return len(o.roles) + len(o.users) + len(o.channels) }

func find(es []entry, id snowflake.ID) (allow, found bool) {
	if i, ok := slices.BinarySearchFunc(es, id, byID); ok {
		return es[i].allow, true
	}
	return false, false
}

func (o *Overwrites) channel(id snowflake.ID) (bool, bool) { return find(o.channels, id) }
func (o *Overwrites) user(id snowflake.ID) (bool, bool)    { return find(o.users, id) }
func (o *Overwrites) role(id snowflake.ID) (bool, bool)    { return find(o.roles, id) }

// memberRoles merges the member's roles (sorted, without @everyone) with the
// role entries: yes and the first allowing role when one of them allows,
// no when all that match deny, unset when none match.
func (o *Overwrites) memberRoles(member []snowflake.ID) (verdict, snowflake.ID) {
	es := o.roles
	v := unset
	i, j := 0, 0
	for i < len(member) && j < len(es) {
		a, b := member[i], es[j].id
		if a == b {
			if es[j].allow {
				return yes, b
			}
			v = no
		}
		if a <= b {
			i++
		}
		if b <= a {
			j++
		}
	}
	return v, 0
}

// eachMatch calls f with each of the member's roles that has an entry.
func (o *Overwrites) eachMatch(member []snowflake.ID, f func(snowflake.ID)) {
	es := o.roles
	i, j := 0, 0
	for i < len(member) && j < len(es) {
		a, b := member[i], es[j].id
		if a == b {
			f(a)
		}
		if a <= b {
			i++
		}
		if b <= a {
			j++
		}
	}
}

// Index holds one app's overwrite lists in one guild, compiled once per
// change of those lists: the app-level list and each command's list. It
// is read-only once built and safe for concurrent use.
type Index struct {
	app      Overwrites
	commands map[snowflake.ID]int // into lists
	lists    []Overwrites
}

// NewIndex compiles the lists of one app in one guild: the one whose ID is
// appID is the app-level list, the others are command-level lists keyed
// by command id.
func NewIndex(appID snowflake.ID, lists []command.GuildPermissions) *Index {
	x := &Index{commands: make(map[snowflake.ID]int, len(lists)), lists: make([]Overwrites, 0, len(lists))}
	for _, l := range lists {
		o := CompileOverwrites(l.Permissions)
		switch i, dup := x.commands[l.ID]; {
		case l.ID == appID:
			x.app = o
		case dup:
			x.lists[i] = o
		default:
			x.commands[l.ID] = len(x.lists)
			x.lists = append(x.lists, o)
		}
	}
	return x
}

// command is the compiled command-level list of a command (empty if none).
func (x *Index) command(id snowflake.ID) *Overwrites {
	if x != nil {
		if i, ok := x.commands[id]; ok {
			return &x.lists[i]
		}
	}
	return &noOverwrites
}

// noOverwrites is the empty list; never written.
var noOverwrites Overwrites

func (x *Index) appList() *Overwrites {
	if x == nil {
		return &noOverwrites
	}
	return &x.app
}

// Context is who uses commands where: the member's part of Input. Where,
// Installed and UserInstalled mean what they mean in Input; outside
// guilds only Member.UserID and Adult of the guild fields count.
type Context struct {
	Guild         guild.Guild
	Roles         guild.Roles
	Member        guild.Member
	Adult         bool
	Channel       guild.Channel
	Parent        *guild.Channel // when Channel is a thread
	Where         int
	Installed     bool
	UserInstalled bool
}

// Viewer is a Context compiled once for deciding many commands: the
// member's sorted roles, owner and administrator flags, the channel whose
// overwrites apply (a thread's parent) and the member's permissions there.
// It is read-only once built and safe for concurrent use.
type Viewer struct {
	guildID, userID snowflake.ID
	channelID       snowflake.ID // where the command is used
	scopeID         snowflake.ID // the channel whose entries and overwrites apply
	allChannelsID   snowflake.ID
	where           int // the interaction context
	installed       bool
	userInstalled   bool
	adult           bool
	ageRestricted   bool
	owner, admin    bool
	roles           []snowflake.ID    // sorted, distinct, without @everyone
	perms           guild.Permissions // in the scope channel
}

// NewViewer compiles a Context. For a thread (a thread channel type with
// Parent set) the parent stands for the channel: its id is matched by
// channel entries, its NSFW flag makes it age-restricted, its overwrites
// give the member's permissions. A thread without Parent falls back to its
// ParentID for channel entries, is not age-restricted, and uses its own
// overwrites. Parent is ignored when Channel is not a thread: a category's
// entries and overwrites do not reach the channels in it.
func NewViewer(ctx Context) *Viewer {
	if ctx.Where != command.ContextGuild {
		return &Viewer{where: ctx.Where, userID: ctx.Member.UserID, adult: ctx.Adult,
			installed: ctx.Installed, userInstalled: ctx.UserInstalled}
	}
	g := ctx.Guild
	v := &Viewer{
		guildID:       g.ID,
		userID:        ctx.Member.UserID,
		channelID:     ctx.Channel.ID,
		scopeID:       ctx.Channel.ID,
		allChannelsID: command.AllChannelsID(g.ID),
		installed:     ctx.Installed,
		userInstalled: ctx.UserInstalled,
		adult:         ctx.Adult,
		ageRestricted: ctx.Channel.NSFW,
		owner:         ctx.Member.UserID == g.OwnerID,
	}
	permCh := &ctx.Channel
	if guild.IsThread(ctx.Channel.Type) {
		switch {
		case ctx.Parent != nil:
			v.scopeID = ctx.Parent.ID
			v.ageRestricted = ctx.Parent.NSFW
			permCh = ctx.Parent
		case ctx.Channel.ParentID != 0:
			v.scopeID = ctx.Channel.ParentID
			v.ageRestricted = false
		default:
			v.ageRestricted = false
		}
	}
	v.admin = guild.BasePermissions(g, ctx.Roles, ctx.Member).Has(guild.Administrator)
	v.perms = guild.ChannelPermissions(g, ctx.Roles, ctx.Member, *permCh)

	v.roles = make([]snowflake.ID, 0, len(ctx.Member.Roles))
	for _, id := range ctx.Member.Roles {
		if id != guild.EveryoneRoleID(g.ID) {
			v.roles = append(v.roles, id)
		}
	}
	slices.Sort(v.roles)
	v.roles = slices.Compact(v.roles)
	return v
}

// Decide decides one command with the lists of x (nil x: no lists).
func (v *Viewer) Decide(x *Index, c command.Command) Decision {
	app := v.appLevel(x.appList())
	return v.decide(&c, x.command(c.ID), &app)
}

// DecideAll decides every command of cmds, in order, appending to dst:
// the command picker's work. The app-level list is evaluated once.
func (v *Viewer) DecideAll(x *Index, cmds []command.Command, dst []Decision) []Decision {
	app := v.appLevel(x.appList())
	dst = slices.Grow(dst, len(cmds))
	for i := range cmds {
		dst = append(dst, v.decide(&cmds[i], x.command(cmds[i].ID), &app))
	}
	return dst
}

// verdict is what a lookup found.
type verdict uint8

const (
	unset verdict = iota // no entry
	yes                  // allowed
	no                   // denied (for channels: this channel)
	noAll                // denied by All Channels
)

type permKind uint8

const (
	permEveryone permKind = iota
	permUser
	permRole
)

// appLevel is the app-level list's verdicts for one viewer: the same for
// every command, so the picker computes them once.
type appLevel struct {
	channel     verdict // unset, yes, no or noAll
	member      verdict // unset, yes or no
	memberKind  permKind
	memberID    snowflake.ID // the allowing role
	deniedRoles string       // when the member's roles all deny: their ids
}

func (v *Viewer) appLevel(o *Overwrites) appLevel {
	var a appLevel
	if ok, found := o.channel(v.scopeID); found {
		a.channel = no
		if ok {
			a.channel = yes
		}
	} else if ok, found := o.channel(v.allChannelsID); found {
		a.channel = noAll
		if ok {
			a.channel = yes
		}
	}
	if ok, found := o.user(v.userID); found {
		a.member, a.memberKind = no, permUser
		if ok {
			a.member = yes
		}
	} else if r, id := o.memberRoles(v.roles); r != unset {
		a.member, a.memberKind, a.memberID = r, permRole, id
		if r == no {
			a.deniedRoles = string(msg(nil).roles(o, v.roles))
		}
	} else if ok, found := o.role(v.guildID); found {
		a.member, a.memberKind = no, permEveryone
		if ok {
			a.member = yes
		}
	}
	return a
}

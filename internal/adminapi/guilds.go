package adminapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var (
	errDeleteEveryone = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The @everyone role cannot be deleted")
	errDeleteManaged = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A managed role cannot be deleted: uninstall its application instead")
	errRemoveOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The guild owner cannot be removed: transfer the guild first")
)

// guildDetail is GET /admin/v1/guilds/{guild_id}: the guild with
// everything in it.
type guildDetail struct {
	guild.Guild
	Roles         []guild.Role    `json:"roles"`
	Channels      []admin.Channel `json:"channels"`
	Members       []admin.Member  `json:"members"`
	Installations []installation  `json:"installations"`
}

// owner reads owner_id, which must name a user who is not a bot, of the
// guild's test world. ok is false when the body has none; err is the
// form's errors (the other fields' read before included) or the store's.
func (a *API) owner(ctx context.Context, f admin.Form, world snowflake.ID) (id snowflake.ID, ok bool, err error) {
	id, ok = f.ID("owner_id")
	if err := f.Err(); err != nil || !ok {
		return id, ok, err
	}
	u, err := a.Store.User(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		f.At("owner_id").Add(admin.CodeUnknownUser, "Unknown User")
	case err != nil:
		return id, ok, err
	case u.Bot:
		f.At("owner_id").Add(admin.CodeGuildOwner, "A bot user cannot own a guild")
	case u.WorldID != world:
		f.At("owner_id").Add(admin.CodeWorldMismatch, admin.WorldMismatchMessage("user", u.WorldID, "guild", world))
	}
	return id, ok, f.Err()
}

func (a *API) createGuild(ctx context.Context, req *Request) (Response, error) {
	name, _ := admin.GuildName(req.Form, true)
	req.Form.Require("owner_id")
	world, err := a.worldField(ctx, req.Form)
	if err != nil {
		return Response{}, err
	}
	owner, _, err := a.owner(ctx, req.Form, world)
	if err != nil {
		return Response{}, err
	}
	g := store.Guild{ID: a.nextID(), Name: name, OwnerID: owner, CreatedAt: a.Now().UTC(), WorldID: world}
	return created(g), a.Store.CreateGuild(ctx, g)
}

func (a *API) listGuilds(ctx context.Context, _ *Request) (Response, error) {
	gs, err := a.Store.Guilds(ctx)
	return ok(gs), err
}

func (a *API) getGuild(ctx context.Context, req *Request) (Response, error) {
	snap, members, err := a.guildState(ctx, req.Guild.ID)
	return ok(guildDetail{Guild: snap.Guild, Roles: snap.Roles,
		Channels: convertAll(snap.Channels, admin.ChannelOf), Members: convertAll(members, admin.MemberOf),
		Installations: installationsOf(snap.Installations, snap.Roles, members)}), err
}

func (a *API) editGuild(ctx context.Context, req *Request) (Response, error) {
	f, g := req.Form, req.Guild
	for _, k := range []string{"name", "owner_id"} {
		if f.Null(k) {
			f.At(k).Add(form.CodeRequired, form.MsgRequired)
		}
	}
	if name, ok := admin.GuildName(f, false); ok {
		g.Name = name
	}
	owner, hasOwner, err := a.owner(ctx, f, g.WorldID)
	if err != nil {
		return Response{}, err
	}
	if hasOwner {
		g.OwnerID = owner
	}
	return ok(g), a.Store.UpdateGuild(ctx, g)
}

// deleteGuild deletes the guild with its roles, members, channels,
// installations, commands and permission lists, in one transaction.
func (a *API) deleteGuild(ctx context.Context, req *Request) (Response, error) {
	return noContent, a.Store.DeleteGuild(ctx, req.Guild.ID)
}

// guildState reads a guild's snapshot and its members: what the guild
// and installation answers are built from.
func (a *API) guildState(ctx context.Context, guildID snowflake.ID) (store.Snapshot, []guild.Member, error) {
	snap, err := a.Store.Snapshot(ctx, guildID)
	if err != nil {
		return snap, nil, store.NotFoundAs(err, errUnknownGuild)
	}
	members, err := a.Store.Members(ctx, guildID)
	return snap, members, err
}

// ---- roles ----

func (a *API) createRole(ctx context.Context, req *Request) (Response, error) {
	role := guild.Role{GuildID: req.Guild.ID, Position: 1}
	admin.RoleFields(req.Form, &role, true)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	role.ID = a.nextID()
	return created(role), a.Store.CreateRole(ctx, role)
}

func (a *API) listRoles(ctx context.Context, req *Request) (Response, error) {
	roles, err := a.Store.Roles(ctx, req.Guild.ID)
	return ok(roles), err
}

func (a *API) getRole(_ context.Context, req *Request) (Response, error) {
	return ok(req.Role), nil
}

func (a *API) editRole(ctx context.Context, req *Request) (Response, error) {
	admin.RoleFields(req.Form, &req.Role, false)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	return ok(req.Role), a.Store.UpdateRole(ctx, req.Role)
}

func (a *API) deleteRole(ctx context.Context, req *Request) (Response, error) {
	g, role := req.Guild, req.Role
	switch {
	case role.ID == guild.EveryoneRoleID(g.ID):
		return Response{}, errDeleteEveryone
	case role.Managed:
		return Response{}, errDeleteManaged
	}
	err := a.Store.DeleteRole(ctx, g.ID, role.ID)
	if errors.Is(err, store.ErrConflict) {
		return Response{}, errDeleteEveryone
	}
	return noContent, err
}

// ---- members ----

// putMember is PUT /admin/v1/guilds/{guild_id}/members/{user_id}
// {roles?, nick?}: adds the user to the guild (201) or replaces their
// roles and nick (200; joined_at is kept). The body may be left out.
func (a *API) putMember(ctx context.Context, req *Request) (Response, error) {
	g, u := req.Guild, req.User
	if err := admin.SameWorld("user", u.WorldID, "guild", g.WorldID, "user_id"); err != nil {
		return Response{}, err
	}
	m := guild.Member{GuildID: g.ID, UserID: u.ID, Roles: []snowflake.ID{}, JoinedAt: a.Now().UTC()}
	if err := admin.MemberFields(ctx, a.Store, req.Form, &m); err != nil {
		return Response{}, err
	}
	old, err := a.Store.Member(ctx, g.ID, u.ID)
	isNew := errors.Is(err, store.ErrNotFound)
	switch {
	case err == nil:
		m.JoinedAt = old.JoinedAt
	case !isNew:
		return Response{}, err
	}
	if err := a.Store.PutMember(ctx, m); err != nil {
		return Response{}, err
	}
	m, err = a.Store.Member(ctx, g.ID, u.ID)
	return createdIf(isNew, admin.MemberOf(m)), err
}

func (a *API) listMembers(ctx context.Context, req *Request) (Response, error) {
	members, err := a.Store.Members(ctx, req.Guild.ID)
	return ok(convertAll(members, admin.MemberOf)), err
}

func (a *API) getMember(_ context.Context, req *Request) (Response, error) {
	return ok(admin.MemberOf(req.Member)), nil
}

func (a *API) deleteMember(ctx context.Context, req *Request) (Response, error) {
	if req.Member.UserID == req.Guild.OwnerID {
		return Response{}, errRemoveOwner
	}
	err := a.Store.DeleteMember(ctx, req.Guild.ID, req.Member.UserID)
	if errors.Is(err, store.ErrConflict) {
		return Response{}, errRemoveOwner
	}
	return noContent, err
}

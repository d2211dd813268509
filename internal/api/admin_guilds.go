package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// adminGuildDetail is GET /admin/v1/guilds/{guild_id}: the guild with
// everything in it.
type adminGuildDetail struct {
	guild.Guild
	Roles         []guild.Role        `json:"roles"`
	Channels      []admin.Channel     `json:"channels"`
	Members       []admin.Member      `json:"members"`
	Installations []adminInstallation `json:"installations"`
}

// adminPathGuild reads the guild named by the guild_id path parameter.
func (s *Server) adminPathGuild(r *http.Request) (store.Guild, error) {
	id, err := pathID(r, "guild_id")
	if err != nil {
		return store.Guild{}, err
	}
	g, err := s.store.Guild(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return g, errUnknownGuild
	}
	return g, err
}

// adminOwner checks owner_id names a user who is not a bot.
func (s *Server) adminOwner(ctx context.Context, f admin.Form, id snowflake.ID) error {
	u, err := s.store.User(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		f.At("owner_id").Add(admin.CodeUnknownUser, "Unknown User")
	case err != nil:
		return err
	case u.Bot:
		f.At("owner_id").Add(admin.CodeGuildOwner, "A bot user cannot own a guild")
	}
	return nil
}

func (s *Server) adminCreateGuild(w http.ResponseWriter, r *http.Request) error {
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	name, _ := admin.GuildName(f, true)
	f.Require("owner_id")
	owner, ownerOK := f.ID("owner_id")
	if err := f.Err(); err != nil {
		return err
	}
	if ownerOK {
		if err := s.adminOwner(r.Context(), f, owner); err != nil {
			return err
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	g := store.Guild{ID: s.nextID(), Name: name, OwnerID: owner, CreatedAt: s.now().UTC()}
	if err := s.store.CreateGuild(r.Context(), g); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, g)
	return nil
}

func (s *Server) adminListGuilds(w http.ResponseWriter, r *http.Request) error {
	gs, err := s.store.Guilds(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, gs)
	return nil
}

func (s *Server) adminGetGuild(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	snap, members, err := s.adminGuildState(r.Context(), g.ID)
	if err != nil {
		return err
	}
	out := adminGuildDetail{Guild: snap.Guild, Roles: snap.Roles,
		Channels: convertAll(snap.Channels, admin.ChannelOf), Members: convertAll(members, admin.MemberOf),
		Installations: adminInstallationsOf(snap.Installations, snap.Roles, members)}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) adminEditGuild(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	for _, k := range []string{"name", "owner_id"} {
		if f.Null(k) {
			f.At(k).Add(form.CodeRequired, form.MsgRequired)
		}
	}
	if name, ok := admin.GuildName(f, false); ok {
		g.Name = name
	}
	owner, ownerOK := f.ID("owner_id")
	if err := f.Err(); err != nil {
		return err
	}
	if ownerOK {
		if err := s.adminOwner(r.Context(), f, owner); err != nil {
			return err
		}
		g.OwnerID = owner
	}
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.store.UpdateGuild(r.Context(), g); err != nil {
		return notFoundAs(err, errUnknownGuild)
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// adminDeleteGuild deletes the guild with its roles, members, channels,
// installations, commands and permission lists, in one transaction.
func (s *Server) adminDeleteGuild(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "guild_id")
	if err != nil {
		return err
	}
	if err := s.store.DeleteGuild(r.Context(), id); err != nil {
		return notFoundAs(err, errUnknownGuild)
	}
	writeNoContent(w)
	return nil
}

// adminGuildState reads a guild's snapshot and its members: what the guild
// and installation answers are built from.
func (s *Server) adminGuildState(ctx context.Context, guildID snowflake.ID) (store.Snapshot, []guild.Member, error) {
	snap, err := s.store.Snapshot(ctx, guildID)
	if err != nil {
		return snap, nil, notFoundAs(err, errUnknownGuild)
	}
	members, err := s.store.Members(ctx, guildID)
	return snap, members, err
}

// ---- roles ----

// adminPathRole reads the role named by the role_id path parameter in g.
func (s *Server) adminPathRole(r *http.Request, g store.Guild) (guild.Role, error) {
	id, err := pathID(r, "role_id")
	if err != nil {
		return guild.Role{}, err
	}
	role, err := s.store.Role(r.Context(), g.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return role, adminErrUnknownRole
	}
	return role, err
}

func (s *Server) adminCreateRole(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	role := guild.Role{GuildID: g.ID, Position: 1}
	admin.RoleFields(f, &role, true)
	if err := f.Err(); err != nil {
		return err
	}
	role.ID = s.nextID()
	if err := s.store.CreateRole(r.Context(), role); err != nil {
		return notFoundAs(err, errUnknownGuild)
	}
	writeJSON(w, http.StatusCreated, role)
	return nil
}

func (s *Server) adminListRoles(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	roles, err := s.store.Roles(r.Context(), g.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, roles)
	return nil
}

func (s *Server) adminGetRole(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	role, err := s.adminPathRole(r, g)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, role)
	return nil
}

func (s *Server) adminEditRole(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	role, err := s.adminPathRole(r, g)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	admin.RoleFields(f, &role, false)
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.store.UpdateRole(r.Context(), role); err != nil {
		return notFoundAs(err, adminErrUnknownRole)
	}
	writeJSON(w, http.StatusOK, role)
	return nil
}

func (s *Server) adminDeleteRole(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	role, err := s.adminPathRole(r, g)
	if err != nil {
		return err
	}
	switch {
	case role.ID == guild.EveryoneRoleID(g.ID):
		return adminErrDeleteEveryone
	case role.Managed:
		return adminErrDeleteManaged
	}
	err = s.store.DeleteRole(r.Context(), g.ID, role.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return adminErrUnknownRole
	case errors.Is(err, store.ErrConflict):
		return adminErrDeleteEveryone
	case err != nil:
		return err
	}
	writeNoContent(w)
	return nil
}

// ---- members ----

// adminPutMember is PUT /admin/v1/guilds/{guild_id}/members/{user_id}
// {roles?, nick?}: adds the user to the guild (201) or replaces their
// roles and nick (200; joined_at is kept). The body may be left out.
func (s *Server) adminPutMember(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, true)
	if err != nil {
		return err
	}
	m := guild.Member{GuildID: g.ID, UserID: u.ID, Roles: []snowflake.ID{}, JoinedAt: s.now().UTC()}
	if err := admin.MemberFields(r.Context(), s.store, f, &m); err != nil {
		return err
	}
	status := http.StatusCreated
	old, err := s.store.Member(r.Context(), g.ID, u.ID)
	switch {
	case err == nil:
		status, m.JoinedAt = http.StatusOK, old.JoinedAt
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	if err := s.store.PutMember(r.Context(), m); err != nil {
		return err
	}
	m, err = s.store.Member(r.Context(), g.ID, u.ID)
	if err != nil {
		return err
	}
	writeJSON(w, status, admin.MemberOf(m))
	return nil
}

func (s *Server) adminListMembers(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	members, err := s.store.Members(r.Context(), g.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(members, admin.MemberOf))
	return nil
}

// adminPathMember reads the membership of the user_id path parameter in g.
func (s *Server) adminPathMember(r *http.Request, g store.Guild) (guild.Member, error) {
	id, err := pathID(r, "user_id")
	if err != nil {
		return guild.Member{}, err
	}
	m, err := s.store.Member(r.Context(), g.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return m, adminErrUnknownMember
	}
	return m, err
}

func (s *Server) adminGetMember(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	m, err := s.adminPathMember(r, g)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, admin.MemberOf(m))
	return nil
}

func (s *Server) adminDeleteMember(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	m, err := s.adminPathMember(r, g)
	if err != nil {
		return err
	}
	if m.UserID == g.OwnerID {
		return adminErrRemoveOwner
	}
	err = s.store.DeleteMember(r.Context(), g.ID, m.UserID)
	switch {
	case errors.Is(err, store.ErrConflict):
		return adminErrRemoveOwner
	case errors.Is(err, store.ErrNotFound):
		return adminErrUnknownMember
	case err != nil:
		return err
	}
	writeNoContent(w)
	return nil
}

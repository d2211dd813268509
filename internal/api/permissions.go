package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// listGuildPermissions returns every overwrite list the app has in the
// guild (only commands that have one, and the app-level list).
func (s *Server) listGuildPermissions(w http.ResponseWriter, r *http.Request) error {
	t, err := s.resolveGuild(r)
	if err != nil {
		return err
	}
	list, err := s.store.GuildPermissions(r.Context(), t.app.ID, t.scope.GuildID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// getCommandPermissions returns one list; 10066 when none is set, which is
// also the case of a command that was deleted (its permissions went with
// it) or never existed.
func (s *Server) getCommandPermissions(w http.ResponseWriter, r *http.Request) error {
	t, err := s.resolveGuild(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	gp, err := s.store.CommandPermissions(r.Context(), t.app.ID, t.scope.GuildID, id)
	if errors.Is(err, store.ErrNotFound) {
		return errUnknownCmdPerms
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, gp)
	return nil
}

// editCommandPermissions replaces one overwrite list. Only a Bearer token
// with applications.commands.permissions.update, granted by a user with
// the rights to manage the guild, may do it (spec §5).
func (s *Server) editCommandPermissions(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if p.Bot() {
		return errBotsCannotUse
	}
	if !p.Token.HasScope(auth.ScopeCommandsPermissionsUpdate) {
		return missingScope(errMissingScope, auth.ScopeCommandsPermissionsUpdate)
	}
	t, err := s.resolveGuild(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	perms, errs := command.ParsePermissions(body)
	if err := errs.Err(); err != nil {
		return err
	}
	if err := s.checkPermissionEditor(r, t, p.Token.UserID, id, perms); err != nil {
		return err
	}
	gp, err := s.store.SetCommandPermissions(r.Context(), t.app.ID, t.scope.GuildID, id,
		func(exists bool, _ []command.Permission) ([]command.Permission, error) {
			if !exists {
				return nil, errUnknownCommand
			}
			return perms, nil
		})
	if err != nil {
		return err
	}
	// The gateway delivers this to the app (spec §6).
	s.events.Publish(context.WithoutCancel(r.Context()), event.Event{
		Type: event.ApplicationCommandPermissionsUpdate, ApplicationID: t.app.ID, GuildID: t.scope.GuildID, Data: gp,
	})
	writeJSON(w, http.StatusOK, gp)
	return nil
}

// checkPermissionEditor applies the spec's conditions on the user who
// granted the token (spec §5): a member with MANAGE_GUILD and MANAGE_ROLES
// (the owner and administrators qualify) who can use the command being
// edited and may manage every role, user and channel the list names.
// Targets that do not exist are field errors.
func (s *Server) checkPermissionEditor(r *http.Request, t target, userID, commandID snowflake.ID, perms []command.Permission) error {
	ctx := r.Context()
	if userID == 0 {
		return errMissingPerms
	}
	view, err := s.loadMemberView(ctx, t.scope.GuildID, userID)
	if errors.Is(err, errNotMember) {
		return errMissingPerms
	}
	if err != nil {
		return err
	}
	base := view.basePermissions()
	if !base.Has(guild.ManageGuild | guild.ManageRoles) {
		return errMissingPerms
	}
	if err := s.checkEditorCanUse(ctx, t, view, commandID); err != nil {
		return err
	}
	members, err := s.checkTargetsExist(ctx, view, t.scope.GuildID, perms)
	if err != nil {
		return err
	}
	if !mayManageTargets(view, base, members, perms) {
		return errMissingPerms
	}
	return nil
}

// checkEditorCanUse: the editor must be able to use the command, judged
// guild-wide: no channel entry applies (neither a channel's nor All
// Channels: they only say where the command may be used, and an editor
// who restricted a command to one channel must still be able to edit
// it), no channel's permission overwrites count, and the channel part of
// the age restriction is left out (the user's age is not).
func (s *Server) checkEditorCanUse(ctx context.Context, t target, view memberView, commandID snowflake.ID) error {
	if commandID == t.app.ID {
		return nil // the app-level list
	}
	cmd, err := s.store.Command(ctx, t.scope, commandID)
	if errors.Is(err, store.ErrNotFound) {
		cmd, err = s.store.Command(ctx, command.Scope{ApplicationID: t.app.ID}, commandID)
	}
	if err != nil {
		return commandErr(err)
	}
	lists, err := s.store.GuildPermissions(ctx, t.app.ID, t.scope.GuildID)
	if err != nil {
		return err
	}
	vw := access.NewViewer(view.context(guild.Channel{NSFW: true}, t.app.ID))
	if !vw.Decide(access.NewIndex(t.app.ID, withoutChannelEntries(lists)), cmd).Allowed {
		return errMissingPerms
	}
	return nil
}

// withoutChannelEntries copies lists without their channel entries.
func withoutChannelEntries(lists []command.GuildPermissions) []command.GuildPermissions {
	out := make([]command.GuildPermissions, len(lists))
	for i, l := range lists {
		out[i] = l
		out[i].Permissions = make([]command.Permission, 0, len(l.Permissions))
		for _, p := range l.Permissions {
			if p.Type != command.PermissionChannel {
				out[i].Permissions = append(out[i].Permissions, p)
			}
		}
	}
	return out
}

// checkTargetsExist: every role, user and channel named must exist in the
// guild (the @everyone and all-channels constants always do). It returns
// the named members.
func (s *Server) checkTargetsExist(ctx context.Context, view memberView, guildID snowflake.ID,
	perms []command.Permission,
) (map[snowflake.ID]guild.Member, error) {
	errs := &apierr.Fields{}
	members := map[snowflake.ID]guild.Member{}
	for i, p := range perms {
		switch p.Type {
		case command.PermissionRole:
			if _, ok := view.roles[p.ID]; !ok {
				errs.At("permissions", i, "id").Add("UNKNOWN_ROLE", "Unknown Role")
			}
		case command.PermissionChannel:
			if _, ok := view.channels[p.ID]; !ok && p.ID != command.AllChannelsID(guildID) {
				errs.At("permissions", i, "id").Add("UNKNOWN_CHANNEL", "Unknown Channel")
			}
		case command.PermissionUser:
			m, err := s.store.Member(ctx, guildID, p.ID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				errs.At("permissions", i, "id").Add("UNKNOWN_USER", "Unknown User")
			case err != nil:
				return nil, err
			default:
				members[p.ID] = m
			}
		}
	}
	return members, errs.Err()
}

// mayManageTargets: owners and administrators manage everything; others
// only roles below their highest role, members whose highest role is
// below theirs (and themselves), and channels they can view.
func mayManageTargets(view memberView, base guild.Permissions, members map[snowflake.ID]guild.Member,
	perms []command.Permission,
) bool {
	if view.member.UserID == view.snap.Guild.OwnerID || base.Has(guild.Administrator) {
		return true
	}
	top := guild.HighestRolePosition(view.roles, view.member)
	for _, p := range perms {
		switch p.Type {
		case command.PermissionRole:
			if p.ID != view.snap.Guild.ID && view.roles[p.ID].Position >= top {
				return false
			}
		case command.PermissionChannel:
			ch, ok := view.channels[p.ID]
			if !ok {
				continue // all channels
			}
			if guild.IsThread(ch.Type) {
				if parent, ok := view.channels[ch.ParentID]; ok {
					ch = parent
				}
			}
			if !guild.ChannelPermissions(view.snap.Guild, view.roles, view.member, ch).Has(guild.ViewChannel) {
				return false
			}
		case command.PermissionUser:
			if p.ID == view.member.UserID {
				continue
			}
			if p.ID == view.snap.Guild.OwnerID {
				return false // nobody outranks the owner
			}
			if guild.HighestRolePosition(view.roles, members[p.ID]) >= top {
				return false
			}
		}
	}
	return true
}

// batchEditPermissions is the batch endpoint removed by permissions v2:
// the real service answers 405.
func (s *Server) batchEditPermissions(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", "GET")
	return errMethod
}

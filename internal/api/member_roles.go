package api

import (
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Add and Remove Guild Member Role: PUT and DELETE
// /guilds/{guild_id}/members/{user_id}/roles/{role_id}, what a bot
// handing out roles calls (Discordeno's guide bot: bot.helpers.addRole /
// removeRole; discord.js member.roles.add / remove). As on the real
// service they need MANAGE_ROLES, reach only roles below the caller's
// highest role (the guild's owner reaches every role), answer 204 and
// fire GUILD_MEMBER_UPDATE (the store records the change, world
// events publish it). A managed role (a bot's) and @everyone are no
// one's to hand out: 50013. An unknown user is 10013, a user who is no
// member 10007, an unknown role 10011. X-Audit-Log-Reason is accepted and not kept
// (slashd keeps no audit log). docs/compat.md, "Member roles".

func (s *Server) addGuildMemberRole(w http.ResponseWriter, r *http.Request) error {
	return s.changeGuildMemberRole(w, r, true)
}

func (s *Server) removeGuildMemberRole(w http.ResponseWriter, r *http.Request) error {
	return s.changeGuildMemberRole(w, r, false)
}

// changeGuildMemberRole adds (add) or removes the path's role from the
// path's member, once the caller may.
func (s *Server) changeGuildMemberRole(w http.ResponseWriter, r *http.Request, add bool) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	userID, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	roleID, err := pathID(r, "role_id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	member, err := s.store.Member(ctx, view.snap.Guild.ID, userID)
	if errors.Is(err, store.ErrNotFound) {
		// As GET /members/{user_id}: no such user, or no such member.
		if _, err := s.store.User(ctx, userID); err != nil {
			return store.NotFoundAs(err, errUnknownUser)
		}
		return errUnknownMember
	}
	if err != nil {
		return err
	}
	role, ok := view.roles[roleID]
	if !ok {
		return errUnknownRole
	}
	if !mayHandOut(view, role) {
		return errMissingPerms
	}
	has := slices.Contains(member.Roles, roleID)
	switch {
	case add && !has:
		member.Roles = append(slices.Clone(member.Roles), roleID)
	case !add && has:
		member.Roles = slices.DeleteFunc(slices.Clone(member.Roles), func(id snowflake.ID) bool { return id == roleID })
	default:
		writeNoContent(w) // nothing to change: the real service answers 204 too
		return nil
	}
	if err := s.store.PutMember(ctx, member); err != nil {
		return store.NotFoundAs(err, errUnknownMember)
	}
	writeNoContent(w)
	return nil
}

// mayHandOut reports whether the caller of view may give or take role:
// MANAGE_ROLES (administrators and the owner have it), a role that is
// neither @everyone nor managed, below the caller's highest role unless
// the caller owns the guild.
func mayHandOut(view memberView, role guild.Role) bool {
	if role.ID == view.snap.Guild.ID || role.Managed {
		return false
	}
	if view.member.UserID == view.snap.Guild.OwnerID {
		return true
	}
	if !view.basePermissions().Has(guild.ManageRoles) {
		return false
	}
	return role.Position < guild.HighestRolePosition(view.roles, view.member)
}

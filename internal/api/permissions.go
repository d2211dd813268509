package api

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
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
		return errMissingScope
	}
	t, err := s.resolveGuild(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	if err := s.checkPermissionEditor(r, t, p); err != nil {
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
	writeJSON(w, http.StatusOK, gp)
	return nil
}

// checkPermissionEditor: the user who granted the token must be allowed to
// manage the guild. Until guild members and roles exist, that is the
// guild's owner (who holds every permission).
func (s *Server) checkPermissionEditor(r *http.Request, t target, p auth.Principal) error {
	g, err := s.store.Guild(r.Context(), t.scope.GuildID)
	if err != nil {
		return err
	}
	if p.Token.UserID == 0 || g.OwnerID != p.Token.UserID {
		return errMissingPerms
	}
	return nil
}

// batchEditPermissions is the batch endpoint removed by permissions v2:
// the real service answers 405.
func (s *Server) batchEditPermissions(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", "GET")
	return errMethod
}

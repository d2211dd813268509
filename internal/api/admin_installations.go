package api

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// adminInstallScopes are the scopes an installation may grant.
var adminInstallScopes = []string{auth.ScopeApplicationsCommands, auth.ScopeBot}

// adminInstallation is an installation on the wire. With the bot scope,
// role_id is the bot's managed role and permissions its bits; both are
// null otherwise.
type adminInstallation struct {
	GuildID       snowflake.ID       `json:"guild_id"`
	ApplicationID snowflake.ID       `json:"application_id"`
	Scopes        []string           `json:"scopes"`
	RoleID        *snowflake.ID      `json:"role_id"`
	Permissions   *guild.Permissions `json:"permissions"`
}

// adminBotRole finds the managed role of an app's bot among a guild's
// members and roles.
func adminBotRole(appID snowflake.ID, roles []guild.Role, members []guild.Member) (guild.Role, bool) {
	for _, m := range members {
		if m.UserID != appID {
			continue
		}
		for _, id := range m.Roles {
			for _, r := range roles {
				if r.ID == id && r.Managed {
					return r, true
				}
			}
		}
	}
	return guild.Role{}, false
}

func adminInstallationsOf(insts []store.Installation, roles []guild.Role, members []guild.Member) []adminInstallation {
	out := make([]adminInstallation, len(insts))
	for i, inst := range insts {
		out[i] = adminInstallationOf(inst, roles, members)
	}
	return out
}

func adminInstallationOf(inst store.Installation, roles []guild.Role, members []guild.Member) adminInstallation {
	scopes := inst.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	out := adminInstallation{GuildID: inst.GuildID, ApplicationID: inst.ApplicationID, Scopes: scopes}
	if r, ok := adminBotRole(inst.ApplicationID, roles, members); ok && inst.HasScope(auth.ScopeBot) {
		id, p := r.ID, r.Permissions
		out.RoleID, out.Permissions = &id, &p
	}
	return out
}

// adminSyncBot makes the world match an installation (see bootstrap.SyncBot).
func (s *Server) adminSyncBot(ctx context.Context, guildID snowflake.ID, app store.Application, bot bool, perms guild.Permissions) error {
	env := bootstrap.Env{Store: s.store, IDs: s.ids, Rand: s.rand, Now: s.now}
	return bootstrap.SyncBot(ctx, env, guildID, app, bot, perms)
}

// adminInstall is PUT /admin/v1/guilds/{guild_id}/installations/{application_id}
// {scopes, permissions?}: installs the app (201) or replaces its
// installation (200). With the bot scope the app's bot joins the guild
// with a managed role carrying permissions (default "0"); without it, a
// bot membership left from an earlier installation is removed. The app
// must support GUILD_INSTALL (installations made before it stopped stay).
func (s *Server) adminInstall(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	var scopes []string
	if f.Require("scopes") {
		scopes, _ = adminScopes(f, adminInstallScopes)
	}
	perms, _ := f.Perms("permissions")
	bot := slices.Contains(scopes, auth.ScopeBot)
	if f.Present("permissions") && !bot && len(scopes) > 0 {
		f.At("permissions").Add(admin.CodeInstallPerms, "Permissions are only granted with the bot scope")
	}
	if err := f.Err(); err != nil {
		return err
	}
	if len(app.IntegrationTypes) > 0 && !slices.Contains(app.IntegrationTypes, command.GuildInstall) {
		return adminErrNoGuildInstall
	}
	status := http.StatusCreated
	if _, err := s.store.Installation(r.Context(), g.ID, app.ID); err == nil {
		status = http.StatusOK
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	inst := store.Installation{GuildID: g.ID, ApplicationID: app.ID, Scopes: scopes, CreatedAt: s.now().UTC()}
	if err := s.store.Install(r.Context(), inst); err != nil {
		return err
	}
	if err := s.adminSyncBot(r.Context(), g.ID, app, bot, perms); err != nil {
		return err
	}
	snap, members, err := s.adminGuildState(r.Context(), g.ID)
	if err != nil {
		return err
	}
	writeJSON(w, status, adminInstallationOf(inst, snap.Roles, members))
	return nil
}

func (s *Server) adminListInstallations(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	snap, members, err := s.adminGuildState(r.Context(), g.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, adminInstallationsOf(snap.Installations, snap.Roles, members))
	return nil
}

// adminUninstall removes the installation with the bot's membership and
// managed role. The app's commands and permission lists in the guild are
// kept, as the store keeps them.
func (s *Server) adminUninstall(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	appID, err := pathID(r, "application_id")
	if err != nil {
		return err
	}
	app, err := s.store.Application(r.Context(), appID)
	if errors.Is(err, store.ErrNotFound) {
		return errUnknownApp
	}
	if err != nil {
		return err
	}
	if err := s.store.Uninstall(r.Context(), g.ID, app.ID); err != nil {
		return notFoundAs(err, adminErrUnknownIntegration)
	}
	if err := s.adminSyncBot(r.Context(), g.ID, app, false, 0); err != nil {
		return err
	}
	writeNoContent(w)
	return nil
}

// adminScopes reads the body's "scopes": a non-empty list of distinct
// scopes out of allowed (duplicates dropped), each error recorded at its
// index. ok is false when the body has no list there.
func adminScopes(f admin.Form, allowed []string) (scopes []string, ok bool) {
	l, ok := f.List("scopes")
	if !ok {
		return nil, false
	}
	if len(l) == 0 {
		f.At("scopes").Add(form.CodeMinLength, form.MsgMinLength(1))
	}
	for i, item := range l {
		sc, isString := item.(string)
		switch {
		case !isString:
			f.At("scopes", i).Add(form.CodeStringConvert, form.MsgNotString(item))
		case !slices.Contains(allowed, sc):
			f.At("scopes", i).Add(form.CodeChoices, form.MsgChoicesOf(allowed))
		case !slices.Contains(scopes, sc):
			scopes = append(scopes, sc)
		}
	}
	return scopes, true
}

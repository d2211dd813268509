package adminapi

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// installScopes are the scopes an installation may grant.
var installScopes = []string{auth.ScopeApplicationsCommands, auth.ScopeBot}

var errNoGuildInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
	"The application does not support guild installs: its integration_types_config has no \"0\" (GUILD_INSTALL)")

// installation is an installation on the wire. With the bot scope,
// role_id is the bot's managed role and permissions its bits; both are
// null otherwise.
type installation struct {
	GuildID       snowflake.ID       `json:"guild_id"`
	ApplicationID snowflake.ID       `json:"application_id"`
	Scopes        []string           `json:"scopes"`
	RoleID        *snowflake.ID      `json:"role_id"`
	Permissions   *guild.Permissions `json:"permissions"`
}

// botRole finds the managed role of an app's bot among a guild's
// members and roles.
func botRole(appID snowflake.ID, roles []guild.Role, members []guild.Member) (guild.Role, bool) {
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

func installationsOf(insts []store.Installation, roles []guild.Role, members []guild.Member) []installation {
	out := make([]installation, len(insts))
	for i, inst := range insts {
		out[i] = installationOf(inst, roles, members)
	}
	return out
}

func installationOf(inst store.Installation, roles []guild.Role, members []guild.Member) installation {
	scopes := inst.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	out := installation{GuildID: inst.GuildID, ApplicationID: inst.ApplicationID, Scopes: scopes}
	if r, ok := botRole(inst.ApplicationID, roles, members); ok && inst.HasScope(auth.ScopeBot) {
		id, p := r.ID, r.Permissions
		out.RoleID, out.Permissions = &id, &p
	}
	return out
}

// install is PUT /admin/v1/guilds/{guild_id}/installations/{application_id}
// {scopes, permissions?}: installs the app (201) or replaces its
// installation (200). With the bot scope the app's bot joins the guild
// with a managed role carrying permissions (default "0"); without it, a
// bot membership left from an earlier installation is removed (see
// bootstrap.SyncBot). The app must support GUILD_INSTALL (installations
// made before it stopped stay).
func (a *API) install(ctx context.Context, req *Request) (Response, error) {
	f, g, app := req.Form, req.Guild, req.App
	var scopes []string
	if f.Require("scopes") {
		scopes, _ = readScopes(f, installScopes)
	}
	perms, _ := f.Perms("permissions")
	bot := slices.Contains(scopes, auth.ScopeBot)
	if f.Present("permissions") && !bot && len(scopes) > 0 {
		f.At("permissions").Add(admin.CodeInstallPerms, "Permissions are only granted with the bot scope")
	}
	if err := f.Err(); err != nil {
		return Response{}, err
	}
	if err := admin.SameWorld("application", app.WorldID, "guild", g.WorldID, "application_id"); err != nil {
		return Response{}, err
	}
	if len(app.IntegrationTypes) > 0 && !slices.Contains(app.IntegrationTypes, command.GuildInstall) {
		return Response{}, errNoGuildInstall
	}
	_, err := a.Store.Installation(ctx, g.ID, app.ID)
	isNew := errors.Is(err, store.ErrNotFound)
	if err != nil && !isNew {
		return Response{}, err
	}
	inst := store.Installation{GuildID: g.ID, ApplicationID: app.ID, Scopes: scopes, CreatedAt: a.Now().UTC()}
	if err := a.Store.Install(ctx, inst); err != nil {
		return Response{}, err
	}
	if err := bootstrap.SyncBot(ctx, a.env(), g.ID, app, bot, perms); err != nil {
		return Response{}, err
	}
	snap, members, err := a.guildState(ctx, g.ID)
	return createdIf(isNew, installationOf(inst, snap.Roles, members)), err
}

func (a *API) listInstallations(ctx context.Context, req *Request) (Response, error) {
	snap, members, err := a.guildState(ctx, req.Guild.ID)
	return ok(installationsOf(snap.Installations, snap.Roles, members)), err
}

// uninstall removes the installation with the bot's membership and
// managed role. The app's commands and permission lists in the guild are
// kept, as the store keeps them.
func (a *API) uninstall(ctx context.Context, req *Request) (Response, error) {
	if err := a.Store.Uninstall(ctx, req.Guild.ID, req.App.ID); err != nil {
		return Response{}, store.NotFoundAs(err, errUnknownIntegration)
	}
	return noContent, bootstrap.SyncBot(ctx, a.env(), req.Guild.ID, req.App, false, 0)
}

// readScopes reads the body's "scopes": a non-empty list of distinct
// scopes out of allowed (duplicates dropped), each error recorded at its
// index. ok is false when the body has no list there.
func readScopes(f admin.Form, allowed []string) (scopes []string, ok bool) {
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

package adminapi

import (
	"context"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/store"
)

// appCommands is GET /admin/v1/applications/{application_id}/commands[?guild_id=…]:
// the app's global commands, or with guild_id its commands in that
// guild, as the API lists them (with their versions), and the guild's
// permission overwrites (the lists GET …/guilds/{guild}/commands/permissions
// answers). The playground's world browser reads it: the admin has no
// bot token.
func (a *API) appCommands(ctx context.Context, req *Request) (Response, error) {
	scope := command.Scope{ApplicationID: req.App.ID}
	if req.HTTP.URL.Query().Get("guild_id") != "" {
		guildID, err := req.QueryID("guild_id")
		if err != nil {
			return Response{}, err
		}
		if _, err := a.Store.Guild(ctx, guildID); err != nil {
			return Response{}, store.NotFoundAs(err, errUnknownGuild)
		}
		scope.GuildID = guildID
	}
	cmds, err := a.Store.Commands(ctx, scope)
	if err != nil {
		return Response{}, err
	}
	items := make([]command.ListItem, 0, len(cmds))
	for i := range cmds {
		items = append(items, command.Localized(&cmds[i], ""))
	}
	perms := []command.GuildPermissions{}
	if scope.GuildID != 0 {
		if perms, err = a.Store.GuildPermissions(ctx, scope.ApplicationID, scope.GuildID); err != nil {
			return Response{}, err
		}
	}
	return ok(map[string]any{"commands": items, "permissions": perms}), nil
}

// explainAccess is GET /admin/v1/guilds/{guild_id}/commands/{command_id}/access?user_id=…&channel_id=…:
// whether a member may see and use a command in a channel, and why. The
// command may be a guild command of that guild or a global command, of
// any app: one not installed there is explained as not_installed (an
// uninstall keeps the app's guild commands). The decision is the public
// API's (Deps.ExplainAccess): it is the picker's.
func (a *API) explainAccess(ctx context.Context, req *Request) (Response, error) {
	var (
		q   AccessQuery
		err error
	)
	if q.GuildID, err = req.PathID("guild_id"); err != nil {
		return Response{}, err
	}
	if q.CommandID, err = req.PathID("command_id"); err != nil {
		return Response{}, err
	}
	if q.UserID, err = req.QueryID("user_id"); err != nil {
		return Response{}, err
	}
	if q.ChannelID, err = req.QueryID("channel_id"); err != nil {
		return Response{}, err
	}
	d, err := a.ExplainAccess(ctx, q)
	return accessAnswer(d), err
}

// explainPrivateAccess is GET
// /admin/v1/private-channels/{channel_id}/commands/{command_id}/access?user_id=…:
// explainAccess in a DM or group DM, for one of its participants.
func (a *API) explainPrivateAccess(ctx context.Context, req *Request) (Response, error) {
	var (
		q   AccessQuery
		err error
	)
	if q.ChannelID, err = req.PathID("channel_id"); err != nil {
		return Response{}, err
	}
	if q.CommandID, err = req.PathID("command_id"); err != nil {
		return Response{}, err
	}
	if q.UserID, err = req.QueryID("user_id"); err != nil {
		return Response{}, err
	}
	d, err := a.ExplainPrivateAccess(ctx, q)
	return accessAnswer(d), err
}

// accessAnswer renders an access decision: allowed, the reason and rule
// that decided, and the installations that authorize the use.
func accessAnswer(d access.Decision) Response {
	return ok(map[string]any{"allowed": d.Allowed, "reason": d.Reason, "rule": d.Rule,
		"authorizing_integration_owners": ownerKeys(d.Owners)})
}

// ownerKeys lists the installation types that authorize a use, as the
// keys of authorizing_integration_owners ("0" guild, "1" user).
func ownerKeys(o access.Owners) []string {
	out := []string{}
	if o.Has(access.OwnerGuild) {
		out = append(out, "0")
	}
	if o.Has(access.OwnerUser) {
		out = append(out, "1")
	}
	return out
}

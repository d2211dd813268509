package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/adminapi"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var errUnknownMember = apierr.New(http.StatusNotFound, 10007, "Unknown Member")

// explainAccess is the decision of the admin API's GET
// /admin/v1/guilds/{guild_id}/commands/{command_id}/access (see
// internal/adminapi): whether a member may see and use a command in a
// channel, and why, by the picker's rules (memberView, the app's command
// index). The command may be a guild command of that guild or a global
// command, of any app: one not installed there is explained as
// not_installed (an uninstall keeps the app's guild commands).
func (s *Server) explainAccess(ctx context.Context, q adminapi.AccessQuery) (access.Decision, error) {
	guildID := q.GuildID
	if _, err := s.store.Guild(ctx, guildID); errors.Is(err, store.ErrNotFound) {
		return access.Decision{}, errUnknownGuild
	} else if err != nil {
		return access.Decision{}, err
	}
	ch, err := s.store.Channel(ctx, q.ChannelID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && ch.GuildID != guildID) {
		return access.Decision{}, errUnknownChannel
	}
	if err != nil {
		return access.Decision{}, err
	}
	view, err := s.loadMemberView(ctx, guildID, q.UserID)
	if errors.Is(err, errNotMember) {
		return access.Decision{}, errUnknownMember
	}
	if err != nil {
		return access.Decision{}, err
	}
	if view.userApps, err = s.userApps(ctx, q.UserID); err != nil {
		return access.Decision{}, err
	}
	cmd, err := s.findCommand(ctx, view, guildID, q.CommandID)
	if err != nil {
		return access.Decision{}, err
	}
	ac, err := s.loadAppCommands(ctx, cmd.ApplicationID, guildID)
	if err != nil {
		return access.Decision{}, err
	}
	return decide(view, ch, ac, cmd), nil
}

// explainPrivateAccess is the decision of GET
// /admin/v1/private-channels/{channel_id}/commands/{command_id}/access?user_id=…
// (q.GuildID 0): whether a participant of a DM or group DM may see and
// use a global command there, and why (installations, contexts, the age
// restriction), as the command picker decides it.
func (s *Server) explainPrivateAccess(ctx context.Context, q adminapi.AccessQuery) (access.Decision, error) {
	if _, err := s.store.Channel(ctx, q.ChannelID); err == nil {
		return access.Decision{}, errUnknownChannel // a guild's: see explainAccess
	} else if !errors.Is(err, store.ErrNotFound) {
		return access.Decision{}, err
	}
	ch, view, err := s.invokerChannel(ctx, q.UserID, q.ChannelID, 0)
	if err != nil {
		return access.Decision{}, err
	}
	cmd, err := s.findCommand(ctx, view, 0, q.CommandID)
	if err != nil {
		return access.Decision{}, err
	}
	ac, err := s.loadAppCommands(ctx, cmd.ApplicationID, 0)
	if err != nil {
		return access.Decision{}, err
	}
	return decide(view, ch, ac, cmd), nil
}

// decide is the picker's decision on cmd for the viewer of view in ch:
// the access rules, then an entry point shows only when its app has an
// Activity.
func decide(view memberView, ch guild.Channel, ac appCommands, cmd command.Command) access.Decision {
	d := access.NewViewer(view.context(ch, cmd.ApplicationID)).Decide(ac.index, cmd)
	if d.Allowed && cmd.Type == command.PrimaryEntryPoint && !ac.embedded() {
		d = access.Decision{Allowed: false, Rule: "entry_point_without_activity",
			Reason: "an entry point command shows only when its app has Activities (the EMBEDDED flag)"}
	}
	return d
}

// findCommand finds a command by id among the guild's commands and the
// global commands of every app, those installed in the guild first. Apps
// that are not installed are searched too, so that the decision can say
// not_installed rather than the command being unknown.
func (s *Server) findCommand(ctx context.Context, view memberView, guildID, id snowflake.ID) (command.Command, error) {
	find := func(appID snowflake.ID) (command.Command, bool, error) {
		for _, scope := range []command.Scope{{ApplicationID: appID, GuildID: guildID}, {ApplicationID: appID}} {
			c, err := s.store.Command(ctx, scope, id)
			if err == nil {
				return c, true, nil
			}
			if !errors.Is(err, store.ErrNotFound) {
				return c, false, err
			}
		}
		return command.Command{}, false, nil
	}
	seen := make(map[snowflake.ID]bool, len(view.snap.Installations))
	for _, inst := range view.snap.Installations {
		seen[inst.ApplicationID] = true
		if c, ok, err := find(inst.ApplicationID); ok || err != nil {
			return c, err
		}
	}
	apps, err := s.store.Applications(ctx)
	if err != nil {
		return command.Command{}, err
	}
	for _, a := range apps {
		if seen[a.ID] {
			continue
		}
		if c, ok, err := find(a.ID); ok || err != nil {
			return c, err
		}
	}
	return command.Command{}, errUnknownCommand
}

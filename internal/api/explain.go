package api

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var errUnknownMember = apierr.New(http.StatusNotFound, 10007, "Unknown Member")

// explainAccess is GET /admin/v1/guilds/{guild_id}/commands/{command_id}/access?user_id=…&channel_id=…:
// whether a member may see and use a command in a channel, and why. The
// command may be a guild command of that guild or a global command, of
// any app: one not installed there is explained as not_installed (an
// uninstall keeps the app's guild commands).
func (s *Server) explainAccess(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	guildID, err := pathID(r, "guild_id")
	if err != nil {
		return err
	}
	commandID, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	userID, err := queryID(r, "user_id")
	if err != nil {
		return err
	}
	channelID, err := queryID(r, "channel_id")
	if err != nil {
		return err
	}
	if _, err := s.store.Guild(ctx, guildID); errors.Is(err, store.ErrNotFound) {
		return errUnknownGuild
	} else if err != nil {
		return err
	}
	ch, err := s.store.Channel(ctx, channelID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && ch.GuildID != guildID) {
		return errUnknownChannel
	}
	if err != nil {
		return err
	}
	view, err := s.loadMemberView(ctx, guildID, userID)
	if errors.Is(err, errNotMember) {
		return errUnknownMember
	}
	if err != nil {
		return err
	}
	if view.userApps, err = s.userApps(ctx, userID); err != nil {
		return err
	}
	cmd, err := s.findCommand(r, view, guildID, commandID)
	if err != nil {
		return err
	}
	ac, err := s.loadAppCommands(ctx, cmd.ApplicationID, guildID)
	if err != nil {
		return err
	}
	d := access.NewViewer(view.context(ch, cmd.ApplicationID)).Decide(ac.index, cmd)
	if d.Allowed && cmd.Type == command.PrimaryEntryPoint && !ac.embedded() {
		d = access.Decision{Allowed: false, Rule: "entry_point_without_activity",
			Reason: "an entry point command shows only when its app has Activities (the EMBEDDED flag)"}
	}
	if d.Allowed && cmd.GuildID == 0 && shadowed(ac.commands, cmd) {
		d = access.Decision{Allowed: false, Rule: "shadowed_by_guild_command",
			Reason: "a guild command of the same type and name replaces this global command in this guild"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"allowed": d.Allowed, "reason": d.Reason, "rule": d.Rule,
		"authorizing_integration_owners": ownerKeys(d.Owners)})
	return nil
}

// explainPrivateAccess is GET
// /admin/v1/private-channels/{channel_id}/commands/{command_id}/access?user_id=…:
// whether a participant of a DM or group DM may see and use a global
// command there, and why (installations, contexts, the age
// restriction), as the command picker decides it.
func (s *Server) explainPrivateAccess(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	channelID, err := pathID(r, "channel_id")
	if err != nil {
		return err
	}
	commandID, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	userID, err := queryID(r, "user_id")
	if err != nil {
		return err
	}
	if _, err := s.store.Channel(ctx, channelID); err == nil {
		return errUnknownChannel // a guild's: see explainAccess
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	ch, view, err := s.invokerChannel(ctx, userID, channelID, 0)
	if err != nil {
		return err
	}
	cmd, err := s.findCommand(r, view, 0, commandID)
	if err != nil {
		return err
	}
	ac, err := s.loadAppCommands(ctx, cmd.ApplicationID, 0)
	if err != nil {
		return err
	}
	d := access.NewViewer(view.context(ch, cmd.ApplicationID)).Decide(ac.index, cmd)
	if d.Allowed && cmd.Type == command.PrimaryEntryPoint && !ac.embedded() {
		d = access.Decision{Allowed: false, Rule: "entry_point_without_activity",
			Reason: "an entry point command shows only when its app has Activities (the EMBEDDED flag)"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"allowed": d.Allowed, "reason": d.Reason, "rule": d.Rule,
		"authorizing_integration_owners": ownerKeys(d.Owners)})
	return nil
}

// findCommand finds a command by id among the guild's commands and the
// global commands of every app, those installed in the guild first. Apps
// that are not installed are searched too, so that the decision can say
// not_installed rather than the command being unknown.
func (s *Server) findCommand(r *http.Request, view memberView, guildID, id snowflake.ID) (command.Command, error) {
	ctx := r.Context()
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

// shadowed reports whether a global command is hidden by a guild command
// (the visible list does not contain it).
func shadowed(visible []command.Command, global command.Command) bool {
	for _, c := range visible {
		if c.ID == global.ID {
			return false
		}
	}
	return true
}

// queryID reads a required snowflake query parameter.
func queryID(r *http.Request, name string) (snowflake.ID, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return 0, apierr.Invalid("BASE_TYPE_REQUIRED", "This field is required", name)
	}
	id, err := snowflake.Parse(raw)
	if err != nil {
		return 0, apierr.Invalid("NUMBER_TYPE_COERCE", `Value "`+raw+`" is not snowflake.`, name)
	}
	return id, nil
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

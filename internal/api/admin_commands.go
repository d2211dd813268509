package api

import (
	"net/http"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
)

// adminAppCommands is GET /admin/v1/applications/{application_id}/commands[?guild_id=…]:
// the app's global commands, or with guild_id its commands in that
// guild, as the API lists them (with their versions), and the guild's
// permission overwrites (the lists GET …/guilds/{guild}/commands/permissions
// answers). The playground's world browser reads it: the admin has no
// bot token.
func (s *Server) adminAppCommands(w http.ResponseWriter, r *http.Request) error {
	a, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	scope := command.Scope{ApplicationID: a.ID}
	var guildID snowflake.ID
	if r.URL.Query().Get("guild_id") != "" {
		if guildID, err = queryID(r, "guild_id"); err != nil {
			return err
		}
		if _, err := s.store.Guild(r.Context(), guildID); err != nil {
			return notFoundAs(err, errUnknownGuild)
		}
		scope.GuildID = guildID
	}
	cmds, err := s.store.Commands(r.Context(), scope)
	if err != nil {
		return err
	}
	items := make([]command.ListItem, 0, len(cmds))
	for i := range cmds {
		items = append(items, command.Localized(&cmds[i], ""))
	}
	perms := []command.GuildPermissions{}
	if guildID != 0 {
		if perms, err = s.store.GuildPermissions(r.Context(), a.ID, guildID); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"commands": items, "permissions": perms})
	return nil
}

package api

import (
	"net/http"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

var errUnknownChannel = apierr.New(http.StatusNotFound, 10003, "Unknown Channel")

// indexApplication is an app as the command picker lists it.
type indexApplication struct {
	ID          snowflake.ID `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Icon        *string      `json:"icon"`
	BotID       snowflake.ID `json:"bot_id"`
}

// commandIndex is GET /channels/{channel.id}/application-command-index:
// what the command picker shows a user in a channel (a guild's, a DM or a
// group DM). Every app that reaches the user there (installed in the
// guild, its bot's DM, or installed by the user): its guild commands, then
// its global commands (a guild command and a global one of the same type
// and name are both listed, as the real picker shows both), kept only
// where the access decision allows the user, localized for the user.
func (s *Server) commandIndex(w http.ResponseWriter, r *http.Request) error {
	// The real client shows no picker where the user cannot see.
	ch, view, err := s.channelForUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	locale := s.requestLocale(r)
	var (
		apps     []indexApplication
		items    [][]byte
		version  snowflake.ID
		decided  []access.Decision
		itemSize int
	)
	for _, appID := range view.apps() {
		ac, err := s.loadAppCommands(ctx, appID, ch.GuildID)
		if err != nil {
			return err
		}
		viewer := access.NewViewer(view.context(ch, appID))
		decided = viewer.DecideAll(ac.index, ac.commands, decided[:0])
		shown := 0
		for i := range ac.commands {
			if !decided[i].Allowed || (ac.commands[i].Type == command.PrimaryEntryPoint && !ac.embedded()) {
				continue // an entry point shows only when the app has Activities (spec §2.3)
			}
			item, err := s.renderListItem(ac.raw[i], locale)
			if err != nil {
				return err
			}
			items = append(items, item)
			itemSize += len(item) + 1
			version = max(version, ac.commands[i].Version)
			shown++
		}
		if shown > 0 {
			apps = append(apps, indexApplication{ID: ac.app.ID, Name: ac.app.Name, BotID: ac.app.ID})
		}
	}
	head, err := jsonenc.Marshal(struct {
		Applications []indexApplication `json:"applications"`
		Version      snowflake.ID       `json:"version"`
	}{Applications: append([]indexApplication{}, apps...), Version: version})
	if err != nil {
		return err
	}
	// {"applications":[…],"version":"…","application_commands":[items…]}
	out := make([]byte, 0, len(head)+itemSize+32)
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"application_commands":[`...)
	for i, item := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, item...)
	}
	out = append(out, "]}"...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	return nil
}

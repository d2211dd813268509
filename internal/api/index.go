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
// what the command picker shows a user in a channel. Every installed
// app's guild commands and global commands (a guild command shadows a
// global one of the same type and name), kept only where the
// permissions-v2 decision allows the user, localized for the user.
func (s *Server) commandIndex(w http.ResponseWriter, r *http.Request) error {
	channelID, err := pathID(r, "channel_id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	ch, err := s.store.Channel(ctx, channelID)
	if errors.Is(err, store.ErrNotFound) {
		return errUnknownChannel
	}
	if err != nil {
		return err
	}
	user := principalFrom(ctx).Token.UserID
	view, err := s.loadMemberView(ctx, ch.GuildID, user)
	if errors.Is(err, errNotMember) {
		return errMissingAccess
	}
	if err != nil {
		return err
	}
	locale := s.requestLocale(r)
	out := struct {
		Applications []indexApplication `json:"applications"`
		Commands     []command.ListItem `json:"application_commands"`
		Version      snowflake.ID       `json:"version"`
	}{Applications: []indexApplication{}, Commands: []command.ListItem{}}
	var decisions []access.Decision
	for _, inst := range view.snap.Installations {
		if !view.installed(inst.ApplicationID) {
			continue
		}
		ac, err := s.loadAppCommands(ctx, inst.ApplicationID, ch.GuildID)
		if err != nil {
			return err
		}
		viewer := access.NewViewer(view.context(ch, inst.ApplicationID))
		decisions = viewer.DecideAll(ac.index, ac.commands, decisions[:0])
		shown := 0
		for i := range ac.commands {
			if !decisions[i].Allowed {
				continue
			}
			c := &ac.commands[i]
			out.Commands = append(out.Commands, command.Localized(c, locale))
			out.Version = max(out.Version, c.Version)
			shown++
		}
		if shown > 0 {
			out.Applications = append(out.Applications, indexApplication{ID: ac.app.ID, Name: ac.app.Name, BotID: ac.app.ID})
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

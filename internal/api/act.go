package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// openedModal is the modal interaction id's answer opened, with its app,
// for a world member's act to submit (internal/act); anything else is
// the service's "unknown modal".
func (s *Server) openedModal(ctx context.Context, id snowflake.ID) (snowflake.ID, json.RawMessage, error) {
	rec, err := s.store.Interaction(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && rec.ResponseType != interaction.CallbackModal) {
		return 0, nil, errUnknownModal
	}
	if err != nil {
		return 0, nil, err
	}
	return rec.ApplicationID, rec.Result, nil
}

// appCommandList is an app's guild (guildID 0: none) and global commands
// as the picker lists them, whoever may use them: a world member's act
// runs one the picker hides, for the service to refuse.
func (s *Server) appCommandList(ctx context.Context, appID, guildID snowflake.ID) ([]command.ListItem, error) {
	ac, err := s.loadAppCommands(ctx, appID, guildID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]command.ListItem, len(ac.commands))
	for i := range ac.commands {
		out[i] = command.Localized(&ac.commands[i], "")
	}
	return out, nil
}

package api

import (
	"context"
	"encoding/json"
	"errors"

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

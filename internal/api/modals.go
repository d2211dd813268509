package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// errUnknownModal: data.id names no modal this user was shown by the app
// in the channel within the token's lifetime.
var errUnknownModal = apierr.Invalid(interaction.CodeModalInvalid, interaction.MsgModalUnknown, "data", "id")

// prepareModalInvocation checks a MODAL_SUBMIT invocation against the
// modal the app showed the user (the MODAL answer of the interaction
// data.id names) and builds its interaction.
func (s *Server) prepareModalInvocation(ctx context.Context, user snowflake.ID, v any) (invocation, error) {
	inv, err := interaction.ParseModalInvocation(v)
	if err != nil {
		return invocation{}, err
	}
	ch, view, err := s.invokerChannel(ctx, user, inv.ChannelID, inv.GuildID)
	if err != nil {
		return invocation{}, err
	}
	opener, err := s.store.Interaction(ctx, inv.ModalID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (opener.UserID != user ||
		opener.ApplicationID != inv.ApplicationID || opener.ChannelID != ch.ID ||
		opener.ResponseType != interaction.CallbackModal || s.nowIn(ctx).Sub(opener.CreatedAt) > tokenLifetime)) {
		return invocation{}, errUnknownModal
	}
	if err != nil {
		return invocation{}, err
	}
	data, err := interaction.CheckModal(inv, opener.Result)
	if err != nil {
		return invocation{}, err
	}
	// User, role, mentionable and channel selects: their values are
	// resolved as command options' are.
	if refs := data.Refs(); len(refs) > 0 {
		if data.Resolved, err = s.resolve(ctx, view, ch, interaction.Invocation{ApplicationID: inv.ApplicationID},
			interaction.Resolved{Refs: refs}); err != nil {
			return invocation{}, err
		}
	}
	app, err := s.store.Application(ctx, inv.ApplicationID)
	if err != nil {
		return invocation{}, store.NotFoundAs(err, errUnknownApp)
	}
	var openerMeta interaction.InteractionMetadata
	if err := json.Unmarshal(opener.Metadata, &openerMeta); err != nil {
		return invocation{}, fmt.Errorf("metadata of interaction %d: %w", opener.ID, err)
	}
	p, err := s.newPayload(ctx, view, ch, app, interaction.ModalSubmit, view.permissionsIn(ch),
		inheritedOwners(openerMeta.AuthorizingIntegrationOwners, view, ch, app.ID))
	if err != nil {
		return invocation{}, err
	}
	p.Data = data
	if opener.MessageID != 0 { // opened from a component: the app may update that message
		if m, err := s.store.Message(ctx, opener.MessageID); err == nil {
			p.Message = m.Body
		}
	}
	// The message a modal opened from a component came from is named in
	// the triggering (component) interaction's metadata.
	meta := interaction.InteractionMetadata{ID: p.ID, Type: p.Type, User: p.Invoker(),
		AuthorizingIntegrationOwners: p.AuthorizingIntegrationOwners, TriggeringInteractionMetadata: opener.Metadata}
	in, err := s.sealInvocation(ctx, p, meta, app)
	if err != nil {
		return invocation{}, err
	}
	in.record.MessageID = opener.MessageID
	return in, nil
}

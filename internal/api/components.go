package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// prepareComponentInvocation checks a MESSAGE_COMPONENT invocation (a
// click on a button or a choice in a select menu of an app's message) and
// builds its interaction. The message must be in the channel, visible to
// the user and the app's; the component must be on it.
func (s *Server) prepareComponentInvocation(ctx context.Context, user snowflake.ID, v any) (invocation, error) {
	inv, err := interaction.ParseComponentInvocation(v)
	if err != nil {
		return invocation{}, err
	}
	ch, view, err := s.invokerChannel(ctx, user, inv.ChannelID, inv.GuildID)
	if err != nil {
		return invocation{}, err
	}
	app, err := s.store.Application(ctx, inv.ApplicationID)
	if err != nil {
		return invocation{}, store.NotFoundAs(err, errUnknownApp)
	}
	if app.WorldID != view.user.WorldID {
		return invocation{}, errUnknownApp // another world's app is unknown
	}
	stored, err := s.store.Message(ctx, inv.MessageID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (!visibleIn(stored, ch.ID, user) || stored.AuthorID != app.ID)) {
		return invocation{}, errUnknownMessage
	}
	if err != nil {
		return invocation{}, err
	}
	var msg interaction.Message
	if err := json.Unmarshal(stored.Body, &msg); err != nil {
		return invocation{}, err
	}
	if err := interaction.CheckComponent(inv, msg.Components); err != nil {
		return invocation{}, err
	}
	// A user, role, mentionable or channel select: its values are
	// resolved as command options' are.
	refs, err := interaction.SelectRefs(inv, msg.Components)
	if err != nil {
		return invocation{}, err
	}
	if len(refs) > 0 {
		res, err := s.resolve(ctx, view, ch, interaction.Invocation{ApplicationID: inv.ApplicationID}, interaction.Resolved{Refs: refs})
		if err != nil {
			return invocation{}, err
		}
		inv.Data.Resolved = res
	}
	var from map[string]snowflake.ID
	if msg.InteractionMetadata != nil {
		from = msg.InteractionMetadata.AuthorizingIntegrationOwners
	}
	p, err := s.newPayload(ctx, view, ch, app, interaction.MessageComponent, view.permissionsIn(ch),
		inheritedOwners(from, view, ch, app.ID))
	if err != nil {
		return invocation{}, err
	}
	p.Data, p.Message = inv.Data, stored.Body
	meta := interaction.InteractionMetadata{ID: p.ID, Type: p.Type, User: p.Invoker(),
		AuthorizingIntegrationOwners: p.AuthorizingIntegrationOwners, InteractedMessageID: stored.ID}
	in, err := s.sealInvocation(ctx, p, meta, app)
	if err != nil {
		return invocation{}, err
	}
	in.record.MessageID = stored.ID
	return in, nil
}

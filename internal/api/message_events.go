package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// messageEvents is the store as the server writes it: every message it
// creates, changes or deletes is published on the event bus
// (event.MessageCreate, MessageUpdate, MessageDelete) once the write
// succeeded, whichever route made it (a user's post, an answer, a
// follow-up, an edit, a delete), on whichever node. The playground's
// live chat and interaction log listen to them (internal/ui), and the
// gateway dispatches them to the bots the event names (Bots): the apps
// whose bot users see the message (members of its guild who may view its
// channel, or participants of its DM), decided here once so that every
// node dispatches it alike. An ephemeral message goes to no bot.
type messageEvents struct {
	store.Store
	bus event.Bus
	// ui: the playground listens (else an event no bot gets is not
	// published at all).
	ui bool
	// bots returns the apps whose bots see msg (nil: no bot session
	// anywhere, or none of them sees it).
	bots func(ctx context.Context, msg store.Message) []snowflake.ID
	// journal records the change in its world's journal (nil: off).
	journal func(ctx context.Context, typ string, msg store.Message)
}

func (m messageEvents) publish(ctx context.Context, typ string, msg store.Message) {
	if m.journal != nil {
		m.journal(ctx, typ, msg)
	}
	var bots []snowflake.ID
	if msg.VisibleTo == 0 && m.bots != nil {
		bots = m.bots(ctx, msg)
	}
	if !m.ui && len(bots) == 0 {
		return
	}
	m.bus.Publish(context.WithoutCancel(ctx), event.Event{Type: typ, GuildID: msg.GuildID,
		Data: event.Message{ID: msg.ID, ChannelID: msg.ChannelID, GuildID: msg.GuildID,
			InteractionID: msg.InteractionID, VisibleTo: msg.VisibleTo, Body: json.RawMessage(msg.Body),
			AuthorID: msg.AuthorID, Bots: bots}})
}

// messageBots returns the apps whose bot users see msg: in a guild, the
// bot members who may view its channel; in a DM or group DM, the bots
// taking part. Nothing while no bot connected to any node asks for
// messages (the gateway knows every node's sessions): the reads are then
// saved, as for the bots that only take interactions.
func (s *Server) messageBots(ctx context.Context, msg store.Message) []snowflake.ID {
	if s.gateway == nil || !s.gateway.ReadsMessages() {
		return nil
	}
	bots, err := s.readMessageBots(ctx, msg)
	if err != nil {
		s.log.Warn("message events: which bots see the message", "message", msg.ID, "err", err)
	}
	return bots
}

func (s *Server) readMessageBots(ctx context.Context, msg store.Message) ([]snowflake.ID, error) {
	if msg.GuildID == 0 {
		pc, err := s.store.PrivateChannel(ctx, msg.ChannelID)
		if err != nil {
			return nil, err
		}
		var out []snowflake.ID
		for _, u := range pc.Recipients {
			if _, err := s.store.Application(ctx, u); err == nil {
				out = append(out, u)
			} else if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
		return out, nil
	}
	c, err := s.store.Channel(ctx, msg.ChannelID)
	if err != nil {
		return nil, err
	}
	return s.botsSeeing(ctx, msg.GuildID, c)
}

func (m messageEvents) CreateMessage(ctx context.Context, msg store.Message) error {
	if err := m.Store.CreateMessage(ctx, msg); err != nil {
		return err
	}
	m.publish(ctx, event.MessageCreate, msg)
	return nil
}

func (m messageEvents) CreateFollowup(ctx context.Context, id snowflake.ID, limit int, msg store.Message) error {
	if err := m.Store.CreateFollowup(ctx, id, limit, msg); err != nil {
		return err
	}
	m.publish(ctx, event.MessageCreate, msg)
	return nil
}

// UpdateMessage reads the message back: the event says where it is and
// who sees it, which the new body alone does not.
func (m messageEvents) UpdateMessage(ctx context.Context, id snowflake.ID, body []byte, files *store.FileWrite) error {
	if err := m.Store.UpdateMessage(ctx, id, body, files); err != nil {
		return err
	}
	if msg, err := m.Store.Message(ctx, id); err == nil {
		m.publish(ctx, event.MessageUpdate, msg)
	}
	return nil
}

// DeleteMessage reads the message first: a deleted one cannot be.
func (m messageEvents) DeleteMessage(ctx context.Context, id snowflake.ID) error {
	msg, rerr := m.Store.Message(ctx, id)
	if err := m.Store.DeleteMessage(ctx, id); err != nil {
		return err
	}
	if rerr == nil {
		msg.Body = nil
		m.publish(ctx, event.MessageDelete, msg)
	}
	return nil
}

// AnswerInteraction publishes the answer's message: a new one (an
// answer, a deferred answer's placeholder), or the component's message
// an UPDATE_MESSAGE answer replaces.
func (m messageEvents) AnswerInteraction(ctx context.Context, id snowflake.ID, fn func(store.Interaction) (store.Answer, error)) (store.Interaction, error) {
	return m.publishAnswer(ctx, fn, func(fn func(store.Interaction) (store.Answer, error)) (store.Interaction, error) {
		return m.Store.AnswerInteraction(ctx, id, fn)
	})
}

// CreateAnsweredInteraction publishes the answer's message, as
// AnswerInteraction does.
func (m messageEvents) CreateAnsweredInteraction(ctx context.Context, in store.Interaction, fn func(store.Interaction) (store.Answer, error)) (store.Interaction, error) {
	return m.publishAnswer(ctx, fn, func(fn func(store.Interaction) (store.Answer, error)) (store.Interaction, error) {
		return m.Store.CreateAnsweredInteraction(ctx, in, fn)
	})
}

// publishAnswer runs write with fn and publishes the message of the
// answer it stored.
func (m messageEvents) publishAnswer(ctx context.Context, fn func(store.Interaction) (store.Answer, error),
	write func(func(store.Interaction) (store.Answer, error)) (store.Interaction, error)) (store.Interaction, error) {
	var put *store.Message
	var replaces snowflake.ID
	rec, err := write(func(cur store.Interaction) (store.Answer, error) {
		a, err := fn(cur)
		put, replaces = a.Put, cur.MessageID
		return a, err
	})
	if err != nil || put == nil {
		return rec, err
	}
	if put.ID == replaces {
		m.publish(ctx, event.MessageUpdate, *put)
	} else {
		m.publish(ctx, event.MessageCreate, *put)
	}
	return rec, nil
}

// Events is the bus the server publishes on (and listens to).
func (s *Server) Events() event.Bus { return s.events }

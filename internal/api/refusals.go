package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/store"
)

// Refusals: when an app's request that writes a message is refused (its
// callback, follow-up or edit through an interaction's token, a bot's
// channel post or edit, or an endpoint's inline answer), the API
// publishes event.RequestRefused on the bus, naming the interaction it
// was for, so that the playground (on every node of a cluster) shows
// the bot developer why beside it. Only refusals are published: a
// request that succeeds costs nothing more. They go with the message
// events (off with Config.MessageEventsOff, when no playground reads
// them).

// refusalRoutes are the route templates (method and path, without the
// /api/vN prefix) whose refusals are published.
var refusalRoutes = map[string]bool{
	"POST /interactions/{interaction_id}/{interaction_token}/callback":           true,
	"POST /webhooks/{application_id}/{interaction_token}":                        true,
	"PATCH /webhooks/{application_id}/{interaction_token}/messages/{message_id}": true,
	"POST /channels/{channel_id}/messages":                                       true,
	"PATCH /channels/{channel_id}/messages/{message_id}":                         true,
}

// watchRefusals returns the writer to serve r with and the function,
// to call once r is served, that publishes its refusal if it was
// refused.
func (s *Server) watchRefusals(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	if s.cfg.MessageEventsOff {
		return w, func() {}
	}
	rec := &journalWriter{ResponseWriter: w, status: http.StatusOK} // keeps an error body (capped)
	return rec, func() {
		if rec.status >= http.StatusBadRequest {
			s.publishRefusal(r, rec.status, rec.body)
		}
	}
}

// publishRefusal publishes the refusal of r: an interaction's when its
// token is valid, a bot's channel write when a bot token made it;
// nothing otherwise (an unknown token is nobody's to show).
func (s *Server) publishRefusal(r *http.Request, status int, body []byte) {
	ctx := context.WithoutCancel(r.Context())
	ref := event.Refusal{Method: r.Method, Route: r.Pattern, Path: redactedPath(r), Status: status, Error: errorBody(body)}
	if token := r.PathValue("interaction_token"); token != "" {
		rec, ok := s.tokenInteraction(ctx, r, token)
		if !ok {
			return
		}
		ref.ApplicationID, ref.InteractionID, ref.UserID = rec.ApplicationID, rec.ID, rec.UserID
		ref.ChannelID, ref.GuildID, ref.InteractionType = rec.ChannelID, rec.GuildID, rec.Type
		var meta interaction.InteractionMetadata
		if json.Unmarshal(rec.Metadata, &meta) == nil {
			ref.Name, ref.CommandType = meta.Name, int(meta.CommandType)
		}
	} else {
		p := principalFrom(r.Context())
		channel, err := pathID(r, "channel_id")
		if p.Token.Kind != store.TokenBot || p.Token.ApplicationID == 0 || err != nil {
			return // a person's post: their client shows its error
		}
		ref.ApplicationID, ref.ChannelID = p.Token.ApplicationID, channel
	}
	ref.ID = s.ids.Next()
	s.events.Publish(ctx, event.Event{Type: event.RequestRefused, ApplicationID: ref.ApplicationID,
		GuildID: ref.GuildID, Data: ref})
}

// tokenInteraction is the interaction an interaction's token names on
// r's route, when the token is its (and, on the webhook routes, the
// application in the path its app).
func (s *Server) tokenInteraction(ctx context.Context, r *http.Request, token string) (store.Interaction, bool) {
	id, ok := tokenInteractionID(token)
	if raw := r.PathValue("interaction_id"); raw != "" {
		var err error
		id, err = pathID(r, "interaction_id")
		ok = err == nil
	}
	if !ok || s.pending.flush(ctx, s.store, id) != nil {
		return store.Interaction{}, false
	}
	rec, err := s.store.Interaction(ctx, id)
	if err != nil || subtle.ConstantTimeCompare(rec.TokenHash, auth.Hash(token)) != 1 {
		return store.Interaction{}, false
	}
	if app := r.PathValue("application_id"); app != "" && app != rec.ApplicationID.String() {
		return store.Interaction{}, false
	}
	return rec, true
}

// errorBody is a refused request's error body as JSON: as sent when it
// is JSON, else as a string.
func errorBody(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return append(json.RawMessage(nil), b...)
	}
	out, _ := json.Marshal(strings.ToValidUTF8(string(b), "�"))
	return out
}

// publishInlineRefusal publishes the refusal of an endpoint's inline
// answer: the error the same body would get on the callback route.
func (s *Server) publishInlineRefusal(ctx context.Context, in invocation, d delivery) {
	var ae *apierr.Error
	if s.cfg.MessageEventsOff || !errors.As(d.refused, &ae) {
		return
	}
	status := ae.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	body, err := jsonenc.Marshal(ae)
	if err != nil {
		return
	}
	if len(body) > maxErrorBody {
		body, _ = json.Marshal(string(body[:maxErrorBody]) + "…")
	}
	rec := in.record
	s.events.Publish(context.WithoutCancel(ctx), event.Event{Type: event.RequestRefused, ApplicationID: in.app.ID,
		GuildID: rec.GuildID, Data: event.Refusal{ID: s.ids.Next(), ApplicationID: in.app.ID, InteractionID: rec.ID,
			ChannelID: rec.ChannelID, GuildID: rec.GuildID, UserID: rec.UserID, InteractionType: rec.Type,
			Name: in.meta.Name, CommandType: int(in.meta.CommandType), Route: "inline answer", Path: d.endpoint,
			Status: status, Error: body}})
}

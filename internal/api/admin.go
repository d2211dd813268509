package api

import (
	"context"

	"github.com/slashd/slashd/internal/adminapi"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store"
)

// adminRoutes mounts the admin API (/admin/v1, internal/adminapi) on the
// server's mux, handing it what it shares with the public API: the
// store and clocks, the request plumbing (the authentication failure
// budget, body reading, the error envelope) and the views it answers
// with (private channel objects, the access explainer).
func (s *Server) adminRoutes() {
	adminapi.New(adminapi.Deps{
		Store: s.store, IDs: s.ids, Now: s.now, Rand: s.rand, Logger: s.log,
		VerifyEndpoint:       s.webhooks.VerifyEndpointPing,
		RefuseFailingAddress: s.refuseFailingAddress,
		ReadBody:             s.readBody,
		WriteJSON:            writeJSON,
		WriteError:           s.writeError,
		WriteAuthError:       s.writeAuthError,
		PrivateChannel:       s.privateChannelObject,
		OpenDM:               s.openDMFor,
		ExplainAccess:        s.explainAccess,
		ExplainPrivateAccess: s.explainPrivateAccess,
	}).Register(routeRecorder{s})
}

// openDMFor is POST /users/@me/channels as user from, with its body
// (the admin API's POST /admin/v1/users/{user_id}/channels): the DM as
// from sees it, and whether it is new.
func (s *Server) openDMFor(ctx context.Context, from store.User, body form.Object) (any, bool, error) {
	to, err := recipientOf(body)
	if err != nil {
		return nil, false, err
	}
	c, created, err := s.openDM(ctx, from, to)
	if err != nil {
		return nil, false, err
	}
	obj, err := s.privateChannelObject(ctx, c, from.ID)
	return obj, created, err
}

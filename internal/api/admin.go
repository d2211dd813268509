package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/act"
	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/adminapi"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
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
		VerifyEndpoint: s.webhooks.VerifyEndpointPing,
		GatewaySessions: func(app snowflake.ID) adminapi.GatewaySessions {
			n := s.gateway.AppSessions(app)
			return adminapi.GatewaySessions{Connected: n.Connected, Resumable: n.Resumable}
		},
		BotSessions:          s.botSessions,
		FaultsChanged:        s.faults.Changed,
		MaxFaults:            s.cfg.FaultsPerWorld,
		AppsDeleted:          s.appsDeleted,
		ReadJournal:          s.ReadJournal,
		RefuseFailingAddress: s.refuseFailingAddress,
		ReadBody:             s.readBody,
		WriteJSON:            writeJSON,
		WriteError:           s.writeError,
		WriteAuthError:       s.writeAuthError,
		PrivateChannel:       s.privateChannelObject,
		OpenDM:               s.openDMFor,
		ExplainAccess:        s.explainAccess,
		ExplainPrivateAccess: s.explainPrivateAccess,
		Act:                  act.NewRunner(s, s.openedModal, s.appCommandList),
	}).Register(adminRecorder{s})
}

// botSessions lists an app's gateway sessions for the admin API.
func (s *Server) botSessions(app snowflake.ID) []adminapi.BotSession {
	list := s.gateway.SessionList(app)
	out := make([]adminapi.BotSession, len(list))
	for i, in := range list {
		out[i] = adminapi.BotSession{ID: in.ID, ApplicationID: in.ApplicationID, ShardID: in.ShardID, Shards: in.Shards,
			Intents: in.Intents, IdentifiedAt: in.IdentifiedAt, Connected: in.Connected, DisconnectedAt: in.DisconnectedAt}
	}
	return out
}

// adminRecorder registers the admin routes; a write's world events go
// out on the bus before its answer does (publishFirst), so that what a
// client does once answered (a bot connecting, a test reading its
// dispatches) comes after them. Other writers' are published by the
// poll (world_events.go).
type adminRecorder struct{ s *Server }

func (r adminRecorder) Handle(pattern string, h http.Handler) {
	h = r.s.noteAccepted(h)
	if strings.HasPrefix(pattern, "GET ") {
		r.s.register(pattern, h)
		return
	}
	r.s.register(pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(&publishFirst{ResponseWriter: w, s: r.s, ctx: req.Context()}, req)
	}))
}

// publishFirst publishes the world's waiting changes before the first
// byte of the answer.
type publishFirst struct {
	http.ResponseWriter
	s    *Server
	ctx  context.Context
	done bool
}

func (p *publishFirst) publish() {
	if !p.done {
		p.done = true
		p.s.PublishWorldEvents(p.ctx)
	}
}

func (p *publishFirst) WriteHeader(code int) {
	p.publish()
	p.ResponseWriter.WriteHeader(code)
}

func (p *publishFirst) Write(b []byte) (int, error) {
	p.publish()
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (p *publishFirst) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// openDMFor is POST /users/@me/channels as user from, with its body
// (the admin API's POST /admin/v1/users/{user_id}/channels): the DM as
// from sees it, and whether it is new.
func (s *Server) openDMFor(ctx context.Context, from store.User, body form.Object) (any, bool, error) {
	to, err := recipientOf(body)
	if err != nil {
		return nil, false, err
	}
	// The admin API names a link across test worlds for what it is
	// (POST /users/@me/channels answers as for an unknown user).
	if other, err := s.store.User(ctx, to); err == nil {
		if err := admin.SameWorld("user", other.WorldID, "user opening the DM", from.WorldID, "recipient_id"); err != nil {
			return nil, false, err
		}
	}
	c, created, err := s.openDM(ctx, from, to)
	if err != nil {
		return nil, false, err
	}
	obj, err := s.privateChannelObject(ctx, c, from.ID)
	return obj, created, err
}

// appsDeleted tells every node's gateway (this one's too) that apps are
// gone, and flushes a networked bus so that the DELETE's answer comes
// after the news left: their bots' sessions end everywhere.
func (s *Server) appsDeleted(ctx context.Context, apps []snowflake.ID) {
	ctx = context.WithoutCancel(ctx)
	for _, app := range apps {
		s.events.Publish(ctx, event.Event{Type: event.ApplicationDeleted, ApplicationID: app})
	}
	if f, ok := s.events.(interface{ Flush(context.Context) error }); ok {
		if err := f.Flush(ctx); err != nil {
			s.log.Warn("flush the bus after deleting apps", "err", err)
		}
	}
}

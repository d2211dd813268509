// Package adminapi is slashd's admin HTTP API under /admin/v1: the world
// commands live in (users with their logins, tokens and installed apps,
// applications, guilds with their roles, members, channels and
// installations, DMs and group DMs), and why a member may use a command.
// The rules of each request are internal/admin's (shared with the CLI);
// this package gives every route one shape: a route names the things of
// its path it works on and whether it takes a body, and one wrapper
// checks the admin token, looks those things up (each unknown one its
// own 404), reads the body, and renders the handler's Response or error.
// A handler states its rule and nothing else.
//
// The package is mounted by internal/api, which hands it what the two
// APIs share through Deps: the request plumbing (the authentication
// failure budget, body reading, the error envelope) and the public
// API's views (private channel objects, the access explainer).
package adminapi

import (
	"context"
	"crypto/ed25519"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/act"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/webhook"
)

// Prefix is the root of the admin API.
const Prefix = "/admin/v1"

// Deps are what the admin API needs from the server that mounts it.
type Deps struct {
	Store  store.Store
	IDs    *snowflake.Generator
	Now    func() time.Time
	Rand   io.Reader
	Logger *slog.Logger
	// VerifyEndpoint checks an Interactions Endpoint URL as a developer
	// saving it would (webhook.Deliverer.VerifyEndpointPing).
	VerifyEndpoint func(ctx context.Context, url string, key ed25519.PrivateKey, ping webhook.Ping) error
	// GatewaySessions counts an app's gateway sessions (the gateway's
	// AppSessions); nil: applications are shown without them.
	GatewaySessions func(appID snowflake.ID) GatewaySessions
	// BotSessions lists an app's gateway sessions, every node's (the
	// gateway's SessionList); nil: a world lists none.
	BotSessions func(appID snowflake.ID) []BotSession
	// FaultsChanged reloads the faults after a write to them, on this
	// node and (through the bus) the others; nil: nothing to tell.
	FaultsChanged func(ctx context.Context) error
	// AppsDeleted tells every node that these apps are gone with their
	// tokens (a world's deletion), so that their bots' gateway sessions
	// end everywhere; nil: nothing to tell.
	AppsDeleted func(ctx context.Context, apps []snowflake.ID)
	// MaxFaults caps a world's faults, spent ones included (0:
	// fault.DefaultMaxPerWorld).
	MaxFaults int
	// ReadJournal reads (and long-polls) a world's journal
	// (journal.Read); nil: GET …/events fails.
	ReadJournal func(ctx context.Context, q journal.Query) (journal.Page, error)

	// The server's request plumbing, shared with the public API.

	// RefuseFailingAddress answers 429 and reports true when the
	// client's address used up its authentication failure budget and
	// its credential is not known to be valid (nor allowed a lookup).
	RefuseFailingAddress func(w http.ResponseWriter, r *http.Request) bool
	// ReadBody reads a JSON body within the size cap and decodes it.
	ReadBody func(w http.ResponseWriter, r *http.Request) (any, error)
	// WriteJSON answers status with v as JSON.
	WriteJSON func(w http.ResponseWriter, status int, v any)
	// WriteError renders an error in the API's envelope (anything not an
	// *apierr.Error as a logged 500); WriteAuthError also counts a 401
	// against the client's failure budget (and answers its 429 instead
	// once the budget is spent).
	WriteError, WriteAuthError func(w http.ResponseWriter, r *http.Request, err error)

	// The public API's views, which the admin API answers with.

	// PrivateChannel renders a DM or group DM as viewer sees it (viewer
	// 0: every participant listed).
	PrivateChannel func(ctx context.Context, c store.PrivateChannel, viewer snowflake.ID) (any, error)
	// OpenDM is POST /users/@me/channels for user from, with its body:
	// the DM rendered as from sees it, and whether it is new.
	OpenDM func(ctx context.Context, from store.User, body form.Object) (channel any, created bool, err error)
	// ExplainAccess decides whether a member may see and use a command
	// in a channel (the picker's rules), with its API errors for
	// unknown guilds, channels, members and commands.
	ExplainAccess func(ctx context.Context, q AccessQuery) (access.Decision, error)
	// ExplainPrivateAccess is ExplainAccess in a DM or group DM (the
	// query's GuildID is 0).
	ExplainPrivateAccess func(ctx context.Context, q AccessQuery) (access.Decision, error)
	// Act runs a world's member's actions through the public API, in
	// process (POST /admin/v1/worlds/{world}/act).
	Act *act.Runner
}

// GatewaySessions are an app's sessions on the gateway: whether its bot
// is online, which matters when its interactions go to an endpoint
// instead (the bot then gets none).
type GatewaySessions struct {
	Connected int `json:"connected"`
	Resumable int `json:"resumable"`
}

// AccessQuery names a member, a channel and a command of one guild, or
// (GuildID 0) a participant, a DM or group DM and a global command.
type AccessQuery struct {
	GuildID, CommandID, UserID, ChannelID snowflake.ID
}

// API serves the admin routes.
type API struct{ Deps }

// New builds the admin API.
func New(d Deps) *API { return &API{Deps: d} }

// Registrar is where the routes go (the server's mux, which also lists
// them).
type Registrar interface {
	Handle(pattern string, h http.Handler)
}

// Register adds every admin route to mux.
func (a *API) Register(mux Registrar) {
	for _, rt := range a.routes() {
		mux.Handle(rt.method+" "+Prefix+rt.path, a.serve(rt))
	}
}

func (a *API) nextID() snowflake.ID { return a.IDs.Next() }

// env is what bootstrap needs to change the world as the CLI does.
func (a *API) env() bootstrap.Env {
	return bootstrap.Env{Store: a.Store, IDs: a.IDs, Rand: a.Rand, Now: a.Now}
}

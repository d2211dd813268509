// Package oauth is slashd's OAuth2 authorization server (RFC 6749, PKCE
// RFC 7636, revocation RFC 7009, native apps RFC 8252): the consent page
// at /oauth2/authorize, the token endpoint, revocation, the current
// authorization, and the OpenID Connect discovery documents.
//
// It issues the Bearer tokens the commands API accepts: client
// credentials (applications.commands.update) and user tokens
// (applications.commands.permissions.update), and installs apps in
// guilds (applications.commands, bot).
package oauth

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Store is what the OAuth2 server needs from the store.
type Store interface {
	store.Store
	store.OAuth
}

// Deps are the server's collaborators.
type Deps struct {
	Store  Store
	IDs    *snowflake.Generator
	Now    func() time.Time
	Rand   io.Reader
	Logger *slog.Logger
}

// Server serves the OAuth2 endpoints.
type Server struct {
	store Store
	ids   *snowflake.Generator
	now   func() time.Time
	rand  io.Reader
	log   *slog.Logger
}

// New builds the server.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{store: d.Store, ids: d.IDs, now: d.Now, rand: d.Rand, log: d.Logger}
}

// Routes registers the endpoints on mux under each API prefix ("" for the
// unprefixed /oauth2/authorize the real service also serves).
func (s *Server) Routes(mux *http.ServeMux, prefixes []string) {
	for _, p := range prefixes {
		s.tokenRoutes(mux, p)
		s.authorizeRoutes(mux, p)
	}
}

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
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/ratelimit"
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
	Rand   io.Reader // crypto/rand when nil
	Logger *slog.Logger
	// Wrap, when set, wraps every handler the token side registers (the
	// API uses it for its rate limiter); pattern is the route without the
	// API prefix, as "POST /oauth2/token".
	Wrap func(pattern string, h http.Handler) http.Handler
	// Guard, when set, wraps the endpoints that check a credential of
	// the request (token, revocation, @me, userinfo) inside Wrap: the
	// API refuses there the client addresses that failed authentication
	// too often, and counts these endpoints' 401s.
	Guard func(h http.Handler) http.Handler
	// Limiter counts the consent page's login attempts against Logins
	// (nil: logins are not limited).
	Limiter ratelimit.Checker
	Logins  LoginLimits
}

// Server serves the OAuth2 endpoints.
type Server struct {
	store Store
	ids   *snowflake.Generator
	now   func() time.Time
	rand  io.Reader
	log   *slog.Logger
	wrap  func(pattern string, h http.Handler) http.Handler
	guard func(h http.Handler) http.Handler
	keys  keyring // id_token signing keys, loaded or made on first use
	// limiter and logins limit login attempts (limiter nil: no limits).
	limiter ratelimit.Checker
	logins  LoginLimits
}

// New builds the server.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.Rand == nil {
		d.Rand = rand.Reader
	}
	if d.Wrap == nil {
		d.Wrap = func(_ string, h http.Handler) http.Handler { return h }
	}
	if d.Guard == nil {
		d.Guard = func(h http.Handler) http.Handler { return h }
	}
	return &Server{store: d.Store, ids: d.IDs, now: d.Now, rand: d.Rand, log: d.Logger, wrap: d.Wrap, guard: d.Guard,
		limiter: d.Limiter, logins: d.Logins}
}

// Mux is where routes are registered (an *http.ServeMux, or the API's
// recorder of its routes in front of one).
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Routes registers the endpoints on mux under each API prefix
// ("/api/v10", …), and the unprefixed ones: /oauth2/authorize (which the
// real service also serves there) and the OpenID Connect discovery
// document.
func (s *Server) Routes(mux Mux, prefixes []string) {
	for _, p := range prefixes {
		s.tokenRoutes(mux, p)
		s.authorizeRoutes(mux, p)
	}
	s.handle(mux, "GET", "", "/.well-known/openid-configuration", s.discovery)
}

// handle registers h for method and prefix+path, wrapped in Deps.Wrap.
func (s *Server) handle(mux Mux, method, prefix, path string, h http.HandlerFunc) {
	mux.Handle(method+" "+prefix+path, s.wrap(method+" "+path, h))
}

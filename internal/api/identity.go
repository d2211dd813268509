package api

import (
	"context"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// The identity routes a bot reads at start (discord.js
// client.application.fetch(), disgo's and discordgo's current user and
// application): GET /users/@me, /applications/@me and
// /oauth2/applications/@me, answered as the real service does.

// scopeEmail adds the email (null here) and verified to /users/@me.
const scopeEmail = "email"

// currentUser is a stored user as its own account reads it (/users/@me,
// READY's user).
func currentUser(u store.User, withEmail bool) wire.CurrentUser {
	return wire.NewCurrentUser(wireUser(u), u.Locale, withEmail)
}

// getCurrentUser is GET /users/@me: a bot token reads its bot user; a
// Bearer token with identify reads the user who granted it (email only
// with the email scope); a Bearer token without identify is refused with
// the real service's 401 (and RFC 6750's insufficient_scope challenge).
func (s *Server) getCurrentUser(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if !p.Bot() && !p.Token.HasScope(auth.ScopeIdentify) {
		return missingScope(errUnauthorized, auth.ScopeIdentify)
	}
	u, err := s.store.User(r.Context(), p.Token.UserID)
	if err != nil {
		return store.NotFoundAs(err, errUnauthorized) // the user was deleted under its token
	}
	writeJSON(w, http.StatusOK, currentUser(u, !p.Bot() && p.Token.HasScope(scopeEmail)))
	return nil
}

// errUnknownUser is the real service's 404 for a user id that names no one.
var errUnknownUser = apierr.New(http.StatusNotFound, apierr.CodeUnknownUser, "Unknown User")

// getUser is GET /users/{user_id}: any user's public object, as the real
// service serves it to bots and users alike (no locale, email or flags of
// the account's own view). OAuth2 Bearer tokens are not accepted here
// (chatRoute refuses them).
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	u, err := s.store.User(r.Context(), id)
	if err != nil {
		return store.NotFoundAs(err, errUnknownUser)
	}
	world, err := s.principalWorld(r.Context())
	if err != nil {
		return err
	}
	if u.WorldID != world {
		return errUnknownUser // another world's user is unknown here
	}
	writeJSON(w, http.StatusOK, wireUser(u))
	return nil
}

// getCurrentApplication is GET /applications/@me and GET
// /oauth2/applications/@me (bot tokens only): the bot's application.
func (s *Server) getCurrentApplication(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if !p.Bot() {
		return errUnauthorized
	}
	app, err := s.privateApplication(r.Context(), p.Token.ApplicationID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, app)
	return nil
}

// privateApplication renders an app as its own bot reads it: its bot and
// owner users, OAuth2 redirect URIs, interactions endpoint and counts.
func (s *Server) privateApplication(ctx context.Context, appID snowflake.ID) (wire.PrivateApplication, error) {
	app, err := s.store.Application(ctx, appID)
	if err != nil {
		return wire.PrivateApplication{}, store.NotFoundAs(err, errUnknownApp)
	}
	bot, err := s.store.User(ctx, app.ID)
	if err != nil {
		return wire.PrivateApplication{}, err
	}
	owner, err := s.store.User(ctx, app.OwnerID)
	if err != nil {
		return wire.PrivateApplication{}, err
	}
	settings, err := s.store.OAuthSettings(ctx, app.ID)
	if err != nil {
		return wire.PrivateApplication{}, err
	}
	counts, err := s.store.ApplicationCounts(ctx, app.ID)
	if err != nil {
		return wire.PrivateApplication{}, err
	}
	botUser := wireUser(bot)
	return wire.NewPrivateApplication(wire.NewApplication(app.ID, app.Name, app.PublicKey, app.Flags, &botUser),
		wireUser(owner), settings.RedirectURIs, app.InteractionsEndpointURL, admin.IntegrationTypesConfigOf(app),
		wire.AppCounts(counts)), nil
}

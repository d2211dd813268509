package oauth

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// bearer authenticates a request's Bearer token (a bot token is not one).
func (s *Server) bearer(r *http.Request) (store.Token, error) {
	ctx := r.Context()
	p, err := auth.Authenticate(ctx, s.store, r.Header.Get("Authorization"), s.now())
	if errors.Is(err, auth.ErrInvalidToken) || err == nil && p.Bot() {
		return store.Token{}, errAPIUnauthorized
	}
	if err != nil {
		return store.Token{}, err
	}
	// Valid on the real clock; a test world's token may have expired on
	// its world's (as the API checks it).
	if exp := p.Token.ExpiresAt; !exp.IsZero() && !s.nowIn(s.withAppIDClock(ctx, p.Token.ApplicationID)).Before(exp) {
		return store.Token{}, errAPIUnauthorized
	}
	return p.Token, nil
}

type meResponse struct {
	Application wire.Application `json:"application"`
	Scopes      []string         `json:"scopes"`
	Expires     *string          `json:"expires"`
	User        *wire.User       `json:"user,omitempty"`
}

// me is GET /oauth2/@me: the current authorization of a Bearer token, as
// the real service answers it: the app, the scopes, when the token
// expires and, with identify, the user.
func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.bearer(r)
	if err != nil {
		return err
	}
	app, err := s.store.Application(r.Context(), tok.ApplicationID)
	if err != nil {
		return err
	}
	bot, err := s.store.User(r.Context(), app.ID)
	if err != nil {
		return err
	}
	botUser := wire.NewUser(bot.ID, bot.Username, bot.GlobalName, bot.Bot)
	resp := meResponse{
		Application: wire.NewApplication(app.ID, app.Name, app.PublicKey, app.Flags, &botUser),
		Scopes:      tok.Scopes,
	}
	if resp.Scopes == nil {
		resp.Scopes = []string{}
	}
	if !tok.ExpiresAt.IsZero() {
		// The real service's form: 2021-01-23T02:33:17.017000+00:00.
		e := tok.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000000+00:00")
		resp.Expires = &e
	}
	if tok.HasScope(auth.ScopeIdentify) {
		u, err := s.store.User(r.Context(), tok.UserID)
		if err != nil {
			return err
		}
		user := wire.NewUser(u.ID, u.Username, u.GlobalName, u.Bot)
		resp.User = &user
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// userinfo is GET /oauth2/userinfo (OpenID Connect Core §5.3), for tokens
// with openid or identify: the subject and the user's names.
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.bearer(r)
	if err != nil {
		return err
	}
	if !tok.HasScope("openid") && !tok.HasScope(auth.ScopeIdentify) {
		return errAPIUnauthorized
	}
	u, err := s.store.User(r.Context(), tok.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Sub               string       `json:"sub"`
		ID                snowflake.ID `json:"id"`
		Username          string       `json:"username"`
		GlobalName        *string      `json:"global_name"`
		PreferredUsername string       `json:"preferred_username"`
		Nickname          *string      `json:"nickname,omitempty"`
		Locale            *string      `json:"locale,omitempty"`
	}{Sub: u.ID.String(), ID: u.ID, Username: u.Username, GlobalName: nullable(u.GlobalName),
		PreferredUsername: u.Username, Nickname: nullable(u.GlobalName), Locale: nullable(u.Locale)})
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package oauth

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// bearer authenticates a request's Bearer token (a bot token is not one).
func (s *Server) bearer(r *http.Request) (store.Token, error) {
	p, err := auth.Authenticate(r.Context(), s.store, r.Header.Get("Authorization"), s.now())
	if errors.Is(err, auth.ErrInvalidToken) || err == nil && p.Bot() {
		return store.Token{}, errAPIUnauthorized
	}
	return p.Token, err
}

// meApplication is the partial application of /oauth2/@me.
type meApplication struct {
	ID                  snowflake.ID `json:"id"`
	Name                string       `json:"name"`
	Icon                *string      `json:"icon"`
	Description         string       `json:"description"`
	Hook                bool         `json:"hook"`
	BotPublic           bool         `json:"bot_public"`
	BotRequireCodeGrant bool         `json:"bot_require_code_grant"`
	VerifyKey           string       `json:"verify_key"`
	Flags               uint64       `json:"flags"`
}

// meUser is the user object of /oauth2/@me.
type meUser struct {
	ID            snowflake.ID `json:"id"`
	Username      string       `json:"username"`
	Avatar        *string      `json:"avatar"`
	Discriminator string       `json:"discriminator"`
	GlobalName    *string      `json:"global_name"`
	PublicFlags   int          `json:"public_flags"`
}

type meResponse struct {
	Application meApplication `json:"application"`
	Scopes      []string      `json:"scopes"`
	Expires     *string       `json:"expires"`
	User        *meUser       `json:"user,omitempty"`
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
	resp := meResponse{
		Application: meApplication{ID: app.ID, Name: app.Name, Hook: true, BotPublic: true, VerifyKey: app.PublicKey,
			Flags: app.Flags},
		Scopes: tok.Scopes,
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
		resp.User = &meUser{ID: u.ID, Username: u.Username, Discriminator: "0", GlobalName: nullable(u.GlobalName)}
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

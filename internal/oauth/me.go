package oauth

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// bearer authenticates the request's Bearer access token (RFC 6750): in
// Authorization (§2.1) or, on a POST, as access_token in a form body
// (§2.2). Its refusals carry §3's challenge.
func (s *Server) bearer(w http.ResponseWriter, r *http.Request) (store.Token, error) {
	ctx := r.Context()
	header, err := accessCredential(w, r)
	if err != nil {
		return store.Token{}, err
	}
	if auth.SchemeOf(header) != auth.SchemeBearer {
		// No credential, a bot token, a bare value: no Bearer token was
		// sent, and §3.1 asks for no error code then.
		return store.Token{}, auth.WithChallenge(errAPIUnauthorized, auth.Challenge{})
	}
	p, err := auth.Authenticate(ctx, s.store, header, s.now())
	if errors.Is(err, auth.ErrInvalidToken) {
		return store.Token{}, auth.WithChallenge(errAPIUnauthorized, auth.InvalidToken)
	}
	if err != nil {
		return store.Token{}, err
	}
	// Valid on the real clock; a test world's token may have expired on
	// its world's (as the API checks it).
	if exp := p.Token.ExpiresAt; !exp.IsZero() && !s.nowIn(s.withAppIDClock(ctx, p.Token.ApplicationID)).Before(exp) {
		return store.Token{}, auth.WithChallenge(errAPIUnauthorized, auth.InvalidToken)
	}
	return p.Token, nil
}

// accessCredential is the request's credential as an Authorization
// value: the header, or "Bearer <access_token>" from a POST's
// form-encoded body. Both at once is §3.1's invalid_request ("uses more
// than one method for including the access token"). A body of another
// type is no credential (§2.2 is form bodies only), and GET has none
// (§2.2: "The "GET" method MUST NOT be used").
func accessCredential(w http.ResponseWriter, r *http.Request) (string, error) {
	header := r.Header.Get("Authorization")
	if r.Method != http.MethodPost {
		return header, nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil ||
		!strings.EqualFold(mt, "application/x-www-form-urlencoded") {
		return header, nil
	}
	form, err := readForm(w, r)
	var oe *Error
	if errors.As(err, &oe) {
		return "", auth.WithChallenge(errAPIBadRequest,
			auth.Challenge{Error: auth.ChallengeInvalidRequest, Description: oe.Description})
	}
	if err != nil {
		return "", err
	}
	if !form.Has("access_token") {
		return header, nil
	}
	if header != "" {
		return "", auth.WithChallenge(errAPIBadRequest, auth.Challenge{Error: auth.ChallengeInvalidRequest,
			Description: "Send the access token once: in the Authorization header or in the form body, not both"})
	}
	return "Bearer " + form.Get("access_token"), nil
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
	tok, err := s.bearer(w, r)
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

// userinfo is GET and POST /oauth2/userinfo (OpenID Connect Core §5.3),
// for tokens with openid or identify: the subject and the user's names.
// A token with neither is RFC 6750's insufficient_scope (a 403, §3.1).
// Its answers, personal data, are never cached.
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	tok, err := s.bearer(w, r)
	if err != nil {
		return err
	}
	if !tok.HasScope("openid") && !tok.HasScope(auth.ScopeIdentify) {
		return auth.WithChallenge(errAPIForbidden, auth.InsufficientScope("openid"))
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

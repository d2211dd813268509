package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// tokenRoutes registers the token, revocation, current-authorization,
// userinfo and key-set endpoints under an API prefix.
func (s *Server) tokenRoutes(mux Mux, prefix string) {
	s.handle(mux, "POST", prefix, "/oauth2/token", s.guarded(s.oauthHandler(s.token)))
	s.handle(mux, "POST", prefix, "/oauth2/token/revoke", s.guarded(s.oauthHandler(s.revoke)))
	s.handle(mux, "GET", prefix, "/oauth2/@me", s.guarded(s.apiHandler(s.me)))
	s.handle(mux, "GET", prefix, "/oauth2/userinfo", s.guarded(s.apiHandler(s.userinfo)))
	s.handle(mux, "POST", prefix, "/oauth2/userinfo", s.guarded(s.apiHandler(s.userinfo)))
	s.handle(mux, "GET", prefix, "/oauth2/keys", s.jwks)
}

// maxFormBytes caps the token and revocation request bodies.
const maxFormBytes = 64 << 10

// readForm reads the body of a token or revocation request: form-encoded
// only (RFC 6749 §3.2), each parameter at most once. Parameters in the
// URL are ignored. A request without Content-Type and without a body is
// an empty form.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, errInvalidRequest("The request body is too large")
	}
	if err != nil {
		return nil, errInvalidRequest("Malformed form body")
	}
	if ct := r.Header.Get("Content-Type"); ct != "" || len(body) > 0 {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.EqualFold(mt, "application/x-www-form-urlencoded") {
			return nil, errInvalidRequest(`The body must be form-encoded (Content-Type "application/x-www-form-urlencoded")`)
		}
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errInvalidRequest("Malformed form body")
	}
	for k, vs := range form {
		if len(vs) > 1 {
			return nil, errInvalidRequest(`Duplicate "` + k + `"`)
		}
	}
	return form, nil
}

// client is the app a token or revocation request comes from.
type client struct {
	app store.Application
	// authenticated: the request carried the app's secret. Otherwise the
	// app is a public client, which the grants restrict further.
	authenticated bool
}

// authenticateClient identifies the client: its id and secret by HTTP
// Basic (RFC 6749 §2.3.1, form-encoded) or in the form, never both. A
// request without a secret is accepted here only from a public client.
func (s *Server) authenticateClient(ctx context.Context, r *http.Request, form url.Values) (client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, secret = formUnescape(id), formUnescape(secret)
		if form.Has("client_secret") {
			return client{}, errInvalidRequest("Use one client authentication method: HTTP Basic or the form, not both")
		}
		if fid := form.Get("client_id"); fid != "" && fid != id {
			return client{}, errInvalidRequest(`"client_id" differs from the client authenticated by HTTP Basic`)
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	appID, err := snowflake.Parse(id)
	if err != nil {
		return client{}, errInvalidClient("")
	}
	app, err := s.store.Application(ctx, appID)
	if errors.Is(err, store.ErrNotFound) {
		return client{}, errInvalidClient("")
	}
	if err != nil {
		return client{}, err
	}
	if secret != "" {
		if !auth.CheckClientSecret(app, secret) {
			return client{}, errInvalidClient("")
		}
		return client{app: app, authenticated: true}, nil
	}
	settings, err := s.store.OAuthSettings(ctx, app.ID)
	if errors.Is(err, store.ErrNotFound) {
		return client{}, errInvalidClient("") // the app was deleted since it was read
	}
	if err != nil {
		return client{}, err
	}
	if !settings.PublicClient {
		return client{}, errInvalidClient("")
	}
	return client{app: app}, nil
}

func formUnescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// tokenResponse is RFC 6749 §5.1's, plus OpenID Connect's id_token.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
	IDToken      string `json:"id_token,omitempty"`
}

// token is POST /oauth2/token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	form, err := readForm(w, r)
	if err != nil {
		return err
	}
	c, err := s.authenticateClient(r.Context(), r, form)
	if err != nil {
		return err
	}
	// Codes, grants and tokens of a test world's app live on its clock.
	r = r.WithContext(s.withAppClock(r.Context(), c.app))
	var resp tokenResponse
	gt := form.Get("grant_type")
	switch gt {
	case "authorization_code":
		resp, err = s.exchangeCode(r, form, c)
	case "refresh_token":
		resp, err = s.refresh(r, form, c)
	case "client_credentials":
		resp, err = s.clientCredentials(r, form, c)
	case "":
		return errInvalidRequest(`Missing "grant_type"`)
	default:
		return newError(http.StatusBadRequest, "unsupported_grant_type", `Unsupported grant type "`+gt+`"`)
	}
	if errors.Is(err, errGrantGone) {
		s.log.Info("oauth2 token refused: the grant went while its tokens were issued", "grant_type", gt,
			"application_id", c.app.ID)
		err = grantGoneError(gt)
	}
	if err != nil {
		return err
	}
	s.log.Info("oauth2 token issued", "grant_type", gt, "application_id", c.app.ID, "scope", resp.Scope,
		"refresh_token", resp.RefreshToken != "", "id_token", resp.IDToken != "")
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// errGrantGone: the grant a request's tokens were for went while they
// were issued, typically revoked by a replay of the same code or refresh
// token racing the request (RFC 6749 §4.1.2, §10.4); the store kept
// neither token. token answers it with grantGoneError.
var errGrantGone = errors.New("grant gone while its tokens were issued")

// grantGoneError is the answer to a request whose grant went while its
// tokens were issued: the one a spent code or refresh token gets (RFC
// 6749 §5.2), so that racing requests all read alike, never a 500. A
// client_credentials grant goes only with its app or the app's owner:
// the client is gone.
func grantGoneError(grantType string) *Error {
	switch grantType {
	case "authorization_code":
		return errInvalidGrant(`Invalid "code" in request.`)
	case "refresh_token":
		return errInvalidGrant(`Invalid "refresh_token" in request.`)
	}
	return errInvalidClient("")
}

// exchangeCode is the authorization_code grant. The code is spent as soon
// as it is found: if the request then fails for any reason, its grant is
// revoked (no token can come from it any more), and a code presented a
// second time revokes the grant and every token already issued from it
// (RFC 6749 §4.1.2).
func (s *Server) exchangeCode(r *http.Request, form url.Values, c client) (tokenResponse, error) {
	ctx := r.Context()
	raw := form.Get("code")
	if raw == "" {
		return tokenResponse{}, errInvalidRequest(`Missing "code"`)
	}
	code, err := s.store.UseCode(ctx, auth.Hash(raw))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return tokenResponse{}, errInvalidGrant(`Invalid "code" in request.`)
	case errors.Is(err, store.ErrConflict):
		s.revokeGrant(ctx, code.GrantID, "authorization code used twice")
		return tokenResponse{}, errInvalidGrant(`Invalid "code" in request.`)
	case err != nil:
		return tokenResponse{}, err
	}
	fail := func(e *Error) (tokenResponse, error) {
		s.revokeGrant(ctx, code.GrantID, "failed code exchange: "+e.Error())
		return tokenResponse{}, e
	}
	g, err := s.store.Grant(ctx, code.GrantID)
	if errors.Is(err, store.ErrNotFound) {
		return tokenResponse{}, errInvalidGrant(`Invalid "code" in request.`)
	}
	if err != nil {
		return tokenResponse{}, err
	}
	if g.ApplicationID != c.app.ID {
		return fail(errInvalidGrant(`Invalid "code" in request.`))
	}
	if !s.nowIn(ctx).Before(code.ExpiresAt) {
		return fail(errInvalidGrant("The authorization code has expired"))
	}
	if !c.authenticated && code.CodeChallenge == "" {
		return fail(errInvalidClient("A public client may leave out its secret only for codes issued with PKCE"))
	}
	if code.RedirectURI != "" {
		switch sent := form.Get("redirect_uri"); {
		case sent == "":
			return fail(errInvalidRequest(`Missing "redirect_uri"`))
		case sent != code.RedirectURI:
			return fail(errInvalidGrant(`Invalid "redirect_uri" in request.`))
		}
	}
	verifier := form.Get("code_verifier")
	switch {
	case code.CodeChallenge == "" && form.Has("code_verifier"):
		// A verifier for a code issued without a challenge means the
		// challenge was lost on the way (RFC 9700 §2.1.1): refuse.
		return fail(errInvalidGrant(`"code_verifier" sent for a code issued without PKCE`))
	case code.CodeChallenge == "":
	case verifier == "":
		return fail(errInvalidRequest(`Missing "code_verifier"`))
	case !ValidCodeVerifier(verifier):
		return fail(errInvalidRequest(`Invalid "code_verifier"`))
	case !verifierMatches(verifier, code.CodeChallenge):
		return fail(errInvalidGrant(`Invalid "code_verifier"`))
	}
	authTime := code.AuthTime
	if authTime.IsZero() { // a code stored before codes kept it
		authTime = g.CreatedAt
	}
	return s.issue(r, g, g.Scopes, true, true, idTokenFacts{nonce: code.Nonce, authTime: authTime})
}

// refresh is the refresh_token grant, with rotation: the presented token
// is spent and a new one comes with the new access token. Presenting a
// spent refresh token revokes its grant (it leaked, or the client lost
// track); so does any failure after the token was found. scope may narrow
// the new access token to part of what was granted (RFC 6749 §6).
func (s *Server) refresh(r *http.Request, form url.Values, c client) (tokenResponse, error) {
	ctx := r.Context()
	raw := form.Get("refresh_token")
	if raw == "" {
		return tokenResponse{}, errInvalidRequest(`Missing "refresh_token"`)
	}
	requested := strings.Fields(form.Get("scope"))
	rt, err := s.store.UseRefreshToken(ctx, auth.Hash(raw))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return tokenResponse{}, errInvalidGrant(`Invalid "refresh_token" in request.`)
	case errors.Is(err, store.ErrConflict):
		s.revokeGrant(ctx, rt.GrantID, "refresh token used twice")
		return tokenResponse{}, errInvalidGrant(`Invalid "refresh_token" in request.`)
	case err != nil:
		return tokenResponse{}, err
	}
	fail := func(e *Error) (tokenResponse, error) {
		s.revokeGrant(ctx, rt.GrantID, "failed refresh: "+e.Error())
		return tokenResponse{}, e
	}
	g, err := s.store.Grant(ctx, rt.GrantID)
	if errors.Is(err, store.ErrNotFound) {
		return tokenResponse{}, errInvalidGrant(`Invalid "refresh_token" in request.`)
	}
	if err != nil {
		return tokenResponse{}, err
	}
	if g.ApplicationID != c.app.ID {
		return fail(errInvalidGrant(`Invalid "refresh_token" in request.`))
	}
	scopes := g.Scopes
	if len(requested) > 0 {
		for _, sc := range requested {
			if !slices.Contains(g.Scopes, sc) {
				return fail(errInvalidScope(`Scope "` + sc + `" was not granted`))
			}
		}
		scopes = requested
	}
	// The id_token comes with the code only: a refresh has no nonce to
	// carry, and the client already knows who the user is.
	return s.issue(r, g, scopes, true, false, idTokenFacts{})
}

// clientCredentials is the client_credentials grant: an app gets a token
// for its owner, limited to identify and applications.commands.update,
// without refresh token. It is recorded as a grant so that revocation
// works on it as on every other token.
func (s *Server) clientCredentials(r *http.Request, form url.Values, c client) (tokenResponse, error) {
	if !c.authenticated {
		return tokenResponse{}, errInvalidClient("The client_credentials grant needs the client secret")
	}
	scopes := strings.Fields(form.Get("scope"))
	if len(scopes) == 0 {
		return tokenResponse{}, errInvalidScope("No scope requested")
	}
	for _, sc := range scopes {
		if !auth.ClientCredentialsScopeAllowed(sc) {
			return tokenResponse{}, errInvalidScope(`Scope "` + sc + `" is not allowed for the client_credentials grant`)
		}
	}
	g := store.Grant{ID: s.ids.Next(), ApplicationID: c.app.ID, UserID: c.app.OwnerID, Scopes: scopes,
		CreatedAt: s.nowIn(r.Context()).UTC()}
	err := s.store.CreateGrant(r.Context(), g)
	if errors.Is(err, store.ErrNotFound) {
		return tokenResponse{}, errGrantGone // the app or its owner was deleted since authentication
	}
	if err != nil {
		return tokenResponse{}, err
	}
	s.logGrant(g, "client_credentials")
	return s.issue(r, g, scopes, false, false, idTokenFacts{})
}

// issue mints an access token for grant g with scopes, a refresh token
// when withRefresh, and, when withIDToken and the scopes hold openid, an
// id_token stating facts. The tokens are stored together, in one
// transaction, only while g lives: errGrantGone if it was revoked since
// the grant type found it.
func (s *Server) issue(r *http.Request, g store.Grant, scopes []string, withRefresh, withIDToken bool, facts idTokenFacts) (tokenResponse, error) {
	ctx := r.Context()
	now := s.nowIn(ctx)
	access, err := auth.NewAccessToken(s.rand)
	if err != nil {
		return tokenResponse{}, err
	}
	resp := tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(auth.AccessTokenLifetime.Seconds()),
		Scope: strings.Join(scopes, " ")}
	var refresh *store.RefreshToken
	if withRefresh {
		if resp.RefreshToken, err = auth.NewAccessToken(s.rand); err != nil {
			return tokenResponse{}, err
		}
		refresh = &store.RefreshToken{Hash: auth.Hash(resp.RefreshToken), GrantID: g.ID, CreatedAt: now}
	}
	err = s.store.IssueTokens(ctx, store.Token{Hash: auth.Hash(access), Kind: store.TokenBearer,
		ApplicationID: g.ApplicationID, UserID: g.UserID, Scopes: scopes, ExpiresAt: now.Add(auth.AccessTokenLifetime),
		CreatedAt: now, GrantID: g.ID}, refresh)
	if errors.Is(err, store.ErrNotFound) {
		return tokenResponse{}, errGrantGone
	}
	if err != nil {
		return tokenResponse{}, fmt.Errorf("issue tokens of grant %d: %w", g.ID, err)
	}
	if withIDToken && slices.Contains(scopes, "openid") {
		// On the real clock: the client checks it against its own.
		if resp.IDToken, err = s.idToken(ctx, issuer(r), g, facts, access, s.now()); err != nil {
			return tokenResponse{}, err
		}
	}
	return resp, nil
}

// logGrant says a user (or, for client_credentials, the app's owner)
// granted an app scopes.
func (s *Server) logGrant(g store.Grant, via string) {
	attrs := []any{"grant_id", g.ID, "application_id", g.ApplicationID, "user_id", g.UserID,
		"scopes", strings.Join(g.Scopes, " "), "via", via}
	if g.GuildID != 0 {
		attrs = append(attrs, "guild_id", g.GuildID)
	}
	s.log.Info("oauth2 grant", attrs...)
}

// revokeGrant revokes a grant, logging (not failing on) errors: it runs
// on paths that already answer with an error.
func (s *Server) revokeGrant(ctx context.Context, id snowflake.ID, why string) {
	err := s.store.RevokeGrant(context.WithoutCancel(ctx), id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.Error("revoke grant", "grant_id", id, "why", why, "err", err)
		return
	}
	s.log.Info("grant revoked", "grant_id", id, "why", why)
}

// revoke is POST /oauth2/token/revoke (RFC 7009): the token (access or
// refresh, token_type_hint saying which to try first) and its whole
// grant are revoked. Unknown tokens, and tokens no grant issued, answer
// 200 as the RFC asks; a token issued to another client is refused.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	form, err := readForm(w, r)
	if err != nil {
		return err
	}
	c, err := s.authenticateClient(ctx, r, form)
	if err != nil {
		return err
	}
	raw := form.Get("token")
	if raw == "" {
		return errInvalidRequest(`Missing "token"`)
	}
	hash := auth.Hash(raw)
	tries := []func() (bool, error){
		func() (bool, error) { return s.revokeAccessToken(ctx, hash, c) },
		func() (bool, error) { return s.revokeRefreshToken(ctx, hash, c) },
	}
	if form.Get("token_type_hint") == "refresh_token" {
		slices.Reverse(tries)
	}
	for _, try := range tries {
		found, err := try()
		if err != nil {
			return err
		}
		if found {
			break
		}
	}
	writeJSON(w, http.StatusOK, struct{}{})
	return nil
}

func (s *Server) revokeAccessToken(ctx context.Context, hash []byte, c client) (bool, error) {
	tok, err := s.store.TokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) || err == nil && tok.Kind != store.TokenBearer {
		return false, nil // bot tokens are not OAuth2 tokens
	}
	if err != nil {
		return false, err
	}
	if tok.ApplicationID != c.app.ID {
		return true, errUnauthorizedClient("The token was not issued to this client")
	}
	if tok.GrantID != 0 {
		s.revokeGrant(ctx, tok.GrantID, "revocation request")
	}
	return true, nil
}

// revokeRefreshToken spends the refresh token to find its grant (the
// store reads refresh tokens only by using them); one presented by
// another client has leaked, and its grant goes all the same.
func (s *Server) revokeRefreshToken(ctx context.Context, hash []byte, c client) (bool, error) {
	rt, err := s.store.UseRefreshToken(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return false, err
	}
	g, err := s.store.Grant(ctx, rt.GrantID)
	if errors.Is(err, store.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	s.revokeGrant(ctx, g.ID, "revocation request")
	if g.ApplicationID != c.app.ID {
		return true, errUnauthorizedClient("The token was not issued to this client")
	}
	return true, nil
}

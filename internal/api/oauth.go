package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// oauthError is RFC 6749's error body, which the token endpoint uses
// instead of the API envelope.
type oauthError struct {
	status      int
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

// token is POST /oauth2/token. This issue serves the client_credentials
// grant: an app authenticates with its id and secret (HTTP Basic or form)
// and receives a Bearer token for its owner, without refresh token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	if err := s.issueToken(w, r); err != nil {
		var oe *oauthError
		if errors.As(err, &oe) {
			w.Header().Set("Cache-Control", "no-store")
			if oe.status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="slashd"`)
			}
			writeJSON(w, oe.status, oe)
			return nil
		}
		return err
	}
	return nil
}

func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return &oauthError{status: http.StatusBadRequest, Code: "invalid_request", Description: "Malformed form body"}
	}
	clientID, secret, basic := r.BasicAuth()
	if !basic {
		clientID, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	badClient := &oauthError{status: http.StatusUnauthorized, Code: "invalid_client"}
	appID, err := snowflake.Parse(clientID)
	if err != nil {
		return badClient
	}
	app, err := s.store.Application(r.Context(), appID)
	if errors.Is(err, store.ErrNotFound) {
		return badClient
	}
	if err != nil {
		return err
	}
	if !auth.CheckClientSecret(app, secret) {
		return badClient
	}
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		return &oauthError{status: http.StatusBadRequest, Code: "invalid_request", Description: `Missing "grant_type"`}
	default:
		return &oauthError{status: http.StatusBadRequest, Code: "unsupported_grant_type",
			Description: `Unsupported grant type "` + gt + `"`}
	}
	scopes := strings.Fields(r.PostForm.Get("scope"))
	if len(scopes) == 0 {
		return &oauthError{status: http.StatusBadRequest, Code: "invalid_scope", Description: "No scope requested"}
	}
	for _, sc := range scopes {
		if !auth.ClientCredentialsScopeAllowed(sc) {
			return &oauthError{status: http.StatusBadRequest, Code: "invalid_scope",
				Description: `Scope "` + sc + `" is not allowed for the client_credentials grant`}
		}
	}
	access, err := auth.NewAccessToken(s.rand)
	if err != nil {
		return err
	}
	now := s.now()
	if err := s.store.CreateToken(r.Context(), store.Token{
		Hash: auth.Hash(access), Kind: store.TokenBearer, ApplicationID: app.ID, UserID: app.OwnerID,
		Scopes: scopes, ExpiresAt: now.Add(auth.AccessTokenLifetime), CreatedAt: now,
	}); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(auth.AccessTokenLifetime.Seconds()),
		"scope":        strings.Join(scopes, " "),
	})
	return nil
}

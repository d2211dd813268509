package oauth

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/jsonenc"
)

// Error is an RFC 6749 error (§5.2): the token and revocation endpoints
// answer with it as JSON, and the consent page sends its Code and
// Description back to the client as error and error_description.
type Error struct {
	Status      int    `json:"-"` // 400, or 401 for invalid_client
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *Error) Error() string {
	if e.Description == "" {
		return e.Code
	}
	return e.Code + ": " + e.Description
}

func newError(status int, code, description string) *Error {
	return &Error{Status: status, Code: code, Description: description}
}

func errInvalidRequest(d string) *Error { return newError(http.StatusBadRequest, "invalid_request", d) }
func errInvalidGrant(d string) *Error   { return newError(http.StatusBadRequest, "invalid_grant", d) }
func errInvalidScope(d string) *Error   { return newError(http.StatusBadRequest, "invalid_scope", d) }
func errInvalidClient(d string) *Error  { return newError(http.StatusUnauthorized, "invalid_client", d) }
func errUnauthorizedClient(d string) *Error {
	return newError(http.StatusBadRequest, "unauthorized_client", d)
}

// oauthHandler adapts an endpoint that answers in RFC 6749 form: a
// returned *Error is written as such (401s with WWW-Authenticate), any
// other error as the API's logged 500. Responses are never cached
// (RFC 6749 §5.1).
func (s *Server) oauthHandler(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		err := h(w, r)
		if err == nil {
			return
		}
		var oe *Error
		if errors.As(err, &oe) {
			if oe.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="slashd"`)
			}
			writeJSON(w, oe.Status, oe)
			return
		}
		s.serverError(w, r, err)
	}
}

// apiHandler adapts an endpoint that answers with the API's error
// envelope ({"message", "code"}), as the real service's /oauth2/@me,
// and the RFC 6750 challenge attached to the error in WWW-Authenticate.
func (s *Server) apiHandler(h func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		if ae, ok := apierr.As(err); ok {
			if c, ok := auth.ChallengeOf(err); ok {
				w.Header().Set("WWW-Authenticate", c.String())
			}
			writeJSON(w, ae.Status, ae)
			return
		}
		s.serverError(w, r, err)
	}
}

var (
	errAPIBadRequest   = apierr.New(http.StatusBadRequest, 0, "400: Bad Request")
	errAPIUnauthorized = apierr.New(http.StatusUnauthorized, 0, "401: Unauthorized")
	errAPIForbidden    = apierr.New(http.StatusForbidden, 0, "403: Forbidden")
	errAPIServer       = apierr.New(http.StatusInternalServerError, 0, "500: Internal Server Error")
)

func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, errAPIServer)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"message": "500: Internal Server Error", "code": 0}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

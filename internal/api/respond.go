package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/jsonenc"
)

// handlerFunc is the shape of every handler: it returns an error that
// handle renders, or nil after writing its response.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"message": "500: Internal Server Error", "code": 0}`)
	}
	writeRawJSON(w, status, b)
}

// writeRawJSON answers with a JSON body already encoded, with its
// Content-Length (a client need not read a chunked body).
func writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeNoContent answers 204 with no body and no Content-Type, as the real
// service does: @discordjs/rest parses any body labelled JSON, so a 204
// that carried the header would throw "Unexpected end of JSON input".
func writeNoContent(w http.ResponseWriter) {
	w.Header().Del("Content-Type")
	w.WriteHeader(http.StatusNoContent)
}

// writeError renders any error: an *apierr.Error as itself (with the
// Bearer challenge attached to err, if any), anything else as a logged
// 500 that reveals nothing.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		setChallenge(w, err)
		status := ae.Status
		if status == 0 {
			status = http.StatusBadRequest
		}
		writeJSON(w, status, ae)
		return
	}
	s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, apierr.New(http.StatusInternalServerError, 0, "500: Internal Server Error"))
}

// Errors the API itself produces.
var (
	errUnauthorized = apierr.New(http.StatusUnauthorized, 0, "401: Unauthorized")
	errNotFound     = apierr.New(http.StatusNotFound, 0, "404: Not Found")
	errMethod       = apierr.New(http.StatusMethodNotAllowed, 0, "405: Method Not Allowed")
	errUnknownApp   = apierr.New(http.StatusNotFound, apierr.CodeUnknownApplication, "Unknown Application")
	errUnknownGuild = apierr.New(http.StatusNotFound, apierr.CodeUnknownGuild, "Unknown Guild")
	errNotYourApp   = apierr.New(http.StatusForbidden, apierr.CodeNotAuthorizedForApp,
		"You are not authorized to perform this action on this application")
	errMissingAccess   = apierr.New(http.StatusForbidden, apierr.CodeMissingAccess, "Missing Access")
	errBotsCannotUse   = apierr.New(http.StatusForbidden, apierr.CodeBotsCannotUse, "Bots cannot use this endpoint")
	errMissingScope    = apierr.New(http.StatusUnauthorized, apierr.CodeUnauthorized, "Unauthorized. Provide a valid token and try again")
	errMissingPerms    = apierr.New(http.StatusForbidden, apierr.CodeMissingPermissions, "Missing Permissions")
	errUnknownCommand  = apierr.New(http.StatusNotFound, apierr.CodeUnknownCommand, "Unknown application command")
	errUnknownCmdPerms = apierr.New(http.StatusNotFound, apierr.CodeUnknownCommandPermissions,
		"Unknown application command permissions")
	errInvalidJSON = apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "The request body contains invalid JSON.")
	errTooLarge    = apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeRequestTooLarge, "Request entity too large")
)

// convertAll maps every element of in through f, into a non-nil slice (so
// an empty list renders as [], never null).
func convertAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

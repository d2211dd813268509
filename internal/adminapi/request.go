package adminapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// handler is the shape of every admin endpoint: given the request with
// the things its path names looked up and its body read, it applies its
// rule and returns what to answer. A handler may return its Response
// together with the error of its last write: on an error the Response
// is dropped and the error rendered (see storeError).
type handler func(ctx context.Context, req *Request) (Response, error)

// Request is an admin request after the wrapper's work: the things of
// its path the route loads (the others are zero) and its body.
type Request struct {
	HTTP *http.Request
	// Form is the body (an empty one for routes without a body).
	Form admin.Form

	User             store.User
	App              store.Application
	Guild            store.Guild
	Role             guild.Role
	Member           guild.Member
	Channel          guild.Channel
	GroupDM          store.PrivateChannel
	UserInstallation store.UserInstallation
	// World is the {world} of the path (theWorld).
	World store.TestWorld
	// Body is the body as decoded (specBody routes only).
	Body map[string]any

	// gone is the 404 of the last thing looked up: a store "not found"
	// then means it vanished meanwhile.
	gone error
}

// Response is a handler's answer: Body rendered as JSON with Status, or
// no body with 204.
type Response struct {
	Status int
	Body   any
}

func ok(body any) Response      { return Response{http.StatusOK, body} }
func created(body any) Response { return Response{http.StatusCreated, body} }

// createdIf is 201 for something new, 200 for something replaced.
func createdIf(isNew bool, body any) Response {
	if isNew {
		return created(body)
	}
	return ok(body)
}

var noContent = Response{Status: http.StatusNoContent}

// PathID parses a snowflake path parameter; a malformed one is a form
// error on the parameter's name, as the real service reports it.
func (req *Request) PathID(name string) (snowflake.ID, error) {
	return parseID(req.HTTP.PathValue(name), name)
}

// QueryID reads a required snowflake query parameter.
func (req *Request) QueryID(name string) (snowflake.ID, error) {
	raw := req.HTTP.URL.Query().Get(name)
	if raw == "" {
		return 0, apierr.Invalid(form.CodeRequired, form.MsgRequired, name)
	}
	return parseID(raw, name)
}

func parseID(raw, name string) (snowflake.ID, error) {
	id, err := snowflake.Parse(raw)
	if err != nil {
		return 0, apierr.Invalid("NUMBER_TYPE_COERCE", `Value "`+raw+`" is not snowflake.`, name)
	}
	return id, nil
}

// serve is the one wrapper of every route: the failure budget and the
// admin token ("Admin <token>"; admin routes are not otherwise rate
// limited), the path's lookups, the body, the handler, and rendering.
func (a *API) serve(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.RefuseFailingAddress(w, r) {
			return
		}
		ok, err := a.authorized(r)
		if err != nil {
			a.WriteError(w, r, err)
			return
		}
		if !ok {
			a.WriteAuthError(w, r, errUnauthorized)
			return
		}
		req := &Request{HTTP: r}
		res, err := a.run(w, req, rt)
		switch {
		case err != nil:
			a.WriteError(w, r, req.storeError(err))
		case res.Status == http.StatusNoContent:
			// As the real service: no body and no Content-Type (a
			// client that parses any body labelled JSON would throw).
			w.Header().Del("Content-Type")
			w.WriteHeader(http.StatusNoContent)
		default:
			a.WriteJSON(w, res.Status, res.Body)
		}
	})
}

// run looks the path's things up, reads the body and calls the handler.
func (a *API) run(w http.ResponseWriter, req *Request, rt route) (Response, error) {
	ctx := req.HTTP.Context()
	for _, l := range rt.load {
		req.gone = l.gone
		if err := l.load(ctx, a, req); err != nil {
			return Response{}, err
		}
	}
	var err error
	switch rt.body {
	case noBody:
		req.Form = admin.NewForm(map[string]any{})
	case optionalBody, withBody:
		req.Form, err = a.body(w, req.HTTP, rt.body == optionalBody)
	case specBody:
		req.Form, req.Body, err = a.specBody(w, req.HTTP)
	}
	if err != nil {
		return Response{}, err
	}
	return rt.h(ctx, req)
}

// authorized reports whether the request carries a known admin token:
// "Admin <token>" (the scheme in any case). Bot and Bearer tokens are
// never admin tokens.
func (a *API) authorized(r *http.Request) (bool, error) {
	scheme, secret, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	secret = strings.TrimSpace(secret)
	if !ok || secret == "" || !strings.EqualFold(scheme, "Admin") {
		return false, nil
	}
	return a.Store.AdminTokenExists(r.Context(), auth.Hash(secret))
}

// body reads the request body as one JSON object. With allowEmpty, a
// request without a body is an empty object.
func (a *API) body(w http.ResponseWriter, r *http.Request, allowEmpty bool) (admin.Form, error) {
	if allowEmpty && r.ContentLength == 0 {
		return admin.NewForm(map[string]any{}), nil
	}
	v, err := a.ReadBody(w, r)
	if err != nil {
		return admin.Form{}, err
	}
	// A body that is not an object, null included, is one
	// MODEL_TYPE_CONVERT at the root (for null, form.AsObject would use
	// the wording of a list item).
	m, ok := v.(map[string]any)
	if !ok {
		return admin.Form{}, apierr.Invalid(form.CodeModelConvert, form.MsgModelConvert)
	}
	return admin.NewForm(m), nil
}

// storeError renders the store's sentinels that a handler left as they
// are: "not found" is the 404 of the last thing the path named (which
// vanished mid-request; before any lookup, a plain 404), a conflict a
// 400. Anything else passes through (API errors as themselves, the rest
// as a 500).
func (req *Request) storeError(err error) error {
	if _, ok := apierr.As(err); ok {
		return err
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		return errConflict
	case errors.Is(err, store.ErrNotFound) && req.gone != nil:
		return req.gone
	case errors.Is(err, store.ErrNotFound):
		return errNotFound
	}
	return err
}

// convertAll maps every element of in through f, into a non-nil slice (so
// an empty list renders as [], never null).
func convertAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

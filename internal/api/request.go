package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// pathID parses a snowflake path parameter; a malformed one is a form
// error on the parameter's name, as the real service reports it.
func pathID(r *http.Request, name string) (snowflake.ID, error) {
	raw := r.PathValue(name)
	id, err := snowflake.Parse(raw)
	if err != nil {
		return 0, apierr.Invalid("NUMBER_TYPE_COERCE", `Value "`+raw+`" is not snowflake.`, name)
	}
	return id, nil
}

// target is the application (and guild) a command request acts on, after
// every access check.
type target struct {
	app   store.Application
	scope command.Scope
}

func (t target) commandApp() command.App {
	return command.App{ID: t.app.ID, Flags: t.app.Flags, IntegrationTypes: t.app.IntegrationTypes,
		Discoverable: t.app.Discoverable}
}

// resolveApp checks that the caller's token belongs to the path's app.
func (s *Server) resolveApp(r *http.Request) (store.Application, error) {
	appID, err := pathID(r, "application_id")
	if err != nil {
		return store.Application{}, err
	}
	p := principalFrom(r.Context())
	if p.Token.ApplicationID != appID {
		other, err := s.store.Application(r.Context(), appID)
		if errors.Is(err, store.ErrNotFound) {
			return store.Application{}, errUnknownApp
		}
		if err != nil {
			return store.Application{}, err
		}
		world, err := s.principalWorld(r.Context())
		if err != nil {
			return store.Application{}, err
		}
		if other.WorldID != world {
			return store.Application{}, errUnknownApp // another world's app is unknown
		}
		return store.Application{}, errNotYourApp
	}
	app, err := s.store.Application(r.Context(), appID)
	if errors.Is(err, store.ErrNotFound) {
		return app, errUnknownApp
	}
	return app, err
}

// resolveGlobal resolves the global scope of the path's app.
func (s *Server) resolveGlobal(r *http.Request) (target, error) {
	app, err := s.resolveApp(r)
	if err != nil {
		return target{}, err
	}
	return target{app: app, scope: command.Scope{ApplicationID: app.ID}}, nil
}

// resolveGuild also checks the guild exists and the app is installed there
// with the applications.commands scope (which bot includes).
func (s *Server) resolveGuild(r *http.Request) (target, error) {
	app, err := s.resolveApp(r)
	if err != nil {
		return target{}, err
	}
	guildID, err := pathID(r, "guild_id")
	if err != nil {
		return target{}, err
	}
	if g, err := s.store.Guild(r.Context(), guildID); errors.Is(err, store.ErrNotFound) || (err == nil && g.WorldID != app.WorldID) {
		return target{}, errUnknownGuild // another world's guild is unknown
	} else if err != nil {
		return target{}, err
	}
	inst, err := s.store.Installation(r.Context(), guildID, app.ID)
	if errors.Is(err, store.ErrNotFound) {
		return target{}, errMissingAccess
	} else if err != nil {
		return target{}, err
	}
	if !inst.HasScope("applications.commands") && !inst.HasScope("bot") {
		return target{}, errMissingAccess
	}
	return target{app: app, scope: command.Scope{ApplicationID: app.ID, GuildID: guildID}}, nil
}

// requireWriteScope: a Bearer token may change commands only with the
// applications.commands.update scope (spec §5); bot tokens always may.
func requireWriteScope(r *http.Request) error {
	p := principalFrom(r.Context())
	if p.Bot() || p.Token.HasScope(auth.ScopeCommandsUpdate) {
		return nil
	}
	return missingScope(errMissingScope, auth.ScopeCommandsUpdate)
}

// readBody reads a JSON request body within the size cap and decodes it to
// generic values.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (any, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.EqualFold(mt, "application/json") {
			return nil, apierr.Invalid("CONTENT_TYPE_INVALID",
				`Expected "Content-Type" header to be one of {'application/json'}.`)
		}
	}
	body, err := readAllSized(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r.ContentLength, s.cfg.MaxBodyBytes)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, errInvalidJSON
	}
	v, err := form.DecodeJSON(body)
	if err != nil {
		return nil, errInvalidJSON
	}
	return v, nil
}

// requestLocale picks the requester's locale: X-Service-Locale, then
// X-Discord-Locale, then Accept-Language, then the user's settings.
func (s *Server) requestLocale(r *http.Request) string {
	for _, h := range []string{"X-Service-Locale", "X-Discord-Locale"} {
		if l := command.MatchLocale(r.Header.Get(h)); l != "" {
			return l
		}
	}
	if l := acceptLanguage(r.Header.Get("Accept-Language")); l != "" {
		return l
	}
	p := principalFrom(r.Context())
	if p.Token.UserID != 0 && !p.Bot() {
		if u, err := s.store.User(r.Context(), p.Token.UserID); err == nil {
			return command.MatchLocale(u.Locale)
		}
	}
	return ""
}

// acceptLanguage returns the supported locale with the highest q-value.
func acceptLanguage(h string) string {
	best, bestQ := "", -1.0
	for _, part := range strings.Split(h, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				q = f
			}
		}
		if l := command.MatchLocale(tag); l != "" && q > bestQ && q > 0 {
			best, bestQ = l, q
		}
	}
	return best
}

// parseLimit reads an optional integer query parameter within [min, max].
func parseLimit(r *http.Request, name string, def, min, max int64) (int64, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, apierr.Invalid(form.CodeCoerce, form.MsgNotInt(raw), name)
	}
	errs := &apierr.Fields{}
	v, ok := form.IntValue(json.Number(strconv.FormatInt(n, 10)), min, max, errs.At(name))
	if !ok {
		return 0, errs.Err()
	}
	return v, nil
}

// readAllSized reads rd to its end into a buffer sized from the
// request's Content-Length when it declares one within limit (one
// allocation for a large bulk overwrite, where io.ReadAll doubles its
// buffer several times); a wrong declaration only costs a regrowth.
func readAllSized(rd io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > limit {
		return io.ReadAll(rd)
	}
	buf := bytes.NewBuffer(make([]byte, 0, declared+bytes.MinRead))
	_, err := buf.ReadFrom(rd)
	return buf.Bytes(), err
}

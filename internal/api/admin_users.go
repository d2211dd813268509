package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// adminUser is a user on the wire.
type adminUser struct {
	ID         snowflake.ID `json:"id"`
	Username   string       `json:"username"`
	GlobalName *string      `json:"global_name"`
	Bot        bool         `json:"bot"`
	Locale     *string      `json:"locale"`
	Adult      bool         `json:"adult"`
}

func adminUserOf(u store.User) adminUser {
	return adminUser{ID: u.ID, Username: u.Username, GlobalName: adminNullable(u.GlobalName), Bot: u.Bot,
		Locale: adminNullable(u.Locale), Adult: u.Adult}
}

// adminNullable renders "" as null.
func adminNullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Username and display name lengths (the real service's).
const (
	adminMaxUsername   = 32
	adminMaxGlobalName = 32
)

// adminUserFields reads the writable fields of a user into u; creating
// says whether absent required fields are errors.
func adminUserFields(f adminForm, u *store.User, creating bool) {
	if creating {
		f.Require("username")
	}
	if name, ok := f.StrLen("username", 1, adminMaxUsername); ok {
		u.Username = name
	} else if !creating && f.Null("username") {
		f.At("username").Add(form.CodeRequired, form.MsgRequired)
	}
	if f.Null("global_name") {
		u.GlobalName = ""
	} else if gn, ok := f.StrLen("global_name", 1, adminMaxGlobalName); ok {
		u.GlobalName = gn
	}
	if f.Null("locale") {
		u.Locale = ""
	} else if loc, ok := f.Str("locale"); ok {
		if !command.IsLocale(loc) {
			f.At("locale").Add(form.CodeChoices, form.MsgChoicesOf(command.Locales()))
		} else {
			u.Locale = loc
		}
	}
	if adult, ok := f.Bool("adult"); ok {
		u.Adult = adult
	}
	if bot, ok := f.Bool("bot"); ok && bot != u.Bot {
		msg := "Bot users are created with their application (POST /admin/v1/applications)"
		if !creating {
			msg = "Whether a user is a bot cannot be changed"
		}
		f.At("bot").Add(fcUserBot, msg)
	}
}

func (s *Server) adminCreateUser(w http.ResponseWriter, r *http.Request) error {
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	u := store.User{Locale: "en-US", CreatedAt: s.now().UTC()}
	adminUserFields(f, &u, true)
	if err := f.Err(); err != nil {
		return err
	}
	u.ID = s.nextID()
	if err := s.store.CreateUser(r.Context(), u); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, adminUserOf(u))
	return nil
}

func (s *Server) adminListUsers(w http.ResponseWriter, r *http.Request) error {
	users, err := s.store.Users(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(users, adminUserOf))
	return nil
}

// adminPathUser reads the user named by the user_id path parameter.
func (s *Server) adminPathUser(r *http.Request) (store.User, error) {
	id, err := pathID(r, "user_id")
	if err != nil {
		return store.User{}, err
	}
	u, err := s.store.User(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return u, adminErrUnknownUser
	}
	return u, err
}

func (s *Server) adminGetUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, adminUserOf(u))
	return nil
}

func (s *Server) adminEditUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	adminUserFields(f, &u, false)
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.store.UpdateUser(r.Context(), u); err != nil {
		return notFoundAs(err, adminErrUnknownUser)
	}
	writeJSON(w, http.StatusOK, adminUserOf(u))
	return nil
}

func (s *Server) adminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	err = s.store.DeleteUser(r.Context(), u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return adminErrUnknownUser
	case errors.Is(err, store.ErrConflict) && u.Bot:
		return adminErrDeleteBot
	case errors.Is(err, store.ErrConflict):
		return adminErrDeleteOwner
	case err != nil:
		return err
	}
	writeNoContent(w)
	return nil
}

// Token types the admin API mints.
var adminTokenTypes = []string{"client", "bearer"}

// adminBearerScopes are the scopes an admin-minted Bearer token may carry
// (bot is an installation scope, never a token's).
var adminBearerScopes = []string{
	auth.ScopeIdentify, auth.ScopeApplicationsCommands, auth.ScopeCommandsUpdate,
	auth.ScopeCommandsPermissionsUpdate, "guilds", "email",
}

// adminMintToken is POST /admin/v1/users/{user_id}/tokens: a client token
// ({"type":"client"}), which a chat client sends bare as Authorization, or
// a Bearer token the user granted an app ({"type":"bearer",
// "application_id", "scopes"}), as the OAuth2 flow would make. Only
// hashes are stored.
func (s *Server) adminMintToken(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	kind, _ := f.Str("type")
	switch {
	case !f.Require("type"):
	case kind != "client" && kind != "bearer" && len(f.At("type").Leaves()) == 0:
		f.At("type").Add(form.CodeChoices, form.MsgChoicesOf(adminTokenTypes))
	}
	var (
		appID  snowflake.ID
		scopes []string
	)
	if kind == "bearer" {
		if f.Require("application_id") {
			appID, _ = f.id("application_id")
		}
		scopes = adminScopes(f)
	}
	if err := f.Err(); err != nil {
		return err
	}
	if u.Bot {
		return adminErrBotToken
	}
	now := s.now().UTC()
	if kind == "client" {
		tok, err := auth.NewClientToken(s.rand)
		if err != nil {
			return err
		}
		if err := s.store.CreateClientToken(r.Context(), auth.Hash(tok), u.ID, now); err != nil {
			return notFoundAs(err, adminErrUnknownUser)
		}
		writeJSON(w, http.StatusCreated, map[string]string{"token": tok})
		return nil
	}
	if _, err := s.store.Application(r.Context(), appID); errors.Is(err, store.ErrNotFound) {
		return apierr.Invalid(fcUnknownApp, "Unknown Application", "application_id")
	} else if err != nil {
		return err
	}
	access, err := auth.NewAccessToken(s.rand)
	if err != nil {
		return err
	}
	if err := s.store.CreateToken(r.Context(), store.Token{
		Hash: auth.Hash(access), Kind: store.TokenBearer, ApplicationID: appID, UserID: u.ID,
		Scopes: scopes, ExpiresAt: now.Add(auth.AccessTokenLifetime), CreatedAt: now,
	}); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(auth.AccessTokenLifetime.Seconds()),
		"scope":        strings.Join(scopes, " "),
	})
	return nil
}

// adminScopes reads "scopes": space-separated, as OAuth2 writes them (a
// list of strings is accepted too); each must be one of
// adminBearerScopes. Repeats are dropped.
func adminScopes(f adminForm) []string {
	if !f.Require("scopes") {
		return nil
	}
	var (
		raw   []string
		given int // how many scopes were written, valid or not
	)
	v, _ := f.Value("scopes")
	switch v := v.(type) {
	case string:
		raw = strings.Fields(v)
		given = len(raw)
	case []any:
		given = len(v)
		for i, item := range v {
			sc, ok := item.(string)
			if !ok {
				f.At("scopes", i).Add(form.CodeStringConvert, form.MsgNotString(item))
				continue
			}
			raw = append(raw, sc)
		}
	default:
		f.At("scopes").Add(form.CodeStringConvert, form.MsgNotString(v))
		return nil
	}
	if given == 0 {
		f.At("scopes").Add(form.CodeMinLength, form.MsgMinLength(1))
		return nil
	}
	out := make([]string, 0, len(raw))
	bad := false
	for _, sc := range raw {
		known := false
		for _, k := range adminBearerScopes {
			known = known || k == sc
		}
		if !known {
			bad = true
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == sc
		}
		if !dup {
			out = append(out, sc)
		}
	}
	if bad {
		f.At("scopes").Add(form.CodeChoices, form.MsgChoicesOf(adminBearerScopes))
	}
	return out
}

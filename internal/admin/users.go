package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// User is a user on the wire.
type User struct {
	ID         snowflake.ID `json:"id"`
	Username   string       `json:"username"`
	GlobalName *string      `json:"global_name"`
	Bot        bool         `json:"bot"`
	Locale     *string      `json:"locale"`
	Adult      bool         `json:"adult"`
}

// UserOf is u on the wire.
func UserOf(u store.User) User {
	return User{ID: u.ID, Username: u.Username, GlobalName: nullable(u.GlobalName), Bot: u.Bot,
		Locale: nullable(u.Locale), Adult: u.Adult}
}

// Username, display name and login name lengths (the real service's).
const (
	MaxUsername   = 32
	MaxGlobalName = 32
	MaxLoginName  = 32
)

// DefaultLocale is a new user's locale when the request names none.
const DefaultLocale = "en-US"

// UserFields reads the writable fields of a user into u; creating says
// whether absent required fields are errors.
func UserFields(f Form, u *store.User, creating bool) {
	if creating {
		f.Require("username")
	}
	if name, ok := f.StrLen("username", 1, MaxUsername); ok {
		u.Username = name
	} else if !creating && f.Null("username") {
		f.At("username").Add(form.CodeRequired, form.MsgRequired)
	}
	if f.Null("global_name") {
		u.GlobalName = ""
	} else if gn, ok := f.StrLen("global_name", 1, MaxGlobalName); ok {
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
		f.At("bot").Add(CodeUserBot, msg)
	}
}

// Errors of the world's rules about users: 400s with code 0.
var (
	ErrBotToken = apierr.New(400, apierr.CodeGeneral,
		"Bot users cannot be given client or Bearer tokens: use the application's bot token")
	ErrBotLogin = apierr.New(400, apierr.CodeGeneral,
		"Bot users cannot log in: they act through their application's bot token")
)

// ErrLoginTaken is the refusal of a login name another user has.
func ErrLoginTaken() error {
	return apierr.Invalid(CodeLoginTaken, "This login name belongs to another user", "name")
}

// LoginFields reads a login {name, password}.
func LoginFields(f Form) (name, password string) {
	f.Require("name")
	f.Require("password")
	name, _ = f.StrLen("name", 1, MaxLoginName)
	password, _ = f.StrLen("password", oauth.MinPasswordLength, oauth.MaxPasswordLength)
	return name, password
}

// Token types a user may be given.
const (
	TokenClient = "client"
	TokenBearer = "bearer"
)

var tokenTypes = []string{TokenClient, TokenBearer}

// BearerScopes are the scopes a minted Bearer token may carry (bot is an
// installation scope, never a token's).
var BearerScopes = []string{
	auth.ScopeIdentify, auth.ScopeApplicationsCommands, auth.ScopeCommandsUpdate,
	auth.ScopeCommandsPermissionsUpdate, "guilds", "email",
}

// TokenRequest is a token to mint for a user: a client token, or a
// Bearer token the user granted an application with scopes.
type TokenRequest struct {
	Type          string
	ApplicationID snowflake.ID
	Scopes        []string
}

// TokenFields reads {"type": "client"} or {"type": "bearer",
// "application_id", "scopes"}.
func TokenFields(f Form) TokenRequest {
	var t TokenRequest
	t.Type, _ = f.Str("type")
	switch {
	case !f.Require("type"):
	case t.Type != TokenClient && t.Type != TokenBearer && len(f.At("type").Leaves()) == 0:
		f.At("type").Add(form.CodeChoices, form.MsgChoicesOf(tokenTypes))
	}
	if t.Type == TokenBearer {
		if f.Require("application_id") {
			t.ApplicationID, _ = f.ID("application_id")
		}
		t.Scopes = scopes(f)
	}
	return t
}

// CheckTokenApp checks that a Bearer token's application exists and is
// of the user's test world: the request's form is valid, and this is the
// one check that needs the world.
func CheckTokenApp(ctx context.Context, st store.Store, user store.User, t TokenRequest) error {
	if t.Type != TokenBearer {
		return nil
	}
	app, err := st.Application(ctx, t.ApplicationID)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Invalid(CodeUnknownApp, "Unknown Application", "application_id")
	} else if err != nil {
		return err
	}
	return SameWorld("application", app.WorldID, "user", user.WorldID, "application_id")
}

// BearerExpiry is when a Bearer token minted for user at now expires:
// auth.AccessTokenLifetime later on the user's world's clock, so that a
// test world's token minted after its clock moved a week is not born
// expired (the admin API's and the CLI's token mint alike).
func BearerExpiry(ctx context.Context, st store.Store, user store.User, now time.Time) (time.Time, error) {
	expires := now.Add(auth.AccessTokenLifetime)
	if user.WorldID == 0 {
		return expires, nil
	}
	offset, err := st.WorldClockOffset(ctx, user.WorldID)
	if errors.Is(err, store.ErrNotFound) {
		return expires, nil // a world deleted meanwhile: its user is going too
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("the clock of world %v: %w", user.WorldID, err)
	}
	return expires.Add(offset), nil
}

// scopes reads "scopes": space-separated, as OAuth2 writes them (a list
// of strings is accepted too); each must be one of BearerScopes. Repeats
// are dropped.
func scopes(f Form) []string {
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
		for _, k := range BearerScopes {
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
		f.At("scopes").Add(form.CodeChoices, form.MsgChoicesOf(BearerScopes))
	}
	return out
}

package adminapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var (
	errDeleteOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A user who owns a guild or an application cannot be deleted: transfer or delete those first")
	errDeleteBot = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A bot user belongs to its application and cannot be deleted")
)

func (a *API) createUser(ctx context.Context, req *Request) (Response, error) {
	world, err := a.worldField(ctx, req.Form)
	if err != nil {
		return Response{}, err
	}
	u := store.User{Locale: admin.DefaultLocale, CreatedAt: a.Now().UTC(), WorldID: world}
	admin.UserFields(req.Form, &u, true)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	u.ID = a.nextID()
	return created(admin.UserOf(u)), a.Store.CreateUser(ctx, u)
}

func (a *API) listUsers(ctx context.Context, _ *Request) (Response, error) {
	users, err := a.Store.Users(ctx)
	return ok(convertAll(users, admin.UserOf)), err
}

func (a *API) getUser(_ context.Context, req *Request) (Response, error) {
	return ok(admin.UserOf(req.User)), nil
}

func (a *API) editUser(ctx context.Context, req *Request) (Response, error) {
	admin.UserFields(req.Form, &req.User, false)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	return ok(admin.UserOf(req.User)), a.Store.UpdateUser(ctx, req.User)
}

func (a *API) deleteUser(ctx context.Context, req *Request) (Response, error) {
	err := a.Store.DeleteUser(ctx, req.User.ID)
	switch {
	case errors.Is(err, store.ErrConflict) && req.User.Bot:
		return Response{}, errDeleteBot
	case errors.Is(err, store.ErrConflict):
		return Response{}, errDeleteOwner
	}
	return noContent, err
}

// mintToken is POST /admin/v1/users/{user_id}/tokens: a client token
// ({"type":"client"}), which a chat client sends bare as Authorization, or
// a Bearer token the user granted an app ({"type":"bearer",
// "application_id", "scopes"}), as the OAuth2 flow would make. Only
// hashes are stored.
func (a *API) mintToken(ctx context.Context, req *Request) (Response, error) {
	t := admin.TokenFields(req.Form)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	u := req.User
	if u.Bot {
		return Response{}, admin.ErrBotToken
	}
	now := a.Now().UTC()
	if t.Type == admin.TokenClient {
		tok, err := auth.NewClientToken(a.Rand)
		if err != nil {
			return Response{}, err
		}
		return created(map[string]string{"token": tok}), a.Store.CreateClientToken(ctx, auth.Hash(tok), u.ID, now)
	}
	if err := admin.CheckTokenApp(ctx, a.Store, u, t); err != nil {
		return Response{}, err
	}
	access, err := auth.NewAccessToken(a.Rand)
	if err != nil {
		return Response{}, err
	}
	expires, err := admin.BearerExpiry(ctx, a.Store, u, now)
	if err != nil {
		return Response{}, err
	}
	return created(map[string]any{
			"access_token": access,
			"token_type":   "Bearer",
			"expires_in":   int(auth.AccessTokenLifetime.Seconds()),
			"scope":        strings.Join(t.Scopes, " "),
		}), a.Store.CreateToken(ctx, store.Token{
			Hash: auth.Hash(access), Kind: store.TokenBearer, ApplicationID: t.ApplicationID, UserID: u.ID,
			Scopes: t.Scopes, ExpiresAt: expires, CreatedAt: now,
		})
}

// login is a login on the wire: never the password or its hash.
type login struct {
	UserID snowflake.ID `json:"user_id"`
	Name   string       `json:"name"`
}

// putLogin is PUT /admin/v1/users/{user_id}/login {name, password}:
// the user's login for the consent page, the password hashed with
// argon2id (oauth.HashPassword). 201 when the user had no login, 200 when
// it is replaced.
func (a *API) putLogin(ctx context.Context, req *Request) (Response, error) {
	name, password := admin.LoginFields(req.Form)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	u := req.User
	if u.Bot {
		return Response{}, admin.ErrBotLogin
	}
	_, err := a.Store.LoginOfUser(ctx, u.ID)
	isNew := errors.Is(err, store.ErrNotFound)
	if err != nil && !isNew {
		return Response{}, err
	}
	hash, err := oauth.HashPassword(a.Rand, password)
	if err != nil {
		return Response{}, err
	}
	err = a.Store.SetLogin(ctx, store.Login{UserID: u.ID, Name: name, PasswordHash: hash})
	if errors.Is(err, store.ErrConflict) {
		return Response{}, admin.ErrLoginTaken()
	}
	return createdIf(isNew, login{UserID: u.ID, Name: name}), err
}

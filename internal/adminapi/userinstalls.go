package adminapi

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// userInstallScopes are the scopes a user installation may grant: a
// user install carries applications.commands only.
var userInstallScopes = []string{auth.ScopeApplicationsCommands}

var (
	errBotInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A bot user cannot install applications")
	errNoUserInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The application does not support user installs: its integration_types_config has no \"1\" (USER_INSTALL)")
)

// userInstallation is a user installation on the wire, shaped like a
// guild installation ({guild_id, application_id, scopes, …}).
type userInstallation struct {
	UserID        snowflake.ID `json:"user_id"`
	ApplicationID snowflake.ID `json:"application_id"`
	Scopes        []string     `json:"scopes"`
}

func userInstallationOf(in store.UserInstallation) userInstallation {
	scopes := in.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return userInstallation{UserID: in.UserID, ApplicationID: in.ApplicationID, Scopes: scopes}
}

// userInstall is PUT /admin/v1/users/{user_id}/installations/{application_id}
// {scopes?}: installs the app to the user's account (201) or replaces
// the installation (200), as an OAuth2 user install (integration_type=1)
// does. scopes defaults to ["applications.commands"], the only one a user
// install takes. The app must support USER_INSTALL; a bot user installs
// nothing.
func (a *API) userInstall(ctx context.Context, req *Request) (Response, error) {
	scopes := []string{auth.ScopeApplicationsCommands}
	if l, ok := readScopes(req.Form, userInstallScopes); ok {
		scopes = l
	}
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	u, app := req.User, req.App
	if u.Bot {
		return Response{}, errBotInstall
	}
	if err := admin.SameWorld("application", app.WorldID, "user", u.WorldID, "application_id"); err != nil {
		return Response{}, err
	}
	if !slices.Contains(app.IntegrationTypes, command.UserInstall) {
		return Response{}, errNoUserInstall
	}
	_, err := a.Store.UserInstallation(ctx, u.ID, app.ID)
	isNew := errors.Is(err, store.ErrNotFound)
	if err != nil && !isNew {
		return Response{}, err
	}
	in := store.UserInstallation{UserID: u.ID, ApplicationID: app.ID, Scopes: scopes, CreatedAt: a.Now().UTC()}
	return createdIf(isNew, userInstallationOf(in)), a.Store.InstallForUser(ctx, in)
}

func (a *API) listUserInstallations(ctx context.Context, req *Request) (Response, error) {
	l, err := a.Store.UserInstallations(ctx, req.User.ID)
	return ok(convertAll(l, userInstallationOf)), err
}

func (a *API) getUserInstallation(_ context.Context, req *Request) (Response, error) {
	return ok(userInstallationOf(req.UserInstallation)), nil
}

// userUninstall removes the installation; the user's OAuth2 grants to
// the app (and their tokens) stay, as a guild uninstall leaves them.
func (a *API) userUninstall(ctx context.Context, req *Request) (Response, error) {
	in := req.UserInstallation
	return noContent, a.Store.UninstallForUser(ctx, in.UserID, in.ApplicationID)
}

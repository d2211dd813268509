package api

import (
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// adminUserInstallScopes are the scopes a user installation may grant: a
// user install carries applications.commands only.
var adminUserInstallScopes = []string{auth.ScopeApplicationsCommands}

var (
	adminErrBotInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A bot user cannot install applications")
	adminErrNoUserInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The application does not support user installs: its integration_types_config has no \"1\" (USER_INSTALL)")
	adminErrNoGuildInstall = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The application does not support guild installs: its integration_types_config has no \"0\" (GUILD_INSTALL)")
)

// adminUserInstallation is a user installation on the wire, shaped like a
// guild installation ({guild_id, application_id, scopes, …}).
type adminUserInstallation struct {
	UserID        snowflake.ID `json:"user_id"`
	ApplicationID snowflake.ID `json:"application_id"`
	Scopes        []string     `json:"scopes"`
}

func adminUserInstallationOf(in store.UserInstallation) adminUserInstallation {
	scopes := in.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return adminUserInstallation{UserID: in.UserID, ApplicationID: in.ApplicationID, Scopes: scopes}
}

// adminUserInstall is PUT /admin/v1/users/{user_id}/installations/{application_id}
// {scopes?}: installs the app to the user's account (201) or replaces
// the installation (200), as an OAuth2 user install (integration_type=1)
// does. scopes defaults to ["applications.commands"], the only one a user
// install takes. The app must support USER_INSTALL; a bot user installs
// nothing.
func (s *Server) adminUserInstall(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, true)
	if err != nil {
		return err
	}
	scopes := []string{auth.ScopeApplicationsCommands}
	if l, ok := adminScopes(f, adminUserInstallScopes); ok {
		scopes = l
	}
	if err := f.Err(); err != nil {
		return err
	}
	if u.Bot {
		return adminErrBotInstall
	}
	if !slices.Contains(app.IntegrationTypes, command.UserInstall) {
		return adminErrNoUserInstall
	}
	ctx := r.Context()
	status := http.StatusCreated
	if _, err := s.store.UserInstallation(ctx, u.ID, app.ID); err == nil {
		status = http.StatusOK
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	in := store.UserInstallation{UserID: u.ID, ApplicationID: app.ID, Scopes: scopes, CreatedAt: s.now().UTC()}
	if err := s.store.InstallForUser(ctx, in); err != nil {
		return err
	}
	writeJSON(w, status, adminUserInstallationOf(in))
	return nil
}

func (s *Server) adminListUserInstallations(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	l, err := s.store.UserInstallations(r.Context(), u.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(l, adminUserInstallationOf))
	return nil
}

// adminPathUserInstallation reads the installation the path names: an
// unknown user or app is their 404, an app not installed 10005.
func (s *Server) adminPathUserInstallation(r *http.Request) (store.UserInstallation, error) {
	u, err := s.adminPathUser(r)
	if err != nil {
		return store.UserInstallation{}, err
	}
	app, err := s.adminPathApp(r)
	if err != nil {
		return store.UserInstallation{}, err
	}
	in, err := s.store.UserInstallation(r.Context(), u.ID, app.ID)
	return in, notFoundAs(err, adminErrUnknownIntegration)
}

func (s *Server) adminGetUserInstallation(w http.ResponseWriter, r *http.Request) error {
	in, err := s.adminPathUserInstallation(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, adminUserInstallationOf(in))
	return nil
}

// adminUserUninstall removes the installation; the user's OAuth2 grants
// to the app (and their tokens) stay, as a guild uninstall leaves them.
func (s *Server) adminUserUninstall(w http.ResponseWriter, r *http.Request) error {
	in, err := s.adminPathUserInstallation(r)
	if err != nil {
		return err
	}
	if err := s.store.UninstallForUser(r.Context(), in.UserID, in.ApplicationID); err != nil {
		return notFoundAs(err, adminErrUnknownIntegration)
	}
	writeNoContent(w)
	return nil
}

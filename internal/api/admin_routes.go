package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/store"
)

// adminPrefix is the root of the admin API.
const adminPrefix = "/admin/v1"

// adminRoutes registers the admin API under /admin/v1: the world (users
// with the apps installed to their accounts, applications, guilds with
// their roles, members, channels and installations, DMs and group DMs)
// and users' tokens. The README's "Admin API" table
// mirrors this list.
func (s *Server) adminRoutes() {
	const (
		user  = "/users/{user_id}"
		guild = "/guilds/{guild_id}"
	)
	s.adminHandle("POST", "/users", s.adminCreateUser)
	s.adminHandle("GET", "/users", s.adminListUsers)
	s.adminHandle("GET", user, s.adminGetUser)
	s.adminHandle("PATCH", user, s.adminEditUser)
	s.adminHandle("DELETE", user, s.adminDeleteUser)
	s.adminHandle("POST", user+"/tokens", s.adminMintToken)
	s.adminHandle("PUT", user+"/login", s.adminPutLogin)
	s.adminHandle("PUT", user+"/installations/{application_id}", s.adminUserInstall)
	s.adminHandle("GET", user+"/installations", s.adminListUserInstallations)
	s.adminHandle("GET", user+"/installations/{application_id}", s.adminGetUserInstallation)
	s.adminHandle("DELETE", user+"/installations/{application_id}", s.adminUserUninstall)
	s.adminHandle("GET", user+"/channels", s.adminListUserChannels)
	s.adminHandle("POST", user+"/channels", s.adminOpenDM)

	s.adminHandle("POST", "/group-dms", s.adminCreateGroupDM)
	s.adminHandle("GET", "/group-dms/{channel_id}", s.adminGetGroupDM)
	s.adminHandle("DELETE", "/group-dms/{channel_id}", s.adminDeleteGroupDM)

	s.adminHandle("POST", "/applications", s.adminCreateApp)
	s.adminHandle("GET", "/applications", s.adminListApps)
	s.adminHandle("GET", "/applications/{application_id}", s.adminGetApp)
	s.adminHandle("PATCH", "/applications/{application_id}", s.adminEditApp)
	s.adminHandle("PUT", "/applications/{application_id}/interactions-endpoint", s.adminSetInteractionsEndpoint)
	s.adminHandle("GET", "/applications/{application_id}/oauth", s.adminGetOAuth)
	s.adminHandle("GET", "/applications/{application_id}/commands", s.adminAppCommands)
	s.adminHandle("PUT", "/applications/{application_id}/oauth", s.adminPutOAuth)

	s.adminHandle("POST", "/guilds", s.adminCreateGuild)
	s.adminHandle("GET", "/guilds", s.adminListGuilds)
	s.adminHandle("GET", guild, s.adminGetGuild)
	s.adminHandle("PATCH", guild, s.adminEditGuild)
	s.adminHandle("DELETE", guild, s.adminDeleteGuild)

	s.adminHandle("POST", guild+"/roles", s.adminCreateRole)
	s.adminHandle("GET", guild+"/roles", s.adminListRoles)
	s.adminHandle("GET", guild+"/roles/{role_id}", s.adminGetRole)
	s.adminHandle("PATCH", guild+"/roles/{role_id}", s.adminEditRole)
	s.adminHandle("DELETE", guild+"/roles/{role_id}", s.adminDeleteRole)

	s.adminHandle("PUT", guild+"/members/{user_id}", s.adminPutMember)
	s.adminHandle("GET", guild+"/members", s.adminListMembers)
	s.adminHandle("GET", guild+"/members/{user_id}", s.adminGetMember)
	s.adminHandle("DELETE", guild+"/members/{user_id}", s.adminDeleteMember)

	s.adminHandle("POST", guild+"/channels", s.adminCreateChannel)
	s.adminHandle("GET", guild+"/channels", s.adminListChannels)
	s.adminHandle("GET", guild+"/channels/{channel_id}", s.adminGetChannel)
	s.adminHandle("PATCH", guild+"/channels/{channel_id}", s.adminEditChannel)
	s.adminHandle("DELETE", guild+"/channels/{channel_id}", s.adminDeleteChannel)

	s.adminHandle("PUT", guild+"/installations/{application_id}", s.adminInstall)
	s.adminHandle("GET", guild+"/installations", s.adminListInstallations)
	s.adminHandle("DELETE", guild+"/installations/{application_id}", s.adminUninstall)

	// Why a member may or may not use a command in a channel.
	s.adminHandle("GET", guild+"/commands/{command_id}/access", s.explainAccess)
	// The same in a DM or group DM (explain.go).
	s.adminHandle("GET", "/private-channels/{channel_id}/commands/{command_id}/access", s.explainPrivateAccess)
}

// adminHandle registers one admin route: path is relative to /admin/v1.
// The route needs "Authorization: Admin <token>", is not rate limited
// (but for the authentication failure budget of refuseFailingAddress),
// and renders errors with the API's envelope.
func (s *Server) adminHandle(method, path string, h handlerFunc) {
	s.register(method+" "+adminPrefix+path, s.wrapAdmin(h))
}

// wrapAdmin checks the admin token, then runs h and renders its error.
func (s *Server) wrapAdmin(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseFailingAddress(w, r) {
			return
		}
		ok, err := s.adminAuthorized(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !ok {
			s.writeAuthError(w, r, errUnauthorized)
			return
		}
		if err := h(w, r); err != nil {
			s.writeError(w, r, adminStoreErr(err))
		}
	})
}

// adminAuthorized reports whether the request carries a known admin
// token: "Admin <token>" (the scheme in any case). Bot and Bearer tokens
// are never admin tokens.
func (s *Server) adminAuthorized(r *http.Request) (bool, error) {
	scheme, secret, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	secret = strings.TrimSpace(secret)
	if !ok || secret == "" || !strings.EqualFold(scheme, "Admin") {
		return false, nil
	}
	return s.store.AdminTokenExists(r.Context(), auth.Hash(secret))
}

// adminStoreErr renders store sentinels that a handler did not map to a
// specific error: a conflict is a 400, a row that vanished mid-request a
// 404. Anything else passes through (API errors as themselves, the rest
// as a 500).
func adminStoreErr(err error) error {
	if _, ok := apierr.As(err); ok {
		return err
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		return adminErrConflict
	case errors.Is(err, store.ErrNotFound):
		return errNotFound
	}
	return err
}

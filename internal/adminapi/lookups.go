package adminapi

import (
	"context"
	"net/http"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/store"
)

// Errors of the admin API. Unknown ids in the path are 404s with the real
// service's codes; conflicts with the world's rules are 400s with code 0.
var (
	errUnauthorized = apierr.New(http.StatusUnauthorized, 0, "401: Unauthorized")
	errNotFound     = apierr.New(http.StatusNotFound, 0, "404: Not Found")

	errUnknownApp         = apierr.New(http.StatusNotFound, apierr.CodeUnknownApplication, "Unknown Application")
	errUnknownGuild       = apierr.New(http.StatusNotFound, apierr.CodeUnknownGuild, "Unknown Guild")
	errUnknownUser        = apierr.New(http.StatusNotFound, apierr.CodeUnknownUser, "Unknown User")
	errUnknownRole        = apierr.New(http.StatusNotFound, 10011, "Unknown Role")
	errUnknownChannel     = apierr.New(http.StatusNotFound, 10003, "Unknown Channel")
	errUnknownMember      = apierr.New(http.StatusNotFound, 10007, "Unknown Member")
	errUnknownIntegration = apierr.New(http.StatusNotFound, 10005, "Unknown Integration")

	errConflict = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The request conflicts with the current state of the world")
)

// lookup reads one thing a route's path names into the Request; a store
// "not found" from load (or from the handler, when it is the route's
// last lookup) is rendered as gone.
type lookup struct {
	gone error
	load func(ctx context.Context, a *API, req *Request) error
}

// The lookups, by path parameter. A channel or member is looked up in
// the guild looked up before it; a user installation is the path's
// user's installation of the path's app.
var (
	theUser = lookup{errUnknownUser, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("user_id")
		if err == nil {
			req.User, err = a.Store.User(ctx, id)
		}
		return err
	}}
	theApp = lookup{errUnknownApp, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("application_id")
		if err == nil {
			req.App, err = a.Store.Application(ctx, id)
		}
		return err
	}}
	theGuild = lookup{errUnknownGuild, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("guild_id")
		if err == nil {
			req.Guild, err = a.Store.Guild(ctx, id)
		}
		return err
	}}
	theRole = lookup{errUnknownRole, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("role_id")
		if err == nil {
			req.Role, err = a.Store.Role(ctx, req.Guild.ID, id)
		}
		return err
	}}
	theMember = lookup{errUnknownMember, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("user_id")
		if err == nil {
			req.Member, err = a.Store.Member(ctx, req.Guild.ID, id)
		}
		return err
	}}
	theChannel = lookup{errUnknownChannel, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("channel_id")
		if err == nil {
			req.Channel, err = a.Store.Channel(ctx, id)
		}
		if err == nil && req.Channel.GuildID != req.Guild.ID {
			return store.ErrNotFound // another guild's
		}
		return err
	}}
	theGroupDM = lookup{errUnknownChannel, func(ctx context.Context, a *API, req *Request) error {
		id, err := req.PathID("channel_id")
		if err == nil {
			req.GroupDM, err = a.Store.PrivateChannel(ctx, id)
		}
		if err == nil && req.GroupDM.Type != guild.ChannelGroupDM {
			return store.ErrNotFound // a DM
		}
		return err
	}}
	theUserInstallation = lookup{errUnknownIntegration, func(ctx context.Context, a *API, req *Request) error {
		var err error
		req.UserInstallation, err = a.Store.UserInstallation(ctx, req.User.ID, req.App.ID)
		return err
	}}
)

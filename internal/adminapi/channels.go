package adminapi

import (
	"context"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/guild"
)

func (a *API) createChannel(ctx context.Context, req *Request) (Response, error) {
	c := guild.Channel{GuildID: req.Guild.ID, Type: guild.ChannelText, Overwrites: []guild.Overwrite{}}
	if err := admin.ChannelFields(ctx, a.Store, req.Form, &c, true); err != nil {
		return Response{}, err
	}
	c.ID = a.nextID()
	return created(admin.ChannelOf(c)), a.Store.CreateChannel(ctx, c)
}

func (a *API) listChannels(ctx context.Context, req *Request) (Response, error) {
	chans, err := a.Store.Channels(ctx, req.Guild.ID)
	return ok(convertAll(chans, admin.ChannelOf)), err
}

func (a *API) getChannel(_ context.Context, req *Request) (Response, error) {
	return ok(admin.ChannelOf(req.Channel)), nil
}

func (a *API) editChannel(ctx context.Context, req *Request) (Response, error) {
	if err := admin.ChannelFields(ctx, a.Store, req.Form, &req.Channel, false); err != nil {
		return Response{}, err
	}
	return ok(admin.ChannelOf(req.Channel)), a.Store.UpdateChannel(ctx, req.Channel)
}

// deleteChannel deletes a channel with its threads; a category's
// channels lose their parent.
func (a *API) deleteChannel(ctx context.Context, req *Request) (Response, error) {
	return noContent, a.Store.DeleteChannel(ctx, req.Guild.ID, req.Channel.ID)
}

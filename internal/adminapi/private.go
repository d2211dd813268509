package adminapi

import (
	"context"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/store"
)

// The admin API's private channels: group DMs (which only it makes), and
// a user's DMs and group DMs. A group DM is rendered as the real
// service's group DM object with every participant in recipients; a
// user's channels as that user sees them.

// createGroupDM is POST /admin/v1/group-dms {owner_id, recipient_ids?,
// name?}.
func (a *API) createGroupDM(ctx context.Context, req *Request) (Response, error) {
	c := store.PrivateChannel{CreatedAt: a.Now().UTC()}
	if err := admin.GroupDMFields(ctx, a.Store, req.Form, &c); err != nil {
		return Response{}, err
	}
	c.ID = a.nextID()
	if err := a.Store.CreateGroupDM(ctx, c); err != nil {
		return Response{}, err
	}
	stored, err := a.Store.PrivateChannel(ctx, c.ID)
	if err != nil {
		return Response{}, err
	}
	a.Logger.Info("group DM created", "channel", c.ID, "owner", c.OwnerID, "recipients", len(stored.Recipients))
	obj, err := a.PrivateChannel(ctx, stored, 0)
	return created(obj), err
}

func (a *API) getGroupDM(ctx context.Context, req *Request) (Response, error) {
	obj, err := a.PrivateChannel(ctx, req.GroupDM, 0)
	return ok(obj), err
}

// deleteGroupDM deletes a group DM with its messages.
func (a *API) deleteGroupDM(ctx context.Context, req *Request) (Response, error) {
	return noContent, a.Store.DeletePrivateChannel(ctx, req.GroupDM.ID)
}

// listUserChannels is GET /admin/v1/users/{id}/channels: the user's DMs
// and group DMs, by id, each as the user sees it; a bot user's too
// (which GET /users/@me/channels does not list).
func (a *API) listUserChannels(ctx context.Context, req *Request) (Response, error) {
	chans, err := a.Store.PrivateChannels(ctx, req.User.ID)
	if err != nil {
		return Response{}, err
	}
	out := make([]any, 0, len(chans))
	for _, c := range chans {
		obj, err := a.PrivateChannel(ctx, c, req.User.ID)
		if err != nil {
			return Response{}, err
		}
		out = append(out, obj)
	}
	return ok(out), nil
}

// openDM is POST /admin/v1/users/{id}/channels {recipient_id}: the user
// opens a DM as with POST /users/@me/channels (the same checks and
// errors), 201 when it is new, 200 when it was there.
func (a *API) openDM(ctx context.Context, req *Request) (Response, error) {
	obj, isNew, err := a.OpenDM(ctx, req.User, req.Form.Object)
	return createdIf(isNew, obj), err
}

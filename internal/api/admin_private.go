package api

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/store"
)

// The admin API's private channels: group DMs (which only it makes), and
// a user's DMs and group DMs. A group DM is rendered as the real
// service's group DM object with every participant in recipients; a
// user's channels as that user sees them.

// adminCreateGroupDM is POST /admin/v1/group-dms {owner_id,
// recipient_ids?, name?}.
func (s *Server) adminCreateGroupDM(w http.ResponseWriter, r *http.Request) error {
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	c := store.PrivateChannel{CreatedAt: s.now().UTC()}
	if err := admin.GroupDMFields(r.Context(), s.store, f, &c); err != nil {
		return err
	}
	c.ID = s.nextID()
	if err := s.store.CreateGroupDM(r.Context(), c); err != nil {
		return err
	}
	stored, err := s.store.PrivateChannel(r.Context(), c.ID)
	if err != nil {
		return err
	}
	s.log.Info("group DM created", "channel", c.ID, "owner", c.OwnerID, "recipients", len(stored.Recipients))
	obj, err := s.privateChannelObject(r.Context(), stored, 0)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, obj)
	return nil
}

// adminPathGroupDM reads the group DM of the channel_id path parameter.
func (s *Server) adminPathGroupDM(r *http.Request) (store.PrivateChannel, error) {
	id, err := pathID(r, "channel_id")
	if err != nil {
		return store.PrivateChannel{}, err
	}
	c, err := s.store.PrivateChannel(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && c.Type != guild.ChannelGroupDM) {
		return c, adminErrUnknownChannel
	}
	return c, err
}

func (s *Server) adminGetGroupDM(w http.ResponseWriter, r *http.Request) error {
	c, err := s.adminPathGroupDM(r)
	if err != nil {
		return err
	}
	obj, err := s.privateChannelObject(r.Context(), c, 0)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, obj)
	return nil
}

// adminDeleteGroupDM deletes a group DM with its messages.
func (s *Server) adminDeleteGroupDM(w http.ResponseWriter, r *http.Request) error {
	c, err := s.adminPathGroupDM(r)
	if err != nil {
		return err
	}
	if err := s.store.DeletePrivateChannel(r.Context(), c.ID); err != nil {
		return notFoundAs(err, adminErrUnknownChannel)
	}
	writeNoContent(w)
	return nil
}

// adminListUserChannels is GET /admin/v1/users/{id}/channels: the user's
// DMs and group DMs, by id, each as the user sees it; a bot user's too
// (which GET /users/@me/channels does not list).
func (s *Server) adminListUserChannels(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	chans, err := s.store.PrivateChannels(r.Context(), u.ID)
	if err != nil {
		return err
	}
	out := make([]any, 0, len(chans))
	for _, c := range chans {
		obj, err := s.privateChannelObject(r.Context(), c, u.ID)
		if err != nil {
			return err
		}
		out = append(out, obj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// adminOpenDM is POST /admin/v1/users/{id}/channels {recipient_id}: the
// user opens a DM as with POST /users/@me/channels (the same checks and
// errors), 201 when it is new, 200 when it was there.
func (s *Server) adminOpenDM(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	to, err := s.readRecipient(w, r)
	if err != nil {
		return err
	}
	c, created, err := s.openDM(r.Context(), u, to)
	if err != nil {
		return err
	}
	obj, err := s.privateChannelObject(r.Context(), c, u.ID)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, obj)
	return nil
}

package api

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/store"
)

func (s *Server) adminCreateChannel(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	c := guild.Channel{GuildID: g.ID, Type: guild.ChannelText, Overwrites: []guild.Overwrite{}}
	if err := admin.ChannelFields(r.Context(), s.store, f, &c, true); err != nil {
		return err
	}
	c.ID = s.nextID()
	if err := s.store.CreateChannel(r.Context(), c); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, admin.ChannelOf(c))
	return nil
}

func (s *Server) adminListChannels(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	chans, err := s.store.Channels(r.Context(), g.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(chans, admin.ChannelOf))
	return nil
}

// adminPathChannel reads the channel of the channel_id path parameter,
// which must be in g.
func (s *Server) adminPathChannel(r *http.Request, g store.Guild) (guild.Channel, error) {
	id, err := pathID(r, "channel_id")
	if err != nil {
		return guild.Channel{}, err
	}
	c, err := s.store.Channel(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && c.GuildID != g.ID) {
		return c, adminErrUnknownChannel
	}
	return c, err
}

func (s *Server) adminGetChannel(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	c, err := s.adminPathChannel(r, g)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, admin.ChannelOf(c))
	return nil
}

func (s *Server) adminEditChannel(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	c, err := s.adminPathChannel(r, g)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	if err := admin.ChannelFields(r.Context(), s.store, f, &c, false); err != nil {
		return err
	}
	if err := s.store.UpdateChannel(r.Context(), c); err != nil {
		return notFoundAs(err, adminErrUnknownChannel)
	}
	writeJSON(w, http.StatusOK, admin.ChannelOf(c))
	return nil
}

// adminDeleteChannel deletes a channel with its threads; a category's
// channels lose their parent.
func (s *Server) adminDeleteChannel(w http.ResponseWriter, r *http.Request) error {
	g, err := s.adminPathGuild(r)
	if err != nil {
		return err
	}
	c, err := s.adminPathChannel(r, g)
	if err != nil {
		return err
	}
	if err := s.store.DeleteChannel(r.Context(), g.ID, c.ID); err != nil {
		return notFoundAs(err, adminErrUnknownChannel)
	}
	writeNoContent(w)
	return nil
}

package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// Private channels: DMs and group DMs (docs/compat.md, "DM channels").

var (
	// errInvalidRecipients: the recipient of a new DM is no user.
	errInvalidRecipients = apierr.New(http.StatusBadRequest, 50033, "Invalid Recipient(s)")
	// errCannotDM: a DM the real service will not open (a bot with a
	// bot, itself included; a user with themselves).
	errCannotDM = apierr.New(http.StatusBadRequest, 50007, "Cannot send messages to this user")
	// errNoMutualGuilds: a message between a bot and a user who share
	// no guild.
	errNoMutualGuilds = apierr.New(http.StatusForbidden, 50278, "Cannot send messages to this user")
)

// codeRecipientRequired is the field error of a DM request that names
// no recipient.
const codeRecipientRequired = "CHANNEL_RECIPIENT_REQUIRED"

// readRecipient reads {"recipient_id": …}, the body of a DM request.
func (s *Server) readRecipient(w http.ResponseWriter, r *http.Request) (snowflake.ID, error) {
	v, err := s.readBody(w, r)
	if err != nil {
		return 0, err
	}
	if _, ok := v.(map[string]any); !ok {
		return 0, apierr.Invalid(form.CodeModelConvert, form.MsgModelConvert)
	}
	o, _ := form.AsObject(v, &apierr.Fields{})
	return recipientOf(o)
}

// recipientOf reads the recipient of a DM request's body.
func recipientOf(o form.Object) (snowflake.ID, error) {
	if !o.Present("recipient_id") {
		return 0, apierr.Invalid(codeRecipientRequired, "At least one channel recipient is required.")
	}
	id, ok := o.Snowflake("recipient_id")
	if !ok {
		return 0, o.Err()
	}
	return id, nil
}

// openDM is the get-or-create of POST /users/@me/channels: the DM
// between from and to, where from opens it.
func (s *Server) openDM(ctx context.Context, from store.User, to snowflake.ID) (store.PrivateChannel, bool, error) {
	other, err := s.store.User(ctx, to)
	if errors.Is(err, store.ErrNotFound) || (err == nil && other.WorldID != from.WorldID) {
		return store.PrivateChannel{}, false, errInvalidRecipients // another world's user is unknown
	}
	if err != nil {
		return store.PrivateChannel{}, false, err
	}
	if other.ID == from.ID || (from.Bot && other.Bot) {
		return store.PrivateChannel{}, false, errCannotDM
	}
	c, created, err := s.store.OpenDM(ctx, store.PrivateChannel{ID: s.nextID(), Type: guild.ChannelDM,
		Recipients: []snowflake.ID{from.ID, other.ID}, CreatedAt: s.now().UTC()})
	if errors.Is(err, store.ErrNotFound) {
		return store.PrivateChannel{}, false, errInvalidRecipients // deleted meanwhile
	}
	return c, created, err
}

// callerUser is the user the request's token acts for: a client token's
// user, or a bot token's bot user.
func (s *Server) callerUser(r *http.Request) (store.User, error) {
	u, err := s.store.User(r.Context(), principalFrom(r.Context()).Token.UserID)
	return u, store.NotFoundAs(err, errUnauthorized)
}

// createDM is POST /users/@me/channels {"recipient_id"} with a bot token
// or a user's client token: the DM with that user, made unless there is
// one (200 either way).
func (s *Server) createDM(w http.ResponseWriter, r *http.Request) error {
	me, err := s.callerUser(r)
	if err != nil {
		return err
	}
	to, err := s.readRecipient(w, r)
	if err != nil {
		return err
	}
	c, created, err := s.openDM(r.Context(), me, to)
	if err != nil {
		return err
	}
	if created {
		s.log.Info("DM opened", "channel", c.ID, "by", me.ID, "with", to)
	}
	obj, err := s.privateChannelObject(r.Context(), c, me.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, obj)
	return nil
}

// listPrivateChannels is GET /users/@me/channels: a user's DMs and group
// DMs, by id. A bot gets an empty list, as from the real service.
func (s *Server) listPrivateChannels(w http.ResponseWriter, r *http.Request) error {
	me, err := s.callerUser(r)
	if err != nil {
		return err
	}
	if me.Bot {
		writeRaw(w, http.StatusOK, []byte("[]"))
		return nil
	}
	chans, err := s.store.PrivateChannels(r.Context(), me.ID)
	if err != nil {
		return err
	}
	out := make([]any, 0, len(chans))
	for _, c := range chans {
		obj, err := s.privateChannelObject(r.Context(), c, me.ID)
		if err != nil {
			return err
		}
		out = append(out, obj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getChannel is GET /channels/{id} with a bot or client token: a guild
// channel the caller can see, or a DM or group DM they take part in.
func (s *Server) getChannel(w http.ResponseWriter, r *http.Request) error {
	t, err := s.chatChannel(r)
	if err != nil {
		return err
	}
	if t.private != nil {
		obj, err := s.privateChannelObject(r.Context(), *t.private, t.user.ID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, obj)
		return nil
	}
	last, err := s.lastMessageID(r.Context(), t.channel.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newChannelObject(t.channel, last))
	return nil
}

// channelObject is a guild channel as GET /channels/{id} renders it (a
// GuildChannelResponse): what GUILD_CREATE lists, with its guild and
// last message.
type channelObject struct {
	guildChannel
	GuildID snowflake.ID `json:"guild_id"`
}

func newChannelObject(c guild.Channel, last *snowflake.ID) channelObject {
	o := channelObject{guildChannel: newGuildChannel(c), GuildID: c.GuildID}
	o.LastMessageID = last
	return o
}

// lastMessageID is the newest message everyone sees in a channel (nil:
// none).
func (s *Server) lastMessageID(ctx context.Context, channelID snowflake.ID) (*snowflake.ID, error) {
	msgs, err := s.store.ChannelMessages(ctx, channelID, 0, 0, 1)
	if err != nil || len(msgs) == 0 {
		return nil, err
	}
	id := msgs[0].ID
	return &id, nil
}

// privateChannelObject renders a DM or group DM as viewer sees it (the
// other participants as recipients); viewer 0 lists them all (the admin
// API's view).
func (s *Server) privateChannelObject(ctx context.Context, c store.PrivateChannel, viewer snowflake.ID) (any, error) {
	last, err := s.lastMessageID(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	ids := c.Others(viewer)
	users := make([]wire.User, 0, len(ids))
	for _, id := range ids {
		u, err := s.store.User(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		users = append(users, wireUser(u))
	}
	dm := wire.NewDMChannel(c.ID, c.Type, last, users)
	if c.Type == guild.ChannelGroupDM {
		return wire.NewGroupDMChannel(dm, c.Name, c.OwnerID), nil
	}
	return dm, nil
}

// chatTarget is the channel of a chat route (…/channels/{id}/…): a
// guild channel with the caller's view of its guild, or a private
// channel the caller takes part in.
type chatTarget struct {
	channel guild.Channel // a guild channel (private nil)
	view    memberView    // in a private channel, its participants (view.private)
	private *store.PrivateChannel
	user    store.User // the caller
}

// id is the channel's id.
func (t chatTarget) id() snowflake.ID {
	if t.private != nil {
		return t.private.ID
	}
	return t.channel.ID
}

// chatChannel reads the path's channel for the token's user (a client
// token's, or a bot token's bot user): a guild channel they can see
// (else Missing Access), or a private channel they take part in (else
// Missing Access); an id that is neither is Unknown Channel
// (invokerChannel).
func (s *Server) chatChannel(r *http.Request) (chatTarget, error) {
	ch, view, err := s.channelForUser(r)
	if err != nil {
		return chatTarget{}, err
	}
	if view.private == nil {
		return chatTarget{channel: ch, view: view, user: view.user}, nil
	}
	pc := store.PrivateChannel{ID: ch.ID, Type: ch.Type, Name: ch.Name, OwnerID: view.private.ownerID}
	for _, u := range view.private.recipients {
		pc.Recipients = append(pc.Recipients, u.ID)
	}
	return chatTarget{view: view, private: &pc, user: view.user}, nil
}

// mayPostPrivate checks that the caller may post in their private
// channel: in a DM between a bot and a user, the two must share a guild
// (the real service's 50278); people message each other freely (slashd
// has no friends lists or privacy settings).
func (s *Server) mayPostPrivate(ctx context.Context, t chatTarget) error {
	if t.private.Type != guild.ChannelDM {
		return nil
	}
	for _, other := range t.view.private.recipients {
		if other.ID == t.user.ID || (!t.user.Bot && !other.Bot) {
			continue
		}
		shared, err := s.sharesGuild(ctx, t.user.ID, other.ID)
		if err != nil {
			return err
		}
		if !shared {
			return errNoMutualGuilds
		}
	}
	return nil
}

package api

import (
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// channelForUser reads the path's channel and checks the token's user (a
// client token's, or a bot token's bot user) may see it.
func (s *Server) channelForUser(r *http.Request) (guild.Channel, memberView, error) {
	channelID, err := pathID(r, "channel_id")
	if err != nil {
		return guild.Channel{}, memberView{}, err
	}
	return s.invokerChannel(r.Context(), principalFrom(r.Context()).Token.UserID, channelID, 0)
}

// channelMessages is GET /channels/{id}/messages with a client or bot
// token: the channel's messages the user may see (ephemeral ones only their own),
// newest first; ?limit (1-100, default 50) and ?before. In a guild
// channel it needs READ_MESSAGE_HISTORY (else the list is empty); in a
// private channel, to take part in it.
func (s *Server) channelMessages(w http.ResponseWriter, r *http.Request) error {
	t, err := s.chatChannel(r)
	if err != nil {
		return err
	}
	if t.private == nil && !t.view.permissionsIn(t.channel).Has(guild.ReadMessageHistory) {
		writeRaw(w, http.StatusOK, []byte("[]"))
		return nil
	}
	limit, err := parseLimit(r, "limit", 50, 1, 100)
	if err != nil {
		return err
	}
	var before snowflake.ID
	if raw := r.URL.Query().Get("before"); raw != "" {
		if before, err = snowflake.Parse(raw); err != nil {
			return apierr.Invalid(form.CodeCoerce, form.MsgNotSnowflake(raw), "before")
		}
	}
	msgs, err := s.store.ChannelMessages(r.Context(), t.id(), t.user.ID, before, int(limit))
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, joinJSON(msgs))
	return nil
}

// joinJSON renders stored message bodies as one JSON array.
func joinJSON(msgs []store.Message) []byte {
	n := 2
	for _, m := range msgs {
		n += len(m.Body) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m.Body...)
	}
	return append(out, ']')
}

// postChannelMessage is POST /channels/{id}/messages with a client or bot
// token: a user's or a bot's message (content, embeds…), which MESSAGE
// commands can target. It needs SEND_MESSAGES in a guild channel; in a
// private channel, to take part in it (and mayPostPrivate).
func (s *Server) postChannelMessage(w http.ResponseWriter, r *http.Request) error {
	t, err := s.chatChannel(r)
	if err != nil {
		return err
	}
	if t.private != nil {
		err = s.mayPostPrivate(r.Context(), t)
	} else if !t.view.permissionsIn(t.channel).Has(guild.SendMessages) {
		err = errMissingPerms
	}
	if err != nil {
		return err
	}
	chID := t.id()
	d, err := s.readMessage(w, r, false, chID)
	if err != nil {
		return err
	}
	now := s.nowIn(r.Context()).UTC()
	u := t.user
	msg := interaction.NewMessage(s.ids.Next(), chID, wireUser(u), timestamp(now))
	d.Flags &^= interaction.FlagEphemeral // only interactions make ephemeral messages
	files, err := s.applyMessage(&msg, d)
	if err != nil {
		return err
	}
	body, err := encodeMessage(&msg)
	if err != nil {
		return err
	}
	// A private channel's messages have no guild (GuildID 0).
	m := store.Message{ID: msg.ID, ChannelID: chID, GuildID: t.channel.GuildID, AuthorID: u.ID, Body: body, CreatedAt: now,
		Files: files}
	if err := s.store.CreateMessage(r.Context(), m); err != nil {
		return store.NotFoundAs(err, errUnknownChannel)
	}
	s.noteFiles(r.Context(), files)
	writeRaw(w, http.StatusOK, body)
	return nil
}

// applyMessage lays d over msg (interaction.Message.Apply); a poll it
// sets runs for its duration from now.
// Its attachments are resolved (interaction.ResolveAttachments); what
// becomes of the message's files is returned, for the store (nil: they
// stay as they are).
func (s *Server) applyMessage(msg *interaction.Message, d interaction.MessageData) (*store.FileWrite, error) {
	before := msg.Attachments
	msg.Apply(d)
	now := s.now()
	msg.ExpirePoll(func(hours int64) string { return timestamp(now.Add(time.Duration(hours) * time.Hour)) })
	if len(d.Uploads.Files) == 0 && !d.Set["attachments"] && (d.Set != nil || len(d.Attachments) == 0) {
		return nil, nil // no files, and the attachments stay as they were
	}
	keep, err := interaction.ResolveAttachments(msg, d, d.Uploads, before)
	if err != nil {
		return nil, err
	}
	add := make([]store.File, len(d.Uploads.Files))
	for i, f := range d.Uploads.Files {
		add[i] = store.File{ID: f.ID, Filename: f.Filename, ContentType: f.ContentType, Data: f.Data}
	}
	return &store.FileWrite{Add: add, Keep: keep, Quota: s.cfg.FilesQuota}, nil
}

// timestamp renders a time as message timestamps are.
func timestamp(t time.Time) string { return t.UTC().Format(interaction.TimestampLayout) }

// wireUser is a stored user as the API renders one.
func wireUser(u store.User) wire.User {
	return wire.NewUser(u.ID, u.Username, u.GlobalName, u.Bot)
}

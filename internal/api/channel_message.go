package api

import (
	"encoding/json"
	"net/http"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/store"
)

// One message of a channel, as a bot (or a user's client) reads, edits
// and deletes it: GET, PATCH and DELETE /channels/{c}/messages/{m}
// (docs/compat.md, "A channel's message"). discord.py's
// channel.fetch_message(), message.edit() and message.delete() use
// exactly these routes.

var (
	// errEditOthers: the real service's 403 for an edit of another
	// author's message (anything but its flags).
	errEditOthers = apierr.New(http.StatusForbidden, 50005, "Cannot edit a message authored by another user")
	// errDMAction: deleting another's message in a DM or group DM, which
	// no permission allows.
	errDMAction = apierr.New(http.StatusForbidden, 50003, "Cannot execute action on a DM channel")
)

// editableFlags are the flags a message's author may change through Edit
// Message: SUPPRESS_EMBEDS both ways, IS_COMPONENTS_V2 only on. Changes
// to other flags are ignored, as by the real service.
const editableFlags = interaction.FlagSuppressEmbeds | interaction.FlagComponentsV2

// channelMessage resolves /channels/{channel_id}/messages/{message_id}
// for the caller: the channel as chatChannel sees it (10003, 50001), then
// the message, which must be in that channel and seen by everyone there.
// An ephemeral message is no channel message (10008): only its
// interaction's token reaches it.
func (s *Server) channelMessage(r *http.Request) (chatTarget, store.Message, error) {
	t, err := s.chatChannel(r)
	if err != nil {
		return chatTarget{}, store.Message{}, err
	}
	m, err := s.messageIn(r, t)
	return t, m, err
}

// messageIn is the path's message in t's channel.
func (s *Server) messageIn(r *http.Request, t chatTarget) (store.Message, error) {
	id, err := pathID(r, "message_id")
	if err != nil {
		return store.Message{}, err
	}
	m, err := s.store.Message(r.Context(), id)
	if err != nil {
		return store.Message{}, store.NotFoundAs(err, errUnknownMessage)
	}
	if m.ChannelID != t.id() || m.VisibleTo != 0 {
		return store.Message{}, errUnknownMessage
	}
	return m, nil
}

// permitted reports whether the caller holds want in a guild channel
// (a private channel's participants hold nothing more than taking part).
func (t chatTarget) permitted(want guild.Permissions) bool {
	return t.private == nil && t.view.permissionsIn(t.channel).Has(want)
}

// getChannelMessage is GET /channels/{c}/messages/{m}: in a guild channel
// it needs READ_MESSAGE_HISTORY besides VIEW_CHANNEL (else Missing
// Access); in a private channel, to take part in it.
func (s *Server) getChannelMessage(w http.ResponseWriter, r *http.Request) error {
	t, err := s.chatChannel(r)
	if err != nil {
		return err
	}
	if t.private == nil && !t.permitted(guild.ReadMessageHistory) {
		return errMissingAccess
	}
	m, err := s.messageIn(r, t)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, m.Body)
	return nil
}

// editChannelMessage is PATCH /channels/{c}/messages/{m}: the author
// edits content, embeds, components, attachments and the editable flags
// (the body read as a webhook edit's is); anyone else may only change
// SUPPRESS_EMBEDS, with MANAGE_MESSAGES (else 50013), and any other key
// is 50005. It answers the whole message.
func (s *Server) editChannelMessage(w http.ResponseWriter, r *http.Request) error {
	t, m, err := s.channelMessage(r)
	if err != nil {
		return err
	}
	d, err := s.readMessage(w, r, true, m.ChannelID)
	if err != nil {
		return err
	}
	old, err := storedFlags(m)
	if err != nil {
		return err
	}
	mask := uint64(editableFlags)
	if m.AuthorID != t.user.ID {
		if !onlyFlags(d) {
			return errEditOthers
		}
		if !t.permitted(guild.ManageMessages) {
			return errMissingPerms
		}
		mask = interaction.FlagSuppressEmbeds
	}
	if d.Set["flags"] {
		// SUPPRESS_EMBEDS as sent; IS_COMPONENTS_V2 stays once set.
		d.Flags = old&^interaction.FlagSuppressEmbeds | d.Flags&mask
	}
	body, err := s.editMessage(r, m, d)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, body)
	return nil
}

// onlyFlags reports whether an edit changes nothing but flags
// (allowed_mentions alone changes nothing).
func onlyFlags(d interaction.MessageData) bool {
	if len(d.Uploads.Files) > 0 {
		return false // files are the author's to add
	}
	for k := range d.Set {
		if k != "flags" && k != "allowed_mentions" {
			return false
		}
	}
	return true
}

// storedFlags reads a stored message's flags.
func storedFlags(m store.Message) (uint64, error) {
	var msg struct {
		Flags uint64 `json:"flags"`
	}
	err := json.Unmarshal(m.Body, &msg)
	return msg.Flags, err
}

// deleteChannelMessage is DELETE /channels/{c}/messages/{m}: the author's
// own message, or in a guild channel anyone's with MANAGE_MESSAGES (else
// 50013); in a private channel no one deletes another's message (50003).
// 204.
func (s *Server) deleteChannelMessage(w http.ResponseWriter, r *http.Request) error {
	t, m, err := s.channelMessage(r)
	if err != nil {
		return err
	}
	if m.AuthorID != t.user.ID {
		if t.private != nil {
			return errDMAction
		}
		if !t.permitted(guild.ManageMessages) {
			return errMissingPerms
		}
	}
	if err := s.store.DeleteMessage(r.Context(), m.ID); err != nil {
		return store.NotFoundAs(err, errUnknownMessage)
	}
	writeNoContent(w)
	return nil
}

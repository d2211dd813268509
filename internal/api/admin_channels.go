package api

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

const adminMaxChannelName = 100

// adminChannel is a channel on the wire (parent_id null without parent).
type adminChannel struct {
	ID         snowflake.ID      `json:"id"`
	GuildID    snowflake.ID      `json:"guild_id"`
	Type       int               `json:"type"`
	Name       string            `json:"name"`
	ParentID   *snowflake.ID     `json:"parent_id"`
	NSFW       bool              `json:"nsfw"`
	Position   int               `json:"position"`
	Overwrites []guild.Overwrite `json:"permission_overwrites"`
}

func adminChannelOf(c guild.Channel) adminChannel {
	out := adminChannel{ID: c.ID, GuildID: c.GuildID, Type: c.Type, Name: c.Name, NSFW: c.NSFW,
		Position: c.Position, Overwrites: c.Overwrites}
	if c.ParentID != 0 {
		p := c.ParentID
		out.ParentID = &p
	}
	if out.Overwrites == nil {
		out.Overwrites = []guild.Overwrite{}
	}
	return out
}

// Channel types that may hold threads, and the overwrite types.
var (
	adminThreadParents  = []int{guild.ChannelText, guild.ChannelAnnouncement, guild.ChannelForum, guild.ChannelMedia}
	adminOverwriteTypes = []int{guild.OverwriteRole, guild.OverwriteMember}
)

// adminChannelFields reads a channel's fields into c and checks its
// parent and overwrites against the guild. It returns a 50035 error for
// invalid input; other errors are the store's.
func (s *Server) adminChannelFields(ctx context.Context, f adminForm, c *guild.Channel, creating bool) error {
	if creating {
		f.Require("name")
	}
	for _, k := range []string{"name", "type", "nsfw", "position", "permission_overwrites"} {
		if !creating && f.Null(k) {
			f.At(k).Add(form.CodeRequired, form.MsgRequired)
		}
	}
	if name, ok := f.StrLen("name", 1, adminMaxChannelName); ok {
		c.Name = name
	}
	if t, ok := f.choice("type", guild.GuildChannelTypes); ok {
		convertible := func(t int) bool { return t == guild.ChannelText || t == guild.ChannelAnnouncement }
		if !creating && t != c.Type && !(convertible(t) && convertible(c.Type)) {
			f.At("type").Add(fcChannelType, "Only text and announcement channels can be converted into each other")
		}
		c.Type = t
	}
	if f.Null("parent_id") {
		c.ParentID = 0
	} else if p, ok := f.id("parent_id"); ok {
		c.ParentID = p
	}
	if nsfw, ok := f.Bool("nsfw"); ok {
		c.NSFW = nsfw
	}
	if pos, ok := f.integer("position", 0, adminMaxPosition); ok {
		c.Position = int(pos)
	}
	var at []int // each overwrite's index in the request
	if l, ok := f.List("permission_overwrites"); ok {
		c.Overwrites, at = adminOverwrites(f, l)
	}
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.adminCheckParent(ctx, f, *c); err != nil {
		return err
	}
	if err := s.adminCheckOverwrites(ctx, f, c.GuildID, c.Overwrites, at); err != nil {
		return err
	}
	return f.Err()
}

// adminOverwrites reads permission_overwrites, with the index in l of
// each one kept; a later entry for the same role or user replaces an
// earlier one.
func adminOverwrites(f adminForm, l []any) ([]guild.Overwrite, []int) {
	out := make([]guild.Overwrite, 0, len(l))
	at := make([]int, 0, len(l))
	for i, item := range l {
		o, ok := adminSubForm(item, f.At("permission_overwrites", i))
		if !ok {
			continue
		}
		var ow guild.Overwrite
		idOK := o.Require("id")
		if idOK {
			ow.ID, idOK = o.id("id")
		}
		typeOK := o.Require("type")
		if typeOK {
			ow.Type, typeOK = o.choice("type", adminOverwriteTypes)
		}
		allow, allowOK := o.perms("allow")
		deny, denyOK := o.perms("deny")
		if !idOK || !typeOK || (!allowOK && o.Present("allow")) || (!denyOK && o.Present("deny")) {
			continue
		}
		ow.Allow, ow.Deny = allow, deny
		if j := slices.IndexFunc(out, func(x guild.Overwrite) bool { return x.ID == ow.ID && x.Type == ow.Type }); j >= 0 {
			out[j], at[j] = ow, i
			continue
		}
		out = append(out, ow)
		at = append(at, i)
	}
	return out, at
}

// adminCheckParent: a thread needs a parent that can hold threads; a
// category has no parent; any other channel's parent is a category. The
// parent must be a channel of the same guild.
func (s *Server) adminCheckParent(ctx context.Context, f adminForm, c guild.Channel) error {
	thread := guild.IsThread(c.Type)
	switch {
	case thread && c.ParentID == 0:
		f.At("parent_id").Add(form.CodeRequired, form.MsgRequired)
		return nil
	case c.ParentID == 0:
		return nil
	case c.Type == guild.ChannelCategory:
		f.At("parent_id").Add(fcParent, "A category cannot have a parent")
		return nil
	}
	p, err := s.store.Channel(ctx, c.ParentID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.GuildID != c.GuildID) {
		f.At("parent_id").Add(fcUnknownChannel, "Unknown Channel")
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case thread && !slices.Contains(adminThreadParents, p.Type):
		f.At("parent_id").Add(fcParent, "A thread's parent must be a text, announcement, forum or media channel")
	case !thread && p.Type != guild.ChannelCategory:
		f.At("parent_id").Add(fcParent, "A channel's parent must be a category")
	}
	return nil
}

// adminCheckOverwrites: role overwrites name roles of the guild, member
// overwrites existing users. at[i] is the request index of ows[i], where
// its error goes.
func (s *Server) adminCheckOverwrites(ctx context.Context, f adminForm, guildID snowflake.ID,
	ows []guild.Overwrite, at []int,
) error {
	if len(at) == 0 {
		return nil // none in the request
	}
	roles, err := s.store.Roles(ctx, guildID)
	if err != nil {
		return err
	}
	known := make(map[snowflake.ID]bool, len(roles))
	for _, r := range roles {
		known[r.ID] = true
	}
	for i, ow := range ows {
		switch ow.Type {
		case guild.OverwriteRole:
			if !known[ow.ID] {
				f.At("permission_overwrites", at[i], "id").Add(fcUnknownRole, "Unknown Role")
			}
		case guild.OverwriteMember:
			_, err := s.store.User(ctx, ow.ID)
			if errors.Is(err, store.ErrNotFound) {
				f.At("permission_overwrites", at[i], "id").Add(fcUnknownUser, "Unknown User")
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

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
	if err := s.adminChannelFields(r.Context(), f, &c, true); err != nil {
		return err
	}
	c.ID = s.nextID()
	if err := s.store.CreateChannel(r.Context(), c); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, adminChannelOf(c))
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
	writeJSON(w, http.StatusOK, convertAll(chans, adminChannelOf))
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
	writeJSON(w, http.StatusOK, adminChannelOf(c))
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
	if err := s.adminChannelFields(r.Context(), f, &c, false); err != nil {
		return err
	}
	if err := s.store.UpdateChannel(r.Context(), c); err != nil {
		return notFoundAs(err, adminErrUnknownChannel)
	}
	writeJSON(w, http.StatusOK, adminChannelOf(c))
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

package admin

import (
	"context"
	"errors"
	"slices"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// MaxChannelName is the longest channel name.
const MaxChannelName = 100

// Channel is a channel on the wire (parent_id null without parent).
type Channel struct {
	ID         snowflake.ID      `json:"id"`
	GuildID    snowflake.ID      `json:"guild_id"`
	Type       int               `json:"type"`
	Name       string            `json:"name"`
	ParentID   *snowflake.ID     `json:"parent_id"`
	NSFW       bool              `json:"nsfw"`
	Position   int               `json:"position"`
	Overwrites []guild.Overwrite `json:"permission_overwrites"`
}

// ChannelOf is c on the wire.
func ChannelOf(c guild.Channel) Channel {
	out := Channel{ID: c.ID, GuildID: c.GuildID, Type: c.Type, Name: c.Name, NSFW: c.NSFW,
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
	threadParents  = []int{guild.ChannelText, guild.ChannelAnnouncement, guild.ChannelForum, guild.ChannelMedia}
	overwriteTypes = []int{guild.OverwriteRole, guild.OverwriteMember}
)

// ChannelFields reads a channel's fields into c and checks its parent and
// overwrites against the guild. It returns a 50035 error for invalid
// input; other errors are the store's.
func ChannelFields(ctx context.Context, st store.Store, f Form, c *guild.Channel, creating bool) error {
	if creating {
		f.Require("name")
	}
	for _, k := range []string{"name", "type", "nsfw", "position", "permission_overwrites"} {
		if !creating && f.Null(k) {
			f.At(k).Add(form.CodeRequired, form.MsgRequired)
		}
	}
	if name, ok := f.StrLen("name", 1, MaxChannelName); ok {
		c.Name = name
	}
	if t, ok := f.OneOf("type", guild.GuildChannelTypes); ok {
		convertible := func(t int) bool { return t == guild.ChannelText || t == guild.ChannelAnnouncement }
		if !creating && t != c.Type && !(convertible(t) && convertible(c.Type)) {
			f.At("type").Add(CodeChannelType, "Only text and announcement channels can be converted into each other")
		}
		c.Type = t
	}
	if f.Null("parent_id") {
		c.ParentID = 0
	} else if p, ok := f.ID("parent_id"); ok {
		c.ParentID = p
	}
	if nsfw, ok := f.Bool("nsfw"); ok {
		c.NSFW = nsfw
	}
	if pos, ok := f.Integer("position", 0, MaxPosition); ok {
		c.Position = int(pos)
	}
	var at []int // each overwrite's index in the request
	if l, ok := f.List("permission_overwrites"); ok {
		c.Overwrites, at = overwrites(f, l)
	}
	if err := f.Err(); err != nil {
		return err
	}
	if err := checkParent(ctx, st, f, *c); err != nil {
		return err
	}
	if err := checkOverwrites(ctx, st, f, c.GuildID, c.Overwrites, at); err != nil {
		return err
	}
	return f.Err()
}

// overwrites reads permission_overwrites, with the index in l of each
// one kept; a later entry for the same role or user replaces an earlier
// one.
func overwrites(f Form, l []any) ([]guild.Overwrite, []int) {
	out := make([]guild.Overwrite, 0, len(l))
	at := make([]int, 0, len(l))
	for i, item := range l {
		o, ok := SubForm(item, f.At("permission_overwrites", i))
		if !ok {
			continue
		}
		var ow guild.Overwrite
		idOK := o.Require("id")
		if idOK {
			ow.ID, idOK = o.ID("id")
		}
		typeOK := o.Require("type")
		if typeOK {
			ow.Type, typeOK = o.OneOf("type", overwriteTypes)
		}
		allow, allowOK := o.Perms("allow")
		deny, denyOK := o.Perms("deny")
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

// checkParent: a thread needs a parent that can hold threads; a category
// has no parent; any other channel's parent is a category. The parent
// must be a channel of the same guild.
func checkParent(ctx context.Context, st store.Store, f Form, c guild.Channel) error {
	thread := guild.IsThread(c.Type)
	switch {
	case thread && c.ParentID == 0:
		f.At("parent_id").Add(form.CodeRequired, form.MsgRequired)
		return nil
	case c.ParentID == 0:
		return nil
	case c.Type == guild.ChannelCategory:
		f.At("parent_id").Add(CodeParent, "A category cannot have a parent")
		return nil
	}
	p, err := st.Channel(ctx, c.ParentID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.GuildID != c.GuildID) {
		f.At("parent_id").Add(CodeUnknownChannel, "Unknown Channel")
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case thread && !slices.Contains(threadParents, p.Type):
		f.At("parent_id").Add(CodeParent, "A thread's parent must be a text, announcement, forum or media channel")
	case !thread && p.Type != guild.ChannelCategory:
		f.At("parent_id").Add(CodeParent, "A channel's parent must be a category")
	}
	return nil
}

// checkOverwrites: role overwrites name roles of the guild, member
// overwrites existing users. at[i] is the request index of ows[i], where
// its error goes.
func checkOverwrites(ctx context.Context, st store.Store, f Form, guildID snowflake.ID,
	ows []guild.Overwrite, at []int,
) error {
	if len(at) == 0 {
		return nil // none in the request
	}
	roles, err := st.Roles(ctx, guildID)
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
				f.At("permission_overwrites", at[i], "id").Add(CodeUnknownRole, "Unknown Role")
			}
		case guild.OverwriteMember:
			_, err := st.User(ctx, ow.ID)
			if errors.Is(err, store.ErrNotFound) {
				f.At("permission_overwrites", at[i], "id").Add(CodeUnknownUser, "Unknown User")
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

package store

import (
	"slices"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// PrivateChannel is a DM (type 1) or a group DM (type 3): a channel outside guilds.
type PrivateChannel struct {
	ID         snowflake.ID
	Type       int            // guild.ChannelDM or guild.ChannelGroupDM
	Name       string         // group DMs only ("" none)
	OwnerID    snowflake.ID   // group DMs: the owner (a recipient); DMs: 0
	Recipients []snowflake.ID // every participant, sorted by id; a DM: exactly its two users
	CreatedAt  time.Time
}

// HasRecipient reports whether user takes part in the channel.
func (c PrivateChannel) HasRecipient(user snowflake.ID) bool {
	return slices.Contains(c.Recipients, user)
}

// Others are the participants other than user, by id: the recipients
// the real service lists to user.
func (c PrivateChannel) Others(user snowflake.ID) []snowflake.ID {
	out := make([]snowflake.ID, 0, len(c.Recipients))
	for _, id := range c.Recipients {
		if id != user {
			out = append(out, id)
		}
	}
	return out
}

package admin

import (
	"context"
	"errors"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Group DM limits (the real service's): a name of up to 100 characters,
// at most 10 participants.
const (
	MaxGroupDMName       = 100
	MaxGroupDMRecipients = 10
)

// ErrTooManyRecipients is a group DM of more than MaxGroupDMRecipients
// participants: the real service's 30004.
var ErrTooManyRecipients = apierr.New(400, 30004, "Maximum number of recipients reached (10)")

// GroupDMFields reads a new group DM ({owner_id, recipient_ids?, name?})
// into c: the owner and the recipients (the owner among them) must be
// people, not bot users (which the real service keeps out of group DMs).
// It returns a 50035 error for invalid input, ErrTooManyRecipients past
// the limit; other errors are the store's.
func GroupDMFields(ctx context.Context, st store.Store, f Form, c *store.PrivateChannel) error {
	c.Type = guild.ChannelGroupDM
	f.Require("owner_id")
	owner, ownerOK := f.ID("owner_id")
	var ids []snowflake.ID
	if f.Has("recipient_ids") {
		ids, _ = f.IDs("recipient_ids")
	}
	if !f.Null("name") {
		if name, ok := f.StrLen("name", 0, MaxGroupDMName); ok {
			c.Name = name
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	var world *snowflake.ID // the owner's: every participant's must be it
	check := func(id snowflake.ID, at ...any) error {
		u, err := st.User(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			f.At(at...).Add(CodeUnknownUser, "Unknown User")
		case err != nil:
			return err
		case u.Bot:
			f.At(at...).Add(CodeUserBot, "Bot users cannot be in group DMs")
		case world == nil:
			world = &u.WorldID
		case u.WorldID != *world:
			f.At(at...).Add(CodeWorldMismatch, WorldMismatchMessage("user", u.WorldID, "group DM's owner", *world))
		}
		return nil
	}
	if ownerOK {
		if err := check(owner, "owner_id"); err != nil {
			return err
		}
	}
	for i, id := range ids {
		if err := check(id, "recipient_ids", i); err != nil {
			return err
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	c.OwnerID = owner
	c.Recipients = append([]snowflake.ID{owner}, ids...)
	seen := map[snowflake.ID]bool{}
	for _, id := range c.Recipients {
		seen[id] = true
	}
	if len(seen) > MaxGroupDMRecipients {
		return ErrTooManyRecipients
	}
	return nil
}

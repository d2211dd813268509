package interaction

import "github.com/slashd/slashd/internal/apierr"

// ErrCannotEditPoll is 400 520003 "Cannot edit a poll message"
// (opcodes-and-status-codes.mdx, "JSON Error Codes").
var ErrCannotEditPoll = apierr.New(400, 520003, "Cannot edit a poll message")

// CheckPollEdit refuses, with ErrCannotEditPoll, an edit d of the stored
// message that would change a poll message ("After creation, the poll
// message cannot be edited", poll.mdx) or put a poll on a message other
// than a deferred answer's loading placeholder ("Polls can only be added
// when editing a deferred interaction response", webhook.mdx, "Edit
// Webhook Message"). An edit of the flags alone (a moderator's
// SUPPRESS_EMBEDS; allowed_mentions changes nothing) passes.
func CheckPollEdit(d MessageData, stored Message) error {
	if stored.Flags&FlagLoading != 0 {
		return nil
	}
	changes := false
	for k := range d.Set {
		changes = changes || (k != "flags" && k != "allowed_mentions")
	}
	hasPoll := len(stored.Poll) > 0 && string(stored.Poll) != "null"
	addsPoll := d.Set["poll"] && len(d.Poll) > 0 && string(d.Poll) != "null"
	if (hasPoll && changes) || addsPoll {
		return ErrCannotEditPoll
	}
	return nil
}

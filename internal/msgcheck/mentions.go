package msgcheck

import (
	"slices"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// Allowed mention types (message.mdx, "Allowed Mention Types"), in the
// docs' order.
var mentionTypes = []string{"roles", "users", "everyone"}

// MaxMentionIDs is how many user or role ids allowed_mentions may list
// (message.mdx, "Allowed Mentions Object").
const MaxMentionIDs = 100

// Codes of allowed_mentions errors, as real error bodies show them.
const (
	CodeMentionsParseExclusive = "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE"
	CodeSetDuplicate           = "SET_TYPE_ALREADY_CONTAINS_VALUE"
	MsgSetDuplicate            = "The set already contains this value"
)

// MsgMentionsParseExclusive is the message of CodeMentionsParseExclusive
// for the type ("users" or "roles") both parsed and listed; the real
// service writes no space after "parse:".
func MsgMentionsParseExclusive(kind string) string {
	return `parse:["` + kind + `"] and ` + kind + `: [ids...] are mutually exclusive.`
}

// AllowedMentions checks an allowed_mentions object: parse a list of
// mention types, users and roles sets of at most 100 snowflakes, neither
// listed while parse names its type (an empty or null list is not a
// listing), replied_user a boolean.
func AllowedMentions(m map[string]any, at *apierr.Fields) {
	o, _ := form.AsObject(m, at)
	parsed := map[string]bool{}
	if l, ok := o.List("parse"); ok {
		for i, item := range l {
			s, isStr := item.(string)
			switch {
			case !isStr:
				o.At("parse", i).Add(form.CodeStringConvert, form.MsgNotString(item))
			case !slices.Contains(mentionTypes, s):
				o.At("parse", i).Add(form.CodeChoices, form.MsgChoicesOf(mentionTypes))
			default:
				parsed[s] = true
			}
		}
	}
	for _, kind := range []string{"users", "roles"} {
		if n := mentionIDs(o, kind); n > 0 && parsed[kind] {
			o.At().Add(CodeMentionsParseExclusive, MsgMentionsParseExclusive(kind))
		}
	}
	o.Bool("replied_user")
}

// mentionIDs checks key as a set of at most 100 snowflakes, a repeated
// id refused at its second index, and returns how many it lists.
func mentionIDs(o form.Object, key string) int {
	l, ok := o.List(key)
	if !ok {
		return 0
	}
	if len(l) > MaxMentionIDs {
		o.At(key).Add(form.CodeMaxLength, form.MsgMaxLength(MaxMentionIDs))
		return len(l)
	}
	seen := make(map[snowflake.ID]bool, len(l))
	for i, item := range l {
		id, ok := form.SnowflakeValue(item, o.At(key, i))
		if !ok {
			continue
		}
		if seen[id] {
			o.At(key, i).Add(CodeSetDuplicate, MsgSetDuplicate)
		}
		seen[id] = true
	}
	return len(l)
}

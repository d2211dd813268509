// Package admin reads and checks what the admin API (/admin/v1) and the
// slashd CLI are asked to create or change in the world commands live in
// (users and their logins and tokens, applications, guilds with their
// roles, members and channels), and shapes the objects both answer with.
// The HTTP handlers and the CLI verbs call the same functions, so a
// request is refused alike, with the same codes and messages, through
// either. The package does no I/O of its own: the checks that need the
// world read it through store.Store.
package admin

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// Field error codes of the admin API, following the real service's
// UPPER_SNAKE pattern; the generic ones (BASE_TYPE_REQUIRED, …) are
// internal/form's. An id in a body that names nothing is a field error
// (UNKNOWN_USER, …) at that field, as the permissions endpoint does.
const (
	CodeUnknownUser    = "UNKNOWN_USER"
	CodeUnknownRole    = "UNKNOWN_ROLE"
	CodeUnknownChannel = "UNKNOWN_CHANNEL"
	CodeUnknownApp     = "UNKNOWN_APPLICATION"
	CodeParent         = "CHANNEL_PARENT_INVALID"
	CodeChannelType    = "CHANNEL_TYPE_INVALID"
	CodeUserBot        = "USER_BOT_INVALID"
	CodeGuildOwner     = "GUILD_OWNER_INVALID"
	CodeEveryone       = "ROLE_EVERYONE_INVALID"
	CodeInstallPerms   = "INSTALLATION_PERMISSIONS_INVALID"
	CodeLoginTaken     = "LOGIN_NAME_TAKEN"
	// CodeDiscoveryNSFW refuses discoverable true while the app has an
	// age-restricted command (the real portal's SAFE_COMMANDS discovery
	// requirement; docs/compat.md).
	CodeDiscoveryNSFW = "APPLICATION_DISCOVERABLE_INVALID"
	MsgDiscoveryNSFW  = "An application with age-restricted commands cannot enable discovery"
)

// Form is one JSON object of an admin request body: form.Object's
// readers, plus the admin API's own, which differ from the command API's
// in two ways kept so that admin clients see no change: an id must name
// something (0 is rejected), and an integer may also be written as a
// string in float form ("1.0", "1e3").
type Form struct{ form.Object }

// NewForm reads body, a decoded JSON object, with its errors under a
// tree of their own (Err renders them).
func NewForm(body map[string]any) Form {
	o, _ := form.AsObject(body, &apierr.Fields{})
	return Form{o}
}

// SubForm is the form of a nested object; it reports false (with the
// error recorded at at) when v is not an object.
func SubForm(v any, at *apierr.Fields) (Form, bool) {
	o, ok := form.AsObject(v, at)
	return Form{o}, ok
}

// Integer reads an int in [min, max] (form.IntValue, strings widened by
// number).
func (f Form) Integer(key string, min, max int64) (int64, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return form.IntValue(number(v), min, max, f.At(key))
}

// OneOf reads an int that must be one of choices (form.ChoiceValue,
// strings widened by number).
func (f Form) OneOf(key string, choices []int) (int, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return form.ChoiceValue(number(v), choices, f.At(key))
}

// number reads a string as a JSON number, so that an integer written
// "1.0" or "1e3" is taken, as the admin API always has (form.ToInt, like
// the real service, takes only digits in a string). form.Repr renders the
// two alike, so no message changes.
func number(v any) any {
	if s, ok := v.(string); ok {
		return json.Number(s)
	}
	return v
}

// ID reads the snowflake of something that exists: 0 is not one.
func (f Form) ID(key string) (snowflake.ID, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return idValue(v, f.At(key))
}

func idValue(v any, at *apierr.Fields) (snowflake.ID, bool) {
	id, ok := form.SnowflakeValue(v, at)
	if ok && id == 0 {
		at.Add(form.CodeCoerce, form.MsgNotSnowflake(v))
		return 0, false
	}
	return id, ok
}

// Perms reads a permission bit set: a decimal string or an integer from 0
// to 2^53-1 (every defined bit).
func (f Form) Perms(key string) (guild.Permissions, bool) {
	n, ok := f.Integer(key, 0, int64(guild.All))
	return guild.Permissions(n), ok
}

// IDs reads an array of snowflakes, each checked at its index.
func (f Form) IDs(key string) ([]snowflake.ID, bool) {
	l, ok := f.List(key)
	if !ok {
		return nil, false
	}
	out := make([]snowflake.ID, 0, len(l))
	good := true
	for i, v := range l {
		id, ok := idValue(v, f.At(key, i))
		good = good && ok
		out = append(out, id)
	}
	return out, good
}

// nullable renders "" as null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package api

import (
	"encoding/json"
	"net/http"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// Errors of the admin API. Unknown ids in the path are 404s with the real
// service's codes; conflicts with the world's rules are 400s with code 0.
var (
	adminErrUnknownUser        = apierr.New(http.StatusNotFound, apierr.CodeUnknownUser, "Unknown User")
	adminErrUnknownRole        = apierr.New(http.StatusNotFound, 10011, "Unknown Role")
	adminErrUnknownChannel     = apierr.New(http.StatusNotFound, 10003, "Unknown Channel")
	adminErrUnknownMember      = apierr.New(http.StatusNotFound, 10007, "Unknown Member")
	adminErrUnknownIntegration = apierr.New(http.StatusNotFound, 10005, "Unknown Integration")

	adminErrConflict = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The request conflicts with the current state of the world")
	adminErrDeleteEveryone = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The @everyone role cannot be deleted")
	adminErrDeleteManaged = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A managed role cannot be deleted: uninstall its application instead")
	adminErrRemoveOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The guild owner cannot be removed: transfer the guild first")
	adminErrDeleteOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A user who owns a guild or an application cannot be deleted: transfer or delete those first")
	adminErrDeleteBot = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A bot user belongs to its application and cannot be deleted")
	adminErrBotToken = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"Bot users cannot be given client or Bearer tokens: use the application's bot token")
)

// Field error codes of the admin API, following the real service's
// UPPER_SNAKE pattern; the generic ones (BASE_TYPE_REQUIRED, …) are
// internal/form's. An id in a body that names nothing is a field error
// (UNKNOWN_USER, …) at that field, as the permissions endpoint does.
const (
	fcUnknownUser    = "UNKNOWN_USER"
	fcUnknownRole    = "UNKNOWN_ROLE"
	fcUnknownChannel = "UNKNOWN_CHANNEL"
	fcUnknownApp     = "UNKNOWN_APPLICATION"
	fcParent         = "CHANNEL_PARENT_INVALID"
	fcChannelType    = "CHANNEL_TYPE_INVALID"
	fcUserBot        = "USER_BOT_INVALID"
	fcGuildOwner     = "GUILD_OWNER_INVALID"
	fcEveryone       = "ROLE_EVERYONE_INVALID"
	fcInstallPerms   = "INSTALLATION_PERMISSIONS_INVALID"
)

// adminForm is one JSON object of an admin request body: form.Object's
// readers, plus the admin API's own, which differ from the command API's
// in two ways kept so that admin clients see no change: an id must name
// something (0 is rejected), and an integer may also be written as a
// string in float form ("1.0", "1e3").
type adminForm struct{ form.Object }

// adminBody reads the request body as one JSON object. With allowEmpty, a
// request without a body is an empty object.
func (s *Server) adminBody(w http.ResponseWriter, r *http.Request, allowEmpty bool) (adminForm, error) {
	if allowEmpty && r.ContentLength == 0 {
		o, _ := form.AsObject(map[string]any{}, &apierr.Fields{})
		return adminForm{o}, nil
	}
	v, err := s.readBody(w, r)
	if err != nil {
		return adminForm{}, err
	}
	// A body that is not an object, null included, is one
	// MODEL_TYPE_CONVERT at the root (for null, form.AsObject would use
	// the wording of a list item).
	if _, ok := v.(map[string]any); !ok {
		return adminForm{}, apierr.Invalid(form.CodeModelConvert, form.MsgModelConvert)
	}
	o, _ := form.AsObject(v, &apierr.Fields{})
	return adminForm{o}, nil
}

// adminSubForm is the form of a nested object; it reports false (with the
// error recorded at at) when v is not an object.
func adminSubForm(v any, at *apierr.Fields) (adminForm, bool) {
	o, ok := form.AsObject(v, at)
	return adminForm{o}, ok
}

// integer reads an int in [min, max] (form.IntValue, strings widened by
// adminNumber).
func (f adminForm) integer(key string, min, max int64) (int64, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return form.IntValue(adminNumber(v), min, max, f.At(key))
}

// choice reads an int that must be one of choices (form.ChoiceValue,
// strings widened by adminNumber).
func (f adminForm) choice(key string, choices []int) (int, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return form.ChoiceValue(adminNumber(v), choices, f.At(key))
}

// adminNumber reads a string as a JSON number, so that an integer written
// "1.0" or "1e3" is taken, as the admin API always has (form.ToInt, like
// the real service, takes only digits in a string). form.Repr renders the
// two alike, so no message changes.
func adminNumber(v any) any {
	if s, ok := v.(string); ok {
		return json.Number(s)
	}
	return v
}

// id reads the snowflake of something that exists: 0 is not one.
func (f adminForm) id(key string) (snowflake.ID, bool) {
	v, ok := f.Value(key)
	if !ok {
		return 0, false
	}
	return adminID(v, f.At(key))
}

func adminID(v any, at *apierr.Fields) (snowflake.ID, bool) {
	id, ok := form.SnowflakeValue(v, at)
	if ok && id == 0 {
		at.Add(form.CodeCoerce, form.MsgNotSnowflake(v))
		return 0, false
	}
	return id, ok
}

// perms reads a permission bit set: a decimal string or an integer from 0
// to 2^53-1 (every defined bit).
func (f adminForm) perms(key string) (guild.Permissions, bool) {
	n, ok := f.integer(key, 0, int64(guild.All))
	return guild.Permissions(n), ok
}

// idList reads an array of snowflakes, each checked at its index.
func (f adminForm) idList(key string) ([]snowflake.ID, bool) {
	l, ok := f.List(key)
	if !ok {
		return nil, false
	}
	out := make([]snowflake.ID, 0, len(l))
	good := true
	for i, v := range l {
		id, ok := adminID(v, f.At(key, i))
		good = good && ok
		out = append(out, id)
	}
	return out, good
}

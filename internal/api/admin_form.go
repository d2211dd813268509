package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
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

// Field error codes and messages. The generic ones are the real
// service's (as in internal/command); the admin-specific ones follow its
// UPPER_SNAKE pattern. An id in a body that names nothing is a field
// error (UNKNOWN_USER, …) at that field, as the permissions endpoint does.
const (
	fcRequired       = "BASE_TYPE_REQUIRED"
	fmRequired       = "This field is required"
	fcBadLength      = "BASE_TYPE_BAD_LENGTH"
	fcMinLength      = "BASE_TYPE_MIN_LENGTH"
	fcChoices        = "BASE_TYPE_CHOICES"
	fcStringConvert  = "STRING_TYPE_CONVERT"
	fcBoolConvert    = "BOOLEAN_TYPE_CONVERT"
	fmBoolConvert    = "Must be either true or false."
	fcCoerce         = "NUMBER_TYPE_COERCE"
	fcNumberMax      = "NUMBER_TYPE_MAX"
	fcNumberMin      = "NUMBER_TYPE_MIN"
	fcListConvert    = "LIST_TYPE_CONVERT"
	fmListConvert    = "Only iterables may be used in a ListType."
	fcModelConvert   = "MODEL_TYPE_CONVERT"
	fmModelConvert   = "Expected an object/dictionary."
	fcListItemNull   = "LIST_ITEM_VALUE_REQUIRED"
	fmListItemNull   = "List item values of ModelType are required"
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

func fmBadLength(min, max int) string {
	return fmt.Sprintf("Must be between %d and %d in length.", min, max)
}

func fmMinLength(n int) string { return fmt.Sprintf("Must be %d or more in length.", n) }

func fmNotString(v any) string { return fmt.Sprintf("Could not interpret %q as string.", adminRepr(v)) }

func fmNotInt(v any) string { return fmt.Sprintf("Value %q is not int.", adminRepr(v)) }

func fmNotSnowflake(v any) string { return fmt.Sprintf("Value %q is not snowflake.", adminRepr(v)) }

func fmIntMax(n int64) string { return fmt.Sprintf("int value should be less than or equal to %d.", n) }

func fmIntMin(n int64) string {
	return fmt.Sprintf("int value should be greater than or equal to %d.", n)
}

// fmChoices renders the enum message in the real service's Python tuple
// form: "Value must be one of (0, 1).", "('client', 'bearer')".
func fmChoices[T any](values []T) string {
	parts := make([]string, len(values))
	for i, v := range values {
		if s, ok := any(v).(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	if len(parts) == 1 {
		return "Value must be one of (" + parts[0] + ",)."
	}
	return "Value must be one of (" + strings.Join(parts, ", ") + ")."
}

// adminRepr renders a decoded JSON value as the real service (Python)
// quotes offending values.
func adminRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		return "{...}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return "[...]"
	default:
		return fmt.Sprint(x)
	}
}

// adminForm reads typed fields out of one JSON object and records errors
// at each field's path (below errs).
type adminForm struct {
	m    map[string]any
	errs *apierr.Fields
}

// adminBody reads the request body as one JSON object. With allowEmpty, a
// request without a body is an empty object.
func (s *Server) adminBody(w http.ResponseWriter, r *http.Request, allowEmpty bool) (adminForm, error) {
	if allowEmpty && r.ContentLength == 0 {
		return adminForm{m: map[string]any{}, errs: &apierr.Fields{}}, nil
	}
	v, err := s.readBody(w, r)
	if err != nil {
		return adminForm{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return adminForm{}, apierr.Invalid(fcModelConvert, fmModelConvert)
	}
	return adminForm{m: m, errs: &apierr.Fields{}}, nil
}

// adminSubForm is the form of a nested object; it reports false (with the error
// recorded at at) when v is not an object.
func adminSubForm(v any, at *apierr.Fields) (adminForm, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			at.Add(fcListItemNull, fmListItemNull)
		} else {
			at.Add(fcModelConvert, fmModelConvert)
		}
		return adminForm{}, false
	}
	return adminForm{m: m, errs: at}, true
}

// err is the 50035 error of every field error recorded, or nil.
func (f adminForm) err() error { return f.errs.Err() }

// has reports whether key is in the object with a non-null value.
func (f adminForm) has(key string) bool {
	v, ok := f.m[key]
	return ok && v != nil
}

// null reports whether key is in the object with a null value.
func (f adminForm) null(key string) bool {
	v, ok := f.m[key]
	return ok && v == nil
}

// require records BASE_TYPE_REQUIRED when key is absent or null.
func (f adminForm) require(key string) bool {
	if !f.has(key) {
		f.errs.At(key).Add(fcRequired, fmRequired)
		return false
	}
	return true
}

// str reads a string field of min to max characters; ok is false when
// the field is absent, null or invalid (the error recorded).
func (f adminForm) str(key string, min, max int) (string, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		f.errs.At(key).Add(fcStringConvert, fmNotString(v))
		return "", false
	}
	if n := utf8.RuneCountInString(s); n < min || n > max {
		f.errs.At(key).Add(fcBadLength, fmBadLength(min, max))
		return "", false
	}
	return s, true
}

func (f adminForm) boolean(key string) (bool, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		f.errs.At(key).Add(fcBoolConvert, fmBoolConvert)
		return false, false
	}
	return b, true
}

// integer reads an int in [min, max]; JSON numbers and numeric strings
// are accepted, as by the real service.
func (f adminForm) integer(key string, min, max int64) (int64, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return 0, false
	}
	return adminInt(v, min, max, f.errs.At(key))
}

func adminInt(v any, min, max int64, at *apierr.Fields) (int64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			at.Add(fcCoerce, fmNotInt(v))
			return 0, false
		}
		n = int64(f)
	}
	if n < min {
		at.Add(fcNumberMin, fmIntMin(min))
		return 0, false
	}
	if n > max {
		at.Add(fcNumberMax, fmIntMax(max))
		return 0, false
	}
	return n, true
}

// choice reads an int that must be one of choices.
func (f adminForm) choice(key string, choices []int) (int, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return 0, false
	}
	n, ok := adminInt(v, math.MinInt64, math.MaxInt64, f.errs.At(key))
	if !ok {
		return 0, false
	}
	for _, c := range choices {
		if int64(c) == n {
			return c, true
		}
	}
	f.errs.At(key).Add(fcChoices, fmChoices(choices))
	return 0, false
}

// id reads a snowflake (a string, or a number).
func (f adminForm) id(key string) (snowflake.ID, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return 0, false
	}
	return adminID(v, f.errs.At(key))
}

func adminID(v any, at *apierr.Fields) (snowflake.ID, bool) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	}
	id, err := snowflake.Parse(s)
	if err != nil || id == 0 {
		at.Add(fcCoerce, fmNotSnowflake(v))
		return 0, false
	}
	return id, true
}

// perms reads a permission bit set: a decimal string or an integer from 0
// to 2^53-1 (every defined bit).
func (f adminForm) perms(key string) (guild.Permissions, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return 0, false
	}
	n, ok := adminInt(v, 0, int64(guild.All), f.errs.At(key))
	return guild.Permissions(n), ok
}

// list reads an array.
func (f adminForm) list(key string) ([]any, bool) {
	v, present := f.m[key]
	if !present || v == nil {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		f.errs.At(key).Add(fcListConvert, fmListConvert)
		return nil, false
	}
	return l, true
}

// idList reads an array of snowflakes, each checked at its index.
func (f adminForm) idList(key string) ([]snowflake.ID, bool) {
	l, ok := f.list(key)
	if !ok {
		return nil, false
	}
	out := make([]snowflake.ID, 0, len(l))
	good := true
	for i, v := range l {
		id, ok := adminID(v, f.errs.At(key, i))
		good = good && ok
		out = append(out, id)
	}
	return out, good
}

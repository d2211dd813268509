package form

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/snowflake"
)

// Object is one JSON object of a request body together with the node of
// the error tree its fields' errors go under.
//
// Its readers share one convention: ok is false when the field is absent,
// null or invalid, and only an invalid value records an error. What an
// absent or null field means (required, "reset to the default", ignored)
// differs from field to field and from API to API, so it is left to the
// caller, who can tell the cases apart with Present, Has and Null.
type Object struct {
	m    map[string]any
	errs *apierr.Fields
}

// AsObject is v as an Object whose errors go under errs. When v is not an
// object it records, at errs, LIST_ITEM_VALUE_REQUIRED for null (the real
// service's wording: objects are mostly read as list items) or
// MODEL_TYPE_CONVERT for anything else, and reports false.
func AsObject(v any, errs *apierr.Fields) (Object, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			errs.Add(CodeListItemNull, MsgListItemNull)
		} else {
			errs.Add(CodeModelConvert, MsgModelConvert)
		}
		return Object{}, false
	}
	return Object{m: m, errs: errs}, true
}

// Value is the raw value of key; ok is false when the key is absent or
// null. It is for fields whose type depends on others (a choice's value),
// that take several shapes (a list or a string) or that the caller reads
// with a rule of its own.
func (o Object) Value(key string) (v any, ok bool) {
	v, ok = o.m[key]
	return v, ok && v != nil
}

// At is the error node at path below the object (the object's own node
// for an empty path), for errors of the caller's own rules.
func (o Object) At(path ...any) *apierr.Fields { return o.errs.At(path...) }

// Err is the 50035 Invalid Form Body error of every error recorded under
// the object, or nil.
func (o Object) Err() error { return o.errs.Err() }

// Present reports whether key is in the object with a non-null value.
func (o Object) Present(key string) bool {
	v, ok := o.m[key]
	return ok && v != nil
}

// Has reports whether key is in the object at all, null included.
func (o Object) Has(key string) bool {
	_, ok := o.m[key]
	return ok
}

// Null reports whether key is in the object with a null value: on an edit,
// often the way to clear a field.
func (o Object) Null(key string) bool {
	v, ok := o.m[key]
	return ok && v == nil
}

// Require records BASE_TYPE_REQUIRED at key unless it is Present, and
// reports whether it is.
func (o Object) Require(key string) bool {
	if !o.Present(key) {
		o.errs.At(key).Add(CodeRequired, MsgRequired)
		return false
	}
	return true
}

// Str reads a string (STRING_TYPE_CONVERT otherwise). Numbers are not
// strings: the real service does not coerce them.
func (o Object) Str(key string) (string, bool) {
	v, ok := o.Value(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		o.errs.At(key).Add(CodeStringConvert, MsgNotString(v))
		return "", false
	}
	return s, true
}

// StrLen reads a string of min to max characters (code points, as the
// real service counts them); BASE_TYPE_BAD_LENGTH otherwise.
func (o Object) StrLen(key string, min, max int) (string, bool) {
	s, ok := o.Str(key)
	if !ok {
		return "", false
	}
	if n := utf8.RuneCountInString(s); n < min || n > max {
		o.errs.At(key).Add(CodeBadLength, MsgBadLength(min, max))
		return "", false
	}
	return s, true
}

// Bool reads a JSON boolean (BOOLEAN_TYPE_CONVERT otherwise; "true" and 1
// are not booleans).
func (o Object) Bool(key string) (bool, bool) {
	v, ok := o.Value(key)
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		o.errs.At(key).Add(CodeBoolConvert, MsgBoolConvert)
		return false, false
	}
	return b, true
}

// Int reads an integer as ToInt coerces it (NUMBER_TYPE_COERCE otherwise).
func (o Object) Int(key string) (int64, bool) {
	return o.IntIn(key, math.MinInt64, math.MaxInt64)
}

// IntIn reads an integer in [min, max]: see IntValue.
func (o Object) IntIn(key string, min, max int64) (int64, bool) {
	v, ok := o.Value(key)
	if !ok {
		return 0, false
	}
	return IntValue(v, min, max, o.errs.At(key))
}

// Choice reads an integer that must be one of choices: see ChoiceValue.
func (o Object) Choice(key string, choices []int) (int, bool) {
	v, ok := o.Value(key)
	if !ok {
		return 0, false
	}
	return ChoiceValue(v, choices, o.errs.At(key))
}

// List reads an array (LIST_TYPE_CONVERT otherwise).
func (o Object) List(key string) ([]any, bool) {
	v, ok := o.Value(key)
	if !ok {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		o.errs.At(key).Add(CodeListConvert, MsgListConvert)
		return nil, false
	}
	return l, true
}

// Dict reads an object as a dictionary of arbitrary keys, such as a
// localization map (DICT_TYPE_CONVERT otherwise). For an object with
// fields of its own, use AsObject.
func (o Object) Dict(key string) (map[string]any, bool) {
	v, ok := o.Value(key)
	if !ok {
		return nil, false
	}
	d, ok := v.(map[string]any)
	if !ok {
		o.errs.At(key).Add(CodeDictConvert, MsgDictConvert)
		return nil, false
	}
	return d, true
}

// Snowflake reads a snowflake: see SnowflakeValue.
func (o Object) Snowflake(key string) (snowflake.ID, bool) {
	v, ok := o.Value(key)
	if !ok {
		return 0, false
	}
	return SnowflakeValue(v, o.errs.At(key))
}

// IntList reads an array of integers, each one of allowed and checked at
// its own index. Repeats carry no meaning and are dropped (the first
// kept). ok is false if any element is invalid; the list of the valid
// ones is returned all the same.
func (o Object) IntList(key string, allowed []int) ([]int, bool) {
	l, ok := o.List(key)
	if !ok {
		return nil, false
	}
	out := make([]int, 0, len(l))
	good := true
	for i, item := range l {
		n, ok := ChoiceValue(item, allowed, o.errs.At(key, i))
		if !ok {
			good = false
			continue
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, good
}

// maxExactInt is 2^53: every integer up to it in magnitude is exact as a
// float64, so a number written as a float (1e3, 2.0) within it is taken
// for the integer it denotes.
const maxExactInt = 1 << 53

// ToInt coerces a decoded JSON value to an integer the way the real
// service does: a JSON number that is integral (3, 3.0, 3e2; as a float
// only within ±2^53) or a string of decimal digits ("3", "-3"). A string
// in float form ("3.0"), a bool or anything else is not an integer.
func ToInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= maxExactInt {
			return int64(f), true
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

// NumberText is the text of v when it is a JSON number or a string, the
// two shapes in which the real service takes a number or a snowflake
// (which may exceed a float64's exact range, hence as text).
func NumberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		return x, true
	}
	return "", false
}

// ToFloat coerces a JSON number or a numeric string to a finite float.
func ToFloat(v any) (float64, bool) {
	s, ok := NumberText(v)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// IntValue reads v as an integer (ToInt) in [min, max], recording
// NUMBER_TYPE_COERCE, NUMBER_TYPE_MIN or NUMBER_TYPE_MAX at at. It is the
// reader of list elements and of values a caller has already taken out.
func IntValue(v any, min, max int64, at *apierr.Fields) (int64, bool) {
	n, ok := ToInt(v)
	switch {
	case !ok:
		at.Add(CodeCoerce, MsgNotInt(v))
	case n < min:
		at.Add(CodeNumberMin, MsgIntMin(min))
	case n > max:
		at.Add(CodeNumberMax, MsgIntMax(max))
	default:
		return n, true
	}
	return 0, false
}

// ChoiceValue reads v as an integer (ToInt) that must be one of choices,
// recording NUMBER_TYPE_COERCE or BASE_TYPE_CHOICES at at.
func ChoiceValue(v any, choices []int, at *apierr.Fields) (int, bool) {
	n, ok := ToInt(v)
	if !ok {
		at.Add(CodeCoerce, MsgNotInt(v))
		return 0, false
	}
	// Compared as int64: on a 32-bit platform int(n) could wrap into a choice.
	if i := slices.IndexFunc(choices, func(c int) bool { return int64(c) == n }); i >= 0 {
		return choices[i], true
	}
	at.Add(CodeChoices, MsgChoicesOf(choices))
	return 0, false
}

// SnowflakeValue reads v as a snowflake, a string or a JSON number of
// decimal digits (snowflake.Parse), recording NUMBER_TYPE_COERCE at at.
// Zero is accepted: whether an id must name something is the caller's rule.
func SnowflakeValue(v any, at *apierr.Fields) (snowflake.ID, bool) {
	s, _ := NumberText(v)
	id, err := snowflake.Parse(s)
	if err != nil {
		at.Add(CodeCoerce, MsgNotSnowflake(v))
		return 0, false
	}
	return id, true
}

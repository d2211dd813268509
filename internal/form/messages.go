package form

import (
	"fmt"
	"strconv"
	"strings"
)

// Codes and messages of the generic field errors. They are the real
// service's, verbatim where its text is known; the rest follows its
// patterns (see docs/compat.md).
const (
	CodeRequired      = "BASE_TYPE_REQUIRED"
	MsgRequired       = "This field is required"
	CodeBadLength     = "BASE_TYPE_BAD_LENGTH"
	CodeMaxLength     = "BASE_TYPE_MAX_LENGTH"
	CodeMinLength     = "BASE_TYPE_MIN_LENGTH"
	CodeChoices       = "BASE_TYPE_CHOICES"
	CodeUnionChoices  = "UNION_TYPE_CHOICES"
	CodeStringConvert = "STRING_TYPE_CONVERT"
	CodeBoolConvert   = "BOOLEAN_TYPE_CONVERT"
	MsgBoolConvert    = "Must be either true or false."
	CodeCoerce        = "NUMBER_TYPE_COERCE"
	CodeNumberMax     = "NUMBER_TYPE_MAX"
	CodeNumberMin     = "NUMBER_TYPE_MIN"
	CodeListConvert   = "LIST_TYPE_CONVERT"
	MsgListConvert    = "Only iterables may be used in a ListType."
	CodeDictConvert   = "DICT_TYPE_CONVERT"
	MsgDictConvert    = "Only dictionaries may be used in a DictType."
	CodeModelConvert  = "MODEL_TYPE_CONVERT"
	MsgModelConvert   = "Expected an object/dictionary."
	CodeListItemNull  = "LIST_ITEM_VALUE_REQUIRED"
	MsgListItemNull   = "List item values of ModelType are required"
)

// MsgBadLength is the message of CodeBadLength for a length outside [min, max].
func MsgBadLength(min, max int) string {
	return fmt.Sprintf("Must be between %d and %d in length.", min, max)
}

// MsgMaxLength is the message of CodeMaxLength.
func MsgMaxLength(n int) string { return fmt.Sprintf("Must be %d or fewer in length.", n) }

// MsgMinLength is the message of CodeMinLength.
func MsgMinLength(n int) string { return fmt.Sprintf("Must be %d or more in length.", n) }

// MsgNotString is the message of CodeStringConvert for the value v.
func MsgNotString(v any) string { return fmt.Sprintf("Could not interpret %q as string.", Repr(v)) }

// MsgNotInt is the message of CodeCoerce for a value v that should be an integer.
func MsgNotInt(v any) string { return fmt.Sprintf("Value %q is not int.", Repr(v)) }

// MsgNotNumber is the message of CodeCoerce for a value v that should be a number.
func MsgNotNumber(v any) string { return fmt.Sprintf("Value %q is not a valid number.", Repr(v)) }

// MsgNotSnowflake is the message of CodeCoerce for a value v that should be a snowflake.
func MsgNotSnowflake(v any) string { return fmt.Sprintf("Value %q is not snowflake.", Repr(v)) }

// MsgIntMax is the message of CodeNumberMax for an integer above n.
func MsgIntMax(n int64) string {
	return fmt.Sprintf("int value should be less than or equal to %d.", n)
}

// MsgIntMin is the message of CodeNumberMin for an integer below n.
func MsgIntMin(n int64) string {
	return fmt.Sprintf("int value should be greater than or equal to %d.", n)
}

// MsgFloatMax is the message of CodeNumberMax for a number above f.
func MsgFloatMax(f float64) string {
	return fmt.Sprintf("float value should be less than or equal to %s.", formatFloat(f))
}

// MsgFloatMin is the message of CodeNumberMin for a number below f.
func MsgFloatMin(f float64) string {
	return fmt.Sprintf("float value should be greater than or equal to %s.", formatFloat(f))
}

// MsgChoicesOf is the message of CodeChoices: "Value must be one of (1, 2).",
// "Value must be one of ('da', 'de').", "Value must be one of (1,).".
func MsgChoicesOf[T any](values []T) string {
	return "Value must be one of " + Tuple(values) + "."
}

// MsgUnionChoices is the message of CodeUnionChoices, which the real
// service puts on the object whose field (a union's tag) names no member.
func MsgUnionChoices[T any](field string, values []T) string {
	return fmt.Sprintf("Value of field %q must be one of %s.", field, Tuple(values))
}

// Tuple renders values as the real service (Python) prints a tuple:
// strings single-quoted, and a trailing comma when there is only one.
func Tuple[T any](values []T) string {
	parts := make([]string, len(values))
	for i, v := range values {
		if s, ok := any(v).(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Repr renders a decoded JSON value the way the real service quotes an
// offending value in a message: Python's None, True and False, strings
// and numbers as written, and containers elided ("[...]", "{...}").
func Repr(v any) string {
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

// formatFloat writes f in the shortest decimal form, never an exponent:
// the bounds in messages are written out in full (9007199254740992).
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

package command

import (
	"fmt"
	"strconv"
	"strings"
)

// Error codes and messages of field errors. Where the real service's exact
// text is known it is used verbatim; the rest follows its patterns and is
// recorded in docs/compat.md.
const (
	codeRequired       = "BASE_TYPE_REQUIRED"
	msgRequired        = "This field is required"
	codeBadLength      = "BASE_TYPE_BAD_LENGTH"
	codeMaxLength      = "BASE_TYPE_MAX_LENGTH"
	codeMinLength      = "BASE_TYPE_MIN_LENGTH"
	codeChoices        = "BASE_TYPE_CHOICES"
	codeUnionChoices   = "UNION_TYPE_CHOICES"
	codeStringConvert  = "STRING_TYPE_CONVERT"
	codeBoolConvert    = "BOOLEAN_TYPE_CONVERT"
	msgBoolConvert     = "Must be either true or false."
	codeCoerce         = "NUMBER_TYPE_COERCE"
	codeNumberMax      = "NUMBER_TYPE_MAX"
	codeNumberMin      = "NUMBER_TYPE_MIN"
	codeListConvert    = "LIST_TYPE_CONVERT"
	msgListConvert     = "Only iterables may be used in a ListType."
	codeDictConvert    = "DICT_TYPE_CONVERT"
	msgDictConvert     = "Only dictionaries may be used in a DictType."
	codeModelConvert   = "MODEL_TYPE_CONVERT"
	msgModelConvert    = "Expected an object/dictionary."
	codeListItemNull   = "LIST_ITEM_VALUE_REQUIRED"
	msgListItemNull    = "List item values of ModelType are required"
	codeInvalidName    = "APPLICATION_COMMAND_INVALID_NAME"
	msgInvalidName     = "Command name is invalid"
	codeDuplicateName  = "APPLICATION_COMMANDS_DUPLICATE_NAME"
	msgDuplicateName   = "Application command names must be unique"
	codeRequiredOrder  = "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID"
	msgRequiredOrder   = "Required options must be placed before non-required options"
	codeTooLarge       = "APPLICATION_COMMAND_TOO_LARGE"
	msgTooLarge        = "Command exceeds maximum size (8000)"
	codeOptionNameDup  = "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS"
	msgOptionNameDup   = "Command name is already used in this options"
	codeLocalizedDup   = "APPLICATION_COMMAND_OPTIONS_NAME_LOCALIZATION_ALREADY_EXISTS"
	codeOptionTypeMix  = "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID"
	msgOptionTypeMix   = "Sub-command and sub-command group option types are mutually exclusive to all other types"
	codeAutocomplete   = "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID"
	msgAutocompleteTyp = "Autocomplete cannot be configured for this type of option"
	msgAutocompleteCh  = "Autocomplete and choices are mutually exclusive"
	codeChoicesInvalid = "APPLICATION_COMMAND_CHOICES_INVALID"
	msgChoicesInvalid  = "Choices cannot be configured for this type of option"
	codeChannelTypes   = "APPLICATION_COMMAND_CHANNEL_TYPES_INVALID"
	msgChannelTypes    = "Channel types cannot be configured for this type of option"
	codeValueRange     = "APPLICATION_COMMAND_VALUE_RANGE_INVALID"
	msgValueRange      = "Minimum and maximum values cannot be configured for this type of option"
	codeLengthRange    = "APPLICATION_COMMAND_LENGTH_RANGE_INVALID"
	msgLengthRange     = "Minimum and maximum lengths cannot be configured for this type of option"
	codeRequiredType   = "APPLICATION_COMMAND_REQUIRED_INVALID"
	msgRequiredType    = "Required cannot be configured for this type of option"
	codeSubOptions     = "APPLICATION_COMMAND_SUB_OPTIONS_INVALID"
	msgSubOptions      = "Sub-options cannot be configured for this type of option"
	codeMinGreaterMax  = "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID"
	msgMinValueMax     = "Minimum value must be less than or equal to maximum value"
	msgMinLengthMax    = "Minimum length must be less than or equal to maximum length"
	codeDescContext    = "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID"
	msgDescContext     = "Context menu commands cannot have description"
	codeOptsContext    = "APPLICATION_COMMAND_CONTEXT_MENU_OPTIONS_INVALID"
	msgOptsContext     = "Context menu commands cannot have options"
	codeOptsEntryPoint = "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_OPTIONS_INVALID"
	msgOptsEntryPoint  = "Primary entry point commands cannot have options"
	codeEntryGuild     = "APPLICATION_COMMAND_PRIMARY_ENTRY_POINT_GUILD_INVALID"
	msgEntryGuild      = "Primary entry point commands cannot be guild commands"
	codeHandlerType    = "APPLICATION_COMMAND_HANDLER_INVALID"
	msgHandlerType     = "Handler can only be set on primary entry point commands"
	msgHandlerEmbedded = "Handler can only be set by applications with an Activity (EMBEDDED flag)"
	codeIntegration    = "APPLICATION_COMMAND_INTEGRATION_TYPE_INVALID"
	msgIntegration     = "Integration type is not supported by the application"
	codeChoiceValue    = "APPLICATION_COMMAND_OPTION_CHOICE_VALUE_INVALID"
)

func msgBadLength(min, max int) string {
	return fmt.Sprintf("Must be between %d and %d in length.", min, max)
}

func msgMaxLength(n int) string { return fmt.Sprintf("Must be %d or fewer in length.", n) }

func msgMinLength(n int) string { return fmt.Sprintf("Must be %d or more in length.", n) }

func msgNotString(v any) string { return fmt.Sprintf("Could not interpret %q as string.", repr(v)) }

func msgNotInt(v any) string { return fmt.Sprintf("Value %q is not int.", repr(v)) }

func msgNotNumber(v any) string { return fmt.Sprintf("Value %q is not a valid number.", repr(v)) }

func msgNotSnowflake(v any) string { return fmt.Sprintf("Value %q is not snowflake.", repr(v)) }

func msgIntMax(n int64) string {
	return fmt.Sprintf("int value should be less than or equal to %d.", n)
}

func msgIntMin(n int64) string {
	return fmt.Sprintf("int value should be greater than or equal to %d.", n)
}

func msgFloatMax(n float64) string {
	return fmt.Sprintf("float value should be less than or equal to %s.", fmtFloat(n))
}

func msgFloatMin(n float64) string {
	return fmt.Sprintf("float value should be greater than or equal to %s.", fmtFloat(n))
}

func msgLocalizedDup(locale string) string {
	return fmt.Sprintf("Localized option names must be unique and distinct from default option names (%s)", locale)
}

// msgChoicesOf renders the enum message in the real service's Python tuple
// form: "Value must be one of (1, 2, 3, 4).", "('da', 'de')", "(1,)".
func msgChoicesOf[T any](values []T) string {
	return "Value must be one of " + tuple(values) + "."
}

func msgUnionChoices[T any](field string, values []T) string {
	return fmt.Sprintf("Value of field %q must be one of %s.", field, tuple(values))
}

func tuple[T any](values []T) string {
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

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// repr renders a decoded JSON value the way the real service (Python)
// quotes offending values in messages.
func repr(v any) string {
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

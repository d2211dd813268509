package interaction

// Codes and messages of the field errors that belong to invoking a
// command. The real service's text is used where it is known
// (INTERACTION_APPLICATION_COMMAND_INVALID_VERSION); the rest follows its
// naming pattern and is recorded in the decision list of doc.go.
const (
	CodeInvalidVersion = "INTERACTION_APPLICATION_COMMAND_INVALID_VERSION"
	MsgInvalidVersion  = "This command is outdated, please try again in a few minutes"

	CodeCommandInvalid = "INTERACTION_APPLICATION_COMMAND_INVALID"
	MsgIDMismatch      = "Application command id does not match"
	MsgAppMismatch     = "Application command does not belong to this application"
	MsgGuildMismatch   = "Application command does not belong to this guild"
	MsgNameMismatch    = "Application command name does not match"
	MsgTypeMismatch    = "Application command type does not match"
	MsgAutocompleteCmd = "Autocomplete is only available for chat input commands"

	CodeOptionUnknown  = "INTERACTION_APPLICATION_COMMAND_OPTION_UNKNOWN"
	MsgOptionUnknown   = "Unknown option"
	CodeOptionDup      = "INTERACTION_APPLICATION_COMMAND_OPTION_DUPLICATE"
	MsgOptionDup       = "Option names must be unique"
	CodeOptionType     = "INTERACTION_APPLICATION_COMMAND_OPTION_TYPE_INVALID"
	MsgOptionType      = "Option type does not match the command definition"
	CodeOptionRequired = "INTERACTION_APPLICATION_COMMAND_OPTION_REQUIRED"
	MsgSubRequired     = "A sub-command or sub-command group is required"
	CodeOptionInvalid  = "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID"
	MsgSubValue        = "Sub-commands and sub-command groups cannot have a value"
	MsgValueOptions    = "Only sub-commands and sub-command groups can have options"
	MsgTooDeep         = "Options are nested too deeply"
	MsgFocusedType2    = "Only autocomplete interactions can have a focused option"
	MsgFocusedCount    = "Exactly one option must be focused"
	MsgFocusedNotAuto  = "Autocomplete is not enabled for this option"
	MsgContextOptions  = "Context menu commands cannot have options"
	MsgEntryOptions    = "Primary entry point commands cannot have options"
	MsgTargetChatInput = "Only user and message commands have a target"

	// Ids an option or the target names that the world does not hold (or
	// the invoker cannot see) are CodeOptionInvalid at the value.
	MsgUnknownUser        = "Unknown user"
	MsgUnknownRole        = "Unknown role"
	MsgUnknownMentionable = "Unknown user or role"
	MsgUnknownChannel     = "Unknown channel"
	MsgUnknownMessage     = "Unknown message"
	MsgUnknownAttachment  = "Unknown attachment"
	MsgChannelType        = "Channel type is not allowed for this option"
)

// MsgOptionRequired is the message of CodeOptionRequired for a missing option.
func MsgOptionRequired(name string) string { return "Option \"" + name + "\" is required" }

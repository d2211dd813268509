package slashdtest

import "strconv"

// A CommandOption is an option value a member fills in when invoking a
// chat input command: make one with String, Int, Number, Bool, User,
// Channel, Role or Mentionable, nest them in Subcommand and Group, and
// mark the one being typed in with Focused for Autocomplete. Its name and
// type must match the command's definition; slashd checks them as the
// real service does.
type CommandOption struct {
	name    string
	typ     int
	value   any // nil for subcommands and groups
	focused bool
	options []CommandOption
}

// Option types, as in the command definition.
const (
	typeSubcommand      = 1
	typeSubcommandGroup = 2
	typeString          = 3
	typeInteger         = 4
	typeBoolean         = 5
	typeUser            = 6
	typeChannel         = 7
	typeRole            = 8
	typeMentionable     = 9
	typeNumber          = 10
)

// String is a STRING option.
func String(name, value string) CommandOption {
	return CommandOption{name: name, typ: typeString, value: value}
}

// Int is an INTEGER option.
func Int(name string, value int64) CommandOption {
	return CommandOption{name: name, typ: typeInteger, value: value}
}

// Number is a NUMBER option.
func Number(name string, value float64) CommandOption {
	return CommandOption{name: name, typ: typeNumber, value: value}
}

// Bool is a BOOLEAN option.
func Bool(name string, value bool) CommandOption {
	return CommandOption{name: name, typ: typeBoolean, value: value}
}

// User is a USER option naming a user (Member.ID); the app finds the
// user, and their membership, in the interaction's resolved data.
func User(name, userID string) CommandOption {
	return CommandOption{name: name, typ: typeUser, value: userID}
}

// Channel is a CHANNEL option naming a channel of the guild.
func Channel(name, channelID string) CommandOption {
	return CommandOption{name: name, typ: typeChannel, value: channelID}
}

// Role is a ROLE option naming a role of the guild.
func Role(name, roleID string) CommandOption {
	return CommandOption{name: name, typ: typeRole, value: roleID}
}

// Mentionable is a MENTIONABLE option naming a user or a role.
func Mentionable(name, id string) CommandOption {
	return CommandOption{name: name, typ: typeMentionable, value: id}
}

// Subcommand invokes the subcommand name with options.
func Subcommand(name string, options ...CommandOption) CommandOption {
	return CommandOption{name: name, typ: typeSubcommand, options: options}
}

// Group invokes a subcommand of the subcommand group name:
// Group("config", Subcommand("set", String("key", "k"))).
func Group(name string, subcommand CommandOption) CommandOption {
	return CommandOption{name: name, typ: typeSubcommandGroup, options: []CommandOption{subcommand}}
}

// Focused marks opt as the option the member is typing in, for
// Autocomplete; its value is what they typed so far.
func Focused(opt CommandOption) CommandOption {
	opt.focused = true
	return opt
}

// wire is the option as a client sends it. In an autocomplete
// interaction every INTEGER and NUMBER value is the text typed, a string.
func (o CommandOption) wire(autocomplete bool) map[string]any {
	m := map[string]any{"name": o.name, "type": o.typ}
	switch v := o.value.(type) {
	case nil:
	case int64:
		if autocomplete {
			m["value"] = strconv.FormatInt(v, 10)
		} else {
			m["value"] = v
		}
	case float64:
		if autocomplete {
			m["value"] = strconv.FormatFloat(v, 'g', -1, 64)
		} else {
			m["value"] = v
		}
	default:
		m["value"] = v
	}
	if o.focused {
		m["focused"] = true
	}
	if len(o.options) > 0 {
		m["options"] = wireOptions(o.options, autocomplete)
	}
	return m
}

func wireOptions(opts []CommandOption, autocomplete bool) []map[string]any {
	out := make([]map[string]any, len(opts))
	for i, o := range opts {
		out[i] = o.wire(autocomplete)
	}
	return out
}

// countFocused is how many options of the tree are focused.
func countFocused(opts []CommandOption) int {
	n := 0
	for _, o := range opts {
		if o.focused {
			n++
		}
		n += countFocused(o.options)
	}
	return n
}

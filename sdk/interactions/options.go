package interactions

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// OptionType is a command option's "type".
type OptionType int

// Option types.
const (
	OptionSubcommand      OptionType = 1
	OptionSubcommandGroup OptionType = 2
	OptionString          OptionType = 3
	OptionInteger         OptionType = 4
	OptionBoolean         OptionType = 5
	OptionUser            OptionType = 6
	OptionChannel         OptionType = 7
	OptionRole            OptionType = 8
	OptionMentionable     OptionType = 9
	OptionNumber          OptionType = 10
	OptionAttachment      OptionType = 11
)

// Option is one entry of an interaction's options. Subcommands and groups
// carry Options and no Value; the other types carry Value (raw JSON) and
// no Options. Read Value with the typed accessors.
type Option struct {
	Name    string          `json:"name"`
	Type    OptionType      `json:"type"`
	Value   json.RawMessage `json:"value,omitempty"`
	Options []Option        `json:"options,omitempty"`
	// Focused marks the option being typed in an autocomplete interaction.
	Focused bool `json:"focused,omitempty"`
}

// SubcommandPath returns the names of the subcommand group and subcommand
// that were invoked: nil for a command without subcommands, [sub] or
// [group, sub].
func (d *CommandData) SubcommandPath() []string {
	if d == nil {
		return nil
	}
	var path []string
	opts := d.Options
	for len(opts) == 1 && (opts[0].Type == OptionSubcommandGroup || opts[0].Type == OptionSubcommand) {
		path = append(path, opts[0].Name)
		opts = opts[0].Options
	}
	return path
}

// Values returns the options given to the invoked (sub)command: the
// options below SubcommandPath.
func (d *CommandData) Values() []Option {
	if d == nil {
		return nil
	}
	opts := d.Options
	for len(opts) == 1 && (opts[0].Type == OptionSubcommandGroup || opts[0].Type == OptionSubcommand) {
		opts = opts[0].Options
	}
	return opts
}

// Option returns the option called name among the options of the invoked
// (sub)command (see Values). Options the user left out are absent.
func (d *CommandData) Option(name string) (Option, bool) {
	for _, o := range d.Values() {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// Focused returns the option being typed in an autocomplete interaction.
func (d *CommandData) Focused() (Option, bool) {
	for _, o := range d.Values() {
		if o.Focused {
			return o, true
		}
	}
	return Option{}, false
}

// String returns the value when it is a JSON string: STRING options,
// snowflakes of USER/CHANNEL/ROLE/MENTIONABLE/ATTACHMENT options, and the
// raw text of INTEGER and NUMBER options in autocomplete interactions.
func (o Option) String() (string, bool) {
	if len(o.Value) == 0 || o.Value[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(o.Value, &s); err != nil {
		return "", false
	}
	return s, true
}

// number returns the value's text when it is a JSON number or, for
// autocomplete, a string (trimmed); ok is false otherwise.
func (o Option) number() (string, bool) {
	v := bytes.TrimSpace(o.Value)
	if len(v) == 0 {
		return "", false
	}
	if v[0] == '"' {
		s, ok := o.String()
		return strings.TrimSpace(s), ok
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return "", false
	}
	return n.String(), true
}

// Int returns an INTEGER option's value. It accepts a JSON number without
// fraction or exponent (APPLICATION_COMMAND) or a string holding a decimal
// integer (AUTOCOMPLETE, where the user may have typed only part of it:
// "" and "-" give false).
func (o Option) Int() (int64, bool) {
	s, ok := o.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// Float returns a NUMBER (or INTEGER) option's value: a JSON number, or a
// string holding a finite decimal number (AUTOCOMPLETE).
func (o Option) Float() (float64, bool) {
	s, ok := o.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// Bool returns a BOOLEAN option's value.
func (o Option) Bool() (bool, bool) {
	switch string(bytes.TrimSpace(o.Value)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Snowflake returns the ID held by a USER, CHANNEL, ROLE, MENTIONABLE or
// ATTACHMENT option: a string of decimal digits that fits in 64 bits.
// Look the entity up in CommandData.Resolved.
func (o Option) Snowflake() (string, bool) {
	s, ok := o.String()
	if !ok {
		return "", false
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return "", false
	}
	return s, true
}

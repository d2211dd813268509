package slashline

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
)

// Invocation is what to send to POST /interactions (type 2) to run the
// command a line names.
type Invocation struct {
	ApplicationID snowflake.ID
	Data          Data
}

// Data is the interaction's data.
type Data struct {
	ID      snowflake.ID  `json:"id"`
	Name    string        `json:"name"`
	Type    command.Type  `json:"type"`
	Version snowflake.ID  `json:"version"`
	Options []OptionValue `json:"options,omitempty"`
}

// OptionValue is an option of the interaction's data: a value, or a
// subcommand or group with its options.
type OptionValue struct {
	Name    string             `json:"name"`
	Type    command.OptionType `json:"type"`
	Value   any                `json:"value,omitempty"` // string, int64, float64, bool; ids as strings
	Options []OptionValue      `json:"options,omitempty"`
}

// Filter narrows which of the index's commands a line may name.
type Filter struct {
	// App, when not zero, keeps to that application's commands.
	App snowflake.ID
	// Global picks an application's global command where it also has a
	// guild command of the name here (by default the guild command runs).
	Global bool
}

// Resolve finds the command l names among cmds, the commands a member
// may use in a channel (the command picker's index), and types l's
// options by the command's definitions. Names match a command's or
// option's name, or its name in the member's locale (name_localized); the
// interaction carries the default names.
//
// An application may have a guild command and a global command of one
// name, and the picker lists both (the real client shows both). A line
// names one command, so of the two the guild command is taken unless
// f.Global: the narrower scope, as a guild copy is how libraries teach
// trying a change before it goes global (discord.py's copy_global_to),
// and as discord.py finds the command an interaction names, the guild's
// first. The interaction carries that command's id, so the service runs
// exactly it.
//
// Chat input commands and entry points are found; user and message
// commands are not typed with a slash. Required options, lengths, ranges
// and choices are left for the service to check, so its answer says what
// is wrong as it says it to any client.
func Resolve(l Line, cmds []command.ListItem, f Filter) (Invocation, error) {
	if len(l.Words) == 0 {
		return Invocation{}, fmt.Errorf("no command")
	}
	name := l.Words[0]
	var found []*command.ListItem
	var other *command.ListItem
	for i := range cmds {
		c := &cmds[i]
		if f.App != 0 && c.ApplicationID != f.App {
			continue
		}
		if !matches(c.Name, c.NameLocalized, name) {
			continue
		}
		if c.Type == command.ChatInput || c.Type == command.PrimaryEntryPoint {
			found = append(found, c)
		} else {
			other = c
		}
	}
	found, err := oneScope(found, name, f.Global)
	if err != nil {
		return Invocation{}, err
	}
	switch {
	case len(found) == 0 && other != nil:
		kind := "a user command (from a member's menu)"
		if other.Type == command.Message {
			kind = "a message command (from a message's menu)"
		}
		return Invocation{}, fmt.Errorf("%s is %s, not a slash command", name, kind)
	case len(found) == 0:
		return Invocation{}, fmt.Errorf("no command /%s here%s", name, available(cmds, f.App))
	case len(found) > 1:
		apps := make([]string, len(found))
		for i, c := range found {
			apps[i] = c.ApplicationID.String()
		}
		return Invocation{}, fmt.Errorf("/%s is a command of several applications (%s): choose one with --app", name, strings.Join(apps, ", "))
	}
	c := found[0]
	inv := Invocation{ApplicationID: c.ApplicationID, Data: Data{ID: c.ID, Name: c.Name, Type: c.Type, Version: c.Version}}
	path := "/" + c.Name
	level := c.Options
	var wrap []command.ListOption // the group and subcommand, outermost first
	for _, w := range l.Words[1:] {
		subs := subcommands(level)
		if len(subs) == 0 {
			return Invocation{}, fmt.Errorf("%s has no subcommand %q (options are written name:value)", path, w)
		}
		i := slices.IndexFunc(subs, func(o command.ListOption) bool { return matches(o.Name, o.NameLocalized, w) })
		if i < 0 {
			return Invocation{}, fmt.Errorf("%s has no subcommand %q (it has %s)", path, w, names(subs))
		}
		wrap = append(wrap, subs[i])
		path += " " + subs[i].Name
		level = subs[i].Options
	}
	if subs := subcommands(level); len(subs) > 0 {
		return Invocation{}, fmt.Errorf("%s needs a subcommand: %s", path, names(subs))
	}
	if c.Type == command.PrimaryEntryPoint && len(l.Args) > 0 {
		return Invocation{}, fmt.Errorf("%s is an entry point: it takes no options", path)
	}
	values := make([]OptionValue, 0, len(l.Args))
	seen := map[string]bool{}
	for _, a := range l.Args {
		i := slices.IndexFunc(level, func(o command.ListOption) bool { return matches(o.Name, o.NameLocalized, a.Name) })
		if i < 0 {
			if len(level) == 0 {
				return Invocation{}, fmt.Errorf("%s takes no options (%s given)", path, a.Name)
			}
			return Invocation{}, fmt.Errorf("%s has no option %s (it has %s)", path, a.Name, names(level))
		}
		def := level[i]
		if seen[def.Name] {
			return Invocation{}, fmt.Errorf("option %s is given twice", def.Name)
		}
		seen[def.Name] = true
		v, err := typed(def, a.Value)
		if err != nil {
			return Invocation{}, fmt.Errorf("option %s: %w", def.Name, err)
		}
		values = append(values, OptionValue{Name: def.Name, Type: def.Type, Value: v})
	}
	for i := len(wrap) - 1; i >= 0; i-- {
		values = []OptionValue{{Name: wrap[i].Name, Type: wrap[i].Type, Options: values}}
	}
	if len(values) > 0 {
		inv.Data.Options = values
	}
	return inv, nil
}

// oneScope keeps, for each application with a guild command and a global
// command among found, the guild command, or with global every global
// command and no guild command.
func oneScope(found []*command.ListItem, name string, global bool) ([]*command.ListItem, error) {
	guildCmd := map[snowflake.ID]bool{}
	for _, c := range found {
		if c.GuildID != 0 {
			guildCmd[c.ApplicationID] = true
		}
	}
	out := found[:0:0]
	for _, c := range found {
		if (global && c.GuildID != 0) || (!global && c.GuildID == 0 && guildCmd[c.ApplicationID]) {
			continue
		}
		out = append(out, c)
	}
	if global && len(out) == 0 && len(found) > 0 {
		return nil, fmt.Errorf("/%s is a guild command only here: leave out --global", name)
	}
	return out, nil
}

// matches reports whether typed names a thing called name (or
// localized, in the member's locale).
func matches(name string, localized *string, typed string) bool {
	return typed == name || (localized != nil && typed == *localized)
}

func subcommands(level []command.ListOption) []command.ListOption {
	var out []command.ListOption
	for _, o := range level {
		if o.Type.IsSub() {
			out = append(out, o)
		}
	}
	return out
}

func names(opts []command.ListOption) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Name
	}
	return strings.Join(out, ", ")
}

// available lists the slash commands there are, for an error message.
func available(cmds []command.ListItem, app snowflake.ID) string {
	var out []string
	for _, c := range cmds {
		if (app == 0 || c.ApplicationID == app) && (c.Type == command.ChatInput || c.Type == command.PrimaryEntryPoint) {
			out = append(out, "/"+c.Name)
		}
	}
	if len(out) == 0 {
		return " (the member may use no slash command here)"
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return " (there are " + strings.Join(out, ", ") + ")"
}

// decimal is a NUMBER as a person writes it: no hexadecimal, no
// infinities, no NaN.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// typed converts a value as typed to the JSON value of an option of
// def's type.
func typed(def command.ListOption, v string) (any, error) {
	switch def.Type {
	case command.String:
		if c, ok := choiceNamed(def.Choices, v, func(x any) bool { s, ok := x.(string); return ok && s == v }); ok {
			return c.Value, nil
		}
		return v, nil
	case command.Integer:
		n, err := strconv.ParseInt(v, 10, 64)
		if err == nil {
			return n, nil
		}
		if c, ok := choiceNamed(def.Choices, v, nil); ok {
			if f, ok := c.Value.(float64); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<63 {
				return int64(f), nil
			}
		}
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%q is out of range for an integer", v)
		}
		return nil, fmt.Errorf("%q is not an integer%s", v, choiceHint(def.Choices))
	case command.Number:
		if decimal.MatchString(v) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%q is out of range for a number", v)
			}
			return f, nil
		}
		if c, ok := choiceNamed(def.Choices, v, nil); ok {
			if f, ok := c.Value.(float64); ok {
				return f, nil
			}
		}
		return nil, fmt.Errorf("%q is not a number%s", v, choiceHint(def.Choices))
	case command.Boolean:
		switch {
		case strings.EqualFold(v, "true"):
			return true, nil
		case strings.EqualFold(v, "false"):
			return false, nil
		}
		return nil, fmt.Errorf("%q is not true or false", v)
	case command.UserOption:
		return mention(v, "a user", "<@!", "<@")
	case command.Channel:
		return mention(v, "a channel", "<#")
	case command.Role:
		return mention(v, "a role", "<@&")
	case command.Mentionable:
		return mention(v, "a user or a role", "<@&", "<@!", "<@")
	case command.Attachment:
		return nil, ErrAttachment
	}
	return nil, fmt.Errorf("options of type %d cannot be given", def.Type)
}

// choiceNamed finds the choice called v (by name or localized name),
// unless is says v is a choice's value itself.
func choiceNamed(choices []command.ListChoice, v string, is func(any) bool) (command.ListChoice, bool) {
	if is != nil && slices.ContainsFunc(choices, func(c command.ListChoice) bool { return is(c.Value) }) {
		return command.ListChoice{}, false
	}
	i := slices.IndexFunc(choices, func(c command.ListChoice) bool { return matches(c.Name, c.NameLocalized, v) })
	if i < 0 {
		return command.ListChoice{}, false
	}
	return choices[i], true
}

func choiceHint(choices []command.ListChoice) string {
	if len(choices) == 0 {
		return ""
	}
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = c.Name
	}
	return " or a choice (" + strings.Join(out, ", ") + ")"
}

// mention reads an id, bare or in one of the mention forms (<@id>, …),
// as a snowflake string.
func mention(v, what string, forms ...string) (any, error) {
	id := v
	for _, f := range forms {
		if strings.HasPrefix(v, f) && strings.HasSuffix(v, ">") && len(v) > len(f)+1 {
			id = v[len(f) : len(v)-1]
			break
		}
	}
	if n, err := snowflake.Parse(id); err != nil || n == 0 {
		return nil, fmt.Errorf("%q is not %s: write its id, or %s", v, what, mentionForms(forms))
	}
	return id, nil
}

func mentionForms(forms []string) string {
	out := make([]string, len(forms))
	for i, f := range forms {
		out[i] = f + "id>"
	}
	return strings.Join(out, " or ")
}

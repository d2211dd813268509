package interaction

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// Value is one option of the normalized tree, shaped as the interaction
// data's options (api-facts §5). Value is a string, int64, float64, bool
// or snowflake.ID (rendered as a string); in an autocomplete interaction
// INTEGER and NUMBER values stay the strings the client sent.
//
// Options is non-nil on every SUB_COMMAND and SUB_COMMAND_GROUP value and
// nil on the others: omitzero writes "options": [] for a subcommand
// without options, as the real service does (Oceanic.js's
// getSubCommand(true) needs it), and nothing for a plain value.
type Value struct {
	Name    string             `json:"name"`
	Type    command.OptionType `json:"type"`
	Value   any                `json:"value,omitempty"`
	Options []Value            `json:"options,omitzero"`
	Focused bool               `json:"focused,omitempty"`
}

// Ref is an id an option names, which the caller resolves against the
// world (users, members, roles, channels, attachments).
type Ref struct {
	Option       string             // the option's name (unique on the invoked path)
	Type         command.OptionType // USER, CHANNEL, ROLE, MENTIONABLE or ATTACHMENT
	ID           snowflake.ID
	ChannelTypes []int // CHANNEL options: the allowed channel types (empty: any)
	// Path is where the value sits in the body, for field errors about the
	// id: "data", "options", 0, …, "value".
	Path []any
}

// Resolved is the outcome of Validate.
type Resolved struct {
	Options  []Value  // normalized option tree
	Path     []string // invoked group and/or subcommand names, outermost first
	Focused  string   // autocomplete: name of the focused option
	Refs     []Ref    // ids to resolve, in option order
	TargetID snowflake.ID
}

// Validate checks inv against the stored definition cmd (the one data.id
// names) and returns the normalized options and what must be resolved.
// The error is the 50035 Invalid Form Body *apierr.Error.
func Validate(inv Invocation, cmd command.Command) (Resolved, error) {
	var r Resolved
	errs := &apierr.Fields{}
	data := errs.At("data")
	if inv.Type != ApplicationCommand && inv.Type != Autocomplete {
		errs.At("type").Add(form.CodeChoices, form.MsgChoicesOf([]int{int(ApplicationCommand), int(Autocomplete)}))
		return r, errs.Err()
	}
	if inv.Data.ID != cmd.ID {
		data.At("id").Add(CodeCommandInvalid, MsgIDMismatch)
	}
	if inv.ApplicationID != cmd.ApplicationID {
		errs.At("application_id").Add(CodeCommandInvalid, MsgAppMismatch)
	}
	if cmd.GuildID != 0 && inv.GuildID != cmd.GuildID {
		errs.At("guild_id").Add(CodeCommandInvalid, MsgGuildMismatch)
	}
	if inv.Data.Name != cmd.Name {
		data.At("name").Add(CodeCommandInvalid, MsgNameMismatch)
	}
	if inv.Data.Type != cmd.Type {
		data.At("type").Add(CodeCommandInvalid, MsgTypeMismatch)
	}
	if !errs.Empty() {
		return r, errs.Err()
	}
	if inv.Type == Autocomplete && cmd.Type != command.ChatInput {
		data.At("type").Add(CodeCommandInvalid, MsgAutocompleteCmd)
		return r, errs.Err()
	}
	switch cmd.Type {
	case command.User, command.Message:
		if len(inv.Data.Options) > 0 {
			data.At("options").Add(CodeOptionInvalid, MsgContextOptions)
		}
		if inv.Data.TargetID == 0 {
			data.At("target_id").Add(form.CodeRequired, form.MsgRequired)
		}
		r.TargetID = inv.Data.TargetID
		return r, errs.Err()
	case command.PrimaryEntryPoint:
		if len(inv.Data.Options) > 0 {
			data.At("options").Add(CodeOptionInvalid, MsgEntryOptions)
		}
		if inv.Data.TargetID != 0 {
			data.At("target_id").Add(CodeOptionInvalid, MsgTargetChatInput)
		}
		return r, errs.Err()
	case command.ChatInput:
	default:
		data.At("type").Add(CodeCommandInvalid, MsgTypeMismatch)
		return r, errs.Err()
	}
	if inv.Data.TargetID != 0 {
		data.At("target_id").Add(CodeOptionInvalid, MsgTargetChatInput)
	}
	v := validator{it: inv.Type, r: &r}
	r.Options = v.level(inv.Data.Options, cmd.Options, data.At("options"), []any{"data", "options"})
	if inv.Type == Autocomplete && v.focused == 0 {
		data.At("options").Add(CodeOptionInvalid, MsgFocusedCount)
	}
	if err := errs.Err(); err != nil {
		return Resolved{}, err
	}
	return r, nil
}

type validator struct {
	it      Type
	r       *Resolved
	focused int
}

func hasSubs(defs []command.Option) bool {
	for _, d := range defs {
		if d.Type.IsSub() {
			return true
		}
	}
	return false
}

func findDef(defs []command.Option, name string) (command.Option, bool) {
	for _, d := range defs {
		if d.Name == name {
			return d, true
		}
	}
	return command.Option{}, false
}

// level validates one options array against the definitions of its level;
// at is the array's error node.
// path is the array's place in the body; its depth counts nesting.
func (v *validator) level(opts []InputOption, defs []command.Option, at *apierr.Fields, path []any) []Value {
	depth := len(path) / 2
	subs := hasSubs(defs)
	if subs {
		switch {
		case len(opts) == 0:
			at.Add(CodeOptionRequired, MsgSubRequired)
		case len(opts) > 1:
			at.Add(form.CodeMaxLength, form.MsgMaxLength(1))
		}
	}
	out := make([]Value, 0, len(opts))
	seen := make(map[string]bool, len(opts))
	for i, o := range opts {
		oat := at.At(i)
		if seen[o.Name] {
			oat.At("name").Add(CodeOptionDup, MsgOptionDup)
			continue
		}
		seen[o.Name] = true
		def, ok := findDef(defs, o.Name)
		if !ok {
			oat.At("name").Add(CodeOptionUnknown, MsgOptionUnknown)
			continue
		}
		if o.Type != def.Type {
			oat.At("type").Add(CodeOptionType, MsgOptionType)
			continue
		}
		if o.Focused {
			v.focus(o, def, oat)
		}
		if def.Type.IsSub() {
			if o.Value != nil {
				oat.At("value").Add(CodeOptionInvalid, MsgSubValue)
				continue
			}
			if depth >= maxDepth {
				oat.At("options").Add(CodeOptionInvalid, MsgTooDeep)
				continue
			}
			v.r.Path = append(v.r.Path, def.Name)
			sub := v.level(o.Options, def.Options, oat.At("options"), append(path[:len(path):len(path)], i, "options"))
			out = append(out, Value{Name: def.Name, Type: def.Type, Options: sub})
			continue
		}
		if len(o.Options) > 0 {
			oat.At("options").Add(CodeOptionInvalid, MsgValueOptions)
			continue
		}
		if o.Value == nil {
			oat.At("value").Add(form.CodeRequired, form.MsgRequired)
			continue
		}
		val, ok := v.value(o, def, oat.At("value"), append(path[:len(path):len(path)], i, "value"))
		if !ok {
			continue
		}
		out = append(out, Value{Name: def.Name, Type: def.Type, Value: val, Focused: o.Focused && v.it == Autocomplete})
	}
	if !subs && v.it == ApplicationCommand {
		for _, d := range defs {
			if d.Required && !seen[d.Name] {
				at.Add(CodeOptionRequired, MsgOptionRequired(d.Name))
			}
		}
	}
	return out
}

// focus applies the focused-option rules to o, whose focused flag is set.
func (v *validator) focus(o InputOption, def command.Option, at *apierr.Fields) {
	switch {
	case v.it != Autocomplete:
		at.At("focused").Add(CodeOptionInvalid, MsgFocusedType2)
	case v.focused > 0:
		at.At("focused").Add(CodeOptionInvalid, MsgFocusedCount)
	case !def.Autocomplete || def.Type.IsSub():
		at.At("focused").Add(CodeOptionInvalid, MsgFocusedNotAuto)
	default:
		v.focused++
		v.r.Focused = def.Name
		return
	}
	if v.it == Autocomplete {
		v.focused++
	}
}

var (
	partialInt   = regexp.MustCompile(`^-?[0-9]*$`)
	fullInt      = regexp.MustCompile(`^-?[0-9]+$`)
	partialFloat = regexp.MustCompile(`^-?[0-9]*\.?[0-9]*$`)
	fullFloat    = regexp.MustCompile(`^-?([0-9]+\.?[0-9]*|\.[0-9]+)$`)
	hasDigit     = regexp.MustCompile(`[0-9]`)
)

// value checks and normalizes the value of a value option.
func (v *validator) value(o InputOption, def command.Option, at *apierr.Fields, path []any) (any, bool) {
	if !checkJSONType(def.Type, v.it, o.Value, at) {
		return nil, false
	}
	partial := o.Focused && v.it == Autocomplete
	switch def.Type {
	case command.String:
		s := o.Value.(string)
		if !checkLength(s, def, partial, at) {
			return nil, false
		}
		if !partial && len(def.Choices) > 0 && !inChoices(def, s, 0) {
			at.Add(form.CodeChoices, form.MsgChoicesOf(choiceValues(def)))
			return nil, false
		}
		return s, true
	case command.Integer, command.Number:
		return v.number(o, def, partial, at)
	case command.Boolean:
		return o.Value.(bool), true
	default: // snowflake types
		id, _ := form.SnowflakeValue(o.Value, at)
		v.r.Refs = append(v.r.Refs, Ref{Option: def.Name, Type: def.Type, ID: id, ChannelTypes: def.ChannelTypes, Path: path})
		return id, true
	}
}

func checkLength(s string, def command.Option, partial bool, at *apierr.Fields) bool {
	n := utf8.RuneCountInString(s)
	lo, hi := 0, command.MaxStringLength
	if def.MinLength != nil && !partial {
		lo = *def.MinLength
	}
	if def.MaxLength != nil {
		hi = *def.MaxLength
	}
	if n >= lo && n <= hi {
		return true
	}
	switch {
	case def.MinLength != nil && def.MaxLength != nil && !partial:
		at.Add(form.CodeBadLength, form.MsgBadLength(lo, hi))
	case n < lo:
		at.Add(form.CodeMinLength, form.MsgMinLength(lo))
	default:
		at.Add(form.CodeMaxLength, form.MsgMaxLength(hi))
	}
	return false
}

// number checks an INTEGER or NUMBER value: a JSON number in an
// APPLICATION_COMMAND, a (possibly partial, when focused) string in an
// autocomplete. Autocomplete values stay strings.
func (v *validator) number(o InputOption, def command.Option, partial bool, at *apierr.Fields) (any, bool) {
	isInt := def.Type == command.Integer
	notNum := func() (any, bool) {
		if isInt {
			at.Add(form.CodeCoerce, form.MsgNotInt(o.Value))
		} else {
			at.Add(form.CodeCoerce, form.MsgNotNumber(o.Value))
		}
		return nil, false
	}
	var f float64
	var n int64
	var out any
	if v.it == Autocomplete {
		s := o.Value.(string)
		switch {
		case partial && isInt && !partialInt.MatchString(s),
			partial && !isInt && !partialFloat.MatchString(s),
			!partial && isInt && !fullInt.MatchString(s),
			!partial && !isInt && !fullFloat.MatchString(s):
			return notNum()
		}
		out = s
		if !hasDigit.MatchString(s) {
			return s, true // "", "-", ".", "-.": partial
		}
		if isInt {
			var err error
			if n, err = strconv.ParseInt(s, 10, 64); err != nil {
				if s[0] == '-' {
					at.Add(form.CodeNumberMin, form.MsgIntMin(-command.MaxSafeInteger))
				} else {
					at.Add(form.CodeNumberMax, form.MsgIntMax(command.MaxSafeInteger))
				}
				return nil, false
			}
		} else {
			// The pattern admits only decimal text: the one possible
			// error is a range error, whose ±Inf the checks below report.
			f, _ = strconv.ParseFloat(s, 64)
		}
	} else {
		if isInt {
			var ok bool
			if n, ok = form.ToInt(o.Value); !ok {
				return notNum()
			}
			out = n
		} else {
			var ok bool
			if f, ok = form.ToFloat(o.Value); !ok {
				if _, isNum := o.Value.(json.Number); isNum {
					if s := string(o.Value.(json.Number)); len(s) > 0 && s[0] == '-' {
						at.Add(form.CodeNumberMin, form.MsgFloatMin(-command.MaxNumber))
					} else {
						at.Add(form.CodeNumberMax, form.MsgFloatMax(command.MaxNumber))
					}
					return nil, false
				}
				return notNum()
			}
			out = f
		}
	}
	if isInt {
		f = float64(n)
		if n > command.MaxSafeInteger {
			at.Add(form.CodeNumberMax, form.MsgIntMax(command.MaxSafeInteger))
			return nil, false
		}
		if n < -command.MaxSafeInteger {
			at.Add(form.CodeNumberMin, form.MsgIntMin(-command.MaxSafeInteger))
			return nil, false
		}
	} else {
		if f > command.MaxNumber || math.IsInf(f, 1) {
			at.Add(form.CodeNumberMax, form.MsgFloatMax(command.MaxNumber))
			return nil, false
		}
		if f < -command.MaxNumber || math.IsInf(f, -1) {
			at.Add(form.CodeNumberMin, form.MsgFloatMin(-command.MaxNumber))
			return nil, false
		}
	}
	if partial {
		return out, true
	}
	if def.MinValue != nil && f < *def.MinValue {
		if isInt {
			at.Add(form.CodeNumberMin, form.MsgIntMin(int64(math.Ceil(*def.MinValue))))
		} else {
			at.Add(form.CodeNumberMin, form.MsgFloatMin(*def.MinValue))
		}
		return nil, false
	}
	if def.MaxValue != nil && f > *def.MaxValue {
		if isInt {
			at.Add(form.CodeNumberMax, form.MsgIntMax(int64(math.Floor(*def.MaxValue))))
		} else {
			at.Add(form.CodeNumberMax, form.MsgFloatMax(*def.MaxValue))
		}
		return nil, false
	}
	if len(def.Choices) > 0 && !inChoices(def, "", f) {
		at.Add(form.CodeChoices, form.MsgChoicesOf(choiceValues(def)))
		return nil, false
	}
	return out, true
}

// choiceNumber reads a stored choice value as a float.
func choiceNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func inChoices(def command.Option, s string, f float64) bool {
	for _, c := range def.Choices {
		if def.Type == command.String {
			if cs, ok := c.Value.(string); ok && cs == s {
				return true
			}
			continue
		}
		if cf, ok := choiceNumber(c.Value); ok && cf == f {
			return true
		}
	}
	return false
}

// choiceValues lists the choices' values for the BASE_TYPE_CHOICES
// message, INTEGER ones as integers.
func choiceValues(def command.Option) []any {
	out := make([]any, 0, len(def.Choices))
	for _, c := range def.Choices {
		if f, ok := choiceNumber(c.Value); ok {
			if def.Type == command.Integer && f == math.Trunc(f) && math.Abs(f) <= command.MaxNumber {
				out = append(out, int64(f))
			} else {
				out = append(out, f)
			}
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

// CheckVersion rejects a stale version of a global command with the real
// service's read-repair error under data._errors. Guild commands update
// instantly in clients, so their version is not checked.
func CheckVersion(inv Invocation, cmd command.Command) error {
	if cmd.GuildID != 0 || inv.Data.Version == cmd.Version {
		return nil
	}
	return apierr.Invalid(CodeInvalidVersion, MsgInvalidVersion, "data")
}

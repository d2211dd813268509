package interaction

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/msgcheck"
	"github.com/slashd/slashd/internal/snowflake"
)

// A user submitting a modal an app showed makes a MODAL_SUBMIT interaction
// (type 5). The client's body: {type: 5, application_id, guild_id?,
// channel_id, data: {id, custom_id, components}}, where data.id is the id
// of the interaction the app answered with the modal (slashd's stand-in
// for the real client's modal id) and components hold what the user
// entered, in the shape the modal was built with: a label (type 18)
// around a text input's value or a select menu's values, [{type: 18,
// component: {type: 4, custom_id, value}}, {type: 18, component: {type:
// 3, custom_id, values}}], or, the older form, an action row around a
// text input, [{type: 1, components: [{type: 4, custom_id, value}]}].
// Text displays (type 10) hold nothing to submit and are skipped.

// ComponentTextInput is a modal's text input; modals also hold select
// menus (the Component*Select types), inside labels.
const ComponentTextInput = msgcheck.TypeTextInput

// Layout components a modal submission holds inputs in.
const (
	componentActionRow = msgcheck.TypeActionRow
	componentLabel     = msgcheck.TypeLabel
)

var modalInputTypes = []int{ComponentTextInput, ComponentStringSelect, ComponentUserSelect,
	ComponentRoleSelect, ComponentMentionableSelect, ComponentChannelSelect}

// Errors of modal submissions.
const (
	CodeModalInvalid   = "INTERACTION_MODAL_INVALID"
	MsgModalUnknown    = "Unknown modal"
	MsgModalInput      = "Unknown text input"
	MsgModalRequired   = "This text input is required"
	MsgModalDuplicate  = "Text inputs must be unique"
	maxModalTextLength = 4000
)

// ModalInvocation is a parsed MODAL_SUBMIT invocation.
type ModalInvocation struct {
	ApplicationID snowflake.ID
	GuildID       snowflake.ID
	ChannelID     snowflake.ID
	ModalID       snowflake.ID // the interaction answered with the modal
	CustomID      string
	Inputs        []ModalInput
}

// ModalInput is one submitted input: a text input's value or a select
// menu's values, and whether it came in a label or an action row.
type ModalInput struct {
	Type     int // ComponentTextInput or a select menu type
	CustomID string
	Value    string   // text inputs
	Values   []string // select menus
	InLabel  bool
}

// ModalData is the data object a MODAL_SUBMIT interaction carries to the
// app.
type ModalData struct {
	CustomID   string      `json:"custom_id"`
	Components []modalItem `json:"components"`
	// Resolved holds what the values of its user, role, mentionable and
	// channel selects name (the caller resolves Refs).
	Resolved *ResolvedData `json:"resolved,omitempty"`
	refs     []Ref
}

// Refs lists what the values of the submission's user, role,
// mentionable and channel selects name, for the caller to resolve into
// Resolved (each a snowflake CheckModal checked; a channel select's
// channel_types bound its channels).
func (d ModalData) Refs() []Ref { return d.refs }

// modalItem is a label or an action row of a submission, as the app gets
// it.
type modalItem struct {
	Type       int          `json:"type"`
	Components []modalValue `json:"components,omitempty"`
	Component  *modalValue  `json:"component,omitempty"`
}

type modalValue struct {
	Type     int       `json:"type"`
	CustomID string    `json:"custom_id"`
	Value    *string   `json:"value,omitempty"`
	Values   *[]string `json:"values,omitempty"`
}

// ParseModalInvocation reads a decoded type-5 body.
func ParseModalInvocation(v any) (ModalInvocation, error) {
	var inv ModalInvocation
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return inv, errs.Err()
	}
	inv.ApplicationID, inv.GuildID, inv.ChannelID = readWhere(o)
	if !o.Require("data") {
		return inv, errs.Err()
	}
	raw, _ := o.Value("data")
	d, ok := form.AsObject(raw, o.At("data"))
	if !ok {
		return inv, errs.Err()
	}
	if d.Require("id") {
		inv.ModalID, _ = d.Snowflake("id")
	}
	if d.Require("custom_id") {
		inv.CustomID, _ = d.StrLen("custom_id", 1, MaxCustomIDLength)
	}
	if d.Require("components") {
		if items, ok := d.List("components"); ok {
			inv.Inputs = readModalItems(items, d.At("components"))
		}
	}
	return inv, errs.Err()
}

// readModalItems reads a submission's labels and action rows.
func readModalItems(items []any, at *apierr.Fields) []ModalInput {
	if len(items) > MaxModalComponents {
		at.Add(form.CodeMaxLength, form.MsgMaxLength(MaxModalComponents))
		return nil
	}
	var out []ModalInput
	for i, it := range items {
		item, ok := form.AsObject(it, at.At(i))
		if !ok {
			continue
		}
		switch {
		case item.Has("component"): // a label
			raw, _ := item.Value("component")
			if c, ok := form.AsObject(raw, at.At(i, "component")); ok {
				in := readModalInput(c, true)
				in.InLabel = true
				out = append(out, in)
			}
		case item.Has("components"): // an action row of text inputs
			inputs, ok := item.List("components")
			if !ok {
				continue
			}
			for j, raw := range inputs {
				if c, ok := form.AsObject(raw, at.At(i, "components", j)); ok {
					out = append(out, readModalInput(c, false))
				}
			}
		}
	}
	return out
}

// readModalInput reads one input: a text input, or in a label also a
// select menu.
func readModalInput(c form.Object, inLabel bool) ModalInput {
	in := ModalInput{Type: ComponentTextInput}
	if inLabel && c.Require("type") {
		in.Type, _ = c.Choice("type", modalInputTypes)
	}
	if c.Require("custom_id") {
		in.CustomID, _ = c.StrLen("custom_id", 1, MaxCustomIDLength)
	}
	if in.Type == ComponentTextInput {
		if c.Require("value") {
			in.Value, _ = c.StrLen("value", 0, maxModalTextLength)
		}
		return in
	}
	in.Values = []string{}
	if c.Require("values") {
		if l, ok := c.List("values"); ok {
			in.Values = readValues(l, c.At("values"))
		}
	}
	return in
}

// modalDef is what a submission is checked against: the modal the app
// answered with (callback type 9's data).
type modalDef struct {
	CustomID   string `json:"custom_id"`
	Components []struct {
		Components []inputDef `json:"components"`
		// Labels wrap one input.
		Component *inputDef `json:"component"`
	} `json:"components"`
}

// inputDef is a text input or select menu of a modal.
type inputDef struct {
	Type      int            `json:"type"`
	CustomID  string         `json:"custom_id"`
	Required  *bool          `json:"required"`
	MinLength *int           `json:"min_length"`
	MaxLength *int           `json:"max_length"`
	MinValues *int           `json:"min_values"`
	MaxValues *int           `json:"max_values"`
	Options   []selectOption `json:"options"`
	// ChannelTypes bounds a channel select's choices.
	ChannelTypes []int `json:"channel_types"`
}

// required reports whether the user must fill the input: text inputs and
// select menus are required unless they say otherwise (a select menu also
// by min_values 0).
func (d inputDef) required() bool {
	if d.Required != nil && !*d.Required {
		return false
	}
	return d.Type == ComponentTextInput || d.MinValues == nil || *d.MinValues > 0
}

// CheckModal checks a submission against the modal the app showed (the
// data of its MODAL answer): the same custom_id, only the modal's inputs,
// each once and of its type, required ones filled, text lengths and
// select values within their bounds (string selects: among the options).
// It returns the data object the app receives.
func CheckModal(inv ModalInvocation, modal json.RawMessage) (ModalData, error) {
	var def modalDef
	errs := &apierr.Fields{}
	if json.Unmarshal(modal, &def) != nil || def.CustomID != inv.CustomID {
		errs.At("data", "custom_id").Add(CodeModalInvalid, MsgModalUnknown)
		return ModalData{}, errs.Err()
	}
	inputs := map[string]inputDef{}
	for _, row := range def.Components {
		for _, c := range row.Components {
			inputs[c.CustomID] = c
		}
		if row.Component != nil {
			inputs[row.Component.CustomID] = *row.Component
		}
	}
	data := ModalData{CustomID: def.CustomID, Components: []modalItem{}}
	seen := map[string]bool{}
	for i, in := range inv.Inputs {
		at := errs.At("data", "components", i)
		if in.InLabel {
			at = at.At("component")
		}
		d, ok := inputs[in.CustomID]
		switch {
		case !ok || d.Type != in.Type:
			at.At("custom_id").Add(CodeModalInvalid, unknownInput(in.Type))
			continue
		case seen[in.CustomID]:
			at.At("custom_id").Add(CodeModalInvalid, MsgModalDuplicate)
			continue
		}
		seen[in.CustomID] = true
		if in.Type == ComponentTextInput && !checkInputLength(in.Value, d, at.At("value")) {
			continue
		}
		if in.Type != ComponentTextInput && !checkModalValues(in.Values, d, at.At("values")) {
			continue
		}
		if t, ok := selectOptionTypes[in.Type]; ok {
			path := []any{"data", "components", i}
			if in.InLabel {
				path = append(path, "component")
			}
			for j, v := range in.Values {
				id, err := snowflake.Parse(v)
				if err != nil {
					at.At("values", j).Add(form.CodeCoerce, form.MsgNotSnowflake(v))
					continue
				}
				data.refs = append(data.refs, Ref{Type: t, ID: id, ChannelTypes: d.ChannelTypes,
					Path: append(append([]any(nil), path...), "values", j)})
			}
		}
		data.Components = append(data.Components, in.item())
	}
	for id, d := range inputs {
		if !seen[id] && isModalInput(d.Type) && d.required() {
			errs.At("data", "components").Add(CodeModalInvalid, MsgModalRequired)
		}
	}
	if err := errs.Err(); err != nil {
		return ModalData{}, err
	}
	return data, nil
}

func isModalInput(t int) bool {
	for _, it := range modalInputTypes {
		if it == t {
			return true
		}
	}
	return false
}

func unknownInput(t int) string {
	if t == ComponentTextInput {
		return MsgModalInput
	}
	return MsgComponentUnknown
}

// item is the input as the app receives it, in the layout it came in.
func (in ModalInput) item() modalItem {
	v := modalValue{Type: in.Type, CustomID: in.CustomID}
	if in.Type == ComponentTextInput {
		v.Value = &in.Value
	} else {
		v.Values = &in.Values
	}
	if in.InLabel {
		return modalItem{Type: componentLabel, Component: &v}
	}
	return modalItem{Type: componentActionRow, Components: []modalValue{v}}
}

// checkModalValues applies a select menu's bounds: min_values..max_values
// values (default 1..1; none when it is not required), among the options
// of a string select.
func checkModalValues(values []string, d inputDef, at *apierr.Fields) bool {
	if len(values) == 0 && !d.required() {
		return true
	}
	checkValues(values, component{Type: d.Type, MinValues: d.MinValues, MaxValues: d.MaxValues, Options: d.Options}, at)
	return at.Empty() // at is this input's own node
}

// checkInputLength applies a text input's bounds (a required input needs
// at least one character).
func checkInputLength(v string, d inputDef, at *apierr.Fields) bool {
	n := utf8.RuneCountInString(v)
	lo, hi := 0, maxModalTextLength
	if d.Required == nil || *d.Required {
		lo = 1
	}
	if d.MinLength != nil {
		lo = max(lo, *d.MinLength)
	}
	if d.MaxLength != nil {
		hi = *d.MaxLength
	}
	if n < lo || n > hi {
		at.Add(form.CodeBadLength, form.MsgBadLength(lo, hi))
		return false
	}
	return true
}

package interaction

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// A user submitting a modal an app showed makes a MODAL_SUBMIT interaction
// (type 5). The client's body: {type: 5, application_id, guild_id?,
// channel_id, data: {id, custom_id, components}}, where data.id is the id
// of the interaction the app answered with the modal (slashd's stand-in
// for the real client's modal id) and components are the modal's action
// rows with each text input's value: [{type: 1, components: [{type: 4,
// custom_id, value}]}].

// ComponentTextInput is the only input a modal holds here.
const ComponentTextInput = 4

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

// ModalInput is a submitted text input.
type ModalInput struct {
	CustomID string
	Value    string
}

// ModalData is the data object a MODAL_SUBMIT interaction carries to the
// app.
type ModalData struct {
	CustomID   string           `json:"custom_id"`
	Components []modalActionRow `json:"components"`
}

type modalActionRow struct {
	Type       int              `json:"type"`
	Components []modalTextValue `json:"components"`
}

type modalTextValue struct {
	Type     int    `json:"type"`
	CustomID string `json:"custom_id"`
	Value    string `json:"value"`
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
		if rows, ok := d.List("components"); ok {
			inv.Inputs = readModalRows(rows, d.At("components"))
		}
	}
	return inv, errs.Err()
}

func readModalRows(rows []any, at *apierr.Fields) []ModalInput {
	if len(rows) > MaxModalComponents {
		at.Add(form.CodeMaxLength, form.MsgMaxLength(MaxModalComponents))
		return nil
	}
	var out []ModalInput
	for i, r := range rows {
		row, ok := form.AsObject(r, at.At(i))
		if !ok {
			continue
		}
		if !row.Require("components") {
			continue
		}
		items, ok := row.List("components")
		if !ok {
			continue
		}
		for j, it := range items {
			o, ok := form.AsObject(it, at.At(i, "components", j))
			if !ok {
				continue
			}
			var in ModalInput
			if o.Require("custom_id") {
				in.CustomID, _ = o.StrLen("custom_id", 1, MaxCustomIDLength)
			}
			if o.Require("value") {
				in.Value, _ = o.StrLen("value", 0, maxModalTextLength)
			}
			out = append(out, in)
		}
	}
	return out
}

// modalDef is what a submission is checked against: the modal the app
// answered with (callback type 9's data).
type modalDef struct {
	CustomID   string `json:"custom_id"`
	Components []struct {
		Components []textInputDef `json:"components"`
		// Components v2 labels wrap one input.
		Component *textInputDef `json:"component"`
	} `json:"components"`
}

type textInputDef struct {
	Type      int    `json:"type"`
	CustomID  string `json:"custom_id"`
	Required  *bool  `json:"required"`
	MinLength *int   `json:"min_length"`
	MaxLength *int   `json:"max_length"`
}

// CheckModal checks a submission against the modal the app showed (the
// data of its MODAL answer): the same custom_id, only the modal's text
// inputs, each once, required ones not empty, lengths within their
// bounds. It returns the data object the app receives.
func CheckModal(inv ModalInvocation, modal json.RawMessage) (ModalData, error) {
	var def modalDef
	errs := &apierr.Fields{}
	if json.Unmarshal(modal, &def) != nil || def.CustomID != inv.CustomID {
		errs.At("data", "custom_id").Add(CodeModalInvalid, MsgModalUnknown)
		return ModalData{}, errs.Err()
	}
	inputs := map[string]textInputDef{}
	for _, row := range def.Components {
		for _, c := range row.Components {
			inputs[c.CustomID] = c
		}
		if row.Component != nil {
			inputs[row.Component.CustomID] = *row.Component
		}
	}
	data := ModalData{CustomID: def.CustomID, Components: []modalActionRow{}}
	seen := map[string]bool{}
	for i, in := range inv.Inputs {
		at := errs.At("data", "components", i)
		d, ok := inputs[in.CustomID]
		switch {
		case !ok || d.Type != ComponentTextInput:
			at.At("custom_id").Add(CodeModalInvalid, MsgModalInput)
			continue
		case seen[in.CustomID]:
			at.At("custom_id").Add(CodeModalInvalid, MsgModalDuplicate)
			continue
		}
		seen[in.CustomID] = true
		if checkInputLength(in.Value, d, at.At("value")) {
			data.Components = append(data.Components, modalActionRow{Type: 1,
				Components: []modalTextValue{{Type: ComponentTextInput, CustomID: in.CustomID, Value: in.Value}}})
		}
	}
	for id, d := range inputs {
		if d.Type == ComponentTextInput && !seen[id] && (d.Required == nil || *d.Required) {
			errs.At("data", "components").Add(CodeModalInvalid, MsgModalRequired)
		}
	}
	if err := errs.Err(); err != nil {
		return ModalData{}, err
	}
	return data, nil
}

// checkInputLength applies a text input's bounds (a required input needs
// at least one character).
func checkInputLength(v string, d textInputDef, at *apierr.Fields) bool {
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

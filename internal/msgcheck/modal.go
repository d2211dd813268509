package msgcheck

import "github.com/slashd/slashd/internal/form"

// The components of a modal (components/reference.mdx: Label, Text
// Input, File Upload, Radio Group, Checkbox Group, Checkbox; the selects
// and Text Display are shared with messages).

// Limits of modal components.
const (
	maxLabel            = 45
	maxLabelDescription = 100
	maxTextInput        = 4000
	maxTextPlaceholder  = 100
	maxFiles            = 10
	maxFileTypes        = 10
	minRadioOptions     = 2
	maxGroupOptions     = 10
)

var textInputStyles = []int{1, 2}

// label checks a label: label 1–45 characters, description up to 100,
// and one component of the types a label wraps.
func (t *tree) label(o form.Object) {
	if o.Require("label") {
		o.StrLen("label", 1, maxLabel)
	}
	maxLen(o, "description", maxLabelDescription)
	if !o.Require("component") {
		return
	}
	v, _ := o.Value("component")
	t.tally(o.At("component"))
	t.component(v, labelChildTypes, o.At("component"))
}

// textInput checks a text input: custom_id, style 1 or 2, min_length
// 0–4000 and max_length 1–4000 (min not above max), value up to 4000,
// placeholder up to 100, required. In a legacy action row its label is
// required (1–45 characters); in a label it is ignored, the label's own
// text replacing it.
func (t *tree) textInput(o form.Object, inRow bool) {
	t.customID(o, true)
	if o.Require("style") {
		o.Choice("style", textInputStyles)
	}
	if inRow {
		if o.Require("label") {
			o.StrLen("label", 1, maxLabel)
		}
	}
	lo, minOK := int64(0), true
	hi, maxOK := int64(maxTextInput), true
	if o.Present("min_length") {
		lo, minOK = o.IntIn("min_length", 0, maxTextInput)
	}
	if o.Present("max_length") {
		hi, maxOK = o.IntIn("max_length", 1, maxTextInput)
	}
	if minOK && maxOK {
		minNotAboveMax(o, "min_length", lo, hi)
	}
	maxLen(o, "value", maxTextInput)
	maxLen(o, "placeholder", maxTextPlaceholder)
	o.Bool("required")
}

// fileUpload checks a file upload: custom_id, min_values 0–10 and
// max_values 1–10 (min not above max), required, and up to 10 file_types
// (strings).
func (t *tree) fileUpload(o form.Object) {
	t.customID(o, true)
	t.valueBounds(o, 0, maxFiles, maxFiles)
	o.Bool("required")
	if types, ok := o.List("file_types"); ok {
		if len(types) > maxFileTypes {
			o.At("file_types").Add(form.CodeMaxLength, form.MsgMaxLength(maxFileTypes))
		}
		for i, v := range types {
			if _, ok := v.(string); !ok {
				o.At("file_types", i).Add(form.CodeStringConvert, form.MsgNotString(v))
			}
		}
	}
}

// radioGroup checks a radio group: custom_id, 2–10 options (label and
// value 1–100, values unique), required.
func (t *tree) radioGroup(o form.Object) {
	t.customID(o, true)
	groupOptions(o, minRadioOptions)
	o.Bool("required")
}

// checkboxGroup checks a checkbox group: custom_id, 1–10 options,
// min_values 0–10 and max_values 1–10 (min not above max), required.
func (t *tree) checkboxGroup(o form.Object) {
	t.customID(o, true)
	groupOptions(o, 1)
	t.valueBounds(o, 0, maxGroupOptions, maxGroupOptions)
	o.Bool("required")
}

// groupOptions checks the options of a radio or checkbox group: at least
// min, at most 10.
func groupOptions(o form.Object, min int) {
	if !o.Require("options") {
		return
	}
	options, ok := o.List("options")
	if !ok {
		return
	}
	if len(options) < min || len(options) > maxGroupOptions {
		o.At("options").Add(form.CodeBadLength, form.MsgBadLength(min, maxGroupOptions))
		return
	}
	optionList(options, o.At("options"), false)
}

// valueBounds reads min_values (0–max, lo when absent) and max_values
// (1–max, hi when absent), checks min not above max and min_values 0
// only when not required, and returns them with whether each was valid.
func (t *tree) valueBounds(o form.Object, lo, hi, max int64) (int64, int64, bool, bool) {
	minOK, maxOK := true, true
	if o.Present("min_values") {
		lo, minOK = o.IntIn("min_values", 0, max)
	}
	if o.Present("max_values") {
		hi, maxOK = o.IntIn("max_values", 1, max)
	}
	if minOK && maxOK {
		minNotAboveMax(o, "min_values", lo, hi)
	}
	t.requiredNeedsOne(o, lo, minOK)
	return lo, hi, minOK, maxOK
}

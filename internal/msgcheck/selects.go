package msgcheck

import (
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// Limits of select menus (components/reference.mdx, "String Select
// Structure" and the auto-populated selects).
const (
	maxSelectOptions     = 25
	maxSelectValues      = 25
	maxSelectPlaceholder = 150
	maxOptionText        = 100
)

// Default value types an auto-populated select takes ("Select Default
// Value Structure").
var defaultValueTypes = map[int][]string{
	TypeUserSelect:        {"user"},
	TypeRoleSelect:        {"role"},
	TypeMentionableSelect: {"user", "role"},
	TypeChannelSelect:     {"channel"},
}

// channelTypes are the channel types (resources/channel.mdx, "Channel
// Types") a channel select may list.
var channelTypes = []int{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16}

// selectMenu checks a select menu of either kind: custom_id,
// placeholder, min_values 0–25 and max_values 1–25 (min not above max),
// then a string select's options or an auto-populated select's
// default_values.
func (t *tree) selectMenu(o form.Object, typ int) {
	t.customID(o, true)
	maxLen(o, "placeholder", maxSelectPlaceholder)
	if disabled, _ := o.Bool("disabled"); disabled && t.modal {
		// "Using disabled in a modal will result in an error."
		o.At("disabled").Add(CodeDisabledInModal, MsgDisabledInModal)
	}
	o.Bool("required")
	lo, hi, minOK, maxOK := t.valueBounds(o, 1, 1, maxSelectValues)
	if typ == TypeStringSelect {
		stringOptions(o, lo, hi, minOK && maxOK)
		return
	}
	if typ == TypeChannelSelect {
		o.IntList("channel_types", channelTypes)
	}
	defaultValues(o, defaultValueTypes[typ], hi, maxOK)
}

// stringOptions checks a string select's options: 1–25 of them, each
// with a label and a value of 1–100 characters, values unique, and as
// many options as min_values and max_values ask, no more defaults than
// max_values.
func stringOptions(o form.Object, lo, hi int64, boundsOK bool) {
	if !o.Require("options") {
		return
	}
	options, ok := o.List("options")
	if !ok {
		return
	}
	if len(options) < 1 || len(options) > maxSelectOptions {
		o.At("options").Add(form.CodeBadLength, form.MsgBadLength(1, maxSelectOptions))
		return
	}
	defaults := optionList(options, o.At("options"), true)
	if !boundsOK {
		return
	}
	n := int64(len(options))
	switch {
	case lo > n:
		o.At("min_values").Add(form.CodeNumberMax, form.MsgIntMax(n))
	case hi > n:
		o.At("options").Add(form.CodeMinLength, form.MsgMinLength(int(hi)))
	case int64(defaults) > hi:
		o.At("options").Add(CodeTooManyDefaults, MsgTooManyDefaults)
	}
}

// optionList checks the options of a string select, radio group or
// checkbox group: label and value 1–100 characters, description up to
// 100, values unique. It returns how many are default.
func optionList(options []any, at *apierr.Fields, withEmoji bool) int {
	values := map[string]bool{}
	defaults := 0
	for i, item := range options {
		opt, ok := form.AsObject(item, at.At(i))
		if !ok {
			continue
		}
		if opt.Require("label") {
			opt.StrLen("label", 1, maxOptionText)
		}
		if opt.Require("value") {
			if v, ok := opt.StrLen("value", 1, maxOptionText); ok {
				if values[v] {
					at.At(i).Add(CodeOptionDuplicated, MsgOptionDuplicated)
				}
				values[v] = true
			}
		}
		maxLen(opt, "description", maxOptionText)
		if withEmoji {
			if e, ok := object(opt, "emoji"); ok {
				emoji(e)
			}
		}
		if d, _ := opt.Bool("default"); d {
			defaults++
		}
	}
	return defaults
}

// defaultValues checks an auto-populated select's default_values: each
// {id, type} with a snowflake id and a type the select takes, no more of
// them than max_values.
func defaultValues(o form.Object, types []string, hi int64, maxOK bool) {
	list, ok := o.List("default_values")
	if !ok {
		return
	}
	if len(list) > maxSelectValues {
		o.At("default_values").Add(form.CodeMaxLength, form.MsgMaxLength(maxSelectValues))
		return
	}
	for i, item := range list {
		d, ok := form.AsObject(item, o.At("default_values", i))
		if !ok {
			continue
		}
		if d.Require("id") {
			d.Snowflake("id")
		}
		if d.Require("type") {
			if s, ok := d.Str("type"); ok && !contains(types, s) {
				d.At("type").Add(form.CodeChoices, form.MsgChoicesOf(types))
			}
		}
	}
	if maxOK && int64(len(list)) > hi {
		o.At("default_values").Add(CodeTooManyDefaults, MsgTooManyDefaults)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// textLen is the length of s in code points, as the real service counts.
func textLen(s string) int { return utf8.RuneCountInString(s) }

package msgcheck

import (
	"github.com/slashd/slashd/internal/form"
)

// Button styles (components/reference.mdx, "Button Styles").
const (
	StylePrimary   = 1
	StyleSecondary = 2
	StyleSuccess   = 3
	StyleDanger    = 4
	StyleLink      = 5
	StylePremium   = 6
)

var buttonStyles = []int{StylePrimary, StyleSecondary, StyleSuccess, StyleDanger, StyleLink, StylePremium}

// Limits of buttons.
const (
	maxButtonLabel = 80
	maxButtonURL   = 512
	maxEmojiName   = 32
)

// Schemes a link button's url and a media item's url may use.
var (
	linkSchemes  = []string{"http", "https", "discord"}
	mediaSchemes = []string{"http", "https", "attachment"}
	fileSchemes  = []string{"attachment"}
)

// button checks a button by its style: a link (5) needs url and no
// custom_id, a premium button (6) sku_id and nothing of custom_id, url,
// label or emoji, the others custom_id and neither url nor sku_id.
func (t *tree) button(o form.Object) {
	if !o.Require("style") {
		return
	}
	style, ok := o.Choice("style", buttonStyles)
	if !ok {
		return
	}
	maxLen(o, "label", maxButtonLabel)
	if e, ok := object(o, "emoji"); ok {
		emoji(e)
	}
	o.Bool("disabled")
	switch style {
	case StyleLink:
		t.linkButton(o)
	case StylePremium:
		for _, key := range []string{"custom_id", "url", "label", "emoji"} {
			if o.Present(key) {
				o.At(key).Add(CodeButtonFieldInvalid, MsgButtonFieldInvalid)
			}
		}
		if o.Require("sku_id") {
			o.Snowflake("sku_id")
		}
	default:
		if o.Present("sku_id") {
			o.At("sku_id").Add(CodeButtonFieldInvalid, MsgButtonFieldInvalid)
		}
		switch {
		case !o.Present("custom_id"):
			o.At("custom_id").Add(CodeCustomIDRequired, MsgCustomIDRequired)
		case o.Present("url"):
			exclusiveCustomIDAndURL(o)
		default:
			t.customID(o, true)
		}
	}
}

// linkButton checks a link button's url and that it has no custom_id.
func (t *tree) linkButton(o form.Object) {
	if o.Present("sku_id") {
		o.At("sku_id").Add(CodeButtonFieldInvalid, MsgButtonFieldInvalid)
	}
	if o.Present("custom_id") && o.Present("url") {
		exclusiveCustomIDAndURL(o)
		return
	}
	if o.Present("custom_id") {
		o.At("custom_id").Add(CodeButtonFieldInvalid, MsgButtonFieldInvalid)
	}
	if !o.Require("url") {
		return
	}
	if s, ok := maxLen(o, "url", maxButtonURL); ok {
		checkURL(o.At("url"), s, linkSchemes)
	}
}

// exclusiveCustomIDAndURL records the real service's error for a button
// with both, at both fields.
func exclusiveCustomIDAndURL(o form.Object) {
	o.At("custom_id").Add(CodeCustomIDURLExclusive, MsgCustomIDURLExclusive)
	o.At("url").Add(CodeCustomIDURLExclusive, MsgCustomIDURLExclusive)
}

// emoji checks a partial emoji: id a snowflake, name a string, animated
// a boolean.
func emoji(e form.Object) {
	e.Snowflake("id")
	maxLen(e, "name", maxEmojiName)
	e.Bool("animated")
}

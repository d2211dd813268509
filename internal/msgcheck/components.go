package msgcheck

import (
	"math"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// Component types (discord-api-docs components/reference.mdx, "Component
// Types").
const (
	TypeActionRow         = 1
	TypeButton            = 2
	TypeStringSelect      = 3
	TypeTextInput         = 4
	TypeUserSelect        = 5
	TypeRoleSelect        = 6
	TypeMentionableSelect = 7
	TypeChannelSelect     = 8
	TypeSection           = 9
	TypeTextDisplay       = 10
	TypeThumbnail         = 11
	TypeMediaGallery      = 12
	TypeFile              = 13
	TypeSeparator         = 14
	TypeContainer         = 17
	TypeLabel             = 18
	TypeFileUpload        = 19
	TypeRadioGroup        = 21
	TypeCheckboxGroup     = 22
	TypeCheckbox          = 23
)

// Limits of components.
const (
	MaxComponentsV2     = 40   // every component of a V2 message, nested ones included
	MaxTextV2           = 4000 // characters of all text displays of a V2 message together
	MaxCustomIDLength   = 100
	maxRowWidth         = 5
	maxSectionTexts     = 3
	maxGalleryItems     = 10
	maxMediaDescription = 1024
	maxAccentColor      = 0xFFFFFF
	maxComponentID      = math.MaxInt32
	maxTextDisplay      = 4000
)

// Which component types each place takes: the lists the real service
// names in its UNION_TYPE_CHOICES message ("Value of field "type" must be
// one of (1, 9, 10, 12, 13, 14, 17).").
var (
	legacyTopLevel   = []int{TypeActionRow}
	v2TopLevel       = []int{TypeActionRow, TypeSection, TypeTextDisplay, TypeMediaGallery, TypeFile, TypeSeparator, TypeContainer}
	containerTypes   = []int{TypeActionRow, TypeSection, TypeTextDisplay, TypeMediaGallery, TypeFile, TypeSeparator}
	sectionTypes     = []int{TypeTextDisplay}
	accessoryTypes   = []int{TypeButton, TypeThumbnail}
	messageRowTypes  = []int{TypeButton, TypeStringSelect, TypeUserSelect, TypeRoleSelect, TypeMentionableSelect, TypeChannelSelect}
	modalTopLevel    = []int{TypeActionRow, TypeTextDisplay, TypeLabel}
	modalRowTypes    = []int{TypeTextInput}
	labelChildTypes  = []int{TypeStringSelect, TypeTextInput, TypeUserSelect, TypeRoleSelect, TypeMentionableSelect, TypeChannelSelect, TypeFileUpload, TypeRadioGroup, TypeCheckboxGroup, TypeCheckbox}
	selectMenuTypes  = []int{TypeStringSelect, TypeUserSelect, TypeRoleSelect, TypeMentionableSelect, TypeChannelSelect}
	separatorSpacing = []int{1, 2}
)

// Codes and messages of component errors. The real service's where its
// answer is on record (docs/compat.md, "Message bodies: components"), our
// naming in its style where not.
const (
	CodeCustomIDDuplicated   = "COMPONENT_CUSTOM_ID_DUPLICATED"
	MsgCustomIDDuplicated    = "Component custom id cannot be duplicated"
	CodeLayoutWidthExceeded  = "COMPONENT_LAYOUT_WIDTH_EXCEEDED"
	MsgLayoutWidthExceeded   = "The specified component exceeds the maximum width"
	CodeCountExceeded        = "COMPONENT_COUNT_EXCEEDED"
	CodeTextLengthExceeded   = "COMPONENT_TEXT_LENGTH_EXCEEDED"
	CodeLegacyFieldsWithV2   = "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"
	CodeCustomIDRequired     = "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED"
	MsgCustomIDRequired      = "A custom id is required"
	CodeCustomIDURLExclusive = "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE"
	MsgCustomIDURLExclusive  = "A custom id and url cannot both be specified"
	CodeButtonFieldInvalid   = "BUTTON_COMPONENT_FIELD_INVALID"
	MsgButtonFieldInvalid    = "This field cannot be used with this button style"
	CodeOptionDuplicated     = "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED"
	MsgOptionDuplicated      = "The specified option value is already used"
	CodeTooManyDefaults      = "SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES"
	MsgTooManyDefaults       = "The specified number of default values exceeds the specified maximum values"
	CodeURLInvalid           = "URL_TYPE_INVALID_URL"
	MsgURLInvalid            = "Not a well formed URL."
	CodeURLScheme            = "URL_TYPE_INVALID_SCHEME"
	CodeDisabledInModal      = "COMPONENT_DISABLED_IN_MODAL"
	MsgDisabledInModal       = "Modals cannot have disabled components"
)

// MsgTextLengthExceeded is the message of CodeTextLengthExceeded.
const MsgTextLengthExceeded = "The total length of all text display components must be 4000 or fewer."

// msgLegacyField is the message of CodeLegacyFieldsWithV2 for field.
func msgLegacyField(field string) string {
	return "The '" + field + "' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"
}

// tree is what one message's (or one modal's) components share: the
// custom_ids seen so far, how many components there are and how much
// text their text displays hold.
type tree struct {
	v2            bool
	modal         bool
	customIDs     map[string]bool
	count         int
	countReported bool
	text          int
}

func newTree(v2, modal bool) *tree {
	return &tree{v2: v2, modal: modal, customIDs: map[string]bool{}}
}

// Components checks a message's components (a list the caller has capped
// at 5, or 40 top-level ones with IS_COMPONENTS_V2): the legacy action
// rows, or with v2 the Components V2 tree.
func Components(list []any, v2 bool, at *apierr.Fields) {
	t := newTree(v2, false)
	top := legacyTopLevel
	if v2 {
		top = v2TopLevel
	}
	t.list(list, top, at)
	if v2 && t.text > MaxTextV2 {
		at.Add(CodeTextLengthExceeded, MsgTextLengthExceeded)
	}
}

// ModalComponents checks a MODAL answer's data.components (a list the
// caller has capped at 1–5 objects).
func ModalComponents(list []any, at *apierr.Fields) {
	newTree(false, true).list(list, modalTopLevel, at)
}

// legacyFieldsBesideV2 refuses what a Components V2 message may not carry
// beside its components (content, embeds, poll, stickers). Empty values
// (content "", embeds [], poll null) are what the docs ask an edit that
// sets the flag to send, and pass.
func legacyFieldsBesideV2(body map[string]any, errs *apierr.Fields) {
	for _, key := range []string{"content", "embeds", "poll", "sticker_ids"} {
		if !emptyValue(body[key]) {
			errs.At(key).Add(CodeLegacyFieldsWithV2, msgLegacyField(key))
		}
	}
}

// emptyValue reports whether v is absent, null, "" or an empty list.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return false
}

// list checks a list of components, each of one of the types allowed
// there, counting them toward the V2 total.
func (t *tree) list(items []any, allowed []int, at *apierr.Fields) {
	for i, item := range items {
		t.tally(at)
		t.component(item, allowed, at.At(i))
	}
}

// tally counts one more component of the message; the first past the V2
// limit is reported at the list (or field) holding it.
func (t *tree) tally(at *apierr.Fields) {
	t.count++
	if t.v2 && t.count > MaxComponentsV2 && !t.countReported {
		t.countReported = true
		at.Add(CodeCountExceeded, form.MsgMaxLength(MaxComponentsV2))
	}
}

// component checks one component: an object whose type is one of
// allowed, then its own fields.
func (t *tree) component(v any, allowed []int, at *apierr.Fields) {
	o, ok := form.AsObject(v, at)
	if !ok {
		return
	}
	typ, ok := componentType(o, allowed, at)
	if !ok {
		return
	}
	o.IntIn("id", 0, maxComponentID)
	switch typ {
	case TypeActionRow:
		t.actionRow(o)
	case TypeButton:
		t.button(o)
	case TypeStringSelect, TypeUserSelect, TypeRoleSelect, TypeMentionableSelect, TypeChannelSelect:
		t.selectMenu(o, typ)
	case TypeTextInput:
		// A text input in a (legacy) action row is the only member of
		// its place's list; in a label it is one of many.
		t.textInput(o, len(allowed) == 1)
	case TypeSection:
		t.section(o)
	case TypeTextDisplay:
		t.textDisplay(o)
	case TypeThumbnail:
		thumbnail(o)
	case TypeMediaGallery:
		mediaGallery(o)
	case TypeFile:
		file(o)
	case TypeSeparator:
		o.Choice("spacing", separatorSpacing)
		o.Bool("divider")
	case TypeContainer:
		t.container(o)
	case TypeLabel:
		t.label(o)
	case TypeFileUpload:
		t.fileUpload(o)
	case TypeRadioGroup:
		t.radioGroup(o)
	case TypeCheckboxGroup:
		t.checkboxGroup(o)
	case TypeCheckbox:
		t.customID(o, true)
		o.Bool("default")
	}
}

// componentType reads a component's type: required (BASE_TYPE_REQUIRED at
// type, as a command option's), an integer, and one of allowed
// (UNION_TYPE_CHOICES on the component itself, as the real service puts
// it).
func componentType(o form.Object, allowed []int, at *apierr.Fields) (int, bool) {
	if !o.Require("type") {
		return 0, false
	}
	n, ok := o.Int("type")
	if !ok {
		return 0, false
	}
	for _, a := range allowed {
		if int64(a) == n {
			return a, true
		}
	}
	at.Add(form.CodeUnionChoices, form.MsgUnionChoices("type", allowed))
	return 0, false
}

// customID reads an interactive component's custom_id: 1–100 characters
// and unique within the message or modal. required says whether it must
// be there.
func (t *tree) customID(o form.Object, required bool) (string, bool) {
	if !o.Present("custom_id") {
		if required {
			o.Require("custom_id")
		}
		return "", false
	}
	id, ok := o.StrLen("custom_id", 1, MaxCustomIDLength)
	if !ok {
		return "", false
	}
	if t.customIDs[id] {
		o.At("custom_id").Add(CodeCustomIDDuplicated, MsgCustomIDDuplicated)
		return id, false
	}
	t.customIDs[id] = true
	return id, true
}

// actionRow checks a row: of a message, 1–5 buttons or one select menu;
// of a modal, one text input.
func (t *tree) actionRow(o form.Object) {
	if !o.Require("components") {
		return
	}
	children, ok := o.List("components")
	if !ok {
		return
	}
	if len(children) < 1 || len(children) > maxRowWidth {
		o.At("components").Add(form.CodeBadLength, form.MsgBadLength(1, maxRowWidth))
		return
	}
	allowed := messageRowTypes
	if t.modal {
		allowed = modalRowTypes
	}
	t.list(children, allowed, o.At("components"))
	// A select menu (or a modal's text input) fills its row: whatever
	// stands beside it exceeds the row's width.
	wide := -1
	for i, c := range children {
		if m, ok := c.(map[string]any); ok {
			if n, ok := form.ToInt(m["type"]); ok && n != TypeButton {
				wide = i
				break
			}
		}
	}
	if wide >= 0 && len(children) > 1 {
		for i := 1; i < len(children); i++ {
			o.At("components", i).Add(CodeLayoutWidthExceeded, MsgLayoutWidthExceeded)
		}
	}
}

// maxLen reads an optional string of at most n characters
// (BASE_TYPE_MAX_LENGTH). Null passes.
func maxLen(o form.Object, key string, n int) (string, bool) {
	s, ok := o.Str(key)
	if ok && utf8.RuneCountInString(s) > n {
		o.At(key).Add(form.CodeMaxLength, form.MsgMaxLength(n))
		return "", false
	}
	return s, ok
}

// object reads key as an object (MODEL_TYPE_CONVERT otherwise); absent
// or null is not ok and records nothing.
func object(o form.Object, key string) (form.Object, bool) {
	v, ok := o.Value(key)
	if !ok {
		return form.Object{}, false
	}
	return form.AsObject(v, o.At(key))
}

// requiredNeedsOne applies, in a modal, the docs' rule for an input
// with min_values: "min_values must be either omitted or at least 1 if
// required is omitted or true" (NUMBER_TYPE_MIN, the bound being 1).
func (t *tree) requiredNeedsOne(o form.Object, min int64, minOK bool) {
	if !t.modal || !minOK || !o.Present("min_values") || min >= 1 {
		return
	}
	if required, ok := o.Bool("required"); ok && !required {
		return
	}
	o.At("min_values").Add(form.CodeNumberMin, form.MsgIntMin(1))
}

// minNotAboveMax records, at minKey, a minimum above its maximum, as the
// real service words a number above its bound.
func minNotAboveMax(o form.Object, minKey string, min int64, max int64) {
	if min > max {
		o.At(minKey).Add(form.CodeNumberMax, form.MsgIntMax(max))
	}
}

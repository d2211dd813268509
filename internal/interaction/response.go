package interaction

// Responding to an interaction: the body an app POSTs to
// /interactions/{id}/{token}/callback (or answers inline over HTTP), and
// the message bodies of follow-ups and edits.
//
// # Decisions (to copy into docs/compat.md)
//
//   - The body is an object; type is required (BASE_TYPE_REQUIRED) and one
//     of 1, 4–10, 12 (BASE_TYPE_CHOICES "Value must be one of (1, 4, 5, 6,
//     7, 8, 9, 10, 12).").
//   - Which response fits which interaction: PONG only a PING; CHANNEL_
//     MESSAGE, DEFERRED_CHANNEL_MESSAGE, PREMIUM_REQUIRED and
//     LAUNCH_ACTIVITY an APPLICATION_COMMAND, MESSAGE_COMPONENT or
//     MODAL_SUBMIT; DEFERRED_UPDATE_MESSAGE and UPDATE_MESSAGE a
//     MESSAGE_COMPONENT or MODAL_SUBMIT; AUTOCOMPLETE_RESULT exactly the
//     AUTOCOMPLETE interactions, which take nothing else; MODAL an
//     APPLICATION_COMMAND or MESSAGE_COMPONENT. Otherwise
//     INTERACTION_RESPONSE_TYPE_INVALID "Interaction response type is
//     invalid for this interaction" at type. The exception is types 6 and 7
//     on an APPLICATION_COMMAND, which the real service answers with 404
//     Unknown Message: ParseCallback returns ErrNoMessageToUpdate for the
//     caller to render. (For a MODAL_SUBMIT whether there is a message to
//     update — the modal was opened from a component — is the caller's
//     to check.)
//   - Precedence: form errors (50035, every one found, data included) come
//     first, then ErrNoMessageToUpdate, then ErrEmptyMessage.
//   - CHANNEL_MESSAGE: data is a message (ParseMessage, edit=false); an
//     absent, null or empty one is 50006 "Cannot send an empty message"
//     (ErrEmptyMessage). UPDATE_MESSAGE: data optional, read as an edit
//     (only present keys in Message.Set).
//   - DEFERRED_CHANNEL_MESSAGE: data optional, only data.flags is read and
//     may hold only EPHEMERAL. Other keys are ignored.
//   - Disallowed flags, here and in messages, are
//     INTERACTION_RESPONSE_FLAGS_INVALID "Invalid message flags" at the
//     flags field (our naming: the real code is not known). Negative flags
//     are the same error; a non-integer is NUMBER_TYPE_COERCE.
//   - DEFERRED_UPDATE_MESSAGE, PONG and LAUNCH_ACTIVITY: data ignored.
//     PREMIUM_REQUIRED (deprecated) takes no data: anything but absent,
//     null or {} is INTERACTION_RESPONSE_DATA_INVALID at data.
//   - AUTOCOMPLETE_RESULT: data (BASE_TYPE_REQUIRED) with choices
//     (BASE_TYPE_REQUIRED), an array of at most 25 (BASE_TYPE_MAX_LENGTH)
//     objects {name 1–100 code points (BASE_TYPE_BAD_LENGTH), value a
//     string of at most 100 (BASE_TYPE_BAD_LENGTH "Must be between 0 and
//     100 in length.", as command choices) or a JSON number within ±2^53
//     (NUMBER_TYPE_COERCE / _MAX / _MIN; other JSON types
//     STRING_TYPE_CONVERT), name_localizations optional, checked as a
//     command choice's}. An empty array is valid. Whether the values suit
//     the focused option's type is not checked.
//   - MODAL: data (BASE_TYPE_REQUIRED) with custom_id 1–100, title 1–45
//     (BASE_TYPE_BAD_LENGTH), components 1–5 objects (BASE_TYPE_BAD_LENGTH
//     "Must be between 1 and 5 in length."). Components are not parsed.
//   - Messages (ParseMessage): content ≤2000 code points
//     (BASE_TYPE_MAX_LENGTH), tts bool, flags only SUPPRESS_EMBEDS,
//     EPHEMERAL, SUPPRESS_NOTIFICATIONS, IS_VOICE_MESSAGE,
//     IS_COMPONENTS_V2; embeds ≤10, components ≤5 (≤40 with
//     IS_COMPONENTS_V2), attachments any number, each an object
//     (MODEL_TYPE_CONVERT, null LIST_ITEM_VALUE_REQUIRED); allowed_mentions
//     and poll objects (MODEL_TYPE_CONVERT). Their contents are kept as raw
//     JSON, not checked. Unknown keys are ignored. A key given as null is
//     present and empty (in an edit: cleared). On an edit without flags the
//     message's own flags decide the component limit, so the parser allows
//     40 and the caller checks ComponentLimit against the stored flags.
//     Emptiness is not checked by ParseMessage (files of a multipart body
//     count): callers test Empty and return ErrEmptyMessage.
//   - Not checked: IS_COMPONENTS_V2 excluding content/embeds/poll, the
//     inner shape of embeds, components, attachments, polls and mentions.

import (
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/msgcheck"
)

// Interaction types that are answered but not created by ParseInvocation.
const (
	MessageComponent Type = 3
	ModalSubmit      Type = 5
)

// ping is the PING interaction (type 1), answered only with PONG.
const ping Type = 1

// Callback types (Discord values).
const (
	CallbackPong                   = 1
	CallbackChannelMessage         = 4
	CallbackDeferredChannelMessage = 5
	CallbackDeferredUpdateMessage  = 6
	CallbackUpdateMessage          = 7
	CallbackAutocompleteResult     = 8
	CallbackModal                  = 9
	CallbackPremiumRequired        = 10
	CallbackLaunchActivity         = 12
)

var callbackTypes = []int{
	CallbackPong, CallbackChannelMessage, CallbackDeferredChannelMessage,
	CallbackDeferredUpdateMessage, CallbackUpdateMessage, CallbackAutocompleteResult,
	CallbackModal, CallbackPremiumRequired, CallbackLaunchActivity,
}

// ValidCallbackType reports whether t is a callback type an app may answer
// with: 1, 4, 5, 6, 7, 8, 9, 10 or 12.
func ValidCallbackType(t int) bool { return slices.Contains(callbackTypes, t) }

// Message flags an app may set.
const (
	FlagSuppressEmbeds        = 1 << 2
	FlagEphemeral             = 1 << 6
	FlagLoading               = 1 << 7
	FlagSuppressNotifications = 1 << 12
	FlagVoiceMessage          = 1 << 13
	FlagComponentsV2          = 1 << 15
)

// messageFlags are the flags a message body may carry (FlagLoading is the
// service's own, set by a deferral).
const messageFlags = FlagSuppressEmbeds | FlagEphemeral | FlagSuppressNotifications |
	FlagVoiceMessage | FlagComponentsV2

// Limits of a message body.
const (
	MaxContentLength    = 2000
	MaxEmbeds           = 10
	MaxComponents       = 5
	MaxComponentsV2     = 40
	MaxAutocompleteList = 25
	MaxModalComponents  = 5
	MaxCustomIDLength   = 100
	MaxModalTitleLength = 45
)

// Codes and messages of response errors (our naming where the real
// service's is not known; see the decisions above).
const (
	CodeResponseTypeInvalid = "INTERACTION_RESPONSE_TYPE_INVALID"
	MsgResponseTypeInvalid  = "Interaction response type is invalid for this interaction"
	CodeFlagsInvalid        = "INTERACTION_RESPONSE_FLAGS_INVALID"
	MsgFlagsInvalid         = "Invalid message flags"
	CodeResponseDataInvalid = "INTERACTION_RESPONSE_DATA_INVALID"
	MsgNoData               = "This interaction response type takes no data"
)

// ErrNoMessageToUpdate is returned, unwrapped, for DEFERRED_UPDATE_MESSAGE
// or UPDATE_MESSAGE in answer to an APPLICATION_COMMAND: the real service
// answers 404 Unknown Message.
var ErrNoMessageToUpdate = errors.New("no message to update")

// ErrEmptyMessage is the real service's 50006 for a message with nothing
// to show. Callers must not modify it.
var ErrEmptyMessage = apierr.New(400, 50006, "Cannot send an empty message")

// MessageData is message content an app sends (callback types 4 and 7,
// follow-ups, edits). Set records which top-level keys were present, null
// included (an edit changes only those).
type MessageData struct {
	Content         string
	TTS             bool
	Flags           uint64
	Embeds          []json.RawMessage
	Components      []json.RawMessage
	Attachments     []json.RawMessage
	AllowedMentions json.RawMessage
	Poll            json.RawMessage
	Set             map[string]bool // keys present: "content","tts","flags","embeds","components","attachments","allowed_mentions","poll"
	// Uploads are the files sent with the body (set by the reader of a
	// multipart request, after parsing): their attachments are among
	// Attachments or Unlisted.
	Uploads Attached
}

var messageKeys = []string{"content", "tts", "flags", "embeds", "components", "attachments", "allowed_mentions", "poll"}

// Empty reports whether the message would have nothing to show (no
// content, embeds, components, attachments or poll).
func (m MessageData) Empty() bool {
	return m.Content == "" && len(m.Embeds) == 0 && len(m.Components) == 0 &&
		len(m.Attachments) == 0 && len(m.Uploads.Unlisted) == 0 && (len(m.Poll) == 0 || string(m.Poll) == "null")
}

// ComponentLimit is how many top-level components a message with flags
// may hold.
func ComponentLimit(flags uint64) int {
	if flags&FlagComponentsV2 != 0 {
		return MaxComponentsV2
	}
	return MaxComponents
}

// Callback is an interaction response.
type Callback struct {
	Type    int
	Message MessageData     // types 4 and 7 (type 5: only Flags, from data.flags)
	Choices json.RawMessage // type 8: the validated choices array as sent
	Modal   json.RawMessage // type 9: the validated data object as sent
}

type callbackFit int

const (
	fitOK callbackFit = iota
	fitInvalid
	fitNoMessage
)

func fitOf(t int, it Type) callbackFit {
	ok := false
	switch t {
	case CallbackPong:
		ok = it == ping
	case CallbackChannelMessage, CallbackDeferredChannelMessage, CallbackPremiumRequired, CallbackLaunchActivity:
		ok = it == ApplicationCommand || it == MessageComponent || it == ModalSubmit
	case CallbackDeferredUpdateMessage, CallbackUpdateMessage:
		if it == ApplicationCommand {
			return fitNoMessage
		}
		ok = it == MessageComponent || it == ModalSubmit
	case CallbackAutocompleteResult:
		ok = it == Autocomplete
	case CallbackModal:
		ok = it == ApplicationCommand || it == MessageComponent
	}
	if ok {
		return fitOK
	}
	return fitInvalid
}

// ParseCallback reads a decoded body (form.DecodeJSON output) of POST
// /interactions/{id}/{token}/callback or an inline HTTP answer to an
// interaction of type it. The error is a *apierr.Error (50035 with field
// errors, or ErrEmptyMessage), ErrNoMessageToUpdate, or nil.
func ParseCallback(v any, it Type) (Callback, error) {
	var cb Callback
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok || !o.Require("type") {
		return cb, errs.Err()
	}
	t, ok := o.Choice("type", callbackTypes)
	if !ok {
		return cb, errs.Err()
	}
	cb.Type = t
	fit := fitOf(t, it)
	if fit == fitInvalid {
		o.At("type").Add(CodeResponseTypeInvalid, MsgResponseTypeInvalid)
	}
	raw, hasData := o.Value("data")
	var d form.Object
	dataOK := false
	switch t {
	case CallbackChannelMessage, CallbackUpdateMessage, CallbackDeferredChannelMessage,
		CallbackAutocompleteResult, CallbackModal:
		if hasData {
			d, dataOK = form.AsObject(raw, o.At("data"))
		}
	}
	switch t {
	case CallbackChannelMessage:
		cb.Message = MessageData{Set: map[string]bool{}}
		if dataOK {
			cb.Message = readMessage(d, false)
		}
	case CallbackUpdateMessage:
		cb.Message = MessageData{Set: map[string]bool{}}
		if dataOK {
			cb.Message = readMessage(d, true)
		}
	case CallbackDeferredChannelMessage:
		cb.Message = MessageData{Set: map[string]bool{}}
		if dataOK {
			if d.Has("flags") {
				cb.Message.Set["flags"] = true
			}
			if fv, ok := d.Value("flags"); ok {
				cb.Message.Flags, _ = readFlags(fv, FlagEphemeral, d.At("flags"))
			}
		}
	case CallbackAutocompleteResult:
		if !o.Require("data") {
			break
		}
		if dataOK {
			cb.Choices = readChoices(d)
		}
	case CallbackModal:
		if !o.Require("data") {
			break
		}
		if dataOK {
			readModal(d)
			cb.Modal = rawJSON(raw)
		}
	case CallbackPremiumRequired:
		if m, isMap := raw.(map[string]any); hasData && (!isMap || len(m) > 0) {
			o.At("data").Add(CodeResponseDataInvalid, MsgNoData)
		}
	}
	if err := errs.Err(); err != nil {
		return cb, err
	}
	if fit == fitNoMessage {
		return cb, ErrNoMessageToUpdate
	}
	if t == CallbackChannelMessage && cb.Message.Empty() {
		return cb, ErrEmptyMessage
	}
	return cb, nil
}

// ParseMessage reads a follow-up (edit=false) or an edit body (edit=true:
// nothing required, only present keys set). It does not check emptiness:
// see Empty and ErrEmptyMessage. The error is a 50035 *apierr.Error or nil.
func ParseMessage(v any, edit bool) (MessageData, error) {
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return MessageData{Set: map[string]bool{}}, errs.Err()
	}
	m := readMessage(o, edit)
	return m, errs.Err()
}

func readMessage(o form.Object, edit bool) MessageData {
	m := MessageData{Set: map[string]bool{}}
	for _, k := range messageKeys {
		if o.Has(k) {
			m.Set[k] = true
		}
	}
	if s, ok := o.Str("content"); ok {
		if utf8.RuneCountInString(s) > MaxContentLength {
			o.At("content").Add(form.CodeMaxLength, form.MsgMaxLength(MaxContentLength))
		} else {
			m.Content = s
		}
	}
	m.TTS, _ = o.Bool("tts")
	limit := MaxComponents
	v2 := new(bool)
	if fv, ok := o.Value("flags"); ok {
		m.Flags, _ = readFlags(fv, messageFlags, o.At("flags"))
		// The limit follows the V2 bit as sent, even when the flags are
		// invalid for other bits, so that one mistake is reported once.
		if n, ok := form.ToInt(fv); ok && n&FlagComponentsV2 != 0 {
			limit = MaxComponentsV2
			*v2 = true
		}
	} else if edit && !o.Has("flags") {
		limit = MaxComponentsV2 // the stored message's flags decide: the caller's check
		v2 = nil
	}
	m.Embeds = readObjects(o, "embeds", MaxEmbeds)
	m.Components = readObjects(o, "components", limit)
	m.Attachments = readObjects(o, "attachments", -1)
	m.AllowedMentions = readObject(o, "allowed_mentions")
	m.Poll = readObject(o, "poll")
	msgcheck.Body(wellTyped(o, messageKeys), v2, o.At())
	return m
}

// wellTyped is the keys of o, among keys, whose values were read without
// error: the inside of a value refused whole (a list too long, a string
// where an object belongs) is not checked further.
func wellTyped(o form.Object, keys []string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := o.Value(k); ok && o.At(k).Empty() {
			out[k] = v
		}
	}
	return out
}

// CheckEdit finishes checking an edit d of a stored message whose flags
// are stored, when d leaves the flags alone: the stored flags then say
// whether its components are Components V2 (and what may not stand
// beside them). The error is a 50035 *apierr.Error or nil.
func CheckEdit(d MessageData, stored uint64) error {
	if d.Set["flags"] {
		return nil // ParseMessage has checked the body against its own flags
	}
	errs := &apierr.Fields{}
	body := map[string]any{}
	if d.Set["content"] && d.Content != "" {
		body["content"] = d.Content
	}
	for key, list := range map[string][]json.RawMessage{"embeds": d.Embeds, "components": d.Components} {
		if d.Set[key] && list != nil {
			body[key] = decodeList(list)
		}
	}
	if d.Set["poll"] && len(d.Poll) > 0 && string(d.Poll) != "null" {
		if v, err := form.DecodeJSON(d.Poll); err == nil {
			body["poll"] = v
		}
	}
	msgcheck.BodyComponents(body, stored&FlagComponentsV2 != 0, errs)
	return errs.Err()
}

// decodeList decodes raw JSON items back into generic values.
func decodeList(list []json.RawMessage) []any {
	out := make([]any, 0, len(list))
	for _, raw := range list {
		if v, err := form.DecodeJSON(raw); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// readFlags reads v as flags holding only bits of allowed.
func readFlags(v any, allowed int64, at *apierr.Fields) (uint64, bool) {
	n, ok := form.ToInt(v)
	if !ok {
		at.Add(form.CodeCoerce, form.MsgNotInt(v))
		return 0, false
	}
	if n < 0 || n&^allowed != 0 {
		at.Add(CodeFlagsInvalid, MsgFlagsInvalid)
		return 0, false
	}
	return uint64(n), true
}

// readObjects reads key as an array of at most max (no limit when max < 0)
// objects, each kept as raw JSON.
func readObjects(o form.Object, key string, max int) []json.RawMessage {
	l, ok := o.List(key)
	if !ok {
		return nil
	}
	if max >= 0 && len(l) > max {
		o.At(key).Add(form.CodeMaxLength, form.MsgMaxLength(max))
		return nil
	}
	out := make([]json.RawMessage, 0, len(l))
	for i, item := range l {
		if _, ok := form.AsObject(item, o.At(key, i)); ok {
			out = append(out, rawJSON(item))
		}
	}
	return out
}

// readObject reads key as an object kept as raw JSON.
func readObject(o form.Object, key string) json.RawMessage {
	v, ok := o.Value(key)
	if !ok {
		return nil
	}
	if _, ok := form.AsObject(v, o.At(key)); !ok {
		return nil
	}
	return rawJSON(v)
}

// readChoices checks data.choices of an AUTOCOMPLETE_RESULT and returns
// the array as raw JSON.
func readChoices(d form.Object) json.RawMessage {
	if !d.Require("choices") {
		return nil
	}
	l, ok := d.List("choices")
	if !ok {
		return nil
	}
	if len(l) > MaxAutocompleteList {
		d.At("choices").Add(form.CodeMaxLength, form.MsgMaxLength(MaxAutocompleteList))
		return nil
	}
	for i, item := range l {
		at := d.At("choices", i)
		co, ok := form.AsObject(item, at)
		if !ok {
			continue
		}
		if co.Require("name") {
			co.StrLen("name", 1, command.MaxChoiceNameLength)
		}
		readChoiceLocalizations(co, at.At("name_localizations"))
		if co.Require("value") {
			v, _ := co.Value("value")
			readChoiceValue(v, at.At("value"))
		}
	}
	return rawJSON(l)
}

func readChoiceValue(v any, at *apierr.Fields) {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > command.MaxChoiceValueLength {
			at.Add(form.CodeBadLength, form.MsgBadLength(0, command.MaxChoiceValueLength))
		}
	case json.Number:
		f, ok := form.ToFloat(x)
		switch {
		case !ok:
			at.Add(form.CodeCoerce, form.MsgNotNumber(x))
		case f > command.MaxNumber:
			at.Add(form.CodeNumberMax, form.MsgFloatMax(command.MaxNumber))
		case f < -command.MaxNumber:
			at.Add(form.CodeNumberMin, form.MsgFloatMin(-command.MaxNumber))
		}
	default:
		at.Add(form.CodeStringConvert, form.MsgNotString(v))
	}
}

// readChoiceLocalizations checks name_localizations as a command choice's:
// supported locale keys, null or 1–100 code point values.
func readChoiceLocalizations(co form.Object, at *apierr.Fields) {
	d, ok := co.Dict("name_localizations")
	if !ok {
		return
	}
	for locale, raw := range d {
		switch s, isStr := raw.(string); {
		case !command.IsLocale(locale):
			at.At(locale).Add(form.CodeChoices, form.MsgChoicesOf(command.Locales()))
		case raw == nil:
		case !isStr:
			at.At(locale).Add(form.CodeStringConvert, form.MsgNotString(raw))
		default:
			if n := utf8.RuneCountInString(s); n < 1 || n > command.MaxChoiceNameLength {
				at.At(locale).Add(form.CodeBadLength, form.MsgBadLength(1, command.MaxChoiceNameLength))
			}
		}
	}
}

// readModal checks the data object of a MODAL response.
func readModal(d form.Object) {
	if d.Require("custom_id") {
		d.StrLen("custom_id", 1, MaxCustomIDLength)
	}
	if d.Require("title") {
		d.StrLen("title", 1, MaxModalTitleLength)
	}
	if d.Require("components") {
		if l, ok := d.List("components"); ok {
			if len(l) < 1 || len(l) > MaxModalComponents {
				d.At("components").Add(form.CodeBadLength, form.MsgBadLength(1, MaxModalComponents))
				return
			}
			ok := true
			for i, item := range l {
				_, isObject := form.AsObject(item, d.At("components", i))
				ok = ok && isObject
			}
			if ok {
				msgcheck.ModalComponents(l, d.At("components"))
			}
		}
	}
}

// rawJSON encodes a decoded JSON value back to JSON, without HTML escaping
// (json.Number keeps numbers as sent). Decoded values always encode.
func rawJSON(v any) json.RawMessage {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

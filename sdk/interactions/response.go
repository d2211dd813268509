package interactions

import (
	"fmt"
	"unicode/utf8"
)

// CallbackType is an interaction response's "type".
type CallbackType int

// Interaction callback types.
const (
	CallbackPong                             CallbackType = 1
	CallbackChannelMessageWithSource         CallbackType = 4
	CallbackDeferredChannelMessageWithSource CallbackType = 5
	CallbackDeferredUpdateMessage            CallbackType = 6
	CallbackUpdateMessage                    CallbackType = 7
	CallbackAutocompleteResult               CallbackType = 8
	CallbackModal                            CallbackType = 9
	CallbackLaunchActivity                   CallbackType = 12
)

// Message flags settable in a response.
const (
	FlagSuppressEmbeds = 1 << 2
	FlagEphemeral      = 1 << 6
)

// MaxAutocompleteChoices is the most choices an autocomplete result holds.
const MaxAutocompleteChoices = 25

// Response is an interaction response (callback) object, marshalled as
// {"type": Type, "data": Data} ("data" left out when nil). Data is a
// *MessageData, *AutocompleteData or *ModalData when built by this
// package's constructors; any JSON-marshalable value is accepted.
type Response struct {
	Type CallbackType `json:"type"`
	Data any          `json:"data,omitempty"`
}

// MessageData is the data of a message response (types 4 and 7, and the
// flags of type 5).
type MessageData struct {
	Content         string           `json:"content,omitempty"`
	Flags           int              `json:"flags,omitempty"`
	AllowedMentions *AllowedMentions `json:"allowed_mentions,omitempty"`
	// Components are the message's top-level components: action rows
	// (Row) of buttons or a select menu, or raw JSON objects
	// (json.RawMessage) for the others. Nil leaves them out (an
	// UpdateMessage then keeps the message's components); an empty
	// non-nil slice removes them all.
	Components []any `json:"components,omitzero"`
}

// AllowedMentions limits whom a message may ping. The zero value (Parse
// empty, not nil) pings nobody.
type AllowedMentions struct {
	Parse []string `json:"parse"`
	Users []string `json:"users,omitempty"`
	Roles []string `json:"roles,omitempty"`
}

// MessageOption changes a message response.
type MessageOption func(*MessageData)

// Ephemeral makes the message visible only to the invoking user (flag 64).
func Ephemeral() MessageOption {
	return func(m *MessageData) { m.Flags |= FlagEphemeral }
}

// NoMentions makes the message ping nobody, whatever its content
// ("allowed_mentions": {"parse": []}). Use it when echoing user input.
func NoMentions() MessageOption {
	return func(m *MessageData) { m.AllowedMentions = &AllowedMentions{Parse: []string{}} }
}

// WithComponents sets the message's components: action rows, such as
// Row(Button(…), …). With no rows it removes the components (of the
// message an UpdateMessage edits).
func WithComponents(rows ...ActionRow) MessageOption {
	return func(m *MessageData) {
		m.Components = make([]any, len(rows))
		for i, r := range rows {
			m.Components[i] = r
		}
	}
}

// WithFlags adds message flags (FlagEphemeral, FlagSuppressEmbeds, …).
func WithFlags(flags int) MessageOption {
	return func(m *MessageData) { m.Flags |= flags }
}

func messageData(content string, opts []MessageOption) *MessageData {
	m := &MessageData{Content: content}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	return m
}

// Pong acknowledges a PING: {"type":1}. Handler sends it by itself.
func Pong() Response { return Response{Type: CallbackPong} }

// Message answers with a message in the channel (type 4,
// CHANNEL_MESSAGE_WITH_SOURCE).
func Message(content string, opts ...MessageOption) Response {
	return Response{Type: CallbackChannelMessageWithSource, Data: messageData(content, opts)}
}

// Defer acknowledges now and sends the message later by editing the
// original response (type 5, DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE; the
// user sees a loading state). ephemeral makes the eventual message
// ephemeral: it is the only flag this type takes.
func Defer(ephemeral bool) Response {
	r := Response{Type: CallbackDeferredChannelMessageWithSource}
	if ephemeral {
		r.Data = &MessageData{Flags: FlagEphemeral}
	}
	return r
}

// DeferUpdate acknowledges a component interaction and edits the message
// later (type 6, DEFERRED_UPDATE_MESSAGE).
func DeferUpdate() Response { return Response{Type: CallbackDeferredUpdateMessage} }

// UpdateMessage edits the message a component is attached to (type 7,
// UPDATE_MESSAGE).
func UpdateMessage(content string, opts ...MessageOption) Response {
	return Response{Type: CallbackUpdateMessage, Data: messageData(content, opts)}
}

// Choice is an autocomplete suggestion: Value is a string, an integer or a
// float, matching the option's type.
type Choice struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// AutocompleteData is the data of an autocomplete result (type 8).
type AutocompleteData struct {
	Choices []Choice `json:"choices"`
}

// Autocomplete answers an autocomplete interaction with suggestions (type
// 8, APPLICATION_COMMAND_AUTOCOMPLETE_RESULT). Choices beyond the 25th are
// dropped; no choices sends an empty list ("no suggestions"). Use
// AutocompleteChoices to have them checked instead.
func Autocomplete(choices ...Choice) Response {
	if len(choices) > MaxAutocompleteChoices {
		choices = choices[:MaxAutocompleteChoices]
	}
	c := make([]Choice, len(choices))
	copy(c, choices)
	return Response{Type: CallbackAutocompleteResult, Data: &AutocompleteData{Choices: c}}
}

// AutocompleteChoices is Autocomplete that validates: at most 25 choices
// (else ErrTooManyChoices), each with a name of 1–100 characters and a
// value that is a string of at most 100 characters, an integer or a
// float (else ErrInvalidChoice).
func AutocompleteChoices(choices ...Choice) (Response, error) {
	if len(choices) > MaxAutocompleteChoices {
		return Response{}, fmt.Errorf("%w: %d, at most %d", ErrTooManyChoices, len(choices), MaxAutocompleteChoices)
	}
	for i, c := range choices {
		if n := utf8.RuneCountInString(c.Name); n < 1 || n > 100 {
			return Response{}, fmt.Errorf("%w: choice %d: name must be 1-100 characters", ErrInvalidChoice, i)
		}
		switch v := c.Value.(type) {
		case string:
			if utf8.RuneCountInString(v) > 100 {
				return Response{}, fmt.Errorf("%w: choice %d: string value longer than 100 characters", ErrInvalidChoice, i)
			}
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		default:
			return Response{}, fmt.Errorf("%w: choice %d: value must be a string or a number, not %T", ErrInvalidChoice, i, c.Value)
		}
	}
	return Autocomplete(choices...), nil
}

// ModalData is the data of a modal response (type 9).
type ModalData struct {
	CustomID   string `json:"custom_id"`
	Title      string `json:"title"`
	Components []any  `json:"components"`
}

// TextInputStyle is a text input's "style".
type TextInputStyle int

// Text input styles.
const (
	TextInputShort     TextInputStyle = 1
	TextInputParagraph TextInputStyle = 2
)

// ActionRow is a top-level layout component (type 1): up to 5 buttons or
// one select menu in a message, a text input in a modal.
type ActionRow struct {
	Type       int   `json:"type"`
	Components []any `json:"components"`
}

// Row returns an action row holding components: up to 5 buttons (Button,
// LinkButton) or one select menu (as a json.RawMessage or a struct of
// your own). The service checks the limits; Row does not.
func Row(components ...any) ActionRow {
	c := make([]any, len(components))
	copy(c, components)
	return ActionRow{Type: int(ComponentActionRow), Components: c}
}

// ButtonStyle is a button's "style".
type ButtonStyle int

// Button styles. ButtonLink buttons open their URL and send no
// interaction.
const (
	ButtonPrimary   ButtonStyle = 1
	ButtonSecondary ButtonStyle = 2
	ButtonSuccess   ButtonStyle = 3
	ButtonDanger    ButtonStyle = 4
	ButtonLink      ButtonStyle = 5
)

// ButtonComponent is a button (type 2), placed in an action row (Row).
// Set Disabled to show it greyed out.
type ButtonComponent struct {
	Type     int         `json:"type"`
	Style    ButtonStyle `json:"style"`
	Label    string      `json:"label,omitempty"`
	CustomID string      `json:"custom_id,omitempty"`
	URL      string      `json:"url,omitempty"`
	Disabled bool        `json:"disabled,omitempty"`
}

// Button returns a button that sends a MESSAGE_COMPONENT interaction
// with customID (1-100 characters; it is what the app gets back, so it
// may carry state, such as "counter:3") when pressed. style is
// ButtonPrimary, ButtonSecondary, ButtonSuccess or ButtonDanger; label is
// at most 80 characters.
func Button(customID, label string, style ButtonStyle) ButtonComponent {
	return ButtonComponent{Type: int(ComponentButton), Style: style, Label: label, CustomID: customID}
}

// LinkButton returns a button that opens url (at most 512 characters)
// and sends no interaction.
func LinkButton(label, url string) ButtonComponent {
	return ButtonComponent{Type: int(ComponentButton), Style: ButtonLink, Label: label, URL: url}
}

// TextInput is a text input component (type 4).
type TextInput struct {
	Type        int            `json:"type"`
	CustomID    string         `json:"custom_id"`
	Style       TextInputStyle `json:"style"`
	Label       string         `json:"label"`
	Placeholder string         `json:"placeholder,omitempty"`
	Value       string         `json:"value,omitempty"`
	Required    *bool          `json:"required,omitempty"`
	MinLength   *int           `json:"min_length,omitempty"`
	MaxLength   *int           `json:"max_length,omitempty"`
}

// TextInputRow returns an action row holding one text input, the usual
// modal component.
func TextInputRow(customID, label string, style TextInputStyle) ActionRow {
	return Row(TextInput{Type: int(ComponentTextInput), CustomID: customID, Style: style, Label: label})
}

// Modal answers with a pop-up form (type 9, MODAL). The service requires
// customID of 1-100 characters, title of at most 45 and 1-5 components
// (such as TextInputRow); Modal does not check them. Not valid in answer
// to a MODAL_SUBMIT interaction.
func Modal(customID, title string, components ...any) Response {
	c := make([]any, len(components))
	copy(c, components)
	return Response{Type: CallbackModal, Data: &ModalData{CustomID: customID, Title: title, Components: c}}
}

// LaunchActivity launches the app's Activity (type 12, LAUNCH_ACTIVITY;
// apps with Activities enabled).
func LaunchActivity() Response { return Response{Type: CallbackLaunchActivity} }

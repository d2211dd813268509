package slashdtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Callback types a Reply may have (Reply.Type).
const (
	ReplyMessage        = 4  // CHANNEL_MESSAGE_WITH_SOURCE: Reply.Message
	ReplyDeferred       = 5  // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: Reply.Message is "thinking…"
	ReplyAutocomplete   = 8  // APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: Reply.Choices
	ReplyModal          = 9  // MODAL: Reply.Modal
	ReplyLaunchActivity = 12 // LAUNCH_ACTIVITY: Reply.ActivityInstanceID
)

// messageFlagEphemeral is the EPHEMERAL message flag.
const messageFlagEphemeral = 64

// Reply is how an invocation was answered, as slashd reports it once the
// application has answered (inline or through the callback endpoint).
type Reply struct {
	// InteractionID is the interaction's id.
	InteractionID string
	// Type is the callback type of the answer (ReplyMessage…).
	Type int
	// Message is the message the answer created (ReplyMessage,
	// ReplyDeferred), nil otherwise.
	Message *Message
	// Choices are the autocomplete choices (ReplyAutocomplete).
	Choices []Choice
	// Modal is the modal's JSON: {"custom_id", "title", "components"}
	// (ReplyModal).
	Modal json.RawMessage
	// ActivityInstanceID is the launched Activity's instance id
	// (ReplyLaunchActivity).
	ActivityInstanceID string
	// Raw is slashd's whole answer: {"interaction": …, "resource": …}.
	Raw json.RawMessage
}

// String returns r.Raw, so that test failures print the whole answer.
func (r *Reply) String() string {
	if r == nil {
		return "<nil>"
	}
	return string(r.Raw)
}

// Message is a channel message.
type Message struct {
	ID        string
	ChannelID string
	// AuthorID is the author's user id: the application's id for its
	// replies.
	AuthorID string
	Content  string
	// Flags are the message flags; Ephemeral is flag 64, set on replies
	// only the invoking member sees.
	Flags     int
	Ephemeral bool
	// Embeds and Components are the message's embeds and top-level
	// components, as JSON.
	Embeds     []json.RawMessage
	Components []json.RawMessage
	// Attachments are the message's attachments, as JSON.
	Attachments []json.RawMessage
	// Raw is the whole message object.
	Raw json.RawMessage
}

// String returns m.Raw, so that test failures print the whole message.
func (m Message) String() string { return string(m.Raw) }

// Choice is an autocomplete choice.
type Choice struct {
	Name string
	// Value is a STRING choice's value, or the JSON text of a number
	// ("42", "2.5").
	Value string
}

func decodeReply(raw []byte) (*Reply, error) {
	var wire struct {
		Interaction struct {
			ID                 string `json:"id"`
			ActivityInstanceID string `json:"activity_instance_id"`
		} `json:"interaction"`
		Resource struct {
			Type             int             `json:"type"`
			Message          json.RawMessage `json:"message"`
			Choices          []wireChoice    `json:"choices"`
			Modal            json.RawMessage `json:"modal"`
			ActivityInstance struct {
				ID string `json:"id"`
			} `json:"activity_instance"`
		} `json:"resource"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("slashdtest: decode the invocation's answer %s: %w", raw, err)
	}
	r := &Reply{InteractionID: wire.Interaction.ID, Type: wire.Resource.Type, Modal: wire.Resource.Modal,
		ActivityInstanceID: wire.Resource.ActivityInstance.ID, Raw: json.RawMessage(raw)}
	if r.ActivityInstanceID == "" {
		r.ActivityInstanceID = wire.Interaction.ActivityInstanceID
	}
	if len(wire.Resource.Message) > 0 {
		m, err := decodeMessage(wire.Resource.Message)
		if err != nil {
			return nil, err
		}
		r.Message = &m
	}
	for _, c := range wire.Resource.Choices {
		r.Choices = append(r.Choices, c.choice())
	}
	return r, nil
}

type wireChoice struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

func (c wireChoice) choice() Choice {
	var s string
	if json.Unmarshal(c.Value, &s) == nil {
		return Choice{Name: c.Name, Value: s}
	}
	return Choice{Name: c.Name, Value: strings.TrimSpace(string(c.Value))}
}

type wireMessage struct {
	ID          string            `json:"id"`
	ChannelID   string            `json:"channel_id"`
	Content     string            `json:"content"`
	Flags       int               `json:"flags"`
	Embeds      []json.RawMessage `json:"embeds"`
	Components  []json.RawMessage `json:"components"`
	Attachments []json.RawMessage `json:"attachments"`
	Author      struct {
		ID string `json:"id"`
	} `json:"author"`
}

func decodeMessage(raw json.RawMessage) (Message, error) {
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return Message{}, fmt.Errorf("slashdtest: decode message %s: %w", raw, err)
	}
	return Message{
		ID: w.ID, ChannelID: w.ChannelID, AuthorID: w.Author.ID, Content: w.Content, Flags: w.Flags,
		Ephemeral: w.Flags&messageFlagEphemeral != 0, Embeds: w.Embeds, Components: w.Components,
		Attachments: w.Attachments, Raw: raw,
	}, nil
}

// Command is an application command as the member's command picker
// lists it.
type Command struct {
	ID            string
	ApplicationID string
	// Type is the command type: 1 chat input, 2 user, 3 message, 4
	// primary entry point.
	Type    int
	Name    string
	Version string
}

type wireCommand struct {
	ID            string `json:"id"`
	ApplicationID string `json:"application_id"`
	Type          int    `json:"type"`
	Name          string `json:"name"`
	Version       string `json:"version"`
}

func (c wireCommand) command() Command {
	t := c.Type
	if t == 0 {
		t = commandChatInput
	}
	return Command{ID: c.ID, ApplicationID: c.ApplicationID, Type: t, Name: c.Name, Version: c.Version}
}

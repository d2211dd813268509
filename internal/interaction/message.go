package interaction

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/wire"
)

// Message types the service creates.
const (
	MessageDefault          = 0
	MessageChatInputCommand = 20
	MessageContextMenu      = 23
)

// Message is a message object as the API returns it.
type Message struct {
	ID                  snowflake.ID         `json:"id"`
	Type                int                  `json:"type"`
	Content             string               `json:"content"`
	ChannelID           snowflake.ID         `json:"channel_id"`
	Author              wire.User            `json:"author"`
	Attachments         []json.RawMessage    `json:"attachments"`
	Embeds              []json.RawMessage    `json:"embeds"`
	Mentions            []wire.User          `json:"mentions"`
	MentionRoles        []snowflake.ID       `json:"mention_roles"`
	Pinned              bool                 `json:"pinned"`
	MentionEveryone     bool                 `json:"mention_everyone"`
	TTS                 bool                 `json:"tts"`
	Timestamp           string               `json:"timestamp"`
	EditedTimestamp     *string              `json:"edited_timestamp"`
	Flags               uint64               `json:"flags"`
	Components          []json.RawMessage    `json:"components"`
	ApplicationID       snowflake.ID         `json:"application_id,omitempty"`
	WebhookID           snowflake.ID         `json:"webhook_id,omitempty"`
	InteractionMetadata *InteractionMetadata `json:"interaction_metadata,omitempty"`
	Interaction         *MessageInteraction  `json:"interaction,omitempty"`
	Poll                json.RawMessage      `json:"poll,omitempty"`
	ActivityInstance    *ActivityInstance    `json:"activity_instance,omitempty"`
}

// InteractionMetadata says which interaction a message answers.
type InteractionMetadata struct {
	ID                           snowflake.ID            `json:"id"`
	Type                         Type                    `json:"type"`
	User                         wire.User               `json:"user"`
	AuthorizingIntegrationOwners map[string]snowflake.ID `json:"authorizing_integration_owners"`
	OriginalResponseMessageID    snowflake.ID            `json:"original_response_message_id,omitempty"`
	Name                         string                  `json:"name,omitempty"`
	CommandType                  command.Type            `json:"command_type,omitempty"`
	TargetUser                   *wire.User              `json:"target_user,omitempty"`
	TargetMessageID              snowflake.ID            `json:"target_message_id,omitempty"`
	// InteractedMessageID is the message whose component was used.
	InteractedMessageID snowflake.ID `json:"interacted_message_id,omitempty"`
	// TriggeringInteractionMetadata is, for a modal submission, the
	// metadata of the interaction that opened the modal (a command's, or
	// a component's with its interacted_message_id).
	TriggeringInteractionMetadata json.RawMessage `json:"triggering_interaction_metadata,omitempty"`
}

// MessageInteraction is the deprecated interaction field real messages
// still carry (libraries read it).
type MessageInteraction struct {
	ID   snowflake.ID `json:"id"`
	Type Type         `json:"type"`
	Name string       `json:"name"`
	User wire.User    `json:"user"`
}

// ActivityInstance is a launched Activity.
type ActivityInstance struct {
	ID string `json:"id"`
}

// NewMessage is an empty message: every list present, as the real
// service renders it. timestamp is in TimestampLayout.
func NewMessage(id, channelID snowflake.ID, author wire.User, timestamp string) Message {
	return Message{ID: id, ChannelID: channelID, Author: author, Timestamp: timestamp,
		Attachments: []json.RawMessage{}, Embeds: []json.RawMessage{}, Mentions: []wire.User{},
		MentionRoles: []snowflake.ID{}, Components: []json.RawMessage{}}
}

// Apply sets the fields d carries: all of them for a new message, the
// keys present for an edit. Nulls clear; lists never render as null.
func (m *Message) Apply(d MessageData) {
	set := func(key string) bool { return d.Set == nil || d.Set[key] }
	if set("content") {
		m.Content = d.Content
	}
	if set("tts") {
		m.TTS = d.TTS
	}
	if set("flags") {
		// Flags the app cannot set (LOADING, EPHEMERAL after the fact) are
		// the service's: an edit keeps EPHEMERAL as it was.
		m.Flags = m.Flags&FlagEphemeral | d.Flags&^(FlagEphemeral|FlagLoading)
	}
	if set("embeds") {
		m.Embeds = nonNil(normalizeEmbeds(d.Embeds))
	}
	if set("components") {
		m.Components = nonNil(normalizeComponents(d.Components))
	}
	if set("attachments") {
		m.Attachments = nonNil(d.Attachments)
	}
	if set("poll") {
		m.Poll = d.Poll
		if string(m.Poll) == "null" {
			m.Poll = nil
		}
		m.Poll = normalizePoll(m.Poll)
	}
}

func nonNil(l []json.RawMessage) []json.RawMessage {
	if l == nil {
		return []json.RawMessage{}
	}
	return l
}

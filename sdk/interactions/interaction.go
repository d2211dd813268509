package interactions

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// InteractionType is an interaction's "type".
type InteractionType int

// Interaction types.
const (
	InteractionPing               InteractionType = 1
	InteractionApplicationCommand InteractionType = 2
	InteractionMessageComponent   InteractionType = 3
	InteractionAutocomplete       InteractionType = 4 // APPLICATION_COMMAND_AUTOCOMPLETE
	InteractionModalSubmit        InteractionType = 5
)

// CommandType is an application command's "type".
type CommandType int

// Application command types.
const (
	CommandChatInput         CommandType = 1
	CommandUser              CommandType = 2
	CommandMessage           CommandType = 3
	CommandPrimaryEntryPoint CommandType = 4
)

// ContextType is where an interaction was triggered ("context").
type ContextType int

// Interaction context types.
const (
	ContextGuild          ContextType = 0
	ContextBotDM          ContextType = 1
	ContextPrivateChannel ContextType = 2
)

// Interaction is an interaction as delivered to the app. IDs are snowflake
// strings. Fields the wire may omit are empty (or nil) when absent.
type Interaction struct {
	ID            string          `json:"id"`
	ApplicationID string          `json:"application_id"`
	Type          InteractionType `json:"type"`
	Token         string          `json:"token"`
	Version       int             `json:"version"`
	GuildID       string          `json:"guild_id,omitempty"`
	ChannelID     string          `json:"channel_id,omitempty"`
	Channel       *Channel        `json:"channel,omitempty"`
	// Member is the invoking member, in a guild (with Permissions, the
	// member's permissions in the channel); User is the invoking user
	// elsewhere. InvokingUser returns whichever is set.
	Member *Member `json:"member,omitempty"`
	User   *User   `json:"user,omitempty"`
	// Locale is the invoking user's locale (every type but PING);
	// GuildLocale the guild's, in a guild.
	Locale      string `json:"locale,omitempty"`
	GuildLocale string `json:"guild_locale,omitempty"`
	// AppPermissions is the app's permission bit set in the channel, as a
	// decimal string.
	AppPermissions string `json:"app_permissions,omitempty"`
	// Context is nil when the field is absent (0 is ContextGuild).
	Context *ContextType `json:"context,omitempty"`
	// AuthorizingIntegrationOwners maps an integration type ("0" guild
	// install, "1" user install) to the guild or user id that installed
	// the app.
	AuthorizingIntegrationOwners map[string]string `json:"authorizing_integration_owners,omitempty"`
	// Data is the interaction's "data": set for every type but PING. Its
	// fields depend on Type: see CommandData.
	Data *CommandData `json:"data,omitempty"`
	// Message is the message a MESSAGE_COMPONENT interaction's component
	// is on (and a MODAL_SUBMIT's, when a component opened the modal); nil
	// otherwise.
	Message *ChannelMessage `json:"message,omitempty"`

	// Raw is the interaction's JSON as received, for fields this package
	// does not model. Set by Decode.
	Raw json.RawMessage `json:"-"`
}

// Decode parses an interaction from its JSON body. It fails when body is
// not a JSON object with a type.
func Decode(body []byte) (*Interaction, error) {
	var i Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		return nil, fmt.Errorf("interactions: decoding interaction: %w", err)
	}
	if i.Type == 0 {
		return nil, errors.New("interactions: decoding interaction: no type")
	}
	i.Raw = append(json.RawMessage(nil), body...)
	return &i, nil
}

// InvokingUser returns the user who triggered the interaction: the
// member's user in a guild, User elsewhere; nil when neither is set.
func (i *Interaction) InvokingUser() *User {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.User
	}
	return i.User
}

// User is a user object (its commonly used fields).
type User struct {
	ID            string `json:"id"`
	Username      string `json:"username"`
	Discriminator string `json:"discriminator,omitempty"`
	GlobalName    string `json:"global_name,omitempty"`
	Avatar        string `json:"avatar,omitempty"`
	Bot           bool   `json:"bot,omitempty"`
	System        bool   `json:"system,omitempty"`
	PublicFlags   int    `json:"public_flags,omitempty"`
}

// Member is a guild member. In Interaction.Member it has User and
// Permissions; in Resolved.Members it has no User (see Resolved.Users)
// and no Deaf/Mute.
type Member struct {
	User         *User      `json:"user,omitempty"`
	Nick         string     `json:"nick,omitempty"`
	Avatar       string     `json:"avatar,omitempty"`
	Roles        []string   `json:"roles"`
	JoinedAt     time.Time  `json:"joined_at"`
	PremiumSince *time.Time `json:"premium_since,omitempty"`
	Deaf         bool       `json:"deaf,omitempty"`
	Mute         bool       `json:"mute,omitempty"`
	Pending      bool       `json:"pending,omitempty"`
	Flags        int        `json:"flags,omitempty"`
	// Permissions is the member's permission bit set in the channel, as
	// a decimal string.
	Permissions string `json:"permissions,omitempty"`
	// CommunicationDisabledUntil is set while the member is timed out.
	CommunicationDisabledUntil *time.Time `json:"communication_disabled_until,omitempty"`
}

// Role is a guild role.
type Role struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Color       int    `json:"color"`
	Hoist       bool   `json:"hoist"`
	Position    int    `json:"position"`
	Permissions string `json:"permissions"`
	Managed     bool   `json:"managed"`
	Mentionable bool   `json:"mentionable"`
	Flags       int    `json:"flags,omitempty"`
}

// Channel is a partial channel, as in Interaction.Channel and
// Resolved.Channels.
type Channel struct {
	ID               string `json:"id"`
	Type             int    `json:"type"`
	Name             string `json:"name,omitempty"`
	GuildID          string `json:"guild_id,omitempty"`
	ParentID         string `json:"parent_id,omitempty"`
	Topic            string `json:"topic,omitempty"`
	Position         int    `json:"position,omitempty"`
	NSFW             bool   `json:"nsfw,omitempty"`
	LastMessageID    string `json:"last_message_id,omitempty"`
	RateLimitPerUser int    `json:"rate_limit_per_user,omitempty"`
	Flags            int    `json:"flags,omitempty"`
	// Permissions is the invoking user's permission bit set in the
	// channel (resolved channels), as a decimal string.
	Permissions string `json:"permissions,omitempty"`
}

// ResolvedMessage is a partial message, as in Resolved.Messages (the
// target of a message command).
type ResolvedMessage struct {
	ID              string       `json:"id"`
	ChannelID       string       `json:"channel_id"`
	GuildID         string       `json:"guild_id,omitempty"`
	Author          *User        `json:"author,omitempty"`
	Content         string       `json:"content"`
	Timestamp       time.Time    `json:"timestamp"`
	EditedTimestamp *time.Time   `json:"edited_timestamp,omitempty"`
	TTS             bool         `json:"tts,omitempty"`
	Pinned          bool         `json:"pinned,omitempty"`
	Type            int          `json:"type"`
	Flags           int          `json:"flags,omitempty"`
	Attachments     []Attachment `json:"attachments,omitempty"`
}

// Attachment is a message attachment, as in Resolved.Attachments.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Description string `json:"description,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Size        int    `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url,omitempty"`
	Height      *int   `json:"height,omitempty"`
	Width       *int   `json:"width,omitempty"`
	Ephemeral   bool   `json:"ephemeral,omitempty"`
}

// Resolved holds the entities an interaction refers to, keyed by snowflake:
// the values of USER, CHANNEL, ROLE, MENTIONABLE and ATTACHMENT options and
// the targets of user and message commands. Absent maps are nil (reading a
// nil map is fine).
type Resolved struct {
	Users       map[string]User            `json:"users,omitempty"`
	Members     map[string]Member          `json:"members,omitempty"`
	Roles       map[string]Role            `json:"roles,omitempty"`
	Channels    map[string]Channel         `json:"channels,omitempty"`
	Messages    map[string]ResolvedMessage `json:"messages,omitempty"`
	Attachments map[string]Attachment      `json:"attachments,omitempty"`
}

// CommandData is an interaction's "data". Which fields are set depends on
// the interaction's type:
//
//   - APPLICATION_COMMAND and AUTOCOMPLETE: ID, Name (always the
//     command's default, not localized, name), Type, GuildID, TargetID,
//     Options and Resolved;
//   - MESSAGE_COMPONENT: CustomID and ComponentType of the button or
//     select menu used, SelectValues (a select menu's chosen values) and
//     Resolved (what a user, role, mentionable or channel select's
//     values name);
//   - MODAL_SUBMIT: CustomID of the modal and Components, what the user
//     entered (read it with ModalValue and ModalInput), and Resolved.
type CommandData struct {
	ID   string      `json:"id,omitempty"`
	Name string      `json:"name,omitempty"`
	Type CommandType `json:"type,omitempty"`
	// GuildID is set when the command is a guild command.
	GuildID string `json:"guild_id,omitempty"`
	// TargetID is the user or message a user or message command was used on.
	TargetID string   `json:"target_id,omitempty"`
	Options  []Option `json:"options,omitempty"`
	Resolved Resolved `json:"resolved,omitzero"`

	// CustomID is the custom_id of the component used (MESSAGE_COMPONENT)
	// or of the modal submitted (MODAL_SUBMIT).
	CustomID string `json:"custom_id,omitempty"`
	// ComponentType is the type of the component used: ComponentButton
	// or a select menu type.
	ComponentType ComponentType `json:"component_type,omitempty"`
	// SelectValues are the values chosen in a select menu ("values",
	// always present for select menus, possibly empty): the chosen
	// options' values, or the snowflakes of the chosen users, roles or
	// channels. (Values is the options of a command.)
	SelectValues []string `json:"values,omitempty"`
	// Components are a MODAL_SUBMIT's inputs as submitted: labels around
	// one input each, or (the older form) action rows around text inputs.
	Components []ModalComponent `json:"components,omitempty"`
}

// ComponentType is a component's "type".
type ComponentType int

// Component types an app sends or receives.
const (
	ComponentActionRow         ComponentType = 1
	ComponentButton            ComponentType = 2
	ComponentStringSelect      ComponentType = 3
	ComponentTextInput         ComponentType = 4
	ComponentUserSelect        ComponentType = 5
	ComponentRoleSelect        ComponentType = 6
	ComponentMentionableSelect ComponentType = 7
	ComponentChannelSelect     ComponentType = 8
	ComponentTextDisplay       ComponentType = 10
	ComponentLabel             ComponentType = 18
	ComponentFileUpload        ComponentType = 19
	ComponentRadioGroup        ComponentType = 21
	ComponentCheckboxGroup     ComponentType = 22
	ComponentCheckbox          ComponentType = 23
)

// ModalComponent is a component of a MODAL_SUBMIT's data: a layout (a
// label's Component, an action row's Components) or an input with its
// CustomID and what the user entered.
type ModalComponent struct {
	Type ComponentType `json:"type"`
	// ID is the component's numeric identifier (not its CustomID).
	ID       int    `json:"id,omitempty"`
	CustomID string `json:"custom_id,omitempty"`
	// Value is a text input's text or a radio group's chosen value
	// (empty when none is chosen).
	Value string `json:"value,omitempty"`
	// Checked is a checkbox's state (its "value" on the wire).
	Checked bool `json:"-"`
	// Values are a select menu's, a checkbox group's or a file upload's
	// values.
	Values []string `json:"values,omitempty"`
	// Component is a label's input.
	Component *ModalComponent `json:"component,omitempty"`
	// Components are an action row's inputs.
	Components []ModalComponent `json:"components,omitempty"`
}

// wireModalComponent is a ModalComponent as on the wire. Decoding and
// encoding go through it in one pass over the whole tree: a custom
// (Un)MarshalJSON at every level would have encoding/json rescan each
// subtree once per level above it.
type wireModalComponent struct {
	Type       ComponentType        `json:"type"`
	ID         int                  `json:"id,omitempty"`
	CustomID   string               `json:"custom_id,omitempty"`
	Value      inputValue           `json:"value,omitzero"`
	Values     []string             `json:"values,omitempty"`
	Component  *wireModalComponent  `json:"component,omitempty"`
	Components []wireModalComponent `json:"components,omitempty"`
}

// inputValue is a submitted "value": a string (text inputs, radio
// groups; null when no option is chosen) or a boolean (checkboxes).
type inputValue struct {
	text    string
	checked bool
	isBool  bool
}

func (v *inputValue) UnmarshalJSON(b []byte) error {
	switch s := string(b); {
	case s == "null":
	case s == "true" || s == "false":
		*v = inputValue{checked: s == "true", isBool: true}
	case len(b) > 0 && b[0] == '"':
		var text string
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
		*v = inputValue{text: text}
	default:
		return errors.New("interactions: a component's value is neither a string nor a boolean")
	}
	return nil
}

func (v inputValue) MarshalJSON() ([]byte, error) {
	if v.isBool {
		return marshal(v.checked)
	}
	return marshal(v.text)
}

func (v inputValue) IsZero() bool { return !v.isBool && v.text == "" }

func (w *wireModalComponent) component() ModalComponent {
	c := ModalComponent{Type: w.Type, ID: w.ID, CustomID: w.CustomID, Value: w.Value.text,
		Checked: w.Value.checked, Values: w.Values}
	if w.Component != nil {
		inner := w.Component.component()
		c.Component = &inner
	}
	if w.Components != nil {
		c.Components = make([]ModalComponent, len(w.Components))
		for i := range w.Components {
			c.Components[i] = w.Components[i].component()
		}
	}
	return c
}

func (c *ModalComponent) wire() wireModalComponent {
	w := wireModalComponent{Type: c.Type, ID: c.ID, CustomID: c.CustomID, Values: c.Values,
		Value: inputValue{text: c.Value, checked: c.Checked, isBool: c.Type == ComponentCheckbox}}
	if c.Component != nil {
		inner := c.Component.wire()
		w.Component = &inner
	}
	if c.Components != nil {
		w.Components = make([]wireModalComponent, len(c.Components))
		for i := range c.Components {
			w.Components[i] = c.Components[i].wire()
		}
	}
	return w
}

// UnmarshalJSON decodes a submitted component: "value" is a string for
// text inputs and radio groups (null when no option is chosen) and a
// boolean for checkboxes.
func (c *ModalComponent) UnmarshalJSON(b []byte) error {
	var w wireModalComponent
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = w.component()
	return nil
}

// MarshalJSON writes the component as the service sends it (a checkbox's
// state as a boolean "value").
func (c ModalComponent) MarshalJSON() ([]byte, error) { return marshal(c.wire()) }

// ModalInput finds a MODAL_SUBMIT's input by custom_id, inside labels and
// action rows.
func (d *CommandData) ModalInput(customID string) (ModalComponent, bool) {
	if d == nil {
		return ModalComponent{}, false
	}
	return findModalInput(d.Components, customID)
}

func findModalInput(cs []ModalComponent, customID string) (ModalComponent, bool) {
	for _, c := range cs {
		switch {
		case c.Component != nil:
			if in, ok := findModalInput([]ModalComponent{*c.Component}, customID); ok {
				return in, true
			}
		case len(c.Components) > 0:
			if in, ok := findModalInput(c.Components, customID); ok {
				return in, true
			}
		case c.CustomID == customID && customID != "":
			return c, true
		}
	}
	return ModalComponent{}, false
}

// ModalValue returns the text the user entered in a MODAL_SUBMIT's text
// input (or the value chosen in a radio group), found by custom_id; false
// when the submission has no such input.
func (d *CommandData) ModalValue(customID string) (string, bool) {
	in, ok := d.ModalInput(customID)
	return in.Value, ok
}

// TargetUser returns the target of a user command from Resolved.Users.
func (d *CommandData) TargetUser() (User, bool) {
	if d == nil || d.TargetID == "" {
		return User{}, false
	}
	u, ok := d.Resolved.Users[d.TargetID]
	return u, ok
}

// TargetMember returns the guild member a user command was used on, from
// Resolved.Members (only in guilds; the member has no User, see
// TargetUser).
func (d *CommandData) TargetMember() (Member, bool) {
	if d == nil || d.TargetID == "" {
		return Member{}, false
	}
	m, ok := d.Resolved.Members[d.TargetID]
	return m, ok
}

// TargetMessage returns the target of a message command from
// Resolved.Messages.
func (d *CommandData) TargetMessage() (ResolvedMessage, bool) {
	if d == nil || d.TargetID == "" {
		return ResolvedMessage{}, false
	}
	m, ok := d.Resolved.Messages[d.TargetID]
	return m, ok
}

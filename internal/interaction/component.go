package interaction

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/msgcheck"
	"github.com/slashd/slashd/internal/snowflake"
)

// A user clicking a button or choosing in a select menu of an app's
// message makes a MESSAGE_COMPONENT interaction (type 3). The client's
// body: {type: 3, application_id, guild_id?, channel_id, message_id,
// data: {custom_id, component_type, values?}}.

// Component types a user can interact with.
const (
	ComponentButton            = msgcheck.TypeButton
	ComponentStringSelect      = msgcheck.TypeStringSelect
	ComponentUserSelect        = msgcheck.TypeUserSelect
	ComponentRoleSelect        = msgcheck.TypeRoleSelect
	ComponentMentionableSelect = msgcheck.TypeMentionableSelect
	ComponentChannelSelect     = msgcheck.TypeChannelSelect
)

var interactiveComponents = []int{ComponentButton, ComponentStringSelect, ComponentUserSelect,
	ComponentRoleSelect, ComponentMentionableSelect, ComponentChannelSelect}

// Errors of component invocations, in the style of the command ones.
const (
	CodeComponentInvalid = "INTERACTION_COMPONENT_INVALID"
	MsgComponentUnknown  = "Unknown component"
	MsgComponentValues   = "Only select menus have values"
	MsgComponentNoValues = "Values must be between the select menu's min_values and max_values"
	MsgComponentChoice   = "Value is not an option of the select menu"
)

// ComponentInvocation is a parsed MESSAGE_COMPONENT invocation.
type ComponentInvocation struct {
	ApplicationID snowflake.ID
	GuildID       snowflake.ID
	ChannelID     snowflake.ID
	MessageID     snowflake.ID
	Data          ComponentData
}

// ComponentData is the data object of a component interaction, as the
// app receives it.
type ComponentData struct {
	CustomID      string   `json:"custom_id"`
	ComponentType int      `json:"component_type"`
	Values        []string `json:"values,omitempty"`
	// Resolved holds what the values of a user, role, mentionable or
	// channel select name (the caller resolves SelectRefs).
	Resolved *ResolvedData `json:"resolved,omitempty"`
}

// ParseComponentInvocation reads a decoded type-3 body.
func ParseComponentInvocation(v any) (ComponentInvocation, error) {
	var inv ComponentInvocation
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		return inv, errs.Err()
	}
	inv.ApplicationID, inv.GuildID, inv.ChannelID = readWhere(o)
	if o.Require("message_id") {
		inv.MessageID, _ = o.Snowflake("message_id")
	}
	if o.Require("data") {
		raw, _ := o.Value("data")
		if d, ok := form.AsObject(raw, o.At("data")); ok {
			if d.Require("custom_id") {
				inv.Data.CustomID, _ = d.StrLen("custom_id", 1, MaxCustomIDLength)
			}
			if d.Require("component_type") {
				inv.Data.ComponentType, _ = d.Choice("component_type", interactiveComponents)
			}
			if l, ok := d.List("values"); ok {
				inv.Data.Values = readValues(l, d.At("values"))
			}
		}
	}
	return inv, errs.Err()
}

func readValues(l []any, at *apierr.Fields) []string {
	if len(l) > 25 {
		at.Add(form.CodeMaxLength, form.MsgMaxLength(25))
		return nil
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			at.At(i).Add(form.CodeStringConvert, form.MsgNotString(v))
			continue
		}
		out = append(out, s)
	}
	return out
}

// component is the part of a message component definition a click is
// checked against.
type component struct {
	Type      int    `json:"type"`
	CustomID  string `json:"custom_id"`
	Disabled  bool   `json:"disabled"`
	MinValues *int   `json:"min_values"`
	MaxValues *int   `json:"max_values"`
	// ChannelTypes bounds a channel select's choices.
	ChannelTypes []int             `json:"channel_types"`
	Options      []selectOption    `json:"options"`
	Components   []json.RawMessage `json:"components"`
	// Components v2 sections hold an accessory (a button).
	Accessory json.RawMessage `json:"accessory"`
}

type selectOption struct {
	Value string `json:"value"`
}

// CheckComponent checks a component invocation against the components of
// the message it names (the message's "components", as stored): a
// component with that custom_id and type that is not disabled, and, for
// select menus, values within min_values..max_values (and among the
// options of a string select).
func CheckComponent(inv ComponentInvocation, components []json.RawMessage) error {
	errs := &apierr.Fields{}
	c, ok := findComponent(components, inv.Data.CustomID, 0)
	switch {
	case !ok || c.Type != inv.Data.ComponentType || c.Disabled:
		errs.At("data", "custom_id").Add(CodeComponentInvalid, MsgComponentUnknown)
	case c.Type == ComponentButton:
		if inv.Data.Values != nil {
			errs.At("data", "values").Add(CodeComponentInvalid, MsgComponentValues)
		}
	default:
		checkValues(inv.Data.Values, c, errs.At("data", "values"))
	}
	return errs.Err()
}

func checkValues(values []string, c component, at *apierr.Fields) {
	lo, hi := 1, 1
	if c.MinValues != nil {
		lo = *c.MinValues
	}
	if c.MaxValues != nil {
		hi = *c.MaxValues
	}
	if len(values) < lo || len(values) > hi {
		at.Add(CodeComponentInvalid, MsgComponentNoValues)
		return
	}
	if c.Type != ComponentStringSelect {
		return // user, role, mentionable and channel ids: any snowflake
	}
	for i, v := range values {
		found := false
		for _, o := range c.Options {
			found = found || o.Value == v
		}
		if !found {
			at.At(i).Add(CodeComponentInvalid, MsgComponentChoice)
		}
	}
}

// selectOptionTypes is the option type whose resolving rules each
// auto-populated select's values follow.
var selectOptionTypes = map[int]command.OptionType{ComponentUserSelect: command.UserOption,
	ComponentRoleSelect: command.Role, ComponentMentionableSelect: command.Mentionable, ComponentChannelSelect: command.Channel}

// SelectRefs lists what the values of a user, role, mentionable or
// channel select name, for the caller to resolve into data.resolved as
// the real service does (a channel select's channel_types bound its
// channels). Each value must be a snowflake. Call it after
// CheckComponent; other components have none.
func SelectRefs(inv ComponentInvocation, components []json.RawMessage) ([]Ref, error) {
	t, ok := selectOptionTypes[inv.Data.ComponentType]
	if !ok {
		return nil, nil
	}
	c, _ := findComponent(components, inv.Data.CustomID, 0)
	errs := &apierr.Fields{}
	refs := make([]Ref, 0, len(inv.Data.Values))
	for i, v := range inv.Data.Values {
		id, err := snowflake.Parse(v)
		if err != nil {
			errs.At("data", "values", i).Add(form.CodeCoerce, form.MsgNotSnowflake(v))
			continue
		}
		refs = append(refs, Ref{Type: t, ID: id, ChannelTypes: c.ChannelTypes, Path: []any{"data", "values", i}})
	}
	return refs, errs.Err()
}

// findComponent searches a component tree (action rows, v2 containers and
// sections) for custom_id; depth bounds the search.
func findComponent(list []json.RawMessage, customID string, depth int) (component, bool) {
	if depth > 4 {
		return component{}, false
	}
	for _, raw := range list {
		var c component
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		if c.CustomID == customID && c.CustomID != "" {
			return c, true
		}
		if found, ok := findComponent(c.Components, customID, depth+1); ok {
			return found, true
		}
		if len(c.Accessory) > 0 {
			if found, ok := findComponent([]json.RawMessage{c.Accessory}, customID, depth+1); ok {
				return found, true
			}
		}
	}
	return component{}, false
}

// readWhere reads what every invocation names: the application, and the
// guild (optional) and channel it is used in.
func readWhere(o form.Object) (app, guildID, channel snowflake.ID) {
	if o.Require("application_id") {
		app, _ = o.Snowflake("application_id")
	}
	guildID, _ = o.Snowflake("guild_id")
	if o.Require("channel_id") {
		channel, _ = o.Snowflake("channel_id")
	}
	return app, guildID, channel
}

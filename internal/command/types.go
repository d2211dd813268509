// Package command is the pure model of application commands: their types,
// decoding from request JSON, validation against every rule of the spec,
// normalization, localization on read, and the planning of writes (upsert,
// edit, bulk overwrite, delete) with their limits and version bumps.
//
// Nothing here does I/O, reads the clock or imports HTTP or SQL: the store
// runs the planning functions inside its transactions and the API renders
// the errors.
package command

import (
	"github.com/slashd/slashd/internal/snowflake"
)

// Type is the application command type.
type Type int

// Command types (spec §2.2).
const (
	ChatInput         Type = 1
	User              Type = 2
	Message           Type = 3
	PrimaryEntryPoint Type = 4
)

// Valid reports whether t is a known command type.
func (t Type) Valid() bool { return t >= ChatInput && t <= PrimaryEntryPoint }

// OptionType is the type of a command option.
type OptionType int

// Option types (spec §2.4).
const (
	SubCommand      OptionType = 1
	SubCommandGroup OptionType = 2
	String          OptionType = 3
	Integer         OptionType = 4
	Boolean         OptionType = 5
	UserOption      OptionType = 6
	Channel         OptionType = 7
	Role            OptionType = 8
	Mentionable     OptionType = 9
	Number          OptionType = 10
	Attachment      OptionType = 11
)

// Valid reports whether t is a known option type.
func (t OptionType) Valid() bool { return t >= SubCommand && t <= Attachment }

// IsSub reports whether t is a subcommand or a group.
func (t OptionType) IsSub() bool { return t == SubCommand || t == SubCommandGroup }

// Handler types of entry point commands (spec §2.3).
const (
	HandlerAppHandler            = 1
	HandlerDiscordLaunchActivity = 2
)

// Integration types and interaction contexts (spec §2.6; USER_INSTALL = 1
// from the real service).
const (
	GuildInstall = 0
	UserInstall  = 1

	ContextGuild          = 0
	ContextBotDM          = 1
	ContextPrivateChannel = 2
)

// ApplicationFlagEmbedded marks apps that have an Activity (real service flag 1<<17).
const ApplicationFlagEmbedded = 1 << 17

// ApplicationFlagsGuildMembersIntent are the flags that enable an app's
// GUILD_MEMBERS privileged intent: GATEWAY_GUILD_MEMBERS (1<<14) and
// GATEWAY_GUILD_MEMBERS_LIMITED (1<<15). Either lets its bot list a
// guild's members.
const ApplicationFlagsGuildMembersIntent = 1<<14 | 1<<15

// Numeric limits (spec §2, §8).
const (
	MaxNameLength        = 32
	MaxDescriptionLength = 100
	MaxOptions           = 25
	MaxChoices           = 25
	MaxChoiceNameLength  = 100
	MaxChoiceValueLength = 100
	MaxStringLength      = 6000
	MaxTotalLength       = 8000
	MaxBulkCommands      = 130
	MaxPermissions       = 100
	MaxDailyCreates      = 200
	// MaxSafeInteger bounds INTEGER options (±(2^53-1)); NUMBER options are bounded by ±2^53.
	MaxSafeInteger = 1<<53 - 1
	MaxNumber      = 1 << 53
	// MaxPermissionBits bounds default_member_permissions (2^54-1 in the real service's schema).
	MaxPermissionBits = 1<<54 - 1
)

// MaxPerType is the number of commands of each type one scope may hold.
var maxPerType = [...]int{ChatInput: 100, User: 15, Message: 15, PrimaryEntryPoint: 1}

// MaxPerType returns the per-scope cap for a command type.
func MaxPerType(t Type) int {
	if !t.Valid() {
		return 0
	}
	return maxPerType[t]
}

// Localizations maps a locale to a localized string. A nil map is "none".
type Localizations map[string]string

// Command is an application command as stored and as returned by the
// single-object endpoints. Its JSON form is the real service's.
type Command struct {
	ID                       snowflake.ID  `json:"id"`
	Type                     Type          `json:"type"`
	ApplicationID            snowflake.ID  `json:"application_id"`
	GuildID                  snowflake.ID  `json:"guild_id,omitempty"`
	Name                     string        `json:"name"`
	NameLocalizations        Localizations `json:"name_localizations"`
	Description              string        `json:"description"`
	DescriptionLocalizations Localizations `json:"description_localizations"`
	Options                  []Option      `json:"options,omitempty"`
	DefaultMemberPermissions *string       `json:"default_member_permissions"`
	DMPermission             *bool         `json:"dm_permission,omitempty"`
	DefaultPermission        bool          `json:"default_permission"`
	NSFW                     bool          `json:"nsfw"`
	IntegrationTypes         []int         `json:"integration_types"`
	Contexts                 []int         `json:"contexts"`
	Handler                  *int          `json:"handler,omitempty"`
	Version                  snowflake.ID  `json:"version"`
	// wire is json.Marshal of this very value when a store knew it
	// (WithWire); it lets a write compare a definition with it, and find
	// the new body, with one encoding.
	wire []byte
}

// WithWire returns c carrying wire, which must be jsonenc.Marshal(c): a
// store hands plans the current commands so, once per command version.
func WithWire(c Command, wire []byte) Command {
	c.wire = wire
	return c
}

// plain is c without its wire form (what a plan returns to callers).
func plain(c Command) Command {
	c.wire = nil
	return c
}

// Option is a command option, subcommand or subcommand group.
type Option struct {
	Type                     OptionType    `json:"type"`
	Name                     string        `json:"name"`
	NameLocalizations        Localizations `json:"name_localizations,omitempty"`
	Description              string        `json:"description"`
	DescriptionLocalizations Localizations `json:"description_localizations,omitempty"`
	Required                 bool          `json:"required,omitempty"`
	Choices                  []Choice      `json:"choices,omitempty"`
	Options                  []Option      `json:"options,omitempty"`
	ChannelTypes             []int         `json:"channel_types,omitempty"`
	MinValue                 *float64      `json:"min_value,omitempty"`
	MaxValue                 *float64      `json:"max_value,omitempty"`
	MinLength                *int          `json:"min_length,omitempty"`
	MaxLength                *int          `json:"max_length,omitempty"`
	Autocomplete             bool          `json:"autocomplete,omitempty"`
}

// Choice is one predefined value of an option. Value is a string for STRING
// options and a float64 (integral for INTEGER) for numeric ones.
type Choice struct {
	Name              string        `json:"name"`
	NameLocalizations Localizations `json:"name_localizations,omitempty"`
	Value             any           `json:"value"`
}

// Scope names where a command lives: globally (GuildID 0) or in one guild.
type Scope struct {
	ApplicationID snowflake.ID
	GuildID       snowflake.ID
}

// Global reports whether the scope is the application's global one.
func (s Scope) Global() bool { return s.GuildID == 0 }

// App is what validation needs to know about the owning application.
type App struct {
	ID               snowflake.ID
	Flags            uint64
	IntegrationTypes []int // installation contexts the app supports
	// Discoverable: the app has discovery enabled, so none of its
	// commands may be age-restricted (nsfw).
	Discoverable bool
}

// Embedded reports whether the app has an Activity.
func (a App) Embedded() bool { return a.Flags&ApplicationFlagEmbedded != 0 }

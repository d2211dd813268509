package command

import "github.com/slashd/slashd/internal/snowflake"

// ListItem is a command as the list endpoints return it by default: the
// localization dictionaries are left out and name_localized /
// description_localized carry the requester's locale, when the dictionary
// has it (directly or through a fallback).
type ListItem struct {
	ID                       snowflake.ID `json:"id"`
	Type                     Type         `json:"type"`
	ApplicationID            snowflake.ID `json:"application_id"`
	GuildID                  snowflake.ID `json:"guild_id,omitempty"`
	Name                     string       `json:"name"`
	NameLocalized            *string      `json:"name_localized,omitempty"`
	Description              string       `json:"description"`
	DescriptionLocalized     *string      `json:"description_localized,omitempty"`
	Options                  []ListOption `json:"options,omitempty"`
	DefaultMemberPermissions *string      `json:"default_member_permissions"`
	DMPermission             *bool        `json:"dm_permission,omitempty"`
	DefaultPermission        bool         `json:"default_permission"`
	NSFW                     bool         `json:"nsfw"`
	IntegrationTypes         []int        `json:"integration_types"`
	Contexts                 []int        `json:"contexts"`
	Handler                  *int         `json:"handler,omitempty"`
	Version                  snowflake.ID `json:"version"`
}

// ListOption is an option in a ListItem.
type ListOption struct {
	Type                 OptionType   `json:"type"`
	Name                 string       `json:"name"`
	NameLocalized        *string      `json:"name_localized,omitempty"`
	Description          string       `json:"description"`
	DescriptionLocalized *string      `json:"description_localized,omitempty"`
	Required             bool         `json:"required,omitempty"`
	Choices              []ListChoice `json:"choices,omitempty"`
	Options              []ListOption `json:"options,omitempty"`
	ChannelTypes         []int        `json:"channel_types,omitempty"`
	MinValue             *float64     `json:"min_value,omitempty"`
	MaxValue             *float64     `json:"max_value,omitempty"`
	MinLength            *int         `json:"min_length,omitempty"`
	MaxLength            *int         `json:"max_length,omitempty"`
	Autocomplete         bool         `json:"autocomplete,omitempty"`
}

// ListChoice is a choice in a ListOption.
type ListChoice struct {
	Name          string  `json:"name"`
	NameLocalized *string `json:"name_localized,omitempty"`
	Value         any     `json:"value"`
}

// Localized renders c for a list response in locale ("" for none).
func Localized(c *Command, locale string) ListItem {
	return ListItem{
		ID: c.ID, Type: c.Type, ApplicationID: c.ApplicationID, GuildID: c.GuildID,
		Name: c.Name, NameLocalized: lookup(c.NameLocalizations, locale),
		Description: c.Description, DescriptionLocalized: lookup(c.DescriptionLocalizations, locale),
		Options:                  localizedOptions(c.Options, locale),
		DefaultMemberPermissions: c.DefaultMemberPermissions, DMPermission: c.DMPermission,
		DefaultPermission: c.DefaultPermission, NSFW: c.NSFW,
		IntegrationTypes: c.IntegrationTypes, Contexts: c.Contexts, Handler: c.Handler, Version: c.Version,
	}
}

func localizedOptions(opts []Option, locale string) []ListOption {
	if len(opts) == 0 {
		return nil
	}
	out := make([]ListOption, len(opts))
	for i := range opts {
		o := &opts[i]
		out[i] = ListOption{
			Type: o.Type, Name: o.Name, NameLocalized: lookup(o.NameLocalizations, locale),
			Description: o.Description, DescriptionLocalized: lookup(o.DescriptionLocalizations, locale),
			Required: o.Required, Options: localizedOptions(o.Options, locale),
			ChannelTypes: o.ChannelTypes, MinValue: o.MinValue, MaxValue: o.MaxValue,
			MinLength: o.MinLength, MaxLength: o.MaxLength, Autocomplete: o.Autocomplete,
		}
		if len(o.Choices) > 0 {
			out[i].Choices = make([]ListChoice, len(o.Choices))
			for j, ch := range o.Choices {
				out[i].Choices[j] = ListChoice{Name: ch.Name, NameLocalized: lookup(ch.NameLocalizations, locale), Value: ch.Value}
			}
		}
	}
	return out
}

func lookup(l Localizations, locale string) *string {
	if v, ok := l.Lookup(locale); ok {
		return &v
	}
	return nil
}

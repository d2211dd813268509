package interaction

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/wire"
)

// The wire shapes of what an app receives (api-facts §4.1, §5). The
// caller fills them from the world; nothing here reads it. Nullable
// fields the real service always sends (avatar, premium_since, …) are
// pointers left nil, so that they render as null rather than vanish.

// Payload is the interaction object delivered to an app.
type Payload struct {
	ID                           snowflake.ID            `json:"id"`
	ApplicationID                snowflake.ID            `json:"application_id"`
	Type                         Type                    `json:"type"`
	Data                         any                     `json:"data,omitempty"` // *PayloadData or ComponentData
	Guild                        *PartialGuild           `json:"guild,omitempty"`
	GuildID                      snowflake.ID            `json:"guild_id,omitempty"`
	Channel                      any                     `json:"channel,omitempty"` // *Channel; outside guilds *PrivateChannel or *PrivateGroupChannel
	ChannelID                    snowflake.ID            `json:"channel_id,omitempty"`
	Member                       *Member                 `json:"member,omitempty"`
	User                         *wire.User              `json:"user,omitempty"`
	Token                        string                  `json:"token"`
	Version                      int                     `json:"version"`
	Message                      json.RawMessage         `json:"message,omitempty"`
	AppPermissions               guild.Permissions       `json:"app_permissions"`
	Locale                       string                  `json:"locale,omitempty"`
	GuildLocale                  string                  `json:"guild_locale,omitempty"`
	Entitlements                 []json.RawMessage       `json:"entitlements"`
	AuthorizingIntegrationOwners map[string]snowflake.ID `json:"authorizing_integration_owners"`
	Context                      int                     `json:"context"`
	AttachmentSizeLimit          int                     `json:"attachment_size_limit"`
}

// Invoker is the user who invoked: the member's user in a guild, else
// the user.
func (p *Payload) Invoker() wire.User {
	if p.Member != nil && p.Member.User != nil {
		return *p.Member.User
	}
	if p.User != nil {
		return *p.User
	}
	return wire.User{}
}

// PrivateChannel is a DM as an interaction carries it: the DM channel
// object the API serves, with the invoker's permissions there.
type PrivateChannel struct {
	wire.DMChannel
	Permissions guild.Permissions `json:"permissions"`
}

// PrivateGroupChannel is a group DM as an interaction carries it.
type PrivateGroupChannel struct {
	wire.GroupDMChannel
	Permissions guild.Permissions `json:"permissions"`
}

// PayloadData is the data object of an application command or
// autocomplete interaction, with resolved.
type PayloadData struct {
	Data
	Resolved *ResolvedData `json:"resolved,omitempty"`
}

// ResolvedData holds the entities the options and the target name, keyed
// by id; empty maps are left out.
type ResolvedData struct {
	Users       map[snowflake.ID]wire.User       `json:"users,omitempty"`
	Members     map[snowflake.ID]Member          `json:"members,omitempty"`
	Roles       map[snowflake.ID]Role            `json:"roles,omitempty"`
	Channels    map[snowflake.ID]Channel         `json:"channels,omitempty"`
	Messages    map[snowflake.ID]json.RawMessage `json:"messages,omitempty"`
	Attachments map[snowflake.ID]Attachment      `json:"attachments,omitempty"`
}

// Empty reports whether nothing was resolved.
func (r *ResolvedData) Empty() bool {
	return len(r.Users)+len(r.Members)+len(r.Roles)+len(r.Channels)+len(r.Messages)+len(r.Attachments) == 0
}

// PartialGuild is the guild object an interaction carries.
type PartialGuild struct {
	ID       snowflake.ID `json:"id"`
	Locale   string       `json:"locale"`
	Features []string     `json:"features"`
}

// Member is an interaction's guild member: the gateway's member object
// plus the member's permissions in the channel and is_pending.
type Member struct {
	wire.GuildMember
	IsPending   bool              `json:"is_pending"`
	Permissions guild.Permissions `json:"permissions"`
}

// NewMember shapes a membership; with a user, the full form an
// interaction's member has, without, the partial form of resolved.
func NewMember(m guild.Member, user *wire.User, perms guild.Permissions) Member {
	return Member{GuildMember: wire.NewGuildMember(user, m.Nick, m.Roles, m.JoinedAt.UTC().Format(TimestampLayout)),
		Permissions: perms}
}

// Role is a role object (OpenAPI's GuildRoleResponse): in GUILD_CREATE,
// GET /guilds/{id}/roles and an interaction's resolved roles alike.
type Role struct {
	ID           snowflake.ID      `json:"id"`
	Name         string            `json:"name"`
	Color        int               `json:"color"`
	Colors       RoleColors        `json:"colors"`
	Hoist        bool              `json:"hoist"`
	Icon         *string           `json:"icon"`
	UnicodeEmoji *string           `json:"unicode_emoji"`
	Position     int               `json:"position"`
	Permissions  guild.Permissions `json:"permissions"`
	Managed      bool              `json:"managed"`
	Mentionable  bool              `json:"mentionable"`
	Flags        int               `json:"flags"`
}

// RoleColors are a role's colors (the real service's replacement for
// color, which it still sends): slashd's roles have none, so the
// primary is 0 as color is, and there is no gradient.
type RoleColors struct {
	Primary   int  `json:"primary_color"`
	Secondary *int `json:"secondary_color"`
	Tertiary  *int `json:"tertiary_color"`
}

// NewRole shapes a role.
func NewRole(r guild.Role) Role {
	return Role{ID: r.ID, Name: r.Name, Position: r.Position, Permissions: r.Permissions, Managed: r.Managed}
}

// Channel is the partial channel of an interaction and of resolved: the
// keys api-facts §5 lists, with the invoker's permissions there.
type Channel struct {
	ID               snowflake.ID      `json:"id"`
	Type             int               `json:"type"`
	GuildID          snowflake.ID      `json:"guild_id"`
	Name             string            `json:"name"`
	ParentID         *snowflake.ID     `json:"parent_id"`
	NSFW             bool              `json:"nsfw"`
	Position         int               `json:"position"`
	Permissions      guild.Permissions `json:"permissions"`
	Flags            int               `json:"flags"`
	LastMessageID    *snowflake.ID     `json:"last_message_id"`
	RateLimitPerUser int               `json:"rate_limit_per_user"`
	Topic            *string           `json:"topic"`
}

// NewChannel shapes a channel as seen by a member with perms there.
func NewChannel(c guild.Channel, perms guild.Permissions) Channel {
	out := Channel{ID: c.ID, Type: c.Type, GuildID: c.GuildID, Name: c.Name, NSFW: c.NSFW,
		Position: c.Position, Permissions: perms}
	if c.ParentID != 0 {
		p := c.ParentID
		out.ParentID = &p
	}
	return out
}

// Attachment is an uploaded file an ATTACHMENT option names.
type Attachment struct {
	ID          snowflake.ID `json:"id"`
	Filename    string       `json:"filename"`
	Size        int64        `json:"size"`
	URL         string       `json:"url"`
	ProxyURL    string       `json:"proxy_url"`
	ContentType string       `json:"content_type,omitempty"`
	Ephemeral   bool         `json:"ephemeral"`
}

// TimestampLayout renders times (in UTC) as the real service does: ISO
// 8601 with microseconds and an explicit offset.
const TimestampLayout = "2006-01-02T15:04:05.000000+00:00"

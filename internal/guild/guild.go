// Package guild is the pure model of the world commands live in: guilds,
// roles, members, channels with permission overwrites, and the real
// service's computation of a member's permissions in a channel. No I/O.
package guild

import (
	"strconv"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// Permissions is a permission bit set; it travels as a decimal string.
type Permissions uint64

// Permission bits used by slashd's rules (the real service's values).
const (
	CreateInstantInvite    Permissions = 1 << 0
	KickMembers            Permissions = 1 << 1
	BanMembers             Permissions = 1 << 2
	Administrator          Permissions = 1 << 3
	ManageChannels         Permissions = 1 << 4
	ManageGuild            Permissions = 1 << 5
	AddReactions           Permissions = 1 << 6
	ViewChannel            Permissions = 1 << 10
	SendMessages           Permissions = 1 << 11
	ManageMessages         Permissions = 1 << 13
	EmbedLinks             Permissions = 1 << 14
	AttachFiles            Permissions = 1 << 15
	ReadMessageHistory     Permissions = 1 << 16
	MentionEveryone        Permissions = 1 << 17
	UseExternalEmojis      Permissions = 1 << 18
	ManageRoles            Permissions = 1 << 28
	UseApplicationCommands Permissions = 1 << 31
	UseEmbeddedActivities  Permissions = 1 << 39
	UseExternalApps        Permissions = 1 << 50

	// All is every defined bit (0 to 52).
	All Permissions = 1<<53 - 1
	// DefaultEveryone is what a new guild's @everyone role gets: view,
	// send, read history, add reactions, invite, use application
	// commands, activities and external apps.
	DefaultEveryone = CreateInstantInvite | AddReactions | ViewChannel | SendMessages | ReadMessageHistory |
		UseApplicationCommands | UseEmbeddedActivities | UseExternalApps
)

// ParsePermissions reads a decimal bit set; it must fit the defined bits.
func ParsePermissions(s string) (Permissions, bool) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || Permissions(v)&^All != 0 {
		return 0, false
	}
	return Permissions(v), true
}

// String renders the decimal form.
func (p Permissions) String() string { return strconv.FormatUint(uint64(p), 10) }

// Has reports whether every bit of want is set.
func (p Permissions) Has(want Permissions) bool { return p&want == want }

// MarshalText renders the bit set in decimal, which encoding/json writes
// as a JSON string, as the real service does (text rather than
// MarshalJSON, for the reason snowflake.ID gives).
func (p Permissions) MarshalText() ([]byte, error) {
	return strconv.AppendUint(nil, uint64(p), 10), nil
}

// Guild is a server.
type Guild struct {
	ID        snowflake.ID `json:"id"`
	Name      string       `json:"name"`
	OwnerID   snowflake.ID `json:"owner_id"`
	CreatedAt time.Time    `json:"-"`
	// WorldID is the test world the guild belongs to (0: none); fixed at
	// creation.
	WorldID snowflake.ID `json:"-"`
}

// EveryoneRoleID is the id of a guild's @everyone role: the guild's id.
func EveryoneRoleID(g snowflake.ID) snowflake.ID { return g }

// Role is a guild role. The @everyone role has the guild's id.
type Role struct {
	ID          snowflake.ID `json:"id"`
	GuildID     snowflake.ID `json:"guild_id"`
	Name        string       `json:"name"`
	Permissions Permissions  `json:"permissions"`
	Position    int          `json:"position"`
	// Managed roles belong to an app's bot (created on installation).
	Managed bool `json:"managed"`
}

// Member is a user's membership of a guild. Roles never lists @everyone,
// which every member has.
type Member struct {
	GuildID  snowflake.ID   `json:"guild_id"`
	UserID   snowflake.ID   `json:"user_id"`
	Nick     string         `json:"nick,omitempty"`
	Roles    []snowflake.ID `json:"roles"`
	JoinedAt time.Time      `json:"joined_at"`
}

// Channel types (real service values).
const (
	ChannelText               = 0
	ChannelDM                 = 1 // a DM between two users: outside guilds
	ChannelVoice              = 2
	ChannelGroupDM            = 3 // a DM between several users: outside guilds
	ChannelCategory           = 4
	ChannelAnnouncement       = 5
	ChannelAnnouncementThread = 10
	ChannelPublicThread       = 11
	ChannelPrivateThread      = 12
	ChannelStageVoice         = 13
	ChannelForum              = 15
	ChannelMedia              = 16
)

// DMPermissions is what a participant may do in a DM or group DM: the
// text permissions, without the moderation ones (there is no guild).
const DMPermissions = AddReactions | ViewChannel | SendMessages | EmbedLinks | AttachFiles | ReadMessageHistory |
	MentionEveryone | UseExternalEmojis | UseApplicationCommands | UseEmbeddedActivities | UseExternalApps

// App permissions outside guilds, as the real service's interaction
// object documents them: in (group) DMs with other users, and (adding
// USE_EXTERNAL_EMOJIS) in the DM with the app's bot.
const (
	AppPermissionsPrivateChannel = AttachFiles | EmbedLinks | MentionEveryone
	AppPermissionsBotDM          = AppPermissionsPrivateChannel | UseExternalEmojis
)

// GuildChannelTypes are the channel types a guild may hold.
var GuildChannelTypes = []int{ChannelText, ChannelVoice, ChannelCategory, ChannelAnnouncement,
	ChannelAnnouncementThread, ChannelPublicThread, ChannelPrivateThread, ChannelStageVoice, ChannelForum, ChannelMedia}

// IsThread reports whether a channel type is a thread.
func IsThread(t int) bool {
	return t == ChannelAnnouncementThread || t == ChannelPublicThread || t == ChannelPrivateThread
}

// Overwrite types.
const (
	OverwriteRole   = 0
	OverwriteMember = 1
)

// Overwrite adjusts permissions in a channel for a role or a member.
type Overwrite struct {
	ID    snowflake.ID `json:"id"`
	Type  int          `json:"type"`
	Allow Permissions  `json:"allow"`
	Deny  Permissions  `json:"deny"`
}

// Channel is a guild channel, category or thread. A thread's parent is
// the channel it belongs to; a channel's parent is its category.
type Channel struct {
	ID         snowflake.ID `json:"id"`
	GuildID    snowflake.ID `json:"guild_id"`
	Type       int          `json:"type"`
	Name       string       `json:"name"`
	ParentID   snowflake.ID `json:"parent_id,omitempty"`
	NSFW       bool         `json:"nsfw"`
	Position   int          `json:"position"`
	Overwrites []Overwrite  `json:"permission_overwrites"`
}

package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// The guild routes a bot reads (discord.js guild.members.fetch(id),
// guild.roles.fetch(), guild.channels.fetch(), client.guilds.fetch(id);
// discordgo's s.Guild, s.GuildMember, s.GuildRoles, s.GuildChannels):
// GET /guilds/{id}, its members, roles and channels, rendered with the
// GUILD_CREATE renderers. A bot reads the guilds its bot user is in; so
// does a person with their client token, except the member list and
// search, which are the bot's (docs/compat.md, "Guild routes").

// errUnknownRole is the real service's 404 for a role id the guild has
// not (errUnknownMember, explain.go, is its member counterpart).
var errUnknownRole = apierr.New(http.StatusNotFound, apierr.CodeUnknownRole, "Unknown Role")

// Guild defaults: what a new server on the real service has, for the
// settings slashd does not keep.
const (
	guildAFKTimeout                = 300
	guildMaxMembers                = 500_000
	guildMaxVideoChannelUsers      = 25
	guildMaxStageVideoChannelUsers = 50
)

// guildObject is the guild object (OpenAPI's GuildResponse): what GET
// /guilds/{id} answers and GUILD_CREATE extends. slashd keeps a guild's
// name, owner and roles; every other setting is a new server's default
// (no icon, features, emojis or AFK channel).
type guildObject struct {
	ID                          snowflake.ID       `json:"id"`
	Name                        string             `json:"name"`
	Icon                        *string            `json:"icon"`
	Description                 *string            `json:"description"`
	HomeHeader                  *string            `json:"home_header"`
	Splash                      *string            `json:"splash"`
	DiscoverySplash             *string            `json:"discovery_splash"`
	Features                    []string           `json:"features"`
	Banner                      *string            `json:"banner"`
	OwnerID                     snowflake.ID       `json:"owner_id"`
	ApplicationID               *snowflake.ID      `json:"application_id"`
	Region                      string             `json:"region"`
	AFKChannelID                *snowflake.ID      `json:"afk_channel_id"`
	AFKTimeout                  int                `json:"afk_timeout"`
	SystemChannelID             *snowflake.ID      `json:"system_channel_id"`
	SystemChannelFlags          int                `json:"system_channel_flags"`
	WidgetEnabled               bool               `json:"widget_enabled"`
	WidgetChannelID             *snowflake.ID      `json:"widget_channel_id"`
	VerificationLevel           int                `json:"verification_level"`
	Roles                       []interaction.Role `json:"roles"`
	DefaultMessageNotifications int                `json:"default_message_notifications"`
	MFALevel                    int                `json:"mfa_level"`
	ExplicitContentFilter       int                `json:"explicit_content_filter"`
	MaxPresences                *int               `json:"max_presences"`
	MaxMembers                  int                `json:"max_members"`
	MaxStageVideoChannelUsers   int                `json:"max_stage_video_channel_users"`
	MaxVideoChannelUsers        int                `json:"max_video_channel_users"`
	VanityURLCode               *string            `json:"vanity_url_code"`
	PremiumTier                 int                `json:"premium_tier"`
	PremiumSubscriptionCount    int                `json:"premium_subscription_count"`
	PreferredLocale             string             `json:"preferred_locale"`
	RulesChannelID              *snowflake.ID      `json:"rules_channel_id"`
	SafetyAlertsChannelID       *snowflake.ID      `json:"safety_alerts_channel_id"`
	PublicUpdatesChannelID      *snowflake.ID      `json:"public_updates_channel_id"`
	PremiumProgressBarEnabled   bool               `json:"premium_progress_bar_enabled"`
	NSFW                        bool               `json:"nsfw"`
	NSFWLevel                   int                `json:"nsfw_level"`
	Emojis                      []json.RawMessage  `json:"emojis"`
	Stickers                    []json.RawMessage  `json:"stickers"`
	IncidentsData               json.RawMessage    `json:"incidents_data"` // nil: null
	// The counts GET /guilds/{id}?with_counts=true adds.
	ApproximateMemberCount   *int `json:"approximate_member_count,omitempty"`
	ApproximatePresenceCount *int `json:"approximate_presence_count,omitempty"`
}

// newGuildObject renders a guild from its snapshot.
func newGuildObject(snap store.Snapshot) guildObject {
	return guildObject{
		ID: snap.Guild.ID, Name: snap.Guild.Name, Features: []string{}, OwnerID: snap.Guild.OwnerID,
		AFKTimeout: guildAFKTimeout, Roles: guildRoles(snap), MaxMembers: guildMaxMembers,
		MaxStageVideoChannelUsers: guildMaxStageVideoChannelUsers, MaxVideoChannelUsers: guildMaxVideoChannelUsers,
		PreferredLocale: defaultLocale, Emojis: []json.RawMessage{}, Stickers: []json.RawMessage{},
	}
}

// guildRoles renders a guild's roles, in the snapshot's order.
func guildRoles(snap store.Snapshot) []interaction.Role {
	return convertAll(snap.Roles, interaction.NewRole)
}

// guildView reads the path's guild for the token's user (a bot token's
// bot user, or a client token's person): a guild that does not exist is
// Unknown Guild, one they are not in Missing Access.
func (s *Server) guildView(r *http.Request) (memberView, error) {
	id, err := pathID(r, "guild_id")
	if err != nil {
		return memberView{}, err
	}
	view, err := s.loadMemberView(r.Context(), id, principalFrom(r.Context()).Token.UserID)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, errOtherWorld):
		return memberView{}, errUnknownGuild
	case errors.Is(err, errNotMember):
		return memberView{}, errMissingAccess
	}
	return view, err
}

// getGuild is GET /guilds/{id}: the guild object; with ?with_counts=true,
// its approximate member and presence counts. A guild the caller is not
// in answers Unknown Guild, as one that does not exist (the real
// service's answer since 2023, discord-api-docs#5840), so the route does
// not tell which guilds exist.
func (s *Server) getGuild(w http.ResponseWriter, r *http.Request) error {
	withCounts, err := queryBool(r, "with_counts")
	if err != nil {
		return err
	}
	view, err := s.guildView(r)
	if errors.Is(err, errMissingAccess) {
		return errUnknownGuild
	}
	if err != nil {
		return err
	}
	g := newGuildObject(view.snap)
	if withCounts {
		members, err := s.store.Members(r.Context(), g.ID)
		if err != nil {
			return err
		}
		// slashd keeps no presences (GUILD_CREATE's presences are
		// empty), so no member counts as online.
		n, online := len(members), 0
		g.ApproximateMemberCount, g.ApproximatePresenceCount = &n, &online
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// getGuildMember is GET /guilds/{id}/members/{user_id}: the member as
// GUILD_CREATE renders one (no permissions: only an interaction's member
// carries them). A user who does not exist is Unknown User; one who is
// not in the guild, Unknown Member.
func (s *Server) getGuildMember(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	userID, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	found, err := s.store.SearchMembers(r.Context(), view.snap.Guild.ID, store.MemberQuery{UserIDs: []snowflake.ID{userID}})
	if err != nil {
		return err
	}
	if len(found) == 0 {
		u, err := s.store.User(r.Context(), userID)
		if err != nil {
			return store.NotFoundAs(err, errUnknownUser)
		}
		if u.WorldID != view.user.WorldID {
			return errUnknownUser // another world's user is unknown
		}
		return errUnknownMember
	}
	writeJSON(w, http.StatusOK, guildMember(found[0].Member, found[0].User))
	return nil
}

// listGuildMembers is GET /guilds/{id}/members: members by user id,
// ?limit (1-1000, default 1) of them after ?after. Only a bot lists, and
// only with the GUILD_MEMBERS privileged intent enabled on its app (the
// real service answers Missing Access otherwise, as it does a person's
// token).
func (s *Server) listGuildMembers(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	limit, err := parseLimit(r, "limit", 1, 1, 1000)
	if err != nil {
		return err
	}
	var after snowflake.ID
	if raw := r.URL.Query().Get("after"); raw != "" {
		if after, err = snowflake.Parse(raw); err != nil {
			return apierr.Invalid(form.CodeCoerce, form.MsgNotSnowflake(raw), "after")
		}
	}
	if err := s.mayListMembers(r); err != nil {
		return err
	}
	found, err := s.store.SearchMembers(r.Context(), view.snap.Guild.ID, store.MemberQuery{After: after, Limit: int(limit)})
	if err != nil {
		return err
	}
	writeMembers(w, found)
	return nil
}

// mayListMembers: the caller is a bot whose app has the GUILD_MEMBERS
// intent enabled (the flag the gateway checks for that intent).
func (s *Server) mayListMembers(r *http.Request) error {
	p := principalFrom(r.Context())
	if !p.Bot() {
		return errMissingAccess
	}
	app, err := s.store.Application(r.Context(), p.Token.ApplicationID)
	if err != nil {
		return store.NotFoundAs(err, errUnauthorized) // the app was deleted under its token
	}
	if app.Flags&command.ApplicationFlagsGuildMembersIntent == 0 {
		return errMissingAccess
	}
	return nil
}

// Search Guild Members' query length bounds.
const memberQueryMaxLength = 100

// searchGuildMembers is GET /guilds/{id}/members/search: members whose
// username or nickname starts with ?query (1-100 characters, compared
// case-insensitively), ?limit (1-1000, default 1) of them, by user id. A
// bot's, as the list (the docs ask no intent for it).
func (s *Server) searchGuildMembers(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	query, ok := r.URL.Query()["query"]
	if !ok {
		return apierr.Invalid(form.CodeRequired, form.MsgRequired, "query")
	}
	q := query[0]
	if n := utf8.RuneCountInString(q); n < 1 || n > memberQueryMaxLength {
		return apierr.Invalid(form.CodeBadLength, form.MsgBadLength(1, memberQueryMaxLength), "query")
	}
	limit, err := parseLimit(r, "limit", 1, 1, 1000)
	if err != nil {
		return err
	}
	if !principalFrom(r.Context()).Bot() {
		return errMissingAccess
	}
	// The store's prefix matches usernames only; nicknames are compared
	// here, over the guild's members in user id order.
	all, err := s.store.SearchMembers(r.Context(), view.snap.Guild.ID, store.MemberQuery{})
	if err != nil {
		return err
	}
	prefix := strings.ToLower(q)
	found := make([]store.MemberUser, 0, min(int(limit), len(all)))
	for _, mu := range all {
		if len(found) == int(limit) {
			break
		}
		if strings.HasPrefix(strings.ToLower(mu.User.Username), prefix) ||
			(mu.Member.Nick != "" && strings.HasPrefix(strings.ToLower(mu.Member.Nick), prefix)) {
			found = append(found, mu)
		}
	}
	writeMembers(w, found)
	return nil
}

// writeMembers answers members as GUILD_CREATE renders them.
func writeMembers(w http.ResponseWriter, found []store.MemberUser) {
	writeJSON(w, http.StatusOK, convertAll(found, func(mu store.MemberUser) wire.GuildMember {
		return guildMember(mu.Member, mu.User)
	}))
}

// getGuildRoles is GET /guilds/{id}/roles: every role of the guild.
func (s *Server) getGuildRoles(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, guildRoles(view.snap))
	return nil
}

// getGuildRole is GET /guilds/{id}/roles/{role_id}: one role.
func (s *Server) getGuildRole(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	roleID, err := pathID(r, "role_id")
	if err != nil {
		return err
	}
	role, ok := view.roles[roleID]
	if !ok {
		return errUnknownRole
	}
	writeJSON(w, http.StatusOK, interaction.NewRole(role))
	return nil
}

// getGuildChannels is GET /guilds/{id}/channels: the guild's channels
// without its threads, as GET /channels/{id} renders each. Like the real
// service (and GUILD_CREATE), it lists the channels the caller cannot
// view too.
func (s *Server) getGuildChannels(w http.ResponseWriter, r *http.Request) error {
	view, err := s.guildView(r)
	if err != nil {
		return err
	}
	out := make([]channelObject, 0, len(view.snap.Channels))
	for _, c := range view.snap.Channels {
		if guild.IsThread(c.Type) {
			continue
		}
		last, err := s.lastMessageID(r.Context(), c.ID)
		if err != nil {
			return err
		}
		out = append(out, newChannelObject(c, last))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

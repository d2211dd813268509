// Package wire holds the objects of the real service's API that several
// layers render alike: the user object (message authors, mentions, an
// interaction's user and member.user, resolved users, READY, GUILD_CREATE
// members, /users/@me, /oauth2/@me) and the application object
// (/oauth2/@me, /applications/@me, /oauth2/applications/@me). One
// definition keeps every place that renders a user or an app carrying the
// same fields.
//
// It is pure: it imports only snowflake, does no I/O and knows nothing of
// the store; callers pass the values in.
package wire

import (
	"encoding/json"
	"strconv"

	"github.com/slashd/slashd/internal/snowflake"
)

// User is the user object: every field OpenAPI's UserResponse requires,
// plus the nulls the real service sends on every user (docs/compat.md,
// "User and application objects"). slashd has no avatars, banners,
// decorations, collectibles, server tags or discriminators, so those are
// always null (or "0", as for every migrated account).
type User struct {
	ID                   snowflake.ID    `json:"id"`
	Username             string          `json:"username"`
	Avatar               *string         `json:"avatar"`
	Discriminator        string          `json:"discriminator"`
	PublicFlags          int             `json:"public_flags"`
	Flags                int             `json:"flags"`
	Bot                  bool            `json:"bot,omitempty"`
	Banner               *string         `json:"banner"`
	AccentColor          *int            `json:"accent_color"`
	GlobalName           *string         `json:"global_name"`
	AvatarDecorationData json.RawMessage `json:"avatar_decoration_data"`
	Collectibles         json.RawMessage `json:"collectibles"`
	DisplayNameStyles    json.RawMessage `json:"display_name_styles"`
	Clan                 json.RawMessage `json:"clan"`
	PrimaryGuild         json.RawMessage `json:"primary_guild"`
}

// NewUser shapes a user. The json.RawMessage fields stay nil, which
// renders as null (and a stored body decoded and re-encoded keeps them so).
func NewUser(id snowflake.ID, username, globalName string, bot bool) User {
	return User{ID: id, Username: username, Discriminator: "0", Bot: bot, GlobalName: nullable(globalName)}
}

// GuildMember is the guild member object as the gateway carries it
// (GUILD_CREATE, GUILD_MEMBERS_CHUNK): every field OpenAPI's
// GuildMemberResponse requires, and no permissions (those belong to an
// interaction's member, which adds them). User is nil in the partial form
// an interaction's resolved.members uses, and so are Deaf and Mute.
type GuildMember struct {
	User                       *User          `json:"user,omitempty"`
	Nick                       *string        `json:"nick"`
	Avatar                     *string        `json:"avatar"`
	Banner                     *string        `json:"banner"`
	Roles                      []snowflake.ID `json:"roles"`
	JoinedAt                   string         `json:"joined_at"`
	PremiumSince               *string        `json:"premium_since"`
	Deaf                       *bool          `json:"deaf,omitempty"`
	Mute                       *bool          `json:"mute,omitempty"`
	Pending                    bool           `json:"pending"`
	Flags                      int            `json:"flags"`
	CommunicationDisabledUntil *string        `json:"communication_disabled_until"`
}

// NewGuildMember shapes a membership; with a user, the full form (deaf
// and mute false), without, the partial form of resolved.members.
// joinedAt is already rendered in the API's timestamp layout.
func NewGuildMember(user *User, nick string, roles []snowflake.ID, joinedAt string) GuildMember {
	out := GuildMember{User: user, Nick: nullable(nick), Roles: roles, JoinedAt: joinedAt}
	if out.Roles == nil {
		out.Roles = []snowflake.ID{}
	}
	if user != nil {
		f := false
		out.Deaf, out.Mute = &f, &f
	}
	return out
}

// CurrentUser is the user object of the requester's own account
// (UserPIIResponse): GET /users/@me and READY's user.
type CurrentUser struct {
	User
	MFAEnabled  bool   `json:"mfa_enabled"`
	Locale      string `json:"locale"`
	PremiumType int    `json:"premium_type"`
	// *EmailInfo is nil (its keys absent) for an OAuth2 token without the
	// email scope.
	*EmailInfo
}

// EmailInfo is what the email scope adds to the current user.
type EmailInfo struct {
	Email    *string `json:"email"`
	Verified bool    `json:"verified"`
}

// DefaultLocale is the locale of an account that never chose one.
const DefaultLocale = "en-US"

// NewCurrentUser shapes the requester's own user. A bot's carries
// email null and verified true, as the real service's; a person's carries
// them only when withEmail (the email scope), and slashd keeps no email
// addresses: null, unverified.
func NewCurrentUser(u User, locale string, withEmail bool) CurrentUser {
	if locale == "" {
		locale = DefaultLocale
	}
	cu := CurrentUser{User: u, Locale: locale}
	switch {
	case u.Bot:
		cu.EmailInfo = &EmailInfo{Verified: true}
	case withEmail:
		cu.EmailInfo = &EmailInfo{}
	}
	return cu
}

// Application is the (partial) application object of /oauth2/@me: every
// field OpenAPI's ApplicationResponse requires, and the ones the docs'
// example carries.
type Application struct {
	ID                  snowflake.ID `json:"id"`
	Name                string       `json:"name"`
	Icon                *string      `json:"icon"`
	Description         string       `json:"description"`
	Type                *int         `json:"type"`
	Bot                 *User        `json:"bot,omitempty"`
	Hook                bool         `json:"hook"`
	BotPublic           bool         `json:"bot_public"`
	BotRequireCodeGrant bool         `json:"bot_require_code_grant"`
	VerifyKey           string       `json:"verify_key"`
	// Flags is the legacy number, at most 31 bits; FlagsNew carries every
	// bit as a decimal string (application.mdx, "Application Flags").
	Flags    uint64 `json:"flags"`
	FlagsNew string `json:"flags_new"`
}

// legacyFlagBits are the bits the numeric flags field may carry.
const legacyFlagBits = 1<<31 - 1

// NewApplication shapes an app (slashd's have no icon, description or
// type; every one is public and hooks in).
func NewApplication(id snowflake.ID, name, verifyKey string, flags uint64, bot *User) Application {
	return Application{ID: id, Name: name, Description: "", Bot: bot, Hook: true, BotPublic: true,
		VerifyKey: verifyKey, Flags: flags & legacyFlagBits, FlagsNew: strconv.FormatUint(flags, 10)}
}

// PrivateApplication is the application as its own bot reads it
// (PrivateApplicationResponse): GET /applications/@me and
// /oauth2/applications/@me.
type PrivateApplication struct {
	Application
	RedirectURIs                      []string                          `json:"redirect_uris"`
	InteractionsEndpointURL           *string                           `json:"interactions_endpoint_url"`
	RoleConnectionsVerificationURL    *string                           `json:"role_connections_verification_url"`
	EventWebhooksURL                  *string                           `json:"event_webhooks_url"`
	EventWebhooksStatus               int                               `json:"event_webhooks_status"`
	Owner                             User                              `json:"owner"`
	Team                              json.RawMessage                   `json:"team"`
	ApproximateGuildCount             int                               `json:"approximate_guild_count"`
	ApproximateUserInstallCount       int                               `json:"approximate_user_install_count"`
	ApproximateUserAuthorizationCount int                               `json:"approximate_user_authorization_count"`
	ExplicitContentFilter             int                               `json:"explicit_content_filter"`
	EligibleOAuth2Scopes              []string                          `json:"eligible_oauth2_scopes"`
	IntegrationTypesConfig            map[string]IntegrationTypesConfig `json:"integration_types_config"`
	InstallParams                     *InstallParams                    `json:"install_params,omitempty"`
}

// IntegrationTypesConfig is one installation context's default install
// settings (absent when the app configured none).
type IntegrationTypesConfig struct {
	OAuth2InstallParams *InstallParams `json:"oauth2_install_params,omitempty"`
}

// InstallParams are an in-app authorization link's scopes and permissions.
type InstallParams struct {
	Scopes      []string `json:"scopes"`
	Permissions string   `json:"permissions"`
}

// Event webhook statuses.
const EventWebhooksDisabled = 1

// AppCounts are an app's approximate counts.
type AppCounts struct {
	Guilds, UserInstalls, UserAuthorizations int
}

// NewPrivateApplication shapes the app as its bot reads it: endpoint ""
// is null, config the installation contexts it supports with their
// default install settings (NewIntegrationTypesConfig).
func NewPrivateApplication(app Application, owner User, redirectURIs []string, endpoint string,
	config map[string]IntegrationTypesConfig, counts AppCounts) PrivateApplication {
	if redirectURIs == nil {
		redirectURIs = []string{}
	}
	return PrivateApplication{
		Application: app, RedirectURIs: redirectURIs, InteractionsEndpointURL: nullable(endpoint),
		EventWebhooksStatus: EventWebhooksDisabled, Owner: owner,
		ApproximateGuildCount: counts.Guilds, ApproximateUserInstallCount: counts.UserInstalls,
		ApproximateUserAuthorizationCount: counts.UserAuthorizations,
		EligibleOAuth2Scopes:              []string{}, IntegrationTypesConfig: config,
	}
}

// NewIntegrationTypesConfig is integration_types_config: one entry per
// installation context the app supports (none listed: guild install
// only), keyed by its integration type, carrying oauth2_install_params
// when params has the type's default install settings.
func NewIntegrationTypesConfig(integrationTypes []int, params map[int]InstallParams) map[string]IntegrationTypesConfig {
	if len(integrationTypes) == 0 {
		integrationTypes = []int{0}
	}
	config := make(map[string]IntegrationTypesConfig, len(integrationTypes))
	for _, t := range integrationTypes {
		c := IntegrationTypesConfig{}
		if p, ok := params[t]; ok {
			if p.Scopes == nil {
				p.Scopes = []string{}
			}
			c.OAuth2InstallParams = &p
		}
		config[strconv.Itoa(t)] = c
	}
	return config
}

// nullable is nil for "", so that an unset string renders as null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

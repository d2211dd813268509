package oauth

import "slices"

// Scope is an OAuth2 scope slashd knows: its name, what it lets an app
// do in plain words (the consent page lists these), and, for the Social
// SDK's umbrella scopes, the scopes it stands for.
type Scope struct {
	Name        string
	Description string
	// Includes are the scopes an umbrella scope expands to (Expand).
	Includes []string
	// ClientCredentialsOnly scopes are granted only to an app for itself
	// (the client_credentials grant), never by a user at /oauth2/authorize.
	ClientCredentialsOnly bool
}

// The Social SDK's umbrella scopes. sdk.social_layer is a superset of
// sdk.social_layer_presence, as the real service documents; the member
// scopes are our choice (docs/compat.md, "OAuth2"), one per feature the
// SDK documents for each: account linking (identify), friends
// (relationships.read), rich presence (activities.write); and for the
// communication features also friend requests (relationships.write),
// direct messages, lobbies, voice and linked channels (guilds).
const (
	ScopeSocialLayer         = "sdk.social_layer"
	ScopeSocialLayerPresence = "sdk.social_layer_presence"
)

// scopes is every scope slashd knows, in the order the consent page and
// the discovery document list them.
var scopes = []Scope{
	{Name: "identify", Description: "Know your username, display name and avatar"},
	{Name: "email", Description: "See your email address"},
	{Name: "openid", Description: "Confirm to the app who you are (OpenID Connect sign-in)"},
	{Name: "guilds", Description: "See which servers you are in"},
	{Name: "guilds.members.read", Description: "See your nickname and roles in the servers you are in"},
	{Name: "connections", Description: "See the other accounts you linked to your profile"},
	{Name: "bot", Description: "Add a bot to a server you manage"},
	{Name: "applications.commands", Description: "Add commands to a server you manage"},
	{Name: "applications.commands.update", Description: "Update the app's own commands",
		ClientCredentialsOnly: true},
	{Name: "applications.commands.permissions.update",
		Description: "Change who may use the app's commands, in servers where you may manage them"},
	{Name: "relationships.read", Description: "See your friends list"},
	{Name: "relationships.write", Description: "Send and answer friend requests for you"},
	{Name: "activities.write", Description: "Show what you are playing (rich presence) on your profile"},
	{Name: "dm_channels.read", Description: "See your direct message conversations"},
	{Name: "dm_channels.messages.read", Description: "Read the messages you send and receive in the game"},
	{Name: "dm_channels.messages.write", Description: "Send messages for you from the game"},
	{Name: "lobbies.write", Description: "Create and join game lobbies for you"},
	{Name: "voice", Description: "Join voice chats for you"},
	{Name: ScopeSocialLayerPresence, Description: "Link your account to the game, with your friends and rich presence",
		Includes: []string{"identify", "relationships.read", "activities.write"}},
	{Name: ScopeSocialLayer, Description: "Link your account to the game, with friends, presence, chat, lobbies and voice",
		Includes: []string{ScopeSocialLayerPresence, "relationships.write", "guilds", "dm_channels.read",
			"dm_channels.messages.read", "dm_channels.messages.write", "lobbies.write", "voice"}},
}

// Scopes returns the scope table (a copy).
func Scopes() []Scope {
	out := slices.Clone(scopes)
	for i := range out {
		out[i].Includes = slices.Clone(out[i].Includes)
	}
	return out
}

func lookupScope(name string) (Scope, bool) {
	for _, s := range scopes {
		if s.Name == name {
			return s, true
		}
	}
	return Scope{}, false
}

// KnownScope reports whether name is in the scope table.
func KnownScope(name string) bool {
	_, ok := lookupScope(name)
	return ok
}

// CheckScopes checks the scopes of an authorization request: at least
// one, every one known, none of the client_credentials-only ones. The
// error is the RFC 6749 invalid_scope to send back to the client.
func CheckScopes(requested []string) *Error {
	if len(requested) == 0 {
		return errInvalidScope("No scope requested")
	}
	for _, name := range requested {
		s, ok := lookupScope(name)
		switch {
		case !ok:
			return errInvalidScope(`Invalid scope "` + name + `"`)
		case s.ClientCredentialsOnly:
			return errInvalidScope(`Scope "` + name + `" is only for the client_credentials grant`)
		}
	}
	return nil
}

// Expand returns scopes with every umbrella scope followed by the scopes
// it stands for (recursively), each scope once, in first-seen order.
// Unknown scopes pass through. The umbrella itself stays in the list, so
// that a grant of sdk.social_layer still carries that name.
func Expand(in []string) []string {
	out := make([]string, 0, len(in))
	var add func(name string)
	add = func(name string) {
		if slices.Contains(out, name) {
			return
		}
		out = append(out, name)
		if s, ok := lookupScope(name); ok {
			for _, inc := range s.Includes {
				add(inc)
			}
		}
	}
	for _, name := range in {
		add(name)
	}
	return out
}

// DescribeScopes is what the consent page lists for requested scopes:
// the description of each scope Expand yields, umbrella scopes replaced
// by their members, unknown scopes by their names.
func DescribeScopes(requested []string) []string {
	var out []string
	for _, name := range Expand(requested) {
		s, ok := lookupScope(name)
		switch {
		case !ok:
			out = append(out, name)
		case len(s.Includes) == 0:
			out = append(out, s.Description)
		}
	}
	return out
}

// userInstallCommands is what applications.commands does in a user
// install: the app's commands follow the user, not a server
// (application.mdx, "Installation Context": "User Context").
const userInstallCommands = "Add its commands to your account, to use in all your servers, DMs and group DMs"

// DescribeUserInstallScopes is DescribeScopes for a user install
// (integration_type 1), where applications.commands adds the app's
// commands to the user's account rather than to a server.
func DescribeUserInstallScopes(requested []string) []string {
	out := DescribeScopes(requested)
	if s, ok := lookupScope("applications.commands"); ok {
		for i, d := range out {
			if d == s.Description {
				out[i] = userInstallCommands
			}
		}
	}
	return out
}

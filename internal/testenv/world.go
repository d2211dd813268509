package testenv

// SmallWorldSpec is a small test world's spec, its name left to a %q
// verb: modbot, with one command (/ping), installed in club, where alice
// is a member of #general. World's methods name its objects.
const SmallWorldSpec = `{"name": %q,
 "users": {"alice": {}},
 "apps": {"modbot": {"commands": [{"name": "ping", "description": "Ping"}]}},
 "guilds": {"club": {"owner": "alice", "channels": {"general": {}},
   "members": {"alice": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// World is what tests read of a world object (POST /admin/v1/worlds's
// answer, GET /admin/v1/worlds/{world}): ids and credentials by handle.
type World struct {
	ID           string                `json:"id"`
	Name         string                `json:"name"`
	Users        map[string]WorldUser  `json:"users"`
	Apps         map[string]WorldApp   `json:"apps"`
	Guilds       map[string]WorldGuild `json:"guilds"`
	DMs          map[string]string     `json:"dms"`
	BearerTokens map[string]struct {
		AccessToken string `json:"access_token"`
	} `json:"bearer_tokens"`
}

// WorldUser is a world's user: its id and client token.
type WorldUser struct {
	ID          string `json:"id"`
	ClientToken string `json:"client_token"`
}

// WorldApp is a world's app: its id, credentials and commands' ids by
// name.
type WorldApp struct {
	ID        string            `json:"id"`
	BotToken  string            `json:"bot_token"`
	PublicKey string            `json:"public_key"`
	Commands  map[string]string `json:"commands"`
}

// WorldGuild is a world's guild: its id, and its roles' and channels'
// ids by handle.
type WorldGuild struct {
	ID       string            `json:"id"`
	Roles    map[string]string `json:"roles"`
	Channels map[string]string `json:"channels"`
}

// The objects of a world made of SmallWorldSpec.

// Bot is modbot's bot token as an Authorization header.
func (w World) Bot() string { return "Bot " + w.Apps["modbot"].BotToken }

// AppID is modbot's id.
func (w World) AppID() string { return w.Apps["modbot"].ID }

// Client is alice's client token (an Authorization header as it is).
func (w World) Client() string { return w.Users["alice"].ClientToken }

// GuildID is club's id.
func (w World) GuildID() string { return w.Guilds["club"].ID }

// General is club's #general's id.
func (w World) General() string { return w.Guilds["club"].Channels["general"] }

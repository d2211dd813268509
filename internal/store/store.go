// Package store declares slashd's persistence contract. Backends live in
// sub-packages (sqlite, later postgres) and must pass the one contract
// suite in storetest.
//
// Every method is one transaction. Writes to a scope's commands are
// planned by a pure function of the command package, run by the store
// inside that transaction, so that every rule sees a consistent scope and
// a write commits whole or not at all.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// Sentinel errors, wrapped with context by backends.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrLimit: the write would pass a cap on how many rows of its kind
	// an owner may have (a world's faults).
	ErrLimit = errors.New("limit reached")
)

// NotFoundAs is err with ErrNotFound replaced by notFound (the API error
// that names the missing thing); any other error passes through.
func NotFoundAs(err, notFound error) error {
	if errors.Is(err, ErrNotFound) {
		return notFound
	}
	return err
}

// Application is a registered app. Its bot user has the same id.
type Application struct {
	ID               snowflake.ID
	Name             string
	OwnerID          snowflake.ID
	Flags            uint64
	IntegrationTypes []int
	ClientSecretHash []byte // SHA-256 of the client secret
	PublicKey        string // hex Ed25519 public key
	PrivateKey       []byte // Ed25519 private key (signs outgoing interactions)
	CreatedAt        time.Time
	// InteractionsEndpointURL receives the app's interactions, signed;
	// empty: they go over the gateway.
	InteractionsEndpointURL string
	// InstallParams are the default install settings of the supported
	// installation contexts (integration_types_config's
	// oauth2_install_params), by integration type; a supported type
	// without an entry has none. Nil: none for any.
	InstallParams map[int]InstallParams
	// Discoverable: discovery is enabled (the app is listed in the App
	// Directory), so it may have no age-restricted command.
	Discoverable bool
	// WorldID is the test world the app belongs to (0: none; see
	// TestWorld). Fixed at creation.
	WorldID snowflake.ID
}

// InstallParams are an installation context's default install settings:
// the scopes of its install link and, with bot, the bot role's
// permissions.
type InstallParams struct {
	Scopes      []string
	Permissions guild.Permissions
}

// AppCounts are an application's approximate counts.
type AppCounts struct {
	Guilds, UserInstalls, UserAuthorizations int
}

// User is an account: a person or an app's bot user.
type User struct {
	ID         snowflake.ID
	Username   string
	GlobalName string
	Bot        bool
	Locale     string
	Adult      bool // 18 or older: may see age-restricted commands
	CreatedAt  time.Time
	WorldID    snowflake.ID // the test world the user belongs to (0: none); fixed at creation
}

// Guild is a server.
type Guild = guild.Guild

// Installation records that an app was authorized in a guild, with scopes.
type Installation struct {
	GuildID       snowflake.ID
	ApplicationID snowflake.ID
	Scopes        []string
	CreatedAt     time.Time
}

// UserInstallation records that a user installed an app to their account
// (OAuth2 integration_type=1 with applications.commands, or the admin
// API).
type UserInstallation struct {
	UserID        snowflake.ID
	ApplicationID snowflake.ID
	Scopes        []string
	CreatedAt     time.Time
	// GrantID is the OAuth2 grant that installed it (0: the admin API).
	GrantID snowflake.ID
}

// HasScope reports whether the installation granted scope.
func (i Installation) HasScope(scope string) bool {
	for _, s := range i.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Token kinds.
const (
	TokenBot    = "bot"
	TokenBearer = "bearer"
)

// Token is a credential. Only its SHA-256 hash is stored.
type Token struct {
	Hash          []byte
	Kind          string
	ApplicationID snowflake.ID
	UserID        snowflake.ID // the bot user, or the user who granted a Bearer token
	Scopes        []string
	ExpiresAt     time.Time // zero: never
	CreatedAt     time.Time
	GrantID       snowflake.ID // the OAuth2 grant that issued it (0: none)
}

// HasScope reports whether the token carries scope.
func (t Token) HasScope(scope string) bool {
	for _, s := range t.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// RawCommand is a stored command's id, version and JSON body. A body never
// changes without its version changing, so (ID, Version) identifies it.
type RawCommand struct {
	ID      snowflake.ID
	Version snowflake.ID
	Body    []byte
}

// PlanFunc computes a write on a scope from its current commands and the
// number of commands created in it today.
type PlanFunc func(cur []command.Command, createsToday int) (command.Plan, error)

// PermissionsFunc computes a permissions write from the current list, given
// whether the target command exists; it returns the new list.
type PermissionsFunc func(exists bool, cur []command.Permission) ([]command.Permission, error)

// Store is the persistence contract.
type Store interface {
	// Identity: applications, users, guilds, installations and tokens.
	CreateApplication(ctx context.Context, app Application, bot User) error
	Application(ctx context.Context, id snowflake.ID) (Application, error)
	CountApplications(ctx context.Context) (int, error)
	// ApplicationCounts are an app's approximate counts: the guilds it is
	// installed in, the users who installed it to their accounts (user
	// installations) and the users holding any live grant to it.
	ApplicationCounts(ctx context.Context, appID snowflake.ID) (AppCounts, error)
	CreateUser(ctx context.Context, u User) error
	User(ctx context.Context, id snowflake.ID) (User, error)
	CreateGuild(ctx context.Context, g Guild) error
	Guild(ctx context.Context, id snowflake.ID) (Guild, error)
	Install(ctx context.Context, inst Installation) error
	Installation(ctx context.Context, guildID, appID snowflake.ID) (Installation, error)
	CreateToken(ctx context.Context, t Token) error
	TokenByHash(ctx context.Context, hash []byte) (Token, error)

	// Commands of one scope (global: GuildID 0), ordered by id.
	Commands(ctx context.Context, scope command.Scope) ([]command.Command, error)
	// RawCommands is Commands without decoding: each command's stored JSON
	// (which is its full wire form), for the read path.
	RawCommands(ctx context.Context, scope command.Scope) ([]RawCommand, error)
	Command(ctx context.Context, scope command.Scope, id snowflake.ID) (command.Command, error)
	// WriteCommands runs plan on the scope's current commands inside one
	// transaction and applies the result; day is the UTC day number the
	// daily create limit counts in. It returns the applied plan.
	WriteCommands(ctx context.Context, scope command.Scope, day int64, plan PlanFunc) (command.Plan, error)

	// Permissions of an app's commands in a guild.
	GuildPermissions(ctx context.Context, appID, guildID snowflake.ID) ([]command.GuildPermissions, error)
	CommandPermissions(ctx context.Context, appID, guildID, commandID snowflake.ID) (command.GuildPermissions, error)
	// SetCommandPermissions replaces one list. commandID may be the app id
	// (app-level defaults); otherwise it must name a global command of the
	// app or a command of the app in that guild, checked in the same
	// transaction.
	SetCommandPermissions(ctx context.Context, appID, guildID, commandID snowflake.ID, fn PermissionsFunc) (command.GuildPermissions, error)

	World
	WorldEvents
	OAuth
	Messages
	RateLimits
	PlaygroundSessions
	Journal
	TestWorlds
	Faults
	Files

	Close() error
}

// Faults are test worlds' faults (docs/faults.md), kept in the store so
// that every node applies them and a counted one fires exactly its count
// between them. Deleting a world deletes its faults.
type Faults interface {
	// CreateFault adds a fault to its world unless the world already has
	// limit faults, spent ones included (ErrLimit; limit 0: no cap), counted
	// and inserted in one transaction so that concurrent creations on
	// any node never pass the cap. ErrConflict: the id is taken.
	CreateFault(ctx context.Context, f Fault, limit int) error
	// WorldFaults lists a world's faults, spent ones included, by id.
	WorldFaults(ctx context.Context, worldID snowflake.ID) ([]Fault, error)
	// LiveFaults lists every world's faults that may still fire, by id.
	LiveFaults(ctx context.Context) ([]Fault, error)
	// DeleteFault deletes one of a world's faults (ErrNotFound: none);
	// DeleteWorldFaults all of them, returning how many.
	DeleteFault(ctx context.Context, worldID, id snowflake.ID) error
	DeleteWorldFaults(ctx context.Context, worldID snowflake.ID) (int64, error)
	// MatchFault counts one match of a live fault and decides, in one
	// transaction, whether it fires: a counted fault while it has
	// firings left, a probable one when fires(match number, from 1)
	// says so (and, with a count, while it has firings left). It returns
	// the fault as the match left it. ErrNotFound: deleted; a spent
	// fault does not fire.
	MatchFault(ctx context.Context, id snowflake.ID, fires func(match int64) bool) (Fault, bool, error)
}

// Journal is the test worlds' journal (docs/journal.md; the types are in
// journal.go). A world's entries are deleted with it (DeleteWorld).
type Journal interface {
	// AppendJournal appends entries in one transaction, in the order
	// given, setting their Seq (entries[i].Seq on return); then each
	// world written keeps only its newest keep entries (keep <= 0: all).
	AppendJournal(ctx context.Context, entries []JournalEntry, keep int) error
	// JournalEntries lists a world's entries after q.After, oldest first.
	JournalEntries(ctx context.Context, q JournalQuery) ([]JournalEntry, error)
	// JournalLast is the largest Seq of the world's entries (0: none).
	JournalLast(ctx context.Context, worldID snowflake.ID) (int64, error)
}

// PlaygroundSessions are the playground's logins (internal/ui), kept in
// the store so that a restart logs nobody out and every node knows them.
// A session is found by the SHA-256 of its cookie; the admin token it
// acts with is stored sealed (see PlaygroundSession). Revoking an admin
// token (deleting its row) deletes the sessions made with it.
type PlaygroundSessions interface {
	// CreatePlaygroundSession stores s in one transaction with the
	// table's upkeep: the sessions expired by s.CreatedAt are deleted
	// and, with keep > 0, so are the ones that expire first beyond
	// keep-1 others, so that at most keep remain. ErrConflict: the hash
	// is taken; ErrNotFound: AdminTokenHash is no admin token's.
	CreatePlaygroundSession(ctx context.Context, s PlaygroundSession, keep int) error
	// PlaygroundSession reads a session by hash, expired or not
	// (checking ExpiresAt is the caller's job); ErrNotFound if unknown.
	PlaygroundSession(ctx context.Context, hash []byte) (PlaygroundSession, error)
	// DeletePlaygroundSession ends a session; an unknown hash is no
	// error.
	DeletePlaygroundSession(ctx context.Context, hash []byte) error
}

// PlaygroundSession is a login to the playground. Nothing in it lets its
// reader in: the cookie is only in the browser, and the admin token is
// sealed under a key derived from the cookie (docs/design.md,
// "Playground UI").
type PlaygroundSession struct {
	Hash []byte // SHA-256 of the cookie's value
	// AdminTokenHash is the SHA-256 of the admin token the session was
	// made with (an admin_tokens row); SealedAdminToken is that token,
	// sealed by the playground.
	AdminTokenHash   []byte
	SealedAdminToken []byte
	CSRF             string // the token the page's writes carry
	ExpiresAt        time.Time
	CreatedAt        time.Time
}

// WorldEvents is the outbox of world changes: every write to a guild,
// its roles, members or channels records what changed in its own
// transaction, whichever process makes it (the server, the CLI, another
// node), and the serving process claims the records to publish the
// gateway's dispatches (internal/api, world_events.go).
type WorldEvents interface {
	// HasWorldEvents reports whether a change waits to be claimed (a
	// read: an idle server writes nothing to poll).
	HasWorldEvents(ctx context.Context) (bool, error)
	// ClaimWorldEvents passes the oldest waiting changes (at most limit,
	// in the order they were made) to fn, and forgets them if fn returns
	// nil, in one transaction: claims serialize (a second claimer waits
	// for the first to commit), so what fn publishes goes out in order
	// across processes and nodes. fn is not called when none waits.
	ClaimWorldEvents(ctx context.Context, limit int, fn func([]WorldEvent) error) error
	// BotMembers lists the applications whose bot user is a member of
	// the guild, by id; empty for an unknown guild. A bot whose joining
	// waits in the outbox as a change after the change numbered after
	// (WorldEvent.ID) is not listed: it has not been told it joined (its
	// GUILD_CREATE is in that change), so nothing of the guild is its yet.
	// A claim passes its batch's last change; others pass 0.
	BotMembers(ctx context.Context, guildID snowflake.ID, after int64) ([]snowflake.ID, error)
}

// World change kinds and operations of a WorldEvent.
const (
	WorldGuild   = "guild"
	WorldRole    = "role"
	WorldMember  = "member"
	WorldChannel = "channel"

	WorldCreate = "create"
	WorldUpdate = "update"
	WorldDelete = "delete"
)

// WorldEvent is one recorded change: Kind's object ObjectID (the guild,
// the role, the member's user, the channel) of guild GuildID was made
// (Op WorldCreate), changed or deleted. The role, member or channel is
// recorded as the change left it (a deletion: as it was), so that a
// dispatch claimed late still shows the change it reports.
type WorldEvent struct {
	ID       int64
	GuildID  snowflake.ID
	Kind     string
	Op       string
	ObjectID snowflake.ID
	Role     *guild.Role
	Member   *guild.Member
	Channel  *guild.Channel
}

// World is the guild world commands apply to: guilds with their roles,
// members and channels, users, installations and extra credentials.
// Deleting a guild removes everything that belongs to it (roles, members,
// channels, installations, its commands and every permission list kept
// for it) in one transaction.
type World interface {
	UpdateUser(ctx context.Context, u User) error
	// DeleteUser also removes the user's memberships, deletes their DMs
	// and takes them out of their group DMs (a group DM left empty is
	// deleted; one whose owner leaves passes to its first recipient).
	DeleteUser(ctx context.Context, id snowflake.ID) error
	Users(ctx context.Context) ([]User, error)

	Guilds(ctx context.Context) ([]Guild, error)
	UpdateGuild(ctx context.Context, g Guild) error
	DeleteGuild(ctx context.Context, id snowflake.ID) error

	// Roles: CreateGuild makes the @everyone role (id = guild id) with
	// guild.DefaultEveryone and makes the owner a member.
	CreateRole(ctx context.Context, r guild.Role) error
	UpdateRole(ctx context.Context, r guild.Role) error
	DeleteRole(ctx context.Context, guildID, roleID snowflake.ID) error // also takes it from members; @everyone cannot be deleted (ErrConflict)
	Role(ctx context.Context, guildID, roleID snowflake.ID) (guild.Role, error)
	Roles(ctx context.Context, guildID snowflake.ID) ([]guild.Role, error) // by position, then id

	// Members: PutMember adds or replaces (roles must be the guild's, else ErrNotFound).
	PutMember(ctx context.Context, m guild.Member) error
	DeleteMember(ctx context.Context, guildID, userID snowflake.ID) error
	Member(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, error)
	Members(ctx context.Context, guildID snowflake.ID) ([]guild.Member, error)
	// MemberGuilds lists the guilds a user is a member of, by id.
	MemberGuilds(ctx context.Context, userID snowflake.ID) ([]Guild, error)
	// ShardGuildIDs lists, by id, the guilds a user is a member of that
	// fall in shard of shards, as the gateway assigns guilds to shards:
	// (guild_id >> 22) % shards == shard (shards 1: all of them). It reads
	// the user's memberships from an index and no other shard's guild, so
	// that a bot's identify costs what its shard holds.
	ShardGuildIDs(ctx context.Context, userID snowflake.ID, shard, shards int) ([]snowflake.ID, error)
	// MemberCount counts the members of a guild without reading them (0
	// for an unknown guild).
	MemberCount(ctx context.Context, guildID snowflake.ID) (int, error)
	// SearchMembers lists the members of a guild that q selects, with
	// their users, by user id (in one read); empty for an unknown guild.
	SearchMembers(ctx context.Context, guildID snowflake.ID, q MemberQuery) ([]MemberUser, error)

	// Channels: a parent must be a channel of the same guild (ErrNotFound).
	CreateChannel(ctx context.Context, c guild.Channel) error
	UpdateChannel(ctx context.Context, c guild.Channel) error
	DeleteChannel(ctx context.Context, guildID, channelID snowflake.ID) error // also deletes its threads
	Channel(ctx context.Context, channelID snowflake.ID) (guild.Channel, error)
	Channels(ctx context.Context, guildID snowflake.ID) ([]guild.Channel, error)

	Installations(ctx context.Context, guildID snowflake.ID) ([]Installation, error)
	Uninstall(ctx context.Context, guildID, appID snowflake.ID) error
	Applications(ctx context.Context) ([]Application, error)
	// SetInteractionsEndpoint sets or ("" ) clears an app's Interactions
	// Endpoint URL; ErrNotFound for an unknown app.
	SetInteractionsEndpoint(ctx context.Context, appID snowflake.ID, url string) error
	// SetApplicationFlags replaces an app's flags; ErrNotFound for an
	// unknown app.
	SetApplicationFlags(ctx context.Context, appID snowflake.ID, flags uint64) error
	// SetIntegrationTypes replaces the installation contexts an app
	// supports with their default install settings (params: by type,
	// types without an entry have none); ErrNotFound for an unknown app.
	// Commands and installations of a type taken away are kept.
	SetIntegrationTypes(ctx context.Context, appID snowflake.ID, types []int, params map[int]InstallParams) error
	// SetDiscoverable turns an app's discovery on or off; ErrNotFound for
	// an unknown app. Turning it on is ErrConflict while the app has an
	// age-restricted (nsfw) command in any scope, checked in the same
	// transaction.
	SetDiscoverable(ctx context.Context, appID snowflake.ID, on bool) error

	// User installations: apps installed to users' accounts.
	// UserInstallations lists a user's, by app id (empty for an unknown
	// user); UserInstallation reads one (ErrNotFound if not installed).
	// InstallForUser adds or replaces one (ErrNotFound: unknown user or
	// app); UninstallForUser removes one (ErrNotFound if not installed).
	// Deleting the user or the app deletes theirs; revoking the grant that
	// installed one (GrantID) uninstalls it, unless another live grant of
	// the user to the app installed it too (a grant without a guild
	// carrying applications.commands): the installation then is that
	// grant's.
	UserInstallations(ctx context.Context, userID snowflake.ID) ([]UserInstallation, error)
	UserInstallation(ctx context.Context, userID, appID snowflake.ID) (UserInstallation, error)
	InstallForUser(ctx context.Context, in UserInstallation) error
	UninstallForUser(ctx context.Context, userID, appID snowflake.ID) error

	// Private channels: DMs and group DMs (PrivateChannel), outside
	// guilds. Their messages are Messages with GuildID 0.
	//
	// OpenDM returns the DM between the two users of c.Recipients, creating c when they have
	// none (created true); ErrNotFound if a user does not exist. Concurrent opens of one pair
	// make one channel.
	OpenDM(ctx context.Context, c PrivateChannel) (PrivateChannel, bool, error)
	// CreateGroupDM stores a group DM (its owner one of its recipients);
	// ErrNotFound: unknown user, ErrConflict: the id is taken.
	CreateGroupDM(ctx context.Context, c PrivateChannel) error
	PrivateChannel(ctx context.Context, id snowflake.ID) (PrivateChannel, error) // ErrNotFound
	// PrivateChannels lists the DMs and group DMs a user takes part in, by
	// id; empty for an unknown user.
	PrivateChannels(ctx context.Context, userID snowflake.ID) ([]PrivateChannel, error)
	// DeletePrivateChannel deletes a DM or group DM with its messages and
	// interactions; ErrNotFound if there is none.
	DeletePrivateChannel(ctx context.Context, id snowflake.ID) error

	// Admin tokens (Authorization: Admin …) and users' client tokens
	// (the bare Authorization a chat client sends), by SHA-256.
	CreateAdminToken(ctx context.Context, hash []byte, createdAt time.Time) error
	AdminTokenExists(ctx context.Context, hash []byte) (bool, error)
	// ReplaceAdminTokens stores hash as the one admin token, deleting
	// every other in the same transaction (there is no moment without
	// one), and returns how many it deleted; ErrConflict if hash is
	// already an admin token's.
	ReplaceAdminTokens(ctx context.Context, hash []byte, createdAt time.Time) (revoked int, err error)
	CreateClientToken(ctx context.Context, hash []byte, userID snowflake.ID, createdAt time.Time) error
	ClientTokenUser(ctx context.Context, hash []byte) (snowflake.ID, error) // ErrNotFound if unknown

	// ClaimFirstRun picks the one process that bootstraps an empty store
	// (nodes of a cluster may start together): true for the first to
	// claim, and for a later one once the claim is older than stale (its
	// claimer died before finishing).
	ClaimFirstRun(ctx context.Context, owner string, now time.Time, stale time.Duration) (bool, error)

	// MaxID is the largest snowflake in use (users, guilds, roles,
	// channels and private channels, commands), for id generators of processes that start and
	// stop while others use the same store.
	MaxID(ctx context.Context) (snowflake.ID, error)

	// Snapshot reads, in one consistent read, what deciding access in a
	// guild needs.
	Snapshot(ctx context.Context, guildID snowflake.ID) (Snapshot, error)
}

// MemberQuery selects members of a guild: with UserIDs not nil, those
// users (Prefix, After and Limit do not apply); otherwise those whose
// user id is above After and whose username starts with Prefix, compared
// case-insensitively ("" selects all), at most Limit of them (0: no
// limit).
type MemberQuery struct {
	UserIDs []snowflake.ID
	Prefix  string
	After   snowflake.ID // a page's start: the highest user id of the previous page
	Limit   int
}

// MemberUser is a membership with its user.
type MemberUser struct {
	Member guild.Member
	User   User
}

// Snapshot is a guild's state for access decisions.
type Snapshot struct {
	Guild         Guild
	Roles         []guild.Role
	Channels      []guild.Channel
	Installations []Installation
}

// OAuth is what the OAuth2 server keeps: users' logins and browser
// sessions, apps' OAuth2 settings, grants with their authorization codes,
// access tokens (in the tokens table, tagged with their grant) and
// refresh tokens. Every secret is stored as its SHA-256, except password
// hashes, which are a memory-hard KDF's output.
type OAuth interface {
	// Logins: a unique login name and a password hash for a user.
	// SetLogin adds or replaces a user's login: ErrConflict if the name
	// belongs to another user, ErrNotFound if the user does not exist.
	// Names match exactly (case included). Deleting the user deletes it.
	SetLogin(ctx context.Context, l Login) error
	LoginByName(ctx context.Context, name string) (Login, error)         // ErrNotFound if unknown
	LoginOfUser(ctx context.Context, userID snowflake.ID) (Login, error) // ErrNotFound if none

	// Browser sessions of the consent page. SessionByHash returns
	// ErrNotFound for an unknown hash; it returns expired sessions too:
	// checking ExpiresAt is the caller's job. DeleteSession of an unknown
	// hash is not an error.
	CreateSession(ctx context.Context, s Session) error
	SessionByHash(ctx context.Context, hash []byte) (Session, error)
	DeleteSession(ctx context.Context, hash []byte) error

	// OAuth2 settings of an app (defaults when never set: no redirect
	// URIs, confidential client). Both return ErrNotFound for an unknown
	// app; RedirectURIs is never nil.
	SetOAuthSettings(ctx context.Context, s OAuthSettings) error
	OAuthSettings(ctx context.Context, appID snowflake.ID) (OAuthSettings, error)

	// Grants: what a user authorized an app to do. CreateGrant returns
	// ErrNotFound if the app or the user does not exist.
	CreateGrant(ctx context.Context, g Grant) error
	Grant(ctx context.Context, id snowflake.ID) (Grant, error) // ErrNotFound if unknown or revoked
	// Grants lists a user's live grants to an app, oldest first
	// (prompt=none looks for one that already covers a request).
	Grants(ctx context.Context, appID, userID snowflake.ID) ([]Grant, error)
	// RevokeGrant deletes the grant with its codes, access and refresh
	// tokens, in one transaction, and uninstalls the user installation it
	// made (see World.UserInstallations); ErrNotFound if there is no such
	// grant.
	RevokeGrant(ctx context.Context, id snowflake.ID) error

	// Authorization codes: single use. UseCode marks the code used and
	// returns it as it was found (Used false); a second use returns the
	// code with Used set (the caller then revokes the grant) and
	// ErrConflict; an unknown hash is ErrNotFound. Expired codes are
	// returned like any other: checking ExpiresAt is the caller's job.
	// Marking is atomic: of concurrent uses exactly one succeeds.
	CreateCode(ctx context.Context, c AuthCode) error
	UseCode(ctx context.Context, hash []byte) (AuthCode, error)

	// IssueTokens stores a grant's new access token (in the tokens
	// table, GrantID set) and, unless refresh is nil, its new refresh
	// token (of the same grant), in one transaction: both or neither.
	// ErrNotFound if the grant does not exist, revoked even while the
	// call runs: then neither is stored, and no RevokeGrant running at
	// the same time can leave either behind. ErrConflict if a hash is
	// taken. It is the only way refresh tokens are made.
	IssueTokens(ctx context.Context, access Token, refresh *RefreshToken) error
	// Refresh tokens rotate: UseRefreshToken marks one used and returns
	// it (ErrConflict with the token, Used set, on reuse; ErrNotFound if
	// unknown), atomically as UseCode.
	UseRefreshToken(ctx context.Context, hash []byte) (RefreshToken, error)

	// Keys that sign OpenID Connect id_tokens, newest first (empty until
	// the server makes its first). Every stored key stays published, so
	// that tokens signed by any process sharing the store verify.
	SigningKeys(ctx context.Context) ([]SigningKey, error)
	CreateSigningKey(ctx context.Context, k SigningKey) error // ErrConflict if the id is taken
}

// SigningKey is a private key that signs id_tokens.
type SigningKey struct {
	ID         string // the JWK "kid"
	PrivateKey []byte // PKCS #8 DER
	CreatedAt  time.Time
}

// Login is a user's password login.
type Login struct {
	UserID       snowflake.ID
	Name         string // unique
	PasswordHash []byte // the KDF's encoded output (parameters, salt, key)
}

// Session is a logged-in browser on the consent page.
type Session struct {
	Hash      []byte // SHA-256 of the cookie value
	UserID    snowflake.ID
	CSRF      string // the token every form of this session carries
	ExpiresAt time.Time
	CreatedAt time.Time
}

// OAuthSettings are an app's OAuth2 client settings.
type OAuthSettings struct {
	ApplicationID snowflake.ID
	RedirectURIs  []string
	PublicClient  bool // may exchange codes without a secret (with PKCE)
}

// Grant is a user's authorization of an app for scopes (and, for
// guild installs, a guild).
type Grant struct {
	ID            snowflake.ID
	ApplicationID snowflake.ID
	UserID        snowflake.ID
	Scopes        []string
	GuildID       snowflake.ID // 0 unless the grant installed the app in a guild
	CreatedAt     time.Time
}

// AuthCode is an authorization code waiting to be exchanged.
type AuthCode struct {
	Hash                []byte
	GrantID             snowflake.ID
	RedirectURI         string // as sent to /authorize ("" if none was sent)
	CodeChallenge       string
	CodeChallengeMethod string
	Nonce               string
	ExpiresAt           time.Time
	Used                bool
	// AuthTime is when the user last logged in before the code was
	// issued, to the second (the id_token's auth_time); zero if unknown.
	AuthTime time.Time
}

// RefreshToken renews access for a grant.
type RefreshToken struct {
	Hash      []byte
	GrantID   snowflake.ID
	CreatedAt time.Time
	Used      bool
}

// Messages is what invoking commands leaves behind: interactions waiting
// for or holding their answer, and the messages of channels, guild and
// private ones (answers, follow-ups, and what users post). Deleting a
// channel deletes its messages and interactions; deleting a guild, those
// of all its channels.
type Messages interface {
	// CreateMessage inserts a message; ErrNotFound if its channel (a
	// guild channel or a private channel) does not exist, ErrConflict if
	// the id is taken.
	CreateMessage(ctx context.Context, m Message) error
	Message(ctx context.Context, id snowflake.ID) (Message, error) // ErrNotFound if unknown
	// UpdateMessage replaces a message's Body and applies files (nil:
	// the stored files stay); nothing else changes. ErrNotFound if
	// unknown.
	UpdateMessage(ctx context.Context, id snowflake.ID, body []byte, files *FileWrite) error
	DeleteMessage(ctx context.Context, id snowflake.ID) error // ErrNotFound if unknown
	// ChannelMessages lists the messages of a channel that viewer may see
	// (VisibleTo 0 or viewer), newest first, with ids below before (0: no
	// bound), at most limit.
	ChannelMessages(ctx context.Context, channelID, viewer, before snowflake.ID, limit int) ([]Message, error)

	// CreateInteraction records an invocation; ErrConflict if the id is
	// taken. (An interaction is found by its id, which its token
	// carries; the token's hash is compared, not looked up.)
	CreateInteraction(ctx context.Context, in Interaction) error
	Interaction(ctx context.Context, id snowflake.ID) (Interaction, error) // ErrNotFound if unknown
	// AnswerInteraction runs fn on the interaction as stored and, in the
	// same transaction, stores what it returns: the updated interaction
	// (ID, ApplicationID, TokenHash, CreatedAt and Metadata are kept as
	// stored) and,
	// when Put is set, the message inserted or (same id) replaced whole.
	// fn's error aborts and is returned as is; ErrNotFound if unknown. Of
	// concurrent answers each sees the one committed before it.
	AnswerInteraction(ctx context.Context, id snowflake.ID, fn func(Interaction) (Answer, error)) (Interaction, error)
	// CreateAnsweredInteraction records in together with its answer, in
	// one transaction: fn gets in as AnswerInteraction's fn gets the
	// stored interaction, and what it returns is stored the same way.
	// ErrConflict if the id is taken (nothing is written).
	CreateAnsweredInteraction(ctx context.Context, in Interaction, fn func(Interaction) (Answer, error)) (Interaction, error)
	// CreateFollowup inserts m, a follow-up message of interaction id, and
	// counts it against the interaction, in one transaction. With limit >
	// 0, an interaction that already created limit follow-ups gets no more
	// (ErrConflict); concurrent follow-ups are counted one by one.
	// ErrNotFound for an unknown interaction or channel.
	CreateFollowup(ctx context.Context, id snowflake.ID, limit int, m Message) error
	// DeleteInteractionsBefore forgets interactions created before t (their
	// messages stay) and returns how many. It looks among the ids made
	// before an hour after t: an interaction's id is a snowflake of its
	// creation (as the API makes them), or anything smaller.
	DeleteInteractionsBefore(ctx context.Context, t time.Time) (int64, error)
}

// Message is a message in a guild channel, or in a private channel
// (GuildID 0). Body is the message's wire JSON, rendered by the API; the
// other fields index it.
type Message struct {
	ID            snowflake.ID
	ChannelID     snowflake.ID
	GuildID       snowflake.ID
	AuthorID      snowflake.ID // a user, or an app's bot user
	InteractionID snowflake.ID // the interaction it answers (0: none)
	VisibleTo     snowflake.ID // ephemeral: only this user sees it (0: everyone)
	Body          []byte
	CreatedAt     time.Time
	// Files, on a write (CreateMessage, CreateFollowup, an answer's Put,
	// UpdateMessage), says what becomes of the message's uploaded files,
	// in the same transaction; nil: nothing is added and the stored ones
	// stay. Never set by a read.
	Files *FileWrite
}

// Interaction is an invocation of an app: its token (stored as its
// SHA-256) and the state of its answer.
type Interaction struct {
	ID            snowflake.ID
	ApplicationID snowflake.ID
	Type          int // 2 APPLICATION_COMMAND, 3 MESSAGE_COMPONENT, 4 AUTOCOMPLETE
	TokenHash     []byte
	GuildID       snowflake.ID
	ChannelID     snowflake.ID
	UserID        snowflake.ID // the invoking user
	CommandID     snowflake.ID
	MessageID     snowflake.ID // a component's message (type 3)
	CreatedAt     time.Time
	// Metadata is the interaction_metadata JSON the messages answering it
	// carry (who invoked what), fixed at invocation.
	Metadata []byte

	// ResponseType is the callback type of the initial answer (0: not
	// answered yet). OriginalMessageID is the message it created (0:
	// none; read as 0 too while no message of that id exists, as once
	// it is deleted); Ephemeral says whether that message is.
	ResponseType      int
	AnsweredAt        time.Time
	OriginalMessageID snowflake.ID
	Ephemeral         bool
	// Result is what the invoking client is shown besides a message: the
	// autocomplete choices, a modal, an activity launch (JSON, nil: none).
	Result []byte
}

// Answer is what AnswerInteraction stores.
type Answer struct {
	Interaction Interaction
	Put         *Message
}

// RateLimits are rate-limit windows shared by every node using the store
// (the cluster's limits; one node counts in memory).
type RateLimits interface {
	// HitRateLimit counts one request against key's window: a window that
	// ended by now starts again with this request and lasts window. It
	// returns the requests counted in the window (this one included) and
	// when the window ends. Concurrent hits are all counted.
	HitRateLimit(ctx context.Context, key string, now time.Time, window time.Duration) (count int, resetAt time.Time, err error)
	// DeleteRateLimitsBefore forgets windows that ended before t.
	DeleteRateLimitsBefore(ctx context.Context, t time.Time) (int64, error)
}

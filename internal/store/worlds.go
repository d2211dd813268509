package store

import (
	"context"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// TestWorld is an isolated world made from a spec (internal/world,
// docs/worlds.md): its users, applications and guilds carry its id in
// WorldID, and everything else belongs to it through them.
type TestWorld struct {
	ID   snowflake.ID
	Name string
	// Spec is the spec as applied (JSON), which a reset puts back.
	Spec []byte
	// Handles is the JSON of the world's ids by handle path
	// (world.State), so that a reset keeps every id.
	Handles []byte
	// Credentials is the JSON of the world's secrets by handle path
	// (bot tokens, client secrets, private keys, client and Bearer
	// tokens): sealed at rest, opened on read. Lookups never use it:
	// tokens are found by their hashes, written with the plan.
	Credentials []byte
	// ClockOffset is how far the world's clock was moved ahead.
	ClockOffset time.Duration
	// Default marks the node's default world: the one the admin API's
	// and the CLI's creates join when they name no world (the first
	// start's demo). At most one world is; none means world 0. Set at
	// creation; a reset keeps it.
	Default              bool
	CreatedAt, UpdatedAt time.Time
}

// TestWorlds keeps test worlds. Every method is one transaction.
type TestWorlds interface {
	// CreateWorld stores w and writes every row of plan; ErrConflict:
	// the name (or an id) is taken. A failure leaves nothing.
	CreateWorld(ctx context.Context, w TestWorld, plan WorldPlan) error
	// TestWorld and TestWorldByName read one world (ErrNotFound).
	TestWorld(ctx context.Context, id snowflake.ID) (TestWorld, error)
	TestWorldByName(ctx context.Context, name string) (TestWorld, error)
	// TestWorldList lists every world, by id.
	TestWorldList(ctx context.Context) ([]TestWorld, error)
	// DeleteWorld deletes the world and everything it made: its users,
	// applications (bot users, commands, permissions, tokens, grants,
	// interactions) and guilds (with everything under them), DMs, group
	// DMs, client tokens and user installs; ErrNotFound if unknown.
	DeleteWorld(ctx context.Context, id snowflake.ID) error
	// ResetWorld removes everything the world has and writes plan (made
	// with the world's own ids and credentials) in its place, updating
	// the world's row to w (Spec, Handles, Credentials, UpdatedAt);
	// ErrNotFound if unknown.
	ResetWorld(ctx context.Context, w TestWorld, plan WorldPlan) error
	// WorldRows reads everything the world has now, in one consistent
	// read, in WorldPlan's shape (what an export is written from): its
	// users (bot users in Apps), applications (without ClientSecretHash
	// and PrivateKey), guilds with their roles, channels, members and
	// installations, the apps' commands (global and in the world's
	// guilds) and permission lists there, the user installs, DMs and
	// group DMs of its users and bots and, with messages > 0, the newest
	// messages of each channel that everyone sees, oldest first. Every
	// list is by id (members by guild, then user). No token is read;
	// ErrNotFound is never returned (an unknown world has no rows).
	WorldRows(ctx context.Context, id snowflake.ID, messages int) (WorldPlan, error)
	// SetWorldClock sets how far the world's clock is ahead.
	SetWorldClock(ctx context.Context, id snowflake.ID, offset time.Duration) error
	// WorldApplications lists the ids of a world's apps (its spec's and
	// any made in it later), by id; none for an unknown world.
	WorldApplications(ctx context.Context, id snowflake.ID) ([]snowflake.ID, error)
	// AdvanceWorldClock moves the world's clock ahead by by in one
	// statement and returns its new offset (ErrNotFound if unknown), so
	// that advances racing on several nodes all count.
	AdvanceWorldClock(ctx context.Context, id snowflake.ID, by time.Duration) (time.Duration, error)
	// WorldClockOffset reads how far the world's clock is ahead, and
	// nothing else of its row (ErrNotFound): what a request of one of
	// the world's principals reads to know its time.
	WorldClockOffset(ctx context.Context, id snowflake.ID) (time.Duration, error)
	// DefaultWorld is the id of the world marked Default, 0 when there
	// is none (no demo, a data directory from before the mark, or the
	// default world was deleted).
	DefaultWorld(ctx context.Context) (snowflake.ID, error)
}

// WorldPlan is every row a world spec makes, computed by the pure
// planner (world.Plan) and written by the store in one transaction, in
// the order of its fields. Every row carries the world's id where its
// table has one.
type WorldPlan struct {
	Users         []User
	Apps          []WorldApp
	Guilds        []Guild
	Roles         []guild.Role // @everyone included (id = guild id)
	Channels      []guild.Channel
	Members       []guild.Member
	Installations []Installation
	UserInstalls  []UserInstallation
	Tokens        []Token // bot and Bearer tokens, by hash
	ClientTokens  []ClientToken
	Commands      []WorldCommands
	Private       []PrivateChannel // DMs and group DMs
	// Permissions are command permission overwrite lists (of commands
	// in Commands, or of an app: ID the app's).
	Permissions []command.GuildPermissions
	// Messages of the world's channels, DMs and group DMs, in order.
	Messages []Message
}

// WorldApp is an application with its bot user.
type WorldApp struct {
	App Application
	Bot User
}

// ClientToken is a user's client token, by hash.
type ClientToken struct {
	Hash      []byte
	UserID    snowflake.ID
	CreatedAt time.Time
}

// WorldCommands are the commands of one scope, as command.Overwrite
// planned them on an empty scope.
type WorldCommands struct {
	Scope    command.Scope
	Commands []command.Command
}

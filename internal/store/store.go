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
	"github.com/slashd/slashd/internal/snowflake"
)

// Sentinel errors, wrapped with context by backends.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

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
}

// User is an account: a person or an app's bot user.
type User struct {
	ID         snowflake.ID
	Username   string
	GlobalName string
	Bot        bool
	Locale     string
	CreatedAt  time.Time
}

// Guild is a server.
type Guild struct {
	ID        snowflake.ID
	Name      string
	OwnerID   snowflake.ID
	CreatedAt time.Time
}

// Installation records that an app was authorized in a guild, with scopes.
type Installation struct {
	GuildID       snowflake.ID
	ApplicationID snowflake.ID
	Scopes        []string
	CreatedAt     time.Time
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

	Close() error
}

// Package sqlstore implements store.Store over database/sql with portable
// SQL ($n placeholders, ON CONFLICT, RETURNING, BIGINT ids, JSON as TEXT,
// times passed from Go), so that every SQL backend shares one code path.
// A backend opens the connection, applies its migrations and supplies its
// error translation and, where transactions can fail to serialize, the
// isolation level and which errors to retry (Options).
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Store is a store.Store on a *sql.DB.
type Store struct {
	db          *sql.DB
	formatError func(error) error
	txOptions   *sql.TxOptions
	onClose     func()
	afterClose  func()
	// lockedTxOptions: the transactions serialized by a row lock.
	lockedTxOptions *sql.TxOptions
	retryable       func(error) bool
	maxAttempts     int
	stmts           stmtCache
	decoded         decodedCache // current commands of a write, decoded once per version
	gate            WriteGate
	keys            atomic.Pointer[secrets.Keyring] // nil: secrets in clear (see SealSecrets)
	worldClock      bool
	databaseLock    bool
	commitStamp     func() (CommitStamp, bool)
	pinned          *pinnedWriter                // nil: every write goes through database/sql
	lastWorld       atomic.Pointer[worldReading] // the last world-clock reading and its stamp
	worldQueries    atomic.Int64                 // world-clock readings that queried the database (tests)
}

var _ store.Store = (*Store)(nil)

// Options adapt a Store to its backend.
type Options struct {
	// FormatError translates a backend error (e.g. a UNIQUE violation)
	// into store.ErrConflict / store.ErrNotFound; nil keeps errors as
	// they are.
	FormatError func(error) error
	// Isolation is the isolation level of Tx's transactions;
	// sql.LevelDefault leaves it to the driver and the database.
	Isolation sql.IsolationLevel
	// LockedIsolation is the level of the transactions whose first
	// statement locks the one row that serializes every writer of what
	// they touch (a command scope, an interaction): READ COMMITTED there
	// lets a writer that waited for the lock go on with what the holder
	// committed, where SERIALIZABLE would fail it and retry it, and under
	// contention retry it many times. sql.LevelDefault: Isolation.
	LockedIsolation sql.IsolationLevel
	// Retryable reports whether a transaction that failed with err may
	// be run again from the start (a serialization failure, a deadlock);
	// nil never retries.
	Retryable func(error) bool
	// MaxAttempts bounds how many times Tx runs one transaction while it
	// fails with retryable errors; 0 means DefaultMaxAttempts.
	MaxAttempts int
	// OnClose runs when the store closes, before the handle does (a
	// backend's background work stops there).
	OnClose func()
	// AfterClose runs when the store closes, after the handle has (what
	// must outlive every connection of the handle).
	AfterClose func()
	// WriteGate, when set, is entered around every write: each
	// transaction and each single-statement write (see write.go).
	WriteGate WriteGate
	// WorldClock: the backend's schema has the world_clock row, which
	// triggers advance on every change to the world's tables (see
	// Store.WorldClock).
	WorldClock bool
	// DatabaseLock: every write transaction holds the whole database's
	// write lock from its BEGIN (SQLite's BEGIN IMMEDIATE), so a
	// statement that only takes a row lock to serialize writers can be
	// left out.
	DatabaseLock bool
	// CommitStamp reads, without a query, a stamp that every commit of
	// every process moves (see WorldClock); nil where there is none.
	CommitStamp func() (CommitStamp, bool)
	// PinnedBegin, when set, is the statement that begins a write
	// transaction, and an invocation answered inline is recorded on a
	// connection of its own, through the driver's interfaces (see
	// pinnedWriter). Only for a backend whose transactions need nothing
	// else database/sql adds: no isolation level, no retries.
	PinnedBegin string
}

// DefaultMaxAttempts is Options.MaxAttempts when left 0: enough for a
// few dozen writers contending for one row, each wave of which commits
// at least one of them.
const DefaultMaxAttempts = 30

// New wraps db. formatError may be nil. Transactions run at the driver's
// default isolation and are never retried.
func New(db *sql.DB, formatError func(error) error) *Store {
	return NewWithOptions(db, Options{FormatError: formatError})
}

// NewWithOptions wraps db for a backend described by o.
func NewWithOptions(db *sql.DB, o Options) *Store {
	s := &Store{db: db, formatError: o.FormatError, retryable: o.Retryable, maxAttempts: o.MaxAttempts, onClose: o.OnClose, afterClose: o.AfterClose,
		gate: o.WriteGate, worldClock: o.WorldClock, databaseLock: o.DatabaseLock,
		commitStamp: o.CommitStamp}
	if s.formatError == nil {
		s.formatError = func(err error) error { return err }
	}
	if o.PinnedBegin != "" {
		s.pinned = &pinnedWriter{begin: o.PinnedBegin}
	}
	if s.maxAttempts <= 0 {
		s.maxAttempts = DefaultMaxAttempts
	}
	if o.Isolation != sql.LevelDefault {
		s.txOptions = &sql.TxOptions{Isolation: o.Isolation}
	}
	s.lockedTxOptions = s.txOptions
	if o.LockedIsolation != sql.LevelDefault {
		s.lockedTxOptions = &sql.TxOptions{Isolation: o.LockedIsolation}
	}
	return s
}

// DB is the underlying handle.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the handle.
func (s *Store) Close() error {
	if s.onClose != nil {
		s.onClose()
	}
	s.stmts.close()
	if s.pinned != nil {
		s.pinned.close()
	}
	err := s.db.Close()
	if s.afterClose != nil {
		s.afterClose()
	}
	return err
}

// Tx runs fn in one transaction, committing if it returns nil. When the
// transaction fails with an error the backend calls retryable (a
// serialization failure), Tx rolls it back and runs fn again in a new
// transaction, a few milliseconds later; so fn must be re-runnable: it
// may set variables it shares with its caller, but each run must set
// them anew, and it must have no effect outside the transaction that a
// second run would repeat (its callers' plan functions only compute).
func (s *Store) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.retry(ctx, func() error { return s.tx(ctx, s.txOptions, fn) })
}

// lockedTx is Tx for a transaction whose first statement takes the row
// lock that serializes its writers (see Options.LockedIsolation).
func (s *Store) lockedTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.retry(ctx, func() error { return s.tx(ctx, s.lockedTxOptions, fn) })
}

// retry runs attempt until it succeeds, fails with an error that is not
// retryable, or has run maxAttempts times, waiting a little longer (with
// jitter, so that the losers of one conflict do not collide again)
// between runs.
func (s *Store) retry(ctx context.Context, attempt func() error) error {
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || s.retryable == nil || !s.retryable(err) {
			return err
		}
		if n >= s.maxAttempts {
			return fmt.Errorf("gave up after %d attempts: %w", n, err)
		}
		t := time.NewTimer(retryDelay(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// retryDelay is how long to wait before attempt n+1: up to 1ms doubled
// per attempt, at most 100ms, at least half of that.
func retryDelay(n int) time.Duration {
	d := min(time.Millisecond<<min(n-1, 7), 100*time.Millisecond)
	return d/2 + rand.N(d/2+1)
}

func (s *Store) tx(ctx context.Context, opts *sql.TxOptions, fn func(*sql.Tx) error) error {
	leave, err := s.enterWrite(ctx)
	if err != nil {
		return err
	}
	// Deferred first, so it runs last: after the commit or rollback.
	defer leave()
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// Roll back on every path that does not commit, a panic in fn (a
	// plan function) included: a transaction left open would hold
	// SQLite's write lock, and every later write would fail as busy.
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", s.formatError(err))
	}
	return nil
}

func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromUnix(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func joinScopes(s []string) string { return strings.Join(s, " ") }

func splitScopes(s string) []string { return strings.Fields(s) }

func id64(id snowflake.ID) int64 { return int64(id) }

// ---- identity ----

// CreateApplication inserts the bot user and the application together.
func (s *Store) CreateApplication(ctx context.Context, app store.Application, bot store.User) error {
	its, _ := jsonenc.Marshal(app.IntegrationTypes)
	privateKey, err := s.sealSecret(app.PrivateKey, appKeyContext(int64(app.ID)))
	if err != nil {
		return fmt.Errorf("insert application %d: %w", app.ID, err)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := insertUser(ctx, tx, bot); err != nil {
			return s.formatError(err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO applications
			(id, name, owner_id, flags, integration_types, client_secret_hash, public_key, private_key, created_at,
			install_params, discoverable, world_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			id64(app.ID), app.Name, id64(app.OwnerID), int64(app.Flags), string(its), app.ClientSecretHash,
			app.PublicKey, privateKey, unix(app.CreatedAt), encodeInstallParams(app.InstallParams), boolInt(app.Discoverable),
			id64(app.WorldID))
		if err != nil {
			return fmt.Errorf("insert application %d: %w", app.ID, s.formatError(err))
		}
		return nil
	})
}

// Application reads one application.
func (s *Store) Application(ctx context.Context, id snowflake.ID) (store.Application, error) {
	a, err := scanApplication(s.queryRow(ctx, `SELECT `+applicationColumns+` FROM applications WHERE id = $1`, id64(id)))
	if err != nil {
		return a, notFound(err, fmt.Sprintf("application %d", id))
	}
	return s.openApplication(a)
}

const applicationColumns = `id, name, owner_id, flags, integration_types, client_secret_hash,
	public_key, private_key, created_at, interactions_endpoint_url, install_params, discoverable, world_id`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanApplication(row scanner) (store.Application, error) {
	var (
		a          store.Application
		appID, own int64
		flags      int64
		its        string
		created    int64
		params     string
		discover   int
		world      int64
	)
	if err := row.Scan(&appID, &a.Name, &own, &flags, &its, &a.ClientSecretHash, &a.PublicKey, &a.PrivateKey, &created,
		&a.InteractionsEndpointURL, &params, &discover, &world); err != nil {
		return a, err
	}
	a.ID, a.OwnerID, a.Flags, a.CreatedAt = snowflake.ID(appID), snowflake.ID(own), uint64(flags), fromUnix(created)
	a.WorldID = snowflake.ID(world)
	a.Discoverable = discover != 0
	if err := json.Unmarshal([]byte(its), &a.IntegrationTypes); err != nil {
		return a, fmt.Errorf("application %d integration types: %w", a.ID, err)
	}
	p, err := decodeInstallParams(params)
	if err != nil {
		return a, fmt.Errorf("application %d install params: %w", a.ID, err)
	}
	a.InstallParams = p
	return a, nil
}

// SetInteractionsEndpoint sets (or, with "", clears) where an app's
// interactions are delivered.
func (s *Store) SetInteractionsEndpoint(ctx context.Context, appID snowflake.ID, url string) error {
	return s.updateApplication(ctx, appID, "interactions_endpoint_url", url)
}

// SetApplicationFlags replaces an app's flags.
func (s *Store) SetApplicationFlags(ctx context.Context, appID snowflake.ID, flags uint64) error {
	return s.updateApplication(ctx, appID, "flags", int64(flags))
}

// updateApplication sets one column of an application; column is one of
// the callers' constants, never input.
func (s *Store) updateApplication(ctx context.Context, appID snowflake.ID, column string, value any) error {
	res, err := s.execWrite(ctx, `UPDATE applications SET `+column+` = $1 WHERE id = $2`, value, id64(appID))
	if err != nil {
		return fmt.Errorf("set %s of app %d: %w", column, appID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("application %d: %w", appID, store.ErrNotFound)
	}
	return nil
}

// CountApplications counts registered applications.
func (s *Store) CountApplications(ctx context.Context) (int, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM applications`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count applications: %w", err)
	}
	return n, nil
}

// ApplicationCounts counts the guilds an app is installed in, the users
// who installed it to their accounts and the users holding live grants
// to it.
func (s *Store) ApplicationCounts(ctx context.Context, appID snowflake.ID) (store.AppCounts, error) {
	var c store.AppCounts
	err := s.queryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM installations WHERE application_id = $1),
		(SELECT COUNT(*) FROM user_installations WHERE application_id = $1),
		(SELECT COUNT(DISTINCT user_id) FROM oauth_grants WHERE application_id = $1)`, id64(appID)).
		Scan(&c.Guilds, &c.UserInstalls, &c.UserAuthorizations)
	if err != nil {
		return c, fmt.Errorf("count installations and grants of app %d: %w", appID, err)
	}
	return c, nil
}

func insertUser(ctx context.Context, tx *sql.Tx, u store.User) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO users (id, username, global_name, bot, locale, adult, created_at, world_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id64(u.ID), u.Username, u.GlobalName, boolInt(u.Bot), u.Locale, boolInt(u.Adult), unix(u.CreatedAt), id64(u.WorldID))
	if err != nil {
		return fmt.Errorf("insert user %d: %w", u.ID, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CreateUser inserts a user.
func (s *Store) CreateUser(ctx context.Context, u store.User) error {
	return s.Tx(ctx, func(tx *sql.Tx) error { return s.formatError(insertUser(ctx, tx, u)) })
}

// User reads one user.
func (s *Store) User(ctx context.Context, id snowflake.ID) (store.User, error) {
	u, err := scanUser(s.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id64(id)))
	if err != nil {
		return u, notFound(err, fmt.Sprintf("user %d", id))
	}
	return u, nil
}

const userColumns = `id, username, global_name, bot, locale, adult, created_at, world_id`

func scanUser(row scanner) (store.User, error) {
	var r userRow
	if err := row.Scan(r.dest()...); err != nil {
		return store.User{}, err
	}
	return r.user(), nil
}

// userRow is a user's columns (userColumns) as scanned, so that a query
// joining users to another table can scan both from one row.
type userRow struct {
	u          store.User
	uid        int64
	bot, adult int
	created    int64
	world      int64
}

func (r *userRow) dest() []any {
	return []any{&r.uid, &r.u.Username, &r.u.GlobalName, &r.bot, &r.u.Locale, &r.adult, &r.created, &r.world}
}

func (r *userRow) user() store.User {
	u := r.u
	u.ID, u.Bot, u.Adult, u.CreatedAt = snowflake.ID(r.uid), r.bot != 0, r.adult != 0, fromUnix(r.created)
	u.WorldID = snowflake.ID(r.world)
	return u
}

// CreateGuild inserts a guild with its @everyone role (id = guild id,
// guild.DefaultEveryone) and makes the owner a member, joined when the
// guild was created.
func (s *Store) CreateGuild(ctx context.Context, g store.Guild) error {
	if g.ID == 0 {
		return errors.New("insert guild: id 0 is the global scope's")
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO guilds (id, name, owner_id, created_at, world_id) VALUES ($1, $2, $3, $4, $5)`,
			id64(g.ID), g.Name, id64(g.OwnerID), unix(g.CreatedAt), id64(g.WorldID))
		if err != nil {
			return fmt.Errorf("insert guild %d: %w", g.ID, s.formatError(err))
		}
		everyone := guild.Role{ID: guild.EveryoneRoleID(g.ID), GuildID: g.ID, Name: "@everyone",
			Permissions: guild.DefaultEveryone}
		if err := s.insertRole(ctx, tx, everyone); err != nil {
			return err
		}
		return s.putMember(ctx, tx, guild.Member{GuildID: g.ID, UserID: g.OwnerID, JoinedAt: g.CreatedAt})
	})
}

// Guild reads one guild.
func (s *Store) Guild(ctx context.Context, id snowflake.ID) (store.Guild, error) {
	return readGuild(ctx, s.cached(), id)
}

const guildColumns = `id, name, owner_id, created_at, world_id`

const queryGuild = `SELECT ` + guildColumns + ` FROM guilds WHERE id = $1`

func readGuild(ctx context.Context, q reader, id snowflake.ID) (store.Guild, error) {
	g, err := scanGuild(q.QueryRowContext(ctx, queryGuild, id64(id)))
	if err != nil {
		return g, notFound(err, fmt.Sprintf("guild %d", id))
	}
	return g, nil
}

func scanGuild(row scanner) (store.Guild, error) {
	var (
		g            store.Guild
		gid, owner   int64
		createdMilli int64
		world        int64
	)
	if err := row.Scan(&gid, &g.Name, &owner, &createdMilli, &world); err != nil {
		return g, err
	}
	g.ID, g.OwnerID, g.CreatedAt = snowflake.ID(gid), snowflake.ID(owner), fromUnix(createdMilli)
	g.WorldID = snowflake.ID(world)
	return g, nil
}

// Install records (or replaces) an app's installation in a guild.
func (s *Store) Install(ctx context.Context, inst store.Installation) error {
	_, err := s.execWrite(ctx, `INSERT INTO installations (guild_id, application_id, scopes, created_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (guild_id, application_id) DO UPDATE SET scopes = excluded.scopes`,
		id64(inst.GuildID), id64(inst.ApplicationID), joinScopes(inst.Scopes), unix(inst.CreatedAt))
	if err != nil {
		return fmt.Errorf("install app %d in guild %d: %w", inst.ApplicationID, inst.GuildID, s.formatError(err))
	}
	return nil
}

// Installation reads an app's installation in a guild.
func (s *Store) Installation(ctx context.Context, guildID, appID snowflake.ID) (store.Installation, error) {
	var (
		inst    store.Installation
		scopes  string
		created int64
	)
	err := s.queryRow(ctx, `SELECT scopes, created_at FROM installations WHERE guild_id = $1 AND application_id = $2`,
		id64(guildID), id64(appID)).Scan(&scopes, &created)
	if err != nil {
		return inst, notFound(err, fmt.Sprintf("installation of app %d in guild %d", appID, guildID))
	}
	inst.GuildID, inst.ApplicationID, inst.Scopes, inst.CreatedAt = guildID, appID, splitScopes(scopes), fromUnix(created)
	return inst, nil
}

// CreateToken stores a token by its hash.
func (s *Store) CreateToken(ctx context.Context, t store.Token) error {
	if _, err := s.execWrite(ctx, insertToken, tokenArgs(t)...); err != nil {
		return fmt.Errorf("insert token: %w", s.formatError(err))
	}
	return nil
}

// insertToken inserts a token; tokenArgs are its arguments.
const insertToken = `INSERT INTO tokens (hash, kind, application_id, user_id, scopes, expires_at, created_at, grant_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

func tokenArgs(t store.Token) []any {
	return []any{t.Hash, t.Kind, id64(t.ApplicationID), id64(t.UserID), joinScopes(t.Scopes), unix(t.ExpiresAt),
		unix(t.CreatedAt), id64(t.GrantID)}
}

// TokenByHash finds a token by the SHA-256 of its secret.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	var (
		t                store.Token
		app, user, grant int64
		scopes           string
		expires, created int64
	)
	err := s.queryRow(ctx, `SELECT hash, kind, application_id, user_id, scopes, expires_at, created_at, grant_id
		FROM tokens WHERE hash = $1`, hash).Scan(&t.Hash, &t.Kind, &app, &user, &scopes, &expires, &created, &grant)
	if err != nil {
		return t, notFound(err, "token")
	}
	t.ApplicationID, t.UserID, t.GrantID, t.Scopes = snowflake.ID(app), snowflake.ID(user), snowflake.ID(grant), splitScopes(scopes)
	t.ExpiresAt, t.CreatedAt = fromUnix(expires), fromUnix(created)
	return t, nil
}

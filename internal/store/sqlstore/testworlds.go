package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Test worlds (migration 0016, store.TestWorlds). A world's rows are
// written and removed with plain statements inside one transaction; the
// triggers of the world's tables record the changes (world_events,
// world_clock) as they do for every other writer, so caches and gateway
// sessions learn of them.

func worldCredentialsContext(id snowflake.ID) string {
	return fmt.Sprintf("worlds/%d/credentials", id)
}

// CreateWorld stores the world and writes its plan in one transaction.
func (s *Store) CreateWorld(ctx context.Context, w store.TestWorld, plan store.WorldPlan) error {
	sealed, err := s.sealSecret(w.Credentials, worldCredentialsContext(w.ID))
	if err != nil {
		return fmt.Errorf("create world %q: %w", w.Name, err)
	}
	keys, err := s.sealPlanKeys(plan)
	if err != nil {
		return err
	}
	if err := s.prepareAll(ctx, worldWrites...); err != nil {
		return err
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO worlds (id, name, spec, handles, credentials, clock_ms, created_at, updated_at, is_default)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			id64(w.ID), w.Name, string(w.Spec), string(w.Handles), sealed, w.ClockOffset.Milliseconds(),
			unix(w.CreatedAt), unix(w.UpdatedAt), boolInt(w.Default))
		if err != nil {
			return fmt.Errorf("insert world %q: %w", w.Name, s.formatError(err))
		}
		return s.writeWorldPlan(ctx, tx, plan, keys)
	})
}

// sealPlanKeys seals the apps' private keys before the transaction (the
// sealing is the slow part and must not run again on a retry).
func (s *Store) sealPlanKeys(plan store.WorldPlan) ([][]byte, error) {
	keys := make([][]byte, len(plan.Apps))
	for i, a := range plan.Apps {
		k, err := s.sealSecret(a.App.PrivateKey, appKeyContext(int64(a.App.ID)))
		if err != nil {
			return nil, fmt.Errorf("seal the private key of application %d: %w", a.App.ID, err)
		}
		keys[i] = k
	}
	return keys, nil
}

// The statements a world's plan is written with, prepared once
// (prepareAll) and reused by every world: parsing a statement costs
// about as much as running it.
const (
	insertWorldUser = `INSERT INTO users (id, username, global_name, bot, locale, adult, created_at, world_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	insertWorldApp = `INSERT INTO applications
		(id, name, owner_id, flags, integration_types, client_secret_hash, public_key, private_key, created_at,
		install_params, discoverable, world_id, interactions_endpoint_url)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`
	insertWorldGuild       = `INSERT INTO guilds (id, name, owner_id, created_at, world_id) VALUES ($1, $2, $3, $4, $5)`
	insertWorldRole        = `INSERT INTO roles (` + roleColumns + `) VALUES ($1, $2, $3, $4, $5, $6)`
	insertWorldChan        = `INSERT INTO channels (` + channelColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	insertWorldMember      = `INSERT INTO members (` + memberColumns + `) VALUES ($1, $2, $3, $4, $5)`
	insertWorldInstall     = `INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES ($1, $2, $3, $4)`
	insertWorldUserInstall = `INSERT INTO user_installations (user_id, application_id, scopes, grant_id, created_at)
		VALUES ($1, $2, $3, $4, $5)`
	insertWorldToken = `INSERT INTO tokens (hash, kind, application_id, user_id, scopes, expires_at, created_at, grant_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	insertWorldClientToken = `INSERT INTO client_tokens (hash, user_id, created_at) VALUES ($1, $2, $3)`
	insertWorldScope       = `INSERT INTO command_scopes (application_id, guild_id, day, creates) VALUES ($1, $2, 0, 0)`
	insertWorldCommand     = `INSERT INTO commands (id, application_id, guild_id, type, name, version, body)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	insertWorldPrivate = `INSERT INTO private_channels (id, type, name, owner_id, dm_low, dm_high, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	insertWorldRecipient   = `INSERT INTO private_channel_recipients (channel_id, user_id) VALUES ($1, $2)`
	insertWorldPermissions = `INSERT INTO command_permissions (application_id, guild_id, command_id, body) VALUES ($1, $2, $3, $4)`
	insertWorldMessage     = `INSERT INTO messages (` + messageColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
)

var worldWrites = []string{insertWorldUser, insertWorldApp, insertWorldGuild, insertWorldRole, insertWorldChan,
	insertWorldMember, insertWorldInstall, insertWorldUserInstall, insertWorldToken, insertWorldClientToken,
	insertWorldScope, insertWorldCommand, insertWorldPrivate, insertWorldRecipient, insertWorldPermissions, insertWorldMessage}

// writeWorldPlan inserts every row of plan, in the order of its fields
// (parents before what refers to them). The plan is the planner's: its
// references hold (the foreign keys check them all the same).
func (s *Store) writeWorldPlan(ctx context.Context, tx *sql.Tx, p store.WorldPlan, privateKeys [][]byte) error {
	var err error
	exec := func(what string, query string, args ...any) {
		if err != nil {
			return
		}
		if _, xerr := s.txExec(ctx, tx, query, args...); xerr != nil {
			err = fmt.Errorf("world: insert %s: %w", what, s.formatError(xerr))
		}
	}
	user := func(u store.User) {
		exec(fmt.Sprintf("user %d", u.ID), insertWorldUser, id64(u.ID), u.Username, u.GlobalName, boolInt(u.Bot), u.Locale,
			boolInt(u.Adult), unix(u.CreatedAt), id64(u.WorldID))
	}
	for _, u := range p.Users {
		user(u)
	}
	for i, a := range p.Apps {
		user(a.Bot)
		app := a.App
		its, _ := jsonenc.Marshal(app.IntegrationTypes)
		exec(fmt.Sprintf("application %d", app.ID), insertWorldApp,
			id64(app.ID), app.Name, id64(app.OwnerID), int64(app.Flags), string(its), app.ClientSecretHash,
			app.PublicKey, privateKeys[i], unix(app.CreatedAt), encodeInstallParams(app.InstallParams),
			boolInt(app.Discoverable), id64(app.WorldID), app.InteractionsEndpointURL)
	}
	for _, g := range p.Guilds {
		exec(fmt.Sprintf("guild %d", g.ID), insertWorldGuild, id64(g.ID), g.Name, id64(g.OwnerID), unix(g.CreatedAt), id64(g.WorldID))
	}
	for _, r := range p.Roles {
		exec(fmt.Sprintf("role %d", r.ID), insertWorldRole, id64(r.ID), id64(r.GuildID), r.Name, int64(r.Permissions), r.Position,
			boolInt(r.Managed))
	}
	for _, c := range p.Channels {
		exec(fmt.Sprintf("channel %d", c.ID), insertWorldChan, id64(c.ID), id64(c.GuildID), c.Type, c.Name, id64(c.ParentID),
			boolInt(c.NSFW), c.Position, encodeOverwrites(c.Overwrites))
	}
	for _, m := range p.Members {
		exec(fmt.Sprintf("member %d", m.UserID), insertWorldMember, id64(m.GuildID), id64(m.UserID), m.Nick,
			encodeRoles(m.Roles), unix(m.JoinedAt))
	}
	for _, in := range p.Installations {
		exec("installation", insertWorldInstall, id64(in.GuildID), id64(in.ApplicationID), joinScopes(in.Scopes), unix(in.CreatedAt))
	}
	for _, in := range p.UserInstalls {
		exec("user installation", insertWorldUserInstall, id64(in.UserID), id64(in.ApplicationID), joinScopes(in.Scopes),
			id64(in.GrantID), unix(in.CreatedAt))
	}
	for _, t := range p.Tokens {
		exec("token", insertWorldToken, t.Hash, t.Kind, id64(t.ApplicationID), id64(t.UserID), joinScopes(t.Scopes),
			unix(t.ExpiresAt), unix(t.CreatedAt), id64(t.GrantID))
	}
	for _, t := range p.ClientTokens {
		exec("client token", insertWorldClientToken, t.Hash, id64(t.UserID), unix(t.CreatedAt))
	}
	for _, wc := range p.Commands {
		sc := wc.Scope
		exec("command scope", insertWorldScope, id64(sc.ApplicationID), id64(sc.GuildID))
		for i := range wc.Commands {
			c := &wc.Commands[i]
			body, jerr := jsonenc.Marshal(c)
			if jerr != nil {
				return fmt.Errorf("world: encode command %q: %w", c.Name, jerr)
			}
			exec(fmt.Sprintf("command %q", c.Name), insertWorldCommand, id64(c.ID), id64(sc.ApplicationID), id64(sc.GuildID),
				int(c.Type), c.Name, id64(c.Version), string(body))
		}
	}
	for _, c := range p.Private {
		var low, high snowflake.ID
		if c.Type == guild.ChannelDM && len(c.Recipients) == 2 {
			low, high = min(c.Recipients[0], c.Recipients[1]), max(c.Recipients[0], c.Recipients[1])
		}
		exec(fmt.Sprintf("private channel %d", c.ID), insertWorldPrivate, id64(c.ID), c.Type, c.Name, id64(c.OwnerID),
			id64(low), id64(high), unix(c.CreatedAt))
		for _, u := range c.Recipients {
			exec("recipient", insertWorldRecipient, id64(c.ID), id64(u))
		}
	}
	for _, gp := range p.Permissions {
		body, jerr := jsonenc.Marshal(gp.Permissions)
		if jerr != nil {
			return fmt.Errorf("world: encode the permissions of command %d: %w", gp.ID, jerr)
		}
		exec(fmt.Sprintf("permissions of command %d", gp.ID), insertWorldPermissions, id64(gp.ApplicationID), id64(gp.GuildID),
			id64(gp.ID), string(body))
	}
	for _, m := range p.Messages {
		exec(fmt.Sprintf("message %d", m.ID), insertWorldMessage, messageArgs(m)...)
	}
	return err
}

// worldRowsDeletes removes everything a world made, given its id as $1:
// first what hangs off its guilds, apps and users, then those. Every
// statement finds its rows through an index (the world_id ones, then
// the tables' own): a delete costs what the world holds, not what the
// store holds. Rows that would tie a world to another (a world's app
// installed in another world's guild, …) are refused by the admin API;
// the foreign keys' ON DELETE CASCADE takes any that exist all the same.
// "world_id <> 0" lets SQLite use the partial world_id indexes (it cannot
// tell a bound $1 is not 0).
var worldRowsDeletes = []string{
	// Guilds and everything under them (as DeleteGuild).
	`DELETE FROM command_permissions WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM commands WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM messages WHERE channel_id IN (SELECT c.id FROM channels c JOIN guilds g ON g.id = c.guild_id WHERE g.world_id = $1 AND g.world_id <> 0)`,
	`DELETE FROM interactions WHERE channel_id IN (SELECT c.id FROM channels c JOIN guilds g ON g.id = c.guild_id WHERE g.world_id = $1 AND g.world_id <> 0)`,
	`DELETE FROM installations WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM members WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM channels WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM roles WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM guilds WHERE world_id = $1 AND world_id <> 0`,
	// DMs and group DMs of the world's users (bot users included), with
	// their messages and interactions; recipients go with their channel
	// (ON DELETE CASCADE).
	`DELETE FROM messages WHERE channel_id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0))`,
	`DELETE FROM interactions WHERE channel_id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0))`,
	`DELETE FROM private_channels WHERE id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0))`,
	// Applications: their global commands, permissions, grants and
	// tokens (a bot token's user is the bot; a Bearer token's the user
	// who granted it, of the world too).
	`DELETE FROM command_permissions WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM commands WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0) AND guild_id = 0`,
	`DELETE FROM command_scopes WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM user_installations WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM oauth_grants WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0)
		OR user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM oauth_settings WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM tokens WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM applications WHERE world_id = $1 AND world_id <> 0`,
	// Users: memberships elsewhere, installs, tokens, logins, sessions.
	`DELETE FROM members WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM user_installations WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM client_tokens WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM logins WHERE user_id IN (SELECT id FROM users WHERE world_id = $1 AND world_id <> 0)`,
	`DELETE FROM users WHERE world_id = $1 AND world_id <> 0`,
}

// deleteWorldRows removes everything world id made (not its worlds row).
func (s *Store) deleteWorldRows(ctx context.Context, tx *sql.Tx, id snowflake.ID) error {
	if id == 0 {
		return fmt.Errorf("world 0: %w", store.ErrNotFound) // world_id 0 is "no world"
	}
	for _, q := range worldRowsDeletes {
		if _, err := s.txExec(ctx, tx, q, id64(id)); err != nil {
			return fmt.Errorf("delete the rows of world %d: %w", id, s.formatError(err))
		}
	}
	return nil
}

// DeleteWorld deletes a world with everything it made.
func (s *Store) DeleteWorld(ctx context.Context, id snowflake.ID) error {
	if err := s.prepareAll(ctx, worldRowsDeletes...); err != nil {
		return err
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.deleteWorldRows(ctx, tx, id); err != nil {
			return err
		}
		if err := DeleteWorldFaultsTx(ctx, tx, id); err != nil {
			return err
		}
		if err := DeleteJournal(ctx, tx, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM worlds WHERE id = $1`, id64(id))
		if err != nil {
			return fmt.Errorf("delete world %d: %w", id, s.formatError(err))
		}
		return affected(res, fmt.Sprintf("world %d", id))
	})
}

// ResetWorld replaces everything the world has with plan.
func (s *Store) ResetWorld(ctx context.Context, w store.TestWorld, plan store.WorldPlan) error {
	sealed, err := s.sealSecret(w.Credentials, worldCredentialsContext(w.ID))
	if err != nil {
		return fmt.Errorf("reset world %d: %w", w.ID, err)
	}
	keys, err := s.sealPlanKeys(plan)
	if err != nil {
		return err
	}
	if err := s.prepareAll(ctx, append(worldWrites, worldRowsDeletes...)...); err != nil {
		return err
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE worlds SET spec = $1, handles = $2, credentials = $3, updated_at = $4
			WHERE id = $5`, string(w.Spec), string(w.Handles), sealed, unix(w.UpdatedAt), id64(w.ID))
		if err != nil {
			return fmt.Errorf("reset world %d: %w", w.ID, s.formatError(err))
		}
		if err := affected(res, fmt.Sprintf("world %d", w.ID)); err != nil {
			return err
		}
		if err := s.deleteWorldRows(ctx, tx, w.ID); err != nil {
			return err
		}
		return s.writeWorldPlan(ctx, tx, plan, keys)
	})
}

// SetWorldClock sets how far a world's clock is ahead.
func (s *Store) SetWorldClock(ctx context.Context, id snowflake.ID, offset time.Duration) error {
	res, err := s.execWrite(ctx, `UPDATE worlds SET clock_ms = $1 WHERE id = $2`, offset.Milliseconds(), id64(id))
	if err != nil {
		return fmt.Errorf("set the clock of world %d: %w", id, err)
	}
	return affected(res, fmt.Sprintf("world %d", id))
}

// WorldApplications lists a world's app ids through the partial
// world_id index ("world_id <> 0" lets SQLite use it).
func (s *Store) WorldApplications(ctx context.Context, id snowflake.ID) ([]snowflake.ID, error) {
	rows, err := s.query(ctx, `SELECT id FROM applications WHERE world_id = $1 AND world_id <> 0 ORDER BY id`, id64(id))
	if err != nil {
		return nil, fmt.Errorf("the apps of world %d: %w", id, err)
	}
	defer rows.Close()
	var apps []snowflake.ID
	for rows.Next() {
		var app int64
		if err := rows.Scan(&app); err != nil {
			return nil, fmt.Errorf("the apps of world %d: %w", id, err)
		}
		apps = append(apps, snowflake.ID(app))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("the apps of world %d: %w", id, err)
	}
	return apps, nil
}

// AdvanceWorldClock adds by to a world's clock offset in one statement
// (read-modify-write in the caller would lose one of two racing
// advances) and returns the new offset.
func (s *Store) AdvanceWorldClock(ctx context.Context, id snowflake.ID, by time.Duration) (time.Duration, error) {
	var ms int64
	err := s.lockedTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `UPDATE worlds SET clock_ms = clock_ms + $1 WHERE id = $2 RETURNING clock_ms`,
			by.Milliseconds(), id64(id)).Scan(&ms)
	})
	if err != nil {
		return 0, notFound(err, fmt.Sprintf("world %d", id))
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// WorldClockOffset reads a world's clock offset alone (no spec, no
// credentials to open): it is read on the requests of the world's
// principals.
func (s *Store) WorldClockOffset(ctx context.Context, id snowflake.ID) (time.Duration, error) {
	var ms int64
	if err := s.queryRow(ctx, `SELECT clock_ms FROM worlds WHERE id = $1`, id64(id)).Scan(&ms); err != nil {
		return 0, notFound(err, fmt.Sprintf("world %d", id))
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// DefaultWorld is the world marked default (0: none).
func (s *Store) DefaultWorld(ctx context.Context) (snowflake.ID, error) {
	var id int64
	err := s.queryRow(ctx, `SELECT id FROM worlds WHERE is_default <> 0`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("default world: %w", err)
	}
	return snowflake.ID(id), nil
}

const worldColumns = `id, name, spec, handles, credentials, clock_ms, created_at, updated_at, is_default`

func (s *Store) scanWorld(row scanner) (store.TestWorld, error) {
	var (
		w                           store.TestWorld
		id, clock, created, updated int64
		isDefault                   int64
		spec, handles               string
	)
	if err := row.Scan(&id, &w.Name, &spec, &handles, &w.Credentials, &clock, &created, &updated, &isDefault); err != nil {
		return w, err
	}
	w.Default = isDefault != 0
	w.ID, w.Spec, w.Handles = snowflake.ID(id), []byte(spec), []byte(handles)
	w.ClockOffset = time.Duration(clock) * time.Millisecond
	w.CreatedAt, w.UpdatedAt = fromUnix(created), fromUnix(updated)
	creds, err := s.openSecret(w.Credentials, worldCredentialsContext(w.ID))
	if err != nil {
		return w, fmt.Errorf("credentials of world %d: %w", w.ID, err)
	}
	w.Credentials = creds
	return w, nil
}

// TestWorld reads a world by id.
func (s *Store) TestWorld(ctx context.Context, id snowflake.ID) (store.TestWorld, error) {
	w, err := s.scanWorld(s.queryRow(ctx, `SELECT `+worldColumns+` FROM worlds WHERE id = $1`, id64(id)))
	if err != nil {
		return w, notFound(err, fmt.Sprintf("world %d", id))
	}
	return w, nil
}

// TestWorldByName reads a world by name.
func (s *Store) TestWorldByName(ctx context.Context, name string) (store.TestWorld, error) {
	w, err := s.scanWorld(s.queryRow(ctx, `SELECT `+worldColumns+` FROM worlds WHERE name = $1`, name))
	if err != nil {
		return w, notFound(err, fmt.Sprintf("world %q", name))
	}
	return w, nil
}

// TestWorldList lists every world by id.
func (s *Store) TestWorldList(ctx context.Context) ([]store.TestWorld, error) {
	out, err := list(ctx, s.cached(), "worlds", s.scanWorld, `SELECT `+worldColumns+` FROM worlds ORDER BY id`)
	if out == nil {
		out = []store.TestWorld{}
	}
	return slices.Clip(out), err
}

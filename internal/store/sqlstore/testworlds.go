package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

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
	return s.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO worlds (id, name, spec, handles, credentials, clock_ms, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			id64(w.ID), w.Name, string(w.Spec), string(w.Handles), sealed, w.ClockOffset.Milliseconds(),
			unix(w.CreatedAt), unix(w.UpdatedAt))
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

// writeWorldPlan inserts every row of plan, in the order of its fields
// (parents before what refers to them).
func (s *Store) writeWorldPlan(ctx context.Context, tx *sql.Tx, p store.WorldPlan, privateKeys [][]byte) error {
	exec := func(what string, query string, args ...any) error {
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("world: insert %s: %w", what, s.formatError(err))
		}
		return nil
	}
	for _, u := range p.Users {
		if err := insertUser(ctx, tx, u); err != nil {
			return s.formatError(err)
		}
	}
	for i, a := range p.Apps {
		if err := insertUser(ctx, tx, a.Bot); err != nil {
			return s.formatError(err)
		}
		app := a.App
		its, _ := jsonenc.Marshal(app.IntegrationTypes)
		if err := exec(fmt.Sprintf("application %d", app.ID), `INSERT INTO applications
			(id, name, owner_id, flags, integration_types, client_secret_hash, public_key, private_key, created_at,
			install_params, discoverable, world_id, interactions_endpoint_url)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			id64(app.ID), app.Name, id64(app.OwnerID), int64(app.Flags), string(its), app.ClientSecretHash,
			app.PublicKey, privateKeys[i], unix(app.CreatedAt), encodeInstallParams(app.InstallParams),
			boolInt(app.Discoverable), id64(app.WorldID), app.InteractionsEndpointURL); err != nil {
			return err
		}
	}
	for _, g := range p.Guilds {
		if err := exec(fmt.Sprintf("guild %d", g.ID), `INSERT INTO guilds (id, name, owner_id, created_at, world_id)
			VALUES ($1, $2, $3, $4, $5)`, id64(g.ID), g.Name, id64(g.OwnerID), unix(g.CreatedAt), id64(g.WorldID)); err != nil {
			return err
		}
	}
	for _, r := range p.Roles {
		if err := s.insertRole(ctx, tx, r); err != nil {
			return err
		}
	}
	for _, c := range p.Channels {
		if err := exec(fmt.Sprintf("channel %d", c.ID), `INSERT INTO channels (`+channelColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			id64(c.ID), id64(c.GuildID), c.Type, c.Name, id64(c.ParentID), boolInt(c.NSFW), c.Position,
			encodeOverwrites(c.Overwrites)); err != nil {
			return err
		}
	}
	for _, m := range p.Members {
		if err := s.putMember(ctx, tx, m); err != nil {
			return err
		}
	}
	for _, in := range p.Installations {
		if err := exec("installation", `INSERT INTO installations (guild_id, application_id, scopes, created_at)
			VALUES ($1, $2, $3, $4)`, id64(in.GuildID), id64(in.ApplicationID), joinScopes(in.Scopes), unix(in.CreatedAt)); err != nil {
			return err
		}
	}
	for _, in := range p.UserInstalls {
		if err := exec("user installation", `INSERT INTO user_installations (user_id, application_id, scopes, grant_id, created_at)
			VALUES ($1, $2, $3, $4, $5)`, id64(in.UserID), id64(in.ApplicationID), joinScopes(in.Scopes), id64(in.GrantID),
			unix(in.CreatedAt)); err != nil {
			return err
		}
	}
	for _, t := range p.Tokens {
		if err := exec("token", `INSERT INTO tokens (hash, kind, application_id, user_id, scopes, expires_at, created_at, grant_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, t.Hash, t.Kind, id64(t.ApplicationID), id64(t.UserID),
			joinScopes(t.Scopes), unix(t.ExpiresAt), unix(t.CreatedAt), id64(t.GrantID)); err != nil {
			return err
		}
	}
	for _, t := range p.ClientTokens {
		if err := exec("client token", `INSERT INTO client_tokens (hash, user_id, created_at) VALUES ($1, $2, $3)`,
			t.Hash, id64(t.UserID), unix(t.CreatedAt)); err != nil {
			return err
		}
	}
	for _, wc := range p.Commands {
		sc := wc.Scope
		if err := exec("command scope", `INSERT INTO command_scopes (application_id, guild_id, day, creates)
			VALUES ($1, $2, 0, 0)`, id64(sc.ApplicationID), id64(sc.GuildID)); err != nil {
			return err
		}
		for i := range wc.Commands {
			c := &wc.Commands[i]
			body, err := jsonenc.Marshal(c)
			if err != nil {
				return fmt.Errorf("world: encode command %q: %w", c.Name, err)
			}
			if err := exec(fmt.Sprintf("command %q", c.Name), `INSERT INTO commands (id, application_id, guild_id, type, name, version, body)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, id64(c.ID), id64(sc.ApplicationID), id64(sc.GuildID), int(c.Type),
				c.Name, id64(c.Version), string(body)); err != nil {
				return err
			}
		}
	}
	for _, c := range p.Private {
		var low, high snowflake.ID
		if len(c.Recipients) == 2 && c.OwnerID == 0 {
			low, high = min(c.Recipients[0], c.Recipients[1]), max(c.Recipients[0], c.Recipients[1])
		}
		if err := s.insertPrivateChannel(ctx, tx, c, low, high); err != nil {
			return err
		}
	}
	return nil
}

// worldRowsDeletes removes everything a world made, given its id as $1:
// first what hangs off its guilds, apps and users, then those.
var worldRowsDeletes = []string{
	// Guilds and everything under them (as DeleteGuild).
	`DELETE FROM command_permissions WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM commands WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM command_scopes WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM installations WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM members WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM messages WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM messages WHERE channel_id IN (SELECT c.id FROM channels c JOIN guilds g ON g.id = c.guild_id WHERE g.world_id = $1)`,
	`DELETE FROM interactions WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM channels WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM roles WHERE guild_id IN (SELECT id FROM guilds WHERE world_id = $1)`,
	`DELETE FROM guilds WHERE world_id = $1`,
	// Applications: their commands, permissions, interactions, grants
	// and tokens, wherever they are.
	`DELETE FROM command_permissions WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM commands WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM command_scopes WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM installations WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM user_installations WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM messages WHERE interaction_id IN (SELECT id FROM interactions WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1))`,
	`DELETE FROM interactions WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM oauth_codes WHERE grant_id IN (SELECT id FROM oauth_grants WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)
		OR user_id IN (SELECT id FROM users WHERE world_id = $1))`,
	`DELETE FROM refresh_tokens WHERE grant_id IN (SELECT id FROM oauth_grants WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)
		OR user_id IN (SELECT id FROM users WHERE world_id = $1))`,
	`DELETE FROM oauth_grants WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)
		OR user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM oauth_settings WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)`,
	`DELETE FROM tokens WHERE application_id IN (SELECT id FROM applications WHERE world_id = $1)
		OR user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM applications WHERE world_id = $1`,
	// Users (bot users included): their DMs and group DMs with their
	// messages, memberships elsewhere, tokens, logins and sessions.
	`DELETE FROM messages WHERE channel_id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1))`,
	`DELETE FROM interactions WHERE channel_id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1))`,
	`DELETE FROM private_channels WHERE id IN (SELECT channel_id FROM private_channel_recipients
		WHERE user_id IN (SELECT id FROM users WHERE world_id = $1))`,
	`DELETE FROM private_channel_recipients WHERE channel_id NOT IN (SELECT id FROM private_channels)`,
	`DELETE FROM messages WHERE author_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM interactions WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM members WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM user_installations WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM client_tokens WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM logins WHERE user_id IN (SELECT id FROM users WHERE world_id = $1)`,
	`DELETE FROM users WHERE world_id = $1`,
}

// deleteWorldRows removes everything world id made (not its worlds row).
func (s *Store) deleteWorldRows(ctx context.Context, tx *sql.Tx, id snowflake.ID) error {
	if id == 0 {
		return fmt.Errorf("world 0: %w", store.ErrNotFound) // world_id 0 is "no world"
	}
	for _, q := range worldRowsDeletes {
		if _, err := tx.ExecContext(ctx, q, id64(id)); err != nil {
			return fmt.Errorf("delete the rows of world %d: %w", id, s.formatError(err))
		}
	}
	return nil
}

// DeleteWorld deletes a world with everything it made.
func (s *Store) DeleteWorld(ctx context.Context, id snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.deleteWorldRows(ctx, tx, id); err != nil {
			return err
		}
		if err := DeleteWorldFaultsTx(ctx, tx, id); err != nil {
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

const worldColumns = `id, name, spec, handles, credentials, clock_ms, created_at, updated_at`

func (s *Store) scanWorld(row scanner) (store.TestWorld, error) {
	var (
		w                           store.TestWorld
		id, clock, created, updated int64
		spec, handles               string
	)
	if err := row.Scan(&id, &w.Name, &spec, &handles, &w.Credentials, &clock, &created, &updated); err != nil {
		return w, err
	}
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

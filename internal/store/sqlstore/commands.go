package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Commands lists a scope's commands, oldest first.
func (s *Store) Commands(ctx context.Context, scope command.Scope) ([]command.Command, error) {
	return listCommands(ctx, s.db, scope)
}

func listCommands(ctx context.Context, q querier, scope command.Scope) ([]command.Command, error) {
	rows, err := q.QueryContext(ctx, `SELECT body FROM commands WHERE application_id = $1 AND guild_id = $2 ORDER BY id`,
		id64(scope.ApplicationID), id64(scope.GuildID))
	if err != nil {
		return nil, fmt.Errorf("list commands of app %d guild %d: %w", scope.ApplicationID, scope.GuildID, err)
	}
	defer rows.Close()
	out := []command.Command{}
	var body []byte
	for rows.Next() {
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("scan command: %w", err)
		}
		var c command.Command
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, fmt.Errorf("decode stored command: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list commands: %w", err)
	}
	return out, nil
}

// RawCommands lists a scope's commands as stored JSON, oldest first.
func (s *Store) RawCommands(ctx context.Context, scope command.Scope) ([]store.RawCommand, error) {
	rows, err := s.query(ctx, `SELECT id, version, body FROM commands
		WHERE application_id = $1 AND guild_id = $2 ORDER BY id`, id64(scope.ApplicationID), id64(scope.GuildID))
	if err != nil {
		return nil, fmt.Errorf("list commands of app %d guild %d: %w", scope.ApplicationID, scope.GuildID, err)
	}
	defer rows.Close()
	out := []store.RawCommand{}
	for rows.Next() {
		var (
			id, version int64
			body        []byte
		)
		if err := rows.Scan(&id, &version, &body); err != nil {
			return nil, fmt.Errorf("scan command: %w", err)
		}
		out = append(out, store.RawCommand{ID: snowflake.ID(id), Version: snowflake.ID(version), Body: body})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list commands: %w", err)
	}
	return out, nil
}

// Command reads one command of a scope.
func (s *Store) Command(ctx context.Context, scope command.Scope, id snowflake.ID) (command.Command, error) {
	var (
		c    command.Command
		body []byte
	)
	err := s.queryRow(ctx, `SELECT body FROM commands WHERE id = $1 AND application_id = $2 AND guild_id = $3`,
		id64(id), id64(scope.ApplicationID), id64(scope.GuildID)).Scan(&body)
	if err != nil {
		return c, notFound(err, fmt.Sprintf("command %d", id))
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return c, fmt.Errorf("decode stored command %d: %w", id, err)
	}
	return c, nil
}

// WriteCommands locks the scope, runs plan on its commands and applies the
// result in the same transaction.
func (s *Store) WriteCommands(ctx context.Context, scope command.Scope, day int64, plan store.PlanFunc) (command.Plan, error) {
	var out command.Plan
	err := s.lockedTx(ctx, func(tx *sql.Tx) error {
		// Upserting the scope row takes the scope's write lock (a row
		// lock on PostgreSQL, at READ COMMITTED, so that a writer that
		// waited for it reads what the holder committed; SQLite's
		// IMMEDIATE transaction holds the database lock already) and
		// rolls the daily counter over.
		var creates int
		err := tx.QueryRowContext(ctx, `INSERT INTO command_scopes (application_id, guild_id, day, creates)
			VALUES ($1, $2, $3, 0)
			ON CONFLICT (application_id, guild_id) DO UPDATE
			SET creates = CASE WHEN command_scopes.day = excluded.day THEN command_scopes.creates ELSE 0 END,
			    day = excluded.day
			RETURNING creates`, id64(scope.ApplicationID), id64(scope.GuildID), day).Scan(&creates)
		if err != nil {
			return fmt.Errorf("lock scope: %w", s.formatError(err))
		}
		cur, err := listCommands(ctx, tx, scope)
		if err != nil {
			return err
		}
		p, err := plan(cur, creates)
		if err != nil {
			return err
		}
		if err := s.applyPlan(ctx, tx, scope, p); err != nil {
			return err
		}
		out = p
		return nil
	})
	return out, err
}

func (s *Store) applyPlan(ctx context.Context, tx *sql.Tx, scope command.Scope, p command.Plan) error {
	// Replaced rows are deleted before any insert so that renames within
	// one bulk overwrite (a→b, b→a) never trip the unique name index.
	for _, id := range p.Delete {
		if _, err := tx.ExecContext(ctx, `DELETE FROM commands WHERE id = $1`, id64(id)); err != nil {
			return fmt.Errorf("delete command %d: %w", id, err)
		}
	}
	for i := range p.Put {
		if _, err := tx.ExecContext(ctx, `DELETE FROM commands WHERE id = $1`, id64(p.Put[i].ID)); err != nil {
			return fmt.Errorf("replace command %d: %w", p.Put[i].ID, err)
		}
	}
	for i := range p.Put {
		c := &p.Put[i]
		body, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode command: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO commands (id, application_id, guild_id, type, name, version, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			id64(c.ID), id64(scope.ApplicationID), id64(scope.GuildID), int(c.Type), c.Name, id64(c.Version), string(body))
		if err != nil {
			return fmt.Errorf("insert command %q: %w", c.Name, s.formatError(err))
		}
	}
	for _, id := range p.DropPermissions {
		// A global command's overwrites live in every guild; a guild
		// command's only in its own.
		if _, err := tx.ExecContext(ctx, `DELETE FROM command_permissions WHERE application_id = $1 AND command_id = $2`,
			id64(scope.ApplicationID), id64(id)); err != nil {
			return fmt.Errorf("drop permissions of command %d: %w", id, err)
		}
	}
	if p.Creates > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE command_scopes SET creates = creates + $1
			WHERE application_id = $2 AND guild_id = $3`, p.Creates, id64(scope.ApplicationID), id64(scope.GuildID)); err != nil {
			return fmt.Errorf("count creates: %w", err)
		}
	}
	return nil
}

// ---- permissions ----

// GuildPermissions lists every overwrite list an app has in a guild.
func (s *Store) GuildPermissions(ctx context.Context, appID, guildID snowflake.ID) ([]command.GuildPermissions, error) {
	rows, err := s.query(ctx, `SELECT command_id, body FROM command_permissions
		WHERE application_id = $1 AND guild_id = $2 ORDER BY command_id`, id64(appID), id64(guildID))
	if err != nil {
		return nil, fmt.Errorf("list permissions: %w", err)
	}
	defer rows.Close()
	out := []command.GuildPermissions{}
	for rows.Next() {
		var (
			cmd  int64
			body []byte
		)
		if err := rows.Scan(&cmd, &body); err != nil {
			return nil, fmt.Errorf("scan permissions: %w", err)
		}
		gp := command.GuildPermissions{ID: snowflake.ID(cmd), ApplicationID: appID, GuildID: guildID}
		var err error
		if gp.Permissions, err = command.DecodePermissions(body); err != nil {
			return nil, fmt.Errorf("decode permissions: %w", err)
		}
		out = append(out, gp)
	}
	return out, rows.Err()
}

// CommandPermissions reads one overwrite list.
func (s *Store) CommandPermissions(ctx context.Context, appID, guildID, commandID snowflake.ID) (command.GuildPermissions, error) {
	gp := command.GuildPermissions{ID: commandID, ApplicationID: appID, GuildID: guildID}
	var body []byte
	err := s.queryRow(ctx, `SELECT body FROM command_permissions
		WHERE application_id = $1 AND guild_id = $2 AND command_id = $3`, id64(appID), id64(guildID), id64(commandID)).Scan(&body)
	if err != nil {
		return gp, notFound(err, fmt.Sprintf("permissions of command %d", commandID))
	}
	if gp.Permissions, err = command.DecodePermissions(body); err != nil {
		return gp, fmt.Errorf("decode permissions: %w", err)
	}
	return gp, nil
}

// SetCommandPermissions replaces one overwrite list; an empty list removes it.
func (s *Store) SetCommandPermissions(ctx context.Context, appID, guildID, commandID snowflake.ID,
	fn store.PermissionsFunc,
) (command.GuildPermissions, error) {
	gp := command.GuildPermissions{ID: commandID, ApplicationID: appID, GuildID: guildID}
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		gp.Permissions = nil // a retried transaction starts over
		exists := commandID == appID
		if !exists {
			var n int
			err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM commands
				WHERE id = $1 AND application_id = $2 AND (guild_id = 0 OR guild_id = $3)`,
				id64(commandID), id64(appID), id64(guildID)).Scan(&n)
			if err != nil {
				return fmt.Errorf("find command %d: %w", commandID, err)
			}
			exists = n > 0
		}
		var cur []command.Permission
		var body []byte
		err := tx.QueryRowContext(ctx, `SELECT body FROM command_permissions
			WHERE application_id = $1 AND guild_id = $2 AND command_id = $3`, id64(appID), id64(guildID), id64(commandID)).Scan(&body)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return fmt.Errorf("read permissions: %w", err)
		default:
			if cur, err = command.DecodePermissions(body); err != nil {
				return fmt.Errorf("decode permissions: %w", err)
			}
		}
		next, err := fn(exists, cur)
		if err != nil {
			return err
		}
		gp.Permissions = next
		if len(next) == 0 {
			_, err = tx.ExecContext(ctx, `DELETE FROM command_permissions
				WHERE application_id = $1 AND guild_id = $2 AND command_id = $3`, id64(appID), id64(guildID), id64(commandID))
			return err
		}
		enc, err := json.Marshal(next)
		if err != nil {
			return fmt.Errorf("encode permissions: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO command_permissions (application_id, guild_id, command_id, body)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (application_id, guild_id, command_id) DO UPDATE SET body = excluded.body`,
			id64(appID), id64(guildID), id64(commandID), string(enc))
		if err != nil {
			return fmt.Errorf("write permissions: %w", s.formatError(err))
		}
		return nil
	})
	if gp.Permissions == nil {
		gp.Permissions = []command.Permission{}
	}
	return gp, err
}

package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
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
	// The statements are prepared outside the transaction (preparing on
	// the pool inside it could wait for a connection the transaction's
	// peers hold) and reused on each connection (Tx.StmtContext).
	ws, err := s.writeStmts(ctx)
	if err != nil {
		return out, err
	}
	err = s.lockedTx(ctx, func(tx *sql.Tx) error {
		// Upserting the scope row takes the scope's write lock (a row
		// lock on PostgreSQL, at READ COMMITTED, so that a writer that
		// waited for it reads what the holder committed; SQLite's
		// IMMEDIATE transaction holds the database lock already) and
		// rolls the daily counter over.
		var creates int
		err := tx.StmtContext(ctx, ws.lock).QueryRowContext(ctx, id64(scope.ApplicationID), id64(scope.GuildID), day).
			Scan(&creates)
		if err != nil {
			return fmt.Errorf("lock scope: %w", s.formatError(err))
		}
		cur, stored, err := s.currentCommands(ctx, tx.StmtContext(ctx, ws.list), scope)
		if err != nil {
			return err
		}
		p, err := plan(cur, creates)
		if err != nil {
			return err
		}
		written, err := s.applyPlan(ctx, tx, ws, scope, p)
		if err != nil {
			return err
		}
		p.Wire = wireForms(p.Result, stored, written)
		out = p
		return nil
	})
	return out, err
}

// applyPlan writes a plan with prepared statements of up to
// rowsPerStatement rows: first every replaced or deleted row is deleted,
// then the new versions are inserted. Unchanged commands are not in the
// plan and stay as they are. It returns the bodies it wrote.
func (s *Store) applyPlan(ctx context.Context, tx *sql.Tx, ws writeStmts, scope command.Scope, p command.Plan) (map[versionKey][]byte, error) {
	written := make(map[versionKey][]byte, len(p.Put))
	// Replaced rows are deleted before any insert so that renames within
	// one bulk overwrite (a→b, b→a) never trip the unique name index.
	gone := make([]any, 0, len(p.Delete)+len(p.Put))
	for _, id := range p.Delete {
		gone = append(gone, id64(id))
	}
	for i := range p.Put {
		gone = append(gone, id64(p.Put[i].ID))
	}
	err := inChunks(ctx, tx, ws.delete, 1, gone)
	if err != nil {
		return nil, fmt.Errorf("delete %d commands: %w", len(gone), s.formatError(err))
	}
	args := make([]any, 0, commandColumns*len(p.Put))
	for i := range p.Put {
		c := &p.Put[i]
		var body []byte
		if i < len(p.PutWire) {
			body = p.PutWire[i]
		}
		if body == nil {
			var err error
			if body, err = jsonenc.Marshal(c); err != nil {
				return nil, fmt.Errorf("encode command: %w", err)
			}
		}
		written[versionKey{c.ID, c.Version}] = body
		args = append(args, id64(c.ID), id64(scope.ApplicationID), id64(scope.GuildID), int(c.Type), c.Name,
			id64(c.Version), string(body))
	}
	if err := inChunks(ctx, tx, ws.insert, commandColumns, args); err != nil {
		return nil, fmt.Errorf("insert %d commands: %w", len(p.Put), s.formatError(err))
	}
	for _, id := range p.DropPermissions {
		// A global command's overwrites live in every guild; a guild
		// command's only in its own.
		if _, err := tx.ExecContext(ctx, `DELETE FROM command_permissions WHERE application_id = $1 AND command_id = $2`,
			id64(scope.ApplicationID), id64(id)); err != nil {
			return nil, fmt.Errorf("drop permissions of command %d: %w", id, err)
		}
	}
	if p.Creates > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE command_scopes SET creates = creates + $1
			WHERE application_id = $2 AND guild_id = $3`, p.Creates, id64(scope.ApplicationID), id64(scope.GuildID)); err != nil {
			return nil, fmt.Errorf("count creates: %w", err)
		}
	}
	// The next write of the scope finds the new versions decoded. (A
	// rolled-back transaction leaves entries no row has: harmless, a
	// version is never reused.)
	for i := range p.Put {
		c := p.Put[i]
		s.decoded.put(versionKey{c.ID, c.Version}, command.WithWire(c, written[versionKey{c.ID, c.Version}]))
	}
	return written, nil
}

// versionKey names one version of one command.
type versionKey struct{ id, version snowflake.ID }

// currentCommands is listCommands with each command's stored body; a
// body is decoded once per command version (a stored version never
// changes), so a repeated overwrite decodes only what changed.
func (s *Store) currentCommands(ctx context.Context, list *sql.Stmt, scope command.Scope) ([]command.Command, map[versionKey][]byte, error) {
	rows, err := list.QueryContext(ctx, id64(scope.ApplicationID), id64(scope.GuildID))
	if err != nil {
		return nil, nil, fmt.Errorf("list commands of app %d guild %d: %w", scope.ApplicationID, scope.GuildID, err)
	}
	defer rows.Close()
	out := []command.Command{}
	bodies := map[versionKey][]byte{}
	for rows.Next() {
		var (
			id, version int64
			body        []byte
		)
		if err := rows.Scan(&id, &version, &body); err != nil {
			return nil, nil, fmt.Errorf("scan command: %w", err)
		}
		k := versionKey{snowflake.ID(id), snowflake.ID(version)}
		c, ok := s.decoded.get(k)
		if !ok {
			if err := json.Unmarshal(body, &c); err != nil {
				return nil, nil, fmt.Errorf("decode stored command: %w", err)
			}
			// The plan compares with this value's own encoding (a body
			// written by an older slashd may differ from it).
			wire, err := jsonenc.Marshal(&c)
			if err != nil {
				return nil, nil, fmt.Errorf("encode stored command: %w", err)
			}
			c = command.WithWire(c, wire)
			s.decoded.put(k, c)
		}
		out = append(out, c)
		bodies[k] = body
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("list commands: %w", err)
	}
	return out, bodies, nil
}

// decodedCache keeps decoded commands by version, in two generations of
// at most decodedEntries/2 each (bounded memory, no per-entry upkeep).
// Its values are shared: plans read the current commands, never change
// them (as the API's render cache assumes too).
type decodedCache struct {
	mu        sync.Mutex
	cur, prev map[versionKey]command.Command
}

const decodedEntries = 8192

func (d *decodedCache) get(k versionKey) (command.Command, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.cur[k]; ok {
		return c, true
	}
	c, ok := d.prev[k]
	if ok {
		d.putLocked(k, c)
	}
	return c, ok
}

func (d *decodedCache) put(k versionKey, c command.Command) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putLocked(k, c)
}

func (d *decodedCache) putLocked(k versionKey, c command.Command) {
	if d.cur == nil || len(d.cur) >= decodedEntries/2 {
		d.prev, d.cur = d.cur, make(map[versionKey]command.Command)
	}
	d.cur[k] = c
}

// wireForms are the stored bodies of a plan's result (nil if one is
// missing): a stored body is the command's wire form.
func wireForms(result []command.Command, stored, written map[versionKey][]byte) [][]byte {
	out := make([][]byte, len(result))
	for i := range result {
		k := versionKey{result[i].ID, result[i].Version}
		if b, ok := written[k]; ok {
			out[i] = b
		} else if b, ok := stored[k]; ok {
			out[i] = b
		} else {
			return nil
		}
	}
	return out
}

// Write statements come in a few fixed sizes (rows per statement), so
// that a handful of prepared statements serve every write: a bulk
// overwrite of 100 commands runs 3 inserts of 32 rows and 2 of 2.
var chunkSizes = [...]int{32, 8, 2, 1}

const commandColumns = 7

// writeStmts are WriteCommands' prepared statements: the scope lock, the
// current list, and per chunk size a DELETE of that many ids and an
// INSERT of that many rows.
type writeStmts struct {
	lock, list     *sql.Stmt
	delete, insert [len(chunkSizes)]*sql.Stmt
}

func (s *Store) writeStmts(ctx context.Context) (writeStmts, error) {
	var ws writeStmts
	var err error
	if ws.lock, err = s.stmt(ctx, `INSERT INTO command_scopes (application_id, guild_id, day, creates)
			VALUES ($1, $2, $3, 0)
			ON CONFLICT (application_id, guild_id) DO UPDATE
			SET creates = CASE WHEN command_scopes.day = excluded.day THEN command_scopes.creates ELSE 0 END,
			    day = excluded.day
			RETURNING creates`); err != nil {
		return ws, fmt.Errorf("prepare the scope lock: %w", err)
	}
	if ws.list, err = s.stmt(ctx, `SELECT id, version, body FROM commands WHERE application_id = $1 AND guild_id = $2 ORDER BY id`); err != nil {
		return ws, fmt.Errorf("prepare the command list: %w", err)
	}
	for i, n := range chunkSizes {
		if ws.delete[i], err = s.stmt(ctx, `DELETE FROM commands WHERE id IN (`+placeholders(1, n)+`)`); err != nil {
			return ws, fmt.Errorf("prepare a delete of %d commands: %w", n, err)
		}
		var q strings.Builder
		q.WriteString(`INSERT INTO commands (id, application_id, guild_id, type, name, version, body) VALUES `)
		for r := range n {
			if r > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(" + placeholders(1+r*commandColumns, commandColumns) + ")")
		}
		if ws.insert[i], err = s.stmt(ctx, q.String()); err != nil {
			return ws, fmt.Errorf("prepare an insert of %d commands: %w", n, err)
		}
	}
	return ws, nil
}

// inChunks runs stmts (one per chunk size) over args, width arguments a
// row, largest chunks first.
func inChunks(ctx context.Context, tx *sql.Tx, stmts [len(chunkSizes)]*sql.Stmt, width int, args []any) error {
	for i, n := range chunkSizes {
		var st *sql.Stmt
		for len(args) >= n*width {
			if st == nil {
				st = tx.StmtContext(ctx, stmts[i])
			}
			if _, err := st.ExecContext(ctx, args[:n*width]...); err != nil {
				return err
			}
			args = args[n*width:]
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
		enc, err := jsonenc.Marshal(next)
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

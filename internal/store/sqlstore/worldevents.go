package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// The world_events outbox (migration 0014) is written by triggers on
// guilds, roles, members and channels, in the transaction of the write,
// so that every writer records its changes, the CLI included.

// HasWorldEvents reports whether a change waits to be claimed.
func (s *Store) HasWorldEvents(ctx context.Context) (bool, error) {
	var id int64
	err := s.queryRow(ctx, `SELECT id FROM world_events ORDER BY id LIMIT 1`).Scan(&id)
	switch {
	case err == sql.ErrNoRows:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look for world events: %w", err)
	}
	return true, nil
}

// ClaimWorldEvents deletes the oldest changes and runs fn on them before
// the commit. On PostgreSQL at READ COMMITTED a second claimer's DELETE
// waits on the rows the first holds and skips them once it commits; on
// SQLite the write lock orders claims. Either way, whoever claims later
// publishes later.
func (s *Store) ClaimWorldEvents(ctx context.Context, limit int, fn func([]store.WorldEvent) error) error {
	if limit <= 0 {
		return nil
	}
	return s.lockedTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM world_events WHERE id IN
			(SELECT id FROM world_events ORDER BY id LIMIT $1) RETURNING id, guild_id, kind, op, object_id, object`, limit)
		if err != nil {
			return fmt.Errorf("claim world events: %w", s.formatError(err))
		}
		var out []store.WorldEvent
		for rows.Next() {
			e, err := scanWorldEvent(rows)
			if err != nil {
				rows.Close()
				return err
			}
			out = append(out, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim world events: %w", err)
		}
		if len(out) == 0 {
			return nil
		}
		// RETURNING gives no order.
		slices.SortFunc(out, func(a, b store.WorldEvent) int { return cmp.Compare(a.ID, b.ID) })
		return fn(out)
	})
}

func scanWorldEvent(row scanner) (store.WorldEvent, error) {
	var (
		e        store.WorldEvent
		gid, obj int64
		object   string
	)
	if err := row.Scan(&e.ID, &gid, &e.Kind, &e.Op, &obj, &object); err != nil {
		return e, fmt.Errorf("read world event: %w", err)
	}
	e.GuildID, e.ObjectID = snowflake.ID(gid), snowflake.ID(obj)
	if object == "" {
		return e, nil
	}
	if err := decodeObject(&e, object); err != nil {
		return e, fmt.Errorf("world event %d (%s %s): %w", e.ID, e.Kind, e.Op, err)
	}
	return e, nil
}

// objectRow is a role, member or channel row as the triggers record it:
// its columns as JSON (numbers, 0 or 1 for flags), lists as stored.
type objectRow struct {
	ID          int64          `json:"id"`
	GuildID     int64          `json:"guild_id"`
	UserID      int64          `json:"user_id"`
	Name        string         `json:"name"`
	Permissions int64          `json:"permissions"`
	Position    int            `json:"position"`
	Managed     int            `json:"managed"`
	Nick        string         `json:"nick"`
	Roles       []snowflake.ID `json:"roles"`
	JoinedAt    int64          `json:"joined_at"`
	Type        int            `json:"type"`
	ParentID    int64          `json:"parent_id"`
	NSFW        int            `json:"nsfw"`
	Overwrites  []dbOverwrite  `json:"overwrites"`
}

func decodeObject(e *store.WorldEvent, object string) error {
	var r objectRow
	if err := json.Unmarshal([]byte(object), &r); err != nil {
		return err
	}
	switch e.Kind {
	case store.WorldRole:
		e.Role = &guild.Role{ID: snowflake.ID(r.ID), GuildID: snowflake.ID(r.GuildID), Name: r.Name,
			Permissions: guild.Permissions(r.Permissions), Position: r.Position, Managed: r.Managed != 0}
	case store.WorldMember:
		roles := r.Roles
		if roles == nil {
			roles = []snowflake.ID{}
		}
		e.Member = &guild.Member{GuildID: snowflake.ID(r.GuildID), UserID: snowflake.ID(r.UserID), Nick: r.Nick,
			Roles: roles, JoinedAt: fromUnix(r.JoinedAt)}
	case store.WorldChannel:
		c := guild.Channel{ID: snowflake.ID(r.ID), GuildID: snowflake.ID(r.GuildID), Type: r.Type, Name: r.Name,
			ParentID: snowflake.ID(r.ParentID), NSFW: r.NSFW != 0, Position: r.Position,
			Overwrites: make([]guild.Overwrite, len(r.Overwrites))}
		for i, ow := range r.Overwrites {
			c.Overwrites[i] = guild.Overwrite{ID: ow.ID, Type: ow.Type, Allow: guild.Permissions(ow.Allow), Deny: guild.Permissions(ow.Deny)}
		}
		e.Channel = &c
	}
	return nil
}

// BotMembers lists the apps whose bot user is a member of the guild,
// less those whose joining waits in the outbox after change after.
func (s *Store) BotMembers(ctx context.Context, guildID snowflake.ID, after int64) ([]snowflake.ID, error) {
	return list(ctx, s.cached(), fmt.Sprintf("list bots of guild %d", guildID), func(row scanner) (snowflake.ID, error) {
		var id int64
		err := row.Scan(&id)
		return snowflake.ID(id), err
	}, `SELECT m.user_id FROM members m JOIN applications a ON a.id = m.user_id WHERE m.guild_id = $1
		AND NOT EXISTS (SELECT 1 FROM world_events w WHERE w.guild_id = $1 AND w.kind = 'member'
			AND w.op = 'create' AND w.object_id = a.id AND w.id > $2)
		ORDER BY m.user_id`,
		id64(guildID), after)
}

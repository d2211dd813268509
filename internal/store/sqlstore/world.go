package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// affected turns an UPDATE or DELETE that matched no row into ErrNotFound.
func affected(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return nil
}

// exists runs a SELECT COUNT(*) query.
func exists(ctx context.Context, q reader, query string, args ...any) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

func (s *Store) mustExist(ctx context.Context, tx *sql.Tx, what, table string, id snowflake.ID) error {
	ok, err := exists(ctx, tx, `SELECT COUNT(*) FROM `+table+` WHERE id = $1`, id64(id))
	if err != nil {
		return fmt.Errorf("find %s %d: %w", what, id, err)
	}
	if !ok {
		return fmt.Errorf("%s %d: %w", what, id, store.ErrNotFound)
	}
	return nil
}

// ---- users ----

// UpdateUser replaces a user's username, global name, locale and adult
// flag. Bot and CreatedAt are fixed at creation.
func (s *Store) UpdateUser(ctx context.Context, u store.User) error {
	res, err := s.execWrite(ctx, `UPDATE users SET username = $1, global_name = $2, locale = $3, adult = $4
		WHERE id = $5`, u.Username, u.GlobalName, u.Locale, boolInt(u.Adult), id64(u.ID))
	if err != nil {
		return fmt.Errorf("update user %d: %w", u.ID, s.formatError(err))
	}
	return affected(res, fmt.Sprintf("user %d", u.ID))
}

// DeleteUser deletes a user with their memberships, client tokens and the
// Bearer tokens they granted, and their DMs; they leave their group DMs
// (leavePrivateChannels). A user who owns a guild or an application,
// or is an application's bot user, cannot be deleted (ErrConflict).
func (s *Store) DeleteUser(ctx context.Context, id snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "user", "users", id); err != nil {
			return err
		}
		owns, err := exists(ctx, tx, `SELECT (SELECT COUNT(*) FROM guilds WHERE owner_id = $1)
			+ (SELECT COUNT(*) FROM applications WHERE owner_id = $1 OR id = $1)`, id64(id))
		if err != nil {
			return fmt.Errorf("find what user %d owns: %w", id, err)
		}
		if owns {
			return fmt.Errorf("user %d owns a guild or an application, or is a bot user: %w", id, store.ErrConflict)
		}
		if err := s.leavePrivateChannels(ctx, tx, id); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM members WHERE user_id = $1`,
			`DELETE FROM client_tokens WHERE user_id = $1`,
			`DELETE FROM tokens WHERE user_id = $1`,
			`DELETE FROM users WHERE id = $1`,
		} {
			if _, err := tx.ExecContext(ctx, q, id64(id)); err != nil {
				return fmt.Errorf("delete user %d: %w", id, s.formatError(err))
			}
		}
		return nil
	})
}

// Users lists every user, bot users included, by id.
func (s *Store) Users(ctx context.Context) ([]store.User, error) {
	return list(ctx, s.cached(), "list users", scanUser, `SELECT `+userColumns+` FROM users ORDER BY id`)
}

// list runs a query and scans every row with scan; the result is never nil.
func list[T any](ctx context.Context, q reader, what string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// ---- guilds ----

// Guilds lists every guild by id.
func (s *Store) Guilds(ctx context.Context) ([]store.Guild, error) {
	return list(ctx, s.cached(), "list guilds", scanGuild, `SELECT `+guildColumns+` FROM guilds ORDER BY id`)
}

// MemberGuilds lists the guilds a user is a member of, by id.
func (s *Store) MemberGuilds(ctx context.Context, userID snowflake.ID) ([]store.Guild, error) {
	return list(ctx, s.cached(), "list guilds of user", scanGuild, `SELECT g.id, g.name, g.owner_id, g.created_at, g.world_id
		FROM guilds g JOIN members m ON m.guild_id = g.id WHERE m.user_id = $1 ORDER BY g.id`, id64(userID))
}

// ShardGuildIDs lists, by id, the guilds of userID in shard of shards
// ((guild_id >> 22) % shards == shard). The filter is computed in SQL on
// the entries of members_by_user_guild, which holds both columns: the
// user's other memberships are skipped in the index, and no row of
// another shard's guild is read.
func (s *Store) ShardGuildIDs(ctx context.Context, userID snowflake.ID, shard, shards int) ([]snowflake.ID, error) {
	if shards < 1 || shard < 0 || shard >= shards {
		return nil, fmt.Errorf("guilds of user %d in shard %d of %d: not a shard", userID, shard, shards)
	}
	return list(ctx, s.cached(), fmt.Sprintf("guilds of user %d in shard %d of %d", userID, shard, shards),
		func(row scanner) (snowflake.ID, error) {
			var id int64
			err := row.Scan(&id)
			return snowflake.ID(id), err
		}, `SELECT guild_id FROM members WHERE user_id = $1 AND (guild_id >> 22) % $2 = $3 ORDER BY guild_id`,
		id64(userID), int64(shards), int64(shard))
}

// MemberCount counts a guild's members from the primary key's index,
// which guild_id leads.
func (s *Store) MemberCount(ctx context.Context, guildID snowflake.ID) (int, error) {
	var n int
	err := s.cached().QueryRowContext(ctx, `SELECT COUNT(*) FROM members WHERE guild_id = $1`, id64(guildID)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count members of guild %d: %w", guildID, err)
	}
	return n, nil
}

// UpdateGuild renames a guild and sets its owner, who must be a user; a
// new owner who is not a member joins now. CreatedAt is fixed.
func (s *Store) UpdateGuild(ctx context.Context, g store.Guild) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "guild", "guilds", g.ID); err != nil {
			return err
		}
		if err := s.mustExist(ctx, tx, "user", "users", g.OwnerID); err != nil {
			return fmt.Errorf("owner of guild %d: %w", g.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE guilds SET name = $1, owner_id = $2 WHERE id = $3`,
			g.Name, id64(g.OwnerID), id64(g.ID)); err != nil {
			return fmt.Errorf("update guild %d: %w", g.ID, s.formatError(err))
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO members (guild_id, user_id, nick, roles, joined_at)
			VALUES ($1, $2, '', '[]', $3) ON CONFLICT (guild_id, user_id) DO NOTHING`,
			id64(g.ID), id64(g.OwnerID), unix(time.Now()))
		if err != nil {
			return fmt.Errorf("make owner %d a member of guild %d: %w", g.OwnerID, g.ID, s.formatError(err))
		}
		return nil
	})
}

// DeleteGuild deletes a guild and everything kept for it: roles, members,
// channels with their messages and interactions, installations, the
// guild commands of every app with their scope rows, and every permission
// list in the guild (those of global commands and app-level ones
// included).
func (s *Store) DeleteGuild(ctx context.Context, id snowflake.ID) error {
	if id == 0 {
		// guild_id 0 is the global scope: never delete by it.
		return fmt.Errorf("guild 0: %w", store.ErrNotFound)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "guild", "guilds", id); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM command_permissions WHERE guild_id = $1`,
			`DELETE FROM commands WHERE guild_id = $1`,
			`DELETE FROM command_scopes WHERE guild_id = $1`,
			`DELETE FROM installations WHERE guild_id = $1`,
			`DELETE FROM members WHERE guild_id = $1`,
			`DELETE FROM messages WHERE channel_id IN (SELECT id FROM channels WHERE guild_id = $1)`,
			`DELETE FROM interactions WHERE channel_id IN (SELECT id FROM channels WHERE guild_id = $1)`,
			`DELETE FROM channels WHERE guild_id = $1`,
			`DELETE FROM roles WHERE guild_id = $1`,
			`DELETE FROM guilds WHERE id = $1`,
		} {
			if _, err := tx.ExecContext(ctx, q, id64(id)); err != nil {
				return fmt.Errorf("delete guild %d: %w", id, s.formatError(err))
			}
		}
		return nil
	})
}

// ---- roles ----

const roleColumns = `id, guild_id, name, permissions, position, managed`

func scanRole(row scanner) (guild.Role, error) {
	var (
		r           guild.Role
		id, gid     int64
		permissions int64
		managed     int
	)
	if err := row.Scan(&id, &gid, &r.Name, &permissions, &r.Position, &managed); err != nil {
		return r, err
	}
	r.ID, r.GuildID, r.Permissions, r.Managed = snowflake.ID(id), snowflake.ID(gid), guild.Permissions(permissions), managed != 0
	return r, nil
}

func (s *Store) insertRole(ctx context.Context, tx *sql.Tx, r guild.Role) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO roles (`+roleColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		id64(r.ID), id64(r.GuildID), r.Name, int64(r.Permissions), r.Position, boolInt(r.Managed))
	if err != nil {
		return fmt.Errorf("insert role %d: %w", r.ID, s.formatError(err))
	}
	return nil
}

// CreateRole adds a role to a guild.
func (s *Store) CreateRole(ctx context.Context, r guild.Role) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "guild", "guilds", r.GuildID); err != nil {
			return err
		}
		return s.insertRole(ctx, tx, r)
	})
}

// UpdateRole replaces a role's name, permissions, position and managed flag.
func (s *Store) UpdateRole(ctx context.Context, r guild.Role) error {
	res, err := s.execWrite(ctx, `UPDATE roles SET name = $1, permissions = $2, position = $3, managed = $4
		WHERE id = $5 AND guild_id = $6`,
		r.Name, int64(r.Permissions), r.Position, boolInt(r.Managed), id64(r.ID), id64(r.GuildID))
	if err != nil {
		return fmt.Errorf("update role %d: %w", r.ID, s.formatError(err))
	}
	return affected(res, fmt.Sprintf("role %d of guild %d", r.ID, r.GuildID))
}

// DeleteRole deletes a role and takes it from every member who has it.
func (s *Store) DeleteRole(ctx context.Context, guildID, roleID snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if roleID == guild.EveryoneRoleID(guildID) {
			if err := s.mustExist(ctx, tx, "guild", "guilds", guildID); err != nil {
				return err
			}
			return fmt.Errorf("the @everyone role cannot be deleted: %w", store.ErrConflict)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM roles WHERE id = $1 AND guild_id = $2`, id64(roleID), id64(guildID))
		if err != nil {
			return fmt.Errorf("delete role %d: %w", roleID, s.formatError(err))
		}
		if err := affected(res, fmt.Sprintf("role %d of guild %d", roleID, guildID)); err != nil {
			return err
		}
		// Role lists hold ids as JSON strings, so the quoted id narrows
		// the scan to the members who have the role.
		pattern := `%"` + roleID.String() + `"%`
		members, err := list(ctx, tx, "find members with the role", scanMember,
			`SELECT `+memberColumns+` FROM members WHERE guild_id = $1 AND roles LIKE $2`, id64(guildID), pattern)
		if err != nil {
			return err
		}
		for _, m := range members {
			kept := slices.DeleteFunc(slices.Clone(m.Roles), func(id snowflake.ID) bool { return id == roleID })
			if len(kept) == len(m.Roles) {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE members SET roles = $1 WHERE guild_id = $2 AND user_id = $3`,
				encodeRoles(kept), id64(guildID), id64(m.UserID)); err != nil {
				return fmt.Errorf("take role %d from member %d: %w", roleID, m.UserID, err)
			}
		}
		return nil
	})
}

// Role reads one role of a guild.
func (s *Store) Role(ctx context.Context, guildID, roleID snowflake.ID) (guild.Role, error) {
	r, err := scanRole(s.queryRow(ctx, `SELECT `+roleColumns+` FROM roles WHERE id = $1 AND guild_id = $2`,
		id64(roleID), id64(guildID)))
	if err != nil {
		return r, notFound(err, fmt.Sprintf("role %d of guild %d", roleID, guildID))
	}
	return r, nil
}

// Roles lists a guild's roles by position, then id; empty for an unknown
// guild.
func (s *Store) Roles(ctx context.Context, guildID snowflake.ID) ([]guild.Role, error) {
	return listRoles(ctx, s.cached(), guildID)
}

const queryRoles = `SELECT ` + roleColumns + ` FROM roles WHERE guild_id = $1 ORDER BY position, id`

func listRoles(ctx context.Context, q reader, guildID snowflake.ID) ([]guild.Role, error) {
	return list(ctx, q, fmt.Sprintf("list roles of guild %d", guildID), scanRole,
		queryRoles, id64(guildID))
}

// ---- members ----

const memberColumns = `guild_id, user_id, nick, roles, joined_at`

func scanMember(row scanner) (guild.Member, error) {
	var r memberRow
	if err := row.Scan(r.dest()...); err != nil {
		return guild.Member{}, err
	}
	return r.member()
}

// memberRow is a membership's columns (memberColumns) as scanned.
type memberRow struct {
	m        guild.Member
	gid, uid int64
	roles    string
	joined   int64
}

func (r *memberRow) dest() []any { return []any{&r.gid, &r.uid, &r.m.Nick, &r.roles, &r.joined} }

func (r *memberRow) member() (guild.Member, error) {
	m := r.m
	m.GuildID, m.UserID, m.JoinedAt = snowflake.ID(r.gid), snowflake.ID(r.uid), fromUnix(r.joined)
	if err := json.Unmarshal([]byte(r.roles), &m.Roles); err != nil {
		return m, fmt.Errorf("member %d of guild %d roles: %w", r.uid, r.gid, err)
	}
	if m.Roles == nil {
		m.Roles = []snowflake.ID{}
	}
	return m, nil
}

// scanMemberUser reads memberColumns followed by userColumns.
func scanMemberUser(row scanner) (store.MemberUser, error) {
	var (
		mr memberRow
		ur userRow
	)
	if err := row.Scan(append(mr.dest(), ur.dest()...)...); err != nil {
		return store.MemberUser{}, err
	}
	m, err := mr.member()
	return store.MemberUser{Member: m, User: ur.user()}, err
}

func encodeRoles(ids []snowflake.ID) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := jsonenc.Marshal(ids) // ids always encode
	return string(b)
}

// PutMember adds or replaces a membership. The guild and the user must
// exist and every role must be one of the guild's (else ErrNotFound);
// @everyone and repeated ids are dropped from the list.
func (s *Store) PutMember(ctx context.Context, m guild.Member) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "guild", "guilds", m.GuildID); err != nil {
			return err
		}
		if err := s.mustExist(ctx, tx, "user", "users", m.UserID); err != nil {
			return err
		}
		have := map[snowflake.ID]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM roles WHERE guild_id = $1`, id64(m.GuildID))
		if err != nil {
			return fmt.Errorf("list roles of guild %d: %w", m.GuildID, err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("list roles of guild %d: %w", m.GuildID, err)
			}
			have[snowflake.ID(id)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list roles of guild %d: %w", m.GuildID, err)
		}
		roles := make([]snowflake.ID, 0, len(m.Roles))
		for _, id := range m.Roles {
			switch {
			case id == guild.EveryoneRoleID(m.GuildID) || slices.Contains(roles, id):
			case !have[id]:
				return fmt.Errorf("role %d of guild %d: %w", id, m.GuildID, store.ErrNotFound)
			default:
				roles = append(roles, id)
			}
		}
		m.Roles = roles
		return s.putMember(ctx, tx, m)
	})
}

func (s *Store) putMember(ctx context.Context, tx *sql.Tx, m guild.Member) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO members (`+memberColumns+`) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (guild_id, user_id) DO UPDATE
		SET nick = excluded.nick, roles = excluded.roles, joined_at = excluded.joined_at`,
		id64(m.GuildID), id64(m.UserID), m.Nick, encodeRoles(m.Roles), unix(m.JoinedAt))
	if err != nil {
		return fmt.Errorf("put member %d of guild %d: %w", m.UserID, m.GuildID, s.formatError(err))
	}
	return nil
}

// DeleteMember removes a membership. The guild's owner cannot leave
// (ErrConflict): transfer the guild first.
func (s *Store) DeleteMember(ctx context.Context, guildID, userID snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		var owner int64
		err := tx.QueryRowContext(ctx, `SELECT owner_id FROM guilds WHERE id = $1`, id64(guildID)).Scan(&owner)
		if err != nil {
			return notFound(err, fmt.Sprintf("guild %d", guildID))
		}
		if snowflake.ID(owner) == userID {
			return fmt.Errorf("user %d owns guild %d: %w", userID, guildID, store.ErrConflict)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM members WHERE guild_id = $1 AND user_id = $2`, id64(guildID), id64(userID))
		if err != nil {
			return fmt.Errorf("delete member %d of guild %d: %w", userID, guildID, err)
		}
		return affected(res, fmt.Sprintf("member %d of guild %d", userID, guildID))
	})
}

// Member reads one membership.
func (s *Store) Member(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, error) {
	m, err := scanMember(s.queryRow(ctx, `SELECT `+memberColumns+` FROM members WHERE guild_id = $1 AND user_id = $2`,
		id64(guildID), id64(userID)))
	if err != nil {
		return m, notFound(err, fmt.Sprintf("member %d of guild %d", userID, guildID))
	}
	return m, nil
}

// Members lists a guild's members by user id; empty for an unknown guild.
func (s *Store) Members(ctx context.Context, guildID snowflake.ID) ([]guild.Member, error) {
	return list(ctx, s.cached(), fmt.Sprintf("list members of guild %d", guildID), scanMember,
		`SELECT `+memberColumns+` FROM members WHERE guild_id = $1 ORDER BY user_id`, id64(guildID))
}

// SearchMembers lists the members of a guild that q selects, with their
// users, by user id. The username prefix is compared here rather than in
// SQL, so that case folds alike on every backend (SQLite's lower() and
// LIKE fold ASCII only); rows stream, so a limit stops the read early.
func (s *Store) SearchMembers(ctx context.Context, guildID snowflake.ID, q store.MemberQuery) ([]store.MemberUser, error) {
	what := fmt.Sprintf("search members of guild %d", guildID)
	query := `SELECT ` + memberColumns + `, ` + userColumns + ` FROM members JOIN users ON users.id = members.user_id
		WHERE members.guild_id = $1`
	args := []any{id64(guildID)}
	var rows *sql.Rows
	var err error
	switch {
	case q.UserIDs != nil && len(q.UserIDs) == 0:
		return []store.MemberUser{}, nil
	case q.UserIDs != nil:
		// Not through the statement cache: every list length is a query
		// of its own.
		query += ` AND members.user_id IN (` + placeholders(2, len(q.UserIDs)) + `) ORDER BY members.user_id`
		for _, id := range q.UserIDs {
			args = append(args, id64(id))
		}
		rows, err = s.db.QueryContext(ctx, query, args...)
	default:
		rows, err = s.cached().QueryContext(ctx, query+` AND members.user_id > $2 ORDER BY members.user_id`,
			append(args, id64(q.After))...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	prefix := strings.ToLower(q.Prefix)
	out := []store.MemberUser{}
	for (q.UserIDs != nil || q.Limit <= 0 || len(out) < q.Limit) && rows.Next() {
		mu, err := scanMemberUser(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if q.UserIDs == nil && !strings.HasPrefix(strings.ToLower(mu.User.Username), prefix) {
			continue
		}
		out = append(out, mu)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// placeholders lists n query parameters from $first on: "$2, $3, …".
func placeholders(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(first+i))
	}
	return b.String()
}

// ---- channels ----

const channelColumns = `id, guild_id, type, name, parent_id, nsfw, position, overwrites`

// dbOverwrite is an overwrite as stored: guild.Permissions renders as a
// JSON string and has no decoder, so the bit sets are kept as numbers.
type dbOverwrite struct {
	ID    snowflake.ID `json:"id"`
	Type  int          `json:"type"`
	Allow uint64       `json:"allow"`
	Deny  uint64       `json:"deny"`
}

func encodeOverwrites(ows []guild.Overwrite) string {
	out := make([]dbOverwrite, len(ows))
	for i, ow := range ows {
		out[i] = dbOverwrite{ID: ow.ID, Type: ow.Type, Allow: uint64(ow.Allow), Deny: uint64(ow.Deny)}
	}
	b, _ := jsonenc.Marshal(out) // always encodes
	return string(b)
}

func scanChannel(row scanner) (guild.Channel, error) {
	var (
		c                 guild.Channel
		id, gid, parentID int64
		nsfw              int
		overwrites        string
	)
	if err := row.Scan(&id, &gid, &c.Type, &c.Name, &parentID, &nsfw, &c.Position, &overwrites); err != nil {
		return c, err
	}
	c.ID, c.GuildID, c.ParentID, c.NSFW = snowflake.ID(id), snowflake.ID(gid), snowflake.ID(parentID), nsfw != 0
	var ows []dbOverwrite
	if err := json.Unmarshal([]byte(overwrites), &ows); err != nil {
		return c, fmt.Errorf("channel %d overwrites: %w", id, err)
	}
	c.Overwrites = make([]guild.Overwrite, len(ows))
	for i, ow := range ows {
		c.Overwrites[i] = guild.Overwrite{ID: ow.ID, Type: ow.Type, Allow: guild.Permissions(ow.Allow), Deny: guild.Permissions(ow.Deny)}
	}
	return c, nil
}

// errCycle is a parent chain that comes back to the channel.
var errCycle = fmt.Errorf("a channel cannot be its own parent or ancestor: %w", store.ErrConflict)

// checkParent checks that c's parent is a channel of c's guild (else
// ErrNotFound) and that c is not its own ancestor (else ErrConflict).
func (s *Store) checkParent(ctx context.Context, tx *sql.Tx, c guild.Channel) error {
	if c.ParentID == 0 {
		return nil
	}
	if c.ParentID == c.ID {
		return fmt.Errorf("channel %d: %w", c.ID, errCycle)
	}
	var gid, up int64
	err := tx.QueryRowContext(ctx, `SELECT guild_id, parent_id FROM channels WHERE id = $1`, id64(c.ParentID)).Scan(&gid, &up)
	if err != nil {
		return notFound(err, fmt.Sprintf("parent channel %d", c.ParentID))
	}
	if snowflake.ID(gid) != c.GuildID {
		return fmt.Errorf("parent channel %d in guild %d: %w", c.ParentID, c.GuildID, store.ErrNotFound)
	}
	// Walk up from the parent; every channel on the way is in the guild.
	seen := map[int64]bool{id64(c.ParentID): true}
	for up != 0 && !seen[up] {
		if snowflake.ID(up) == c.ID {
			return fmt.Errorf("channel %d under %d: %w", c.ID, c.ParentID, errCycle)
		}
		seen[up] = true
		err := tx.QueryRowContext(ctx, `SELECT parent_id FROM channels WHERE id = $1`, up).Scan(&up)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return fmt.Errorf("walk up channel %d: %w", c.ParentID, err)
		}
	}
	return nil
}

// CreateChannel adds a channel to a guild.
func (s *Store) CreateChannel(ctx context.Context, c guild.Channel) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "guild", "guilds", c.GuildID); err != nil {
			return err
		}
		if err := s.checkParent(ctx, tx, c); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO channels (`+channelColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			id64(c.ID), id64(c.GuildID), c.Type, c.Name, id64(c.ParentID), boolInt(c.NSFW), c.Position,
			encodeOverwrites(c.Overwrites))
		if err != nil {
			return fmt.Errorf("insert channel %d: %w", c.ID, s.formatError(err))
		}
		return nil
	})
}

// UpdateChannel replaces a channel (its guild is fixed).
func (s *Store) UpdateChannel(ctx context.Context, c guild.Channel) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		ok, err := exists(ctx, tx, `SELECT COUNT(*) FROM channels WHERE id = $1 AND guild_id = $2`, id64(c.ID), id64(c.GuildID))
		if err != nil {
			return fmt.Errorf("find channel %d: %w", c.ID, err)
		}
		if !ok {
			return fmt.Errorf("channel %d of guild %d: %w", c.ID, c.GuildID, store.ErrNotFound)
		}
		if err := s.checkParent(ctx, tx, c); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE channels SET type = $1, name = $2, parent_id = $3, nsfw = $4, position = $5,
			overwrites = $6 WHERE id = $7`,
			c.Type, c.Name, id64(c.ParentID), boolInt(c.NSFW), c.Position, encodeOverwrites(c.Overwrites), id64(c.ID))
		if err != nil {
			return fmt.Errorf("update channel %d: %w", c.ID, s.formatError(err))
		}
		return nil
	})
}

// DeleteChannel deletes a channel with its threads (and theirs) and the
// messages and interactions of them all; its other children (a
// category's channels) lose their parent. Command permission lists naming
// the channel are kept, as the real service keeps them.
func (s *Store) DeleteChannel(ctx context.Context, guildID, channelID snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		ok, err := exists(ctx, tx, `SELECT COUNT(*) FROM channels WHERE id = $1 AND guild_id = $2`, id64(channelID), id64(guildID))
		if err != nil {
			return fmt.Errorf("find channel %d: %w", channelID, err)
		}
		if !ok {
			return fmt.Errorf("channel %d of guild %d: %w", channelID, guildID, store.ErrNotFound)
		}
		doomed := []int64{id64(channelID)}
		for i := 0; i < len(doomed); i++ {
			rows, err := tx.QueryContext(ctx, `SELECT id, type FROM channels WHERE parent_id = $1 AND guild_id = $2`,
				doomed[i], id64(guildID))
			if err != nil {
				return fmt.Errorf("find threads of channel %d: %w", doomed[i], err)
			}
			for rows.Next() {
				var (
					id  int64
					typ int
				)
				if err := rows.Scan(&id, &typ); err != nil {
					rows.Close()
					return fmt.Errorf("find threads of channel %d: %w", doomed[i], err)
				}
				if guild.IsThread(typ) && !slices.Contains(doomed, id) {
					doomed = append(doomed, id)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("find threads of channel %d: %w", doomed[i], err)
			}
		}
		for _, id := range doomed {
			for _, q := range []string{
				`DELETE FROM messages WHERE channel_id = $1`,
				`DELETE FROM interactions WHERE channel_id = $1`,
			} {
				if _, err := tx.ExecContext(ctx, q, id); err != nil {
					return fmt.Errorf("delete messages and interactions of channel %d: %w", id, err)
				}
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM channels WHERE id = $1`, id); err != nil {
				return fmt.Errorf("delete channel %d: %w", id, s.formatError(err))
			}
			if _, err := tx.ExecContext(ctx, `UPDATE channels SET parent_id = 0 WHERE parent_id = $1 AND guild_id = $2`,
				id, id64(guildID)); err != nil {
				return fmt.Errorf("orphan children of channel %d: %w", id, err)
			}
		}
		return nil
	})
}

// Channel reads a channel by id.
func (s *Store) Channel(ctx context.Context, channelID snowflake.ID) (guild.Channel, error) {
	c, err := scanChannel(s.queryRow(ctx, `SELECT `+channelColumns+` FROM channels WHERE id = $1`, id64(channelID)))
	if err != nil {
		return c, notFound(err, fmt.Sprintf("channel %d", channelID))
	}
	return c, nil
}

// Channels lists a guild's channels by position, then id; empty for an
// unknown guild.
func (s *Store) Channels(ctx context.Context, guildID snowflake.ID) ([]guild.Channel, error) {
	return listChannels(ctx, s.cached(), guildID)
}

const queryChannels = `SELECT ` + channelColumns + ` FROM channels WHERE guild_id = $1 ORDER BY position, id`

func listChannels(ctx context.Context, q reader, guildID snowflake.ID) ([]guild.Channel, error) {
	return list(ctx, q, fmt.Sprintf("list channels of guild %d", guildID), scanChannel,
		queryChannels, id64(guildID))
}

// ---- installations and applications ----

func scanInstallation(row scanner) (store.Installation, error) {
	var (
		inst     store.Installation
		gid, app int64
		scopes   string
		created  int64
	)
	if err := row.Scan(&gid, &app, &scopes, &created); err != nil {
		return inst, err
	}
	inst.GuildID, inst.ApplicationID = snowflake.ID(gid), snowflake.ID(app)
	inst.Scopes, inst.CreatedAt = splitScopes(scopes), fromUnix(created)
	return inst, nil
}

// Installations lists the apps installed in a guild by app id; empty for
// an unknown guild.
func (s *Store) Installations(ctx context.Context, guildID snowflake.ID) ([]store.Installation, error) {
	return listInstallations(ctx, s.cached(), guildID)
}

const queryInstallations = `SELECT guild_id, application_id, scopes, created_at FROM installations
		WHERE guild_id = $1 ORDER BY application_id`

func listInstallations(ctx context.Context, q reader, guildID snowflake.ID) ([]store.Installation, error) {
	return list(ctx, q, fmt.Sprintf("list installations in guild %d", guildID), scanInstallation,
		queryInstallations, id64(guildID))
}

// Uninstall removes an app's installation from a guild. The app's
// commands and permission lists there are kept.
func (s *Store) Uninstall(ctx context.Context, guildID, appID snowflake.ID) error {
	res, err := s.execWrite(ctx, `DELETE FROM installations WHERE guild_id = $1 AND application_id = $2`,
		id64(guildID), id64(appID))
	if err != nil {
		return fmt.Errorf("uninstall app %d from guild %d: %w", appID, guildID, err)
	}
	return affected(res, fmt.Sprintf("installation of app %d in guild %d", appID, guildID))
}

// Applications lists every application by id.
func (s *Store) Applications(ctx context.Context) ([]store.Application, error) {
	return list(ctx, s.cached(), "list applications", func(row scanner) (store.Application, error) {
		a, err := scanApplication(row)
		if err != nil {
			return a, err
		}
		return s.openApplication(a)
	}, `SELECT `+applicationColumns+` FROM applications ORDER BY id`)
}

// ---- admin and client tokens ----

// CreateAdminToken stores an admin token's hash.
func (s *Store) CreateAdminToken(ctx context.Context, hash []byte, createdAt time.Time) error {
	_, err := s.execWrite(ctx, `INSERT INTO admin_tokens (hash, created_at) VALUES ($1, $2)`, hash, unix(createdAt))
	if err != nil {
		return fmt.Errorf("insert admin token: %w", s.formatError(err))
	}
	return nil
}

// AdminTokenExists reports whether hash is an admin token's.
func (s *Store) AdminTokenExists(ctx context.Context, hash []byte) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM admin_tokens WHERE hash = $1`, hash).Scan(&n); err != nil {
		return false, fmt.Errorf("find admin token: %w", err)
	}
	return n > 0, nil
}

// ReplaceAdminTokens stores hash as the one admin token, deleting the
// others in the same transaction.
func (s *Store) ReplaceAdminTokens(ctx context.Context, hash []byte, createdAt time.Time) (int, error) {
	var revoked int64
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM admin_tokens WHERE hash = $1`, hash).Scan(&exists); err != nil {
			return fmt.Errorf("find admin token: %w", err)
		}
		if exists > 0 {
			return fmt.Errorf("insert admin token: %w", store.ErrConflict)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM admin_tokens`)
		if err != nil {
			return fmt.Errorf("delete admin tokens: %w", s.formatError(err))
		}
		if revoked, err = res.RowsAffected(); err != nil {
			return fmt.Errorf("delete admin tokens: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO admin_tokens (hash, created_at) VALUES ($1, $2)`, hash, unix(createdAt)); err != nil {
			return fmt.Errorf("insert admin token: %w", s.formatError(err))
		}
		return nil
	})
	return int(revoked), err
}

// CreateClientToken stores a user's client token hash; the user must
// exist (ErrNotFound).
func (s *Store) CreateClientToken(ctx context.Context, hash []byte, userID snowflake.ID, createdAt time.Time) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "user", "users", userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO client_tokens (hash, user_id, created_at) VALUES ($1, $2, $3)`,
			hash, id64(userID), unix(createdAt))
		if err != nil {
			return fmt.Errorf("insert client token: %w", s.formatError(err))
		}
		return nil
	})
}

// ClientTokenUser finds the user a client token belongs to.
func (s *Store) ClientTokenUser(ctx context.Context, hash []byte) (snowflake.ID, error) {
	var id int64
	if err := s.queryRow(ctx, `SELECT user_id FROM client_tokens WHERE hash = $1`, hash).Scan(&id); err != nil {
		return 0, notFound(err, "client token")
	}
	return snowflake.ID(id), nil
}

// ---- snapshot ----

// Snapshot reads a guild, its roles, channels and installations in one
// read-only transaction. On SQLite the driver begins a read-only
// transaction DEFERRED whatever _txlock says, so it takes no write lock,
// and in WAL mode its first read fixes what it sees. Repeatable read
// gives the same single snapshot on PostgreSQL, whose default (read
// committed) would not. A backend that can fail even a read-only
// transaction for serialization (CockroachDB) has it retried like Tx's.
func (s *Store) Snapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, error) {
	var snap store.Snapshot
	err := s.retry(ctx, func() error {
		var err error
		snap, err = s.snapshot(ctx, guildID)
		return err
	})
	return snap, err
}

func (s *Store) snapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, error) {
	var snap store.Snapshot
	// Prepared before the transaction, which then reuses them (see
	// preparedStmt: a transaction never prepares into the cache).
	if err := s.prepareAll(ctx, queryGuild, queryRoles, queryChannels, queryInstallations); err != nil {
		return snap, fmt.Errorf("snapshot of guild %d: %w", guildID, err)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return snap, fmt.Errorf("begin snapshot: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	r := txReader{s: s, tx: tx}
	if snap.Guild, err = readGuild(ctx, r, guildID); err != nil {
		return snap, err
	}
	if snap.Roles, err = listRoles(ctx, r, guildID); err != nil {
		return snap, err
	}
	if snap.Channels, err = listChannels(ctx, r, guildID); err != nil {
		return snap, err
	}
	if snap.Installations, err = listInstallations(ctx, r, guildID); err != nil {
		return snap, err
	}
	if err := tx.Commit(); err != nil {
		return snap, fmt.Errorf("end snapshot: %w", err)
	}
	return snap, nil
}

// MaxID is the largest id in use across the id-bearing tables.
func (s *Store) MaxID(ctx context.Context) (snowflake.ID, error) {
	var max int64
	err := s.queryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM (
		SELECT MAX(id) AS id FROM users UNION ALL
		SELECT MAX(id) FROM guilds UNION ALL
		SELECT MAX(id) FROM roles UNION ALL
		SELECT MAX(id) FROM channels UNION ALL
		SELECT MAX(id) FROM private_channels UNION ALL
		SELECT MAX(id) FROM commands UNION ALL
		SELECT MAX(id) FROM messages UNION ALL
		SELECT MAX(id) FROM message_files UNION ALL
		SELECT MAX(id) FROM interactions UNION ALL
		SELECT MAX(version) FROM commands) AS ids`).Scan(&max)
	if err != nil {
		return 0, fmt.Errorf("max id: %w", err)
	}
	return snowflake.ID(max), nil
}

// ClaimFirstRun inserts the one claim row, or takes over a stale one, in
// one statement; RETURNING says whether this owner holds it.
func (s *Store) ClaimFirstRun(ctx context.Context, owner string, now time.Time, stale time.Duration) (bool, error) {
	var got string
	err := s.writeRow(ctx, []any{&got}, `INSERT INTO first_run (id, owner, claimed_at) VALUES (1, $1, $2)
		ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at
		WHERE first_run.claimed_at < $3
		RETURNING owner`, owner, unix(now), unix(now.Add(-stale)))
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // held by another, not stale
	}
	if err != nil {
		return false, fmt.Errorf("claim the first run: %w", s.formatError(err))
	}
	return got == owner, nil
}

package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// WorldRows reads a world's rows back (an export's input) in one
// read-only transaction: every row is of the same moment, whatever
// writes run meanwhile. Each read finds its rows through the world's
// world_id indexes or the tables' own, so an export costs what the world
// holds. Nothing secret is read (see store.TestWorlds.WorldRows).
func (s *Store) WorldRows(ctx context.Context, id snowflake.ID, messages int) (store.WorldPlan, error) {
	var rows store.WorldPlan
	err := s.retry(ctx, func() error {
		var err error
		rows, err = s.worldRows(ctx, id, messages)
		return err
	})
	return rows, err
}

// The reads of WorldRows beside the ones other methods share (roles,
// channels, installations, commands). "world_id <> 0" lets SQLite use the
// partial world_id indexes (see worldRowsDeletes).
const (
	queryWorldUsers        = `SELECT ` + userColumns + ` FROM users WHERE world_id = $1 AND world_id <> 0 ORDER BY id`
	queryWorldApps         = `SELECT ` + applicationColumns + ` FROM applications WHERE world_id = $1 AND world_id <> 0 ORDER BY id`
	queryWorldGuilds       = `SELECT ` + guildColumns + ` FROM guilds WHERE world_id = $1 AND world_id <> 0 ORDER BY id`
	queryWorldUserInstalls = `SELECT ` + userInstallationColumns + ` FROM user_installations WHERE user_id = $1
		ORDER BY application_id`
	queryWorldPrivate = `SELECT ` + privateChannelColumns + `, r.user_id
		FROM private_channel_recipients mine
		JOIN private_channels c ON c.id = mine.channel_id
		JOIN private_channel_recipients r ON r.channel_id = c.id
		WHERE mine.user_id = $1 ORDER BY c.id, r.user_id`
	queryWorldMembers     = `SELECT ` + memberColumns + ` FROM members WHERE guild_id = $1 ORDER BY user_id`
	queryWorldPermissions = `SELECT command_id, body FROM command_permissions
		WHERE application_id = $1 AND guild_id = $2 ORDER BY command_id`
	queryWorldMessages = `SELECT ` + messageColumns + ` FROM messages WHERE channel_id = $1 AND visible_to = 0
		ORDER BY id DESC LIMIT $2`
	queryWorldCommands = `SELECT body FROM commands WHERE application_id = $1 AND guild_id = $2 ORDER BY id`
)

// worldRowsReads are WorldRows' statements, for the query-plan test.
var worldRowsReads = []string{queryWorldUsers, queryWorldApps, queryWorldGuilds, queryWorldUserInstalls, queryWorldPrivate,
	queryWorldMembers, queryWorldPermissions, queryWorldMessages, queryWorldCommands, queryRoles, queryChannels,
	queryInstallations}

func (s *Store) worldRows(ctx context.Context, id snowflake.ID, messages int) (store.WorldPlan, error) {
	var p store.WorldPlan
	if err := s.prepareAll(ctx, queryRoles, queryChannels, queryInstallations); err != nil {
		return p, fmt.Errorf("read world %d: %w", id, err)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return p, fmt.Errorf("read world %d: begin: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }() // read only: nothing to keep
	r := txReader{s: s, tx: tx}
	what := func(s string) string { return fmt.Sprintf("read world %d: %s", id, s) }

	users, err := list(ctx, r, what("users"), scanUser,
		queryWorldUsers, id64(id))
	if err != nil {
		return p, err
	}
	bots := map[snowflake.ID]store.User{}
	var parties []snowflake.ID
	for _, u := range users {
		if u.Bot {
			bots[u.ID] = u
			continue
		}
		p.Users = append(p.Users, u)
		parties = append(parties, u.ID)
	}
	apps, err := list(ctx, r, what("applications"), scanApplication,
		queryWorldApps, id64(id))
	if err != nil {
		return p, err
	}
	for _, a := range apps {
		a.PrivateKey, a.ClientSecretHash = nil, nil // sealed, and never an export's
		p.Apps = append(p.Apps, store.WorldApp{App: a, Bot: bots[a.ID]})
		parties = append(parties, a.ID)
	}
	if p.Guilds, err = list(ctx, r, what("guilds"), scanGuild,
		queryWorldGuilds, id64(id)); err != nil {
		return p, err
	}
	for _, g := range p.Guilds {
		if err := s.readGuildRows(ctx, r, g.ID, messages, &p); err != nil {
			return p, fmt.Errorf("read world %d: %w", id, err)
		}
	}
	for _, a := range p.Apps {
		scopes := []command.Scope{{ApplicationID: a.App.ID}}
		for _, g := range p.Guilds {
			scopes = append(scopes, command.Scope{ApplicationID: a.App.ID, GuildID: g.ID})
			perms, err := readPermissions(ctx, r, a.App.ID, g.ID)
			if err != nil {
				return p, fmt.Errorf("read world %d: %w", id, err)
			}
			p.Permissions = append(p.Permissions, perms...)
		}
		for _, sc := range scopes {
			cmds, err := listCommands(ctx, tx, sc)
			if err != nil {
				return p, err
			}
			if len(cmds) > 0 {
				p.Commands = append(p.Commands, store.WorldCommands{Scope: sc, Commands: cmds})
			}
		}
	}
	seen := map[snowflake.ID]bool{}
	for _, u := range parties {
		ins, err := list(ctx, r, what("user installations"), scanUserInstallation,
			queryWorldUserInstalls, id64(u))
		if err != nil {
			return p, err
		}
		p.UserInstalls = append(p.UserInstalls, ins...)
		rows, err := tx.QueryContext(ctx, queryWorldPrivate, id64(u))
		if err != nil {
			return p, fmt.Errorf("read world %d: private channels: %w", id, err)
		}
		pcs, err := scanPrivateRows(rows)
		if err != nil {
			return p, fmt.Errorf("read world %d: private channels: %w", id, err)
		}
		for _, c := range pcs {
			if !seen[c.ID] {
				seen[c.ID] = true
				p.Private = append(p.Private, c)
			}
		}
	}
	// By id, as the other lists, whoever of the parties found them.
	sortByID(p.Private, func(c store.PrivateChannel) snowflake.ID { return c.ID })
	for _, c := range p.Private {
		if err := readMessages(ctx, r, c.ID, messages, &p); err != nil {
			return p, fmt.Errorf("read world %d: %w", id, err)
		}
	}
	return p, tx.Commit()
}

// readGuildRows appends a guild's roles, channels, members and
// installations (by id) and, with messages > 0, its channels' messages.
func (s *Store) readGuildRows(ctx context.Context, r reader, gid snowflake.ID, messages int, p *store.WorldPlan) error {
	roles, err := listRoles(ctx, r, gid)
	if err != nil {
		return err
	}
	sortByID(roles, func(x guild.Role) snowflake.ID { return x.ID })
	p.Roles = append(p.Roles, roles...)
	chans, err := listChannels(ctx, r, gid)
	if err != nil {
		return err
	}
	sortByID(chans, func(x guild.Channel) snowflake.ID { return x.ID })
	p.Channels = append(p.Channels, chans...)
	members, err := list(ctx, r, fmt.Sprintf("members of guild %d", gid), scanMember,
		queryWorldMembers, id64(gid))
	if err != nil {
		return err
	}
	p.Members = append(p.Members, members...)
	ins, err := listInstallations(ctx, r, gid)
	if err != nil {
		return err
	}
	p.Installations = append(p.Installations, ins...)
	for _, c := range chans {
		if err := readMessages(ctx, r, c.ID, messages, p); err != nil {
			return err
		}
	}
	return nil
}

// readPermissions reads an app's permission lists in a guild, by command.
func readPermissions(ctx context.Context, r reader, appID, guildID snowflake.ID) ([]command.GuildPermissions, error) {
	rows, err := r.QueryContext(ctx, queryWorldPermissions, id64(appID), id64(guildID))
	if err != nil {
		return nil, fmt.Errorf("permissions of app %d in guild %d: %w", appID, guildID, err)
	}
	defer rows.Close()
	var out []command.GuildPermissions
	for rows.Next() {
		var (
			cmd  int64
			body []byte
		)
		if err := rows.Scan(&cmd, &body); err != nil {
			return nil, fmt.Errorf("scan permissions: %w", err)
		}
		gp := command.GuildPermissions{ID: snowflake.ID(cmd), ApplicationID: appID, GuildID: guildID}
		if gp.Permissions, err = command.DecodePermissions(body); err != nil {
			return nil, fmt.Errorf("decode permissions: %w", err)
		}
		out = append(out, gp)
	}
	return out, rows.Err()
}

// readMessages appends the newest n messages of a channel that everyone
// sees, oldest first (none for n <= 0).
func readMessages(ctx context.Context, r reader, channel snowflake.ID, n int, p *store.WorldPlan) error {
	if n <= 0 {
		return nil
	}
	msgs, err := list(ctx, r, fmt.Sprintf("messages of channel %d", channel), scanMessage,
		queryWorldMessages, id64(channel), n)
	if err != nil {
		return err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		p.Messages = append(p.Messages, msgs[i])
	}
	return nil
}

// sortByID sorts a list by the id key gives.
func sortByID[T any](l []T, key func(T) snowflake.ID) {
	slices.SortFunc(l, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}

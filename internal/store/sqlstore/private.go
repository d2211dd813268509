package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// ---- private channels ----

// A private channel is a row of private_channels and one row of
// private_channel_recipients per participant. A DM also keeps its pair
// (dm_low < dm_high), which a partial unique index makes unique.

const privateChannelColumns = `c.id, c.type, c.name, c.owner_id, c.created_at`

// scanPrivateRows reads rows of privateChannelColumns followed by one
// recipient's id, ordered by channel then recipient, into channels.
func scanPrivateRows(rows *sql.Rows) ([]store.PrivateChannel, error) {
	defer rows.Close()
	out := []store.PrivateChannel{}
	for rows.Next() {
		var (
			id, owner, created, user int64
			c                        store.PrivateChannel
		)
		if err := rows.Scan(&id, &c.Type, &c.Name, &owner, &created, &user); err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && out[n-1].ID == snowflake.ID(id) {
			out[n-1].Recipients = append(out[n-1].Recipients, snowflake.ID(user))
			continue
		}
		c.ID, c.OwnerID, c.CreatedAt = snowflake.ID(id), snowflake.ID(owner), fromUnix(created)
		c.Recipients = []snowflake.ID{snowflake.ID(user)}
		out = append(out, c)
	}
	return out, rows.Err()
}

// readPrivateChannel reads one private channel with its recipients in
// one statement.
func readPrivateChannel(ctx context.Context, q reader, id snowflake.ID) (store.PrivateChannel, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+privateChannelColumns+`, r.user_id
		FROM private_channels c JOIN private_channel_recipients r ON r.channel_id = c.id
		WHERE c.id = $1 ORDER BY r.user_id`, id64(id))
	if err != nil {
		return store.PrivateChannel{}, fmt.Errorf("read private channel %d: %w", id, err)
	}
	chans, err := scanPrivateRows(rows)
	if err != nil {
		return store.PrivateChannel{}, fmt.Errorf("read private channel %d: %w", id, err)
	}
	if len(chans) == 0 {
		return store.PrivateChannel{}, fmt.Errorf("private channel %d: %w", id, store.ErrNotFound)
	}
	return chans[0], nil
}

// PrivateChannel reads a DM or group DM with its recipients.
func (s *Store) PrivateChannel(ctx context.Context, id snowflake.ID) (store.PrivateChannel, error) {
	return readPrivateChannel(ctx, s.cached(), id)
}

// PrivateChannels lists the private channels a user takes part in, by id,
// each with all its recipients, in one statement.
func (s *Store) PrivateChannels(ctx context.Context, userID snowflake.ID) ([]store.PrivateChannel, error) {
	rows, err := s.query(ctx, `SELECT `+privateChannelColumns+`, r.user_id
		FROM private_channel_recipients mine
		JOIN private_channels c ON c.id = mine.channel_id
		JOIN private_channel_recipients r ON r.channel_id = c.id
		WHERE mine.user_id = $1 ORDER BY c.id, r.user_id`, id64(userID))
	if err != nil {
		return nil, fmt.Errorf("list private channels of user %d: %w", userID, err)
	}
	out, err := scanPrivateRows(rows)
	if err != nil {
		return nil, fmt.Errorf("list private channels of user %d: %w", userID, err)
	}
	return out, nil
}

// normalRecipients sorts ids and drops repeats.
func normalRecipients(ids []snowflake.ID) []snowflake.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// insertPrivateChannel inserts c and its recipients, each of whom must be
// a user (ErrNotFound).
func (s *Store) insertPrivateChannel(ctx context.Context, tx *sql.Tx, c store.PrivateChannel, low, high snowflake.ID) error {
	for _, u := range c.Recipients {
		if err := s.mustExist(ctx, tx, "user", "users", u); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO private_channels (id, type, name, owner_id, dm_low, dm_high, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		id64(c.ID), c.Type, c.Name, id64(c.OwnerID), id64(low), id64(high), unix(c.CreatedAt)); err != nil {
		return fmt.Errorf("insert private channel %d: %w", c.ID, s.formatError(err))
	}
	for _, u := range c.Recipients {
		if _, err := tx.ExecContext(ctx, `INSERT INTO private_channel_recipients (channel_id, user_id) VALUES ($1, $2)`,
			id64(c.ID), id64(u)); err != nil {
			return fmt.Errorf("add recipient %d to private channel %d: %w", u, c.ID, s.formatError(err))
		}
	}
	return nil
}

// OpenDM returns the DM between the two users of c.Recipients, creating
// c when there is none.
//
// Two opens of one pair at once both find no DM and both insert: the
// unique index on the pair lets one commit. On SQLite the second waits
// for the write lock and then finds the first's DM; on PostgreSQL it
// fails to serialize (and runs again, finding it) or hits the index
// (ErrConflict), and then reads the DM the first made.
func (s *Store) OpenDM(ctx context.Context, c store.PrivateChannel) (store.PrivateChannel, bool, error) {
	users := normalRecipients(c.Recipients)
	if len(users) != 2 || len(c.Recipients) != 2 {
		return store.PrivateChannel{}, false, fmt.Errorf("open DM: want two distinct users, got %v", c.Recipients)
	}
	c.Type, c.Name, c.OwnerID, c.Recipients = guild.ChannelDM, "", 0, users
	var (
		out     store.PrivateChannel
		created bool
	)
	find := func(ctx context.Context, q reader) (bool, error) {
		var id int64
		err := q.QueryRowContext(ctx, `SELECT id FROM private_channels WHERE type = $1 AND dm_low = $2 AND dm_high = $3`,
			guild.ChannelDM, id64(users[0]), id64(users[1])).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("find DM of users %d and %d: %w", users[0], users[1], err)
		}
		out, err = readPrivateChannel(ctx, q, snowflake.ID(id))
		return err == nil, err
	}
	err := s.Tx(ctx, func(tx *sql.Tx) error {
		created = false
		found, err := find(ctx, txReader{s: s, tx: tx})
		if err != nil || found {
			return err
		}
		if err := s.insertPrivateChannel(ctx, tx, c, users[0], users[1]); err != nil {
			return err
		}
		out, created = c, true
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		// Another open of the pair committed first.
		created = false
		found, ferr := find(ctx, s.cached())
		if ferr != nil {
			return store.PrivateChannel{}, false, ferr
		}
		if found {
			return out, false, nil
		}
	}
	if err != nil {
		return store.PrivateChannel{}, false, err
	}
	out.CreatedAt = fromUnix(unix(out.CreatedAt))
	return out, created, nil
}

// CreateGroupDM stores a group DM with its recipients (sorted, repeats
// dropped); its owner must be one of them.
func (s *Store) CreateGroupDM(ctx context.Context, c store.PrivateChannel) error {
	c.Recipients = normalRecipients(c.Recipients)
	switch {
	case c.Type != guild.ChannelGroupDM:
		return fmt.Errorf("create group DM %d: type %d is not a group DM's", c.ID, c.Type)
	case len(c.Recipients) == 0:
		return fmt.Errorf("create group DM %d: no recipients", c.ID)
	case !c.HasRecipient(c.OwnerID):
		return fmt.Errorf("create group DM %d: owner %d is not a recipient", c.ID, c.OwnerID)
	}
	return s.Tx(ctx, func(tx *sql.Tx) error { return s.insertPrivateChannel(ctx, tx, c, 0, 0) })
}

// DeletePrivateChannel deletes a private channel with its messages and
// interactions.
func (s *Store) DeletePrivateChannel(ctx context.Context, id snowflake.ID) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.mustExist(ctx, tx, "private channel", "private_channels", id); err != nil {
			return err
		}
		return s.deletePrivateChannel(ctx, tx, id)
	})
}

func (s *Store) deletePrivateChannel(ctx context.Context, tx *sql.Tx, id snowflake.ID) error {
	for _, q := range []string{
		`DELETE FROM messages WHERE channel_id = $1`,
		`DELETE FROM interactions WHERE channel_id = $1`,
		`DELETE FROM private_channel_recipients WHERE channel_id = $1`,
		`DELETE FROM private_channels WHERE id = $1`,
	} {
		if _, err := tx.ExecContext(ctx, q, id64(id)); err != nil {
			return fmt.Errorf("delete private channel %d: %w", id, s.formatError(err))
		}
	}
	return nil
}

// leavePrivateChannels is what deleting a user does to their private
// channels, inside DeleteUser's transaction: their DMs are deleted (a DM
// is its two users); they leave their group DMs, a group DM left empty is
// deleted, and one they owned passes to its first remaining recipient.
func (s *Store) leavePrivateChannels(ctx context.Context, tx *sql.Tx, userID snowflake.ID) error {
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.type, c.owner_id FROM private_channels c
		JOIN private_channel_recipients r ON r.channel_id = c.id WHERE r.user_id = $1 ORDER BY c.id`, id64(userID))
	if err != nil {
		return fmt.Errorf("find private channels of user %d: %w", userID, err)
	}
	type joined struct {
		id, owner int64
		typ       int
	}
	var chans []joined
	for rows.Next() {
		var j joined
		if err := rows.Scan(&j.id, &j.typ, &j.owner); err != nil {
			rows.Close()
			return fmt.Errorf("find private channels of user %d: %w", userID, err)
		}
		chans = append(chans, j)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find private channels of user %d: %w", userID, err)
	}
	for _, c := range chans {
		id := snowflake.ID(c.id)
		if c.typ == guild.ChannelDM {
			if err := s.deletePrivateChannel(ctx, tx, id); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM private_channel_recipients WHERE channel_id = $1 AND user_id = $2`,
			c.id, id64(userID)); err != nil {
			return fmt.Errorf("remove user %d from group DM %d: %w", userID, id, err)
		}
		var next sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MIN(user_id) FROM private_channel_recipients WHERE channel_id = $1`,
			c.id).Scan(&next); err != nil {
			return fmt.Errorf("find recipients of group DM %d: %w", id, err)
		}
		switch {
		case !next.Valid:
			if err := s.deletePrivateChannel(ctx, tx, id); err != nil {
				return err
			}
		case c.owner == id64(userID):
			if _, err := tx.ExecContext(ctx, `UPDATE private_channels SET owner_id = $1 WHERE id = $2`,
				next.Int64, c.id); err != nil {
				return fmt.Errorf("pass group DM %d on: %w", id, err)
			}
		}
	}
	return nil
}

const queryChannelExists = `SELECT (SELECT COUNT(*) FROM channels WHERE id = $1)
		+ (SELECT COUNT(*) FROM private_channels WHERE id = $1)`

// channelExists reports whether id is a guild channel or a private
// channel: where a message may be stored.
func (s *Store) channelExists(ctx context.Context, tx *sql.Tx, id snowflake.ID) error {
	ok, err := exists(ctx, txReader{s: s, tx: tx}, queryChannelExists, id64(id))
	if err != nil {
		return fmt.Errorf("find channel %d: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("channel %d: %w", id, store.ErrNotFound)
	}
	return nil
}

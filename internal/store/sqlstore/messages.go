package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

var _ store.Messages = (*Store)(nil)

// ---- messages ----

const messageColumns = `id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at`

func scanMessage(row scanner) (store.Message, error) {
	var (
		m                                   store.Message
		id, ch, gid, author, inter, visible int64
		created                             int64
	)
	if err := row.Scan(&id, &ch, &gid, &author, &inter, &visible, &m.Body, &created); err != nil {
		return m, err
	}
	m.ID, m.ChannelID, m.GuildID, m.AuthorID = snowflake.ID(id), snowflake.ID(ch), snowflake.ID(gid), snowflake.ID(author)
	m.InteractionID, m.VisibleTo, m.CreatedAt = snowflake.ID(inter), snowflake.ID(visible), fromUnix(created)
	return m, nil
}

// CreateMessage inserts a message into an existing channel, a guild's or
// a private one.
func (s *Store) CreateMessage(ctx context.Context, m store.Message) error {
	return s.Tx(ctx, func(tx *sql.Tx) error {
		if err := s.channelExists(ctx, tx, m.ChannelID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			messageArgs(m)...)
		if err != nil {
			return fmt.Errorf("insert message %d: %w", m.ID, s.formatError(err))
		}
		return s.writeFiles(ctx, tx, m, false)
	})
}

func messageArgs(m store.Message) []any {
	return []any{id64(m.ID), id64(m.ChannelID), id64(m.GuildID), id64(m.AuthorID), id64(m.InteractionID),
		id64(m.VisibleTo), string(m.Body), unix(m.CreatedAt)}
}

// queryPutMessage inserts a message or replaces the one with its id
// whole, into an existing channel only: the channel's check is part of
// the statement (no row when it is missing), which saves an invocation's
// answer a statement of its own. The casts let PostgreSQL type the
// selected parameters as the columns they go to.
const queryPutMessage = `INSERT INTO messages (` + messageColumns + `)
		SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT),
			CAST($5 AS BIGINT), CAST($6 AS BIGINT), CAST($7 AS TEXT), CAST($8 AS BIGINT)
		WHERE EXISTS (SELECT 1 FROM channels WHERE id = $2) OR EXISTS (SELECT 1 FROM private_channels WHERE id = $2)
		ON CONFLICT (id) DO UPDATE SET channel_id = excluded.channel_id, guild_id = excluded.guild_id,
			author_id = excluded.author_id, interaction_id = excluded.interaction_id, visible_to = excluded.visible_to,
			body = excluded.body, created_at = excluded.created_at`

// putMessage inserts a message or replaces the one with its id whole; a
// channel that is neither a guild's nor a private one is not found.
func (s *Store) putMessage(ctx context.Context, tx *sql.Tx, m store.Message) error {
	res, err := s.txExec(ctx, tx, queryPutMessage, messageArgs(m)...)
	if err != nil {
		return fmt.Errorf("put message %d: %w", m.ID, s.formatError(err))
	}
	return putAffected(res, m)
}

// putAffected is what a put of m that changed res's rows says: none, and
// its channel is missing.
func putAffected(res interface{ RowsAffected() (int64, error) }, m store.Message) error {
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("put message %d: %w", m.ID, err)
	} else if n == 0 {
		return fmt.Errorf("channel %d: %w", m.ChannelID, store.ErrNotFound)
	}
	return nil
}

// Message reads one message.
func (s *Store) Message(ctx context.Context, id snowflake.ID) (store.Message, error) {
	m, err := scanMessage(s.queryRow(ctx, `SELECT `+messageColumns+` FROM messages WHERE id = $1`, id64(id)))
	if err != nil {
		return m, notFound(err, fmt.Sprintf("message %d", id))
	}
	return m, nil
}

// UpdateMessage replaces a message's body and applies files: with
// files, in one transaction with the message (the channel is read back
// there for the new files' rows).
func (s *Store) UpdateMessage(ctx context.Context, id snowflake.ID, body []byte, files *store.FileWrite) error {
	if files == nil {
		res, err := s.exec(ctx, `UPDATE messages SET body = $1 WHERE id = $2`, string(body), id64(id))
		if err != nil {
			return fmt.Errorf("update message %d: %w", id, s.formatError(err))
		}
		return affected(res, fmt.Sprintf("message %d", id))
	}
	return s.Tx(ctx, func(tx *sql.Tx) error {
		var channel int64
		err := tx.QueryRowContext(ctx, `UPDATE messages SET body = $1 WHERE id = $2 RETURNING channel_id`,
			string(body), id64(id)).Scan(&channel)
		if err != nil {
			return notFound(s.formatError(err), fmt.Sprintf("message %d", id))
		}
		return s.writeFiles(ctx, tx, store.Message{ID: id, ChannelID: snowflake.ID(channel), Files: files}, true)
	})
}

// DeleteMessage deletes a message; an interaction whose original message
// it was reads with no reference to it (OriginalMessageID 0): see
// interactionSelect.
func (s *Store) DeleteMessage(ctx context.Context, id snowflake.ID) error {
	res, err := s.execWrite(ctx, `DELETE FROM messages WHERE id = $1`, id64(id))
	if err != nil {
		return fmt.Errorf("delete message %d: %w", id, s.formatError(err))
	}
	return affected(res, fmt.Sprintf("message %d", id))
}

// ChannelMessages lists the messages of a channel viewer may see, newest
// first, with ids below before (0: no bound), at most limit (none if
// limit is not positive).
func (s *Store) ChannelMessages(ctx context.Context, channelID, viewer, before snowflake.ID, limit int) ([]store.Message, error) {
	if limit <= 0 {
		return []store.Message{}, nil
	}
	what := fmt.Sprintf("list messages of channel %d", channelID)
	if before == 0 {
		return list(ctx, s.cached(), what, scanMessage, `SELECT `+messageColumns+` FROM messages
			WHERE channel_id = $1 AND (visible_to = 0 OR visible_to = $2)
			ORDER BY id DESC LIMIT $3`, id64(channelID), id64(viewer), limit)
	}
	return list(ctx, s.cached(), what, scanMessage, `SELECT `+messageColumns+` FROM messages
		WHERE channel_id = $1 AND (visible_to = 0 OR visible_to = $2) AND id < $3
		ORDER BY id DESC LIMIT $4`, id64(channelID), id64(viewer), id64(before), limit)
}

// ---- interactions ----

const interactionColumns = `id, application_id, type, token_hash, guild_id, channel_id, user_id, command_id,
	message_id, created_at, response_type, answered_at, original_message_id, ephemeral, result, metadata`

// interactionSelect reads interactionColumns, the original message only
// while it exists. Deleting a message leaves the interactions that name
// it as they are: an index on original_message_id, for DeleteMessage to
// clear them, would be one more page written by every answered
// invocation (migration 0024), and a read looks the message up by its
// primary key instead, wherever it has moved.
const interactionSelect = `id, application_id, type, token_hash, guild_id, channel_id, user_id, command_id,
	message_id, created_at, response_type, answered_at,
	CASE WHEN original_message_id <> 0 AND EXISTS (SELECT 1 FROM messages m WHERE m.id = original_message_id)
		THEN original_message_id ELSE 0 END,
	ephemeral, result, metadata`

func scanInteraction(row scanner) (store.Interaction, error) {
	var (
		in                                     store.Interaction
		id, app, gid, ch, user, cmd, msg, orig int64
		created, answered                      int64
		ephemeral                              int
	)
	if err := row.Scan(&id, &app, &in.Type, &in.TokenHash, &gid, &ch, &user, &cmd, &msg, &created,
		&in.ResponseType, &answered, &orig, &ephemeral, &in.Result, &in.Metadata); err != nil {
		return in, err
	}
	in.ID, in.ApplicationID, in.GuildID, in.ChannelID = snowflake.ID(id), snowflake.ID(app), snowflake.ID(gid), snowflake.ID(ch)
	in.UserID, in.CommandID, in.MessageID = snowflake.ID(user), snowflake.ID(cmd), snowflake.ID(msg)
	in.CreatedAt, in.AnsweredAt = fromUnix(created), fromUnix(answered)
	in.OriginalMessageID, in.Ephemeral = snowflake.ID(orig), ephemeral != 0
	return in, nil
}

// nullText binds JSON kept as nullable TEXT: nil is NULL.
func nullText(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

const queryInsertInteraction = `INSERT INTO interactions (` + interactionColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`

func interactionArgs(in store.Interaction) []any {
	return []any{id64(in.ID), id64(in.ApplicationID), in.Type, in.TokenHash, id64(in.GuildID), id64(in.ChannelID),
		id64(in.UserID), id64(in.CommandID), id64(in.MessageID), unix(in.CreatedAt), in.ResponseType, unix(in.AnsweredAt),
		id64(in.OriginalMessageID), boolInt(in.Ephemeral), nullText(in.Result), nullText(in.Metadata)}
}

// CreateInteraction records an invocation.
func (s *Store) CreateInteraction(ctx context.Context, in store.Interaction) error {
	_, err := s.exec(ctx, queryInsertInteraction, interactionArgs(in)...)
	if err != nil {
		return fmt.Errorf("insert interaction %d: %w", in.ID, s.formatError(err))
	}
	return nil
}

// CreateAnsweredInteraction records an invocation together with its
// answer, in one transaction: an invocation answered inline commits
// once. fn sees in as given (nothing is read), so it runs once, before
// the transaction; where the backend pins a writer (Options.PinnedBegin)
// the transaction runs there, unless the answer's message carries files.
func (s *Store) CreateAnsweredInteraction(ctx context.Context, in store.Interaction,
	fn func(store.Interaction) (store.Answer, error),
) (store.Interaction, error) {
	next, put, err := answerOf(in, fn)
	if err != nil {
		return store.Interaction{}, err
	}
	if s.pinned != nil && (put == nil || put.Files == nil) {
		err = s.outsideWorld(func(written func()) error {
			return s.runPinned(ctx, func(tx pinnedTx) error {
				if err := s.recordAnswered(tx, next, put); err != nil {
					return err
				}
				written()
				return nil
			})
		})
		if err != nil {
			return store.Interaction{}, err
		}
		return next, nil
	}
	if err := s.prepareAll(ctx, queryInsertInteraction, queryPutMessage); err != nil {
		return store.Interaction{}, fmt.Errorf("record answered interaction %d: %w", in.ID, err)
	}
	err = s.outsideWorldTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.txExec(ctx, tx, queryInsertInteraction, interactionArgs(next)...); err != nil {
			return fmt.Errorf("insert interaction %d: %w", in.ID, s.formatError(err))
		}
		return s.putAnswerMessage(ctx, tx, put)
	})
	if err != nil {
		return store.Interaction{}, err
	}
	return next, nil
}

// runPinned runs fn in a transaction of the pinned writer, inside the
// write gate.
func (s *Store) runPinned(ctx context.Context, fn func(pinnedTx) error) error {
	if err := s.pinned.pin(ctx, s.db); err != nil {
		return err
	}
	return s.retry(ctx, func() error {
		leave, err := s.enterWrite(ctx)
		if err != nil {
			return err
		}
		defer leave() // after the commit or rollback
		return s.pinned.run(ctx, s.db, fn)
	})
}

// recordAnswered writes an answered interaction and its message without
// files, as the pinned writer's transaction.
func (s *Store) recordAnswered(tx pinnedTx, in store.Interaction, m *store.Message) error {
	if _, err := tx.exec(queryInsertInteraction, interactionArgs(in)...); err != nil {
		return fmt.Errorf("insert interaction %d: %w", in.ID, s.formatError(err))
	}
	if m == nil {
		return nil
	}
	res, err := tx.exec(queryPutMessage, messageArgs(*m)...)
	if err != nil {
		return fmt.Errorf("put message %d: %w", m.ID, s.formatError(err))
	}
	return putAffected(res, *m)
}

// putAnswerMessage puts an answer's message, if it has one.
func (s *Store) putAnswerMessage(ctx context.Context, tx *sql.Tx, m *store.Message) error {
	if m == nil {
		return nil
	}
	if err := s.putMessage(ctx, tx, *m); err != nil {
		return err
	}
	return s.writeFiles(ctx, tx, *m, true)
}

// answerOf runs fn on cur and returns the interaction to store, with what
// an answer cannot change kept as cur has it, and the message to put.
func answerOf(cur store.Interaction, fn func(store.Interaction) (store.Answer, error)) (store.Interaction, *store.Message, error) {
	ans, err := fn(cur)
	if err != nil {
		return store.Interaction{}, nil, err // as is: the caller's own error
	}
	next := ans.Interaction
	next.ID, next.ApplicationID, next.TokenHash, next.CreatedAt = cur.ID, cur.ApplicationID, cur.TokenHash, cur.CreatedAt
	next.Metadata = cur.Metadata
	// What is stored, times at the store's precision.
	next.CreatedAt, next.AnsweredAt = fromUnix(unix(next.CreatedAt)), fromUnix(unix(next.AnsweredAt))
	return next, ans.Put, nil
}

// Interaction reads one interaction.
func (s *Store) Interaction(ctx context.Context, id snowflake.ID) (store.Interaction, error) {
	return readInteraction(ctx, s.cached(), id)
}

const queryInteraction = `SELECT ` + interactionSelect + ` FROM interactions WHERE id = $1`

func readInteraction(ctx context.Context, q reader, id snowflake.ID) (store.Interaction, error) {
	in, err := scanInteraction(q.QueryRowContext(ctx, queryInteraction, id64(id)))
	if err != nil {
		return in, notFound(err, fmt.Sprintf("interaction %d", id))
	}
	return in, nil
}

const (
	queryLockInteraction   = `UPDATE interactions SET response_type = response_type WHERE id = $1`
	queryAnswerInteraction = `UPDATE interactions SET type = $1, guild_id = $2, channel_id = $3, user_id = $4,
			command_id = $5, message_id = $6, response_type = $7, answered_at = $8, original_message_id = $9,
			ephemeral = $10, result = $11 WHERE id = $12`
)

// AnswerInteraction runs fn on the interaction as stored and stores what
// it returns, in one transaction.
//
// Concurrent answers serialize: the transaction first writes the
// interaction's row (a no-op update), which takes its row lock on
// PostgreSQL before the read, so that a waiting answer fails to serialize
// and, run again, reads the one committed before it; SQLite's
// transactions begin IMMEDIATE and hold the database's write lock from
// the start, so there the row lock would add nothing and is not taken
// (Options.DatabaseLock). The same pattern as WriteCommands.
func (s *Store) AnswerInteraction(ctx context.Context, id snowflake.ID,
	fn func(store.Interaction) (store.Answer, error),
) (store.Interaction, error) {
	var out store.Interaction
	// Prepared before the transaction, which then reuses them: an
	// invocation answered inline runs this on every call.
	queries := []string{queryInteraction, queryAnswerInteraction, queryPutMessage}
	if !s.databaseLock {
		queries = append(queries, queryLockInteraction)
	}
	if err := s.prepareAll(ctx, queries...); err != nil {
		return store.Interaction{}, fmt.Errorf("answer interaction %d: %w", id, err)
	}
	err := s.lockedTx(ctx, func(tx *sql.Tx) error {
		if !s.databaseLock {
			if _, err := s.txExec(ctx, tx, queryLockInteraction, id64(id)); err != nil {
				return fmt.Errorf("lock interaction %d: %w", id, s.formatError(err))
			}
		}
		cur, err := readInteraction(ctx, txReader{s: s, tx: tx}, id)
		if err != nil {
			return err
		}
		next, put, err := answerOf(cur, fn)
		if err != nil {
			return err
		}
		_, err = s.txExec(ctx, tx, queryAnswerInteraction,
			next.Type, id64(next.GuildID), id64(next.ChannelID), id64(next.UserID), id64(next.CommandID),
			id64(next.MessageID), next.ResponseType, unix(next.AnsweredAt), id64(next.OriginalMessageID),
			boolInt(next.Ephemeral), nullText(next.Result), id64(id))
		if err != nil {
			return fmt.Errorf("answer interaction %d: %w", id, s.formatError(err))
		}
		if err := s.putAnswerMessage(ctx, tx, put); err != nil {
			return err
		}
		out = next
		return nil
	})
	if err != nil {
		return store.Interaction{}, err
	}
	return out, nil
}

// CreateFollowup inserts a follow-up message, counting it against its
// interaction (at most limit, when limit > 0). The count is raised first:
// the row lock it takes orders concurrent follow-ups.
func (s *Store) CreateFollowup(ctx context.Context, id snowflake.ID, limit int, m store.Message) error {
	return s.lockedTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE interactions SET followups = followups + 1
			WHERE id = $1 AND ($2 = 0 OR followups < $2)`, id64(id), limit)
		if err != nil {
			return fmt.Errorf("count follow-up of interaction %d: %w", id, s.formatError(err))
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("count follow-up of interaction %d: %w", id, err)
		} else if n == 0 {
			ok, err := exists(ctx, tx, `SELECT COUNT(*) FROM interactions WHERE id = $1`, id64(id))
			if err != nil {
				return fmt.Errorf("find interaction %d: %w", id, err)
			}
			if !ok {
				return fmt.Errorf("interaction %d: %w", id, store.ErrNotFound)
			}
			return fmt.Errorf("interaction %d has %d follow-ups: %w", id, limit, store.ErrConflict)
		}
		if err := s.channelExists(ctx, tx, m.ChannelID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			messageArgs(m)...); err != nil {
			return fmt.Errorf("insert follow-up %d: %w", m.ID, s.formatError(err))
		}
		return s.writeFiles(ctx, tx, m, false)
	})
}

// DeleteInteractionsBefore forgets interactions created before t. The
// primary key bounds the search (ids are snowflakes of their creation,
// which may run a little ahead of the clock that dated them: an hour is
// allowed), so that no index on created_at is written by every
// invocation.
func (s *Store) DeleteInteractionsBefore(ctx context.Context, t time.Time) (int64, error) {
	bound := int64(math.MaxInt64) // beyond 2084, snowflakes no longer fit
	if id := snowflake.FromTime(t.Add(time.Hour)); id <= math.MaxInt64 {
		bound = id64(id)
	}
	res, err := s.execWrite(ctx, `DELETE FROM interactions WHERE id < $1 AND created_at < $2`, bound, unix(t))
	if err != nil {
		return 0, fmt.Errorf("delete interactions before %s: %w", t, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete interactions before %s: %w", t, err)
	}
	return n, nil
}

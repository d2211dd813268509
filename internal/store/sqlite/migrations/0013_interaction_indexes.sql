-- Recording an invocation writes fewer index pages (each costs a WAL
-- frame, two pwrites, on every invocation):
-- - token_hash loses its UNIQUE index: an interaction is found by its id,
--   which its token carries, and the token's hash is compared, not looked
--   up (tokens hold 48 random bytes);
-- - interactions_by_created_at goes: forgetting old interactions bounds
--   its search by id (a snowflake of the creation) instead.
-- - interactions and messages are keyed by their rowid: only a column
--   declared INTEGER PRIMARY KEY is the rowid, and a BIGINT PRIMARY KEY
--   is a separate unique index beside a hidden rowid, one more page per
--   row written.
-- SQLite cannot drop a column's UNIQUE constraint nor change a primary
-- key: both tables are rebuilt with their rows, columns in the same
-- order, and their other indexes made again.
CREATE TABLE interactions_0013 (
    id                  INTEGER PRIMARY KEY,
    application_id      BIGINT  NOT NULL,
    type                INTEGER NOT NULL,
    token_hash          BLOB    NOT NULL,
    guild_id            BIGINT  NOT NULL DEFAULT 0,
    channel_id          BIGINT  NOT NULL DEFAULT 0,
    user_id             BIGINT  NOT NULL DEFAULT 0,
    command_id          BIGINT  NOT NULL DEFAULT 0,
    message_id          BIGINT  NOT NULL DEFAULT 0,
    created_at          BIGINT  NOT NULL,
    response_type       INTEGER NOT NULL DEFAULT 0,
    answered_at         BIGINT  NOT NULL DEFAULT 0,
    original_message_id BIGINT  NOT NULL DEFAULT 0,
    ephemeral           INTEGER NOT NULL DEFAULT 0,
    result              TEXT,
    metadata            TEXT,
    followups           INTEGER NOT NULL DEFAULT 0
);
INSERT INTO interactions_0013 (id, application_id, type, token_hash, guild_id, channel_id, user_id, command_id,
    message_id, created_at, response_type, answered_at, original_message_id, ephemeral, result, metadata, followups)
SELECT id, application_id, type, token_hash, guild_id, channel_id, user_id, command_id,
    message_id, created_at, response_type, answered_at, original_message_id, ephemeral, result, metadata, followups
FROM interactions;
DROP TABLE interactions;
ALTER TABLE interactions_0013 RENAME TO interactions;
CREATE INDEX interactions_by_channel ON interactions (channel_id);
CREATE INDEX interactions_by_original_message ON interactions (original_message_id) WHERE original_message_id <> 0;

CREATE TABLE messages_0013 (
    id             INTEGER PRIMARY KEY,
    channel_id     BIGINT NOT NULL,
    guild_id       BIGINT NOT NULL,
    author_id      BIGINT NOT NULL,
    interaction_id BIGINT NOT NULL DEFAULT 0,
    visible_to     BIGINT NOT NULL DEFAULT 0,
    body           TEXT   NOT NULL,
    created_at     BIGINT NOT NULL
);
INSERT INTO messages_0013 (id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at)
SELECT id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at FROM messages;
DROP TABLE messages;
ALTER TABLE messages_0013 RENAME TO messages;
CREATE INDEX messages_by_channel ON messages (channel_id, id);

-- Private channels: DMs (type 1, between two users) and group DMs
-- (type 3), outside guilds. A DM keeps its pair of users, smaller id
-- first, in dm_low and dm_high (0 for group DMs): the partial unique
-- index makes one DM per pair. Participants are rows of
-- private_channel_recipients.
CREATE TABLE private_channels (
    id         BIGINT  PRIMARY KEY,
    type       INTEGER NOT NULL,
    name       TEXT    NOT NULL DEFAULT '',
    owner_id   BIGINT  NOT NULL DEFAULT 0,
    dm_low     BIGINT  NOT NULL DEFAULT 0,
    dm_high    BIGINT  NOT NULL DEFAULT 0,
    created_at BIGINT  NOT NULL
);
CREATE UNIQUE INDEX private_channels_dm_pair ON private_channels (dm_low, dm_high) WHERE type = 1;

CREATE TABLE private_channel_recipients (
    channel_id BIGINT NOT NULL REFERENCES private_channels (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX private_channel_recipients_by_user ON private_channel_recipients (user_id);

-- Messages may now live in private channels too, so messages.channel_id
-- no longer references channels (CreateMessage checks that the channel
-- exists; deleting a channel deletes its messages explicitly). SQLite
-- cannot drop a constraint: the table is rebuilt with its rows, columns
-- in the same order, and its index made again.
CREATE TABLE messages_0008 (
    id             BIGINT PRIMARY KEY,
    channel_id     BIGINT NOT NULL,
    guild_id       BIGINT NOT NULL,
    author_id      BIGINT NOT NULL,
    interaction_id BIGINT NOT NULL DEFAULT 0,
    visible_to     BIGINT NOT NULL DEFAULT 0,
    body           TEXT   NOT NULL,
    created_at     BIGINT NOT NULL
);
INSERT INTO messages_0008 (id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at)
SELECT id, channel_id, guild_id, author_id, interaction_id, visible_to, body, created_at FROM messages;
DROP TABLE messages;
ALTER TABLE messages_0008 RENAME TO messages;
CREATE INDEX messages_by_channel ON messages (channel_id, id);

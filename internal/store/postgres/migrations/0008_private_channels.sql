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
-- exists; deleting a channel deletes its messages explicitly). The rows
-- stay; only the constraint 0005 declared (PostgreSQL's default name for
-- it) goes.
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_channel_id_fkey;

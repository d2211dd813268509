-- Messages of guild channels (answers to interactions, their follow-ups,
-- what users post) and the interactions that wait for or hold their
-- answer. body is the message's wire JSON; visible_to 0: everyone sees
-- the message, else only that user (ephemeral). Deleting a channel or a
-- guild deletes these rows explicitly; the cascade is a backstop.
CREATE TABLE messages (
    id             BIGINT PRIMARY KEY,
    channel_id     BIGINT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    guild_id       BIGINT NOT NULL,
    author_id      BIGINT NOT NULL,
    interaction_id BIGINT NOT NULL DEFAULT 0,
    visible_to     BIGINT NOT NULL DEFAULT 0,
    body           TEXT   NOT NULL,
    created_at     BIGINT NOT NULL
);
CREATE INDEX messages_by_channel ON messages (channel_id, id);

-- token_hash: SHA-256 of the interaction token. response_type 0: not
-- answered yet; original_message_id 0: no original message (or deleted).
-- result: JSON shown to the invoking client besides a message (NULL:
-- none). metadata: the interaction_metadata JSON of its messages, fixed
-- at invocation.
CREATE TABLE interactions (
    id                  BIGINT PRIMARY KEY,
    application_id      BIGINT  NOT NULL,
    type                INTEGER NOT NULL,
    token_hash          BYTEA   NOT NULL UNIQUE,
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
    metadata            TEXT
);
CREATE INDEX interactions_by_channel ON interactions (channel_id);
-- Old interactions are forgotten by age.
CREATE INDEX interactions_by_created_at ON interactions (created_at);
-- DeleteMessage clears the original_message_id that names the message.
CREATE INDEX interactions_by_original_message ON interactions (original_message_id);

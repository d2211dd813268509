-- Identity: users (people and bot users), applications, guilds,
-- installations and hashed tokens.
CREATE TABLE users (
    id          BIGINT PRIMARY KEY,
    username    TEXT    NOT NULL,
    global_name TEXT    NOT NULL DEFAULT '',
    bot         INTEGER NOT NULL DEFAULT 0,
    locale      TEXT    NOT NULL DEFAULT '',
    created_at  BIGINT  NOT NULL
);

CREATE TABLE applications (
    id                 BIGINT PRIMARY KEY REFERENCES users (id),
    name               TEXT   NOT NULL,
    owner_id           BIGINT NOT NULL REFERENCES users (id),
    flags              BIGINT NOT NULL DEFAULT 0,
    integration_types  TEXT   NOT NULL,
    client_secret_hash BYTEA  NOT NULL,
    public_key         TEXT   NOT NULL,
    private_key        BYTEA  NOT NULL,
    created_at         BIGINT NOT NULL
);

CREATE TABLE guilds (
    id         BIGINT PRIMARY KEY,
    name       TEXT   NOT NULL,
    owner_id   BIGINT NOT NULL REFERENCES users (id),
    created_at BIGINT NOT NULL
);

CREATE TABLE installations (
    guild_id       BIGINT NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    scopes         TEXT   NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (guild_id, application_id)
);

CREATE TABLE tokens (
    hash           BYTEA PRIMARY KEY,
    kind           TEXT   NOT NULL,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    user_id        BIGINT NOT NULL,
    scopes         TEXT   NOT NULL,
    expires_at     BIGINT NOT NULL,
    created_at     BIGINT NOT NULL
);

-- One row per command scope (guild_id 0 = global): the row every write
-- locks first, and the daily create counter.
CREATE TABLE command_scopes (
    application_id BIGINT  NOT NULL,
    guild_id       BIGINT  NOT NULL,
    day            BIGINT  NOT NULL,
    creates        INTEGER NOT NULL,
    PRIMARY KEY (application_id, guild_id)
);

-- Commands: the indexed columns plus the whole definition as JSON.
CREATE TABLE commands (
    id             BIGINT PRIMARY KEY,
    application_id BIGINT  NOT NULL,
    guild_id       BIGINT  NOT NULL,
    type           INTEGER NOT NULL,
    name           TEXT    NOT NULL,
    version        BIGINT  NOT NULL,
    body           TEXT    NOT NULL,
    UNIQUE (application_id, guild_id, type, name)
);

-- Permission overwrites of one command (or the app, command_id = app id)
-- in one guild, as a JSON list.
CREATE TABLE command_permissions (
    application_id BIGINT NOT NULL,
    guild_id       BIGINT NOT NULL,
    command_id     BIGINT NOT NULL,
    body           TEXT   NOT NULL,
    PRIMARY KEY (application_id, guild_id, command_id)
);
CREATE INDEX command_permissions_by_command ON command_permissions (application_id, command_id);

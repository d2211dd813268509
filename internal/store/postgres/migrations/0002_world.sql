-- The guild world: adult users, roles, members, channels, and the admin
-- and client credentials. Lists (a member's roles, a channel's
-- overwrites) are JSON kept as TEXT.
ALTER TABLE users ADD COLUMN adult INTEGER NOT NULL DEFAULT 0;

-- Role ids are snowflakes, unique across guilds; a guild's @everyone role
-- has the guild's id.
CREATE TABLE roles (
    id          BIGINT PRIMARY KEY,
    guild_id    BIGINT  NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    permissions BIGINT  NOT NULL,
    position    INTEGER NOT NULL DEFAULT 0,
    managed     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX roles_by_guild ON roles (guild_id, position, id);

-- roles: a JSON list of role ids, never @everyone.
CREATE TABLE members (
    guild_id  BIGINT NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
    user_id   BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    nick      TEXT   NOT NULL DEFAULT '',
    roles     TEXT   NOT NULL DEFAULT '[]',
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX members_by_user ON members (user_id);

-- (SQLite's migration also gives the guilds made before it their
-- @everyone role and owner membership. No PostgreSQL store predates this
-- migration, so there is nothing to backfill, and the file keeps to DDL:
-- CockroachDB restricts data changes in a transaction that changes the
-- schema.)

-- parent_id 0: no parent. overwrites: a JSON list of permission overwrites.
CREATE TABLE channels (
    id         BIGINT PRIMARY KEY,
    guild_id   BIGINT  NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
    type       INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    parent_id  BIGINT  NOT NULL DEFAULT 0,
    nsfw       INTEGER NOT NULL DEFAULT 0,
    position   INTEGER NOT NULL DEFAULT 0,
    overwrites TEXT    NOT NULL DEFAULT '[]'
);
CREATE INDEX channels_by_guild ON channels (guild_id, position, id);
CREATE INDEX channels_by_parent ON channels (parent_id);

-- Deleting a guild deletes its commands and permission lists by guild.
CREATE INDEX commands_by_guild ON commands (guild_id);
CREATE INDEX command_permissions_by_guild ON command_permissions (guild_id);

CREATE TABLE admin_tokens (
    hash       BYTEA PRIMARY KEY,
    created_at BIGINT NOT NULL
);

CREATE TABLE client_tokens (
    hash       BYTEA PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);
CREATE INDEX client_tokens_by_user ON client_tokens (user_id);

-- DeleteUser removes the Bearer tokens a user granted; ownership checks
-- look guilds and applications up by owner.
CREATE INDEX tokens_by_user ON tokens (user_id);
CREATE INDEX guilds_by_owner ON guilds (owner_id);
CREATE INDEX applications_by_owner ON applications (owner_id);

-- Test worlds (issue 24, docs/admin-api.md "Worlds"): isolated worlds made
-- from a spec by POST /admin/v1/worlds. A world's users, applications
-- (with their bot users) and guilds carry its id in world_id; everything
-- else belongs to a world through them (a guild's roles, channels,
-- members, installations and messages; an app's commands, tokens and
-- interactions; a user's DMs, tokens and installs). world_id 0: the
-- object belongs to no test world (the admin API's plain routes, older
-- data directories).
--
-- worlds.spec is the spec as applied (JSON), which a reset puts back;
-- handles is the JSON of the ids by handle, so that a reset keeps every id;
-- credentials holds the world's credentials (bot tokens, client secrets,
-- users' client and Bearer tokens) so that GET answers them again: sealed
-- like the apps' private keys when a secret key is set (internal/secrets).
-- Lookups still go by the tokens' hashes only. clock_ms is how far the
-- world's clock was moved ahead of real time (POST …/clock).
CREATE TABLE worlds (
    id          BIGINT PRIMARY KEY,
    name        TEXT   NOT NULL UNIQUE,
    spec        TEXT   NOT NULL,
    handles     TEXT   NOT NULL,
    credentials BLOB   NOT NULL,
    clock_ms    BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

ALTER TABLE users ADD COLUMN world_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE applications ADD COLUMN world_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE guilds ADD COLUMN world_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX users_by_world ON users (world_id) WHERE world_id <> 0;
CREATE INDEX applications_by_world ON applications (world_id) WHERE world_id <> 0;
CREATE INDEX guilds_by_world ON guilds (world_id) WHERE world_id <> 0;

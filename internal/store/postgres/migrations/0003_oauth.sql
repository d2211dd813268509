-- The OAuth2 server: users' password logins and consent-page sessions,
-- apps' client settings, grants with their authorization codes and
-- refresh tokens, access tokens tagged with their grant, and the keys
-- id_tokens are signed with. Secrets are stored as SHA-256 (passwords as
-- a memory-hard KDF's output); lists are JSON kept as TEXT.
CREATE TABLE logins (
    user_id       BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT   NOT NULL UNIQUE,
    password_hash BYTEA  NOT NULL
);

CREATE TABLE sessions (
    hash       BYTEA PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf       TEXT   NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_id);

-- redirect_uris: a JSON list of strings.
CREATE TABLE oauth_settings (
    application_id BIGINT PRIMARY KEY REFERENCES applications (id) ON DELETE CASCADE,
    redirect_uris  TEXT    NOT NULL DEFAULT '[]',
    public_client  INTEGER NOT NULL DEFAULT 0
);

-- guild_id 0: the grant installed the app in no guild.
CREATE TABLE oauth_grants (
    id             BIGINT PRIMARY KEY,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    user_id        BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scopes         TEXT   NOT NULL,
    guild_id       BIGINT NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL
);
CREATE INDEX oauth_grants_by_user ON oauth_grants (user_id);
CREATE INDEX oauth_grants_by_application ON oauth_grants (application_id);

CREATE TABLE oauth_codes (
    hash                  BYTEA PRIMARY KEY,
    grant_id              BIGINT  NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    redirect_uri          TEXT    NOT NULL DEFAULT '',
    code_challenge        TEXT    NOT NULL DEFAULT '',
    code_challenge_method TEXT    NOT NULL DEFAULT '',
    nonce                 TEXT    NOT NULL DEFAULT '',
    expires_at            BIGINT  NOT NULL,
    used                  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX oauth_codes_by_grant ON oauth_codes (grant_id);

CREATE TABLE refresh_tokens (
    hash       BYTEA PRIMARY KEY,
    grant_id   BIGINT  NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    created_at BIGINT  NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);

-- grant_id 0: a token no grant issued (the admin API's and the
-- bootstrap's).
ALTER TABLE tokens ADD COLUMN grant_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tokens_by_grant ON tokens (grant_id);

-- RSA keys that sign id_tokens: id is the JWK "kid", private_key the
-- PKCS #8 DER encoding.
CREATE TABLE signing_keys (
    id          TEXT   PRIMARY KEY,
    private_key BYTEA  NOT NULL,
    created_at  BIGINT NOT NULL
);

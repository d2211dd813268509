-- playground_sessions: the playground's logins, as SQLite's migration
-- 0015 describes them: the SHA-256 of the cookie, the admin token sealed
-- under a key derived from the cookie, the token's row (deleting it
-- deletes the sessions made with it), the CSRF token and the times (Unix
-- milliseconds).
CREATE TABLE playground_sessions (
    hash             BYTEA  PRIMARY KEY,
    admin_token_hash BYTEA  NOT NULL REFERENCES admin_tokens (hash) ON DELETE CASCADE,
    admin_token      BYTEA  NOT NULL,
    csrf             TEXT   NOT NULL,
    expires_at       BIGINT NOT NULL,
    created_at       BIGINT NOT NULL
);
CREATE INDEX playground_sessions_by_expiry ON playground_sessions (expires_at);
CREATE INDEX playground_sessions_by_admin_token ON playground_sessions (admin_token_hash);

-- playground_sessions: the playground's logins (internal/ui), kept here so
-- that a restart does not log anyone out and every node of a cluster
-- knows them (docs/design.md, "Playground UI"). Nothing in a row lets
-- its reader in:
-- - hash is the SHA-256 of the session cookie's value; the cookie itself
--   is only in the browser;
-- - admin_token is the admin token the session acts with, sealed
--   (internal/secrets' format) under a key derived from the cookie's
--   value, so it opens only for a request that carries the cookie;
-- - admin_token_hash names that token's row: revoking the token (deleting
--   the row) deletes the sessions made with it.
-- csrf is the token the page's writes carry (useless without the cookie).
-- Times are Unix milliseconds; the sessions that expire first go first
-- when the table is full, hence the index on expires_at.
CREATE TABLE playground_sessions (
    hash             BLOB   PRIMARY KEY,
    admin_token_hash BLOB   NOT NULL REFERENCES admin_tokens (hash) ON DELETE CASCADE,
    admin_token      BLOB   NOT NULL,
    csrf             TEXT   NOT NULL,
    expires_at       BIGINT NOT NULL,
    created_at       BIGINT NOT NULL
);
CREATE INDEX playground_sessions_by_expiry ON playground_sessions (expires_at);
CREATE INDEX playground_sessions_by_admin_token ON playground_sessions (admin_token_hash);

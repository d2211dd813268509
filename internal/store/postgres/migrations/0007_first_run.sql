-- The one process that bootstraps an empty store (nodes may start
-- together): a single row, claimed first come, taken over when stale.
CREATE TABLE first_run (
    id         INTEGER PRIMARY KEY,
    owner      TEXT   NOT NULL,
    claimed_at BIGINT NOT NULL
);

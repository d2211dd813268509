-- world_clock: the SQLite schema's count of world changes, which lets a
-- server see what the CLI wrote to its data directory. Here it is only
-- kept for the schemas to match: no trigger moves it, and the store
-- reports no clock (sqlstore.Store.WorldClock is nil). Nodes sharing a
-- PostgreSQL store tell each other what they changed over NATS, and one
-- without NATS runs without caches; a single counter row written by
-- every world write would also serialize them all.
CREATE TABLE world_clock (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO world_clock (id, version) VALUES (1, 0);

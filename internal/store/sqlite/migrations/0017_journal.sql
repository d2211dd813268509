-- The journal of the test worlds (issue 24, docs/journal.md): an ordered,
-- typed record of what happened in a world (REST requests of its apps,
-- interactions, messages, gateway sessions and dispatches, 429s), which
-- GET /admin/v1/worlds/{world}/events reads and long-polls.
--
-- seq is the cursor: one order for the whole store, whichever node wrote.
-- It is taken from journal_seq's one row, whose UPDATE also serializes
-- the writers, so that seqs commit in the order they were given: a
-- reader that saw seq n never later sees a smaller one appear (an
-- identity column would not promise that on PostgreSQL, where a
-- transaction that took a smaller number may commit after one that took
-- a larger). Writers write in batches, so the lock is taken once per
-- batch. Each world keeps at most a configured number of entries (the
-- oldest go first), and its entries go with it (DeleteWorld).
CREATE TABLE journal (
    seq      BIGINT PRIMARY KEY,
    world_id BIGINT NOT NULL,
    id       BIGINT NOT NULL,
    type     TEXT   NOT NULL,
    at       BIGINT NOT NULL,
    body     TEXT   NOT NULL
);
CREATE INDEX journal_by_world ON journal (world_id, seq);

CREATE TABLE journal_seq (
    id   INTEGER PRIMARY KEY,
    last BIGINT  NOT NULL
);
INSERT INTO journal_seq (id, last) VALUES (1, 0);

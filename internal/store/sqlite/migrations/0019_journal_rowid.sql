-- The journal is keyed by its rowid: only a column declared INTEGER
-- PRIMARY KEY is the rowid, and 0017's seq BIGINT PRIMARY KEY is a
-- separate unique index beside a hidden rowid, written for every entry
-- appended and trimmed (the same as 0013 did for interactions and
-- messages). The table is rebuilt with its rows, columns in the same
-- order, and its other index made again.
CREATE TABLE journal_0019 (
    seq      INTEGER PRIMARY KEY,
    world_id BIGINT  NOT NULL,
    id       BIGINT  NOT NULL,
    type     TEXT    NOT NULL,
    at       BIGINT  NOT NULL,
    body     TEXT    NOT NULL
);
INSERT INTO journal_0019 (seq, world_id, id, type, at, body)
SELECT seq, world_id, id, type, at, body FROM journal;
DROP TABLE journal;
ALTER TABLE journal_0019 RENAME TO journal;
CREATE INDEX journal_by_world ON journal (world_id, seq);

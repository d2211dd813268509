-- SQLite's 0019 keys the journal by its rowid (a BIGINT PRIMARY KEY is a
-- second index there); PostgreSQL's primary key on seq is the one index
-- it has anyway. Nothing to change: this file keeps the two stores'
-- migrations in step.
SELECT 1;

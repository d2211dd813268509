-- Forgetting old interactions bounds its search by id (a snowflake of
-- the creation), so that no index on created_at is written by every
-- invocation. (The token_hash's UNIQUE index stays here: dropping a
-- constraint is spelled differently by CockroachDB, and the SQLite
-- store, where commits cost the most, drops it.)
DROP INDEX interactions_by_created_at;

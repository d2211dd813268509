-- The node's default world (issue 24, docs/worlds.md "The demo world"):
-- the test world that the admin API's and the CLI's creates join when
-- they name no world_id. The first start makes the demo as a test world
-- and marks it here, in the store, so that every node of a cluster and
-- every restart agree. At most one world is the default; none (every
-- data directory from before, or without a demo) means world 0, no
-- world, as before. Deleting the default world deletes its mark.
ALTER TABLE worlds ADD COLUMN is_default INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX worlds_one_default ON worlds (is_default) WHERE is_default <> 0;

-- A user's memberships by user, with the guild id in the index: a bot's
-- guilds of one gateway shard ((guild_id >> 22) % shards) are picked from
-- the index's entries alone, without reading the member rows of the
-- other shards' guilds (store.ShardGuildIDs). It serves every query
-- members_by_user served, which it replaces.
CREATE INDEX members_by_user_guild ON members (user_id, guild_id);
DROP INDEX members_by_user;

-- world_clock counts the changes to the world's tables, by whichever
-- process makes them (a running server, or the CLI on its data
-- directory): the server's store cache (internal/store/cache) keeps
-- members, roles, channels, installations, users and permission lists
-- in memory, and empties them when the count moves under it. Writes to
-- messages and interactions, the ones every invocation makes, do not
-- count.
CREATE TABLE world_clock (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO world_clock (id, version) VALUES (1, 0);
CREATE TRIGGER world_clock_users_insert AFTER INSERT ON users BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_users_update AFTER UPDATE ON users BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_users_delete AFTER DELETE ON users BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_guilds_insert AFTER INSERT ON guilds BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_guilds_update AFTER UPDATE ON guilds BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_guilds_delete AFTER DELETE ON guilds BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_roles_insert AFTER INSERT ON roles BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_roles_update AFTER UPDATE ON roles BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_roles_delete AFTER DELETE ON roles BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_members_insert AFTER INSERT ON members BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_members_update AFTER UPDATE ON members BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_members_delete AFTER DELETE ON members BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_channels_insert AFTER INSERT ON channels BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_channels_update AFTER UPDATE ON channels BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_channels_delete AFTER DELETE ON channels BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_installations_insert AFTER INSERT ON installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_installations_update AFTER UPDATE ON installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_installations_delete AFTER DELETE ON installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_user_installations_insert AFTER INSERT ON user_installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_user_installations_update AFTER UPDATE ON user_installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_user_installations_delete AFTER DELETE ON user_installations BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_command_permissions_insert AFTER INSERT ON command_permissions BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_command_permissions_update AFTER UPDATE ON command_permissions BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER world_clock_command_permissions_delete AFTER DELETE ON command_permissions BEGIN UPDATE world_clock SET version = version + 1 WHERE id = 1; END;

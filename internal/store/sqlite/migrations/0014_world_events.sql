-- world_events: an outbox of the changes to guilds, roles, members and
-- channels, written by triggers in the writing transaction, whichever
-- process writes (the server, the CLI). The serving process claims them
-- (ClaimWorldEvents: deleted in the transaction that publishes them) and
-- turns them into the gateway's GUILD_*, CHANNEL_*, THREAD_*,
-- GUILD_ROLE_* and GUILD_MEMBER_* dispatches (docs/design.md, "World
-- events"). kind: guild, role, member or channel; op: create, update or
-- delete; object_id: the guild, the role, the member's user or the
-- channel; object: the role, member or channel row as it was written
-- (as it was, for a deletion), as JSON, so that each dispatch shows the
-- change it reports however late it is claimed ('' for a guild). The id
-- never repeats (AUTOINCREMENT: a plain rowid would start again at 1
-- once every change is claimed), so that "a change after this one"
-- (BotMembers) means what it says.
CREATE TABLE world_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id  BIGINT  NOT NULL,
    kind      TEXT    NOT NULL,
    op        TEXT    NOT NULL,
    object_id BIGINT  NOT NULL,
    object    TEXT    NOT NULL DEFAULT ''
);
CREATE TRIGGER world_events_guilds_update AFTER UPDATE ON guilds BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.id, 'guild', 'update', NEW.id); END;
CREATE TRIGGER world_events_roles_insert AFTER INSERT ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'role', 'create', NEW.id, json_object('id', NEW.id, 'guild_id', NEW.guild_id, 'name', NEW.name, 'permissions', NEW.permissions, 'position', NEW.position, 'managed', NEW.managed)); END;
CREATE TRIGGER world_events_roles_update AFTER UPDATE ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'role', 'update', NEW.id, json_object('id', NEW.id, 'guild_id', NEW.guild_id, 'name', NEW.name, 'permissions', NEW.permissions, 'position', NEW.position, 'managed', NEW.managed)); END;
CREATE TRIGGER world_events_roles_delete AFTER DELETE ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'role', 'delete', OLD.id, json_object('id', OLD.id, 'guild_id', OLD.guild_id, 'name', OLD.name, 'permissions', OLD.permissions, 'position', OLD.position, 'managed', OLD.managed)); END;
CREATE TRIGGER world_events_members_insert AFTER INSERT ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'member', 'create', NEW.user_id, json_object('guild_id', NEW.guild_id, 'user_id', NEW.user_id, 'nick', NEW.nick, 'roles', json(NEW.roles), 'joined_at', NEW.joined_at)); END;
CREATE TRIGGER world_events_members_update AFTER UPDATE ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'member', 'update', NEW.user_id, json_object('guild_id', NEW.guild_id, 'user_id', NEW.user_id, 'nick', NEW.nick, 'roles', json(NEW.roles), 'joined_at', NEW.joined_at)); END;
CREATE TRIGGER world_events_members_delete AFTER DELETE ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'member', 'delete', OLD.user_id, json_object('guild_id', OLD.guild_id, 'user_id', OLD.user_id, 'nick', OLD.nick, 'roles', json(OLD.roles), 'joined_at', OLD.joined_at)); END;
CREATE TRIGGER world_events_channels_insert AFTER INSERT ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'channel', 'create', NEW.id, json_object('id', NEW.id, 'guild_id', NEW.guild_id, 'type', NEW.type, 'name', NEW.name, 'parent_id', NEW.parent_id, 'nsfw', NEW.nsfw, 'position', NEW.position, 'overwrites', json(NEW.overwrites))); END;
CREATE TRIGGER world_events_channels_update AFTER UPDATE ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'channel', 'update', NEW.id, json_object('id', NEW.id, 'guild_id', NEW.guild_id, 'type', NEW.type, 'name', NEW.name, 'parent_id', NEW.parent_id, 'nsfw', NEW.nsfw, 'position', NEW.position, 'overwrites', json(NEW.overwrites))); END;
CREATE TRIGGER world_events_channels_delete AFTER DELETE ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'channel', 'delete', OLD.id, json_object('id', OLD.id, 'guild_id', OLD.guild_id, 'type', OLD.type, 'name', OLD.name, 'parent_id', OLD.parent_id, 'nsfw', OLD.nsfw, 'position', OLD.position, 'overwrites', json(OLD.overwrites))); END;

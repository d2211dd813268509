-- world_events: an outbox of the changes to guilds, roles, members and
-- channels, written by triggers in the writing transaction, whichever
-- process writes (the server, the CLI). The serving process claims them
-- (ClaimWorldEvents: deleted in the transaction that publishes them) and
-- turns them into the gateway's GUILD_*, CHANNEL_* and THREAD_*
-- dispatches (docs/design.md, "World events"). kind: guild, role,
-- member or channel; op: create, update or delete; object_id: the guild,
-- the role, the member's user or the channel; old: a deleted channel's
-- row as JSON (CHANNEL_DELETE carries the channel), else ''.
CREATE TABLE world_events (
    id        INTEGER PRIMARY KEY,
    guild_id  BIGINT  NOT NULL,
    kind      TEXT    NOT NULL,
    op        TEXT    NOT NULL,
    object_id BIGINT  NOT NULL,
    old       TEXT    NOT NULL DEFAULT ''
);
CREATE TRIGGER world_events_guilds_update AFTER UPDATE ON guilds BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.id, 'guild', 'update', NEW.id); END;
CREATE TRIGGER world_events_roles_insert AFTER INSERT ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'role', 'create', NEW.id); END;
CREATE TRIGGER world_events_roles_update AFTER UPDATE ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'role', 'update', NEW.id); END;
CREATE TRIGGER world_events_roles_delete AFTER DELETE ON roles BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (OLD.guild_id, 'role', 'delete', OLD.id); END;
CREATE TRIGGER world_events_members_insert AFTER INSERT ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'member', 'create', NEW.user_id); END;
CREATE TRIGGER world_events_members_update AFTER UPDATE ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'member', 'update', NEW.user_id); END;
CREATE TRIGGER world_events_members_delete AFTER DELETE ON members BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (OLD.guild_id, 'member', 'delete', OLD.user_id); END;
CREATE TRIGGER world_events_channels_insert AFTER INSERT ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'channel', 'create', NEW.id); END;
CREATE TRIGGER world_events_channels_update AFTER UPDATE ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.guild_id, 'channel', 'update', NEW.id); END;
CREATE TRIGGER world_events_channels_delete AFTER DELETE ON channels BEGIN INSERT INTO world_events (guild_id, kind, op, object_id, old) VALUES (OLD.guild_id, 'channel', 'delete', OLD.id, json_object('id', OLD.id, 'guild_id', OLD.guild_id, 'type', OLD.type, 'name', OLD.name, 'parent_id', OLD.parent_id, 'nsfw', OLD.nsfw, 'position', OLD.position, 'overwrites', json(OLD.overwrites))); END;

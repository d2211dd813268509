-- world_events: the outbox of world changes SQLite's migration 0014
-- describes, written by the same triggers (PL/pgSQL here: one function
-- per table, each on one line, since migrations are split at a ";" that
-- ends a line). A sequence, not a counter row, numbers them: concurrent
-- writers do not serialize on it. The serving nodes claim the rows
-- (ClaimWorldEvents) one transaction at a time.
CREATE TABLE world_events (
    id        BIGSERIAL PRIMARY KEY,
    guild_id  BIGINT NOT NULL,
    kind      TEXT   NOT NULL,
    op        TEXT   NOT NULL,
    object_id BIGINT NOT NULL,
    object    TEXT   NOT NULL DEFAULT ''
);
CREATE FUNCTION world_events_guilds() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO world_events (guild_id, kind, op, object_id) VALUES (NEW.id, 'guild', 'update', NEW.id); RETURN NULL; END $$;
CREATE FUNCTION world_events_roles() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'DELETE' THEN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'role', 'delete', OLD.id, json_build_object('id', OLD.id, 'guild_id', OLD.guild_id, 'name', OLD.name, 'permissions', OLD.permissions, 'position', OLD.position, 'managed', OLD.managed)::text); ELSE INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'role', CASE TG_OP WHEN 'INSERT' THEN 'create' ELSE 'update' END, NEW.id, json_build_object('id', NEW.id, 'guild_id', NEW.guild_id, 'name', NEW.name, 'permissions', NEW.permissions, 'position', NEW.position, 'managed', NEW.managed)::text); END IF; RETURN NULL; END $$;
CREATE FUNCTION world_events_members() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'DELETE' THEN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'member', 'delete', OLD.user_id, json_build_object('guild_id', OLD.guild_id, 'user_id', OLD.user_id, 'nick', OLD.nick, 'roles', OLD.roles::json, 'joined_at', OLD.joined_at)::text); ELSE INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'member', CASE TG_OP WHEN 'INSERT' THEN 'create' ELSE 'update' END, NEW.user_id, json_build_object('guild_id', NEW.guild_id, 'user_id', NEW.user_id, 'nick', NEW.nick, 'roles', NEW.roles::json, 'joined_at', NEW.joined_at)::text); END IF; RETURN NULL; END $$;
CREATE FUNCTION world_events_channels() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'DELETE' THEN INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (OLD.guild_id, 'channel', 'delete', OLD.id, json_build_object('id', OLD.id, 'guild_id', OLD.guild_id, 'type', OLD.type, 'name', OLD.name, 'parent_id', OLD.parent_id, 'nsfw', OLD.nsfw, 'position', OLD.position, 'overwrites', OLD.overwrites::json)::text); ELSE INSERT INTO world_events (guild_id, kind, op, object_id, object) VALUES (NEW.guild_id, 'channel', CASE TG_OP WHEN 'INSERT' THEN 'create' ELSE 'update' END, NEW.id, json_build_object('id', NEW.id, 'guild_id', NEW.guild_id, 'type', NEW.type, 'name', NEW.name, 'parent_id', NEW.parent_id, 'nsfw', NEW.nsfw, 'position', NEW.position, 'overwrites', NEW.overwrites::json)::text); END IF; RETURN NULL; END $$;
CREATE TRIGGER world_events_guilds AFTER UPDATE ON guilds FOR EACH ROW EXECUTE FUNCTION world_events_guilds();
CREATE TRIGGER world_events_roles AFTER INSERT OR UPDATE OR DELETE ON roles FOR EACH ROW EXECUTE FUNCTION world_events_roles();
CREATE TRIGGER world_events_members AFTER INSERT OR UPDATE OR DELETE ON members FOR EACH ROW EXECUTE FUNCTION world_events_members();
CREATE TRIGGER world_events_channels AFTER INSERT OR UPDATE OR DELETE ON channels FOR EACH ROW EXECUTE FUNCTION world_events_channels();

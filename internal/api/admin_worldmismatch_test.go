package api_test

import (
	"testing"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// TestAdminWorldMismatch: the admin API refuses every link between
// objects of two different test worlds (world 0, no world, being one of
// them) with 400 50035 WORLD_MISMATCH at the field or path parameter
// naming the object linked, and makes the same links within one world.
func TestAdminWorldMismatch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	a := e.NewWorldObjects(t, e.NewTestWorld(t, "world-a"), "world-a")
	b := e.NewWorldObjects(t, e.NewTestWorld(t, "world-b"), "world-b")
	zero := e.NewWorldObjects(t, 0, "world-0")
	for _, path := range []string{"/users", "/guilds", "/applications"} {
		r := adminDo(t, e, "POST", path, jsonObj{"username": "u", "name": "named", "owner_id": a.UserID, "world_id": "abc"}, 400)
		wantError(t, r, 400, formError(leaf{"world_id", "NUMBER_TYPE_COERCE", notSnowflake("abc")}))
		// A world that does not exist (a deleted one, a typo).
		r = adminDo(t, e, "POST", path, jsonObj{"username": "u", "name": "named", "owner_id": a.UserID,
			"world_id": e.IDs.Next().String()}, 400)
		wantError(t, r, 400, formError(leaf{"world_id", "UNKNOWN_WORLD", "Unknown World"}))
	}
	worldOf := func(w testenv.WorldObjects) snowflake.ID { return w.World }

	type link struct {
		name         string
		method, path string
		body         any
		at           string // where the refusal is
		// what the refusal names: the linked object's kind and world,
		// then the other's
		what, other string
		ok          int // the status of the same link within one world
	}
	links := func(to, from testenv.WorldObjects) []link {
		// A fresh person of world `to` for each link made within it.
		person := adminObj(t, e, "POST", "/users", withWorldID(jsonObj{"username": "p"}, to.World), 201)["id"].(string)
		return []link{
			{"member", "PUT", "/guilds/" + to.GuildID + "/members/" + from.UserID, nil, "user_id", "user", "guild", 201},
			{"installation", "PUT", "/guilds/" + to.GuildID + "/installations/" + from.AppID,
				jsonObj{"scopes": []string{"applications.commands", "bot"}}, "application_id", "application", "guild", 200}, // (replaced)
			{"guild owner on create", "POST", "/guilds",
				withWorldID(jsonObj{"name": "owned", "owner_id": from.UserID}, to.World), "owner_id", "user", "guild", 201},
			{"guild owner on edit", "PATCH", "/guilds/" + to.GuildID, jsonObj{"owner_id": from.UserID},
				"owner_id", "user", "guild", 200},
			{"user installation", "PUT", "/users/" + person + "/installations/" + from.AppID, nil,
				"application_id", "application", "user", 201},
			{"DM", "POST", "/users/" + person + "/channels", jsonObj{"recipient_id": from.UserID},
				"recipient_id", "user", "user opening the DM", 201},
			{"group DM", "POST", "/group-dms", jsonObj{"owner_id": person, "recipient_ids": []string{from.UserID}},
				"recipient_ids.0", "user", "group DM's owner", 201},
			{"Bearer token", "POST", "/users/" + person + "/tokens",
				jsonObj{"type": "bearer", "application_id": from.AppID, "scopes": "identify"},
				"application_id", "application", "user", 201},
		}
	}
	for _, pair := range []struct {
		name     string
		to, from testenv.WorldObjects
	}{{"A and B", a, b}, {"A and world 0", a, zero}, {"world 0 and A", zero, a}} {
		refused := links(pair.to, pair.from)
		for _, l := range refused {
			msg := "The " + l.what + " belongs to another world (" + admin.WorldName(worldOf(pair.from)) +
				") than the " + l.other + " (" + admin.WorldName(worldOf(pair.to)) + ")"
			r := adminDo(t, e, l.method, l.path, l.body, 400)
			wantError(t, r, 400, formError(leaf{l.at, admin.CodeWorldMismatch, msg}))
		}
		// The same links within world `to` are made.
		for _, l := range links(pair.to, pair.to) {
			if l.name == "member" { // already a member: replaced
				l.ok = 200
			}
			if l.name == "guild owner on edit" || l.name == "guild owner on create" {
				l.body.(jsonObj)["owner_id"] = pair.to.OwnerID
			}
			adminDo(t, e, l.method, l.path, l.body, l.ok)
		}
	}
}

// withWorldID adds "world_id" to a create body (none for world 0).
func withWorldID(body jsonObj, world snowflake.ID) jsonObj {
	if world != 0 {
		body["world_id"] = world.String()
	}
	return body
}

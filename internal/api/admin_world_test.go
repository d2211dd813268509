package api_test

// HTTP tests of the admin API's guild world: guilds, roles, members,
// channels, installations, and deleting a guild with everything in it.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/testenv"
)

const unknownID = "1234567890123456789"

var (
	bodyUnknownUser        = apiError(10013, "Unknown User")
	bodyUnknownRole        = apiError(10011, "Unknown Role")
	bodyUnknownChannel     = apiError(10003, "Unknown Channel")
	bodyUnknownMember      = apiError(10007, "Unknown Member")
	bodyUnknownIntegration = apiError(10005, "Unknown Integration")
)

// everyonePerms is guild.DefaultEveryone as the wire writes it.
const everyonePerms = "1126451810208833"

// ---- guilds ----

func TestAdminGuilds(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	owner := adminNewUser(t, e, "owner")
	g := adminObj(t, e, "POST", "/guilds", jsonObj{"name": "Test Guild", "owner_id": owner}, 201)
	id := str(g, "id")
	wantJSON(t, mustMarshal(g), fmt.Sprintf(`{"id":%q,"name":"Test Guild","owner_id":%q}`, id, owner))

	// The detail: @everyone, the owner as a member, nothing else.
	d := adminDo(t, e, "GET", "/guilds/"+id, nil, 200)
	joined := str(decodeObj(t, d)["members"].([]any)[0].(jsonObj), "joined_at")
	if _, err := time.Parse(time.RFC3339Nano, joined); err != nil {
		t.Fatalf("joined_at %q: %v", joined, err)
	}
	wantJSON(t, d.Body, fmt.Sprintf(`{"id":%[1]q,"name":"Test Guild","owner_id":%[2]q,
		"roles":[{"id":%[1]q,"guild_id":%[1]q,"name":"@everyone","permissions":%[3]q,"position":0,"managed":false}],
		"channels":[],
		"members":[{"guild_id":%[1]q,"user_id":%[2]q,"nick":null,"roles":[],"joined_at":%[4]q}],
		"installations":[]}`, id, owner, everyonePerms, joined))

	// The list has it after the bootstrapped guild.
	if l := ids(adminList(t, e, "/guilds"), "id"); len(l) != 2 || l[0] != e.App.GuildID || l[1] != id {
		t.Fatalf("guilds: %v", l)
	}

	// PATCH: rename, transfer (the new owner becomes a member).
	other := adminNewUser(t, e, "other")
	got := adminObj(t, e, "PATCH", "/guilds/"+id, jsonObj{"name": "Renamed", "owner_id": other}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"name":"Renamed","owner_id":%q}`, id, other))
	adminDo(t, e, "GET", "/guilds/"+id+"/members/"+other, nil, 200)
	got = adminObj(t, e, "PATCH", "/guilds/"+id, jsonObj{}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"name":"Renamed","owner_id":%q}`, id, other))

	// Validation.
	cases := []struct {
		name, method, path string
		body               any
		leaves             []leaf
	}{
		{"nothing", "POST", "/guilds", jsonObj{}, []leaf{{"name", "BASE_TYPE_REQUIRED", msgRequired}, {"owner_id", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"short name", "POST", "/guilds", jsonObj{"name": "x", "owner_id": owner}, []leaf{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."}}},
		{"long name", "POST", "/guilds", jsonObj{"name": strings.Repeat("x", 101), "owner_id": owner}, []leaf{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."}}},
		{"owner not snowflake", "POST", "/guilds", jsonObj{"name": "xx", "owner_id": "me"}, []leaf{{"owner_id", "NUMBER_TYPE_COERCE", notSnowflake("me")}}},
		{"unknown owner", "POST", "/guilds", jsonObj{"name": "xx", "owner_id": unknownID}, []leaf{{"owner_id", "UNKNOWN_USER", "Unknown User"}}},
		{"bot owner", "POST", "/guilds", jsonObj{"name": "xx", "owner_id": e.App.ApplicationID}, []leaf{{"owner_id", "GUILD_OWNER_INVALID", "A bot user cannot own a guild"}}},
		{"patch nulls", "PATCH", "/guilds/" + id, jsonObj{"name": nil, "owner_id": nil}, []leaf{{"name", "BASE_TYPE_REQUIRED", msgRequired}, {"owner_id", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"patch unknown owner", "PATCH", "/guilds/" + id, jsonObj{"name": "ok name", "owner_id": unknownID}, []leaf{{"owner_id", "UNKNOWN_USER", "Unknown User"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, tc.method, tc.path, tc.body, 400), 400, formError(tc.leaves...))
		})
	}
	if n := len(adminList(t, e, "/guilds")); n != 2 {
		t.Fatalf("%d guilds after failed creates", n)
	}
	wantJSON(t, adminDo(t, e, "GET", "/guilds/"+id+"/roles", nil, 200).Body,
		fmt.Sprintf(`[{"id":%[1]q,"guild_id":%[1]q,"name":"@everyone","permissions":%[2]q,"position":0,"managed":false}]`, id, everyonePerms))
	if r := adminObj(t, e, "GET", "/guilds/"+id, nil, 200); str(r, "name") != "Renamed" {
		t.Fatalf("failed PATCH changed the guild: %v", r)
	}
}

// TestAdminUnknownIDs: every route answers an unknown id in its path with
// the real service's 404, and a malformed one with a form error.
func TestAdminUnknownIDs(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	guild := e.App.GuildID
	g := "/guilds/" + guild
	cases := []struct {
		method, path string
		body         any
		want         string
	}{
		{"GET", "/users/" + unknownID, nil, bodyUnknownUser},
		{"PATCH", "/users/" + unknownID, jsonObj{}, bodyUnknownUser},
		{"DELETE", "/users/" + unknownID, nil, bodyUnknownUser},
		{"POST", "/users/" + unknownID + "/tokens", jsonObj{"type": "client"}, bodyUnknownUser},
		{"GET", "/applications/" + unknownID, nil, bodyUnknownApp},
		{"GET", "/guilds/" + unknownID, nil, bodyUnknownGuild},
		{"PATCH", "/guilds/" + unknownID, jsonObj{}, bodyUnknownGuild},
		{"DELETE", "/guilds/" + unknownID, nil, bodyUnknownGuild},
		{"POST", "/guilds/" + unknownID + "/roles", jsonObj{"name": "r"}, bodyUnknownGuild},
		{"GET", "/guilds/" + unknownID + "/roles", nil, bodyUnknownGuild},
		{"GET", "/guilds/" + unknownID + "/roles/" + unknownID, nil, bodyUnknownGuild},
		{"GET", "/guilds/" + unknownID + "/members", nil, bodyUnknownGuild},
		{"PUT", "/guilds/" + unknownID + "/members/" + e.App.OwnerUserID, nil, bodyUnknownGuild},
		{"GET", "/guilds/" + unknownID + "/channels", nil, bodyUnknownGuild},
		{"POST", "/guilds/" + unknownID + "/channels", jsonObj{"name": "c"}, bodyUnknownGuild},
		{"GET", "/guilds/" + unknownID + "/installations", nil, bodyUnknownGuild},
		{"PUT", "/guilds/" + unknownID + "/installations/" + e.App.ApplicationID, jsonObj{"scopes": []string{"bot"}}, bodyUnknownGuild},
		{"DELETE", "/guilds/" + unknownID + "/installations/" + e.App.ApplicationID, nil, bodyUnknownGuild},
		{"GET", g + "/roles/" + unknownID, nil, bodyUnknownRole},
		{"PATCH", g + "/roles/" + unknownID, jsonObj{}, bodyUnknownRole},
		{"DELETE", g + "/roles/" + unknownID, nil, bodyUnknownRole},
		{"GET", g + "/members/" + unknownID, nil, bodyUnknownMember},
		{"DELETE", g + "/members/" + unknownID, nil, bodyUnknownMember},
		{"PUT", g + "/members/" + unknownID, nil, bodyUnknownUser},
		{"GET", g + "/channels/" + unknownID, nil, bodyUnknownChannel},
		{"PATCH", g + "/channels/" + unknownID, jsonObj{}, bodyUnknownChannel},
		{"DELETE", g + "/channels/" + unknownID, nil, bodyUnknownChannel},
		{"PUT", g + "/installations/" + unknownID, jsonObj{"scopes": []string{"bot"}}, bodyUnknownApp},
		{"DELETE", g + "/installations/" + unknownID, nil, bodyUnknownApp},
	}
	for _, tc := range cases {
		wantError(t, adminDo(t, e, tc.method, tc.path, tc.body, 404), 404, tc.want)
	}
	bad := []struct{ path, param string }{
		{"/users/x", "user_id"},
		{"/guilds/x", "guild_id"},
		{"/guilds/x/roles", "guild_id"},
		{g + "/roles/x", "role_id"},
		{g + "/members/x", "user_id"},
		{g + "/channels/x", "channel_id"},
	}
	for _, b := range bad {
		wantError(t, adminDo(t, e, "GET", b.path, nil, 400), 400, formError(leaf{b.param, "NUMBER_TYPE_COERCE", notSnowflake("x")}))
	}
	wantError(t, adminDo(t, e, "DELETE", g+"/installations/x", nil, 400), 400,
		formError(leaf{"application_id", "NUMBER_TYPE_COERCE", notSnowflake("x")}))

	// A role or channel of another guild is unknown in this one.
	other := adminNewGuild(t, e, "other", e.App.OwnerUserID)
	role := str(adminObj(t, e, "POST", "/guilds/"+other+"/roles", jsonObj{"name": "r"}, 201), "id")
	ch := str(adminObj(t, e, "POST", "/guilds/"+other+"/channels", jsonObj{"name": "c"}, 201), "id")
	wantError(t, adminDo(t, e, "GET", g+"/roles/"+role, nil, 404), 404, bodyUnknownRole)
	wantError(t, adminDo(t, e, "GET", g+"/roles/"+other, nil, 404), 404, bodyUnknownRole)
	wantError(t, adminDo(t, e, "GET", g+"/channels/"+ch, nil, 404), 404, bodyUnknownChannel)
	wantError(t, adminDo(t, e, "DELETE", g+"/channels/"+ch, nil, 404), 404, bodyUnknownChannel)
	adminDo(t, e, "GET", "/guilds/"+other+"/channels/"+ch, nil, 200)
}

// ---- roles ----

func TestAdminRoles(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	owner := adminNewUser(t, e, "owner")
	g := adminNewGuild(t, e, "roles", owner)
	path := "/guilds/" + g + "/roles"

	// Permissions as a string or a number; position defaults to 1.
	mods := adminObj(t, e, "POST", path, jsonObj{"name": "mods", "permissions": "268435488"}, 201)
	modsID := str(mods, "id")
	wantJSON(t, mustMarshal(mods), fmt.Sprintf(`{"id":%q,"guild_id":%q,"name":"mods","permissions":"268435488","position":1,"managed":false}`, modsID, g))
	admins := adminObj(t, e, "POST", path, jsonObj{"name": "admins", "permissions": 8, "position": 5}, 201)
	adminsID := str(admins, "id")
	wantJSON(t, mustMarshal(admins), fmt.Sprintf(`{"id":%q,"guild_id":%q,"name":"admins","permissions":"8","position":5,"managed":false}`, adminsID, g))
	plain := str(adminObj(t, e, "POST", path, jsonObj{"name": "plain"}, 201), "id")
	if p := str(adminObj(t, e, "GET", path+"/"+plain, nil, 200), "permissions"); p != "0" {
		t.Fatalf("default permissions %q", p)
	}
	allBits := adminObj(t, e, "POST", path, jsonObj{"name": "all", "permissions": "9007199254740991"}, 201)
	if str(allBits, "permissions") != "9007199254740991" {
		t.Fatalf("all bits: %v", allBits)
	}
	// By position, then id.
	if l := ids(adminList(t, e, path), "id"); fmt.Sprint(l) != fmt.Sprint([]string{g, modsID, plain, str(allBits, "id"), adminsID}) {
		t.Fatalf("role order %v", l)
	}

	// PATCH.
	got := adminObj(t, e, "PATCH", path+"/"+modsID, jsonObj{"name": "moderators", "permissions": "32", "position": 2}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"guild_id":%q,"name":"moderators","permissions":"32","position":2,"managed":false}`, modsID, g))
	wantJSON(t, adminDo(t, e, "GET", path+"/"+modsID, nil, 200).Body, mustMarshalString(got))

	// @everyone: its permissions change, nothing else; it stays.
	ev := adminObj(t, e, "PATCH", path+"/"+g, jsonObj{"permissions": "1024", "name": "@everyone", "position": 0}, 200)
	wantJSON(t, mustMarshal(ev), fmt.Sprintf(`{"id":%[1]q,"guild_id":%[1]q,"name":"@everyone","permissions":"1024","position":0,"managed":false}`, g))
	wantError(t, adminDo(t, e, "PATCH", path+"/"+g, jsonObj{"name": "all", "position": 3}, 400), 400, formError(
		leaf{"name", "ROLE_EVERYONE_INVALID", "The @everyone role cannot be renamed"},
		leaf{"position", "ROLE_EVERYONE_INVALID", "The @everyone role is always at position 0"}))
	wantError(t, adminDo(t, e, "DELETE", path+"/"+g, nil, 400), 400, apiError(0, "The @everyone role cannot be deleted"))

	// Validation.
	perm := func(v any) jsonObj { return jsonObj{"name": "x", "permissions": v} }
	cases := []struct {
		name, method string
		body         any
		leaves       []leaf
	}{
		{"no name", "POST", jsonObj{}, []leaf{{"name", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"empty name", "POST", jsonObj{"name": ""}, []leaf{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."}}},
		{"permissions too big", "POST", perm("9007199254740992"), []leaf{{"permissions", "NUMBER_TYPE_MAX", "int value should be less than or equal to 9007199254740991."}}},
		{"permissions negative", "POST", perm(-1), []leaf{{"permissions", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 0."}}},
		{"permissions text", "POST", perm("admin"), []leaf{{"permissions", "NUMBER_TYPE_COERCE", `Value "admin" is not int.`}}},
		{"permissions fraction", "POST", perm(1.5), []leaf{{"permissions", "NUMBER_TYPE_COERCE", `Value "1.5" is not int.`}}},
		{"permissions bool", "POST", perm(true), []leaf{{"permissions", "NUMBER_TYPE_COERCE", `Value "True" is not int.`}}},
		{"position 0", "POST", jsonObj{"name": "x", "position": 0}, []leaf{{"position", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 1."}}},
		{"patch nulls", "PATCH", jsonObj{"name": nil, "permissions": nil, "position": nil}, []leaf{
			{"name", "BASE_TYPE_REQUIRED", msgRequired}, {"permissions", "BASE_TYPE_REQUIRED", msgRequired}, {"position", "BASE_TYPE_REQUIRED", msgRequired}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := path
			if tc.method == "PATCH" {
				p += "/" + modsID
			}
			wantError(t, adminDo(t, e, tc.method, p, tc.body, 400), 400, formError(tc.leaves...))
		})
	}

	// Deleting a role takes it from its members.
	u := adminNewUser(t, e, "u")
	adminDo(t, e, "PUT", "/guilds/"+g+"/members/"+u, jsonObj{"roles": []string{modsID, adminsID}}, 201)
	adminDo(t, e, "DELETE", path+"/"+modsID, nil, 204)
	wantError(t, adminDo(t, e, "GET", path+"/"+modsID, nil, 404), 404, bodyUnknownRole)
	if m := adminObj(t, e, "GET", "/guilds/"+g+"/members/"+u, nil, 200); fmt.Sprint(m["roles"]) != "["+adminsID+"]" {
		t.Fatalf("member roles after delete: %v", m["roles"])
	}
	wantError(t, adminDo(t, e, "DELETE", path+"/"+modsID, nil, 404), 404, bodyUnknownRole)
}

// ---- members ----

func TestAdminMembers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	owner := adminNewUser(t, e, "owner")
	g := adminNewGuild(t, e, "members", owner)
	role := str(adminObj(t, e, "POST", "/guilds/"+g+"/roles", jsonObj{"name": "r"}, 201), "id")
	u := adminNewUser(t, e, "member")
	path := "/guilds/" + g + "/members/" + u

	// Added (201), @everyone and repeats dropped from the roles.
	m := adminObj(t, e, "PUT", path, jsonObj{"roles": []string{role, g, role}, "nick": "Mem"}, 201)
	joined := str(m, "joined_at")
	wantJSON(t, mustMarshal(m), fmt.Sprintf(`{"guild_id":%q,"user_id":%q,"nick":"Mem","roles":[%q],"joined_at":%q}`, g, u, role, joined))
	// Replaced (200): joined_at kept, a missing nick and roles cleared.
	m2 := adminObj(t, e, "PUT", path, nil, 200)
	wantJSON(t, mustMarshal(m2), fmt.Sprintf(`{"guild_id":%q,"user_id":%q,"nick":null,"roles":[],"joined_at":%q}`, g, u, joined))
	adminDo(t, e, "PUT", path, jsonObj{"roles": []string{role}}, 200)

	// Read.
	wantJSON(t, adminDo(t, e, "GET", path, nil, 200).Body,
		fmt.Sprintf(`{"guild_id":%q,"user_id":%q,"nick":null,"roles":[%q],"joined_at":%q}`, g, u, role, joined))
	if l := ids(adminList(t, e, "/guilds/"+g+"/members"), "user_id"); len(l) != 2 || !contains(l, owner) || !contains(l, u) {
		t.Fatalf("members %v", l)
	}

	// Validation.
	cases := []struct {
		name   string
		body   any
		leaves []leaf
	}{
		{"unknown role", jsonObj{"roles": []string{role, unknownID}}, []leaf{{"roles.1", "UNKNOWN_ROLE", "Unknown Role"}}},
		{"bad role id", jsonObj{"roles": []any{"x", 5}}, []leaf{{"roles.0", "NUMBER_TYPE_COERCE", notSnowflake("x")}}},
		{"roles not a list", jsonObj{"roles": "x"}, []leaf{{"roles", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."}}},
		{"long nick", jsonObj{"nick": strings.Repeat("n", 33)}, []leaf{{"nick", "BASE_TYPE_BAD_LENGTH", "Must be between 0 and 32 in length."}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "PUT", path, tc.body, 400), 400, formError(tc.leaves...))
		})
	}
	// A role of another guild is unknown here.
	other := adminNewGuild(t, e, "other", owner)
	otherRole := str(adminObj(t, e, "POST", "/guilds/"+other+"/roles", jsonObj{"name": "o"}, 201), "id")
	wantError(t, adminDo(t, e, "PUT", path, jsonObj{"roles": []string{otherRole}}, 400), 400,
		formError(leaf{"roles.0", "UNKNOWN_ROLE", "Unknown Role"}))

	// Removal; the owner stays.
	wantError(t, adminDo(t, e, "DELETE", "/guilds/"+g+"/members/"+owner, nil, 400), 400,
		apiError(0, "The guild owner cannot be removed: transfer the guild first"))
	adminDo(t, e, "DELETE", path, nil, 204)
	wantError(t, adminDo(t, e, "GET", path, nil, 404), 404, bodyUnknownMember)
	wantError(t, adminDo(t, e, "DELETE", path, nil, 404), 404, bodyUnknownMember)
}

// ---- channels ----

func TestAdminChannels(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	owner := adminNewUser(t, e, "owner")
	u := adminNewUser(t, e, "someone")
	g := adminNewGuild(t, e, "channels", owner)
	role := str(adminObj(t, e, "POST", "/guilds/"+g+"/roles", jsonObj{"name": "r"}, 201), "id")
	path := "/guilds/" + g + "/channels"

	text := adminObj(t, e, "POST", path, jsonObj{"name": "general"}, 201)
	textID := str(text, "id")
	wantJSON(t, mustMarshal(text), fmt.Sprintf(`{"id":%q,"guild_id":%q,"type":0,"name":"general","parent_id":null,"nsfw":false,"position":0,"permission_overwrites":[]}`, textID, g))
	cat := str(adminObj(t, e, "POST", path, jsonObj{"name": "Category", "type": 4, "position": 1}, 201), "id")
	nsfw := adminObj(t, e, "POST", path, jsonObj{"name": "late", "type": 0, "parent_id": cat, "nsfw": true, "position": 2,
		"permission_overwrites": []jsonObj{
			{"id": g, "type": 0, "deny": "2147483648"},
			{"id": role, "type": 0, "allow": 2147483648},
			{"id": u, "type": 1, "allow": "0", "deny": "1024"},
			{"id": role, "type": 0, "allow": "1024"}, // replaces the earlier entry for the role
		}}, 201)
	nsfwID := str(nsfw, "id")
	wantJSON(t, mustMarshal(nsfw), fmt.Sprintf(`{"id":%q,"guild_id":%q,"type":0,"name":"late","parent_id":%q,"nsfw":true,"position":2,
		"permission_overwrites":[{"id":%q,"type":0,"allow":"0","deny":"2147483648"},{"id":%q,"type":0,"allow":"1024","deny":"0"},{"id":%q,"type":1,"allow":"0","deny":"1024"}]}`,
		nsfwID, g, cat, g, role, u))
	wantJSON(t, adminDo(t, e, "GET", path+"/"+nsfwID, nil, 200).Body, mustMarshalString(nsfw))
	thread := str(adminObj(t, e, "POST", path, jsonObj{"name": "thread", "type": 11, "parent_id": textID}, 201), "id")
	forum := str(adminObj(t, e, "POST", path, jsonObj{"name": "forum", "type": 15}, 201), "id")
	adminObj(t, e, "POST", path, jsonObj{"name": "post", "type": 11, "parent_id": forum}, 201)
	ann := str(adminObj(t, e, "POST", path, jsonObj{"name": "news", "type": 5}, 201), "id")
	adminObj(t, e, "POST", path, jsonObj{"name": "ann thread", "type": 10, "parent_id": ann}, 201)
	voice := str(adminObj(t, e, "POST", path, jsonObj{"name": "voice", "type": 2, "parent_id": cat}, 201), "id")
	if n := len(adminList(t, e, path)); n != 9 {
		t.Fatalf("%d channels", n)
	}

	other := adminNewGuild(t, e, "other", owner)
	otherCh := str(adminObj(t, e, "POST", "/guilds/"+other+"/channels", jsonObj{"name": "x"}, 201), "id")
	types := "Value must be one of (0, 2, 4, 5, 10, 11, 12, 13, 15, 16)."
	cases := []struct {
		name   string
		body   any
		leaves []leaf
	}{
		{"no name", jsonObj{}, []leaf{{"name", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"long name", jsonObj{"name": strings.Repeat("c", 101)}, []leaf{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."}}},
		{"bad type", jsonObj{"name": "c", "type": 1}, []leaf{{"type", "BASE_TYPE_CHOICES", types}}},
		{"type text", jsonObj{"name": "c", "type": "text"}, []leaf{{"type", "NUMBER_TYPE_COERCE", `Value "text" is not int.`}}},
		{"thread without parent", jsonObj{"name": "c", "type": 11}, []leaf{{"parent_id", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"thread under category", jsonObj{"name": "c", "type": 12, "parent_id": cat}, []leaf{{"parent_id", "CHANNEL_PARENT_INVALID", "A thread's parent must be a text, announcement, forum or media channel"}}},
		{"thread under voice", jsonObj{"name": "c", "type": 11, "parent_id": voice}, []leaf{{"parent_id", "CHANNEL_PARENT_INVALID", "A thread's parent must be a text, announcement, forum or media channel"}}},
		{"thread under thread", jsonObj{"name": "c", "type": 11, "parent_id": thread}, []leaf{{"parent_id", "CHANNEL_PARENT_INVALID", "A thread's parent must be a text, announcement, forum or media channel"}}},
		{"category with parent", jsonObj{"name": "c", "type": 4, "parent_id": cat}, []leaf{{"parent_id", "CHANNEL_PARENT_INVALID", "A category cannot have a parent"}}},
		{"text under text", jsonObj{"name": "c", "parent_id": textID}, []leaf{{"parent_id", "CHANNEL_PARENT_INVALID", "A channel's parent must be a category"}}},
		{"unknown parent", jsonObj{"name": "c", "parent_id": unknownID}, []leaf{{"parent_id", "UNKNOWN_CHANNEL", "Unknown Channel"}}},
		{"parent in another guild", jsonObj{"name": "c", "type": 11, "parent_id": otherCh}, []leaf{{"parent_id", "UNKNOWN_CHANNEL", "Unknown Channel"}}},
		{"bad parent id", jsonObj{"name": "c", "parent_id": "p"}, []leaf{{"parent_id", "NUMBER_TYPE_COERCE", notSnowflake("p")}}},
		{"bad scalars", jsonObj{"name": "c", "nsfw": "yes", "position": -1}, []leaf{
			{"nsfw", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."},
			{"position", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 0."}}},
		{"overwrites not a list", jsonObj{"name": "c", "permission_overwrites": jsonObj{}}, []leaf{
			{"permission_overwrites", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."}}},
		{"overwrite fields", jsonObj{"name": "c", "permission_overwrites": []any{
			nil, "x", jsonObj{}, jsonObj{"id": "r", "type": 2, "allow": "x", "deny": -1},
		}}, []leaf{
			{"permission_overwrites.0", "LIST_ITEM_VALUE_REQUIRED", "List item values of ModelType are required"},
			{"permission_overwrites.1", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."},
			{"permission_overwrites.2.id", "BASE_TYPE_REQUIRED", msgRequired},
			{"permission_overwrites.2.type", "BASE_TYPE_REQUIRED", msgRequired},
			{"permission_overwrites.3.id", "NUMBER_TYPE_COERCE", notSnowflake("r")},
			{"permission_overwrites.3.type", "BASE_TYPE_CHOICES", "Value must be one of (0, 1)."},
			{"permission_overwrites.3.allow", "NUMBER_TYPE_COERCE", `Value "x" is not int.`},
			{"permission_overwrites.3.deny", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 0."},
		}},
		{"overwrite targets", jsonObj{"name": "c", "permission_overwrites": []jsonObj{
			{"id": role, "type": 0}, {"id": unknownID, "type": 0}, {"id": u, "type": 1}, {"id": unknownID, "type": 1}, {"id": other, "type": 0},
		}}, []leaf{
			{"permission_overwrites.1.id", "UNKNOWN_ROLE", "Unknown Role"},
			{"permission_overwrites.3.id", "UNKNOWN_USER", "Unknown User"},
			{"permission_overwrites.4.id", "UNKNOWN_ROLE", "Unknown Role"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "POST", path, tc.body, 400), 400, formError(tc.leaves...))
		})
	}
	if n := len(adminList(t, e, path)); n != 9 {
		t.Fatalf("%d channels after failed creates", n)
	}

	// PATCH: text and announcement convert into each other; nothing else
	// changes type. Overwrites are replaced; parent_id null detaches.
	got := adminObj(t, e, "PATCH", path+"/"+nsfwID, jsonObj{"type": 5, "parent_id": nil, "name": "late news",
		"permission_overwrites": []jsonObj{{"id": u, "type": 1, "allow": "2048"}}}, 200)
	wantJSON(t, mustMarshal(got), fmt.Sprintf(`{"id":%q,"guild_id":%q,"type":5,"name":"late news","parent_id":null,"nsfw":true,"position":2,
		"permission_overwrites":[{"id":%q,"type":1,"allow":"2048","deny":"0"}]}`, nsfwID, g, u))
	wantJSON(t, adminDo(t, e, "GET", path+"/"+nsfwID, nil, 200).Body, mustMarshalString(got))
	wantError(t, adminDo(t, e, "PATCH", path+"/"+textID, jsonObj{"type": 2}, 400), 400, formError(
		leaf{"type", "CHANNEL_TYPE_INVALID", "Only text and announcement channels can be converted into each other"}))
	wantError(t, adminDo(t, e, "PATCH", path+"/"+thread, jsonObj{"parent_id": nil}, 400), 400, formError(
		leaf{"parent_id", "BASE_TYPE_REQUIRED", msgRequired}))
	wantError(t, adminDo(t, e, "PATCH", path+"/"+textID, jsonObj{"parent_id": textID}, 400), 400, formError(
		leaf{"parent_id", "CHANNEL_PARENT_INVALID", "A channel's parent must be a category"}))
	wantError(t, adminDo(t, e, "PATCH", path+"/"+textID, jsonObj{"name": nil}, 400), 400, formError(
		leaf{"name", "BASE_TYPE_REQUIRED", msgRequired}))
	moved := adminObj(t, e, "PATCH", path+"/"+textID, jsonObj{"parent_id": cat, "position": 7}, 200)
	if str(moved, "parent_id") != cat || fmt.Sprint(moved["position"]) != "7" || str(moved, "name") != "general" {
		t.Fatalf("moved channel %v", moved)
	}

	// DELETE takes the channel's threads; a category's channels stay.
	adminDo(t, e, "DELETE", path+"/"+textID, nil, 204)
	wantError(t, adminDo(t, e, "GET", path+"/"+thread, nil, 404), 404, bodyUnknownChannel)
	adminDo(t, e, "DELETE", path+"/"+cat, nil, 204)
	if v := adminObj(t, e, "GET", path+"/"+voice, nil, 200); v["parent_id"] != nil {
		t.Fatalf("channel of a deleted category: %v", v)
	}
}

// ---- installations ----

func TestAdminInstallations(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	owner := e.App.OwnerUserID
	app := e.App.ApplicationID
	g := adminNewGuild(t, e, "installs", owner)
	path := "/guilds/" + g + "/installations/" + app
	p := v10(e).withGuild(g)

	// Not installed: the bot cannot touch the guild's commands.
	wantError(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 403), 403, bodyMissingAccess)

	// applications.commands only: no bot member.
	inst := adminObj(t, e, "PUT", path, jsonObj{"scopes": []string{"applications.commands"}}, 201)
	wantJSON(t, mustMarshal(inst), fmt.Sprintf(`{"guild_id":%q,"application_id":%q,"scopes":["applications.commands"],"role_id":null,"permissions":null}`, g, app))
	mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200)
	wantError(t, adminDo(t, e, "GET", "/guilds/"+g+"/members/"+app, nil, 404), 404, bodyUnknownMember)

	// With bot: the bot joins with a managed role named after the app.
	inst = adminObj(t, e, "PUT", path, jsonObj{"scopes": []string{"applications.commands", "bot", "bot"}, "permissions": "2048"}, 200)
	roleID := str(inst, "role_id")
	wantJSON(t, mustMarshal(inst), fmt.Sprintf(`{"guild_id":%q,"application_id":%q,"scopes":["applications.commands","bot"],"role_id":%q,"permissions":"2048"}`, g, app, roleID))
	wantJSON(t, adminDo(t, e, "GET", "/guilds/"+g+"/roles/"+roleID, nil, 200).Body,
		fmt.Sprintf(`{"id":%q,"guild_id":%q,"name":"testapp","permissions":"2048","position":1,"managed":true}`, roleID, g))
	if m := adminObj(t, e, "GET", "/guilds/"+g+"/members/"+app, nil, 200); fmt.Sprint(m["roles"]) != "["+roleID+"]" {
		t.Fatalf("bot member %v", m)
	}
	// A managed role is not deleted on its own.
	wantError(t, adminDo(t, e, "DELETE", "/guilds/"+g+"/roles/"+roleID, nil, 400), 400,
		apiError(0, "A managed role cannot be deleted: uninstall its application instead"))

	// Again: the same role gets the new permissions (default 0).
	inst = adminObj(t, e, "PUT", path, jsonObj{"scopes": []string{"bot"}}, 200)
	if str(inst, "role_id") != roleID || str(inst, "permissions") != "0" {
		t.Fatalf("reinstall %v", inst)
	}
	detail := adminObj(t, e, "GET", "/guilds/"+g, nil, 200)
	wantJSON(t, mustMarshal(detail["installations"]), "["+mustMarshalString(inst)+"]")
	if n := len(detail["roles"].([]any)); n != 2 {
		t.Fatalf("%d roles after reinstall", n)
	}
	wantJSON(t, adminDo(t, e, "GET", "/guilds/"+g+"/installations", nil, 200).Body, "["+mustMarshalString(inst)+"]")

	// Dropping bot removes the bot member and its role.
	adminDo(t, e, "PUT", path, jsonObj{"scopes": []string{"applications.commands"}}, 200)
	wantError(t, adminDo(t, e, "GET", "/guilds/"+g+"/members/"+app, nil, 404), 404, bodyUnknownMember)
	wantError(t, adminDo(t, e, "GET", "/guilds/"+g+"/roles/"+roleID, nil, 404), 404, bodyUnknownRole)

	// Validation.
	cases := []struct {
		name   string
		body   any
		leaves []leaf
	}{
		{"no scopes", jsonObj{}, []leaf{{"scopes", "BASE_TYPE_REQUIRED", msgRequired}}},
		{"empty scopes", jsonObj{"scopes": []string{}}, []leaf{{"scopes", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."}}},
		{"scopes not a list", jsonObj{"scopes": "bot"}, []leaf{{"scopes", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."}}},
		{"bad scopes", jsonObj{"scopes": []any{"bot", "identify", 3}}, []leaf{
			{"scopes.1", "BASE_TYPE_CHOICES", "Value must be one of ('applications.commands', 'bot')."},
			{"scopes.2", "STRING_TYPE_CONVERT", `Could not interpret "3" as string.`}}},
		{"permissions without bot", jsonObj{"scopes": []string{"applications.commands"}, "permissions": "8"}, []leaf{
			{"permissions", "INSTALLATION_PERMISSIONS_INVALID", "Permissions are only granted with the bot scope"}}},
		{"bad permissions", jsonObj{"scopes": []string{"bot"}, "permissions": "x"}, []leaf{
			{"permissions", "NUMBER_TYPE_COERCE", `Value "x" is not int.`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, adminDo(t, e, "PUT", path, tc.body, 400), 400, formError(tc.leaves...))
		})
	}

	// Uninstall: the installation, bot member and managed role go.
	adminDo(t, e, "PUT", path, jsonObj{"scopes": []string{"bot"}, "permissions": 8}, 200)
	adminDo(t, e, "DELETE", path, nil, 204)
	if l := adminList(t, e, "/guilds/"+g+"/installations"); len(l) != 0 {
		t.Fatalf("installations after uninstall: %v", l)
	}
	wantError(t, adminDo(t, e, "GET", "/guilds/"+g+"/members/"+app, nil, 404), 404, bodyUnknownMember)
	if l := adminList(t, e, "/guilds/"+g+"/roles"); len(l) != 1 {
		t.Fatalf("roles after uninstall: %v", l)
	}
	wantError(t, mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 403), 403, bodyMissingAccess)
	wantError(t, adminDo(t, e, "DELETE", path, nil, 404), 404, bodyUnknownIntegration)
}

// ---- deleting a guild ----

func TestAdminDeleteGuildCascade(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx := context.Background()
	owner, app := e.App.OwnerUserID, e.App.ApplicationID
	g := adminNewGuild(t, e, "doomed", owner)
	keep := adminNewGuild(t, e, "kept", owner)
	for _, id := range []string{g, keep} {
		adminDo(t, e, "PUT", "/guilds/"+id+"/installations/"+app, jsonObj{"scopes": []string{"applications.commands", "bot"}}, 201)
	}
	u := adminNewUser(t, e, "member")
	role := str(adminObj(t, e, "POST", "/guilds/"+g+"/roles", jsonObj{"name": "r", "permissions": "32"}, 201), "id")
	adminDo(t, e, "PUT", "/guilds/"+g+"/members/"+u, jsonObj{"roles": []string{role}}, 201)
	ch := str(adminObj(t, e, "POST", "/guilds/"+g+"/channels", jsonObj{"name": "c"}, 201), "id")

	// Commands in both guilds, a global one, and permission lists on all.
	p, pk := v10(e).withGuild(g), v10(e).withGuild(keep)
	local := str(create(t, e, p.guildCmds(), e.Bot(), chat("local")), "id")
	kept := str(create(t, e, pk.guildCmds(), e.Bot(), chat("kept")), "id")
	global := str(create(t, e, p.global(), e.Bot(), chat("global")), "id")
	list := permsBody(entry(role, 1, true), entry(ch, 3, false))
	mustDo(t, e, "PUT", p.cmdPerms(local), e.Owner(), list, 200)
	mustDo(t, e, "PUT", p.cmdPerms(global), e.Owner(), permsBody(entry(u, 2, true)), 200)
	mustDo(t, e, "PUT", p.cmdPerms(app), e.Owner(), permsBody(entry(g, 1, false)), 200)
	mustDo(t, e, "PUT", pk.cmdPerms(kept), e.Owner(), permsBody(entry(keep, 1, false)), 200)
	mustDo(t, e, "PUT", pk.cmdPerms(global), e.Owner(), permsBody(entry(keep, 1, true)), 200)

	adminDo(t, e, "DELETE", "/guilds/"+g, nil, 204)

	// The public API no longer knows the guild.
	for _, path := range []string{p.guildCmds(), p.guildCmd(local), p.allPerms(), p.cmdPerms(global)} {
		wantError(t, mustDo(t, e, "GET", path, e.Bot(), nil, 404), 404, bodyUnknownGuild)
	}
	// Nor does admin.
	for _, path := range []string{"/guilds/" + g, "/guilds/" + g + "/roles", "/guilds/" + g + "/members", "/guilds/" + g + "/channels",
		"/guilds/" + g + "/installations", "/guilds/" + g + "/roles/" + role, "/guilds/" + g + "/members/" + u} {
		wantError(t, adminDo(t, e, "GET", path, nil, 404), 404, bodyUnknownGuild)
	}
	wantError(t, adminDo(t, e, "DELETE", "/guilds/"+g, nil, 404), 404, bodyUnknownGuild)

	// Nothing of it is left in the store.
	gid, appID := mustID(t, g), mustID(t, app)
	if l, err := e.Store.GuildPermissions(ctx, appID, gid); err != nil || len(l) != 0 {
		t.Fatalf("permissions left: %v, %v", l, err)
	}
	if l, err := e.Store.Commands(ctx, command.Scope{ApplicationID: appID, GuildID: gid}); err != nil || len(l) != 0 {
		t.Fatalf("commands left: %v, %v", l, err)
	}
	for what, n := range map[string]func() (int, error){
		"members":       func() (int, error) { l, err := e.Store.Members(ctx, gid); return len(l), err },
		"roles":         func() (int, error) { l, err := e.Store.Roles(ctx, gid); return len(l), err },
		"channels":      func() (int, error) { l, err := e.Store.Channels(ctx, gid); return len(l), err },
		"installations": func() (int, error) { l, err := e.Store.Installations(ctx, gid); return len(l), err },
	} {
		if c, err := n(); err != nil || c != 0 {
			t.Fatalf("%s left: %d, %v", what, c, err)
		}
	}
	if _, err := e.Store.Channel(ctx, mustID(t, ch)); err == nil {
		t.Fatal("channel left")
	}
	var rows int
	if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM command_permissions WHERE guild_id = ?`, int64(gid)).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d permission rows left (%v)", rows, err)
	}

	// The user, the app, the global command and the other guild are intact.
	adminDo(t, e, "GET", "/users/"+u, nil, 200)
	mustDo(t, e, "GET", v10(e).globalCmd(global), e.Bot(), nil, 200)
	mustDo(t, e, "GET", pk.guildCmd(kept), e.Bot(), nil, 200)
	if l := decodeList(t, mustDo(t, e, "GET", pk.allPerms(), e.Bot(), nil, 200)); len(l) != 2 {
		t.Fatalf("permissions of the kept guild: %v", l)
	}
	if l := adminList(t, e, "/guilds/"+keep+"/members"); len(l) != 2 {
		t.Fatalf("members of the kept guild: %v", l)
	}
}

// TestAdminWorld builds docs/admin-api.md's small world through the admin API
// only and uses it through the public API.
func TestAdminWorld(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	creds := adminObj(t, e, "POST", "/applications", jsonObj{"name": "worldbot"}, 201)
	app, bot := str(creds, "application_id"), "Bot "+str(creds, "bot_token")
	owner := adminNewUser(t, e, "boss")
	g := adminNewGuild(t, e, "World", owner)
	adminDo(t, e, "PUT", "/guilds/"+g+"/installations/"+app, jsonObj{"scopes": []string{"applications.commands", "bot"}}, 201)
	mods := str(adminObj(t, e, "POST", "/guilds/"+g+"/roles",
		jsonObj{"name": "mods", "permissions": "268435488"}, 201), "id") // MANAGE_GUILD | MANAGE_ROLES
	alice := adminNewUser(t, e, "alice")
	adminDo(t, e, "PUT", "/guilds/"+g+"/members/"+alice, jsonObj{"roles": []string{mods}}, 201)
	ch := str(adminObj(t, e, "POST", "/guilds/"+g+"/channels", jsonObj{"name": "general"}, 201), "id")
	tok := str(adminObj(t, e, "POST", "/users/"+alice+"/tokens", jsonObj{"type": "bearer", "application_id": app,
		"scopes": "identify applications.commands.permissions.update"}, 201), "access_token")

	p := apiPaths{"/api/v10", app, g}
	cmd := str(create(t, e, p.guildCmds(), bot, chat("ban")), "id")
	r := mustDo(t, e, "PUT", p.cmdPerms(cmd), "Bearer "+tok, permsBody(entry(g, 1, false), entry(ch, 3, true)), 200)
	wantJSON(t, r.Body, guildPerms(cmd, app, g, entry(g, 1, false), entry(ch, 3, true)))
}

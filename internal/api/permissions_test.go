package api_test

import (
	"context"
	"encoding/json"
	"github.com/slashd/slashd/internal/guild"
	"strconv"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

func permsBody(entries ...jsonObj) jsonObj {
	if entries == nil {
		entries = []jsonObj{}
	}
	return jsonObj{"permissions": entries}
}

func entry(id string, typ int, allow bool) jsonObj {
	return jsonObj{"id": id, "type": typ, "permission": allow}
}

// guildPerms renders the expected guild permissions object.
func guildPerms(id, app, guild string, entries ...jsonObj) string {
	if entries == nil {
		entries = []jsonObj{}
	}
	return string(mustMarshal(jsonObj{"id": id, "application_id": app, "guild_id": guild, "permissions": entries}))
}

func allChannels(t testing.TB, guild string) string {
	return strconv.FormatUint(uint64(mustID(t, guild))-1, 10)
}

func TestPermissionsReadAndWrite(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	app, guild := e.App.ApplicationID, e.App.GuildID
	cmd := create(t, e, p.guildCmds(), e.Bot(), chat("mod"))
	id := str(cmd, "id")

	// Nothing set yet.
	if r := mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200); string(r.Body) != "[]" {
		t.Fatalf("initial list: %s", r.Body)
	}
	for _, target := range []string{id, app, "1234567890123456789"} {
		wantError(t, mustDo(t, e, "GET", p.cmdPerms(target), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	}

	// The constants (@everyone = guild id, all channels = guild id − 1)
	// and plain ids of each type.
	role, channel := newRole(t, e, guild, 1), newChannel(t, e, guild)
	entries := []jsonObj{
		entry(guild, 1, false),
		entry(allChannels(t, guild), 3, false),
		entry(role, 1, true),
		entry(e.App.OwnerUserID, 2, true),
		entry(channel, 3, true),
	}
	r := mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(entries...), 200)
	want := guildPerms(id, app, guild, entries...)
	wantJSON(t, r.Body, want)
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body, want)
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Owner(), nil, 200).Body, want)

	// App-level list: {command.id} = application id.
	appEntries := []jsonObj{entry(guild, 1, true)}
	wantJSON(t, mustDo(t, e, "PUT", p.cmdPerms(app), e.Owner(), permsBody(appEntries...), 200).Body,
		guildPerms(app, app, guild, appEntries...))
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(app), e.Bot(), nil, 200).Body, guildPerms(app, app, guild, appEntries...))

	// GET all: only lists that have entries, ordered by id.
	other := create(t, e, p.guildCmds(), e.Bot(), chat("other"))
	wantJSON(t, mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200).Body,
		"["+guildPerms(app, app, guild, appEntries...)+","+want+"]")
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(str(other, "id")), e.Bot(), nil, 404), 404, bodyUnknownPerms)

	// PUT replaces the whole list; a later entry for the same target wins.
	repl := permsBody(entry(guild, 1, true), entry(role, 1, true), entry(guild, 1, false))
	wantJSON(t, mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), repl, 200).Body,
		guildPerms(id, app, guild, entry(guild, 1, false), entry(role, 1, true)))
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body,
		guildPerms(id, app, guild, entry(guild, 1, false), entry(role, 1, true)))

	// Numeric ids and string types are coerced.
	num := jsonObj{"permissions": []any{map[string]any{"id": json.Number(e.App.OwnerUserID), "type": "2", "permission": true}}}
	wantJSON(t, mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), num, 200).Body,
		guildPerms(id, app, guild, entry(e.App.OwnerUserID, 2, true)))

	// An empty list removes it.
	wantJSON(t, mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(), 200).Body, guildPerms(id, app, guild))
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	wantJSON(t, mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200).Body, "["+guildPerms(app, app, guild, appEntries...)+"]")

	// Exactly 100 entries is fine.
	hundred := make([]jsonObj, 100)
	for i := range hundred {
		hundred[i] = entry(newRole(t, e, guild, 1), 1, i%2 == 0)
	}
	mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(hundred...), 200)
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body, guildPerms(id, app, guild, hundred...))
}

func TestPermissionsValidation(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	id := str(create(t, e, p.guildCmds(), e.Bot(), chat("mod")), "id")
	mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(entry(e.App.GuildID, 1, true)), 200)
	before := string(mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body)

	over := make([]jsonObj, 101)
	for i := range over {
		over[i] = entry(strconv.Itoa(1000000000000000000+i), 2, true)
	}
	cases := []struct {
		name string
		body any
		want string
	}{
		{"more than 100", permsBody(over...),
			formError(leaf{"permissions", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length."})},
		{"bad type", permsBody(entry(e.App.GuildID, 4, true)),
			formError(leaf{"permissions.0.type", "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3)."})},
		{"type not a number", jsonObj{"permissions": []jsonObj{{"id": e.App.GuildID, "type": "role", "permission": true}}},
			formError(leaf{"permissions.0.type", "NUMBER_TYPE_COERCE", `Value "role" is not int.`})},
		{"bad id", permsBody(entry(e.App.GuildID, 1, true), entry("abc", 1, true)),
			formError(leaf{"permissions.1.id", "NUMBER_TYPE_COERCE", notSnowflake("abc")})},
		{"permission not a boolean", jsonObj{"permissions": []jsonObj{{"id": e.App.GuildID, "type": 1, "permission": "yes"}}},
			formError(leaf{"permissions.0.permission", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."})},
		{"missing fields", jsonObj{"permissions": []jsonObj{{}}}, formError(
			leaf{"permissions.0.id", "BASE_TYPE_REQUIRED", msgRequired},
			leaf{"permissions.0.type", "BASE_TYPE_REQUIRED", msgRequired},
			leaf{"permissions.0.permission", "BASE_TYPE_REQUIRED", msgRequired})},
		{"entry not an object", jsonObj{"permissions": []any{"*"}},
			formError(leaf{"permissions.0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{"null entry", jsonObj{"permissions": []any{nil}},
			formError(leaf{"permissions.0", "LIST_ITEM_VALUE_REQUIRED", "List item values of ModelType are required"})},
		{"permissions missing", jsonObj{},
			formError(leaf{"permissions", "BASE_TYPE_REQUIRED", msgRequired})},
		{"permissions not a list", jsonObj{"permissions": jsonObj{}},
			formError(leaf{"permissions", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{"body not an object", []any{},
			formError(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{"malformed JSON", "{", bodyInvalidJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), c.body, 400), 400, c.want)
			wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body, before)
		})
	}
}

func TestPermissionsAuthorization(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	ctx := context.Background()
	cmd := create(t, e, p.guildCmds(), e.Bot(), chat("mod"))
	id := str(cmd, "id")
	global := create(t, e, p.global(), e.Bot(), chat("glob"))
	body := permsBody(entry(e.App.GuildID, 1, false))

	// A guild owned by someone else, where the app is installed.
	stranger := newUser(t, e)
	foreign := newGuild(t, e, stranger, mustID(t, e.App.ApplicationID))
	// A guild of the owner where the app is not installed.
	bare := newGuild(t, e, mustID(t, e.App.OwnerUserID), 0)
	// A guild command in another guild of the owner.
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))
	elsewhere := create(t, e, p.withGuild(g2).guildCmds(), e.Bot(), chat("elsewhere"))

	// A Bearer token of a stranger, for this app, with the right scope.
	strangerTok := "stranger-token-0123456789abcdef"
	if err := e.Store.CreateToken(ctx, store.Token{Hash: auth.Hash(strangerTok), Kind: store.TokenBearer,
		ApplicationID: mustID(t, e.App.ApplicationID), UserID: stranger,
		Scopes: []string{auth.ScopeCommandsPermissionsUpdate}}); err != nil {
		t.Fatal(err)
	}
	// Another app's owner token (has the scope, for its own app).
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	otherCmd := create(t, e, pathsFor("/api/v10", other).global(), "Bot "+other.BotToken, chat("theirs"))
	clientCred := clientCredentials(t, e, e.App, "applications.commands.update identify")
	identify := clientCredentials(t, e, e.App, "identify")

	foreignBody := permsBody(entry(foreign, 1, false)) // @everyone of that guild
	cases := []struct {
		name   string
		path   string
		auth   string
		status int
		want   string
	}{
		{"bot token", p.cmdPerms(id), e.Bot(), 403, bodyBotsCannotUse},
		{"bot token, app-level", p.cmdPerms(e.App.ApplicationID), e.Bot(), 403, bodyBotsCannotUse},
		{"client credentials without the scope", p.cmdPerms(id), clientCred, 401, bodyMissingScope},
		{"identify only", p.cmdPerms(id), identify, 401, bodyMissingScope},
		{"a guild's owner may, even if not the app's owner", p.withGuild(foreign).cmdPerms(str(global, "id")), "Bearer " + strangerTok, 200, ""},
		{"owner in a guild they do not own", p.withGuild(foreign).cmdPerms(str(global, "id")), e.Owner(), 403, bodyMissingPerms},
		{"stranger in the owner's guild", p.cmdPerms(id), "Bearer " + strangerTok, 403, bodyMissingPerms},
		{"another app's owner", p.cmdPerms(id), "Bearer " + other.OwnerBearerToken, 403, bodyNotYourApp},
		{"app not installed", p.withGuild(bare).cmdPerms(str(global, "id")), e.Owner(), 403, bodyMissingAccess},
		{"unknown guild", p.withGuild("1234567890123456789").cmdPerms(str(global, "id")), e.Owner(), 404, bodyUnknownGuild},
		{"unknown command", p.cmdPerms("1234567890123456789"), e.Owner(), 404, bodyUnknownCommand},
		{"command of another guild", p.cmdPerms(str(elsewhere, "id")), e.Owner(), 404, bodyUnknownCommand},
		{"another app's command", p.cmdPerms(str(otherCmd, "id")), e.Owner(), 404, bodyUnknownCommand},
		{"no token", p.cmdPerms(id), "", 401, bodyUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := body
			if strings.Contains(c.path, "/guilds/"+foreign+"/") {
				b = foreignBody
			}
			r := mustDo(t, e, "PUT", c.path, c.auth, b, c.status)
			if c.want != "" {
				wantError(t, r, c.status, c.want)
			}
		})
	}
	// Nothing was written by the refused requests.
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	wantJSON(t, mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200).Body, "[]")
	wantJSON(t, mustDo(t, e, "GET", p.withGuild(foreign).allPerms(), e.Bot(), nil, 200).Body,
		"["+guildPerms(str(global, "id"), e.App.ApplicationID, foreign, entry(foreign, 1, false))+"]")
}

// TestGlobalCommandPermissionsPerGuild: a global command has one list per
// guild.
func TestGlobalCommandPermissionsPerGuild(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	app := e.App.ApplicationID
	g1 := e.App.GuildID
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, app))
	id := str(create(t, e, p.global(), e.Bot(), chat("glob")), "id")

	e1 := []jsonObj{entry(g1, 1, false)}
	e2 := []jsonObj{entry(g2, 1, true), entry(allChannels(t, g2), 3, false)}
	mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(e1...), 200)
	mustDo(t, e, "PUT", p.withGuild(g2).cmdPerms(id), e.Owner(), permsBody(e2...), 200)
	wantJSON(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 200).Body, guildPerms(id, app, g1, e1...))
	wantJSON(t, mustDo(t, e, "GET", p.withGuild(g2).cmdPerms(id), e.Bot(), nil, 200).Body, guildPerms(id, app, g2, e2...))
	wantJSON(t, mustDo(t, e, "GET", p.allPerms(), e.Bot(), nil, 200).Body, "["+guildPerms(id, app, g1, e1...)+"]")
	wantJSON(t, mustDo(t, e, "GET", p.withGuild(g2).allPerms(), e.Bot(), nil, 200).Body, "["+guildPerms(id, app, g2, e2...)+"]")

	// Emptying one guild's list leaves the other.
	mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(), 200)
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 404), 404, bodyUnknownPerms)
	wantJSON(t, mustDo(t, e, "GET", p.withGuild(g2).cmdPerms(id), e.Bot(), nil, 200).Body, guildPerms(id, app, g2, e2...))

	// Renaming the global command drops them in every guild.
	mustDo(t, e, "PUT", p.cmdPerms(id), e.Owner(), permsBody(e1...), 200)
	mustDo(t, e, "PATCH", p.globalCmd(id), e.Bot(), jsonObj{"name": "renamed"}, 200)
	for _, g := range []string{g1, g2} {
		wantError(t, mustDo(t, e, "GET", p.withGuild(g).cmdPerms(id), e.Bot(), nil, 404), 404, bodyUnknownPerms)
		wantJSON(t, mustDo(t, e, "GET", p.withGuild(g).allPerms(), e.Bot(), nil, 200).Body, "[]")
	}
}

// TestBatchPermissionsDisabled: the batch edit endpoint answers 405 for
// every caller that gets through authentication.
func TestBatchPermissionsDisabled(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	id := str(create(t, e, p.guildCmds(), e.Bot(), chat("mod")), "id")
	batch := []jsonObj{{"id": id, "permissions": []jsonObj{entry(e.App.GuildID, 1, false)}}}
	for _, prefix := range []string{"/api/v10", "/api/v9", "/api"} {
		for _, a := range []string{e.Bot(), e.Owner()} {
			r := mustDo(t, e, "PUT", pathsFor(prefix, e.App).allPerms(), a, batch, 405)
			wantError(t, r, 405, bodyMethod)
		}
	}
	wantError(t, mustDo(t, e, "GET", p.cmdPerms(id), e.Bot(), nil, 404), 404, bodyUnknownPerms)
}

// newRole creates a role in a guild through the store and returns its id.
func newRole(t testing.TB, e *testenv.Env, guildID string, position int) string {
	t.Helper()
	id := e.IDs.Next()
	if err := e.Store.CreateRole(context.Background(), guild.Role{ID: id, GuildID: mustID(t, guildID), Name: "role",
		Position: position}); err != nil {
		t.Fatal(err)
	}
	return id.String()
}

// newChannel creates a text channel in a guild through the store.
func newChannel(t testing.TB, e *testenv.Env, guildID string) string {
	t.Helper()
	id := e.IDs.Next()
	if err := e.Store.CreateChannel(context.Background(), guild.Channel{ID: id, GuildID: mustID(t, guildID), Name: "general"}); err != nil {
		t.Fatal(err)
	}
	return id.String()
}

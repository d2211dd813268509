package api_test

// DM and group DM channels through HTTP: POST/GET /users/@me/channels,
// GET /channels/{id}, messages in private channels, and the admin API's
// group DMs and users' channels (docs/compat.md, "DM channels").

import (
	"context"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// dmWorld is the perm2 world (its guild has the app's bot) with alice and
// bob, members with client tokens, carol, a user in no guild of the bot,
// and a second app whose bot shares the guild.
type dmWorld struct {
	*world
	alice, bob, carol          string
	aliceTok, bobTok, carolTok string
	channel                    string // a text channel of the guild
	otherBot                   string // another app's bot user, in the guild
	otherBotTok                string // its Authorization
}

func newDMWorld(t *testing.T, e *testenv.Env) *dmWorld {
	t.Helper()
	w := &dmWorld{world: newWorld(t, e)}
	w.alice, w.bob = w.memberNamed("alice"), w.memberNamed("bob")
	w.carol = w.user("carol")
	w.aliceTok, w.bobTok, w.carolTok = w.client(w.alice), w.client(w.bob), w.client(w.carol)
	w.channel = w.world.channel(jsonObj{"name": "general", "type": 0})
	other := adminObj(t, e, "POST", "/applications", jsonObj{"name": "other app"}, 201)
	w.otherBot, w.otherBotTok = str(other, "application_id"), "Bot "+str(other, "bot_token")
	w.install(w.otherBot)
	return w
}

// accountJSON is a user's object (identity_test.go's userJSON).
func accountJSON(t *testing.T, e *testenv.Env, id string) jsonObj {
	t.Helper()
	u, err := e.Store.User(context.Background(), mustID(t, id))
	if err != nil {
		t.Fatal(err)
	}
	var global any
	if u.GlobalName != "" {
		global = u.GlobalName
	}
	return userJSON(id, u.Username, global, u.Bot)
}

// dmJSON is the DM object: recipients the other user, last_message_id
// the newest message ("" none).
func dmJSON(t *testing.T, e *testenv.Env, id, last string, recipients ...string) string {
	t.Helper()
	return mustMarshalString(dmObject(t, e, id, last, recipients...))
}

func dmObject(t *testing.T, e *testenv.Env, id, last string, recipients ...string) jsonObj {
	t.Helper()
	users := make([]jsonObj, len(recipients))
	for i, r := range recipients {
		users[i] = accountJSON(t, e, r)
	}
	var lastID any
	if last != "" {
		lastID = last
	}
	return jsonObj{"id": id, "type": 1, "last_message_id": lastID, "flags": 0, "recipients": users}
}

// groupJSON is the group DM object.
func groupJSON(t *testing.T, e *testenv.Env, id, last, name, owner string, recipients ...string) string {
	t.Helper()
	o := dmObject(t, e, id, last, recipients...)
	o["type"] = 3
	o["name"], o["icon"], o["owner_id"] = nil, nil, owner
	if name != "" {
		o["name"] = name
	}
	return mustMarshalString(o)
}

const (
	bodyInvalidRecipients = `{"message": "Invalid Recipient(s)", "code": 50033}`
	bodyCannotDM          = `{"message": "Cannot send messages to this user", "code": 50007}`
	bodyNoMutualGuilds    = `{"message": "Cannot send messages to this user", "code": 50278}`
)

var bodyRecipientRequired = formError(leaf{"", "CHANNEL_RECIPIENT_REQUIRED", "At least one channel recipient is required."})

func TestCreateDM(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	bot, app := e.Bot(), w.app
	const path = "/api/v10/users/@me/channels"

	// The bot opens a DM with alice: 200, her as the recipient.
	r := mustDo(t, e, "POST", path, bot, jsonObj{"recipient_id": w.alice}, 200)
	dm := str(decodeObj(t, r), "id")
	wantJSON(t, r.Body, dmJSON(t, e, dm, "", w.alice))

	cases := []struct {
		name   string
		auth   string
		body   any
		status int
		want   string // the whole body
	}{
		{"the bot again: the same DM", bot, jsonObj{"recipient_id": w.alice}, 200, dmJSON(t, e, dm, "", w.alice)},
		{"the id as a number", bot, `{"recipient_id": ` + w.alice + `}`, 200, dmJSON(t, e, dm, "", w.alice)},
		{"alice opens it: the same DM, the bot as recipient", w.aliceTok, jsonObj{"recipient_id": app}, 200,
			dmJSON(t, e, dm, "", app)},
		{"extra fields are ignored", bot, jsonObj{"recipient_id": w.alice, "nicks": jsonObj{}}, 200,
			dmJSON(t, e, dm, "", w.alice)},
		{"no recipient", bot, jsonObj{}, 400, bodyRecipientRequired},
		{"null recipient", bot, jsonObj{"recipient_id": nil}, 400, bodyRecipientRequired},
		{"group DM fields only", bot, jsonObj{"access_tokens": []string{"x"}}, 400, bodyRecipientRequired},
		{"not a snowflake", bot, jsonObj{"recipient_id": "abc"}, 400,
			formError(leaf{"recipient_id", "NUMBER_TYPE_COERCE", notSnowflake("abc")})},
		{"a list", bot, jsonObj{"recipient_id": []string{w.alice}}, 400,
			formError(leaf{"recipient_id", "NUMBER_TYPE_COERCE", `Value "[...]" is not snowflake.`})},
		{"an unknown user", bot, jsonObj{"recipient_id": "1234567890123456789"}, 400, bodyInvalidRecipients},
		{"the bot itself", bot, jsonObj{"recipient_id": app}, 400, bodyCannotDM},
		{"another bot", bot, jsonObj{"recipient_id": w.otherBot}, 400, bodyCannotDM},
		{"alice herself", w.aliceTok, jsonObj{"recipient_id": w.alice}, 400, bodyCannotDM},
		{"a body that is no object", bot, `[]`, 400, formError(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{"invalid JSON", bot, `{`, 400, bodyInvalidJSON},
		{"no token", "", jsonObj{"recipient_id": w.alice}, 401, bodyUnauthorized},
		{"a Bearer token", e.Owner(), jsonObj{"recipient_id": w.alice}, 401, bodyUnauthorized},
		{"an unknown client token", "nope", jsonObj{"recipient_id": w.alice}, 401, bodyUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustDo(t, e, "POST", path, c.auth, c.body, c.status)
			wantJSON(t, r.Body, c.want)
		})
	}

	// A bot may open a DM with a user it shares no guild with (posting
	// there is what fails); people open DMs with each other.
	for _, c := range []struct{ auth, to, recipient string }{
		{bot, w.carol, w.carol},
		{w.aliceTok, w.bob, w.bob},
		{w.bobTok, w.alice, w.alice},
		{w.carolTok, app, app},
	} {
		r := mustDo(t, e, "POST", "/api/v9/users/@me/channels", c.auth, jsonObj{"recipient_id": c.to}, 200)
		o := decodeObj(t, r)
		if o["type"] != 1.0 || len(o["recipients"].([]any)) != 1 || str(o["recipients"].([]any)[0].(jsonObj), "id") != c.recipient {
			t.Errorf("DM with %s: %s", c.to, r.Body)
		}
	}
	// alice and bob's DM is one channel whoever opens it.
	ab := str(decodeObj(t, mustDo(t, e, "POST", path, w.aliceTok, jsonObj{"recipient_id": w.bob}, 200)), "id")
	ba := str(decodeObj(t, mustDo(t, e, "POST", path, w.bobTok, jsonObj{"recipient_id": w.alice}, 200)), "id")
	if ab != ba || ab == dm {
		t.Errorf("alice→bob %s, bob→alice %s, bot→alice %s", ab, ba, dm)
	}
}

func TestListPrivateChannels(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	const path = "/api/v10/users/@me/channels"
	mustDo(t, e, "GET", path, w.aliceTok, nil, 200)
	wantJSON(t, mustDo(t, e, "GET", path, w.aliceTok, nil, 200).Body, `[]`)

	withBot := str(decodeObj(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"recipient_id": w.alice}, 200)), "id")
	withBob := str(decodeObj(t, mustDo(t, e, "POST", path, w.aliceTok, jsonObj{"recipient_id": w.bob}, 200)), "id")
	group := str(adminObj(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.bob, "recipient_ids": []string{w.alice, w.carol},
		"name": "plans"}, 201), "id")

	cases := []struct {
		name   string
		auth   string
		status int
		want   string
	}{
		{"alice: hers, by id, as she sees them", w.aliceTok, 200, "[" + dmJSON(t, e, withBot, "", w.app) + "," +
			dmJSON(t, e, withBob, "", w.bob) + "," + groupJSON(t, e, group, "", "plans", w.bob, w.bob, w.carol) + "]"},
		{"carol: the group DM", w.carolTok, 200, "[" + groupJSON(t, e, group, "", "plans", w.bob, w.alice, w.bob) + "]"},
		{"a bot: none, as from the real service", e.Bot(), 200, `[]`},
		{"no token", "", 401, bodyUnauthorized},
		{"a Bearer token", e.Owner(), 401, bodyUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantJSON(t, mustDo(t, e, "GET", path, c.auth, nil, c.status).Body, c.want)
		})
	}
}

func TestGetChannel(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	dm := str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/users/@me/channels", e.Bot(), jsonObj{"recipient_id": w.alice}, 200)), "id")
	group := str(adminObj(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.bob}}, 201), "id")
	hidden := w.world.channel(jsonObj{"name": "hidden", "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "deny": "1024"}}})
	said := str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.aliceTok,
		jsonObj{"content": "hi"}, 200)), "id")
	guildChannel := mustMarshalString(jsonObj{"id": w.channel, "type": 0, "guild_id": w.guild, "name": "general",
		"position": 0, "parent_id": nil, "nsfw": false, "topic": nil, "last_message_id": said, "rate_limit_per_user": 0,
		"flags": 0, "permission_overwrites": []any{}})

	cases := []struct {
		name    string
		auth    string
		channel string
		status  int
		want    string
	}{
		{"the bot's DM, as the bot", e.Bot(), dm, 200, dmJSON(t, e, dm, "", w.alice)},
		{"the bot's DM, as alice", w.aliceTok, dm, 200, dmJSON(t, e, dm, "", w.app)},
		{"a group DM, as bob", w.bobTok, group, 200, groupJSON(t, e, group, "", "", w.alice, w.alice)},
		{"a guild channel, as alice", w.aliceTok, w.channel, 200, guildChannel},
		{"a guild channel, as the bot", e.Bot(), w.channel, 200, guildChannel},
		{"someone else's DM", w.bobTok, dm, 403, bodyMissingAccess},
		{"a group DM, as the bot", e.Bot(), group, 403, bodyMissingAccess},
		{"a guild channel, as a non-member", w.carolTok, w.channel, 403, bodyMissingAccess},
		{"a channel alice cannot see", w.aliceTok, hidden, 403, bodyMissingAccess},
		{"no channel", w.aliceTok, "1234567890123456789", 404, bodyUnknownChannel},
		{"not a snowflake", w.aliceTok, "abc", 400, formError(leaf{"channel_id", "NUMBER_TYPE_COERCE", notSnowflake("abc")})},
		{"no token", "", dm, 401, bodyUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantJSON(t, mustDo(t, e, "GET", "/api/v10/channels/"+c.channel, c.auth, nil, c.status).Body, c.want)
		})
	}
}

// Messages in DMs and group DMs: who may read and post, and what the
// message objects carry.
func TestPrivateChannelMessages(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	open := func(auth, to string) string {
		t.Helper()
		return str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/users/@me/channels", auth, jsonObj{"recipient_id": to}, 200)), "id")
	}
	withAlice, withCarol, aliceBob := open(e.Bot(), w.alice), open(e.Bot(), w.carol), open(w.aliceTok, w.bob)
	group := str(adminObj(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.bob}}, 201), "id")
	msgs := func(ch string) string { return "/api/v10/channels/" + ch + "/messages" }

	// The bot writes to alice: a message without guild_id or member.
	r := mustDo(t, e, "POST", msgs(withAlice), e.Bot(), jsonObj{"content": "hello alice"}, 200)
	m := decodeObj(t, r)
	if m["channel_id"] != withAlice || m["content"] != "hello alice" || str(m["author"].(jsonObj), "id") != w.app {
		t.Errorf("the bot's message: %s", r.Body)
	}
	for _, k := range []string{"guild_id", "member"} {
		if _, ok := m[k]; ok {
			t.Errorf("a DM message has %s: %s", k, r.Body)
		}
	}
	first := str(m, "id")
	reply := str(decodeObj(t, mustDo(t, e, "POST", msgs(withAlice), w.aliceTok, jsonObj{"content": "hi bot"}, 200)), "id")

	cases := []struct {
		name, method, auth, channel string
		status                      int
		want                        string // the body ("" not checked)
	}{
		{"alice reads her DM with the bot", "GET", w.aliceTok, withAlice, 200, ""},
		{"the bot reads it", "GET", e.Bot(), withAlice, 200, ""},
		{"bob may not read it", "GET", w.bobTok, withAlice, 403, bodyMissingAccess},
		{"bob may not post there", "POST", w.bobTok, withAlice, 403, bodyMissingAccess},
		{"another bot may not read it", "GET", w.otherBotTok, withAlice, 403, bodyMissingAccess},
		{"the bot may not post to carol: no guild in common", "POST", e.Bot(), withCarol, 403, bodyNoMutualGuilds},
		{"nor carol to the bot", "POST", w.carolTok, withCarol, 403, bodyNoMutualGuilds},
		{"carol reads it all the same", "GET", w.carolTok, withCarol, 200, `[]`},
		{"alice writes to bob", "POST", w.aliceTok, aliceBob, 200, ""},
		{"bob writes in the group DM", "POST", w.bobTok, group, 200, ""},
		{"alice reads the group DM", "GET", w.aliceTok, group, 200, ""},
		{"the bot may not read the group DM", "GET", e.Bot(), group, 403, bodyMissingAccess},
		{"nor post there", "POST", e.Bot(), group, 403, bodyMissingAccess},
		{"carol may not read the group DM", "GET", w.carolTok, group, 403, bodyMissingAccess},
		{"no such channel", "POST", w.aliceTok, "1234567890123456789", 404, bodyUnknownChannel},
		{"an empty message", "POST", w.aliceTok, withAlice, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.method == "POST" {
				body = jsonObj{"content": "x"}
				if strings.HasPrefix(c.name, "an empty") {
					body = jsonObj{"content": ""}
				}
			}
			r := mustDo(t, e, c.method, msgs(c.channel), c.auth, body, c.status)
			if c.want != "" {
				wantJSON(t, r.Body, c.want)
			}
		})
	}

	// Both sides of the DM see both messages, newest first.
	for _, auth := range []string{w.aliceTok, e.Bot()} {
		got := decodeList(t, mustDo(t, e, "GET", msgs(withAlice), auth, nil, 200))
		if ids := ids(got, "id"); len(ids) != 2 || ids[0] != reply || ids[1] != first {
			t.Errorf("the DM's messages: %v, want [%s %s]", ids, reply, first)
		}
	}
	// The channel's last_message_id follows.
	wantJSON(t, mustDo(t, e, "GET", "/api/v10/channels/"+withAlice, e.Bot(), nil, 200).Body, dmJSON(t, e, withAlice, reply, w.alice))

	// Once carol joins the bot's guild, they can write to each other.
	w.member(w.carol)
	mustDo(t, e, "POST", msgs(withCarol), e.Bot(), jsonObj{"content": "welcome"}, 200)
	mustDo(t, e, "POST", msgs(withCarol), w.carolTok, jsonObj{"content": "thanks"}, 200)
}

// A new DM or group DM dispatches nothing: the real gateway sends bots
// no CHANNEL_CREATE for DMs (API v8 change log), and bots are never in
// group DMs.
func TestPrivateChannelsDispatchNothing(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	events := e.Events.Subscribe(t.Context(), 16)
	mustDo(t, e, "POST", "/api/v10/users/@me/channels", e.Bot(), jsonObj{"recipient_id": w.alice}, 200)
	mustDo(t, e, "POST", "/api/v10/users/@me/channels", w.aliceTok, jsonObj{"recipient_id": w.bob}, 200)
	adminDo(t, e, "POST", "/users/"+w.bob+"/channels", jsonObj{"recipient_id": w.carol}, 201)
	adminDo(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.bob}}, 201)
	// The bus delivers to subscribers as it publishes, within the request.
	select {
	case ev := <-events:
		t.Errorf("published %s %+v", ev.Type, ev.Data)
	default:
	}
}

func TestAdminGroupDMs(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDMWorld(t, e)
	users := make([]string, 9)
	for i := range users {
		users[i] = w.user("user" + string(rune('a'+i)))
	}
	solo := w.user("solo")
	const unknown = "1234567890123456789"

	r := adminDo(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.bob, "recipient_ids": []string{w.carol, w.alice, w.carol},
		"name": "plans"}, 201)
	group := str(decodeObj(t, r), "id")
	// The admin's view lists every participant.
	wantJSON(t, r.Body, groupJSON(t, e, group, "", "plans", w.bob, w.alice, w.bob, w.carol))
	wantJSON(t, adminDo(t, e, "GET", "/group-dms/"+group, nil, 200).Body,
		groupJSON(t, e, group, "", "plans", w.bob, w.alice, w.bob, w.carol))
	// Ten participants are the most.
	ten := str(adminObj(t, e, "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": users}, 201), "id")
	dm := str(adminObj(t, e, "POST", "/users/"+w.alice+"/channels", jsonObj{"recipient_id": w.bob}, 201), "id")

	cases := []struct {
		name, method, path string
		body               any
		status             int
		want               string
	}{
		{"no owner", "POST", "/group-dms", jsonObj{"recipient_ids": []string{w.alice}}, 400,
			formError(leaf{"owner_id", "BASE_TYPE_REQUIRED", msgRequired})},
		{"an unknown owner", "POST", "/group-dms", jsonObj{"owner_id": unknown}, 400,
			formError(leaf{"owner_id", "UNKNOWN_USER", "Unknown User"})},
		{"an unknown recipient", "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.bob, unknown}}, 400,
			formError(leaf{"recipient_ids.1", "UNKNOWN_USER", "Unknown User"})},
		{"a bot recipient", "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.app}}, 400,
			formError(leaf{"recipient_ids.0", "USER_BOT_INVALID", "Bot users cannot be in group DMs"})},
		{"a bot owner", "POST", "/group-dms", jsonObj{"owner_id": w.app}, 400,
			formError(leaf{"owner_id", "USER_BOT_INVALID", "Bot users cannot be in group DMs"})},
		{"a bad id", "POST", "/group-dms", jsonObj{"owner_id": "x", "recipient_ids": "y"}, 400,
			formError(leaf{"owner_id", "NUMBER_TYPE_COERCE", notSnowflake("x")},
				leaf{"recipient_ids", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{"a long name", "POST", "/group-dms", jsonObj{"owner_id": w.alice, "name": strings.Repeat("n", 101)}, 400,
			formError(leaf{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 0 and 100 in length."})},
		{"eleven participants", "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": append(users, w.bob)}, 400,
			`{"message": "Maximum number of recipients reached (10)", "code": 30004}`},
		{"a group DM of one, unnamed", "POST", "/group-dms", jsonObj{"owner_id": solo, "name": nil}, 201, ""},
		{"a DM is no group DM", "GET", "/group-dms/" + dm, nil, 404, bodyUnknownChannel},
		{"a guild channel is no group DM", "DELETE", "/group-dms/" + w.channel, nil, 404, bodyUnknownChannel},
		{"no such group DM", "GET", "/group-dms/" + unknown, nil, 404, bodyUnknownChannel},
		{"a bad channel id", "GET", "/group-dms/x", nil, 400, formError(leaf{"channel_id", "NUMBER_TYPE_COERCE", notSnowflake("x")})},
		{"a user's channels", "GET", "/users/" + w.alice + "/channels", nil, 200, "[" +
			groupJSON(t, e, group, "", "plans", w.bob, w.bob, w.carol) + "," +
			groupJSON(t, e, ten, "", "", w.alice, users...) + "," + dmJSON(t, e, dm, "", w.bob) + "]"},
		{"an unknown user's channels", "GET", "/users/" + unknown + "/channels", nil, 404, bodyUnknownUser},
		{"a DM opened again", "POST", "/users/" + w.bob + "/channels", jsonObj{"recipient_id": w.alice}, 200,
			dmJSON(t, e, dm, "", w.alice)},
		{"a DM with an unknown user", "POST", "/users/" + w.bob + "/channels", jsonObj{"recipient_id": unknown}, 400,
			bodyInvalidRecipients},
		{"a DM without recipient", "POST", "/users/" + w.bob + "/channels", jsonObj{}, 400, bodyRecipientRequired},
		{"a DM for an unknown user", "POST", "/users/" + unknown + "/channels", jsonObj{"recipient_id": w.bob}, 404,
			bodyUnknownUser},
		{"a bot's DM with itself", "POST", "/users/" + w.app + "/channels", jsonObj{"recipient_id": w.app}, 400, bodyCannotDM},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := adminDo(t, e, c.method, c.path, c.body, c.status)
			if c.want != "" {
				wantJSON(t, r.Body, c.want)
			}
		})
	}

	// Deleting a group DM deletes its messages; its members no longer
	// list it.
	mustDo(t, e, "POST", "/api/v10/channels/"+group+"/messages", w.carolTok, jsonObj{"content": "bye"}, 200)
	adminDo(t, e, "DELETE", "/group-dms/"+group, nil, 204)
	adminDo(t, e, "GET", "/group-dms/"+group, nil, 404)
	adminDo(t, e, "DELETE", "/group-dms/"+group, nil, 404)
	mustDo(t, e, "GET", "/api/v10/channels/"+group+"/messages", w.carolTok, nil, 404)
	wantJSON(t, mustDo(t, e, "GET", "/api/v10/users/@me/channels", w.carolTok, nil, 200).Body, `[]`)

	// Deleting a user deletes their DMs and takes them out of group DMs,
	// which pass to the next participant when the owner goes.
	adminDo(t, e, "DELETE", "/users/"+w.alice, nil, 204)
	adminDo(t, e, "GET", "/group-dms/"+ten, nil, 200)
	wantJSON(t, adminDo(t, e, "GET", "/group-dms/"+ten, nil, 200).Body, groupJSON(t, e, ten, "", "", users[0], users...))
	wantJSON(t, adminDo(t, e, "GET", "/users/"+w.bob+"/channels", nil, 200).Body, `[]`)
}

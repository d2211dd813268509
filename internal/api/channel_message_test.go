package api_test

// GET, PATCH and DELETE /channels/{c}/messages/{m}: one message of a
// channel, as a bot reads, edits and deletes it (discord.py's
// channel.fetch_message, message.edit, message.delete), with the real
// service's checks and errors, on every API prefix, each change on the
// event bus.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

var (
	bodyEditOthers = apiError(50005, "Cannot edit a message authored by another user")
	bodyDMAction   = apiError(50003, "Cannot execute action on a DM channel")
)

// rows is n action rows of one button each.
func rows(n int) []jsonObj {
	out := make([]jsonObj, n)
	for i := range out {
		out[i] = jsonObj{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "b", "custom_id": "b" + string(rune('a'+i))}}}
	}
	return out
}

// messageEventOf waits for a message event of type typ about message id
// on the bus (events subscribed before the change).
func messageEventOf(t *testing.T, events <-chan event.Event, typ, id string) event.Message {
	t.Helper()
	deadline := time.After(testenv.WaitTimeout)
	for {
		select {
		case ev := <-events:
			if ev.Type != typ {
				continue
			}
			var m event.Message
			if err := event.DecodeData(ev.Data, &m); err != nil {
				t.Fatal(err)
			}
			if m.ID.String() == id {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s of message %s", typ, id)
		}
	}
}

func TestChannelMessage(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e.API.Events().Subscribe(ctx, 256)
	bot := e.Bot()
	msgs := "/api/v10/channels/" + w.channel + "/messages"
	posted := mustDo(t, e, "POST", msgs, bot, jsonObj{"content": "from the bot",
		"embeds": []jsonObj{{"description": "an embed"}}}, 200)
	mine := decodeObj(t, posted)
	bobs := decodeObj(t, mustDo(t, e, "POST", msgs, w.bobTok, jsonObj{"content": "from bob"}, 200))
	other := w.world.channel(jsonObj{"name": "other", "type": 0})
	elsewhere := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+other+"/messages", w.bobTok, jsonObj{"content": "elsewhere"}, 200))
	_, ephemeral := w.answered(t, "only alice sees this", flagEphemeral)
	_, public := w.answered(t, "everyone sees this", 0)

	// Reading: the message as stored, on every prefix, anyone's.
	for _, prefix := range []string{"/api/v10", "/api/v9", "/api"} {
		got := mustDo(t, e, "GET", prefix+"/channels/"+w.channel+"/messages/"+str(mine, "id"), bot, nil, 200)
		if canon(t, got.Body) != canon(t, posted.Body) {
			t.Fatalf("%s: %s, want %s", prefix, got.Body, posted.Body)
		}
	}
	if got := decodeObj(t, mustDo(t, e, "GET", msgs+"/"+str(bobs, "id"), bot, nil, 200)); got["content"] != "from bob" {
		t.Fatalf("bob's message: %v", got)
	}

	// What a bot cannot reach, and the errors it gets.
	hidden := w.world.channel(jsonObj{"name": "hidden", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "1024"}}})
	noHistory := w.world.channel(jsonObj{"name": "no history", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "65536"}}})
	for _, c := range []struct {
		name, method, path, auth string
		body                     any
		status                   int
		want                     string
	}{
		{"unknown message", "GET", msgs + "/1234567", bot, nil, 404, bodyUnknownMessage},
		{"a message of another channel", "GET", msgs + "/" + str(elsewhere, "id"), bot, nil, 404, bodyUnknownMessage},
		{"an ephemeral message", "GET", msgs + "/" + str(ephemeral, "id"), bot, nil, 404, bodyUnknownMessage},
		{"an ephemeral message, by its user", "GET", msgs + "/" + str(ephemeral, "id"), w.aliceTok, nil, 404, bodyUnknownMessage},
		{"edit an ephemeral message", "PATCH", msgs + "/" + str(ephemeral, "id"), bot, jsonObj{"content": "x"}, 404, bodyUnknownMessage},
		{"delete an ephemeral message", "DELETE", msgs + "/" + str(ephemeral, "id"), bot, nil, 404, bodyUnknownMessage},
		{"unknown channel", "GET", "/api/v10/channels/1234567/messages/" + str(mine, "id"), bot, nil, 404, bodyUnknownChannel},
		{"delete in an unknown channel", "DELETE", "/api/v10/channels/1234567/messages/" + str(mine, "id"), bot, nil, 404, bodyUnknownChannel},
		{"no snowflake", "GET", msgs + "/nope", bot, nil, 400, formError(leaf{"message_id", "NUMBER_TYPE_COERCE", notSnowflake("nope")})},
		{"a channel the bot cannot see", "GET", "/api/v10/channels/" + hidden + "/messages/" + str(mine, "id"), bot, nil, 403, bodyMissingAccess},
		{"edit where the bot cannot see", "PATCH", "/api/v10/channels/" + hidden + "/messages/" + str(mine, "id"), bot, jsonObj{"content": "x"}, 403, bodyMissingAccess},
		{"delete where the bot cannot see", "DELETE", "/api/v10/channels/" + hidden + "/messages/" + str(mine, "id"), bot, nil, 403, bodyMissingAccess},
		{"without READ_MESSAGE_HISTORY", "GET", "/api/v10/channels/" + noHistory + "/messages/" + str(mine, "id"), bot, nil, 403, bodyMissingAccess},
		{"no token", "GET", msgs + "/" + str(mine, "id"), "", nil, 401, bodyUnauthorized},
		{"edit another's content", "PATCH", msgs + "/" + str(bobs, "id"), bot, jsonObj{"content": "mine now"}, 403, bodyEditOthers},
		{"edit another's embeds and flags", "PATCH", msgs + "/" + str(bobs, "id"), bot, jsonObj{"flags": 4, "embeds": []jsonObj{}}, 403, bodyEditOthers},
		{"suppress another's embeds without MANAGE_MESSAGES", "PATCH", msgs + "/" + str(bobs, "id"), bot, jsonObj{"flags": 4}, 403, bodyMissingPerms},
		{"delete another's without MANAGE_MESSAGES", "DELETE", msgs + "/" + str(bobs, "id"), bot, nil, 403, bodyMissingPerms},
		{"content too long", "PATCH", msgs + "/" + str(mine, "id"), bot, jsonObj{"content": strings.Repeat("x", 2001)}, 400,
			fe("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")},
		{"too many embeds", "PATCH", msgs + "/" + str(mine, "id"), bot, jsonObj{"embeds": make([]jsonObj, 11)}, 400, ""},
		{"six rows without IS_COMPONENTS_V2", "PATCH", msgs + "/" + str(mine, "id"), bot, jsonObj{"components": rows(6)}, 400,
			fe("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")},
		{"components no array", "PATCH", msgs + "/" + str(mine, "id"), bot, jsonObj{"components": "x"}, 400, ""},
		{"unknown flags", "PATCH", msgs + "/" + str(mine, "id"), bot, jsonObj{"flags": 1 << 1}, 400,
			fe("flags", "INTERACTION_RESPONSE_FLAGS_INVALID", "Invalid message flags")},
		{"emptied", "PATCH", msgs + "/" + str(bobs, "id"), w.bobTok, jsonObj{"content": ""}, 400, bodyEmptyMessage},
		{"not JSON", "PATCH", msgs + "/" + str(mine, "id"), bot, "[", 400, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustDo(t, e, c.method, c.path, c.auth, c.body, -1)
			if c.want == "" {
				wantStatus(t, r, c.status)
				if code := decodeObj(t, r)["code"]; code != 50035.0 && code != 50109.0 {
					t.Fatalf("%s", describe(r))
				}
				return
			}
			wantError(t, r, c.status, c.want)
		})
	}
	if got := decodeObj(t, mustDo(t, e, "GET", msgs+"/"+str(bobs, "id"), bot, nil, 200)); got["content"] != "from bob" {
		t.Fatalf("bob's message after the refusals: %v", got)
	}

	// Editing its own message: only the keys sent change; the flags the
	// author may change are SUPPRESS_EMBEDS (both ways) and
	// IS_COMPONENTS_V2 (only on); others are ignored.
	path := msgs + "/" + str(mine, "id")
	edited := decodeObj(t, mustDo(t, e, "PATCH", path, bot, jsonObj{"content": "edited by the bot"}, 200))
	if edited["content"] != "edited by the bot" || edited["edited_timestamp"] == nil || len(edited["embeds"].([]any)) != 1 ||
		str(edited, "id") != str(mine, "id") || edited["author"].(jsonObj)["id"] != w.app {
		t.Fatalf("edited: %v", edited)
	}
	if m := messageEventOf(t, events, event.MessageUpdate, str(mine, "id")); !strings.Contains(string(m.Body), "edited by the bot") {
		t.Fatalf("MESSAGE_UPDATE: %s", m.Body)
	}
	if got := decodeObj(t, mustDo(t, e, "GET", path, bot, nil, 200)); got["content"] != "edited by the bot" {
		t.Fatalf("read back: %v", got)
	}
	for _, c := range []struct {
		send, want int
	}{{4, 4}, {4 | 64 | 4096, 4}, {0, 0}} {
		if got := decodeObj(t, mustDo(t, e, "PATCH", path, bot, jsonObj{"flags": c.send}, 200)); flagsOf(got) != c.want {
			t.Fatalf("flags %d: %v, want %d", c.send, got["flags"], c.want)
		}
	}
	// With IS_COMPONENTS_V2 set (for good) 40 top-level components fit.
	v2 := decodeObj(t, mustDo(t, e, "PATCH", path, bot, jsonObj{"flags": 1 << 15, "content": nil, "embeds": []jsonObj{},
		"components": []jsonObj{{"type": 10, "content": "v2"}}}, 200))
	if flagsOf(v2) != 1<<15 {
		t.Fatalf("components v2: %v", v2)
	}
	if got := decodeObj(t, mustDo(t, e, "PATCH", path, bot, jsonObj{"components": rows(6)}, 200)); flagsOf(got) != 1<<15 ||
		len(got["components"].([]any)) != 6 {
		t.Fatalf("six rows on a components v2 message: %v", got)
	}
	// The bot's (public) interaction answer is its message too.
	if got := decodeObj(t, mustDo(t, e, "PATCH", msgs+"/"+str(public, "id"), bot, jsonObj{"content": "answer, edited"}, 200)); got["content"] != "answer, edited" ||
		got["interaction_metadata"] == nil {
		t.Fatalf("the answer, edited: %v", got)
	}
	// A user's client edits their own message.
	if got := decodeObj(t, mustDo(t, e, "PATCH", msgs+"/"+str(bobs, "id"), w.bobTok, jsonObj{"content": "bob again"}, 200)); got["content"] != "bob again" {
		t.Fatalf("bob's edit: %v", got)
	}

	// With MANAGE_MESSAGES the bot suppresses another's embeds (and only
	// that) and deletes another's message.
	mods := w.role("mods", "8192", 1)
	w.member(w.app, mods)
	if got := decodeObj(t, mustDo(t, e, "PATCH", msgs+"/"+str(bobs, "id"), bot, jsonObj{"flags": 4 | 32768}, 200)); flagsOf(got) != 4 || got["content"] != "bob again" {
		t.Fatalf("bob's message, suppressed: %v", got)
	}
	wantError(t, mustDo(t, e, "PATCH", msgs+"/"+str(bobs, "id"), bot, jsonObj{"content": "x"}, -1), 403, bodyEditOthers)
	mustDo(t, e, "DELETE", msgs+"/"+str(bobs, "id"), bot, nil, 204)
	if m := messageEventOf(t, events, event.MessageDelete, str(bobs, "id")); m.ChannelID.String() != w.channel || len(m.Body) != 0 {
		t.Fatalf("MESSAGE_DELETE: %+v", m)
	}
	wantError(t, mustDo(t, e, "GET", msgs+"/"+str(bobs, "id"), bot, nil, -1), 404, bodyUnknownMessage)

	// Its own, on /api; a second time it is gone.
	mustDo(t, e, "DELETE", "/api/channels/"+w.channel+"/messages/"+str(mine, "id"), bot, nil, 204)
	messageEventOf(t, events, event.MessageDelete, str(mine, "id"))
	wantError(t, mustDo(t, e, "DELETE", path, bot, nil, -1), 404, bodyUnknownMessage)
	if got := w.messageIDs(t, w.bobTok); strings.Contains(strings.Join(got, ","), str(mine, "id")) {
		t.Fatalf("the deleted message is still listed: %v", got)
	}
}

// In a DM the bot reads its recipient's messages and edits and deletes
// its own; another's it can neither edit (50005) nor delete (50003).
func TestChannelMessageInDM(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	dm := str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/users/@me/channels", e.Bot(), jsonObj{"recipient_id": w.alice}, 200)), "id")
	msgs := "/api/v10/channels/" + dm + "/messages/"
	hers := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+dm+"/messages", w.aliceTok, jsonObj{"content": "hi bot"}, 200))
	mine := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+dm+"/messages", e.Bot(), jsonObj{"content": "hi alice"}, 200))

	if got := decodeObj(t, mustDo(t, e, "GET", msgs+str(hers, "id"), e.Bot(), nil, 200)); got["content"] != "hi bot" {
		t.Fatalf("her message: %v", got)
	}
	wantError(t, mustDo(t, e, "PATCH", msgs+str(hers, "id"), e.Bot(), jsonObj{"content": "x"}, -1), 403, bodyEditOthers)
	wantError(t, mustDo(t, e, "PATCH", msgs+str(hers, "id"), e.Bot(), jsonObj{"flags": 4}, -1), 403, bodyMissingPerms)
	wantError(t, mustDo(t, e, "DELETE", msgs+str(hers, "id"), e.Bot(), nil, -1), 403, bodyDMAction)
	wantError(t, mustDo(t, e, "GET", msgs+str(hers, "id"), w.bobTok, nil, -1), 403, bodyMissingAccess)
	if got := decodeObj(t, mustDo(t, e, "PATCH", msgs+str(mine, "id"), e.Bot(), jsonObj{"content": "bye alice"}, 200)); got["content"] != "bye alice" {
		t.Fatalf("the bot's edit: %v", got)
	}
	mustDo(t, e, "DELETE", msgs+str(mine, "id"), e.Bot(), nil, 204)
	mustDo(t, e, "DELETE", msgs+str(hers, "id"), w.aliceTok, nil, 204)
}

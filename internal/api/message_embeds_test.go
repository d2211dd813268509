package api_test

// Embeds, allowed_mentions and polls are checked wherever a message is
// written (internal/msgcheck): each route refuses a body that breaks one
// of their rules with 400 50035 naming the field, and takes the same body
// made valid.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// embedTitle is an embed whose title has n characters.
func embedTitle(n int) []jsonObj { return []jsonObj{{"title": strings.Repeat("t", n)}} }

// pollOf is a poll request with answers answers and the given duration.
func pollOf(answers, hours int) jsonObj {
	list := make([]jsonObj, answers)
	for i := range list {
		list[i] = jsonObj{"poll_media": jsonObj{"text": fmt.Sprint("answer ", i)}}
	}
	return jsonObj{"question": jsonObj{"text": "Which?"}, "answers": list, "duration": hours}
}

var (
	titleTooLong = fe("embeds.0.title", "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length.")
	parseAndList = fe("allowed_mentions", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
		`parse:["users"] and users: [ids...] are mutually exclusive.`)
	embedsTooBig = fe("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
)

func TestMessageEmbedsMentionsPollsChecked(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)

	t.Run("callback type 4", func(t *testing.T) {
		p := w.start(t, w.invocation(2))
		wantError(t, w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"embeds": embedTitle(257)}}, -1), 400,
			fe("data.embeds.0.title", "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length."))
		w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"embeds": embedTitle(256), "poll": pollOf(2, 1)}}, 204)
		wantStatus(t, p.wait(t), 200)
	})

	p, original := w.answered(t, "first", 0)
	var followup jsonObj
	t.Run("follow-up", func(t *testing.T) {
		bad := jsonObj{"content": "<@1234>", "allowed_mentions": jsonObj{"parse": []string{"users"}, "users": []string{"1234"}}}
		wantError(t, mustDo(t, e, "POST", w.hook(p), "", bad, -1), 400, parseAndList)
		good := jsonObj{"content": "<@1234>", "allowed_mentions": jsonObj{"parse": []string{}, "users": []string{"1234"}}}
		followup = decodeObj(t, mustDo(t, e, "POST", w.hook(p), "", good, 200))
	})
	t.Run("edit of @original", func(t *testing.T) {
		big := []jsonObj{{"description": strings.Repeat("d", 4096)}, {"description": strings.Repeat("d", 1905)}}
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"embeds": big}, -1), 400, embedsTooBig)
		big[1]["description"] = strings.Repeat("d", 1904)
		edited := decodeObj(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"embeds": big}, 200))
		if str(edited, "id") != str(original, "id") {
			t.Fatalf("edited %s, answered %s", str(edited, "id"), str(original, "id"))
		}
	})
	t.Run("edit of a follow-up", func(t *testing.T) {
		path := w.hook(p) + "/messages/" + str(followup, "id")
		wantError(t, mustDo(t, e, "PATCH", path, "", jsonObj{"embeds": []jsonObj{{"url": "ftp://example.com/a"}}}, -1), 400,
			fe("embeds.0.url", "URL_TYPE_INVALID_SCHEME", `Scheme "ftp" is not supported. Scheme must be one of ('http', 'https').`))
		mustDo(t, e, "PATCH", path, "", jsonObj{"embeds": []jsonObj{{"url": "https://example.com/a", "title": "a"}}}, 200)
	})

	t.Run("UPDATE_MESSAGE", func(t *testing.T) {
		withButton := w.start(t, w.invocation(2))
		row := []jsonObj{{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Go", "custom_id": "o"}}}}
		w.callback(t, withButton, "", jsonObj{"type": 4, "data": jsonObj{"content": "x", "components": row}}, 204)
		r := withButton.wait(t)
		wantStatus(t, r, 200)
		_, _, msg := answerParts(t, r)
		click := w.start(t, jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"message_id": str(msg, "id"), "data": jsonObj{"custom_id": "o", "component_type": 2}})
		empty := []jsonObj{{"fields": []jsonObj{{"name": "a", "value": ""}}}}
		wantError(t, w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"embeds": empty}}, -1), 400,
			fe("data.embeds.0.fields.0.value", "BASE_TYPE_REQUIRED", "This field is required"))
		w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"embeds": []jsonObj{{"fields": []jsonObj{{"name": "a", "value": "b"}}}}}}, 204)
		wantStatus(t, click.wait(t), 200)
	})

	t.Run("channel post and edit", func(t *testing.T) {
		path := "/api/v10/channels/" + w.channel + "/messages"
		wantError(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"poll": pollOf(2, 769)}, -1), 400,
			fe("poll.duration", "NUMBER_TYPE_MAX", "int value should be less than or equal to 768."))
		mustDo(t, e, "POST", path, e.Bot(), jsonObj{"content": "x", "poll": pollOf(10, 768)}, 200)
		m := decodeObj(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"content": "x"}, 200))
		twice := jsonObj{"content": "<@1>", "allowed_mentions": jsonObj{"users": []string{"1", "1"}}}
		wantError(t, mustDo(t, e, "PATCH", path+"/"+str(m, "id"), e.Bot(), twice, -1), 400,
			fe("allowed_mentions.users.1", "SET_TYPE_ALREADY_CONTAINS_VALUE", "The set already contains this value"))
		mustDo(t, e, "PATCH", path+"/"+str(m, "id"), e.Bot(), jsonObj{"content": "<@1>", "allowed_mentions": jsonObj{"users": []string{"1"}}}, 200)
	})
}

// An endpoint's inline answer with an invalid poll is refused: the
// invocation fails, and the journal's reason names the field.
func TestInlineAnswerPollChecked(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(chat("vote"))
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{Type: 4, Data: jsonObj{"poll": pollOf(11, 24)}}, nil
	})
	wantError(t, w.invoke(w.invocation(2, cmd)), 502, bodyInteractionFailed)
	failed := wantEvent(t, logs, "interaction failed", map[string]any{"outcome": "invalid_response"})
	reason := fmt.Sprint(failed["reason"])
	if !strings.Contains(reason, "BASE_TYPE_BAD_LENGTH") || !strings.Contains(reason, `"answers"`) {
		t.Fatalf("reason %q", reason)
	}
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{Type: 4, Data: jsonObj{"poll": pollOf(10, 24)}}, nil
	})
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
}

// A poll is put on a message when it is made, or when a deferred
// answer's loading message is filled; after that the message is not
// edited (520003 Cannot edit a poll message), but for its flags.
func TestPollEdits(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	cannotEdit := apiError(520003, "Cannot edit a poll message")

	t.Run("filling a deferred answer", func(t *testing.T) {
		p := w.start(t, w.invocation(2))
		w.callback(t, p, "", jsonObj{"type": 5}, 204)
		wantStatus(t, p.wait(t), 200)
		filled := decodeObj(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"poll": pollOf(2, 24)}, 200))
		if filled["poll"] == nil {
			t.Fatalf("no poll in %v", filled)
		}
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"content": "changed"}, -1), 400, cannotEdit)
	})
	t.Run("adding to an answer", func(t *testing.T) {
		p, _ := w.answered(t, "no poll yet", 0)
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"poll": pollOf(2, 24)}, -1), 400, cannotEdit)
		mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"content": "still no poll", "poll": nil}, 200)
	})
	t.Run("a channel poll", func(t *testing.T) {
		path := "/api/v10/channels/" + w.channel + "/messages"
		m := decodeObj(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"poll": pollOf(2, 24)}, 200))
		wantError(t, mustDo(t, e, "PATCH", path+"/"+str(m, "id"), e.Bot(), jsonObj{"content": "x"}, -1), 400, cannotEdit)
		mustDo(t, e, "PATCH", path+"/"+str(m, "id"), e.Bot(), jsonObj{"flags": 4}, 200)
	})
}

package api_test

// What an interaction's token reaches through /webhooks/{app}/{token}/
// messages/{id}: its own answer and follow-ups, and for a component (or a
// modal opened from one) the message the component is on. This is
// Discord's getting-started example app (discord-example-app,
// examples/app.js): a click on the challenge's Accept button answers with
// an ephemeral select and deletes the challenge with the click's token;
// the choice in that select answers publicly and edits the ephemeral
// select's message with the choice's token.

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

func TestInteractionTokenReach(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	msgs := "/api/v10/channels/" + w.channel + "/messages/"
	component := func(message string, data jsonObj) *pending {
		return w.start(t, jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"message_id": message, "data": data})
	}
	answer := func(p *pending, data jsonObj) jsonObj {
		t.Helper()
		w.callback(t, p, "", jsonObj{"type": 4, "data": data}, 204)
		_, _, msg := answerParts(t, p.wait(t))
		return msg
	}
	bobs := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.bobTok, jsonObj{"content": "bob's"}, 200))

	// /challenge: a public message with an Accept button.
	challenge := w.start(t, w.invocation(2))
	challengeMsg := answer(challenge, jsonObj{"content": "Rock paper scissors?", "components": []jsonObj{
		{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Accept", "custom_id": "accept_button_1"}}}}})

	// Accept: an ephemeral select, then the challenge deleted with the
	// click's token (another interaction's message: the one clicked).
	accept := component(str(challengeMsg, "id"), jsonObj{"custom_id": "accept_button_1", "component_type": 2})
	selectMsg := answer(accept, jsonObj{"content": "What is your object of choice?", "flags": flagEphemeral,
		"components": []jsonObj{{"type": 1, "components": []jsonObj{{"type": 3, "custom_id": "select_choice_1",
			"options": []jsonObj{{"label": "Rock", "value": "rock"}, {"label": "Paper", "value": "paper"}}}}}}})
	if flagsOf(selectMsg) != flagEphemeral {
		t.Fatalf("the select: %v", selectMsg)
	}
	acceptHook := w.hook(accept) + "/messages/"
	if got := decodeObj(t, mustDo(t, e, "GET", acceptHook+str(challengeMsg, "id"), "", nil, 200)); got["content"] != "Rock paper scissors?" {
		t.Fatalf("the clicked message through the click's token: %v", got)
	}
	mustDo(t, e, "DELETE", acceptHook+str(challengeMsg, "id"), "", nil, 204)
	wantError(t, mustDo(t, e, "GET", msgs+str(challengeMsg, "id"), e.Bot(), nil, -1), 404, bodyUnknownMessage)

	// The choice: a public result, then the ephemeral select's message
	// edited with the choice's token; it stays ephemeral.
	choice := component(str(selectMsg, "id"), jsonObj{"custom_id": "select_choice_1", "component_type": 3, "values": []string{"rock"}})
	result := answer(choice, jsonObj{"content": "alice wins"})
	choiceHook := w.hook(choice) + "/messages/"
	edited := decodeObj(t, mustDo(t, e, "PATCH", choiceHook+str(selectMsg, "id"), "", jsonObj{"content": "Nice choice",
		"components": []jsonObj{}}, 200))
	if edited["content"] != "Nice choice" || flagsOf(edited) != flagEphemeral || str(edited, "id") != str(selectMsg, "id") {
		t.Fatalf("the select, edited: %v", edited)
	}
	if got := decodeObj(t, mustDo(t, e, "GET", choiceHook+str(selectMsg, "id"), "", nil, 200)); got["content"] != "Nice choice" {
		t.Fatalf("read back: %v", got)
	}
	// Its own answer, as ever.
	mustDo(t, e, "PATCH", choiceHook+str(result, "id"), "", jsonObj{"content": "alice wins!"}, 200)
	mustDo(t, e, "PATCH", choiceHook+"@original", "", jsonObj{"content": "alice wins!!"}, 200)

	// What no token reaches: another message than its own and its
	// component's.
	for _, c := range []struct {
		name, hook, message string
	}{
		{"a user's message", choiceHook, str(bobs, "id")},
		{"a command's token on its component's answer", w.hook(challenge) + "/messages/", str(selectMsg, "id")},
		{"the command's token on the click's answer", w.hook(challenge) + "/messages/", str(result, "id")},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, method := range []string{"GET", "PATCH", "DELETE"} {
				var body any
				if method == "PATCH" {
					body = jsonObj{"content": "x"}
				}
				wantError(t, mustDo(t, e, method, c.hook+c.message, "", body, -1), 404, bodyUnknownMessage)
			}
		})
	}
	// The accept's token reaches its own answer (the select) and the
	// message it was clicked on, not the choice's answer.
	wantError(t, mustDo(t, e, "GET", acceptHook+str(result, "id"), "", nil, -1), 404, bodyUnknownMessage)
	mustDo(t, e, "GET", acceptHook+str(selectMsg, "id"), "", nil, 200)

	// A modal opened from a button: its submission's token reaches the
	// button's message, and deletes it (ephemeral or not).
	panelMsg := answer(w.start(t, w.invocation(2)), jsonObj{"content": "form panel", "flags": flagEphemeral,
		"components": []jsonObj{{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Fill", "custom_id": "fill"}}}}})
	opener := component(str(panelMsg, "id"), jsonObj{"custom_id": "fill", "component_type": 2})
	w.callback(t, opener, "", jsonObj{"type": 9, "data": jsonObj{"custom_id": "form", "title": "A form",
		"components": []jsonObj{{"type": 1, "components": []jsonObj{{"type": 4, "custom_id": "name", "label": "Name", "style": 1}}}}}}, 204)
	wantStatus(t, opener.wait(t), 200)
	submit := w.start(t, jsonObj{"type": 5, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": jsonObj{"id": opener.id, "custom_id": "form", "components": []jsonObj{{"type": 1, "components": []jsonObj{
			{"type": 4, "custom_id": "name", "value": "Ada"}}}}}})
	answer(submit, jsonObj{"content": "thanks", "flags": flagEphemeral})
	mustDo(t, e, "DELETE", w.hook(submit)+"/messages/"+str(panelMsg, "id"), "", nil, 204)
	wantError(t, mustDo(t, e, "GET", w.hook(opener)+"/messages/"+str(panelMsg, "id"), "", nil, -1), 404, bodyUnknownMessage)
}

// The example app's own order, on an Interactions Endpoint: the click is
// answered inline and the clicked message deleted with the click's token
// right after, which may reach slashd before the answer is stored (the
// token then waits for it).
func TestInteractionTokenReachInline(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(chat("challenge"))
	deleted := make(chan testenv.Response, 1)
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Type == interactions.InteractionApplicationCommand {
			return interactions.Response{Type: 4, Data: jsonObj{"content": "Rock paper scissors?", "components": []jsonObj{
				{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Accept", "custom_id": "accept"}}}}}}, nil
		}
		var raw struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		if err := json.Unmarshal(i.Raw, &raw); err != nil {
			return interactions.Response{}, err
		}
		path := "/api/v10/webhooks/" + w.app + "/" + i.Token + "/messages/" + raw.Message.ID
		go func() { deleted <- e.Do("DELETE", path, "", nil) }()
		return interactions.Response{Type: 4, Data: jsonObj{"content": "What is your object of choice?", "flags": 64}}, nil
	})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	_, _, challenge := answerParts(t, r)
	click := w.invoke(jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"message_id": str(challenge, "id"), "data": jsonObj{"custom_id": "accept", "component_type": 2}})
	wantStatus(t, click, 200)
	select {
	case r := <-deleted:
		wantStatus(t, r, 204)
	case <-time.After(testenv.WaitTimeout):
		t.Fatal("the app's DELETE did not end")
	}
	wantError(t, mustDo(t, e, "GET", "/api/v10/channels/"+w.channel+"/messages/"+str(challenge, "id"), e.Bot(), nil, -1), 404, bodyUnknownMessage)
}

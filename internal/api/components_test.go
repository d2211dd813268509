package api_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// A button and a select menu on an app's reply: using them makes a
// MESSAGE_COMPONENT interaction, which the app answers by updating the
// message (7), by deferring the update (6) and editing @original, or with
// a new message.
func TestComponentInteractions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "panel", "description": "A panel"})
	components := []any{jsonObj{"type": 1, "components": []any{
		jsonObj{"type": 2, "style": 1, "label": "Go", "custom_id": "go"},
		jsonObj{"type": 2, "style": 2, "label": "Off", "custom_id": "off", "disabled": true},
	}}, jsonObj{"type": 1, "components": []any{
		jsonObj{"type": 3, "custom_id": "pick", "max_values": 2, "options": []any{
			jsonObj{"label": "A", "value": "a"}, jsonObj{"label": "B", "value": "b"}}},
	}}}
	var gotData json.RawMessage
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Type == interactions.InteractionApplicationCommand {
			return interactions.Response{Type: 4, Data: jsonObj{"content": "panel", "components": components}}, nil
		}
		var raw struct {
			Data    json.RawMessage `json:"data"`
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		_ = json.Unmarshal(i.Raw, &raw)
		gotData = raw.Data
		if string(raw.Data) == `{"custom_id":"go","component_type":2}` {
			return interactions.UpdateMessage("went"), nil
		}
		return interactions.DeferUpdate(), nil
	})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	var reply struct {
		Resource struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &reply)
	msgID := reply.Resource.Message.ID
	click := func(data jsonObj, message string) testenv.Response {
		return w.invoke(jsonObj{"type": 3, "application_id": w.app, "channel_id": w.channel, "message_id": message, "data": data})
	}

	// The button: UPDATE_MESSAGE edits the panel.
	r = click(jsonObj{"custom_id": "go", "component_type": 2}, msgID)
	wantStatus(t, r, 200)
	var upd struct {
		Interaction struct {
			Type int `json:"type"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID              string  `json:"id"`
				Content         string  `json:"content"`
				EditedTimestamp *string `json:"edited_timestamp"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &upd)
	if upd.Interaction.Type != 3 || upd.Resource.Type != 7 || upd.Resource.Message.ID != msgID ||
		upd.Resource.Message.Content != "went" || upd.Resource.Message.EditedTimestamp == nil {
		t.Fatalf("update: %s", r.Body)
	}
	if string(gotData) != `{"custom_id":"go","component_type":2}` {
		t.Fatalf("delivered data: %s", gotData)
	}

	// The select menu: DEFERRED_UPDATE_MESSAGE, then an edit of @original
	// (the panel) through the token.
	var token string
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		token = i.Token
		return interactions.DeferUpdate(), nil
	})
	wantStatus(t, click(jsonObj{"custom_id": "pick", "component_type": 3, "values": []string{"b", "a"}}, msgID), 200)
	edited := decodeObj(t, mustDo(t, e, "PATCH", "/api/v10/webhooks/"+w.app+"/"+token+"/messages/@original", "",
		jsonObj{"content": "picked"}, 200))
	if str(edited, "id") != msgID || str(edited, "content") != "picked" {
		t.Fatalf("edit of @original: %v", edited)
	}

	// What cannot be clicked.
	unknown := formError(leaf{"data.custom_id", "INTERACTION_COMPONENT_INVALID", "Unknown component"})
	cases := []struct {
		name    string
		data    jsonObj
		message string
		status  int
		want    string
	}{
		{"unknown custom_id", jsonObj{"custom_id": "nope", "component_type": 2}, msgID, 400, unknown},
		{"disabled button", jsonObj{"custom_id": "off", "component_type": 2}, msgID, 400, unknown},
		{"wrong component type", jsonObj{"custom_id": "go", "component_type": 3, "values": []string{"a"}}, msgID, 400, unknown},
		{"value not an option", jsonObj{"custom_id": "pick", "component_type": 3, "values": []string{"z"}}, msgID, 400,
			formError(leaf{"data.values.0", "INTERACTION_COMPONENT_INVALID", "Value is not an option of the select menu"})},
		{"too many values", jsonObj{"custom_id": "pick", "component_type": 3, "values": []string{"a", "b", "a"}}, msgID, 400,
			formError(leaf{"data.values", "INTERACTION_COMPONENT_INVALID",
				"Values must be between the select menu's min_values and max_values"})},
		{"unknown message", jsonObj{"custom_id": "go", "component_type": 2}, "1234567", 404,
			`{"message":"Unknown Message","code":10008}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, click(c.data, c.message), c.status, c.want)
		})
	}

	// A user's own message has no components of the app.
	own := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.client, jsonObj{"content": "hi"}, 200))
	wantError(t, click(jsonObj{"custom_id": "go", "component_type": 2}, str(own, "id")), 404,
		`{"message":"Unknown Message","code":10008}`)
}

// A modal the app shows is submitted as a MODAL_SUBMIT interaction, checked
// against the modal; the app answers it like a command.
func TestModalSubmit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "feedback", "description": "Tell us"})
	var got json.RawMessage
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Type == interactions.InteractionApplicationCommand {
			return interactions.Response{Type: 9, Data: jsonObj{"custom_id": "fb", "title": "Feedback", "components": []any{
				jsonObj{"type": 1, "components": []any{jsonObj{"type": 4, "custom_id": "text", "label": "Text", "style": 2,
					"max_length": 10}}},
				jsonObj{"type": 1, "components": []any{jsonObj{"type": 4, "custom_id": "mood", "label": "Mood", "style": 1,
					"required": false}}},
			}}}, nil
		}
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(i.Raw, &raw)
		got = raw.Data
		return interactions.Message("thanks", interactions.Ephemeral()), nil
	})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	var shown struct {
		Interaction struct {
			ID string `json:"id"`
		} `json:"interaction"`
		Resource struct {
			Type  int             `json:"type"`
			Modal json.RawMessage `json:"modal"`
		} `json:"resource"`
	}
	r.JSON(t, &shown)
	if shown.Resource.Type != 9 || len(shown.Resource.Modal) == 0 {
		t.Fatalf("modal answer: %s", r.Body)
	}
	submit := func(modalID, customID string, inputs ...jsonObj) testenv.Response {
		rows := []any{}
		for _, in := range inputs {
			rows = append(rows, jsonObj{"type": 1, "components": []any{with(jsonObj{"type": 4}, "custom_id", in["id"], "value", in["v"])}})
		}
		return w.invoke(jsonObj{"type": 5, "application_id": w.app, "channel_id": w.channel,
			"data": jsonObj{"id": modalID, "custom_id": customID, "components": rows}})
	}
	in := func(id, v string) jsonObj { return jsonObj{"id": id, "v": v} }

	r = submit(shown.Interaction.ID, "fb", in("text", "great"))
	wantStatus(t, r, 200)
	var ans struct {
		Interaction struct {
			Type int `json:"type"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				Content string `json:"content"`
				Flags   int    `json:"flags"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &ans)
	if ans.Interaction.Type != 5 || ans.Resource.Type != 4 || ans.Resource.Message.Content != "thanks" || ans.Resource.Message.Flags&64 == 0 {
		t.Fatalf("answer to the submission: %s", r.Body)
	}
	if string(got) != `{"custom_id":"fb","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"great"}]}]}` {
		t.Fatalf("delivered data: %s", got)
	}

	unknownModal := formError(leaf{"data.id", "INTERACTION_MODAL_INVALID", "Unknown modal"})
	cases := []struct {
		name string
		r    testenv.Response
		want string
	}{
		{"not a modal's interaction", submit("12345", "fb", in("text", "x")), unknownModal},
		{"another custom_id", submit(shown.Interaction.ID, "other", in("text", "x")),
			formError(leaf{"data.custom_id", "INTERACTION_MODAL_INVALID", "Unknown modal"})},
		{"required input missing", submit(shown.Interaction.ID, "fb", in("mood", "ok")),
			formError(leaf{"data.components", "INTERACTION_MODAL_INVALID", "This text input is required"})},
		{"unknown input", submit(shown.Interaction.ID, "fb", in("text", "x"), in("age", "3")),
			formError(leaf{"data.components.1.custom_id", "INTERACTION_MODAL_INVALID", "Unknown text input"})},
		{"too long", submit(shown.Interaction.ID, "fb", in("text", "far too long")),
			formError(leaf{"data.components.0.value", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 10 in length."})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, c.r, 400, c.want) })
	}
	// Another member cannot submit alice's modal.
	bob := w.world.client(w.memberNamed("bob"))
	r = w.e.Do("POST", "/api/v10/interactions", bob, jsonObj{"type": 5, "application_id": w.app, "channel_id": w.channel,
		"data": jsonObj{"id": shown.Interaction.ID, "custom_id": "fb", "components": []any{}}})
	wantError(t, r, 400, unknownModal)
}

// A user select and a channel select: the app gets the values and, as
// from the real service, data.resolved with what they name; a value
// naming nothing, or a channel outside the select's channel_types, is
// refused.
func TestSelectMenuResolved(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "selects", "description": "Selects"})
	components := []any{
		jsonObj{"type": 1, "components": []any{jsonObj{"type": 5, "custom_id": "who"}}},
		jsonObj{"type": 1, "components": []any{jsonObj{"type": 8, "custom_id": "where", "channel_types": []int{0}}}},
		jsonObj{"type": 1, "components": []any{jsonObj{"type": 8, "custom_id": "voice", "channel_types": []int{2}}}},
	}
	var gotData json.RawMessage
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Type == interactions.InteractionApplicationCommand {
			return interactions.Response{Type: 4, Data: jsonObj{"content": "selects", "components": components}}, nil
		}
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(i.Raw, &raw)
		gotData = raw.Data
		return interactions.DeferUpdate(), nil
	})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	var reply struct {
		Resource struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &reply)
	click := func(data jsonObj) testenv.Response {
		return w.invoke(jsonObj{"type": 3, "application_id": w.app, "channel_id": w.channel,
			"message_id": reply.Resource.Message.ID, "data": data})
	}
	var data struct {
		Values   []string `json:"values"`
		Resolved struct {
			Users    map[string]struct{ ID string } `json:"users"`
			Members  map[string]json.RawMessage     `json:"members"`
			Channels map[string]struct{ ID string } `json:"channels"`
		} `json:"resolved"`
	}
	wantStatus(t, click(jsonObj{"custom_id": "who", "component_type": 5, "values": []string{w.member}}), 200)
	if err := json.Unmarshal(gotData, &data); err != nil || data.Resolved.Users[w.member].ID != w.member ||
		data.Resolved.Members[w.member] == nil {
		t.Fatalf("user select data: %s", gotData)
	}
	wantStatus(t, click(jsonObj{"custom_id": "where", "component_type": 8, "values": []string{w.channel}}), 200)
	if err := json.Unmarshal(gotData, &data); err != nil || data.Resolved.Channels[w.channel].ID != w.channel {
		t.Fatalf("channel select data: %s", gotData)
	}
	wantError(t, click(jsonObj{"custom_id": "who", "component_type": 5, "values": []string{"123456789"}}), 400,
		formError(leaf{"data.values.0", "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID", "Unknown user"}))
	wantError(t, click(jsonObj{"custom_id": "voice", "component_type": 8, "values": []string{w.channel}}), 400,
		formError(leaf{"data.values.0", "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID", "Channel type is not allowed for this option"}))
	wantError(t, click(jsonObj{"custom_id": "who", "component_type": 5, "values": []string{"me"}}), 400,
		formError(leaf{"data.values.0", "NUMBER_TYPE_COERCE", `Value "me" is not snowflake.`}))
}

// A modal's user and channel selects (in labels): the app gets the
// values and data.resolved with what they name; a value naming nothing
// is refused.
func TestModalSelectsResolved(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "assign", "description": "Assign"})
	var got json.RawMessage
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		if i.Type == interactions.InteractionApplicationCommand {
			return interactions.Response{Type: 9, Data: jsonObj{"custom_id": "as", "title": "Assign", "components": []any{
				jsonObj{"type": 18, "label": "Who", "component": jsonObj{"type": 5, "custom_id": "who"}},
				jsonObj{"type": 18, "label": "Where", "component": jsonObj{"type": 8, "custom_id": "where", "channel_types": []int{0}}},
			}}}, nil
		}
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(i.Raw, &raw)
		got = raw.Data
		return interactions.Message("ok"), nil
	})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	var shown struct {
		Interaction struct {
			ID string `json:"id"`
		} `json:"interaction"`
	}
	r.JSON(t, &shown)
	submit := func(who, where string) testenv.Response {
		return w.invoke(jsonObj{"type": 5, "application_id": w.app, "channel_id": w.channel, "data": jsonObj{
			"id": shown.Interaction.ID, "custom_id": "as", "components": []any{
				jsonObj{"type": 18, "component": jsonObj{"type": 5, "custom_id": "who", "values": []string{who}}},
				jsonObj{"type": 18, "component": jsonObj{"type": 8, "custom_id": "where", "values": []string{where}}},
			}}})
	}
	wantStatus(t, submit(w.member, w.channel), 200)
	var data struct {
		Resolved struct {
			Users    map[string]struct{ ID string } `json:"users"`
			Channels map[string]struct{ ID string } `json:"channels"`
		} `json:"resolved"`
	}
	if err := json.Unmarshal(got, &data); err != nil || data.Resolved.Users[w.member].ID != w.member ||
		data.Resolved.Channels[w.channel].ID != w.channel {
		t.Fatalf("delivered data: %s", got)
	}
	wantError(t, submit("123456789", w.channel), 400,
		formError(leaf{"data.components.0.component.values.0", "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID", "Unknown user"}))
	wantError(t, submit("me", w.channel), 400,
		formError(leaf{"data.components.0.component.values.0", "NUMBER_TYPE_COERCE", `Value "me" is not snowflake.`}))
}

package api_test

// Components are checked wherever a message is written (internal/msgcheck):
// a button with neither custom_id nor url is refused with 400 50035 naming
// the field on every route, the same body with a custom_id passes, and a
// MODAL answer whose text input lacks its type is refused itself.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// A button that is no button: neither custom_id nor url.
var (
	badButtonRow = []jsonObj{{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Go"}}}}
	badButton    = "components.0.components.0.custom_id"
	customIDMiss = fe(badButton, "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED", "A custom id is required")
)

func goodButtonRow(id string) []jsonObj {
	return []jsonObj{{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Go", "custom_id": id}}}}
}

// withData prefixes a form error body's path with data. (a callback's
// message is its data).
func withData(path string) string {
	return fe("data."+path, "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED", "A custom id is required")
}

func TestMessageComponentsChecked(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)

	t.Run("callback type 4", func(t *testing.T) {
		p := w.start(t, w.invocation(2))
		wantError(t, w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "x", "components": badButtonRow}}, -1),
			400, withData(badButton))
		w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "x", "components": goodButtonRow("go")}}, 204)
		wantStatus(t, p.wait(t), 200)
	})

	p, _ := w.answered(t, "first", 0)
	t.Run("follow-up", func(t *testing.T) {
		wantError(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "x", "components": badButtonRow}, -1), 400, customIDMiss)
	})
	t.Run("V2 follow-up with content", func(t *testing.T) {
		body := jsonObj{"flags": 1 << 15, "content": "x", "components": []jsonObj{{"type": 10, "content": "hello"}}}
		wantError(t, mustDo(t, e, "POST", w.hook(p), "", body, -1), 400,
			fe("content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
				"The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"))
		delete(body, "content")
		mustDo(t, e, "POST", w.hook(p), "", body, 200)
	})
	followup := decodeObj(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "x", "components": goodButtonRow("f")}, 200))
	t.Run("edit of @original", func(t *testing.T) {
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"components": badButtonRow}, -1), 400, customIDMiss)
		mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"components": goodButtonRow("o")}, 200)
	})
	t.Run("edit of a follow-up", func(t *testing.T) {
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/"+str(followup, "id"), "", jsonObj{"components": badButtonRow}, -1),
			400, customIDMiss)
	})
	t.Run("duplicate custom_id in an edit", func(t *testing.T) {
		rows := append(goodButtonRow("same"), goodButtonRow("same")...)
		wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"components": rows}, -1), 400,
			fe("components.1.components.0.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"))
	})

	t.Run("UPDATE_MESSAGE", func(t *testing.T) {
		click := w.start(t, jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"message_id": str(mustMessage(t, w, p), "id"), "data": jsonObj{"custom_id": "o", "component_type": 2}})
		wantError(t, w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"components": badButtonRow}}, -1), 400, withData(badButton))
		w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"components": goodButtonRow("o2")}}, 204)
		wantStatus(t, click.wait(t), 200)
	})

	t.Run("channel post and edit", func(t *testing.T) {
		path := "/api/v10/channels/" + w.channel + "/messages"
		wantError(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"content": "x", "components": badButtonRow}, -1), 400, customIDMiss)
		m := decodeObj(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"content": "x", "components": goodButtonRow("c")}, 200))
		wantError(t, mustDo(t, e, "PATCH", path+"/"+str(m, "id"), e.Bot(), jsonObj{"components": badButtonRow}, -1), 400, customIDMiss)
	})

	t.Run("MODAL with a text input lacking type", func(t *testing.T) {
		modal := w.start(t, w.invocation(2))
		bad := jsonObj{"type": 9, "data": jsonObj{"custom_id": "form", "title": "A form", "components": []jsonObj{
			{"type": 18, "label": "Name", "component": jsonObj{"custom_id": "name", "style": 1}}}}}
		wantError(t, w.callback(t, modal, "", bad, -1), 400,
			fe("data.components.0.component.type", "BASE_TYPE_REQUIRED", "This field is required"))
		good := jsonObj{"type": 9, "data": jsonObj{"custom_id": "form", "title": "A form", "components": []jsonObj{
			{"type": 18, "label": "Name", "component": jsonObj{"type": 4, "custom_id": "name", "style": 1}}}}}
		w.callback(t, modal, "", good, 204)
		wantStatus(t, modal.wait(t), 200)
	})
}

// mustMessage is the answer of p (its @original).
func mustMessage(t *testing.T, w *gatewayWorld, p *pending) jsonObj {
	t.Helper()
	return decodeObj(t, mustDo(t, w.e, "GET", w.hook(p)+"/messages/@original", "", nil, 200))
}

// The flags a message was stored with decide how its edits are read:
// an edit that leaves them alone gets a V2 message's rules (content
// refused beside its components, 40 components) or a legacy one's (5
// action rows), through the webhook, the channel and UPDATE_MESSAGE.
func TestEditReadWithStoredFlags(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	text := jsonObj{"type": 10, "content": "hello"}
	p := w.start(t, w.invocation(2))
	w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"flags": 1 << 15, "components": []jsonObj{text,
		{"type": 1, "components": []jsonObj{{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}}}}}}, 204)
	wantStatus(t, p.wait(t), 200)
	v2 := str(mustMessage(t, w, p), "id")
	legacy, _ := w.answered(t, "legacy", 0)
	legacyID := str(mustMessage(t, w, legacy), "id")

	contentBeside := fe("content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
		"The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2")
	wantError(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"content": "no"}, -1), 400, contentBeside)
	wantError(t, mustDo(t, e, "PATCH", "/api/v10/channels/"+w.channel+"/messages/"+v2, e.Bot(), jsonObj{"content": "no"}, -1),
		400, contentBeside)
	texts := make([]jsonObj, 40)
	for i := range texts {
		texts[i] = text
	}
	mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"components": texts}, 200)

	rows := make([]jsonObj, 6)
	for i := range rows {
		rows[i] = goodButtonRow(fmt.Sprint("b", i))[0]
	}
	tooMany := fe("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
	wantError(t, mustDo(t, e, "PATCH", w.hook(legacy)+"/messages/@original", "", jsonObj{"components": rows}, -1), 400, tooMany)
	wantError(t, mustDo(t, e, "PATCH", w.hook(legacy)+"/messages/@original", "", jsonObj{"components": []jsonObj{text}}, -1), 400,
		fe("components.0", "UNION_TYPE_CHOICES", `Value of field "type" must be one of (1,).`))

	// UPDATE_MESSAGE holds the same limit as the edit routes.
	mustDo(t, e, "PATCH", w.hook(legacy)+"/messages/@original", "", jsonObj{"components": goodButtonRow("go")}, 200)
	click := w.start(t, jsonObj{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"message_id": legacyID, "data": jsonObj{"custom_id": "go", "component_type": 2}})
	wantError(t, w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"components": rows}}, -1), 400,
		fe("data.components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."))
	w.callback(t, click, "", jsonObj{"type": 7, "data": jsonObj{"components": rows[:5]}}, 204)
	wantStatus(t, click.wait(t), 200)
}

// An endpoint's inline answer with an invalid component is refused: the
// invocation fails, and the journal's reason names the field.
func TestInlineAnswerComponentsChecked(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(chat("panel"))
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{Type: 4, Data: jsonObj{"content": "x", "components": badButtonRow}}, nil
	})
	wantError(t, w.invoke(w.invocation(2, cmd)), 502, bodyInteractionFailed)
	failed := wantEvent(t, logs, "interaction failed", map[string]any{"outcome": "invalid_response"})
	reason := fmt.Sprint(failed["reason"])
	if !strings.Contains(reason, "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED") || !strings.Contains(reason, `"custom_id"`) {
		t.Fatalf("reason %q", reason)
	}
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{Type: 4, Data: jsonObj{"content": "x", "components": goodButtonRow("go")}}, nil
	})
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
}

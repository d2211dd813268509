package api_test

// End-to-end tests of answering interactions for an app without an
// Interactions Endpoint URL: the invocation goes out as INTERACTION_CREATE
// on the event bus (what its gateway sessions deliver), the test reads the
// interaction there and answers through POST /interactions/{id}/{token}/
// callback while the invoking request waits; then follow-ups, @original
// and message ids through /webhooks/{app}/{token}, the 3 s answer window
// and the 15 min token lifetime (with the test clock).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

// Bodies of interaction errors.
var (
	bodyUnknownInteraction = apiError(10062, "Unknown interaction")
	bodyAlreadyAcked       = apiError(40060, "Interaction has already been acknowledged.")
	bodyUnknownMessage     = apiError(10008, "Unknown Message")
	bodyUnknownWebhook     = apiError(10015, "Unknown Webhook")
	bodyInvalidWebhookTok  = apiError(50027, "Invalid Webhook Token")
	bodyEmptyMessage       = apiError(50006, "Cannot send an empty message")
	bodyNoResponse         = apiError(0, "The application did not respond")
	bodyInteractionFailed  = apiError(0, "This interaction failed")
	bodyTypeInvalid        = fe("type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type is invalid for this interaction")
)

const (
	flagEphemeral = 64
	flagLoading   = 128
)

// gatewayWorld is a guild world whose app has no Interactions Endpoint
// URL, with a text channel and two plain members.
type gatewayWorld struct {
	*world
	channel    string
	alice, bob string // member ids
	aliceTok   string // client tokens
	bobTok     string
	cmd        jsonObj // a chat input command with an autocomplete option "q"
}

func newGatewayWorld(t testing.TB, e *testenv.Env) *gatewayWorld {
	t.Helper()
	w := &gatewayWorld{world: newWorld(t, e)}
	w.channel = w.world.channel(jsonObj{"name": "general", "type": 0})
	w.alice, w.bob = w.memberNamed("alice"), w.memberNamed("bob")
	w.aliceTok, w.bobTok = w.client(w.alice), w.client(w.bob)
	w.cmd = create(t, e, w.paths.guildCmds(), e.Bot(), jsonObj{"name": "go", "description": "Go", "options": []jsonObj{
		{"type": 3, "name": "q", "description": "Query", "autocomplete": true}}})
	return w
}

// invocation is alice running the command (it 2) or typing in q (it 4).
func (w *gatewayWorld) invocation(it int) jsonObj {
	d := jsonObj{"id": w.cmd["id"], "name": "go", "type": 1, "version": w.cmd["version"]}
	if it == 4 {
		d["options"] = []jsonObj{{"type": 3, "name": "q", "value": "a", "focused": true}}
	}
	return jsonObj{"type": it, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel, "data": d}
}

// pending is an invocation delivered to the app and waiting for its
// answer.
type pending struct {
	id, token string
	payload   json.RawMessage
	done      chan testenv.Response
	err       chan error
}

// start invokes (alice) in the background and returns once the
// interaction is on the event bus.
func (w *gatewayWorld) start(t *testing.T, body any) *pending {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := w.e.Events.Subscribe(ctx, 16) // before invoking
	p := &pending{done: make(chan testenv.Response, 1), err: make(chan error, 1)}
	go func() {
		r, err := doJSON(w.e, "POST", "/api/v10/interactions", w.aliceTok, body)
		if err != nil {
			p.err <- err
			return
		}
		p.done <- r
	}()
	timeout := time.After(testenv.WaitTimeout)
	for {
		select {
		case ev := <-events:
			if ev.Type != event.InteractionCreate {
				continue
			}
			raw, ok := ev.Data.(json.RawMessage)
			if !ok {
				t.Fatalf("INTERACTION_CREATE data is %T", ev.Data)
			}
			var i struct {
				ID            string `json:"id"`
				Token         string `json:"token"`
				ApplicationID string `json:"application_id"`
				GuildID       string `json:"guild_id"`
			}
			if err := json.Unmarshal(raw, &i); err != nil {
				t.Fatalf("interaction %s: %v", raw, err)
			}
			if ev.ApplicationID.String() != w.app || i.ApplicationID != w.app || i.GuildID != w.guild ||
				ev.GuildID.String() != w.guild || i.ID == "" || i.Token == "" {
				t.Fatalf("event %+v: %s", ev, raw)
			}
			p.id, p.token, p.payload = i.ID, i.Token, raw
			return p
		case r := <-p.done:
			t.Fatalf("the invocation ended before delivery: %s", describe(r))
		case err := <-p.err:
			t.Fatal(err)
		case <-timeout:
			t.Fatal("no INTERACTION_CREATE")
		}
	}
}

// wait returns the invocation's own answer.
func (p *pending) wait(t *testing.T) testenv.Response {
	t.Helper()
	select {
	case r := <-p.done:
		return r
	case err := <-p.err:
		t.Fatal(err)
	case <-time.After(testenv.WaitTimeout):
		t.Fatal("the invocation did not end")
	}
	return testenv.Response{}
}

func (p *pending) callbackPath(query string) string {
	return "/api/v10/interactions/" + p.id + "/" + p.token + "/callback" + query
}

// callback answers p (no Authorization, as apps do) and checks the status.
func (w *gatewayWorld) callback(t *testing.T, p *pending, query string, body any, status int) testenv.Response {
	t.Helper()
	return mustDo(t, w.e, "POST", p.callbackPath(query), "", body, status)
}

func (w *gatewayWorld) hook(p *pending) string { return "/api/v10/webhooks/" + w.app + "/" + p.token }

// answered is a finished invocation answered with a message.
func (w *gatewayWorld) answered(t *testing.T, content string, flags int) (*pending, jsonObj) {
	t.Helper()
	p := w.start(t, w.invocation(2))
	w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": content, "flags": flags}}, 204)
	r := p.wait(t)
	wantStatus(t, r, 200)
	_, _, msg := answerParts(t, r)
	return p, msg
}

// answerParts splits an invocation or callback answer.
func answerParts(t *testing.T, r testenv.Response) (inter, resource, message jsonObj) {
	t.Helper()
	a := decodeObj(t, r)
	inter, _ = a["interaction"].(jsonObj)
	resource, _ = a["resource"].(jsonObj)
	message, _ = resource["message"].(jsonObj)
	if inter == nil || resource == nil {
		t.Fatalf("answer %s", r.Body)
	}
	return inter, resource, message
}

func flagsOf(m jsonObj) int { f, _ := m["flags"].(float64); return int(f) }

// messageIDs lists the ids of GET /channels/{id}/messages as user sees it.
func (w *gatewayWorld) messageIDs(t *testing.T, client string) []string {
	t.Helper()
	return ids(decodeList(t, mustDo(t, w.e, "GET", "/api/v10/channels/"+w.channel+"/messages", client, nil, 200)), "id")
}

func TestGatewayCallbackTypes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	message := jsonObj{"type": 4, "data": jsonObj{"content": "hi"}}
	modal := jsonObj{"custom_id": "form", "title": "A form", "components": []jsonObj{{"type": 1, "components": []jsonObj{
		{"type": 4, "custom_id": "name", "label": "Name", "style": 1}}}}}
	choices := []jsonObj{{"name": "Apple", "value": "apple"}, {"name": "Two", "value": 2}}

	cases := []struct {
		name string
		it   int
		run  func(t *testing.T, p *pending)
	}{
		{"channel message", 2, func(t *testing.T, p *pending) {
			r := w.callback(t, p, "", message, 204)
			if len(r.Body) != 0 {
				t.Fatalf("204 with a body: %q", r.Body)
			}
			inter, res, msg := answerParts(t, p.wait(t))
			if inter["id"] != p.id || inter["type"] != 2.0 || res["type"] != 4.0 || msg["content"] != "hi" ||
				inter["response_message_id"] != msg["id"] || inter["response_message_loading"] != false ||
				inter["response_message_ephemeral"] != false || flagsOf(msg) != 0 {
				t.Fatalf("answer: %v %v", inter, res)
			}
			for _, tok := range []string{w.aliceTok, w.bobTok} {
				if got := w.messageIDs(t, tok); !contains(got, str(msg, "id")) {
					t.Fatalf("message %s not in the channel: %v", msg["id"], got)
				}
			}
		}},
		{"channel message with_response", 2, func(t *testing.T, p *pending) {
			cb := w.callback(t, p, "?with_response=true", message, 200)
			inter, res, msg := answerParts(t, cb)
			if inter["id"] != p.id || res["type"] != 4.0 || msg["content"] != "hi" || inter["response_message_id"] != msg["id"] {
				t.Fatalf("callback answer: %s", cb.Body)
			}
			wantJSON(t, p.wait(t).Body, string(cb.Body)) // the invoking client sees the same
		}},
		{"ephemeral message", 2, func(t *testing.T, p *pending) {
			w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "psst", "flags": flagEphemeral}}, 204)
			inter, _, msg := answerParts(t, p.wait(t))
			if flagsOf(msg) != flagEphemeral || inter["response_message_ephemeral"] != true {
				t.Fatalf("answer: %v %v", inter, msg)
			}
			if !contains(w.messageIDs(t, w.aliceTok), str(msg, "id")) || contains(w.messageIDs(t, w.bobTok), str(msg, "id")) {
				t.Fatal("an ephemeral answer is visible to the invoker only")
			}
		}},
		{"deferred, then PATCH @original", 2, func(t *testing.T, p *pending) {
			w.callback(t, p, "", jsonObj{"type": 5}, 204)
			inter, res, msg := answerParts(t, p.wait(t))
			if res["type"] != 5.0 || flagsOf(msg)&flagLoading == 0 || inter["response_message_loading"] != true || msg["content"] != "" {
				t.Fatalf("deferred answer: %v %v", inter, res)
			}
			edited := decodeObj(t, mustDo(t, e, "PATCH", w.hook(p)+"/messages/@original", "", jsonObj{"content": "done"}, 200))
			if edited["id"] != msg["id"] || edited["content"] != "done" || flagsOf(edited)&flagLoading != 0 || edited["edited_timestamp"] != nil {
				t.Fatalf("filled: %v", edited)
			}
			got := decodeObj(t, mustDo(t, e, "GET", w.hook(p)+"/messages/@original", "", nil, 200))
			wantJSON(t, mustMarshal(got), string(mustMarshal(edited)))
		}},
		{"deferred ephemeral, then a follow-up fills it", 2, func(t *testing.T, p *pending) {
			w.callback(t, p, "?with_response=true", jsonObj{"type": 5, "data": jsonObj{"flags": flagEphemeral}}, 200)
			inter, _, msg := answerParts(t, p.wait(t))
			if flagsOf(msg) != flagEphemeral|flagLoading || inter["response_message_ephemeral"] != true {
				t.Fatalf("deferred answer: %v %v", inter, msg)
			}
			filled := decodeObj(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "filled"}, 200))
			if filled["id"] != msg["id"] || filled["content"] != "filled" || flagsOf(filled) != flagEphemeral {
				t.Fatalf("follow-up after a deferral: %v", filled)
			}
			if !contains(w.messageIDs(t, w.aliceTok), str(msg, "id")) || contains(w.messageIDs(t, w.bobTok), str(msg, "id")) {
				t.Fatal("the filled message keeps the deferral's visibility")
			}
			// Once filled, a follow-up is a new message.
			next := decodeObj(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "next"}, 200))
			if next["id"] == msg["id"] {
				t.Fatal("second follow-up replaced the original")
			}
		}},
		{"update types on a command", 2, func(t *testing.T, p *pending) {
			wantError(t, w.callback(t, p, "", jsonObj{"type": 6}, -1), 404, bodyUnknownMessage)
			wantError(t, w.callback(t, p, "", jsonObj{"type": 7, "data": jsonObj{"content": "x"}}, -1), 404, bodyUnknownMessage)
			w.callback(t, p, "", message, 204) // refused answers do not count
			wantStatus(t, p.wait(t), 200)
		}},
		{"autocomplete result to a command", 2, func(t *testing.T, p *pending) {
			wantError(t, w.callback(t, p, "", jsonObj{"type": 8, "data": jsonObj{"choices": []jsonObj{}}}, -1), 400, bodyTypeInvalid)
			w.callback(t, p, "", message, 204)
			wantStatus(t, p.wait(t), 200)
		}},
		{"autocomplete", 4, func(t *testing.T, p *pending) {
			wantError(t, w.callback(t, p, "", message, -1), 400, bodyTypeInvalid)
			wantError(t, w.callback(t, p, "", jsonObj{"type": 9, "data": modal}, -1), 400, bodyTypeInvalid)
			many := make([]jsonObj, 26)
			for i := range many {
				many[i] = jsonObj{"name": "n", "value": "v"}
			}
			wantError(t, w.callback(t, p, "", jsonObj{"type": 8, "data": jsonObj{"choices": many}}, -1), 400,
				fe("data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."))
			w.callback(t, p, "", jsonObj{"type": 8, "data": jsonObj{"choices": choices}}, 204)
			inter, res, _ := answerParts(t, p.wait(t))
			if inter["type"] != 4.0 || res["type"] != 8.0 || res["message"] != nil {
				t.Fatalf("answer: %v %v", inter, res)
			}
			wantJSON(t, mustMarshal(res["choices"]), string(mustMarshal(choices)))
		}},
		{"modal", 2, func(t *testing.T, p *pending) {
			long := with(modal, "title", strings.Repeat("t", 46))
			wantError(t, w.callback(t, p, "", jsonObj{"type": 9, "data": long}, -1), 400,
				fe("data.title", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length."))
			wantError(t, w.callback(t, p, "", jsonObj{"type": 9}, -1), 400, fe("data", "BASE_TYPE_REQUIRED", msgRequired))
			w.callback(t, p, "", jsonObj{"type": 9, "data": modal}, 204)
			_, res, _ := answerParts(t, p.wait(t))
			if res["type"] != 9.0 {
				t.Fatalf("answer: %v", res)
			}
			wantJSON(t, mustMarshal(res["modal"]), string(mustMarshal(modal)))
		}},
		{"launch without Activities", 2, func(t *testing.T, p *pending) {
			wantError(t, w.callback(t, p, "", jsonObj{"type": 12}, -1), 400,
				fe("type", "INTERACTION_RESPONSE_TYPE_INVALID", "Activities are not enabled for this application"))
			w.callback(t, p, "", message, 204)
			wantStatus(t, p.wait(t), 200)
		}},
		{"invalid bodies", 2, func(t *testing.T, p *pending) {
			for _, c := range []struct {
				body any
				want string
			}{
				{jsonObj{"type": 1}, bodyTypeInvalid},
				{jsonObj{"type": 11}, fe("type", "BASE_TYPE_CHOICES", "Value must be one of (1, 4, 5, 6, 7, 8, 9, 10, 12).")},
				{jsonObj{}, fe("type", "BASE_TYPE_REQUIRED", msgRequired)},
				{jsonObj{"type": 4}, bodyEmptyMessage},
				{jsonObj{"type": 4, "data": jsonObj{"content": ""}}, bodyEmptyMessage},
				{jsonObj{"type": 5, "data": jsonObj{"flags": 4}}, fe("data.flags", "INTERACTION_RESPONSE_FLAGS_INVALID", "Invalid message flags")},
				{jsonObj{"type": 4, "data": jsonObj{"content": strings.Repeat("x", 2001)}},
					fe("data.content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")},
				{jsonObj{"type": 10, "data": jsonObj{"content": "x"}},
					fe("data", "INTERACTION_RESPONSE_DATA_INVALID", "This interaction response type takes no data")},
				{"{", bodyInvalidJSON},
			} {
				wantError(t, w.callback(t, p, "", c.body, -1), 400, c.want)
			}
			w.callback(t, p, "", message, 204)
			wantStatus(t, p.wait(t), 200)
		}},
		{"multipart callback", 2, func(t *testing.T, p *pending) {
			r := sendMultipart(t, e, "POST", p.callbackPath(""), `{"type":4,"data":{"content":"from a form"}}`)
			wantStatus(t, r, 204)
			_, _, msg := answerParts(t, p.wait(t))
			if msg["content"] != "from a form" {
				t.Fatalf("message: %v", msg)
			}
			wantNoteAttached(t, e, msg, w.channel)
		}},
		{"second answer", 2, func(t *testing.T, p *pending) {
			w.callback(t, p, "", message, 204)
			wantError(t, w.callback(t, p, "", jsonObj{"type": 5}, -1), 400, bodyAlreadyAcked)
			wantError(t, w.callback(t, p, "", message, -1), 400, bodyAlreadyAcked)
			_, _, msg := answerParts(t, p.wait(t))
			if msg["content"] != "hi" {
				t.Fatalf("the first answer counts: %v", msg)
			}
		}},
		{"wrong token or id", 2, func(t *testing.T, p *pending) {
			bad := *p
			bad.token = p.token[:len(p.token)-2] + "xx"
			wantError(t, mustDo(t, e, "POST", bad.callbackPath(""), "", message, -1), 404, bodyUnknownInteraction)
			bad = *p
			bad.id = "123456789012345678"
			wantError(t, mustDo(t, e, "POST", bad.callbackPath(""), "", message, -1), 404, bodyUnknownInteraction)
			w.callback(t, p, "", message, 204)
			wantStatus(t, p.wait(t), 200)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, w.start(t, w.invocation(c.it))) })
	}
}

// sendMultipart sends a multipart/form-data body: payload_json (when not
// empty) and a file.
func sendMultipart(t *testing.T, e *testenv.Env, method, path, payload string) testenv.Response {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("files[0]", "note.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte("hello"))
	if payload != "" {
		if err := mw.WriteField("payload_json", payload); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return send(t, e, method, path, map[string]string{"Content-Type": mw.FormDataContentType()}, b.Bytes())
}

// wantNoteAttached checks that message m carries sendMultipart's file as
// its one attachment, described as the real service does.
func wantNoteAttached(t *testing.T, e *testenv.Env, m jsonObj, channel string) {
	t.Helper()
	list, _ := m["attachments"].([]any)
	if len(list) != 1 {
		t.Fatalf("attachments: %v", m["attachments"])
	}
	a, _ := list[0].(jsonObj)
	prefix := e.URL + "/attachments/" + channel + "/" + str(a, "id") + "/note.txt?ex="
	if a["filename"] != "note.txt" || a["size"] != 5.0 || a["content_type"] != "text/plain; charset=utf-8" ||
		!strings.HasPrefix(str(a, "url"), prefix) || a["proxy_url"] != a["url"] || str(a, "id") == "" {
		t.Fatalf("attachment: %v", a)
	}
	if got := fetchFile(t, e, str(a, "url"), 200); string(got.body) != "hello" {
		t.Fatalf("the file served: %q", got.body)
	}
}

// The initial answer has 3 seconds (by the server's clock, which only
// the test moves).
func TestGatewayAnswerWindow(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	e.Clock.Freeze()

	p := w.start(t, w.invocation(2))
	e.Clock.Advance(2500 * time.Millisecond)
	w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "just in time"}}, 204)
	wantStatus(t, p.wait(t), 200)

	p = w.start(t, w.invocation(2))
	e.Clock.Advance(3100 * time.Millisecond)
	wantError(t, w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "late"}}, -1), 404, bodyUnknownInteraction)
	wantError(t, p.wait(t), 504, bodyNoResponse)
	// Never answered: no follow-ups either.
	wantError(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "x"}, -1), 404, bodyUnknownWebhook)
	if ids := w.messageIDs(t, w.aliceTok); len(ids) != 1 {
		t.Fatalf("messages: %v", ids)
	}
}

// The token serves follow-ups and edits for 15 minutes.
func TestGatewayTokenLifetime(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	e.Clock.Freeze()
	p, orig := w.answered(t, "hello", 0)
	f := decodeObj(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "soon"}, 200))

	e.Clock.Advance(14*time.Minute + 50*time.Second)
	mustDo(t, e, "GET", w.hook(p)+"/messages/@original", "", nil, 200)
	mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "still"}, 200)

	e.Clock.Advance(20 * time.Second)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", w.hook(p), jsonObj{"content": "too late"}},
		{"GET", w.hook(p) + "/messages/@original", nil},
		{"PATCH", w.hook(p) + "/messages/@original", jsonObj{"content": "x"}},
		{"DELETE", w.hook(p) + "/messages/@original", nil},
		{"GET", w.hook(p) + "/messages/" + str(f, "id"), nil},
		{"DELETE", w.hook(p) + "/messages/" + str(f, "id"), nil},
	} {
		wantError(t, mustDo(t, e, c.method, c.path, "", c.body, -1), 401, bodyInvalidWebhookTok)
	}
	if got := w.messageIDs(t, w.aliceTok); len(got) != 3 || !contains(got, str(orig, "id")) {
		t.Fatalf("messages: %v", got)
	}
}

func TestGatewayFollowups(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	e.Clock.Freeze() // the answer window passes when the test says

	// A follow-up sent before the initial answer waits for it (an app that
	// answers inline and follows up at once can be faster than its own
	// answer).
	early := w.start(t, w.invocation(2))
	followup := make(chan testenv.Response, 1)
	go func() { followup <- e.Do("POST", w.hook(early), "", jsonObj{"content": "right after"}) }()
	earlyID := mustID(t, early.id)
	testenv.WaitFor(t, "the follow-up waits beside the invocation", func() bool { return e.API.Waiting(earlyID) == 2 })
	w.callback(t, early, "", jsonObj{"type": 4, "data": jsonObj{"content": "early"}}, 204)
	if r := <-followup; r.Status != 200 || str(decodeObj(t, r), "content") != "right after" {
		t.Fatalf("follow-up sent before the answer: %s", describe(r))
	}
	wantStatus(t, early.wait(t), 200)

	// Never answered: once the answer window has passed the token is no
	// webhook.
	unanswered := w.start(t, w.invocation(2))
	e.Clock.Advance(4 * time.Second) // past the 3 s answer window
	wantError(t, mustDo(t, e, "POST", w.hook(unanswered), "", jsonObj{"content": "x"}, -1), 404, bodyUnknownWebhook)
	wantError(t, mustDo(t, e, "GET", w.hook(unanswered)+"/messages/@original", "", nil, -1), 404, bodyUnknownWebhook)
	wantStatus(t, unanswered.wait(t), 504)

	p, orig := w.answered(t, "original", 0)
	other, otherMsg := w.answered(t, "other", 0)
	userMsg := str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.bobTok,
		jsonObj{"content": "a user's"}, 200)), "id")
	hook := w.hook(p)
	origID := str(orig, "id")
	var f1, secret string

	steps := []struct {
		name         string
		method, path string
		body         any
		status       int
		want         string                        // error body
		check        func(t *testing.T, m jsonObj) // 200 bodies
	}{
		{name: "follow-up", method: "POST", path: hook, body: jsonObj{"content": "f1"}, status: 200,
			check: func(t *testing.T, m jsonObj) {
				f1 = str(m, "id")
				meta, _ := m["interaction_metadata"].(jsonObj)
				author, _ := m["author"].(jsonObj)
				if f1 == origID || m["content"] != "f1" || m["webhook_id"] != w.app || m["application_id"] != w.app ||
					author["id"] != w.app || meta["id"] != p.id || meta["original_response_message_id"] != origID {
					t.Fatalf("follow-up: %v", m)
				}
			}},
		{name: "ephemeral follow-up", method: "POST", path: hook, body: jsonObj{"content": "secret", "flags": flagEphemeral},
			status: 200, check: func(t *testing.T, m jsonObj) {
				secret = str(m, "id")
				if flagsOf(m) != flagEphemeral {
					t.Fatalf("follow-up: %v", m)
				}
				if !contains(w.messageIDs(t, w.aliceTok), secret) || contains(w.messageIDs(t, w.bobTok), secret) {
					t.Fatal("an ephemeral follow-up is visible to the invoker only")
				}
				// Its id is no secret to the webhook routes of the interaction.
				mustDo(t, e, "GET", hook+"/messages/"+secret, "", nil, 200)
			}},
		{name: "GET @original", method: "GET", path: hook + "/messages/@original", status: 200,
			check: func(t *testing.T, m jsonObj) {
				if m["id"] != origID || m["content"] != "original" || m["edited_timestamp"] != nil {
					t.Fatalf("@original: %v", m)
				}
			}},
		{name: "PATCH @original", method: "PATCH", path: hook + "/messages/@original", body: jsonObj{"content": "edited"},
			status: 200, check: func(t *testing.T, m jsonObj) {
				if m["id"] != origID || m["content"] != "edited" || m["edited_timestamp"] == nil {
					t.Fatalf("edited: %v", m)
				}
			}},
		{name: "PATCH @original to nothing", method: "PATCH", path: hook + "/messages/@original", body: jsonObj{"content": ""},
			status: 400, want: bodyEmptyMessage},
		{name: "GET a follow-up", method: "GET", status: 200, check: func(t *testing.T, m jsonObj) {
			if m["id"] != f1 || m["content"] != "f1" {
				t.Fatalf("follow-up: %v", m)
			}
		}},
		{name: "PATCH a follow-up", method: "PATCH", body: jsonObj{"content": "f1 again"}, status: 200,
			check: func(t *testing.T, m jsonObj) {
				if m["id"] != f1 || m["content"] != "f1 again" {
					t.Fatalf("follow-up: %v", m)
				}
			}},
		{name: "another interaction's message", method: "GET", path: hook + "/messages/" + str(otherMsg, "id"),
			status: 404, want: bodyUnknownMessage},
		{name: "edit another interaction's message", method: "PATCH", path: hook + "/messages/" + str(otherMsg, "id"),
			body: jsonObj{"content": "x"}, status: 404, want: bodyUnknownMessage},
		{name: "delete another interaction's message", method: "DELETE", path: hook + "/messages/" + str(otherMsg, "id"),
			status: 404, want: bodyUnknownMessage},
		{name: "a user's message", method: "GET", path: hook + "/messages/" + userMsg, status: 404, want: bodyUnknownMessage},
		{name: "unknown message", method: "GET", path: hook + "/messages/123456789012345678", status: 404, want: bodyUnknownMessage},
		{name: "empty follow-up", method: "POST", path: hook, body: jsonObj{}, status: 400, want: bodyEmptyMessage},
		{name: "follow-up with empty content", method: "POST", path: hook, body: jsonObj{"content": ""}, status: 400,
			want: bodyEmptyMessage},
		{name: "follow-up with the loading flag", method: "POST", path: hook, body: jsonObj{"content": "x", "flags": flagLoading},
			status: 400, want: fe("flags", "INTERACTION_RESPONSE_FLAGS_INVALID", "Invalid message flags")},
		{name: "follow-up too long", method: "POST", path: hook, body: jsonObj{"content": strings.Repeat("x", 2001)},
			status: 400, want: fe("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")},
		{name: "follow-up to another app's path", method: "POST", path: "/api/v10/webhooks/123456789012345678/" + p.token,
			body: jsonObj{"content": "x"}, status: 404, want: bodyUnknownWebhook},
		{name: "follow-up with an unknown token", method: "POST", path: "/api/v10/webhooks/" + w.app + "/nope",
			body: jsonObj{"content": "x"}, status: 404, want: bodyUnknownWebhook},
		{name: "DELETE a follow-up", method: "DELETE", status: 204},
		{name: "deleted follow-up", method: "GET", status: 404, want: bodyUnknownMessage},
		{name: "DELETE @original", method: "DELETE", path: hook + "/messages/@original", status: 204},
		{name: "deleted @original", method: "GET", path: hook + "/messages/@original", status: 404, want: bodyUnknownMessage},
		{name: "the other interaction is untouched", method: "GET", path: w.hook(other) + "/messages/@original", status: 200,
			check: func(t *testing.T, m jsonObj) {
				if m["content"] != "other" {
					t.Fatalf("other: %v", m)
				}
			}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			path := s.path
			if path == "" {
				path = hook + "/messages/" + f1
			}
			r := mustDo(t, e, s.method, path, "", s.body, -1)
			switch {
			case s.status == 204:
				wantStatus(t, r, 204)
			case s.status != 200:
				wantError(t, r, s.status, s.want)
			default:
				wantStatus(t, r, 200)
				s.check(t, decodeObj(t, r))
			}
		})
	}

	t.Run("multipart follow-up", func(t *testing.T) {
		r := sendMultipart(t, e, "POST", hook, `{"content":"with a file"}`)
		wantStatus(t, r, 200)
		m := decodeObj(t, r)
		if m["content"] != "with a file" {
			t.Fatalf("follow-up: %v", m)
		}
		wantNoteAttached(t, e, m, w.channel)
		wantError(t, sendMultipart(t, e, "POST", hook, ""), 400, fe("payload_json", "BASE_TYPE_REQUIRED", msgRequired))
	})
	t.Run("channel after all that", func(t *testing.T) {
		got := w.messageIDs(t, w.aliceTok)
		if contains(got, origID) || contains(got, f1) || !contains(got, secret) || !contains(got, str(otherMsg, "id")) {
			t.Fatalf("alice sees %v", got)
		}
		if contains(w.messageIDs(t, w.bobTok), secret) {
			t.Fatal("bob sees the ephemeral follow-up")
		}
	})
}

// GET /channels/{id}/messages: newest first, ?limit 1–100, ?before.
func TestChannelMessagesPaging(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	var posted []string
	post := func(content string) {
		posted = append(posted, str(decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.aliceTok,
			jsonObj{"content": content}, 200)), "id"))
	}
	post("one")
	_, eph := w.answered(t, "only alice sees this", flagEphemeral) // between one and two
	secret := str(eph, "id")
	post("two")
	post("three")
	list := "/api/v10/channels/" + w.channel + "/messages"
	noHistory := w.world.channel(jsonObj{"name": "no history", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "65536"}}})
	stranger := w.client(w.user("stranger"))

	cases := []struct {
		name, path, client string
		status             int
		want               string   // error body
		ids                []string // 200: the ids, in order
	}{
		{name: "all", path: list, ids: []string{posted[2], posted[1], secret, posted[0]}},
		{name: "all, as another member", path: list, client: w.bobTok, ids: []string{posted[2], posted[1], posted[0]}},
		{name: "limit 1", path: list + "?limit=1", ids: []string{posted[2]}},
		{name: "limit 3", path: list + "?limit=3", ids: []string{posted[2], posted[1], secret}},
		{name: "limit 3, as another member", path: list + "?limit=3", client: w.bobTok,
			ids: []string{posted[2], posted[1], posted[0]}},
		{name: "limit 100", path: list + "?limit=100", ids: []string{posted[2], posted[1], secret, posted[0]}},
		{name: "before", path: list + "?before=" + posted[2], ids: []string{posted[1], secret, posted[0]}},
		{name: "before and limit", path: list + "?before=" + posted[2] + "&limit=1", ids: []string{posted[1]}},
		{name: "before and limit, as another member", path: list + "?before=" + posted[1] + "&limit=1", client: w.bobTok,
			ids: []string{posted[0]}},
		{name: "before the first", path: list + "?before=" + posted[0], ids: []string{}},
		{name: "limit 0", path: list + "?limit=0", status: 400,
			want: fe("limit", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 1.")},
		{name: "limit 101", path: list + "?limit=101", status: 400,
			want: fe("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100.")},
		{name: "limit not a number", path: list + "?limit=ten", status: 400,
			want: fe("limit", "NUMBER_TYPE_COERCE", `Value "ten" is not int.`)},
		{name: "before not a snowflake", path: list + "?before=abc", status: 400,
			want: fe("before", "NUMBER_TYPE_COERCE", notSnowflake("abc"))},
		{name: "not a member", path: list, client: stranger, status: 403, want: bodyMissingAccess},
		{name: "unknown channel", path: "/api/v10/channels/123456789012345678/messages", status: 404, want: bodyUnknownChannel},
		{name: "without READ_MESSAGE_HISTORY", path: "/api/v10/channels/" + noHistory + "/messages", ids: []string{}},
		{name: "no client token", path: list, client: "-", status: 401, want: bodyUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := c.client
			switch client {
			case "":
				client = w.aliceTok
			case "-":
				client = ""
			}
			r := mustDo(t, e, "GET", c.path, client, nil, -1)
			if c.status != 0 {
				wantError(t, r, c.status, c.want)
				return
			}
			wantStatus(t, r, http.StatusOK)
			if got := ids(decodeList(t, r), "id"); strings.Join(got, ",") != strings.Join(c.ids, ",") {
				t.Fatalf("ids %v, want %v", got, c.ids)
			}
		})
	}
}

// POST and GET /channels/{id}/messages with a bot token: a bot sends and
// reads messages in channels of guilds it is a member of, as the real
// service's bots do (discordgo's modals example sends its survey results
// with ChannelMessageSend).
func TestBotChannelMessages(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	path := "/api/v10/channels/" + w.channel + "/messages"
	m := decodeObj(t, mustDo(t, e, "POST", path, e.Bot(), jsonObj{"content": "from the bot", "flags": flagEphemeral}, 200))
	author, _ := m["author"].(jsonObj)
	if m["content"] != "from the bot" || m["type"] != 0.0 || author["id"] != w.app || author["bot"] != true ||
		flagsOf(m) != 0 || m["webhook_id"] != nil || m["interaction_metadata"] != nil {
		t.Fatalf("the bot's message: %v", m)
	}
	if got := w.messageIDs(t, w.bobTok); len(got) != 1 || got[0] != str(m, "id") {
		t.Fatalf("bob sees %v", got)
	}
	if got := ids(decodeList(t, mustDo(t, e, "GET", path, e.Bot(), nil, 200)), "id"); len(got) != 1 || got[0] != str(m, "id") {
		t.Fatalf("the bot sees %v", got)
	}

	mute := w.world.channel(jsonObj{"name": "read only", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "2048"}}})
	stranger := e.NewApp(bootstrap.AppOptions{Name: "stranger"}) // its bot is in another guild
	for _, c := range []struct {
		name, path, auth string
		status           int
		want             string
	}{
		{"without SEND_MESSAGES", "/api/v10/channels/" + mute + "/messages", e.Bot(), 403, bodyMissingPerms},
		{"a bot that is no member", path, "Bot " + stranger.BotToken, 403, bodyMissingAccess},
		{"a Bearer token", path, e.Owner(), 401, bodyUnauthorized},
		{"a wrong bot token", path, "Bot nope", 401, bodyUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, mustDo(t, e, "POST", c.path, c.auth, jsonObj{"content": "x"}, -1), c.status, c.want)
		})
	}
}

// A token is found by the interaction id it carries, then checked whole:
// the id of a real interaction with another secret, or with the secret of
// another interaction, is no webhook, on every webhook route and on the
// callback route.
func TestWebhookTokenForgedAroundARealID(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	p, _ := w.answered(t, "original", 0)
	other, _ := w.answered(t, "other", 0)
	forge := func(id, secretOf string) string {
		raw, err := base64.RawURLEncoding.DecodeString(secretOf)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.SplitN(string(raw), ":", 3)
		return base64.RawURLEncoding.EncodeToString([]byte("interaction:" + id + ":" + parts[2]))
	}
	tokens := map[string]string{
		"another secret":       base64.RawURLEncoding.EncodeToString([]byte("interaction:" + p.id + ":" + strings.Repeat("A", 64))),
		"another's secret":     forge(p.id, other.token),
		"not an interaction's": base64.RawURLEncoding.EncodeToString([]byte("webhook:" + p.id + ":x")),
		"not base64url at all": "not.a.token!",
	}
	for name, token := range tokens {
		t.Run(name, func(t *testing.T) {
			hook := "/api/v10/webhooks/" + w.app + "/" + token
			wantError(t, mustDo(t, e, "POST", hook, "", jsonObj{"content": "x"}, -1), 404, bodyUnknownWebhook)
			wantError(t, mustDo(t, e, "GET", hook+"/messages/@original", "", nil, -1), 404, bodyUnknownWebhook)
			wantError(t, mustDo(t, e, "PATCH", hook+"/messages/@original", "", jsonObj{"content": "x"}, -1), 404, bodyUnknownWebhook)
			wantError(t, mustDo(t, e, "DELETE", hook+"/messages/@original", "", nil, -1), 404, bodyUnknownWebhook)
			r := mustDo(t, e, "POST", "/api/v10/interactions/"+p.id+"/"+token+"/callback", "",
				jsonObj{"type": 4, "data": jsonObj{"content": "x"}}, -1)
			wantError(t, r, 404, bodyUnknownInteraction)
		})
	}
	// The real token still works.
	mustDo(t, e, "GET", w.hook(p)+"/messages/@original", "", nil, 200)
}

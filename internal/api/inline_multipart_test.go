package api_test

// An Interactions Endpoint that answers inline with multipart/form-data
// (payload_json and files[n], as slash-create and disgo answer a reply
// with a file): read with the callback route's rules, its files become
// the message's attachments; a form that cannot be read fails the
// invocation as an unusable inline answer does. And an answer into a
// channel deleted during the delivery: 10003 for a callback, a failed
// invocation for an inline answer, never a 500.

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// writeForm answers with a multipart form: payload_json (unless empty)
// and files[0] note.txt ("hello"); mangle may change the body and the
// Content-Type before they are written.
func writeForm(w http.ResponseWriter, payload string, mangle func(body []byte, contentType string) ([]byte, string)) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if payload != "" {
		_ = mw.WriteField("payload_json", payload)
	}
	fw, _ := mw.CreateFormFile("files[0]", "note.txt")
	_, _ = fw.Write([]byte("hello"))
	_ = mw.Close()
	body, ct := b.Bytes(), mw.FormDataContentType()
	if mangle != nil {
		body, ct = mangle(body, ct)
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(body)
}

func TestInvokeEndpointMultipartAnswer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e) // its SDK app is replaced below
	truncate := func(body []byte, ct string) ([]byte, string) { return body[:len(body)-10], ct }
	noBoundary := func(body []byte, _ string) ([]byte, string) { return body, "multipart/form-data" }
	otherBoundary := func(body []byte, _ string) ([]byte, string) { return body, "multipart/form-data; boundary=elsewhere" }
	answers := map[string]struct {
		payload string
		mangle  func([]byte, string) ([]byte, string)
	}{
		"file":          {payload: `{"type":4,"data":{"content":"a file"}}`},
		"described":     {payload: `{"type":4,"data":{"attachments":[{"id":0,"filename":"renamed.txt","description":"the note"}]}}`},
		"ephemeral":     {payload: `{"type":4,"data":{"content":"for you","flags":64}}`},
		"nopayload":     {},
		"truncated":     {payload: `{"type":4,"data":{"content":"x"}}`, mangle: truncate},
		"noboundary":    {payload: `{"type":4,"data":{"content":"x"}}`, mangle: noBoundary},
		"otherboundary": {payload: `{"type":4,"data":{"content":"x"}}`, mangle: otherBoundary},
		"notjson":       {payload: `{"type":4,`},
		"wrongtype":     {payload: `{"type":7,"data":{"content":"x"}}`},
		"unknowntype":   {payload: `{"type":99}`},
		"baddata":       {payload: `{"type":4,"data":{"content":5}}`},
		"toolong":       {payload: `{"type":4,"data":{"content":"` + string(bytes.Repeat([]byte("x"), 2001)) + `"}}`},
	}
	app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, _ *http.Request, i *interactions.Interaction) {
		a := answers[i.Data.Name]
		writeForm(rw, a.payload, a.mangle)
	})
	adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": app.URL}, 200)

	attachment := func(t *testing.T, r testenv.Response) (jsonObj, jsonObj) {
		t.Helper()
		wantStatus(t, r, 200)
		_, _, msg := answerParts(t, r)
		list, _ := msg["attachments"].([]any)
		if len(list) != 1 {
			t.Fatalf("attachments: %v", msg["attachments"])
		}
		a, _ := list[0].(jsonObj)
		return msg, a
	}
	for _, c := range []struct {
		name  string
		check func(t *testing.T, r testenv.Response)
	}{
		{"file", func(t *testing.T, r testenv.Response) {
			msg, _ := attachment(t, r)
			wantNoteAttached(t, e, msg, w.channel)
			if msg["content"] != "a file" {
				t.Fatalf("message: %v", msg)
			}
			// The channel holds it as answered.
			got := decodeObj(t, mustDo(t, e, "GET", "/api/v10/channels/"+w.channel+"/messages/"+str(msg, "id"), e.Bot(), nil, 200))
			wantNoteAttached(t, e, got, w.channel)
		}},
		{"described", func(t *testing.T, r testenv.Response) {
			msg, a := attachment(t, r)
			if a["filename"] != "renamed.txt" || a["description"] != "the note" || a["size"] != 5.0 || msg["content"] != "" {
				t.Fatalf("message: %v", msg)
			}
		}},
		{"ephemeral", func(t *testing.T, r testenv.Response) {
			msg, a := attachment(t, r)
			if flagsOf(msg) != 64 || a["filename"] != "note.txt" {
				t.Fatalf("message: %v", msg)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, w.invoke(w.invocation(2, w.command(chat(c.name)))))
		})
	}
	for _, name := range []string{"nopayload", "truncated", "noboundary", "otherboundary", "notjson", "wrongtype",
		"unknowntype", "baddata", "toolong"} {
		t.Run(name, func(t *testing.T) {
			wantError(t, w.invoke(w.invocation(2, w.command(chat(name)))), 502, bodyInteractionFailed)
		})
	}
}

// A channel deleted while its interaction is delivered: the answer has
// nowhere to go (10003 to the callback, a failed invocation for an
// inline answer); once the channel is gone its interactions are too
// (10062 to the callback, 10015 to the token, 10003 to the waiting
// invoker).
func TestAnswerIntoDeletedChannel(t *testing.T) {
	t.Parallel()
	t.Run("inline", func(t *testing.T) {
		t.Parallel()
		e := testenv.New(t)
		w := newInvokeWorld(t, e)
		cmd := w.command(chat("vanish"))
		gone := w.channel0()
		w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
			adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/channels/"+gone, nil, 204)
			return interactions.Message("into the void"), nil
		})
		w.channel = gone
		wantError(t, w.invoke(w.invocation(2, cmd)), 502, bodyInteractionFailed)
	})
	t.Run("callback during the delivery", func(t *testing.T) {
		t.Parallel()
		e := testenv.New(t)
		w := newInvokeWorld(t, e)
		e.Clock.Freeze()
		gone := w.channel0()
		callback := make(chan testenv.Response, 1)
		app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, _ *http.Request, i *interactions.Interaction) {
			adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/channels/"+gone, nil, 204)
			callback <- e.Do("POST", "/api/v10/interactions/"+i.ID+"/"+i.Token+"/callback", "",
				jsonObj{"type": 4, "data": jsonObj{"content": "into the void"}})
			rw.WriteHeader(http.StatusAccepted)
		})
		adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": app.URL}, 200)
		cmd := w.command(chat("vanish"))
		w.channel = gone
		done := make(chan testenv.Response, 1)
		go func() { done <- w.e.Do("POST", "/api/v10/interactions", w.client, w.invocation(2, cmd)) }()
		var answer testenv.Response
		select {
		case answer = <-callback:
		case <-time.After(testenv.WaitTimeout):
			t.Fatal("the app was not called")
		}
		// Nothing was stored: the answer window runs out (moved on
		// before any check, so that a failing one ends the invocation).
		e.Clock.Advance(3100 * time.Millisecond)
		select {
		case r := <-done:
			wantError(t, r, 504, bodyNoResponse)
		case <-time.After(testenv.WaitTimeout):
			t.Fatal("the invocation did not end")
		}
		wantError(t, answer, 404, bodyUnknownChannel)
	})
	t.Run("callback after the deletion", func(t *testing.T) {
		t.Parallel()
		e := testenv.New(t)
		w := newGatewayWorld(t, e)
		e.Clock.Freeze()
		p := w.start(t, w.invocation(2))
		// The channel's interactions go with it: the token names none.
		adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/channels/"+w.channel, nil, 204)
		wantError(t, w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "into the void"}}, -1), 404, bodyUnknownInteraction)
		wantError(t, mustDo(t, e, "POST", w.hook(p), "", jsonObj{"content": "x"}, -1), 404, bodyUnknownWebhook)
		// The invoking client learns it without waiting out the window.
		wantError(t, p.wait(t), 404, bodyUnknownChannel)
	})
}

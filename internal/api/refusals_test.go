package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// TestRefusalEvents: an app's message write that is refused is published
// on the bus for the playground, naming its interaction, invoker and
// channel, with the error body the app got: an inline answer, a second
// callback, a follow-up, an edit of @original, a bot's channel post.
// Requests with an unknown token, and a person's refused post, are
// nobody's to show and publish nothing.
func TestRefusalEvents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e.API.Events().Subscribe(ctx, 256)
	next := func() event.Refusal {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.Type != event.RequestRefused {
					continue
				}
				var r event.Refusal
				if err := event.DecodeData(ev.Data, &r); err != nil {
					t.Fatal(err)
				}
				if r.ID == 0 || r.ApplicationID.String() != w.app || r.ChannelID.String() != w.channel {
					t.Fatalf("refusal %+v: want an id, app %s, channel %s", r, w.app, w.channel)
				}
				return r
			case <-deadline:
				t.Fatal("no refusal within 30 s")
			}
		}
	}
	errCode := func(r event.Refusal) int {
		var b struct{ Code int }
		if err := json.Unmarshal(r.Error, &b); err != nil {
			t.Fatalf("error body %s: %v", r.Error, err)
		}
		return b.Code
	}
	cmd := w.command(jsonObj{"name": "talk", "description": "Talks"})
	tooLong := strings.Repeat("x", 2001)

	// An inline answer of 2,001 characters: the invocation fails, and the
	// refusal names the interaction and the field.
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) {
		return interactions.Message(tooLong), nil
	})
	w.invoke(w.invocation(2, cmd))
	r := next()
	if r.Route != "inline answer" || r.Method != "" || r.InteractionID.String() != w.last().ID ||
		r.UserID.String() != w.member || r.InteractionType != 2 || r.Name != "talk" || r.CommandType != 1 || r.Status != 400 || errCode(r) != 50035 || !strings.Contains(string(r.Error), `"content"`) {
		t.Fatalf("inline refusal: %+v %s", r, r.Error)
	}

	// A valid answer; then a second callback (already acknowledged), an
	// empty follow-up and an edit too long, each refused.
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) { return interactions.Message("ok"), nil })
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
	in := w.last()
	hook := "/api/v10/webhooks/" + w.app + "/" + in.Token
	cases := []struct {
		method, path string
		body         jsonObj
		route        string
		status, code int
	}{
		{"POST", "/api/v10/interactions/" + in.ID + "/" + in.Token + "/callback", jsonObj{"type": 4, "data": jsonObj{"content": "again"}},
			"POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback", 400, 40060},
		{"POST", hook, jsonObj{}, "POST /api/v10/webhooks/{application_id}/{interaction_token}", 400, 50006},
		{"PATCH", hook + "/messages/@original", jsonObj{"content": tooLong},
			"PATCH /api/v10/webhooks/{application_id}/{interaction_token}/messages/{message_id}", 400, 50035},
	}
	for _, c := range cases {
		// An unknown token first: nothing is published for it.
		bad := strings.Replace(c.path, in.Token, in.Token[:len(in.Token)-4]+"AAAA", 1)
		if got := e.Do(c.method, bad, "", c.body); got.Status < 400 {
			t.Fatalf("%s with a wrong token: %d", c.method, got.Status)
		}
		wantStatus(t, e.Do(c.method, c.path, "", c.body), c.status)
		r := next()
		if r.Method != c.method || r.Route != c.route || r.InteractionID.String() != in.ID || r.UserID.String() != w.member || r.Name != "talk" ||
			r.Status != c.status || errCode(r) != c.code || strings.Contains(r.Path, in.Token) {
			t.Fatalf("%s %s: refusal %+v %s", c.method, c.route, r, r.Error)
		}
	}

	// A person's empty post publishes nothing; a bot's does, without an
	// interaction.
	wantStatus(t, e.Do("POST", "/api/v10/channels/"+w.channel+"/messages", w.client, jsonObj{}), 400)
	wantStatus(t, e.Do("POST", "/api/v10/channels/"+w.channel+"/messages", e.Bot(), jsonObj{}), 400)
	r = next()
	if r.InteractionID != 0 || r.UserID != 0 || r.Method != "POST" || r.Route != "POST /api/v10/channels/{channel_id}/messages" || errCode(r) != 50006 {
		t.Fatalf("a bot's refused post: %+v %s", r, r.Error)
	}
}

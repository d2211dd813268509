package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// TestMessageEvents: every route that writes a message publishes it on
// the event bus once written (what the playground streams): a user's
// post, an answer (ephemeral ones for the invoker only), a follow-up,
// an edit of @original and a deletion.
func TestMessageEvents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e.API.Events().Subscribe(ctx, 256)
	next := func(want string) event.Message {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.Type != event.MessageCreate && ev.Type != event.MessageUpdate && ev.Type != event.MessageDelete {
					continue
				}
				var m event.Message
				if err := event.DecodeData(ev.Data, &m); err != nil {
					t.Fatal(err)
				}
				if ev.Type != want {
					t.Fatalf("got %s %+v, want %s", ev.Type, m, want)
				}
				if m.ChannelID.String() != w.channel {
					t.Fatalf("%s in channel %s, want %s", ev.Type, m.ChannelID, w.channel)
				}
				return m
			case <-deadline:
				t.Fatalf("no %s within 30 s", want)
			}
		}
	}

	post := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.client, jsonObj{"content": "hi"}, 200))
	if m := next(event.MessageCreate); m.ID.String() != str(post, "id") || m.InteractionID != 0 || !strings.Contains(string(m.Body), `"hi"`) {
		t.Fatalf("the post: %+v", m)
	}

	cmd := w.command(jsonObj{"name": "talk", "description": "Talks"})
	var token string
	ephemeral := false
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		token = i.Token
		data := jsonObj{"content": "answer"}
		if ephemeral {
			data["flags"] = 64
		}
		return interactions.Response{Type: 4, Data: data}, nil
	})
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
	answer := next(event.MessageCreate)
	if answer.InteractionID == 0 || answer.VisibleTo != 0 || !strings.Contains(string(answer.Body), `"answer"`) {
		t.Fatalf("the answer: %+v", answer)
	}
	hook := "/api/v10/webhooks/" + w.app + "/" + token
	fu := decodeObj(t, mustDo(t, e, "POST", hook, "", jsonObj{"content": "later"}, 200))
	if m := next(event.MessageCreate); m.ID.String() != str(fu, "id") || m.InteractionID != answer.InteractionID {
		t.Fatalf("the follow-up: %+v", m)
	}
	mustDo(t, e, "PATCH", hook+"/messages/@original", "", jsonObj{"content": "answer, edited"}, 200)
	if m := next(event.MessageUpdate); m.ID != answer.ID || !strings.Contains(string(m.Body), "answer, edited") {
		t.Fatalf("the edit: %+v", m)
	}
	mustDo(t, e, "DELETE", hook+"/messages/"+str(fu, "id"), "", nil, 204)
	if m := next(event.MessageDelete); m.ID.String() != str(fu, "id") || len(m.Body) != 0 {
		t.Fatalf("the deletion: %+v", m)
	}

	ephemeral = true
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
	if m := next(event.MessageCreate); m.VisibleTo.String() != w.member {
		t.Fatalf("the ephemeral answer is visible to %s, want %s", m.VisibleTo, w.member)
	}
}

// With MessageEventsOff (serve --ui=false) a message written publishes
// nothing: the bus carries the marker published after the post, and no
// message event before it.
func TestMessageEventsOff(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.MessageEventsOff = true })
	w := newInvokeWorld(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := e.API.Events().Subscribe(ctx, 256)
	mustDo(t, e, "POST", "/api/v10/channels/"+w.channel+"/messages", w.client, jsonObj{"content": "hi"}, 200)
	const marker = "TEST_MARKER"
	e.API.Events().Publish(ctx, event.Event{Type: marker})
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			switch ev.Type {
			case event.MessageCreate, event.MessageUpdate, event.MessageDelete:
				t.Fatalf("%s published with message events off", ev.Type)
			case marker:
				return
			}
		case <-deadline:
			t.Fatal("the marker did not come back within 30 s")
		}
	}
}

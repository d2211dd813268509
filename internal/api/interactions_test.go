package api_test

// End-to-end tests of invoking commands: a member POSTs /interactions with
// a client token, slashd delivers the signed interaction to an HTTP app
// built on the SDK (sdk/interactions) and returns the app's answer.

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// invokeWorld is a world with a text channel, a member with a client
// token, and an HTTP app whose answers the test chooses.
type invokeWorld struct {
	*world
	channel string
	member  string // user id
	client  string // the member's client token

	mu       sync.Mutex
	answer   func(i *interactions.Interaction) (interactions.Response, error)
	received []*interactions.Interaction
}

func newInvokeWorld(t testing.TB, e *testenv.Env) *invokeWorld {
	t.Helper()
	w := &invokeWorld{world: newWorld(t, e)}
	w.channel = w.channel0()
	w.member = w.memberNamed("alice")
	w.client = w.world.client(w.member)
	app := httptest.NewServer(interactions.Handler(e.App.PublicKey,
		func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
			w.mu.Lock()
			w.received = append(w.received, i)
			answer := w.answer
			w.mu.Unlock()
			if answer == nil {
				return interactions.Message("ok"), nil
			}
			return answer(i)
		}))
	t.Cleanup(app.Close)
	adminDo(t, e, "PUT", "/applications/"+e.App.ApplicationID+"/interactions-endpoint",
		jsonObj{"interactions_endpoint_url": app.URL}, 200)
	return w
}

func (w *invokeWorld) channel0() string {
	return w.world.channel(jsonObj{"name": "general", "type": 0})
}

// answerWith sets how the app answers.
func (w *invokeWorld) answerWith(f func(i *interactions.Interaction) (interactions.Response, error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.answer = f
}

// last is the last interaction the app received.
func (w *invokeWorld) last() *interactions.Interaction {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.received) == 0 {
		w.t.Fatal("the app received nothing")
	}
	return w.received[len(w.received)-1]
}

// command registers a guild command and returns it as stored.
func (w *invokeWorld) command(body jsonObj) jsonObj {
	w.t.Helper()
	return create(w.t, w.e, w.paths.guildCmds(), w.e.Bot(), body)
}

// invocation is the body a client POSTs to run cmd.
func (w *invokeWorld) invocation(it int, cmd jsonObj, data ...any) jsonObj {
	d := with(jsonObj{"id": cmd["id"], "name": cmd["name"], "type": cmd["type"], "version": cmd["version"]}, data...)
	return jsonObj{"type": it, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel, "data": d}
}

func (w *invokeWorld) invoke(body any) testenv.Response {
	w.t.Helper()
	return w.e.Do("POST", "/api/v10/interactions", w.client, body)
}

func TestInvokeChatInputDeliversSignedInteraction(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "echo", "description": "Echo", "options": []jsonObj{
		{"type": 3, "name": "text", "description": "Text", "required": true},
	}})
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		opt, _ := i.Data.Option("text")
		s, _ := opt.String()
		return interactions.Message("you said " + s), nil
	})
	r := w.invoke(w.invocation(2, cmd, "options", []jsonObj{{"type": 3, "name": "text", "value": "hello"}}))
	wantStatus(t, r, 200)
	var out struct {
		Interaction struct {
			ID                string `json:"id"`
			Type              int    `json:"type"`
			ResponseMessageID string `json:"response_message_id"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID      string `json:"id"`
				Type    int    `json:"type"`
				Content string `json:"content"`
				Author  struct {
					ID  string `json:"id"`
					Bot bool   `json:"bot"`
				} `json:"author"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &out)
	if out.Resource.Type != 4 || out.Resource.Message.Content != "you said hello" || out.Resource.Message.Type != 20 ||
		out.Resource.Message.Author.ID != w.app || !out.Resource.Message.Author.Bot ||
		out.Interaction.ResponseMessageID != out.Resource.Message.ID {
		t.Fatalf("answer: %s", r.Body)
	}
	got := w.last()
	if got.ID != out.Interaction.ID || got.Type != interactions.InteractionApplicationCommand || got.Data.Name != "echo" ||
		got.GuildID != w.guild || got.ChannelID != w.channel || got.Member == nil || got.Member.User.ID != w.member ||
		got.Token == "" || got.Version != 1 {
		t.Fatalf("delivered: %+v", got)
	}
	msgs := decodeList(t, mustDo(t, e, "GET", "/api/v10/channels/"+w.channel+"/messages", w.client, nil, 200))
	if len(msgs) != 1 || str(msgs[0], "content") != "you said hello" {
		t.Fatalf("channel messages: %v", msgs)
	}
}

// The raw payload has every field the real service sends.
func TestInvokePayloadShape(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "who", "description": "Who", "options": []jsonObj{
		{"type": 6, "name": "user", "description": "A user"},
	}})
	var raw []byte
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		raw = i.Raw
		return interactions.Message("ok"), nil
	})
	wantStatus(t, w.invoke(w.invocation(2, cmd, "options", []jsonObj{{"type": 6, "name": "user", "value": w.owner}})), 200)
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("payload %s: %v", raw, err)
	}
	for _, k := range []string{"id", "application_id", "type", "data", "guild", "guild_id", "channel", "channel_id",
		"member", "token", "version", "app_permissions", "locale", "guild_locale", "entitlements",
		"authorizing_integration_owners", "context", "attachment_size_limit"} {
		if _, ok := p[k]; !ok {
			t.Errorf("payload lacks %q: %s", k, raw)
		}
	}
	var data struct {
		Resolved struct {
			Users   map[string]json.RawMessage `json:"users"`
			Members map[string]map[string]any  `json:"members"`
		} `json:"resolved"`
	}
	if err := json.Unmarshal(p["data"], &data); err != nil {
		t.Fatal(err)
	}
	if _, ok := data.Resolved.Users[w.owner]; !ok {
		t.Fatalf("resolved users: %s", p["data"])
	}
	m, ok := data.Resolved.Members[w.owner]
	if !ok || m["permissions"] == nil || m["user"] != nil {
		t.Fatalf("resolved members: %s", p["data"])
	}
}

// Spec §2.8: the payload always carries the default names of the command
// and its options, even for a user whose locale has localized ones.
func TestInvokePayloadUsesDefaultNames(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	adminDo(t, e, "PATCH", "/users/"+w.member, jsonObj{"locale": "fr"}, 200)
	cmd := w.command(jsonObj{"name": "greet", "description": "Greet", "name_localizations": jsonObj{"fr": "saluer"},
		"options": []jsonObj{{"type": 3, "name": "who", "description": "Who", "name_localizations": jsonObj{"fr": "qui"}}}})
	var data struct {
		Name    string `json:"name"`
		Options []struct {
			Name string `json:"name"`
		} `json:"options"`
	}
	var locale string
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		var raw struct {
			Data   json.RawMessage `json:"data"`
			Locale string          `json:"locale"`
		}
		_ = json.Unmarshal(i.Raw, &raw)
		_ = json.Unmarshal(raw.Data, &data)
		locale = raw.Locale
		return interactions.Message("ok"), nil
	})
	wantStatus(t, w.invoke(w.invocation(2, cmd, "options", []jsonObj{{"type": 3, "name": "who", "value": "you"}})), 200)
	if data.Name != "greet" || len(data.Options) != 1 || data.Options[0].Name != "who" || locale != "fr" {
		t.Fatalf("delivered data %+v with locale %q, want the default names and locale fr", data, locale)
	}
	// A localized name is not the command's name.
	r := w.invoke(with(w.invocation(2, cmd), "data", jsonObj{"id": cmd["id"], "name": "saluer", "type": 1,
		"version": cmd["version"], "options": []jsonObj{{"type": 3, "name": "who", "value": "you"}}}))
	wantError(t, r, 400, formError(leaf{"data.name", "INTERACTION_APPLICATION_COMMAND_INVALID", "Application command name does not match"}))
}

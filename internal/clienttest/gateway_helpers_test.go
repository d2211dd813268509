package clienttest

// Shared pieces of the gateway tests (gateway_discordgo_test.go,
// gateway_disgo_test.go): a guild with a member who invokes commands, a
// background invocation and waits (the network between a bot's websocket
// and slashd, which the test can cut to force a resume, is package
// netlink).

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

// gatewayTimeout bounds every wait for something a bot should receive.
const gatewayTimeout = 8 * time.Second

// heartbeatInterval is what the gateway asks for in the tests (it closes
// a connection silent for 1.5 intervals), so that the libraries'
// heartbeats and slashd's ACKs are exercised within a short test.
const heartbeatInterval = time.Second

func fastHeartbeat(c *api.Config) { c.Gateway.HeartbeatInterval = heartbeatInterval }

// gwWorld is the environment's first app and guild with a text channel
// and a plain member who has a client token.
type gwWorld struct {
	e       *testenv.Env
	app     string
	guild   string
	channel string
	member  string // user id
	client  string // the member's client token (sent bare)
}

func newGWWorld(t *testing.T, e *testenv.Env) *gwWorld {
	t.Helper()
	w := &gwWorld{e: e, app: e.App.ApplicationID, guild: e.App.GuildID}
	w.channel = adminID(t, e, "POST", "/guilds/"+w.guild+"/channels", map[string]any{"name": "general", "type": 0}, "id")
	w.member = adminID(t, e, "POST", "/users", map[string]any{"username": "alice"}, "id")
	if r := e.Do("PUT", "/admin/v1/guilds/"+w.guild+"/members/"+w.member, e.AdminAuth(), map[string]any{"roles": []string{}}); r.Status/100 != 2 {
		t.Fatalf("add member: %d %s", r.Status, r.Body)
	}
	w.client = adminID(t, e, "POST", "/users/"+w.member+"/tokens", map[string]any{"type": "client"}, "token")
	return w
}

// adminID sends an admin API request that must answer 201 and returns
// the string field key of its body.
func adminID(t *testing.T, e *testenv.Env, method, path string, body any, key string) string {
	t.Helper()
	r := e.Do(method, "/admin/v1"+path, e.AdminAuth(), body)
	if r.Status != http.StatusCreated {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	var m map[string]any
	r.JSON(t, &m)
	s, _ := m[key].(string)
	if s == "" {
		t.Fatalf("%s %s: no %q in %s", method, path, key, r.Body)
	}
	return s
}

// invocationBody is what a client POSTs to /interactions to run a chat
// input command in the world's channel.
func (w *gwWorld) invocationBody(cmdID, name, version string) map[string]any {
	return map[string]any{"type": 2, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": map[string]any{"id": cmdID, "name": name, "type": 1, "version": version}}
}

// invokeResult is the end of an invocation.
type invokeResult struct {
	status int
	body   []byte
	err    error
}

// invoke runs POST /api/v10/interactions as the member in the
// background (it waits up to 3 s for the bot's answer).
func (w *gwWorld) invoke(body any) <-chan invokeResult {
	out := make(chan invokeResult, 1)
	enc, err := json.Marshal(body)
	if err != nil {
		out <- invokeResult{err: err}
		return out
	}
	go func() {
		req, err := http.NewRequest("POST", w.e.URL+"/api/v10/interactions", bytes.NewReader(enc))
		if err != nil {
			out <- invokeResult{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", w.client)
		resp, err := w.e.Server.Client().Do(req)
		if err != nil {
			out <- invokeResult{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		out <- invokeResult{status: resp.StatusCode, body: b, err: err}
	}()
	return out
}

// answer waits for an invocation and returns the answer message: the
// invocation must end 200 with resource type 4 and the message's
// content.
func (w *gwWorld) answer(t *testing.T, done <-chan invokeResult, content string) (messageID string) {
	t.Helper()
	var r invokeResult
	select {
	case r = <-done:
	case <-time.After(gatewayTimeout):
		t.Fatal("the invocation did not end")
	}
	if r.err != nil {
		t.Fatalf("invoke: %v", r.err)
	}
	if r.status != http.StatusOK {
		t.Fatalf("invoke: %d %s", r.status, r.body)
	}
	var a struct {
		Interaction struct {
			ID string `json:"id"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID        string `json:"id"`
				ChannelID string `json:"channel_id"`
				Content   string `json:"content"`
			} `json:"message"`
		} `json:"resource"`
	}
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatalf("invoke answer %s: %v", r.body, err)
	}
	m := a.Resource.Message
	if a.Interaction.ID == "" || a.Resource.Type != 4 || m.ID == "" || m.Content != content || m.ChannelID != w.channel {
		t.Fatalf("invoke answer: %s, want a type 4 message %q in channel %s", r.body, content, w.channel)
	}
	return m.ID
}

// stored checks that the member sees message id with content in the
// channel (GET /channels/{id}/messages).
func (w *gwWorld) stored(t *testing.T, id, content string) {
	t.Helper()
	r := w.e.Do("GET", "/api/v10/channels/"+w.channel+"/messages", w.client, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list messages: %d %s", r.Status, r.Body)
	}
	var msgs []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	r.JSON(t, &msgs)
	for _, m := range msgs {
		if m.ID == id {
			if m.Content != content {
				t.Errorf("stored message %s: content %q, want %q", id, m.Content, content)
			}
			return
		}
	}
	t.Errorf("message %s is not in the channel: %s", id, r.Body)
}

// awaitBusInteraction returns once an INTERACTION_CREATE of the world's
// app is on the event bus (events must be subscribed before the
// invocation starts).
func (w *gwWorld) awaitBusInteraction(t *testing.T, events <-chan event.Event, done <-chan invokeResult) {
	t.Helper()
	timeout := time.After(gatewayTimeout)
	for {
		select {
		case ev := <-events:
			if ev.Type == event.InteractionCreate && ev.ApplicationID.String() == w.app {
				return
			}
		case r := <-done:
			t.Fatalf("the invocation ended before it was published: %d %s %v", r.status, r.body, r.err)
		case <-timeout:
			t.Fatal("no INTERACTION_CREATE on the event bus")
		}
	}
}

// permissionsBody is a PUT body of one user overwrite.
func permissionsBody(user string, allow bool) map[string]any {
	return map[string]any{"permissions": []map[string]any{{"id": user, "type": 2, "permission": allow}}}
}

// recv waits for a value from c.
func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(gatewayTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

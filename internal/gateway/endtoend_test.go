package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
)

// TestInvocationOverGateway: a user's invocation of a command of an app
// without an Interactions Endpoint URL reaches the bot's websocket as
// INTERACTION_CREATE, and the bot's callback with the token it carries
// answers the invocation.
func TestInvocationOverGateway(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)

	var ch, tok, cmd struct {
		ID      string `json:"id"`
		Token   string `json:"token"`
		Version string `json:"version"`
	}
	for _, step := range []struct {
		method, path, auth string
		body               any
		status             int
		out                any
	}{
		{"POST", "/admin/v1/guilds/" + g.String() + "/channels", e.AdminAuth(), map[string]any{"name": "general", "type": 0}, 201, &ch},
		{"POST", "/admin/v1/users/" + e.App.OwnerUserID + "/tokens", e.AdminAuth(), map[string]any{"type": "client"}, 201, &tok},
		{"POST", "/api/v10/applications/" + app.String() + "/guilds/" + g.String() + "/commands", e.Bot(),
			map[string]any{"name": "ping", "description": "Ping"}, 201, &cmd},
	} {
		r := e.Do(step.method, step.path, step.auth, step.body)
		if r.Status != step.status {
			t.Fatalf("%s %s: %d %s", step.method, step.path, r.Status, r.Body)
		}
		r.JSON(t, step.out)
	}

	c := dial(t, e)
	c.login(e, 0)

	invocation, _ := json.Marshal(map[string]any{"type": 2, "application_id": app.String(), "guild_id": g.String(),
		"channel_id": ch.ID, "data": map[string]any{"id": cmd.ID, "name": "ping", "type": 1, "version": cmd.Version}})
	type result struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		req, err := http.NewRequest("POST", e.URL+"/api/v10/interactions", bytes.NewReader(invocation))
		if err != nil {
			done <- result{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", tok.Token)
		resp, err := e.Server.Client().Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{resp.StatusCode, b, err}
	}()

	f := c.dispatch("INTERACTION_CREATE")
	if f.seq() != 2 {
		t.Errorf("s %d, want 2", f.seq())
	}
	var i struct {
		ID            string `json:"id"`
		Type          int    `json:"type"`
		Token         string `json:"token"`
		ApplicationID string `json:"application_id"`
		GuildID       string `json:"guild_id"`
		Data          struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	if err := json.Unmarshal(f.D, &i); err != nil {
		t.Fatal(err)
	}
	if i.ID == "" || i.Token == "" || i.Type != 2 || i.ApplicationID != app.String() || i.GuildID != g.String() ||
		i.Data.ID != cmd.ID || i.Data.Name != "ping" {
		t.Fatalf("INTERACTION_CREATE d %s", f.D)
	}
	r := e.Do("POST", "/api/v10/interactions/"+i.ID+"/"+i.Token+"/callback", "",
		map[string]any{"type": 4, "data": map[string]any{"content": "pong"}})
	if r.Status != 204 && r.Status != 200 {
		t.Fatalf("callback: %d %s", r.Status, r.Body)
	}
	select {
	case res := <-done:
		if res.err != nil || res.status/100 != 2 {
			t.Fatalf("invocation: %d %s %v", res.status, res.body, res.err)
		}
	case <-time.After(readTimeout):
		t.Fatal("the invocation did not end after the callback")
	}
}

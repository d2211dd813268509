package fault_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// member is alice of a world, about to run /ping in #general.
type member struct {
	e    *testenv.Env
	w    testWorld
	body []byte
}

func newMember(t *testing.T, e *testenv.Env, w testWorld) *member {
	t.Helper()
	res := e.Do("GET", "/api/v10/applications/"+w.AppID()+"/commands", w.Bot(), nil)
	var cmds []struct {
		ID, Name, Version string
	}
	res.JSON(t, &cmds)
	if res.Status != 200 || len(cmds) != 1 {
		t.Fatalf("commands: %d %s", res.Status, res.Body)
	}
	body, _ := json.Marshal(map[string]any{"type": 2, "application_id": w.AppID(),
		"guild_id": w.Guilds["club"].ID, "channel_id": w.Guilds["club"].Channels["general"],
		"data": map[string]any{"id": cmds[0].ID, "name": cmds[0].Name, "type": 1, "version": cmds[0].Version}})
	return &member{e: e, w: w, body: body}
}

// invokeResult is the end of an invocation.
type invokeResult struct {
	status int
	body   []byte
	err    error
}

// invoke runs POST /api/v10/interactions as alice in the background.
func (m *member) invoke() <-chan invokeResult {
	out := make(chan invokeResult, 1)
	go func() {
		req, err := http.NewRequest("POST", m.e.URL+"/api/v10/interactions", bytes.NewReader(m.body))
		if err != nil {
			out <- invokeResult{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", m.w.Users["alice"].ClientToken)
		resp, err := m.e.Server.Client().Do(req)
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

package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/testenv"
)

// botSession is an entry of GET …/worlds/{world}/sessions.
type botSession struct {
	SessionID      string  `json:"session_id"`
	ApplicationID  string  `json:"application_id"`
	App            string  `json:"app"`
	Shard          [2]int  `json:"shard"`
	Intents        uint64  `json:"intents"`
	IdentifiedAt   *string `json:"identified_at"`
	State          string  `json:"state"`
	DisconnectedAt *string `json:"disconnected_at"`
}

func worldSessions(t *testing.T, e *testenv.Env, world string) []botSession {
	t.Helper()
	res := e.Do("GET", "/admin/v1/worlds/"+world+"/sessions", e.AdminAuth(), nil)
	if res.Status != 200 {
		t.Fatalf("sessions: %d %s", res.Status, res.Body)
	}
	var out []botSession
	res.JSON(t, &out)
	return out
}

// identifyBot connects a bot to the gateway with shard [shard, shards]
// and returns its connection and READY's session id.
func identifyBot(t *testing.T, e *testenv.Env, token string, shard, shards int) (*websocket.Conn, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { _ = ws.CloseNow() })
	id, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 513,
		"shard": []int{shard, shards}, "properties": map[string]string{"os": "linux", "browser": "t", "device": "t"}}})
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for READY: %v", err)
		}
		var f struct {
			T string `json:"t"`
			D struct {
				SessionID string `json:"session_id"`
			} `json:"d"`
		}
		if json.Unmarshal(data, &f) == nil && f.T == "READY" {
			return ws, f.D.SessionID
		}
	}
}

// TestWorldSessions: GET …/sessions lists the gateway sessions of the
// world's apps (no other world's), with the app's handle, the shard and
// when it identified; a client that drops leaves its session resumable;
// a close with 1000 ends it.
func TestWorldSessions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	other := createWorld(t, e, strings.Replace(issueExample, "ban-tests", "other-tests", 1))
	if got := worldSessions(t, e, w.Name); len(got) != 0 {
		t.Fatalf("before any bot: %+v", got)
	}
	before := time.Now().UTC().Add(-time.Second)
	first, firstID := identifyBot(t, e, w.Apps["modbot"].BotToken, 0, 2)
	_, secondID := identifyBot(t, e, w.Apps["modbot"].BotToken, 1, 2)
	identifyBot(t, e, other.Apps["modbot"].BotToken, 0, 1)

	got := worldSessions(t, e, w.ID)
	if len(got) != 2 {
		t.Fatalf("sessions = %+v; want the world's two", got)
	}
	for i, want := range []struct {
		id    string
		shard [2]int
	}{{firstID, [2]int{0, 2}}, {secondID, [2]int{1, 2}}} {
		s := got[i]
		if s.SessionID != want.id || s.App != "modbot" || s.ApplicationID != w.Apps["modbot"].ID || s.Shard != want.shard ||
			s.Intents != 513 || s.State != "connected" || s.DisconnectedAt != nil {
			t.Errorf("session %d = %+v; want %s of modbot, shard %v, connected", i, s, want.id, want.shard)
		}
		at, err := time.Parse(time.RFC3339Nano, deref(s.IdentifiedAt))
		if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("session %d identified_at %v (%v); want about now", i, deref(s.IdentifiedAt), err)
		}
	}
	if o := worldSessions(t, e, other.Name); len(o) != 1 || o[0].SessionID == firstID || o[0].SessionID == secondID {
		t.Errorf("the other world's sessions = %+v; want its own one", o)
	}

	_ = first.CloseNow() // no close frame: resumable
	testenv.WaitFor(t, "the first session resumable", func() bool {
		got = worldSessions(t, e, w.ID)
		return len(got) == 2 && got[0].State == "resumable"
	})
	if got[0].SessionID != firstID || got[0].DisconnectedAt == nil || got[1].State != "connected" {
		t.Errorf("after the drop: %+v; want the first resumable with disconnected_at, the second connected", got)
	}

	// An app made in the world after its spec is listed too, by its id
	// (it has no handle).
	res := e.Do("POST", "/admin/v1/applications", e.AdminAuth(), map[string]any{"name": "later", "world_id": w.ID})
	if res.Status != 201 && res.Status != 200 {
		t.Fatalf("an app in the world: %d %s", res.Status, res.Body)
	}
	var later struct {
		ApplicationID string `json:"application_id"`
		BotToken      string `json:"bot_token"`
	}
	res.JSON(t, &later)
	_, laterID := identifyBot(t, e, later.BotToken, 0, 1)
	testenv.WaitFor(t, "the later app's session listed", func() bool {
		for _, s := range worldSessions(t, e, w.ID) {
			if s.SessionID == laterID {
				return s.App == later.ApplicationID && s.ApplicationID == later.ApplicationID && s.State == "connected"
			}
		}
		return false
	})

	if res := e.Do("GET", "/admin/v1/worlds/nope/sessions", e.AdminAuth(), nil); res.Status != 404 {
		t.Errorf("unknown world: %d %s", res.Status, res.Body)
	}
	if res := e.Do("GET", "/admin/v1/worlds/"+w.ID+"/sessions", "Bot "+w.Apps["modbot"].BotToken, nil); res.Status != 401 {
		t.Errorf("a bot token: %d %s", res.Status, res.Body)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestWorldSessionEndsOnClose: a bot that closes with 1000 is gone from
// the list.
func TestWorldSessionEndsOnClose(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	ws, _ := identifyBot(t, e, w.Apps["modbot"].BotToken, 0, 1)
	if got := worldSessions(t, e, w.ID); len(got) != 1 {
		t.Fatalf("sessions = %+v; want one", got)
	}
	_ = ws.Close(websocket.StatusNormalClosure, "bye")
	testenv.WaitFor(t, "the session gone", func() bool { return len(worldSessions(t, e, w.ID)) == 0 })
}

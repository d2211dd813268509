package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/testenv"
)

// botWithIntents connects to the gateway as the app's bot with intents
// and waits for READY.
func botWithIntents(t *testing.T, e *testenv.Env, intents uint64) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	identify := fmt.Sprintf(`{"op":2,"d":{"token":"Bot %s","intents":%d,"properties":{"os":"linux","browser":"t","device":"t"}}}`,
		e.App.BotToken, intents)
	if err := ws.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		t.Fatal(err)
	}
	waitDispatch(t, ws, "READY")
	return ws
}

// waitDispatch reads until a dispatch named name and returns its data.
func waitDispatch(t *testing.T, ws *websocket.Conn, name string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", name, err)
		}
		var p struct {
			Op int             `json:"op"`
			T  string          `json:"t"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &p) == nil && p.Op == 0 && p.T == name {
			return p.D
		}
	}
}

// Which bots see a message is worked out only while a bot connected to
// some node asks for messages: a bot taking only guild events (GUILDS)
// costs an invocation no store read; one with GUILD_MESSAGES gets the
// answer's MESSAGE_CREATE, with its content (the bot's own message).
func TestMessageRecipientsOnlyForMessageReaders(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "ping", "description": "Ping"})
	body := w.invocation(2, cmd)
	botWithIntents(t, e, 1) // GUILDS
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("first invocation: %d %s", r.Status, r.Body)
	}
	const count = "slashd_store_operation_duration_seconds_count"
	botMembers := func() float64 { return value(scrape(t, e), count, labels{"op": "BotMembers"}) }
	before := botMembers()
	if r := w.invoke(body); r.Status != http.StatusOK {
		t.Fatalf("second invocation: %d %s", r.Status, r.Body)
	}
	if n := botMembers() - before; n != 0 {
		t.Errorf("with no bot asking for messages, an invocation read the guild's bots %v times", n)
	}

	reader := botWithIntents(t, e, 1<<9) // GUILD_MESSAGES
	r := w.invoke(body)
	if r.Status != http.StatusOK {
		t.Fatalf("third invocation: %d %s", r.Status, r.Body)
	}
	var answer struct {
		Resource struct {
			Message struct{ ID string } `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &answer)
	var m struct {
		ID      string `json:"id"`
		GuildID string `json:"guild_id"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(waitDispatch(t, reader, "MESSAGE_CREATE"), &m); err != nil || m.ID != answer.Resource.Message.ID ||
		m.GuildID != w.guild || m.Content == "" {
		t.Errorf("MESSAGE_CREATE %+v (%v), want the answer %s with its content", m, err, answer.Resource.Message.ID)
	}
	if botMembers() == before {
		t.Error("with a bot asking for messages, the invocation did not read which bots see its answer")
	}
}

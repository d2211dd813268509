package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

// gatewayBot is a bot of the demo app connected to the gateway, as a
// discord.js bot would be: it heartbeats, counts the INTERACTION_CREATE
// it gets and answers each with a message saying it came over the
// gateway.
type gatewayBot struct {
	interactions atomic.Int32
}

// connectGatewayBot identifies the demo app's bot on the gateway and
// returns once READY arrived; the connection closes when the test ends.
func (w *world) connectGatewayBot(t *testing.T) *gatewayBot {
	t.Helper()
	return w.connectGatewayBotAs(t, w.creds.BotToken)
}

// connectGatewayBotAs is connectGatewayBot with another app's bot token.
func (w *world) connectGatewayBotAs(t *testing.T, token string) *gatewayBot {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ws, _, err := websocket.Dial(ctx, strings.Replace(w.url, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		cancel()
		t.Fatalf("dial the gateway: %v", err)
	}
	ws.SetReadLimit(8 << 20)
	t.Cleanup(func() { cancel(); _ = ws.Close(websocket.StatusNormalClosure, "") })
	type frame struct {
		Op int             `json:"op"`
		T  string          `json:"t"`
		D  json.RawMessage `json:"d"`
	}
	read := func() frame {
		t.Helper()
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		defer rcancel()
		_, b, err := ws.Read(rctx)
		if err != nil {
			t.Fatalf("gateway read: %v", err)
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("gateway frame %s: %v", b, err)
		}
		return f
	}
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return ws.Write(ctx, websocket.MessageText, b)
	}
	hello := read()
	var h struct {
		HeartbeatInterval int `json:"heartbeat_interval"`
	}
	if err := json.Unmarshal(hello.D, &h); hello.Op != 10 || err != nil {
		t.Fatalf("expected Hello, got %+v", hello)
	}
	if err := send(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 0,
		"properties": map[string]string{"os": "linux", "browser": "browsertest", "device": "browsertest"}}}); err != nil {
		t.Fatal(err)
	}
	for f := read(); f.T != "READY"; f = read() {
	}
	bot := &gatewayBot{}
	go func() { // heartbeats
		tick := time.NewTicker(time.Duration(h.HeartbeatInterval) * time.Millisecond / 2)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = send(map[string]any{"op": 1, "d": nil})
			}
		}
	}()
	go func() { // dispatches
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var f frame
			if json.Unmarshal(b, &f) != nil || f.T != "INTERACTION_CREATE" {
				continue
			}
			bot.interactions.Add(1)
			var in struct{ ID, Token string }
			if json.Unmarshal(f.D, &in) != nil {
				continue
			}
			body, _ := json.Marshal(map[string]any{"type": 4, "data": map[string]any{"content": "pong from the gateway bot"}})
			req, _ := http.NewRequestWithContext(ctx, "POST", w.url+"/api/v10/interactions/"+in.ID+"/"+in.Token+"/callback", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}()
	return bot
}

// TestInteractionRoute: with an interactions endpoint set and a bot of
// the app connected to the gateway, the World view and the chat (once a
// command of the app ran) say the interactions go to the endpoint, not
// to gateway bots, warn that the connected bot gets none, and say how to
// switch; the World view's button clears the endpoint, after which the
// gateway bot gets the next command and the views say so.
func TestInteractionRoute(t *testing.T) {
	w := newWorld(t)
	w.registerBotCommands(t)
	bob := w.addMember(t, "bob")
	w.startBot(t)
	bot := w.connectGatewayBot(t)
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)

	// The World view: the endpoint, the warning, the way to switch.
	waitText(t, ctx, "#app-route", "go to its interactions endpoint")
	waitText(t, ctx, "#app-route", "not to gateway bots")
	waitText(t, ctx, "#app-route", `set the app's interactions endpoint to "" (empty)`)
	waitText(t, ctx, "#app-route-warning", "A bot of demo is connected to the gateway (1 session), but it gets none of this app's interactions")
	waitText(t, ctx, "#world-pane", "1 bot session connected")
	shot(t, ctx, "13-world-route-endpoint")

	// The chat: /ping goes to examples/bot's endpoint; the note says so.
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "No message yet")
	typeInto(t, ctx, "composer-input", "/ping")
	click(t, ctx, `#picker button[data-name="ping"]`)
	waitText(t, ctx, "#messages .ephemeral", "pong")
	waitText(t, ctx, "#chat-route", "go to its interactions endpoint")
	waitText(t, ctx, "#chat-route-note-warning", "connected to the gateway (1 session), but it gets none")
	shot(t, ctx, "14-chat-route-endpoint")
	if n := bot.interactions.Load(); n != 0 {
		t.Fatalf("the gateway bot got %d interactions while the endpoint was set", n)
	}

	// Switch: the World view's button clears the endpoint.
	click(t, ctx, "#nav-world")
	click(t, ctx, "#app-route-clear")
	waitText(t, ctx, "#app-route", "go to the gateway: its bot is connected (1 session)")
	waitText(t, ctx, "#world-pane", "none (interactions go to the gateway)")
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById("app-route-warning")`)); err != nil || !ok {
		t.Fatalf("the warning stays after the switch (%v)", err)
	}
	shot(t, ctx, "15-world-route-gateway")

	// The gateway bot now gets /ping and answers it.
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	typeInto(t, ctx, "composer-input", "/ping")
	click(t, ctx, `#picker button[data-name="ping"]`)
	waitText(t, ctx, "#messages", "pong from the gateway bot")
	waitText(t, ctx, "#chat-route", "go to the gateway: its bot is connected")
	shot(t, ctx, "16-chat-route-gateway")
	if n := bot.interactions.Load(); n != 1 {
		t.Fatalf("the gateway bot got %d interactions after the switch, want 1", n)
	}
}

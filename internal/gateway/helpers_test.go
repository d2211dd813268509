package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// readTimeout bounds every wait for a frame: a test fails rather than
// hangs when the gateway says nothing.
const readTimeout = 5 * time.Second

// wireFrame is a gateway payload as the server sends it.
type wireFrame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

func (f wireFrame) String() string {
	b, _ := json.Marshal(f)
	return string(b)
}

// event name of a dispatch ("" for other opcodes).
func (f wireFrame) name() string {
	if f.T == nil {
		return ""
	}
	return *f.T
}

// seq of a dispatch (0 when null).
func (f wireFrame) seq() int64 {
	if f.S == nil {
		return 0
	}
	return *f.S
}

// client is a raw websocket client of the gateway.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

// wsURL is the gateway's websocket URL with a query string.
func wsURL(e *testenv.Env, query string) string {
	u := strings.Replace(e.URL, "http", "ws", 1) + "/gateway"
	if query != "" {
		u += "?" + query
	}
	return u
}

// dial connects with ?v=10&encoding=json.
func dial(t *testing.T, e *testenv.Env) *client {
	t.Helper()
	return dialQuery(t, e, "v=10&encoding=json")
}

// dialQuery connects with a query string.
func dialQuery(t *testing.T, e *testenv.Env, query string) *client {
	t.Helper()
	return dialURL(t, wsURL(e, query))
}

// dialURL connects to u; the connection is closed with 1000 when the
// test ends.
func dialURL(t *testing.T, u string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	ws.SetReadLimit(8 << 20) // a chunk of 1000 members is larger than the default 32 KiB
	t.Cleanup(func() { _ = ws.Close(websocket.StatusNormalClosure, "") })
	return &client{t: t, ws: ws}
}

// sendRaw writes one text message as it is.
func (c *client) sendRaw(data []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		c.t.Fatalf("write %s: %v", data, err)
	}
}

// send writes {"op":op,"d":d}.
func (c *client) send(op int, d any) {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"op": op, "d": d})
	if err != nil {
		c.t.Fatalf("marshal: %v", err)
	}
	c.sendRaw(b)
}

// next reads one message: its frame, or the error that ended the
// connection.
func (c *client) next() (wireFrame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		return wireFrame{}, err
	}
	if typ != websocket.MessageText {
		c.t.Fatalf("got a %v message, want text: %q", typ, data)
	}
	var f wireFrame
	if err := json.Unmarshal(data, &f); err != nil {
		c.t.Fatalf("decode frame %s: %v", data, err)
	}
	return f, nil
}

// read reads one frame, failing on a closed connection.
func (c *client) read() wireFrame {
	c.t.Helper()
	f, err := c.next()
	if err != nil {
		c.t.Fatalf("read: %v (close status %d)", err, websocket.CloseStatus(err))
	}
	return f
}

// expect reads one frame and checks its opcode.
func (c *client) expect(op int) wireFrame {
	c.t.Helper()
	f := c.read()
	if f.Op != op {
		c.t.Fatalf("got %s, want op %d", f, op)
	}
	return f
}

// hello reads the Hello frame and returns its heartbeat interval.
func (c *client) hello() int64 {
	c.t.Helper()
	f := c.expect(10)
	if f.S != nil || f.T != nil {
		c.t.Fatalf("Hello with s or t set: %s", f)
	}
	var d struct {
		HeartbeatInterval *int64 `json:"heartbeat_interval"`
	}
	if err := json.Unmarshal(f.D, &d); err != nil || d.HeartbeatInterval == nil {
		c.t.Fatalf("Hello without heartbeat_interval: %s (%v)", f, err)
	}
	return *d.HeartbeatInterval
}

// dispatch reads one frame that must be a dispatch named t.
func (c *client) dispatch(t string) wireFrame {
	c.t.Helper()
	f := c.read()
	if f.Op != 0 || f.name() != t || f.S == nil {
		c.t.Fatalf("got %s, want dispatch %s", f, t)
	}
	return f
}

// identifyData is op 2's data with the given token and intents (nil:
// left out).
func identifyData(token string, intents any) map[string]any {
	d := map[string]any{"token": token,
		"properties": map[string]string{"os": "linux", "browser": "slashd-test", "device": "slashd-test"}}
	if intents != nil {
		d["intents"] = intents
	}
	return d
}

// readyData is the part of READY the tests read.
type readyData struct {
	V    int `json:"v"`
	User struct {
		ID  string `json:"id"`
		Bot bool   `json:"bot"`
	} `json:"user"`
	Guilds []struct {
		ID          string `json:"id"`
		Unavailable *bool  `json:"unavailable"`
	} `json:"guilds"`
	SessionID        string  `json:"session_id"`
	ResumeGatewayURL string  `json:"resume_gateway_url"`
	Shard            []int   `json:"shard"`
	Application      *appObj `json:"application"`
}

type appObj struct {
	ID    string  `json:"id"`
	Flags *uint64 `json:"flags"`
}

// login reads Hello, identifies the env's first app with intents and
// returns READY's data.
func (c *client) login(e *testenv.Env, intents uint64) readyData {
	c.t.Helper()
	c.hello()
	c.send(2, identifyData(e.Bot(), intents))
	return c.ready()
}

// ready reads READY.
func (c *client) ready() readyData {
	c.t.Helper()
	f := c.dispatch("READY")
	var r readyData
	if err := json.Unmarshal(f.D, &r); err != nil {
		c.t.Fatalf("decode READY %s: %v", f.D, err)
	}
	if f.seq() != 1 {
		c.t.Fatalf("READY with s %d, want 1", f.seq())
	}
	return r
}

// closed reads until the connection ends (skipping the frames before)
// and checks the close code and, when reason is not empty, its reason.
func (c *client) closed(code websocket.StatusCode, reason string) {
	c.t.Helper()
	for range 50 {
		f, err := c.next()
		if err == nil {
			if f.Op == 0 && f.name() != "READY" && f.name() != "GUILD_CREATE" {
				c.t.Logf("frame before the close: %s", f)
			}
			continue
		}
		if got := websocket.CloseStatus(err); got != code {
			c.t.Fatalf("connection ended with %v (status %d), want close %d", err, got, code)
		}
		var ce websocket.CloseError
		if reason != "" && (!errors.As(err, &ce) || ce.Reason != reason) {
			c.t.Fatalf("close %d with reason %q, want %q", code, ce.Reason, reason)
		}
		return
	}
	c.t.Fatalf("no close %d after 50 frames", code)
}

// appID is the env's first app's id.
func appID(t *testing.T, e *testenv.Env) snowflake.ID {
	return mustID(t, e.App.ApplicationID)
}

func guildID(t *testing.T, e *testenv.Env) snowflake.ID {
	return mustID(t, e.App.GuildID)
}

func mustID(t *testing.T, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatalf("parse id %q: %v", s, err)
	}
	return id
}

// interaction publishes an INTERACTION_CREATE for app in guild whose data
// carries n, as the API does for an app without an endpoint URL.
func interaction(e *testenv.Env, app, guild snowflake.ID, n int) {
	e.Events.Publish(context.Background(), interactionEvent(app, guild, n))
}

func interactionEvent(app, guild snowflake.ID, n int) event.Event {
	data, _ := json.Marshal(map[string]any{"id": n, "type": 2, "application_id": app, "guild_id": guild,
		"token": "tok", "version": 1})
	return event.Event{Type: event.InteractionCreate, ApplicationID: app, GuildID: guild, Data: json.RawMessage(data)}
}

// interactionN reads a dispatch that must be INTERACTION_CREATE and
// returns the n it carries.
func (c *client) interactionN() (n int, guild string, seq int64) {
	c.t.Helper()
	f := c.dispatch("INTERACTION_CREATE")
	var d struct {
		ID      int    `json:"id"`
		GuildID string `json:"guild_id"`
	}
	if err := json.Unmarshal(f.D, &d); err != nil {
		c.t.Fatalf("decode %s: %v", f, err)
	}
	return d.ID, d.GuildID, f.seq()
}

package fault_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/testenv"
)

// waitTimeout bounds every wait for something a bot should receive.
const waitTimeout = 8 * time.Second

func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// dgoBot is a discordgo bot of the world's app, with discordgo's
// defaults, aimed at the test server through its http.Client (GET
// /api/v9/gateway tells it where the websocket is).
type dgoBot struct {
	s            *discordgo.Session
	rt           *rewriteTransport
	ready        chan *discordgo.Ready
	resumed      chan *discordgo.Resumed
	interactions chan *discordgo.InteractionCreate
	answered     chan error
}

// startBot opens a discordgo bot whose command handler answers with
// content (and reports InteractionRespond's result).
func startBot(t *testing.T, e *testenv.Env, w testWorld, content string) *dgoBot {
	t.Helper()
	s, rt := newDiscordgo(t, e, w.Bot())
	b := &dgoBot{s: s, rt: rt, ready: make(chan *discordgo.Ready, 8), resumed: make(chan *discordgo.Resumed, 8),
		interactions: make(chan *discordgo.InteractionCreate, 8), answered: make(chan error, 8)}
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { b.ready <- r })
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Resumed) { b.resumed <- r })
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		b.interactions <- i
		b.answered <- s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: content},
		})
	})
	if err := s.Open(); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return b
}

// TestGatewayReconnectAndInvalidSession: a discordgo bot told op 7
// reconnects and resumes; told op 9 it identifies anew (a new session).
func TestGatewayReconnectAndInvalidSession(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "gateway-dgo")
	b := startBot(t, e, w, "pong")
	first := recv(t, b.ready, "READY")

	f := addFault(t, e, w, map[string]any{"kind": "gateway.reconnect", "app": "modbot"})
	recv(t, b.resumed, "RESUMED after op 7")
	waitSpent(t, e, w, f.ID)

	addFault(t, e, w, map[string]any{"kind": "gateway.invalid_session", "app": "modbot"})
	second := recv(t, b.ready, "READY after op 9")
	if second.SessionID == first.SessionID || second.SessionID == "" {
		t.Errorf("after op 9: session %q, first was %q", second.SessionID, first.SessionID)
	}
	// The bot still gets its interactions.
	m := newMember(t, e, w)
	done := m.invoke()
	recv(t, b.interactions, "INTERACTION_CREATE")
	if err := recv(t, b.answered, "InteractionRespond"); err != nil {
		t.Errorf("InteractionRespond: %v", err)
	}
	if r := recv(t, done, "the invocation"); r.status != 200 || !strings.Contains(string(r.body), `"content":"pong"`) {
		t.Errorf("invocation: %d %s", r.status, r.body)
	}
}

// waitSpent waits until fault id of w has no firing left.
func waitSpent(t *testing.T, e *testenv.Env, w testWorld, id string) {
	t.Helper()
	testenv.WaitFor(t, "fault "+id+" spent", func() bool {
		for _, f := range listFaults(t, e, w) {
			if f.ID == id {
				return f.Remaining != nil && *f.Remaining == 0
			}
		}
		return false
	})
}

// rawBot is a websocket client speaking the gateway protocol by hand, to
// see the frames themselves.
type rawBot struct {
	t  *testing.T
	ws *websocket.Conn
}

type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	T  string          `json:"t"`
}

func dialRaw(t *testing.T, e *testenv.Env, token string) *rawBot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	t.Cleanup(func() { _ = ws.CloseNow() })
	b := &rawBot{t: t, ws: ws}
	if f := b.read(); f.Op != 10 {
		t.Fatalf("first frame op %d, want HELLO", f.Op)
	}
	b.send(2, map[string]any{"token": token, "intents": 0, "properties": map[string]string{"os": "linux"}})
	for f := b.read(); f.T != "READY"; f = b.read() {
	}
	return b
}

func (b *rawBot) send(op int, d any) {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"op": op, "d": d})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := b.ws.Write(ctx, websocket.MessageText, body); err != nil {
		b.t.Fatal(err)
	}
}

// readErr reads the next frame, or the error that ended the connection.
func (b *rawBot) readErr() (frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, data, err := b.ws.Read(ctx)
	if err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		b.t.Fatalf("frame %s: %v", data, err)
	}
	return f, nil
}

func (b *rawBot) read() frame {
	b.t.Helper()
	f, err := b.readErr()
	if err != nil {
		b.t.Fatalf("read: %v", err)
	}
	return f
}

// TestGatewayFaultsOnTheWire: op 9 carries d as asked, a close has the
// chosen code, withheld ACKs are missing, a delayed dispatch is late.
// Each case has a world of its own: a fault fires on whichever of its
// world's sessions the poke finds first, and an earlier case's
// connection, closed by its client, may not have left the server yet.
func TestGatewayFaultsOnTheWire(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)

	t.Run("invalid session, resumable", func(t *testing.T) {
		w := newWorld(t, e, "gateway-wire-invalid-session-resumable")
		b := dialRaw(t, e, w.Bot())
		addFault(t, e, w, map[string]any{"kind": "gateway.invalid_session", "resumable": true})
		f := b.read()
		if f.Op != 9 || string(f.D) != "true" {
			t.Errorf("frame op %d d %s, want op 9 d true", f.Op, f.D)
		}
		// The connection may identify again.
		b.send(2, map[string]any{"token": w.Bot(), "intents": 0, "properties": map[string]string{"os": "linux"}})
		if f := b.read(); f.T != "READY" {
			t.Errorf("after op 9, IDENTIFY got %+v", f)
		}
	})
	t.Run("close", func(t *testing.T) {
		w := newWorld(t, e, "gateway-wire-close")
		b := dialRaw(t, e, w.Bot())
		addFault(t, e, w, map[string]any{"kind": "gateway.close", "code": 4000})
		for {
			_, err := b.readErr()
			if err != nil {
				if st := websocket.CloseStatus(err); st != 4000 {
					t.Errorf("closed with %d (%v), want 4000", st, err)
				}
				break
			}
		}
	})
	t.Run("withheld ACKs", func(t *testing.T) {
		w := newWorld(t, e, "gateway-wire-withheld-acks")
		b := dialRaw(t, e, w.Bot())
		f := addFault(t, e, w, map[string]any{"kind": "gateway.withhold_ack", "count": 2})
		for range 3 {
			b.send(1, nil)
		}
		// ACKs are sent in order: the first one to arrive is the third
		// heartbeat's, and the fault fired twice.
		if got := b.read(); got.Op != 11 {
			t.Fatalf("frame %+v, want an ACK", got)
		}
		for _, g := range listFaults(t, e, w) {
			if g.ID == f.ID && g.Fired != 2 {
				t.Errorf("fired %d times, want 2", g.Fired)
			}
		}
		b.send(1, nil)
		if got := b.read(); got.Op != 11 {
			t.Errorf("frame %+v, want an ACK", got)
		}
	})
	t.Run("reconnect", func(t *testing.T) {
		w := newWorld(t, e, "gateway-wire-reconnect")
		b := dialRaw(t, e, w.Bot())
		addFault(t, e, w, map[string]any{"kind": "gateway.reconnect"})
		if f := b.read(); f.Op != 7 {
			t.Errorf("frame %+v, want op 7", f)
		}
	})
}

// TestGatewayDelayedDispatch: an INTERACTION_CREATE held by a
// gateway.delay_dispatch reaches the bot at least the delay after the
// invocation, and the bot's answer still counts.
func TestGatewayDelayedDispatch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "gateway-delay")
	b := startBot(t, e, w, "late but fine")
	recv(t, b.ready, "READY")
	addFault(t, e, w, map[string]any{"kind": "gateway.delay_dispatch", "event": "INTERACTION_CREATE", "delay_ms": 400})
	m := newMember(t, e, w)
	start := time.Now()
	done := m.invoke()
	recv(t, b.interactions, "INTERACTION_CREATE")
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("the dispatch came after %v, want at least 400ms", took)
	}
	if err := recv(t, b.answered, "InteractionRespond"); err != nil {
		t.Errorf("InteractionRespond: %v", err)
	}
	if r := recv(t, done, "the invocation"); r.status != 200 {
		t.Errorf("invocation: %d %s", r.status, r.body)
	}
}

// TestCallback429 is the example: a route 429 on modbot's next
// interaction callback. discordgo waits retry_after out and answers
// again, within the deadline: the member sees the answer.
func TestCallback429(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "callback-429")
	b := startBot(t, e, w, "pong after a 429")
	recv(t, b.ready, "READY")
	addFault(t, e, w, map[string]any{"kind": "rest.429", "app": "modbot", "retry_after": 0.5, "count": 1,
		"route": "POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback"})
	m := newMember(t, e, w)
	before := len(b.rt.seen())
	done := m.invoke()
	recv(t, b.interactions, "INTERACTION_CREATE")
	if err := recv(t, b.answered, "InteractionRespond"); err != nil {
		t.Errorf("InteractionRespond: %v", err)
	}
	if r := recv(t, done, "the invocation"); r.status != 200 || !strings.Contains(string(r.body), "pong after a 429") {
		t.Errorf("invocation: %d %s", r.status, r.body)
	}
	if got := fmt.Sprint(b.rt.seen()[before:]); got != "[429 204]" {
		t.Errorf("the callback's exchanges: %s, want a 429 then the 204", got)
	}
}

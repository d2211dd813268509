package clienttest

// Shared pieces of the gateway tests (gateway_discordgo_test.go,
// gateway_disgo_test.go): a guild with a member who invokes commands, a
// background invocation, and netLink, the network between a bot's
// websocket and slashd, which the test can cut to force a resume.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

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

// clientPayload is a gateway payload a library sent.
type clientPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
}

// netLink is the network between a bot's gateway websocket and slashd:
// the libraries dial through it (their gorilla websocket.Dialer's
// NetDialContext), it decodes the frames they send (client frames are
// masked, never compressed by these libraries), and cut drops every live
// connection the way a network failure does: the library reads EOF, the
// server sees the TCP connection end without a close frame, so the
// session stays resumable. After cut, new dials wait for release, so the
// test can publish events while the bot is certainly away.
type netLink struct {
	// order is locked and unlocked at every read and write, so that what
	// one goroutine did before a write happens before (for the race
	// detector) what another does after reading the answer (see
	// disgoBot).
	order sync.Mutex

	mu    sync.Mutex
	live  []*linkConn
	hold  chan struct{} // non-nil: dials wait until it is closed
	sent  []clientPayload
	dials chan bool
}

func newNetLink() *netLink { return &netLink{dials: make(chan bool, 64)} }

// dialer is a websocket dialer through the link.
func (l *netLink) dialer() *websocket.Dialer {
	return &websocket.Dialer{NetDialContext: l.dial, HandshakeTimeout: 10 * time.Second}
}

func (l *netLink) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	hold := l.hold
	l.mu.Unlock()
	select {
	case l.dials <- hold != nil:
	default:
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	lc := &linkConn{Conn: c, link: l}
	l.mu.Lock()
	l.live = append(l.live, lc)
	l.mu.Unlock()
	return lc, nil
}

// touch is a synchronization point on the link (see order).
func (l *netLink) touch() {
	l.order.Lock()
	//lint:ignore SA2001 an empty critical section is the point
	l.order.Unlock()
}

// cut drops the live connections and holds new dials.
func (l *netLink) cut() {
	l.mu.Lock()
	live := l.live
	l.live = nil
	l.hold = make(chan struct{})
	l.mu.Unlock()
	for _, c := range live {
		c.dropped.Store(true)
		_ = c.Conn.Close()
	}
}

// heldDial waits until the library tries to reconnect while held.
func (l *netLink) heldDial(t *testing.T) {
	t.Helper()
	timeout := time.After(gatewayTimeout)
	for {
		select {
		case held := <-l.dials:
			if held {
				return
			}
		case <-timeout:
			t.Fatal("the library did not try to reconnect")
		}
	}
}

// release lets held and new dials through.
func (l *netLink) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != nil {
		close(l.hold)
		l.hold = nil
	}
}

// payloads returns what the library sent with opcode op, in order.
func (l *netLink) payloads(op int) []json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []json.RawMessage
	for _, p := range l.sent {
		if p.Op == op {
			out = append(out, p.D)
		}
	}
	return out
}

func (l *netLink) record(opcode byte, payload []byte) {
	if opcode != websocket.TextMessage && opcode != websocket.BinaryMessage {
		return // control frames
	}
	p := clientPayload{Op: -1, D: payload} // -1: not a payload
	_ = json.Unmarshal(payload, &p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, p)
}

// linkConn is one TCP connection through a netLink.
type linkConn struct {
	net.Conn
	link    *netLink
	dropped atomic.Bool

	wmu      sync.Mutex
	wbuf     []byte // written bytes not yet decoded
	upgraded bool   // the HTTP upgrade request has been written
	msg      []byte // a fragmented message so far
	mop      byte   // its opcode
}

func (c *linkConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.link.touch()
	if c.dropped.Load() {
		return 0, io.EOF // the peer went away
	}
	return n, err
}

func (c *linkConn) Write(p []byte) (int, error) {
	if c.dropped.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	}
	c.wmu.Lock()
	c.wbuf = append(c.wbuf, p...)
	c.decode()
	c.wmu.Unlock()
	c.link.touch()
	return c.Conn.Write(p)
}

// decode takes the upgrade request, then complete client frames, off
// wbuf.
func (c *linkConn) decode() {
	if !c.upgraded {
		end := bytes.Index(c.wbuf, []byte("\r\n\r\n"))
		if end < 0 {
			return
		}
		c.wbuf, c.upgraded = c.wbuf[end+4:], true
	}
	for len(c.wbuf) >= 2 {
		b0, b1 := c.wbuf[0], c.wbuf[1]
		n, hdr := uint64(b1&0x7f), 2
		switch n {
		case 126:
			if len(c.wbuf) < 4 {
				return
			}
			n, hdr = uint64(binary.BigEndian.Uint16(c.wbuf[2:])), 4
		case 127:
			if len(c.wbuf) < 10 {
				return
			}
			n, hdr = binary.BigEndian.Uint64(c.wbuf[2:]), 10
		}
		var mask []byte
		if b1&0x80 != 0 {
			if len(c.wbuf) < hdr+4 {
				return
			}
			mask, hdr = c.wbuf[hdr:hdr+4], hdr+4
		}
		if uint64(len(c.wbuf)-hdr) < n {
			return
		}
		payload := append([]byte(nil), c.wbuf[hdr:hdr+int(n)]...)
		for i := range payload {
			if mask != nil {
				payload[i] ^= mask[i%4]
			}
		}
		c.wbuf = c.wbuf[hdr+int(n):]
		fin, op := b0&0x80 != 0, b0&0x0f
		if op >= 8 { // control frames are never fragmented
			c.link.record(op, payload)
			continue
		}
		if op != 0 {
			c.mop, c.msg = op, nil
		}
		c.msg = append(c.msg, payload...)
		if fin {
			c.link.record(c.mop, c.msg)
			c.msg = nil
		}
	}
}

package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/ui"
)

// liveWorld is the UI with live streams in front of a real API, a
// logged-in browser-like client, a guild channel and two members' client
// tokens.
type liveWorld struct {
	srv              *httptest.Server
	ui               *ui.Handler
	events           event.Bus
	c                *http.Client
	csrf             string
	admin            string
	channel          string
	alice, bob       string // user ids
	aliceTok, bobTok string
}

func newLiveWorld(t *testing.T) *liveWorld {
	t.Helper()
	h, admin := newAPI(t)
	w := &liveWorld{ui: ui.New(ui.Config{API: h, Sessions: h.Store(), Events: h.Events(), Heartbeat: 50 * time.Millisecond}), events: h.Events(),
		admin: admin}
	w.srv = httptest.NewServer(w.ui)
	t.Cleanup(func() { w.ui.Close(); w.srv.Close() })
	jar, _ := cookiejar.New(nil)
	w.c = &http.Client{Jar: jar}
	if r, err := w.c.PostForm(w.srv.URL+"/ui/login", url.Values{"token": {w.admin}}); err != nil || r.StatusCode != 200 {
		t.Fatalf("login: %v %v", r, err)
	}
	var sess struct {
		CSRF string `json:"csrf_token"`
	}
	w.do(t, "GET", "/ui/session", "", nil, &sess)
	w.csrf = sess.CSRF
	var u struct{ ID string }
	w.do(t, "POST", "/admin/v1/users", "Admin "+w.admin, map[string]any{"username": "alice"}, &u)
	w.alice = u.ID
	w.do(t, "POST", "/admin/v1/users", "Admin "+w.admin, map[string]any{"username": "bob"}, &u)
	w.bob = u.ID
	var g struct{ ID string }
	w.do(t, "POST", "/admin/v1/guilds", "Admin "+w.admin, map[string]any{"name": "live guild", "owner_id": w.alice}, &g)
	w.do(t, "PUT", "/admin/v1/guilds/"+g.ID+"/members/"+w.bob, "Admin "+w.admin, map[string]any{}, nil)
	var ch struct{ ID string }
	w.do(t, "POST", "/admin/v1/guilds/"+g.ID+"/channels", "Admin "+w.admin, map[string]any{"name": "general", "type": 0}, &ch)
	w.channel = ch.ID
	var tok struct{ Token string }
	w.do(t, "POST", "/admin/v1/users/"+w.alice+"/tokens", "Admin "+w.admin, map[string]any{"type": "client"}, &tok)
	w.aliceTok = tok.Token
	w.do(t, "POST", "/admin/v1/users/"+w.bob+"/tokens", "Admin "+w.admin, map[string]any{"type": "client"}, &tok)
	w.bobTok = tok.Token
	return w
}

// do makes a request with the session's cookie (and CSRF token) and
// checks its status (0: any 2xx).
func (w *liveWorld) do(t *testing.T, method, path, authz string, body, out any) {
	t.Helper()
	w.doStatus(t, method, path, authz, body, 0, out)
}

func (w *liveWorld) doStatus(t *testing.T, method, path, authz string, body any, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, w.srv.URL+path, rd)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	req.Header.Set("X-CSRF-Token", w.csrf)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := w.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if (want == 0 && resp.StatusCode/100 != 2) || (want != 0 && resp.StatusCode != want) {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// sseReader reads a stream's events; comments count as heartbeats.
type sseReader struct {
	resp  *http.Response
	lines *bufio.Scanner
	beats int
}

func (w *liveWorld) openChat(t *testing.T, user, token string) *sseReader {
	t.Helper()
	var tk struct{ Ticket string }
	w.do(t, "POST", "/ui/live/chat", token, map[string]any{"channel_id": w.channel, "user_id": user}, &tk)
	return w.open(t, "/ui/live/chat?ticket="+tk.Ticket)
}

func (w *liveWorld) open(t *testing.T, path string) *sseReader {
	t.Helper()
	resp, err := w.c.Get(w.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	r := &sseReader{resp: resp, lines: bufio.NewScanner(resp.Body)}
	t.Cleanup(func() { resp.Body.Close() })
	if name, _ := r.next(t); name != "ready" {
		t.Fatalf("first event %q, want ready", name)
	}
	return r
}

// next reads the next event (the test's deadline bounds the wait: the
// stream's heartbeats keep lines coming).
func (r *sseReader) next(t *testing.T) (string, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var name, data string
	for time.Now().Before(deadline) {
		if !r.lines.Scan() {
			t.Fatalf("the stream ended: %v", r.lines.Err())
		}
		line := r.lines.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			r.beats++
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && name != "":
			return name, data
		}
	}
	t.Fatal("no event within 30 s")
	return "", ""
}

// nextWith skips events until one whose data holds want.
func (r *sseReader) nextWith(t *testing.T, want string) (string, string) {
	t.Helper()
	for {
		name, data := r.next(t)
		if strings.Contains(data, want) {
			return name, data
		}
	}
}

func waitStreams(t *testing.T, h *ui.Handler, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for h.LiveStreams() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d live streams, want %d", h.LiveStreams(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLiveChat: a message posted through the API arrives on the chat
// stream of a member of its channel, with its edit and deletion; the
// stream keeps alive with heartbeats; a stream ends when its client goes.
func TestLiveChat(t *testing.T) {
	w := newLiveWorld(t)
	bob := w.openChat(t, w.bob, w.bobTok)
	var m struct{ ID string }
	w.do(t, "POST", "/api/v10/channels/"+w.channel+"/messages", w.aliceTok, map[string]any{"content": "hello live"}, &m)
	name, data := bob.nextWith(t, m.ID)
	if name != "message_create" || !strings.Contains(data, "hello live") {
		t.Fatalf("got %s %s", name, data)
	}
	// An ephemeral message reaches only the member it is for (the bus
	// carries what the API publishes on an answer).
	alice := w.openChat(t, w.alice, w.aliceTok)
	ch, _ := snowflake.Parse(w.channel)
	aliceID, _ := snowflake.Parse(w.alice)
	w.events.Publish(context.Background(), event.Event{Type: event.MessageCreate, Data: event.Message{ID: 7, ChannelID: ch,
		VisibleTo: aliceID, Body: json.RawMessage(`{"id":"7","content":"for alice only"}`)}})
	if _, data := alice.nextWith(t, `"7"`); !strings.Contains(data, "for alice only") {
		t.Fatalf("alice got %s", data)
	}
	w.do(t, "POST", "/api/v10/channels/"+w.channel+"/messages", w.aliceTok, map[string]any{"content": "for all"}, &m)
	if _, data := bob.next(t); !strings.Contains(data, "for all") {
		t.Fatalf("bob's next event is %s, want the public message (not alice's ephemeral one)", data)
	}
	// Heartbeats come while nothing happens (one every 50 ms here).
	for bob.beats < 2 {
		if !bob.lines.Scan() {
			t.Fatal("the stream ended")
		}
		if strings.HasPrefix(bob.lines.Text(), ":") {
			bob.beats++
		}
	}
	// The client goes: its stream's goroutine ends.
	waitStreams(t, w.ui, 2)
	bob.resp.Body.Close()
	waitStreams(t, w.ui, 1)
}

// TestLiveChatTicket: a ticket needs the session's CSRF token and a
// client token that may read the channel; a ticket of another session
// is unknown.
func TestLiveChatTicket(t *testing.T) {
	w := newLiveWorld(t)
	w.doStatus(t, "POST", "/ui/live/chat", "not-a-token", map[string]any{"channel_id": w.channel, "user_id": w.bob}, 401, nil)
	w.doStatus(t, "POST", "/ui/live/chat", w.bobTok, map[string]any{"channel_id": "1", "user_id": w.bob}, 404, nil)
	csrf := w.csrf
	w.csrf = "wrong"
	w.doStatus(t, "POST", "/ui/live/chat", w.bobTok, map[string]any{"channel_id": w.channel, "user_id": w.bob}, 403, nil)
	w.csrf = csrf
	var tk struct{ Ticket string }
	w.do(t, "POST", "/ui/live/chat", w.bobTok, map[string]any{"channel_id": w.channel, "user_id": w.bob}, &tk)
	other := &liveWorld{srv: w.srv, c: &http.Client{}}
	other.doStatus(t, "GET", "/ui/live/chat?ticket="+tk.Ticket, "", nil, 401, nil)
	w.doStatus(t, "GET", "/ui/live/chat?ticket=nope", "", nil, 404, nil)
}

// TestLiveShutdown: Close ends every stream (the server's shutdown
// would wait for them otherwise).
func TestLiveShutdown(t *testing.T) {
	w := newLiveWorld(t)
	chat := w.openChat(t, w.bob, w.bobTok)
	logs := w.open(t, "/ui/live/log")
	waitStreams(t, w.ui, 2)
	w.ui.Close()
	waitStreams(t, w.ui, 0)
	for _, r := range []*sseReader{chat, logs} {
		for r.lines.Scan() { // the rest, then the end
		}
	}
}

// TestLiveLog: the log stream gets each new entry, with the signature
// headers of an endpoint delivery, and the entry again when a follow-up
// of its interaction or an edit of its answer arrives; the filter by app
// holds.
func TestLiveLog(t *testing.T) {
	w := newLiveWorld(t)
	all := w.open(t, "/ui/live/log")
	other := w.open(t, "/ui/live/log?application_id=99")
	ch, _ := snowflake.Parse(w.channel)
	w.ui.Record(api.Delivery{InteractionID: 500, Type: 2, ApplicationID: 42, ChannelID: ch, UserID: 1, At: time.Now(),
		Route: "endpoint", Endpoint: "http://127.0.0.1:1/i", Signature: "abcd", Timestamp: "1700000000", Outcome: "answered",
		Payload: json.RawMessage(`{"id":"500"}`), Answer: json.RawMessage(`{"resource":{"type":4,"message":{"id":"600"}}}`)})
	name, data := all.next(t)
	if name != "entry" || !strings.Contains(data, `"X-Signature-Ed25519":"abcd"`) || !strings.Contains(data, `"X-Signature-Timestamp":"1700000000"`) {
		t.Fatalf("got %s %s", name, data)
	}
	// The answer's own message is the answer; a second message of the
	// interaction is a follow-up; a change of the answer an edit.
	w.events.Publish(context.Background(), event.Event{Type: event.MessageCreate, Data: event.Message{ID: 600, ChannelID: ch,
		InteractionID: 500, Body: json.RawMessage(`{"id":"600","content":"answer"}`)}})
	w.events.Publish(context.Background(), event.Event{Type: event.MessageCreate, Data: event.Message{ID: 601, ChannelID: ch,
		InteractionID: 500, Body: json.RawMessage(`{"id":"601","content":"a follow-up"}`)}})
	w.events.Publish(context.Background(), event.Event{Type: event.MessageUpdate, Data: event.Message{ID: 600, ChannelID: ch,
		InteractionID: 500, Body: json.RawMessage(`{"id":"600","content":"answer, edited"}`)}})
	_, data = all.next(t)
	if !strings.Contains(data, `"event":"follow-up"`) || !strings.Contains(data, "a follow-up") || strings.Contains(data, `"edit"`) {
		t.Fatalf("after the follow-up: %s", data)
	}
	_, data = all.next(t)
	if !strings.Contains(data, `"event":"edit"`) || !strings.Contains(data, "answer, edited") {
		t.Fatalf("after the edit: %s", data)
	}
	var entries []ui.LogEntry
	w.do(t, "GET", "/ui/interactions", "", nil, &entries)
	if len(entries) != 1 || len(entries[0].Later) != 2 {
		t.Fatalf("the log holds %+v", entries)
	}
	// The other app's stream saw none of it: its next line is a heartbeat.
	for other.beats == 0 {
		if !other.lines.Scan() {
			t.Fatal("the stream ended")
		}
		if line := other.lines.Text(); strings.HasPrefix(line, ":") {
			other.beats++
		} else if line != "" {
			t.Fatalf("the app 99 stream got %q", line)
		}
	}
}

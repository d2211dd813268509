package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// TestIdentifyTimeoutRealTime: with a short configured window and the
// real clock, a connection that says nothing after Hello is closed
// 4009 by itself (the test moves no clock).
func TestIdentifyTimeoutRealTime(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.Gateway.IdentifyTimeout = 200 * time.Millisecond })
	c := dial(t, e)
	c.hello()
	c.closed(4009, "Session timed out.")
}

// TestIdentifiedOutlivesIdentifyTimeout: a connection that identified
// or resumed in time is not closed when the identify window ends.
func TestIdentifiedOutlivesIdentifyTimeout(t *testing.T) {
	t.Parallel()
	const window = 30 * time.Second
	e := testenv.New(t, func(c *api.Config) { c.Gateway.IdentifyTimeout = window })
	e.Clock.Freeze()
	identified := dial(t, e)
	r := identified.login(e, 0)
	_ = identified.ws.CloseNow() // leaves the session resumable
	resumed := dial(t, e)
	resumed.hello()
	resumed.send(6, map[string]any{"token": e.Bot(), "session_id": r.SessionID, "seq": 1})
	resumed.dispatch("RESUMED")
	fresh := dial(t, e)
	fresh.login(e, 0)
	e.Clock.Advance(2 * window) // within the heartbeat timeout (61.875 s)
	for _, c := range []*client{resumed, fresh} {
		c.send(1, nil)
		c.expect(11)
	}
}

// TestConnectionsPerAddress: an address with MaxConnsPerAddress
// connections open gets its next upgrade refused with 429 and the API's
// error envelope; once one of them closes, it may connect again; another
// address is not held back meanwhile.
func TestConnectionsPerAddress(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.Gateway.MaxConnsPerAddress = 3 })
	var open []*client
	for range 3 {
		c := dial(t, e) // one not identified, the others identified
		if len(open) == 0 {
			c.hello()
		} else {
			c.login(e, 0)
		}
		open = append(open, c)
	}
	status, body := upgradeStatus(t, e, nil)
	if status != http.StatusTooManyRequests {
		t.Fatalf("fourth connection: status %d, want 429 (%s)", status, body)
	}
	var envelope struct {
		Message *string `json:"message"`
		Code    *int    `json:"code"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil || envelope.Message == nil || envelope.Code == nil ||
		*envelope.Code != 0 || !strings.Contains(*envelope.Message, "3 gateway connections open") {
		t.Fatalf("refusal body %s (%v), want {message, code: 0} naming the cap", body, err)
	}

	// Another client address (127.0.0.2 reaches the loopback listener).
	other := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	if status, body := upgradeStatus(t, e, other); status != http.StatusSwitchingProtocols {
		t.Fatalf("another address: status %d, want 101 (%s)", status, body)
	}

	_ = open[0].ws.Close(websocket.StatusNormalClosure, "")
	testenv.WaitFor(t, "a connection of the address to be let go", func() bool {
		status, _ := upgradeStatus(t, e, nil)
		return status == http.StatusSwitchingProtocols
	})
}

// upgradeStatus asks for a websocket upgrade of the gateway from dialer
// (nil: the default) and returns the answer's status and body; the
// connection is then dropped.
func upgradeStatus(t *testing.T, e *testenv.Env, dialer *net.Dialer) (int, []byte) {
	t.Helper()
	if dialer == nil {
		dialer = &net.Dialer{}
	}
	dialer.Timeout = readTimeout
	conn, err := dialer.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(readTimeout))
	req, err := http.NewRequest(http.MethodGet, e.URL+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		t.Fatalf("write upgrade: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("read upgrade answer: %v", err)
	}
	defer resp.Body.Close()
	var body []byte
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, body
}

// TestConnectionsMetric: slashd_gateway_connections counts every open
// socket, identified or not, and comes back down as they close, however
// they end.
func TestConnectionsMetric(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	waitMetric := func(want int) {
		t.Helper()
		testenv.WaitFor(t, "slashd_gateway_connections "+strconv.Itoa(want), func() bool {
			return gatewayConnections(t, e) == want
		})
	}
	waitMetric(0)
	quiet := dial(t, e)
	quiet.hello()
	bot := dial(t, e)
	bot.login(e, 0)
	raw, err := dialRaw(e.URL, "v=10&encoding=json")
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.readOp(10, ""); err != nil {
		t.Fatal(err)
	}
	if got := gatewayConnections(t, e); got != 3 {
		t.Fatalf("slashd_gateway_connections %d with 3 open (one identified), want 3", got)
	}
	raw.drop(true) // a reset, no close frame
	waitMetric(2)
	_ = quiet.ws.Close(websocket.StatusNormalClosure, "")
	_ = bot.ws.CloseNow()
	waitMetric(0)
}

// gatewayConnections reads slashd_gateway_connections from GET /metrics.
func gatewayConnections(t *testing.T, e *testenv.Env) int {
	t.Helper()
	resp, err := http.Get(e.URL + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "slashd_gateway_connections "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no slashd_gateway_connections in /metrics:\n%s", body)
	return 0
}

// TestIdentifyLogsWhereInteractionsGo: a bot that identifies while its
// app has an Interactions Endpoint URL is told, once per identify, in the
// log, that its interactions go there and how to get them here; without
// an endpoint URL nothing is said.
func TestIdentifyLogsWhereInteractionsGo(t *testing.T) {
	t.Parallel()
	logs := &recordedLogs{}
	e := testenv.NewLogged(t, slog.New(logs))
	const hook = "https://bot.example/interactions"
	want := "application " + e.App.ApplicationID + "'s interactions go to its endpoint URL " + hook +
		", not to this gateway session; set it to \"\" to receive INTERACTION_CREATE here"

	dial(t, e).login(e, 0)
	if n := logs.count(want); n != 0 {
		t.Fatalf("%d log lines about the endpoint URL of an app without one", n)
	}
	ctx := context.Background()
	if err := e.API.Store().SetInteractionsEndpoint(ctx, appID(t, e), hook); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		dial(t, e).login(e, 0)
		if n := logs.count(want); n != i {
			t.Fatalf("after %d identifies, %d log lines %q", i, n, want)
		}
	}
	r, _ := logs.find(want)
	if r.Level < slog.LevelInfo {
		t.Errorf("logged at %v, want Info or above (serve's default level)", r.Level)
	}
	attrs := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.String()
		return true
	})
	if attrs["application"] != e.App.ApplicationID || attrs["interactions_endpoint_url"] != hook || attrs["session"] == "" {
		t.Errorf("attributes %v, want application, interactions_endpoint_url and session", attrs)
	}
}

// recordedLogs is a slog handler that keeps every record whose message
// has the gateway's prefix.
type recordedLogs struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordedLogs) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordedLogs) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordedLogs) WithGroup(string) slog.Handler            { return h }

func (h *recordedLogs) Handle(_ context.Context, r slog.Record) error {
	if !strings.HasPrefix(r.Message, "gateway: ") {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

// count is how many records' message is "gateway: "+msg.
func (h *recordedLogs) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.records {
		if r.Message == "gateway: "+msg {
			n++
		}
	}
	return n
}

func (h *recordedLogs) find(msg string) (slog.Record, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if r.Message == "gateway: "+msg {
			return r, true
		}
	}
	return slog.Record{}, false
}

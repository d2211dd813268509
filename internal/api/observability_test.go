package api_test

// Tests of what operators see: /metrics (parsed strictly, read before
// and after requests, invocations and gateway connections) and the info
// log's events, captured as JSON lines.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/metrics/metricstest"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// scrape reads /metrics and parses it strictly.
func scrape(t testing.TB, e *testenv.Env) *metricstest.Exposition {
	t.Helper()
	r := e.Do("GET", "/metrics", "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != metrics.ContentType {
		t.Fatalf("GET /metrics: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	exp, err := metricstest.Parse(string(r.Body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, r.Body)
	}
	return exp
}

// labels is a label set, for reading one sample.
type labels = map[string]string

func value(exp *metricstest.Exposition, name string, l labels) float64 {
	v, _ := exp.Value(name, l)
	return v
}

const requestsTotal = "slashd_http_requests_total"

func TestMetricsCountRequestsByRoute(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	cmd := create(t, e, p.guildCmds(), e.Bot(), chat("ping"))
	before := scrape(t, e)

	listRoute := "/api/v10/applications/{application_id}/guilds/{guild_id}/commands"
	oneRoute := listRoute + "/{command_id}"
	mustDo(t, e, "GET", p.guildCmds(), e.Bot(), nil, 200)
	mustDo(t, e, "GET", p.guildCmd(str(cmd, "id")), e.Bot(), nil, 200)
	mustDo(t, e, "GET", p.guildCmd("123456789012345678"), e.Bot(), nil, 404)
	mustDo(t, e, "GET", p.guildCmd("123456789012345679"), e.Bot(), nil, 404)
	after := scrape(t, e)

	for _, c := range []struct {
		route, code string
		want        float64
	}{
		{listRoute, "200", 1},
		{oneRoute, "200", 1},
		{oneRoute, "404", 2}, // two ids, one series
	} {
		l := labels{"route": c.route, "method": "GET", "code": c.code}
		if got := value(after, requestsTotal, l) - value(before, requestsTotal, l); got != c.want {
			t.Errorf("%v: counted %v, want %v", l, got, c.want)
		}
	}
	// The histogram counts each request once, under the same route.
	count := func(exp *metricstest.Exposition) float64 {
		return value(exp, "slashd_http_request_duration_seconds_count", labels{"route": oneRoute})
	}
	if got := count(after) - count(before); got != 3 {
		t.Errorf("duration observations of %s: %v, want 3", oneRoute, got)
	}
	// No route label carries an id.
	for _, route := range after.LabelValues(requestsTotal, "route") {
		if strings.ContainsAny(route, "0123456789") && !strings.Contains(route, "/v10/") && !strings.Contains(route, "/v9/") {
			t.Errorf("route label %q carries a raw path", route)
		}
		if strings.Contains(route, str(cmd, "id")) || strings.Contains(route, e.App.ApplicationID) {
			t.Errorf("route label %q carries an id", route)
		}
	}
	// Store calls are timed by operation.
	if n := value(after, "slashd_store_operation_duration_seconds_count", labels{"op": "TokenByHash"}); n < 1 {
		t.Errorf("TokenByHash timed %v times, want at least 1 (the cache serves the rest)", n)
	}
	if v := value(after, "go_goroutines", labels{}); v < 1 {
		t.Errorf("go_goroutines = %v", v)
	}
}

// Unknown paths, however many and with whatever method, share one label
// value: a scan cannot grow the series.
func TestMetricsUnknownPathsShareOneRoute(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	mustDo(t, e, "GET", "/nope", "", nil, 404) // the first one makes the series
	before := scrape(t, e)
	for i := range 5 {
		mustDo(t, e, "GET", fmt.Sprintf("/nope/%d/x?y=%d", i, i), "", nil, 404)
		mustDo(t, e, "BREW", fmt.Sprintf("/api/v10/coffee-%d", i), "", nil, 404)
	}
	mustDo(t, e, "BREW", "/nope", "", nil, 404)
	after := scrape(t, e)

	routesBefore, routesAfter := before.LabelValues(requestsTotal, "route"), after.LabelValues(requestsTotal, "route")
	// /metrics itself is the one route the scrape adds.
	routesAfter = slices.DeleteFunc(routesAfter, func(r string) bool { return r == "/metrics" && !slices.Contains(routesBefore, r) })
	if !slices.Equal(routesBefore, routesAfter) {
		t.Errorf("route labels grew from %v to %v", routesBefore, routesAfter)
	}
	if got := after.LabelValues(requestsTotal, "method"); !slices.Equal(got, []string{"GET", "other"}) {
		t.Errorf("method labels %v, want GET and other", got)
	}
	unmatched := func(exp *metricstest.Exposition, method string) float64 {
		return value(exp, requestsTotal, labels{"route": "unmatched", "method": method, "code": "404"})
	}
	if got := unmatched(after, "GET") - unmatched(before, "GET"); got != 5 {
		t.Errorf("unmatched GETs: %v, want 5", got)
	}
	if got := unmatched(after, "other"); got != 6 {
		t.Errorf("unmatched BREWs: %v, want 6", got)
	}
}

// logBuffer collects the server's log as JSON lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// events returns the records whose message is msg; every line must be a
// JSON object.
func (b *logBuffer) events(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// loggedEnv is a server whose info log is captured as JSON.
func loggedEnv(t *testing.T) (*testenv.Env, *logBuffer) {
	logs := &logBuffer{}
	e := testenv.NewLogged(t, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	return e, logs
}

// wantEvent finds the one event msg whose attributes include want.
func wantEvent(t *testing.T, logs *logBuffer, msg string, want map[string]any) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, rec := range logs.events(t, msg) {
		if includes(rec, want) {
			found = append(found, rec)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %q events with %v, want 1; log:\n%s", len(found), msg, want, logs)
	}
	if rec := found[0]; rec["level"] != "INFO" {
		t.Fatalf("%q at level %v, want INFO", msg, rec["level"])
	}
	return found[0]
}

func includes(rec, want map[string]any) bool {
	for k, v := range want {
		if fmt.Sprint(rec[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

const interactionsTotal = "slashd_interactions_total"

// Invocations of an app with an Interactions Endpoint URL: each outcome
// is counted, timed and logged with its target, status and latency.
func TestObservedEndpointInteractions(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	w := newInvokeWorld(t, e)
	app := e.App.ApplicationID
	wantEvent(t, logs, "interactions endpoint verified", map[string]any{"application_id": app})

	cmd := w.command(chat("hello"))
	wantEvent(t, logs, "commands changed", map[string]any{"application_id": app, "scope": "guild",
		"guild_id": w.guild, "created": 1, "updated": 0, "deleted": 0})
	before := scrape(t, e)

	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) { return interactions.Defer(false), nil })
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 200)
	w.answerWith(func(*interactions.Interaction) (interactions.Response, error) { return interactions.Response{}, nil })
	wantStatus(t, w.invoke(w.invocation(2, cmd)), 502) // the SDK answers 500
	unknown := w.invocation(2, cmd)
	unknown["data"].(jsonObj)["id"] = "123456789012345678"
	wantStatus(t, w.invoke(unknown), 404)
	after := scrape(t, e)

	for outcome, want := range map[string]float64{"answered": 1, "deferred": 1, "delivery_failed": 1, "rejected": 1, "timeout": 0} {
		l := labels{"type": "application_command", "outcome": outcome}
		if got := value(after, interactionsTotal, l) - value(before, interactionsTotal, l); got != want {
			t.Errorf("%s: %v, want %v", outcome, got, want)
		}
	}
	// Three deliveries were timed; the rejected invocation never left.
	if got := value(after, "slashd_interaction_delivery_seconds_count", labels{"target": "endpoint"}); got != 3 {
		t.Errorf("endpoint deliveries timed: %v, want 3", got)
	}
	answered := wantEvent(t, logs, "interaction answered", map[string]any{"outcome": "answered", "target": "endpoint",
		"status": 200, "type": "application_command", "application_id": app})
	if ms, ok := answered["latency_ms"].(float64); !ok || ms < 0 || ms > 3000 {
		t.Errorf("latency_ms %v", answered["latency_ms"])
	}
	if !strings.HasPrefix(fmt.Sprint(answered["endpoint"]), "http://127.0.0.1:") {
		t.Errorf("endpoint %v", answered["endpoint"])
	}
	wantEvent(t, logs, "interaction answered", map[string]any{"outcome": "deferred", "status": 200})
	failed := wantEvent(t, logs, "interaction failed", map[string]any{"outcome": "delivery_failed", "target": "endpoint",
		"status": 500})
	if reason := fmt.Sprint(failed["reason"]); !strings.Contains(reason, "HTTP 500") {
		t.Errorf("reason %q", reason)
	}
}

// An endpoint that fails verification is logged with the failed check.
func TestObservedEndpointVerificationFailure(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	broken := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(broken.Close)
	adminDo(t, e, "PUT", "/applications/"+e.App.ApplicationID+"/interactions-endpoint",
		jsonObj{"interactions_endpoint_url": broken.URL + "/hook?secret=s3cr3t"}, 400)
	rec := wantEvent(t, logs, "interactions endpoint verification failed", map[string]any{
		"application_id": e.App.ApplicationID, "check": "ping", "endpoint": broken.URL + "/hook"})
	if !strings.Contains(fmt.Sprint(rec["reason"]), "404") {
		t.Errorf("reason %v", rec["reason"])
	}
	if strings.Contains(logs.String(), "s3cr3t") {
		t.Error("the endpoint's query is logged")
	}
}

// Over the gateway: one answer through the callback, and one left
// unanswered until the server's clock passes the answer window.
func TestObservedGatewayInteractions(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	w := newGatewayWorld(t, e)
	before := scrape(t, e)

	w.answered(t, "hi", 0)
	p := w.start(t, w.invocation(2))
	e.Clock.Advance(3100 * time.Millisecond)
	wantError(t, p.wait(t), 504, bodyNoResponse)
	after := scrape(t, e)

	for outcome, want := range map[string]float64{"answered": 1, "timeout": 1} {
		l := labels{"type": "application_command", "outcome": outcome}
		if got := value(after, interactionsTotal, l) - value(before, interactionsTotal, l); got != want {
			t.Errorf("%s: %v, want %v", outcome, got, want)
		}
	}
	if got := value(after, "slashd_interaction_delivery_seconds_count", labels{"target": "gateway"}); got != 2 {
		t.Errorf("gateway deliveries timed: %v, want 2", got)
	}
	wantEvent(t, logs, "interaction answered", map[string]any{"target": "gateway", "outcome": "answered"})
	failed := wantEvent(t, logs, "interaction failed", map[string]any{"target": "gateway", "outcome": "timeout",
		"interaction_id": p.id})
	if !strings.Contains(fmt.Sprint(failed["reason"]), "no answer within 3s") {
		t.Errorf("reason %v", failed["reason"])
	}
	for _, secret := range []string{p.token, w.aliceTok, e.App.BotToken} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("a token is in the log: %.12s…", secret)
		}
	}
}

// An OAuth2 grant is logged, and the token it yields is not.
func TestObservedOAuthGrant(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	r := postForm(t, e, "/api/v10/oauth2/token", map[string][]string{"grant_type": {"client_credentials"},
		"scope": {"applications.commands.update identify"}}, e.App.ClientID, e.App.ClientSecret)
	wantStatus(t, r, 200)
	access := str(decodeObj(t, r), "access_token")
	wantEvent(t, logs, "oauth2 grant", map[string]any{"application_id": e.App.ApplicationID, "user_id": e.App.OwnerUserID,
		"via": "client_credentials", "scopes": "applications.commands.update identify"})
	wantEvent(t, logs, "oauth2 token issued", map[string]any{"grant_type": "client_credentials",
		"application_id": e.App.ApplicationID, "refresh_token": false})
	for _, secret := range []string{access, e.App.ClientSecret} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("a secret is in the log: %.8s…", secret)
		}
	}
}

// Bulk overwrites and deletes say what changed; a write that changes
// nothing says nothing.
func TestObservedCommandChanges(t *testing.T) {
	t.Parallel()
	e, logs := loggedEnv(t)
	p := v10(e)
	app := e.App.ApplicationID
	list := decodeList(t, mustDo(t, e, "PUT", p.global(), e.Bot(), []jsonObj{chat("a"), chat("b")}, 200))
	wantEvent(t, logs, "commands changed", map[string]any{"application_id": app, "scope": "global", "created": 2, "deleted": 0})
	mustDo(t, e, "PUT", p.global(), e.Bot(), []jsonObj{chat("a"), {"name": "b", "description": "Changed"}, chat("c")}, 200)
	wantEvent(t, logs, "commands changed", map[string]any{"scope": "global", "created": 1, "updated": 1, "deleted": 0})
	mustDo(t, e, "DELETE", p.globalCmd(str(list[0], "id")), e.Bot(), nil, 204)
	wantEvent(t, logs, "commands changed", map[string]any{"scope": "global", "created": 0, "updated": 0, "deleted": 1})
	n := len(logs.events(t, "commands changed"))
	mustDo(t, e, "POST", p.global(), e.Bot(), chat("c"), 200) // identical: no new version
	if got := len(logs.events(t, "commands changed")); got != n {
		t.Errorf("an unchanged write was logged")
	}
	// Requests are logged at debug only.
	if got := logs.events(t, "request"); len(got) != 0 {
		t.Errorf("requests logged at info: %v", got[0])
	}
}

// The gateway gauges follow a bot connecting, identifying and leaving.
func TestMetricsGatewaySessions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	gauge := func(exp *metricstest.Exposition) (connected, resumable, conns float64) {
		return value(exp, "slashd_gateway_sessions", labels{"state": "connected"}),
			value(exp, "slashd_gateway_sessions", labels{"state": "resumable"}),
			value(exp, "slashd_gateway_connections", labels{})
	}
	waitFor := func(what string, want [3]float64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, r, n := gauge(scrape(t, e))
			if [3]float64{c, r, n} == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: connected %v, resumable %v, connections %v; want %v", what, c, r, n, want)
			}
			time.Sleep(10 * time.Millisecond) // polling the scrape, not waiting on time
		}
	}
	waitFor("before", [3]float64{0, 0, 0})

	ws := identifiedBot(t, e)
	waitFor("identified", [3]float64{1, 0, 1})
	ws.Close(websocket.StatusNormalClosure, "bye") // ends the session
	waitFor("closed with 1000", [3]float64{0, 0, 0})

	ws = identifiedBot(t, e)
	waitFor("identified again", [3]float64{1, 0, 1})
	ws.Close(4000, "reconnecting") // the session stays resumable
	waitFor("dropped", [3]float64{0, 1, 0})
}

// identifiedBot connects to the gateway as the app's bot and waits for
// READY.
func identifiedBot(t *testing.T, e *testenv.Env) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(e.URL, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	identify := `{"op":2,"d":{"token":"Bot ` + e.App.BotToken + `","intents":0,"properties":{"os":"linux","browser":"t","device":"t"}}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for READY: %v", err)
		}
		var p struct {
			Op int    `json:"op"`
			T  string `json:"t"`
		}
		if json.Unmarshal(data, &p) == nil && p.Op == 0 && p.T == "READY" {
			return ws
		}
	}
}

// BenchmarkRequestMetrics is the cost of the metrics layer per request:
// the same route served by a bare mux, and by the API (recorder, panic
// guard, debug-level log check and the metrics) with the request
// counted and timed.
func BenchmarkRequestMetrics(b *testing.B) {
	e := testenv.New(b)
	ok := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}
	bare := http.NewServeMux()
	bare.HandleFunc("GET /healthz", ok)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare mux", bare}, {"API with metrics", e.API}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/healthz", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

// A bus subscription that lost events is counted by consumer: here the
// gateway's, on a bus that marks one probe event AfterGap (as a bus does
// for a subscriber whose buffer was full). Both series exist at 0 before.
func TestMetricsEventBusGaps(t *testing.T) {
	t.Parallel()
	st, err := sqlite.OpenFromTemplate(t.Context(), filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bus := &gapMarkingBus{Memory: event.NewMemory()}
	h := api.New(api.DefaultConfig(), api.Deps{Store: st, IDs: snowflake.NewGenerator(0, nil), Events: bus})
	defer h.Shutdown(context.Background())
	read := func() (gateway, cache float64) {
		rec := httptest.NewRecorder()
		h.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		exp, err := metricstest.Parse(rec.Body.String())
		if err != nil {
			t.Fatal(err)
		}
		g, okG := exp.Value("slashd_event_bus_gaps_total", labels{"consumer": "gateway"})
		c, okC := exp.Value("slashd_event_bus_gaps_total", labels{"consumer": "cache"})
		if !okG || !okC {
			t.Fatalf("slashd_event_bus_gaps_total lacks a consumer's series:\n%s", rec.Body)
		}
		return g, c
	}
	if g, c := read(); g != 0 || c != 0 {
		t.Fatalf("before any gap: gateway %v, cache %v; want 0 and 0", g, c)
	}
	bus.Publish(context.Background(), event.Event{Type: gapProbe})
	deadline := time.Now().Add(30 * time.Second)
	for {
		g, c := read()
		if g == 1 && c == 0 { // this node's cache is not shared: it does not subscribe
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one marked event: gateway %v, cache %v; want 1 and 0", g, c)
		}
		<-time.After(10 * time.Millisecond) // poll
	}
}

// gapProbe is the event gapMarkingBus marks AfterGap.
const gapProbe = "TEST_GAP_PROBE"

// gapMarkingBus hands its subscribers every gapProbe event marked
// AfterGap, and the rest as they are.
type gapMarkingBus struct{ *event.Memory }

func (b *gapMarkingBus) Subscribe(ctx context.Context, buffer int) <-chan event.Event {
	in := b.Memory.Subscribe(ctx, buffer)
	out := make(chan event.Event, buffer)
	go func() {
		defer close(out)
		for e := range in {
			e.AfterGap = e.AfterGap || e.Type == gapProbe
			out <- e
		}
	}()
	return out
}

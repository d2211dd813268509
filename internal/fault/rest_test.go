package fault_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

func mustID(t *testing.T, s string) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRESTFaults: each REST kind answers as the real service does, for
// the world's app only, on its route only, as many times as its count.
func TestRESTFaults(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "rest-faults")
	other := newWorld(t, e, "rest-other")
	commands := "/api/v10/applications/" + w.AppID() + "/commands"
	cases := []struct {
		name    string
		fault   map[string]any
		status  int
		body    string // "" : not checked
		headers map[string]string
	}{
		{"route 429", map[string]any{"kind": "rest.429", "retry_after": 1.5},
			429, `{"global":false,"message":"You are being rate limited.","retry_after":1.5}`,
			map[string]string{"X-RateLimit-Scope": "user", "X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "1",
				"X-RateLimit-Reset-After": "1.500", "Retry-After": "2", "X-RateLimit-Global": ""}},
		{"global 429", map[string]any{"kind": "rest.429", "scope": "global", "retry_after": 0.25},
			429, `{"global":true,"message":"You are being rate limited.","retry_after":0.25}`,
			map[string]string{"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global", "Retry-After": "1"}},
		{"shared 429", map[string]any{"kind": "rest.429", "scope": "shared", "retry_after": 2},
			429, `{"global":false,"message":"You are being rate limited.","retry_after":2}`,
			map[string]string{"X-RateLimit-Scope": "shared", "X-RateLimit-Global": ""}},
		{"500", map[string]any{"kind": "rest.500"}, 500, `{"code":0,"message":"500: Internal Server Error"}`,
			map[string]string{"Content-Type": "application/json"}},
		{"502", map[string]any{"kind": "rest.502"}, 502, "", map[string]string{"Content-Type": "text/html"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fault["app"] = "modbot"
			c.fault["route"] = "GET /api/v10/applications/{application_id}/commands"
			f := addFault(t, e, w, c.fault)
			// Another route of the app, and the same route for another
			// world's app, are untouched.
			if res := e.Do("GET", "/api/v10/applications/"+w.AppID(), w.Bot(), nil); res.Status == c.status {
				t.Errorf("another route got the fault: %d %s", res.Status, res.Body)
			}
			if res := e.Do("GET", "/api/v10/applications/"+other.AppID()+"/commands", other.Bot(), nil); res.Status != 200 {
				t.Errorf("another world's app: %d %s", res.Status, res.Body)
			}
			res := e.Do("GET", commands, w.Bot(), nil)
			if res.Status != c.status {
				t.Fatalf("status %d %s, want %d", res.Status, res.Body, c.status)
			}
			if c.body != "" && !jsonEqual(res.Body, c.body) {
				t.Errorf("body %s, want %s", res.Body, c.body)
			}
			for k, v := range c.headers {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			// Count 1: spent, listed with none left, and the route works.
			if res := e.Do("GET", commands, w.Bot(), nil); res.Status != 200 {
				t.Errorf("after the fault: %d %s", res.Status, res.Body)
			}
			for _, got := range listFaults(t, e, w) {
				if got.ID == f.ID && (got.Remaining == nil || *got.Remaining != 0 || got.Fired != 1) {
					t.Errorf("listed %+v, want spent after one firing", got)
				}
			}
		})
	}
	// Each 429 is journaled with its exact wait (the body's retry_after;
	// Retry-After is rounded up to whole seconds) and its route.
	t.Run("journaled 429s", func(t *testing.T) {
		type hit struct {
			Route      string  `json:"route"`
			Method     string  `json:"method"`
			Scope      string  `json:"scope"`
			Global     bool    `json:"global"`
			RetryAfter float64 `json:"retry_after"`
		}
		want := map[string]float64{"user": 1.5, "global": 0.25, "shared": 2}
		testenv.WaitFor(t, "the three 429s journaled", func() bool {
			res := e.Do("GET", "/admin/v1/worlds/"+w.ID+"/events?type=rate_limit.hit", e.AdminAuth(), nil)
			var page struct{ Events []hit }
			res.JSON(t, &page)
			seen := 0
			for _, h := range page.Events {
				if h.Route != "GET /api/v10/applications/{application_id}/commands" || h.Method != "GET" {
					t.Fatalf("429 journaled as %+v", h)
				}
				if r, ok := want[h.Scope]; ok && h.RetryAfter == r && h.Global == (h.Scope == "global") {
					seen++
				}
			}
			return seen == len(want)
		})
	})
	t.Run("delay", func(t *testing.T) {
		addFault(t, e, w, map[string]any{"kind": "rest.delay", "delay_ms": 300, "app": w.AppID()})
		start := time.Now()
		if res := e.Do("GET", commands, w.Bot(), nil); res.Status != 200 {
			t.Fatalf("delayed request: %d %s", res.Status, res.Body)
		}
		if took := time.Since(start); took < 300*time.Millisecond {
			t.Errorf("a 300 ms delay took %v", took)
		}
	})
	t.Run("count", func(t *testing.T) {
		addFault(t, e, w, map[string]any{"kind": "rest.500", "count": 3})
		var got []int
		for range 5 {
			got = append(got, e.Do("GET", commands, w.Bot(), nil).Status)
		}
		if fmt.Sprint(got) != "[500 500 500 200 200]" {
			t.Errorf("statuses %v, want three 500s then 200s", got)
		}
	})
	t.Run("seeded probability", func(t *testing.T) {
		run := func() string {
			e.Do("DELETE", "/admin/v1/worlds/"+w.Name+"/faults", e.AdminAuth(), nil)
			addFault(t, e, w, map[string]any{"kind": "rest.500", "probability": 0.5, "seed": 42})
			var b strings.Builder
			for range 16 {
				fmt.Fprint(&b, e.Do("GET", commands, w.Bot(), nil).Status/100)
			}
			return b.String()
		}
		first, second := run(), run()
		if first != second || !strings.Contains(first, "5") || !strings.Contains(first, "2") {
			t.Errorf("two runs with seed 42: %s and %s; want one mixed sequence", first, second)
		}
		e.Do("DELETE", "/admin/v1/worlds/"+w.Name+"/faults", e.AdminAuth(), nil)
	})
}

// TestFaultRoutes: the admin routes create, list, delete and clear, and
// refuse bad faults with 50035 at the field.
func TestFaultRoutes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "fault-routes")
	other := newWorld(t, e, "fault-routes-other")
	bad := []struct {
		body  map[string]any
		field string
		code  string
	}{
		{map[string]any{"kind": "rest.418"}, "kind", "FAULT_KIND_INVALID"},
		{map[string]any{"kind": "gateway.close", "code": 1006}, "code", "FAULT_CLOSE_CODE_INVALID"},
		{map[string]any{"kind": "rest.500", "probability": 1.5}, "probability", "FAULT_COUNT_INVALID"},
		{map[string]any{"kind": "rest.500", "count": 0}, "count", "NUMBER_TYPE_MIN"},
		{map[string]any{"kind": "rest.500", "app": "nobot"}, "app", "UNKNOWN_APPLICATION"},
		// Another world's app is unknown here, by handle or by id.
		{map[string]any{"kind": "rest.500", "app": other.AppID()}, "app", "UNKNOWN_APPLICATION"},
	}
	for _, c := range bad {
		res := e.Do("POST", "/admin/v1/worlds/"+w.Name+"/faults", e.AdminAuth(), c.body)
		var env struct {
			Code   int                       `json:"code"`
			Errors map[string]map[string]any `json:"errors"`
		}
		res.JSON(t, &env)
		if res.Status != 400 || env.Code != 50035 || !strings.Contains(fmt.Sprint(env.Errors[c.field]), c.code) {
			t.Errorf("%v: %d %s; want 50035 with %s at %s", c.body, res.Status, res.Body, c.code, c.field)
		}
	}
	if res := e.Do("POST", "/admin/v1/worlds/nowhere/faults", e.AdminAuth(), map[string]any{"kind": "rest.500"}); res.Status != 404 {
		t.Errorf("unknown world: %d %s", res.Status, res.Body)
	}
	a := addFault(t, e, w, map[string]any{"kind": "gateway.reconnect", "app": "modbot", "count": 2})
	b := addFault(t, e, w, map[string]any{"kind": "delivery.late", "app": "modbot", "probability": 0.5, "seed": 42})
	if a.AppID != w.AppID() || a.Remaining == nil || *a.Remaining != 2 || a.Count != 2 {
		t.Errorf("created %+v", a)
	}
	if b.Probability != 0.5 || b.Seed == nil || *b.Seed != 42 || b.Remaining != nil {
		t.Errorf("created %+v", b)
	}
	if got := listFaults(t, e, w); len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID {
		t.Errorf("listed %+v", got)
	}
	if got := listFaults(t, e, other); len(got) != 0 {
		t.Errorf("the other world lists %+v", got)
	}
	if res := e.Do("DELETE", "/admin/v1/worlds/"+other.Name+"/faults/"+a.ID, e.AdminAuth(), nil); res.Status != 404 {
		t.Errorf("delete through another world: %d %s", res.Status, res.Body)
	}
	if res := e.Do("DELETE", "/admin/v1/worlds/"+w.Name+"/faults/"+a.ID, e.AdminAuth(), nil); res.Status != 204 {
		t.Errorf("delete: %d %s", res.Status, res.Body)
	}
	if got := listFaults(t, e, w); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("after delete: %+v", got)
	}
	if res := e.Do("DELETE", "/admin/v1/worlds/"+w.Name+"/faults", e.AdminAuth(), nil); res.Status != 204 {
		t.Errorf("clear: %d %s", res.Status, res.Body)
	}
	if got := listFaults(t, e, w); len(got) != 0 {
		t.Errorf("after clear: %+v", got)
	}
	// A world's faults go with it.
	addFault(t, e, w, map[string]any{"kind": "rest.500"})
	if res := e.Do("DELETE", "/admin/v1/worlds/"+w.Name, e.AdminAuth(), nil); res.Status != 204 {
		t.Fatalf("delete world: %d %s", res.Status, res.Body)
	}
	if left, err := e.Store.WorldFaults(t.Context(), mustID(t, w.ID)); err != nil || len(left) != 0 {
		t.Errorf("the deleted world's faults: %v, %v", left, err)
	}
	if e.API.Faults().Any() {
		t.Error("the node still holds the deleted world's faults")
	}
}

// TestDiscordgoSurvivesRESTFaults: discordgo with its defaults waits out a
// 429 (its body's retry_after) and retries a 502 by itself: the call
// succeeds, and the wire shows the fault then the answer.
func TestDiscordgoSurvivesRESTFaults(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e, "discordgo-rest")
	for _, kind := range []string{"rest.429", "rest.502"} {
		t.Run(kind, func(t *testing.T) {
			s, rt := newDiscordgo(t, e, w.Bot())
			addFault(t, e, w, map[string]any{"kind": kind, "app": "modbot",
				"route": "GET /api/v9/applications/{application_id}/commands"})
			cmds, err := s.ApplicationCommands(w.AppID(), "")
			if err != nil {
				t.Fatalf("ApplicationCommands: %v", err)
			}
			if len(cmds) != 1 || cmds[0].Name != "ping" {
				t.Errorf("commands %+v", cmds)
			}
			want := "[429 200]"
			if kind == "rest.502" {
				want = "[502 200]"
			}
			if got := fmt.Sprint(rt.seen()); got != want {
				t.Errorf("discordgo saw %s, want %s", got, want)
			}
		})
	}
}

func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// rewriteTransport sends discordgo's discord.com requests to the test
// server and records each exchange's status.
type rewriteTransport struct {
	target *url.URL
	base   http.RoundTripper

	mu       sync.Mutex
	statuses []int
}

func (rt *rewriteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host = rt.target.Scheme, rt.target.Host, ""
	resp, err := rt.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rt.mu.Lock()
	rt.statuses = append(rt.statuses, resp.StatusCode)
	rt.mu.Unlock()
	return resp, nil
}

func (rt *rewriteTransport) seen() []int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]int(nil), rt.statuses...)
}

// newDiscordgo is discordgo.New(auth) with its defaults, aimed at e.
func newDiscordgo(t *testing.T, e *testenv.Env, auth string) (*discordgo.Session, *rewriteTransport) {
	t.Helper()
	s, err := discordgo.New(auth)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	rt := &rewriteTransport{target: target, base: e.Server.Client().Transport}
	s.Client = &http.Client{Transport: rt, Timeout: 20 * time.Second}
	return s, rt
}

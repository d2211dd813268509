package api_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

func TestWorldClock(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	if r := e.Do("POST", "/admin/v1/worlds/ban-tests/clock", e.AdminAuth(), map[string]any{"advance": "soon"}); r.Status != 400 ||
		!strings.Contains(string(r.Body), "DURATION_INVALID") {
		t.Errorf("bad duration: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/admin/v1/worlds/ban-tests/clock", e.AdminAuth(), map[string]any{"advance": "-1m"}); r.Status != 400 {
		t.Errorf("backwards: %d %s", r.Status, r.Body)
	}
	// A Bearer token alice grants modbot lives 7 days (as the real ones).
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r := e.Do("POST", "/admin/v1/users/"+w.Users["alice"].ID+"/tokens", e.AdminAuth(),
		map[string]any{"type": "bearer", "application_id": w.Apps["modbot"].ID, "scopes": "identify"})
	r.JSON(t, &tok)
	if r.Status != 201 || tok.AccessToken == "" {
		t.Fatalf("bearer: %d %s", r.Status, r.Body)
	}
	bearer := "Bearer " + tok.AccessToken
	if r := e.Do("GET", "/api/v10/users/@me", bearer, nil); r.Status != 200 {
		t.Fatalf("fresh bearer: %d %s", r.Status, r.Body)
	}
	var clock struct {
		OffsetMS int64     `json:"offset_ms"`
		Now      time.Time `json:"now"`
	}
	r = e.Do("POST", "/admin/v1/worlds/ban-tests/clock", e.AdminAuth(), map[string]any{"advance": "169h"})
	r.JSON(t, &clock)
	if r.Status != 200 || clock.OffsetMS != (169*time.Hour).Milliseconds() {
		t.Fatalf("advance: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v10/users/@me", bearer, nil); r.Status != 401 {
		t.Errorf("a week-old bearer after the world's clock moved a week: %d %s", r.Status, r.Body)
	}
	var got struct {
		Clock struct {
			OffsetMS int64 `json:"offset_ms"`
		} `json:"clock"`
	}
	e.Do("GET", "/admin/v1/worlds/"+w.ID, e.AdminAuth(), nil).JSON(t, &got)
	if got.Clock.OffsetMS != clock.OffsetMS {
		t.Errorf("world's clock = %d, want %d", got.Clock.OffsetMS, clock.OffsetMS)
	}
	// The demo app (no world) keeps real time: its owner's Bearer works.
	if r := e.Do("GET", "/api/v10/users/@me", e.Owner(), nil); r.Status != 200 {
		t.Errorf("the world-less owner's bearer: %d %s", r.Status, r.Body)
	}
}

// TestWorldClockEndsRateLimitWindows: a world's bot that spent a route's
// bucket gets it back when its world's clock passes the window's end; a
// bot of no world, spent alike, still waits.
func TestWorldClockEndsRateLimitWindows(t *testing.T) {
	e := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) {
		c.ReadLimit = ratelimit.Limit{Count: 2, Window: time.Hour}
	}))
	w := createWorld(t, e, issueExample)
	worldBot, appID := "Bot "+w.Apps["modbot"].BotToken, w.Apps["modbot"].ID
	spend := func(auth, app string) int {
		status := 0
		for range 3 {
			status = e.Do("GET", "/api/v10/applications/"+app+"/commands", auth, nil).Status
		}
		return status
	}
	if got := spend(worldBot, appID); got != 429 {
		t.Fatalf("third read in an hour's bucket of 2: %d, want 429", got)
	}
	if got := spend(e.Bot(), e.App.ApplicationID); got != 429 {
		t.Fatalf("the world-less bot's third read: %d, want 429", got)
	}
	if r := e.Do("POST", "/admin/v1/worlds/ban-tests/clock", e.AdminAuth(), map[string]any{"advance": "1h"}); r.Status != 200 {
		t.Fatalf("advance: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v10/applications/"+appID+"/commands", worldBot, nil); r.Status != 200 {
		t.Errorf("the world's bot after its clock passed the window: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v10/applications/"+e.App.ApplicationID+"/commands", e.Bot(), nil); r.Status != 429 {
		t.Errorf("the world-less bot after another world's clock moved: %d, want 429 still", r.Status)
	}
}

// TestWorldClockAgesInteractionTokens: once the world's clock moved 15
// minutes, the token of an interaction of its app no longer serves
// follow-ups (50027), as after 15 real minutes.
func TestWorldClockAgesInteractionTokens(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	modbot, club, alice := w.Apps["modbot"], w.Guilds["club"], w.Users["alice"]
	var (
		mu   sync.Mutex
		last *interactions.Interaction
	)
	app := httptest.NewServer(interactions.Handler(modbot.PublicKey,
		func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
			mu.Lock()
			last = i
			mu.Unlock()
			return interactions.Message("banned"), nil
		}))
	t.Cleanup(app.Close)
	if r := e.Do("PUT", "/admin/v1/applications/"+modbot.ID+"/interactions-endpoint", e.AdminAuth(),
		map[string]any{"interactions_endpoint_url": app.URL}); r.Status != 200 {
		t.Fatalf("endpoint: %d %s", r.Status, r.Body)
	}
	var cmds []map[string]any
	e.Do("GET", "/api/v10/applications/"+modbot.ID+"/commands", "Bot "+modbot.BotToken, nil).JSON(t, &cmds)
	if len(cmds) != 1 {
		t.Fatalf("commands: %v", cmds)
	}
	invoke := map[string]any{"type": 2, "application_id": modbot.ID, "guild_id": club.ID,
		"channel_id": club.Channels["general"], "data": map[string]any{"id": modbot.Commands["ban"], "name": "ban", "type": 1, "version": cmds[0]["version"],
			"options": []any{map[string]any{"name": "user", "type": 6, "value": w.Users["bob"].ID}}}}
	if r := e.Do("POST", "/api/v10/interactions", alice.ClientToken, invoke); r.Status != 200 {
		t.Fatalf("alice runs /ban: %d %s", r.Status, r.Body)
	}
	mu.Lock()
	i := last
	mu.Unlock()
	if i == nil {
		t.Fatal("the app received no interaction")
	}
	hook := "/api/v10/webhooks/" + modbot.ID + "/" + i.Token
	if r := e.Do("POST", hook, "", map[string]any{"content": "and one more"}); r.Status != 200 {
		t.Fatalf("a fresh token's follow-up: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/admin/v1/worlds/ban-tests/clock", e.AdminAuth(), map[string]any{"advance": "15m1s"}); r.Status != 200 {
		t.Fatalf("advance: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", hook, "", map[string]any{"content": "too late"}); r.Status != 401 ||
		!strings.Contains(string(r.Body), "50027") {
		t.Errorf("a follow-up after the world's 15 minutes: %d %s, want 401 50027", r.Status, r.Body)
	}
}

package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// TestDiscovery: GET /gateway (no auth) and /gateway/bot (a bot token)
// under every API prefix point at slashd's own websocket.
func TestDiscovery(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	want := "ws://" + strings.TrimPrefix(e.URL, "http://") + "/gateway"
	for _, prefix := range []string{"/api/v10", "/api/v9", "/api"} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			for _, auth := range []string{"", e.Bot(), e.Owner()} {
				r := e.Do("GET", prefix+"/gateway", auth, nil)
				if r.Status != 200 {
					t.Fatalf("GET %s/gateway with %q: %d %s", prefix, auth, r.Status, r.Body)
				}
				var got map[string]any
				r.JSON(t, &got)
				if len(got) != 1 || got["url"] != want {
					t.Fatalf("GET %s/gateway: %s, want {\"url\":%q}", prefix, r.Body, want)
				}
			}

			r := e.Do("GET", prefix+"/gateway/bot", e.Bot(), nil)
			if r.Status != 200 {
				t.Fatalf("GET %s/gateway/bot: %d %s", prefix, r.Status, r.Body)
			}
			var bot struct {
				URL               string `json:"url"`
				Shards            *int   `json:"shards"`
				SessionStartLimit *struct {
					Total          *int `json:"total"`
					Remaining      *int `json:"remaining"`
					ResetAfter     *int `json:"reset_after"`
					MaxConcurrency *int `json:"max_concurrency"`
				} `json:"session_start_limit"`
			}
			dec := json.NewDecoder(strings.NewReader(string(r.Body)))
			if err := dec.Decode(&bot); err != nil {
				t.Fatal(err)
			}
			if bot.URL != want || bot.Shards == nil || *bot.Shards != 1 {
				t.Fatalf("GET %s/gateway/bot: %s, want url %q and 1 shard", prefix, r.Body, want)
			}
			l := bot.SessionStartLimit
			if l == nil || l.Total == nil || l.Remaining == nil || l.ResetAfter == nil || l.MaxConcurrency == nil {
				t.Fatalf("session_start_limit incomplete: %s", r.Body)
			}
			// discord.js needs remaining >= shards.
			if *l.Total < 1 || *l.Remaining < *bot.Shards || *l.Remaining > *l.Total || *l.ResetAfter < 0 || *l.MaxConcurrency < 1 {
				t.Fatalf("session_start_limit %s", r.Body)
			}

			for _, auth := range []string{"", "Bot nope", e.Owner()} {
				if r := e.Do("GET", prefix+"/gateway/bot", auth, nil); r.Status != 401 {
					t.Fatalf("GET %s/gateway/bot with %q: %d %s, want 401", prefix, auth, r.Status, r.Body)
				}
			}
		})
	}
}

// TestDiscoveredURL: the URL /gateway/bot answers is one a client can
// connect to, with or without discordgo's trailing slash.
func TestDiscoveredURL(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var got struct {
		URL string `json:"url"`
	}
	e.Do("GET", "/api/v10/gateway/bot", e.Bot(), nil).JSON(t, &got)
	if !strings.HasPrefix(got.URL, "ws://") {
		t.Fatalf("url %q", got.URL)
	}
	for _, suffix := range []string{"?v=10&encoding=json", "/?v=9&encoding=json"} {
		dialURL(t, got.URL+suffix).login(e, 0)
	}
}

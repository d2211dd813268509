package api_test

import (
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// TestViaHeader: every answer under /api carries "Via: 1.1 google", as
// the real service's do, errors and 429s included: discord.py (http.py)
// reads a 429 without Via as a Cloudflare ban and raises instead of
// waiting. Routes outside the real API (admin, health) have none.
func TestViaHeader(t *testing.T) {
	t.Parallel()
	// The bot's global limit is 2 and a route's 1: its second read of
	// one route is a route 429, its third request a global one.
	e := testenv.New(t, limits(2, 1, 1))
	cases := []struct {
		name, method, path, auth string
		status                   int
		via                      string
	}{
		{"a success", "GET", "/api/v10/users/@me", e.Bot(), 200, "1.1 google"},
		{"a route 429", "GET", "/api/v10/users/@me", e.Bot(), 429, "1.1 google"},
		{"an unknown route", "GET", "/api/v10/nothing/here", "", 404, "1.1 google"},
		{"a global 429", "GET", "/api/v10/gateway/bot", e.Bot(), 429, "1.1 google"},
		{"unauthorized", "GET", "/api/v9/users/@me", "Bot nope", 401, "1.1 google"},
		{"an unknown route under /api", "GET", "/api/nothing", "", 404, "1.1 google"},
		{"/api itself", "GET", "/api", "", 404, "1.1 google"},
		{"another method", "DELETE", "/api/v10/gateway", "", 405, "1.1 google"},
		{"not the API: health", "GET", "/healthz", "", 200, ""},
		{"not the API: a path that starts like it", "GET", "/apiary", "", 404, ""},
	}
	for _, tc := range cases { // in order: the limits count
		r := e.Do(tc.method, tc.path, tc.auth, nil)
		wantStatus(t, r, tc.status)
		if tc.status == 429 {
			want429(t, r, tc.name == "a global 429")
		}
		if got := r.Header.Get("Via"); got != tc.via {
			t.Errorf("%s: %s %s → %d: Via %q, want %q", tc.name, tc.method, tc.path, r.Status, got, tc.via)
		}
	}
}

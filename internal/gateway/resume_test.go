package gateway_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

// waitSessions waits until the gateway holds n sessions.
func waitSessions(t *testing.T, e *testenv.Env, n int) {
	t.Helper()
	testenv.WaitFor(t, fmt.Sprintf("the gateway holds %d sessions", n), func() bool { return e.API.Gateway().Sessions() == n })
}

// dialResume connects to READY's resume_gateway_url.
func dialResume(t *testing.T, e *testenv.Env, r readyData) *client {
	t.Helper()
	prefix := wsURL(e, "")
	if r.ResumeGatewayURL != prefix {
		t.Fatalf("resume_gateway_url %q, want %q", r.ResumeGatewayURL, prefix)
	}
	return dialURL(t, r.ResumeGatewayURL+"?v=10&encoding=json")
}

// resumeData is op 6's data.
func resumeData(token, session string, seq int64) map[string]any {
	return map[string]any{"token": token, "session_id": session, "seq": seq}
}

// TestResume: after an abnormal drop, op 6 replays the dispatches after
// the client's seq in order, then RESUMED; the sequence goes on.
func TestResume(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		token func(e *testenv.Env) string
		seq   int64 // the client's last seq: READY 1, two events 2–3, missed 4–6
		first int   // the first replayed event's n (events are 1–5)
	}{
		{"from the last seen", func(e *testenv.Env) string { return e.Bot() }, 3, 3},
		{"bare token", func(e *testenv.Env) string { return e.App.BotToken }, 3, 3},
		{"from an older seq", func(e *testenv.Env) string { return e.Bot() }, 1, 1},
		{"nothing missed", func(e *testenv.Env) string { return e.Bot() }, 6, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			app, g := appID(t, e), guildID(t, e)
			c := dial(t, e)
			r := c.login(e, 0)
			interaction(e, app, g, 1)
			interaction(e, app, g, 2)
			for n := 1; n <= 2; n++ {
				if got, _, s := c.interactionN(); got != n || s != int64(n+1) {
					t.Fatalf("event %d with s %d, want %d with s %d", got, s, n, n+1)
				}
			}
			_ = c.ws.CloseNow() // abnormal: the session stays resumable
			for n := 3; n <= 5; n++ {
				// Straight to the gateway, so that they are in the session
				// before the resume (the bus is asynchronous).
				e.API.Gateway().Dispatch(interactionEvent(app, g, n))
			}

			c2 := dialResume(t, e, r)
			c2.hello()
			c2.send(6, resumeData(tc.token(e), r.SessionID, tc.seq))
			for n := tc.first; n <= 5; n++ {
				if got, _, s := c2.interactionN(); got != n || s != int64(n+1) {
					t.Fatalf("replayed event %d with s %d, want %d with s %d", got, s, n, n+1)
				}
			}
			if f := c2.dispatch("RESUMED"); f.seq() != 7 {
				t.Fatalf("RESUMED with s %d, want 7", f.seq())
			}
			interaction(e, app, g, 6)
			if got, _, s := c2.interactionN(); got != 6 || s != 8 {
				t.Fatalf("after RESUMED: event %d with s %d, want 6 with s 8", got, s)
			}
			c2.send(1, 8)
			c2.expect(11)
			if n := e.API.Gateway().Sessions(); n != 1 {
				t.Fatalf("%d sessions after resume, want 1", n)
			}
		})
	}
}

// TestResumeElsewhere: resuming a session that still has a connection
// moves it to the new one and closes the old.
func TestResumeElsewhere(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	old := dial(t, e)
	r := old.login(e, 0)
	c := dial(t, e)
	c.hello()
	c.send(6, resumeData(e.Bot(), r.SessionID, 1))
	c.dispatch("RESUMED")
	old.closed(4000, "")
	interaction(e, appID(t, e), guildID(t, e), 1)
	if n, _, s := c.interactionN(); n != 1 || s != 3 {
		t.Fatalf("event %d with s %d, want 1 with s 3", n, s)
	}
}

// TestResumeInvalid: a resume the gateway cannot honour gets op 9 with d
// false, and the connection can identify afresh.
func TestResumeInvalid(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opt  testenv.Option
		// drop ends the first connection and returns the resume data.
		drop func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any
	}{
		{name: "unknown session", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			_ = c.ws.CloseNow()
			return resumeData(e.Bot(), "0123456789abcdef0123456789abcdef", 1)
		}},
		{name: "empty session id", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			_ = c.ws.CloseNow()
			return resumeData(e.Bot(), "", 1)
		}},
		{name: "closed with 1000", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			if err := c.ws.Close(websocket.StatusNormalClosure, ""); err != nil {
				t.Fatal(err)
			}
			waitSessions(t, e, 0)
			return resumeData(e.Bot(), r.SessionID, 1)
		}},
		{name: "closed with 1001", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			if err := c.ws.Close(websocket.StatusGoingAway, ""); err != nil {
				t.Fatal(err)
			}
			waitSessions(t, e, 0)
			return resumeData(e.Bot(), r.SessionID, 1)
		}},
		{name: "another app's session", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			_ = c.ws.CloseNow()
			other := e.NewApp(bootstrap.AppOptions{Name: "other"})
			return resumeData(other.BotToken, r.SessionID, 1)
		}},
		{name: "replay buffer overflowed", opt: func(c *api.Config) { c.Gateway.ReplayLimit = 2 },
			drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
				_ = c.ws.CloseNow()
				for n := range 10 {
					e.API.Gateway().Dispatch(interactionEvent(appID(t, e), guildID(t, e), n))
				}
				return resumeData(e.Bot(), r.SessionID, 1)
			}},
		{name: "timed out (4009)", drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
			e.Clock.Advance(heartbeatTimeout)
			c.closed(4009, "")
			waitSessions(t, e, 0)
			return resumeData(e.Bot(), r.SessionID, 1)
		}},
		{name: "resume window passed", opt: func(c *api.Config) { c.Gateway.ResumeWindow = time.Second },
			drop: func(t *testing.T, e *testenv.Env, c *client, r readyData) map[string]any {
				_ = c.ws.CloseNow()
				waitSessions(t, e, 0)
				return resumeData(e.Bot(), r.SessionID, 1)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []testenv.Option
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			e := testenv.New(t, opts...)
			c := dial(t, e)
			r := c.login(e, 0)
			d := tc.drop(t, e, c, r)

			c2 := dial(t, e)
			c2.hello()
			c2.send(6, d)
			f := c2.expect(9)
			if string(f.D) != "false" || f.S != nil || f.T != nil {
				t.Fatalf("got %s, want op 9 with d false", f)
			}
			// Still open: a heartbeat and a fresh Identify work.
			c2.send(1, nil)
			c2.expect(11)
			c2.send(2, identifyData(e.Bot(), 0))
			if r2 := c2.ready(); r2.SessionID == r.SessionID || r2.SessionID == "" {
				t.Fatalf("new session id %q (old %q)", r2.SessionID, r.SessionID)
			}
		})
	}
}

// TestResumeSeqBeyond: a seq beyond the session's closes with 4007 even
// when the session is otherwise resumable.
func TestResumeSeqBeyond(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	c := dial(t, e)
	r := c.login(e, 0)
	_ = c.ws.CloseNow()
	for _, seq := range []int64{2, 1000} {
		c2 := dial(t, e)
		c2.hello()
		c2.send(6, resumeData(e.Bot(), r.SessionID, seq))
		c2.closed(4007, "Invalid seq.")
	}
	// The session survived the refusals.
	c3 := dial(t, e)
	c3.hello()
	c3.send(6, resumeData(strings.TrimPrefix(e.Bot(), "Bot "), r.SessionID, 1))
	c3.dispatch("RESUMED")
}

// TestResumeReplayLimit: a client that missed ReplayLimit dispatches can
// always resume, however many it received before (the buffer trims in
// chunks); one that missed one more always gets op 9.
func TestResumeReplayLimit(t *testing.T) {
	t.Parallel()
	const limit = 3
	e := testenv.New(t, func(c *api.Config) { c.Gateway.ReplayLimit = limit })
	app, g := appID(t, e), guildID(t, e)
	for received := range 10 {
		for _, missed := range []int{limit, limit + 1} {
			c := dial(t, e)
			r := c.login(e, 0)
			for n := range received {
				e.API.Gateway().Dispatch(interactionEvent(app, g, n))
				c.interactionN()
			}
			_ = c.ws.CloseNow()
			for n := range missed {
				e.API.Gateway().Dispatch(interactionEvent(app, g, 100+n))
			}
			c2 := dial(t, e)
			c2.hello()
			c2.send(6, resumeData(e.Bot(), r.SessionID, int64(1+received)))
			if missed > limit {
				if f := c2.expect(9); string(f.D) != "false" {
					t.Fatalf("received %d, missed %d: %s, want op 9 false", received, missed, f)
				}
			} else {
				for n := range missed {
					if got, _, s := c2.interactionN(); got != 100+n || s != int64(2+received+n) {
						t.Fatalf("received %d, missed %d: replayed %d with s %d, want %d with s %d",
							received, missed, got, s, 100+n, 2+received+n)
					}
				}
				c2.dispatch("RESUMED")
				c2.send(1, nil)
				c2.expect(11)
			}
			if err := c2.ws.Close(websocket.StatusNormalClosure, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
}

package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/testenv"
)

// TestShutdown: Server.Shutdown sends op 7 to every connected client,
// then closes with a code other than 1000/1001, so the sessions stay
// resumable; a client that leaves on op 7 by itself is let go; new
// connections are refused.
func TestShutdown(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)

	stay := dial(t, e) // waits for the server to close
	stay.login(e, 0)
	leave := dial(t, e) // reconnects on op 7, as the libraries do
	leave.login(e, 0)
	fresh := dial(t, e) // not identified
	fresh.hello()
	interaction(e, app, g, 1)
	stay.interactionN()
	leave.interactionN()

	done := make(chan struct{})
	go func() {
		defer close(done)
		e.API.Shutdown(context.Background())
	}()
	for _, c := range []*client{stay, leave, fresh} {
		f := c.expect(7)
		if string(f.D) != "null" || f.S != nil || f.T != nil {
			t.Fatalf("got %s, want {op:7, d:null}", f)
		}
	}
	_ = leave.ws.Close(4000, "reconnecting") // the server may have closed first
	for _, c := range []*client{stay, fresh} {
		_, err := c.next()
		switch st := websocket.CloseStatus(err); {
		case err == nil:
			t.Fatal("a frame after op 7, want the close")
		case st == -1:
			t.Fatalf("connection ended without a close frame: %v", err)
		case st == websocket.StatusNormalClosure || st == websocket.StatusGoingAway:
			t.Fatalf("closed with %d: that would end the session", st)
		}
	}
	select {
	case <-done:
	case <-time.After(readTimeout):
		t.Fatal("Shutdown did not return")
	}
	// Both sessions stay resumable (a restarted gateway would not know
	// them, but one that keeps its memory would): once every connection
	// has let go of its session, both are there.
	testenv.WaitFor(t, "every connection gone", func() bool { return e.API.Gateway().Stats().Connections == 0 })
	if n := e.API.Gateway().Sessions(); n != 2 {
		t.Fatalf("%d sessions after the shutdown, want 2", n)
	}
	// New connections are turned away.
	late := dialQuery(t, e, "v=10&encoding=json")
	late.closed(websocket.StatusServiceRestart, "")
}

// TestShutdownIdle: Shutdown with no connection returns at once and can
// be called twice.
func TestShutdownIdle(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	e.API.Shutdown(ctx)
	e.API.Shutdown(ctx)
	if ctx.Err() != nil {
		t.Fatal("Shutdown of an idle gateway took the whole timeout")
	}
}

package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
)

// TestSlowClient: a session whose client stops reading holds up neither
// the dispatching nor the app's other sessions, which get every event in
// order; the slow connection is closed (too far behind, or its write
// timing out) instead of its backlog growing.
func TestSlowClient(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) {
		c.Gateway.ReplayLimit = 10
		// Its clients do not heartbeat, and under -race on a loaded
		// machine the 400 events take longer than a heartbeat timeout.
		c.Gateway.HeartbeatInterval = time.Hour
	})
	app, g := appID(t, e), guildID(t, e)
	slow, fast := dial(t, e), dial(t, e)
	slow.login(e, 0)
	fast.login(e, 0)

	// 64 KiB events: enough of them fill the socket buffers between the
	// gateway and a client that does not read, whatever their sizes. The
	// fast client takes each before the next is sent (a burst larger
	// than the buffer would close it too).
	const events = 400
	pad := strings.Repeat("x", 64<<10)
	for n := 1; n <= events; n++ {
		data, _ := json.Marshal(map[string]any{"id": n, "type": 2, "application_id": app, "guild_id": g,
			"token": "tok", "version": 1, "pad": pad})
		dispatched := make(chan struct{})
		go func() {
			defer close(dispatched)
			e.API.Gateway().Dispatch(event.Event{Type: event.InteractionCreate, ApplicationID: app, GuildID: g,
				Data: json.RawMessage(data)})
		}()
		select {
		case <-dispatched:
		case <-time.After(readTimeout):
			t.Fatalf("Dispatch of event %d blocked on the client that does not read", n)
		}
		if got, _, s := fast.interactionN(); got != n || s != int64(n+1) {
			t.Fatalf("fast client: event %d with s %d, want %d with s %d", got, s, n, n+1)
		}
	}

	// The slow client now reads what reached it before its connection
	// ended; it ends within the write timeout (10 s), not after all 400.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := 0
	for {
		_, data, err := slow.ws.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("the slow client's connection was not closed")
			}
			if st := websocket.CloseStatus(err); st != -1 && st != 4000 {
				t.Fatalf("slow client closed with %d, want 4000 or a dropped connection", st)
			}
			break
		}
		if strings.Contains(string(data), `"INTERACTION_CREATE"`) {
			got++
		}
	}
	t.Logf("the slow client got %d events before its connection ended", got)
	if got >= events {
		t.Fatalf("the slow client got all %d events: the test did not make it slow", got)
	}
}

// TestIdleGoroutines: an idle identified connection costs the gateway
// one goroutine (the one serving its request, which reads), and every
// goroutine ends when the connections close. Not parallel: it counts the
// process's goroutines.
func TestIdleGoroutines(t *testing.T) {
	e := testenv.New(t)
	const conns = 20
	// Both ends are in this process; coder/websocket's client side runs
	// no goroutine of its own.
	open := func(identify bool) {
		before := runtime.NumGoroutine()
		cs := make([]*client, conns)
		for i := range cs {
			cs[i] = dial(t, e)
			if identify {
				cs[i].login(e, 0)
				cs[i].send(1, nil)
				cs[i].expect(11)
			} else {
				cs[i].hello()
			}
		}
		// Flushers end once they have written; what stays is one per
		// connection.
		testenv.WaitFor(t, fmt.Sprintf("at most %d more goroutines with %d idle connections (identified: %v)", conns, conns, identify),
			func() bool { return runtime.NumGoroutine()-before <= conns })
		for _, c := range cs {
			if err := c.ws.Close(websocket.StatusNormalClosure, ""); err != nil {
				t.Fatal(err)
			}
		}
		testenv.WaitFor(t, "the connections' goroutines end", func() bool { return runtime.NumGoroutine() <= before })
	}
	open(false)
	open(true)
	waitSessions(t, e, 0)
}

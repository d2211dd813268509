package gateway_test

import (
	"testing"

	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/testenv"
)

// TestAppSessions: an identified bot counts as connected for its app
// only (and the admin API shows it with the app); dropped without a close frame it is resumable; a second bot
// counts beside it.
func TestAppSessions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	g, app := e.API.Gateway(), appID(t, e)
	if got := g.AppSessions(app); got != (gateway.AppSessions{}) {
		t.Fatalf("before any bot: %+v", got)
	}
	c := dial(t, e)
	c.login(e, 0)
	if got := g.AppSessions(app); got != (gateway.AppSessions{Connected: 1}) {
		t.Fatalf("a bot identified: %+v, want 1 connected", got)
	}
	if got := g.AppSessions(app + 1); got != (gateway.AppSessions{}) {
		t.Fatalf("another app: %+v, want none", got)
	}
	// The admin API shows it with the app.
	var shown struct {
		GatewaySessions struct{ Connected, Resumable int } `json:"gateway_sessions"`
	}
	e.Do("GET", "/admin/v1/applications/"+app.String(), e.AdminAuth(), nil).JSON(t, &shown)
	if shown.GatewaySessions.Connected != 1 || shown.GatewaySessions.Resumable != 0 {
		t.Fatalf("the admin API's gateway_sessions: %+v, want 1 connected", shown.GatewaySessions)
	}
	_ = c.ws.CloseNow() // abnormal: the session stays resumable
	testenv.WaitFor(t, "the session resumable", func() bool { return g.AppSessions(app) == gateway.AppSessions{Resumable: 1} })

	c2 := dial(t, e)
	c2.login(e, 0)
	testenv.WaitFor(t, "one connected, one resumable", func() bool {
		return g.AppSessions(app) == gateway.AppSessions{Connected: 1, Resumable: 1}
	})
}

package api_test

import (
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// TestJournalFaultFired: a fault that fires is in its world's journal.
func TestJournalFaultFired(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, issueExample)
	if r := e.Do("POST", "/admin/v1/worlds/ban-tests/faults", e.AdminAuth(),
		map[string]any{"kind": "rest.500", "app": "modbot", "count": 1}); r.Status != 201 {
		t.Fatalf("fault: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/api/v10/users/@me", "Bot "+w.Apps["modbot"].BotToken, nil); r.Status != 500 {
		t.Fatalf("the faulted request: %d %s", r.Status, r.Body)
	}
	r := e.Do("GET", "/admin/v1/worlds/ban-tests/events?type=fault.fired&wait=20s", e.AdminAuth(), nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"kind":"rest.500"`) {
		t.Errorf("fault.fired in the journal: %d %s", r.Status, r.Body)
	}
}

package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// The journal's cost (issue 24: ≤ 10% of an invocation's p50): a member
// of a test world invokes a command, the world's bot answers over a real
// gateway connection through the REST callback, and slashd stores the
// reply; with the journal on (five entries an invocation: delivered,
// the dispatch, the callback's rest.request, message.created, answered)
// and off. Run both with a fixed count:
//
//	go test -run '^$' -bench 'InvokeWorldJournal' -benchtime 3000x -count 3 ./internal/api/
func BenchmarkInvokeWorldJournalOn(b *testing.B) {
	benchmarkWorldInvoke(b, api.DefaultConfig().JournalEntries)
}

func BenchmarkInvokeWorldJournalOff(b *testing.B) { benchmarkWorldInvoke(b, 0) }

func benchmarkWorldInvoke(b *testing.B, keep int) {
	e := testenv.New(b, func(c *api.Config) { c.JournalEntries = keep })
	res := e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), issueExample)
	if res.Status != http.StatusCreated {
		b.Fatalf("create world: %d %s", res.Status, res.Body)
	}
	var w worldAnswer
	res.JSON(b, &w)
	app := w.Apps["modbot"]
	gatewayBot(b, e, app.BotToken, "banned")
	var cmds []struct{ ID, Version string }
	mustDo(b, e, "GET", "/api/v10/applications/"+app.ID+"/commands", "Bot "+app.BotToken, nil, 200).JSON(b, &cmds)
	club := w.Guilds["club"]
	body, err := json.Marshal(map[string]any{"type": 2, "application_id": app.ID, "guild_id": club.ID,
		"channel_id": club.Channels["general"], "data": map[string]any{"id": cmds[0].ID, "name": "ban", "type": 1,
			"version": cmds[0].Version, "options": []map[string]any{{"type": 6, "name": "user", "value": w.Users["bob"].ID}}}})
	if err != nil {
		b.Fatal(err)
	}
	// The session is ready once an invocation is answered.
	testenv.WaitFor(b, "the bot answers", func() bool {
		r, err := doJSON(e, "POST", "/api/v10/interactions", w.Users["alice"].ClientToken, json.RawMessage(body))
		return err == nil && r.Status == 200
	})
	measure(b, e.URL+"/api/v10/interactions", w.Users["alice"].ClientToken, body)
	if on := e.API.Journal() != nil; on != (keep > 0) {
		b.Fatalf("journal on = %v; want %v", on, keep > 0)
	}
}

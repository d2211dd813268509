package clustertest_test

import (
	"net/url"
	"testing"

	"github.com/slashd/slashd/internal/clustertest"
)

// TestJournalAcrossNodes: an entry written by node 0's journal wakes a
// long-poll waiting on node 1 (through the event bus: NATS), and every
// node reads the same journal in the same order.
func TestJournalAcrossNodes(t *testing.T) {
	c := clustertest.Start(t, 3)
	ctx := ctxT(t)
	var w struct {
		ID   string `json:"id"`
		Apps map[string]struct {
			BotToken string `json:"bot_token"`
		} `json:"apps"`
	}
	if err := c.Node(0).Admin(ctx, "POST", "/worlds", map[string]any{"name": "journal-cluster",
		"apps": map[string]any{"bot": map[string]any{}}}, 200+1, &w); err != nil {
		t.Fatal(err)
	}
	bot := "Bot " + w.Apps["bot"].BotToken
	type page struct {
		Events []struct {
			Cursor, Type, Route string
			Status              int
		} `json:"events"`
		Cursor string `json:"cursor"`
	}
	read := func(node int, q url.Values) page {
		t.Helper()
		var p page
		if err := c.Node(node).Admin(ctx, "GET", "/worlds/"+w.ID+"/events?"+q.Encode(), nil, 200, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	start := read(1, nil).Cursor

	polled := make(chan page, 1)
	go func() {
		var p page
		err := c.Node(1).Admin(ctx, "GET", "/worlds/"+w.ID+"/events?"+url.Values{"after": {start}, "wait": {"25s"},
			"type": {"rest.request"}}.Encode(), nil, 200, &p)
		if err != nil {
			t.Error(err)
		}
		polled <- p
	}()
	// The long-poll is waiting on node 1 (the journal of a request it
	// made itself would not prove anything: it makes none).
	c.Node(0).Expect(t, 404, "GET", "/api/v10/channels/1234", bot, nil)
	select {
	case p := <-polled:
		if len(p.Events) != 1 || p.Events[0].Status != 404 || p.Events[0].Route != "GET /api/v10/channels/{channel_id}" {
			t.Fatalf("node 1's long-poll answered %+v; want node 0's refused request", p)
		}
	case <-ctx.Done():
		t.Fatal("node 1's long-poll did not end")
	}
	// One order: node 2 reads what node 1 read, with the same cursors.
	c.Node(2).Expect(t, 200, "GET", "/api/v10/users/@me", bot, nil)
	var all page
	for cursor := start; len(all.Events) < 2 && ctx.Err() == nil; {
		p := read(2, url.Values{"after": {cursor}, "type": {"rest.request"}, "wait": {"5s"}})
		all.Events, cursor = append(all.Events, p.Events...), p.Cursor
	}
	if len(all.Events) != 2 || all.Events[0].Status != 404 || all.Events[1].Status != 200 ||
		all.Events[0].Cursor == all.Events[1].Cursor {
		t.Fatalf("node 2 reads %+v; want node 0's 404 then node 2's 200", all.Events)
	}
}

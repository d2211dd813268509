package clustertest_test

import (
	"testing"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
)

// A world's bot sessions are listed alike by every node: a session
// identified on node A is connected on A and B; once its client drops it
// is resumable on both (A tells B); resumed on B it is connected on both
// again; closed with 1000 it is gone from both.
func TestWorldSessionsAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 2)
	ctx := ctxT(t)
	var w struct {
		ID   string `json:"id"`
		Apps map[string]struct {
			BotToken string `json:"bot_token"`
		} `json:"apps"`
	}
	if err := c.Node(0).Admin(ctx, "POST", "/worlds", map[string]any{"name": "sessions-cluster",
		"apps": map[string]any{"bot": map[string]any{}}}, 201, &w); err != nil {
		t.Fatal(err)
	}
	token := "Bot " + w.Apps["bot"].BotToken
	type session struct {
		SessionID string `json:"session_id"`
		App       string `json:"app"`
		State     string `json:"state"`
	}
	list := func(node int) []session {
		t.Helper()
		var out []session
		if err := c.Node(node).Admin(ctx, "GET", "/worlds/"+w.ID+"/sessions", nil, 200, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// waitState waits until both nodes list the one session in state
	// (none: want "").
	waitState := func(what, id, state string) {
		t.Helper()
		deadline := time.Now().Add(waitTimeout)
		for {
			ok := true
			for node := range 2 {
				got := list(node)
				if state == "" {
					ok = ok && len(got) == 0
				} else {
					ok = ok && len(got) == 1 && got[0].SessionID == id && got[0].App == "bot" && got[0].State == state
				}
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: node 0 lists %+v, node 1 %+v", what, list(0), list(1))
			}
			time.Sleep(20 * time.Millisecond) // polling, with a deadline
		}
	}

	bot := dial(t, c.Node(0))
	ready := bot.identify(token)
	waitState("identified on node 0", ready.SessionID, "connected")

	_ = bot.Drop()
	waitState("dropped from node 0", ready.SessionID, "resumable")

	again := dial(t, c.Node(1))
	if err := again.Resume(ctx, token, ready.SessionID, 1); err != nil {
		t.Fatal(err)
	}
	for f, err := again.Read(ctx); f.Name() != "RESUMED"; f, err = again.Read(ctx) {
		if err != nil {
			t.Fatalf("waiting for RESUMED: %v", err)
		}
	}
	waitState("resumed on node 1", ready.SessionID, "connected")

	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	waitState("closed", "", "")
}

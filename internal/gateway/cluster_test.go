package gateway_test

import (
	"context"
	"slices"
	"testing"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/testenv"
)

// TestResumeOnAnotherNode: two nodes share the store and the bus; a bot
// identified on node A whose connection drops resumes on node B, which
// replays what it missed from its shadow of the session, with the same
// sequence numbers.
func TestResumeOnAnotherNode(t *testing.T) {
	t.Parallel()
	a := testenv.New(t)
	b := a.Node()
	app, g := appID(t, a), guildID(t, a)

	c := dial(t, a)
	r := c.login(a, 0)
	interaction(a, app, g, 1)
	if n, _, s := c.interactionN(); n != 1 || s != 2 {
		t.Fatalf("on node A: event %d with s %d, want 1 with s 2", n, s)
	}
	_ = c.ws.CloseNow() // the connection to A drops
	interaction(b, app, g, 2)
	interaction(a, app, g, 3)

	c2 := dial(t, b)
	c2.hello()
	c2.send(6, resumeData(a.Bot(), r.SessionID, 2))
	for _, want := range []int{2, 3} {
		if n, _, s := c2.interactionN(); n != want || s != int64(want+1) {
			t.Fatalf("replayed on node B: event %d with s %d, want %d with s %d", n, s, want, want+1)
		}
	}
	if f := c2.dispatch("RESUMED"); f.seq() != 5 {
		t.Fatalf("RESUMED with s %d, want 5", f.seq())
	}
	interaction(a, app, g, 4)
	if n, _, s := c2.interactionN(); n != 4 || s != 6 {
		t.Fatalf("after moving: event %d with s %d, want 4 with s 6", n, s)
	}
	// Node A let go of the session: one live connection, on B.
	c3 := dial(t, a)
	c3.hello()
	c3.send(6, resumeData(a.Bot(), r.SessionID, 6))
	c3.dispatch("RESUMED") // A's shadow takes it back …
	c2.closed(4000, "")    // … and B closes its connection
}

// TestResumeAfterNodeDies: node A crashes (its connections drop without
// a close frame, it stops reading the bus); the bot resumes on node B
// and gets what was published meanwhile.
func TestResumeAfterNodeDies(t *testing.T) {
	t.Parallel()
	a := testenv.New(t)
	b := a.Node()
	app, g := appID(t, a), guildID(t, a)
	c := dial(t, a)
	r := c.login(a, 0)
	a.API.Kill()
	if _, _, err := c.ws.Read(context.Background()); websocket.CloseStatus(err) != -1 {
		t.Fatalf("after the crash: %v, want a dropped connection (no close frame)", err)
	}
	interaction(b, app, g, 7)
	c2 := dial(t, b)
	c2.hello()
	c2.send(6, resumeData(a.Bot(), r.SessionID, 1)) // READY was 1 (no GUILDS intent)
	if n, _, s := c2.interactionN(); n != 7 || s != 2 {
		t.Fatalf("replayed: event %d with s %d, want 7 with s 2", n, s)
	}
	c2.dispatch("RESUMED")
}

// TestMemberChunksAcrossNodes: the chunks answering a member request are
// dispatches of the session on every node: a bot that asked node A and
// resumes on node B gets them replayed there with the same sequence
// numbers and data (a chunk of 1000 members crosses the bus in pieces),
// and what B answers later is replayed alike by A.
func TestMemberChunksAcrossNodes(t *testing.T) {
	t.Parallel()
	a := testenv.New(t)
	b := a.Node()
	app, g := appID(t, a), guildID(t, a)
	newWorld(t, a).members("m", 1100) // with the owner and the bot: chunks of 1000 and 102
	allow(t, a, flagGuildMembers)

	c := dial(t, a)
	r := c.login(a, intentGuildMembers)
	interaction(a, app, g, 1)
	if n, _, s := c.interactionN(); n != 1 || s != 2 {
		t.Fatalf("event %d with s %d, want 1 with s 2", n, s)
	}
	c.request(a, map[string]any{"query": "", "limit": 0, "nonce": "on A"})
	onA := []wireFrame{c.dispatch("GUILD_MEMBERS_CHUNK"), c.dispatch("GUILD_MEMBERS_CHUNK")}
	if len(onA[0].D) <= 256<<10 { // the bus carries 256 KiB of a dispatch at a time
		t.Fatalf("the first chunk is %d bytes: too small to cross the bus in pieces", len(onA[0].D))
	}
	interaction(b, app, g, 2)
	if n, _, s := c.interactionN(); n != 2 || s != 5 {
		t.Fatalf("event %d with s %d, want 2 with s 5", n, s)
	}
	_ = c.ws.CloseNow()

	c2 := dial(t, b)
	c2.hello()
	c2.send(6, resumeData(a.Bot(), r.SessionID, 2))
	for i, want := range onA {
		got := c2.dispatch("GUILD_MEMBERS_CHUNK")
		if got.seq() != int64(3+i) || want.seq() != int64(3+i) || string(got.D) != string(want.D) {
			t.Fatalf("chunk %d replayed on B with s %d (%d bytes), want s %d (%d bytes) as A sent it",
				i, got.seq(), len(got.D), want.seq(), len(want.D))
		}
	}
	if n, _, s := c2.interactionN(); n != 2 || s != 5 {
		t.Fatalf("replayed event %d with s %d, want 2 with s 5", n, s)
	}
	if f := c2.dispatch("RESUMED"); f.seq() != 6 {
		t.Fatalf("RESUMED with s %d, want 6", f.seq())
	}

	// Asked on B now, replayed alike by A.
	c2.request(b, map[string]any{"query": "m10", "limit": 5, "nonce": "on B"})
	onB := c2.chunk(7)
	if len(onB.Members) != 5 || *onB.Nonce != "on B" {
		t.Fatalf("B answered %+v, want 5 members with nonce on B", onB)
	}
	_ = c2.ws.CloseNow()
	c3 := dial(t, a)
	c3.hello()
	c3.send(6, resumeData(a.Bot(), r.SessionID, 6))
	if back := c3.chunk(7); !slices.Equal(back.userIDs(t), onB.userIDs(t)) {
		t.Fatalf("A replayed %v, want B's %v", back.userIDs(t), onB.userIDs(t))
	}
	if f := c3.dispatch("RESUMED"); f.seq() != 8 {
		t.Fatalf("RESUMED on A with s %d, want 8", f.seq())
	}
}

package clustertest_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/metrics/metricstest"
)

// invokeSetup is a member with a client token, a text channel and a
// guild command, in a cluster's app guild.
type invokeSetup struct {
	member  clustertest.Member
	channel string
	cmd     jsonObj
}

func newInvokeSetup(t *testing.T, c *clustertest.Cluster, via *clustertest.Node) invokeSetup {
	t.Helper()
	member, err := c.NewMember(ctxT(t), "alice")
	if err != nil {
		t.Fatal(err)
	}
	channel, err := c.NewChannel(ctxT(t), "general")
	if err != nil {
		t.Fatal(err)
	}
	s := invokeSetup{member: member, channel: channel}
	s.cmd = obj(t, via.Expect(t, 201, "POST", c.GuildCommands(), c.Bot(), chat("ping", "Ping")))
	return s
}

// answer answers an interaction with a message through node n's
// callback endpoint.
func answer(t *testing.T, n *clustertest.Node, in interactionData, content string) {
	t.Helper()
	n.Expect(t, 204, "POST", "/api/v10/interactions/"+in.ID+"/"+in.Token+"/callback", "",
		jsonObj{"type": 4, "data": jsonObj{"content": content}})
}

// checkAnswer checks an invocation's answer and that every node shows
// the message in the channel.
func checkAnswer(t *testing.T, c *clustertest.Cluster, s invokeSetup, r clustertest.Response, in interactionData,
	content string) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("invoke: %s, want 200", r)
	}
	var out invokeResult
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Interaction.ID != in.ID || out.Resource.Type != 4 || out.Resource.Message.Content != content ||
		out.Interaction.ResponseMessageID != out.Resource.Message.ID {
		t.Fatalf("invoke answered %s, want interaction %s answered with %q", r.Body, in.ID, content)
	}
	for _, n := range c.Nodes {
		if n.Killed() {
			continue
		}
		msgs := list(t, n.Expect(t, 200, "GET", "/api/v10/channels/"+s.channel+"/messages", s.member.Client, nil))
		if len(msgs) != 1 || str(msgs[0], "id") != out.Resource.Message.ID || str(msgs[0], "content") != content {
			t.Fatalf("node %d: channel messages %v, want the answer %s", n.Index, msgs, out.Resource.Message.ID)
		}
	}
}

// An invocation through node A reaches the bot whose gateway session is
// on node B; the bot answers through node C; A's invoke returns the
// answer, and every node shows the message.
func TestInteractionAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	a, b, cc := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	s := newInvokeSetup(t, c, cc)
	bot := dial(t, b)
	bot.identify(c.Bot())

	pending := invoke(a, s.member.Client, invocation(c, s.channel, s.cmd))
	in := decodeInteraction(t, bot.dispatch("INTERACTION_CREATE", 2))
	if in.ApplicationID != c.App.ApplicationID || in.GuildID != c.App.GuildID || in.ChannelID != s.channel ||
		in.Data.ID != str(s.cmd, "id") || in.Data.Name != "ping" || in.Member.User.ID != s.member.ID {
		t.Fatalf("INTERACTION_CREATE %+v", in)
	}
	answer(t, cc, in, "pong via node C")
	checkAnswer(t, c, s, await(t, pending), in, "pong via node C")
	// A second answer, through another node, is refused.
	r := a.Do(t, "POST", "/api/v10/interactions/"+in.ID+"/"+in.Token+"/callback", "",
		jsonObj{"type": 4, "data": jsonObj{"content": "again"}})
	if code, _ := apiError(r); r.Status != 400 || code != 40060 {
		t.Fatalf("second answer through node A: %s, want 400 40060", r)
	}
}

// A bot whose node crashes resumes on another node without losing what
// was dispatched while it was away, in order, then RESUMED, and answers
// the interaction that was waiting for it.
func TestResumeAfterNodeCrash(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	a, b, cc := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	s := newInvokeSetup(t, c, b)
	permsPath := c.GuildCommands() + "/" + str(s.cmd, "id") + "/permissions"

	bot := dial(t, a)
	ready := bot.identify(c.Bot())
	// One dispatch while connected to A, published by C.
	cc.Expect(t, 200, "PUT", permsPath, c.Owner(),
		jsonObj{"permissions": []jsonObj{{"id": s.member.ID, "type": 2, "permission": true}}})
	bot.dispatch("APPLICATION_COMMAND_PERMISSIONS_UPDATE", 2)

	// Watch the bus from C's connection, to know when the invocation is
	// out.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	watch := cc.Bus.Subscribe(watchCtx, 256)

	a.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, _, err := bot.WS.Read(ctx); err == nil || websocket.CloseStatus(err) != -1 {
		t.Fatalf("after node A crashed: %v, want the connection dropped without a close frame", err)
	}

	// While the bot is away: a permissions update and an invocation, via B.
	edited := obj(t, b.Expect(t, 200, "PUT", permsPath, c.Owner(), jsonObj{"permissions": []jsonObj{
		{"id": s.member.ID, "type": 2, "permission": true}, {"id": s.channel, "type": 3, "permission": true}}}))
	invoked := time.Now()
	pending := invoke(b, s.member.Client, invocation(c, s.channel, s.cmd))
	var seen []string
	for !slices.Contains(seen, event.InteractionCreate) {
		select {
		case e := <-watch:
			if e.Type == event.InteractionCreate || e.Type == event.ApplicationCommandPermissionsUpdate {
				seen = append(seen, e.Type)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("the bus carried %v, and no INTERACTION_CREATE", seen)
		}
	}
	if want := []string{event.ApplicationCommandPermissionsUpdate, event.InteractionCreate}; !slices.Equal(seen, want) {
		t.Fatalf("the bus carried %v, want %v", seen, want)
	}

	bot2 := dial(t, cc)
	if err := bot2.Resume(ctxT(t), c.Bot(), ready.SessionID, 2); err != nil {
		t.Fatal(err)
	}
	f := bot2.dispatch("APPLICATION_COMMAND_PERMISSIONS_UPDATE", 3)
	var perms jsonObj
	if err := json.Unmarshal(f.D, &perms); err != nil {
		t.Fatal(err)
	}
	if got, want := canonical(t, perms["permissions"]), canonical(t, edited["permissions"]); got != want {
		t.Fatalf("replayed permissions %s, want %s", got, want)
	}
	in := decodeInteraction(t, bot2.dispatch("INTERACTION_CREATE", 4))
	bot2.dispatch("RESUMED", 5)
	if in.Data.Name != "ping" || in.Member.User.ID != s.member.ID {
		t.Fatalf("replayed INTERACTION_CREATE %+v", in)
	}
	answer(t, cc, in, "pong after the failover")
	checkAnswer(t, c, s, await(t, pending), in, "pong after the failover")
	if waited := time.Since(invoked); waited > 3*time.Second {
		t.Fatalf("the invocation took %v, beyond the 3 s answer window", waited)
	}

	// The session lives on C now: the next dispatch arrives once, next
	// in sequence.
	b.Expect(t, 200, "PUT", permsPath, c.Owner(), jsonObj{"permissions": []jsonObj{}})
	bot2.dispatch("APPLICATION_COMMAND_PERMISSIONS_UPDATE", 6)
}

func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each node's gateway gauges count the sessions it holds: the shadows
// the other nodes keep of a session are not theirs to count, so adding
// the nodes' numbers up gives the cluster's.
func TestGatewayGaugesCountOwnSessions(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 2)
	a, b := c.Nodes[0], c.Nodes[1]
	bot := dial(t, a)
	bot.identify(c.Bot())
	deadline := time.Now().Add(waitTimeout)
	for b.API.Gateway().Sessions() != 1 { // B's shadow of the session
		if time.Now().After(deadline) {
			t.Fatal("node B never shadowed the session")
		}
		time.Sleep(10 * time.Millisecond) // polling, with a deadline
	}
	for _, n := range []struct {
		node                 *clustertest.Node
		connected, resumable float64
	}{{a, 1, 0}, {b, 0, 0}} {
		r := n.node.Expect(t, 200, "GET", "/metrics", "", nil)
		exp, err := metricstest.Parse(string(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		connected, _ := exp.Value("slashd_gateway_sessions", map[string]string{"state": "connected"})
		resumable, _ := exp.Value("slashd_gateway_sessions", map[string]string{"state": "resumable"})
		if connected != n.connected || resumable != n.resumable {
			t.Errorf("node %d: connected %v, resumable %v; want %v, %v", n.node.Index, connected, resumable,
				n.connected, n.resumable)
		}
	}
}

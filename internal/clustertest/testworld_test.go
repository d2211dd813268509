package clustertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
)

// clusterWorldSpec is testenv.SmallWorldSpec.
const clusterWorldSpec = testenv.SmallWorldSpec

// clusterWorld is what these tests read of a world object.
type clusterWorld = testenv.World

// createWorld creates a world of clusterWorldSpec named name through n.
func createWorld(t testing.TB, n *clustertest.Node, name string) clusterWorld {
	t.Helper()
	var w clusterWorld
	if err := n.Admin(ctxT(t), "POST", "/worlds", json.RawMessage(fmt.Sprintf(clusterWorldSpec, name)), 201, &w); err != nil {
		t.Fatal(err)
	}
	if w.ID == "" || w.Bot() == "Bot " || w.Client() == "" || w.General() == "" {
		t.Fatalf("world %s: missing ids or credentials: %+v", name, w)
	}
	return w
}

// worldBot is a world's gateway bot: a goroutine reads its connection
// and hands over every frame, so that a test can wait for one while the
// server keeps sending.
type worldBot struct {
	t      testing.TB
	g      *clustertest.Gateway
	frames chan clustertest.Frame
	done   chan struct{}
	err    error // why reading stopped, once done is closed
}

// connectBot identifies w's bot on n (intents: GUILDS) and reads on.
func connectBot(t testing.TB, n *clustertest.Node, w clusterWorld) *worldBot {
	t.Helper()
	g, err := n.DialGateway(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Identify(ctxT(t), w.Bot(), 1); err != nil {
		t.Fatal(err)
	}
	b := &worldBot{t: t, g: g, frames: make(chan clustertest.Frame, 256), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			f, err := g.Read(context.Background())
			if err != nil {
				b.err = err
				return
			}
			select {
			case b.frames <- f:
			default:
				b.err = errors.New("more than 256 frames unread")
				return
			}
		}
	}()
	t.Cleanup(func() { _ = g.Drop(); <-b.done })
	return b
}

// next is the next dispatch named name; dispatches of other names are
// passed over. The connection closing first fails the test.
func (b *worldBot) next(name string) clustertest.Frame {
	b.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case f := <-b.frames:
			if f.Op == 0 && f.Name() == name {
				return f
			}
		case <-b.done:
			b.t.Fatalf("node %d: the bot's connection ended waiting for %s: %v", b.g.Node.Index, name, b.err)
		case <-timeout:
			b.t.Fatalf("node %d: no %s", b.g.Node.Index, name)
		}
	}
}

// closed waits for the connection to end and returns the close code
// the server sent (-1: none).
func (b *worldBot) closed() websocket.StatusCode {
	b.t.Helper()
	select {
	case <-b.done:
		return websocket.CloseStatus(b.err)
	case <-time.After(waitTimeout):
		b.t.Fatalf("node %d: the bot's connection is still open", b.g.Node.Index)
		return 0
	}
}

// actAnswer is what POST …/act answers.
type actAnswer struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Interaction struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	} `json:"interaction"`
}

// actPing has alice run /ping through node actOn while the bot, on its
// own node, answers it through node answerOn; it returns act's answer
// and the interaction the bot received.
func actPing(t *testing.T, c *clustertest.Cluster, w clusterWorld, b *worldBot, actOn, answerOn int, content string) (actAnswer, interactionData) {
	t.Helper()
	answered := make(chan result, 1)
	go func() {
		r, err := c.Node(actOn).Request(ctxT(t), "POST", "/admin/v1/worlds/"+w.ID+"/act", c.AdminAuth(),
			jsonObj{"as": "alice", "in": "general", "run": "/ping", "wait": "20s"})
		answered <- result{r, err}
	}()
	i := decodeInteraction(t, b.next("INTERACTION_CREATE"))
	if i.ApplicationID != w.AppID() || i.ChannelID != w.General() || i.Data.Name != "ping" {
		t.Fatalf("INTERACTION_CREATE %+v, want alice's /ping in #general", i)
	}
	c.Node(answerOn).Expect(t, 204, "POST", "/api/v10/interactions/"+i.ID+"/"+i.Token+"/callback", "",
		jsonObj{"type": 4, "data": jsonObj{"content": content}})
	r := await(t, answered)
	var a actAnswer
	if err := r.Decode(&a); err != nil || r.Status != 200 {
		t.Fatalf("node %d: act: %s (%v)", actOn, r, err)
	}
	if a.Message.Content != content || a.Interaction.ID != i.ID || a.Interaction.Outcome != "answered" {
		t.Fatalf("node %d: act answered %s, want the bot's %q", actOn, r.Body, content)
	}
	return a, i
}

// TestWorldAcrossNodes: a test world lives on the cluster as on one
// node. Made through node 0, its bot connected to node 2, a member acts
// through node 1 and sees what the bot answered through node 0. The
// clock moved through node 0 ages the interaction's token on nodes 1 and
// 2. A reset through node 1 keeps the bot connected (it is told of the
// guild again, and still gets the next interaction) and every
// credential valid on every node. A delete through node 2 refuses the
// world's tokens on every node at once and leaves none of its objects.
func TestWorldAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	settle(c)
	w := createWorld(t, c.Node(0), "across-nodes")
	bot := connectBot(t, c.Node(2), w)
	if f := bot.next("GUILD_CREATE"); !hasName(f.D, "", "club") {
		t.Fatalf("GUILD_CREATE %s", f.D)
	}

	_, i := actPing(t, c, w, bot, 1, 0, "pong")
	hook := "/api/v10/webhooks/" + w.AppID() + "/" + i.Token
	for n := range 3 {
		c.Node(n).Expect(t, 200, "POST", hook, "", jsonObj{"content": fmt.Sprintf("follow-up through node %d", n)})
	}

	// The world's clock, moved on node 0, is every node's.
	var clock struct {
		OffsetMS int64 `json:"offset_ms"`
	}
	if err := c.Node(0).Admin(ctxT(t), "POST", "/worlds/"+w.ID+"/clock", jsonObj{"advance": "15m1s"}, 200, &clock); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		r := c.Node(n).Do(t, "POST", hook, "", jsonObj{"content": "too late"})
		if code, _ := apiError(r); r.Status != 401 || code != 50027 {
			t.Errorf("node %d: a follow-up 15 minutes later on the world's clock: %s, want 401 50027", n, r)
		}
		var got struct {
			Clock struct {
				OffsetMS int64 `json:"offset_ms"`
			} `json:"clock"`
		}
		if err := c.Node(n).Admin(ctxT(t), "GET", "/worlds/"+w.ID, nil, 200, &got); err != nil || got.Clock.OffsetMS != clock.OffsetMS {
			t.Errorf("node %d: the world's clock = %d (%v), want %d", n, got.Clock.OffsetMS, err, clock.OffsetMS)
		}
	}

	// A reset through node 1: same ids and credentials; the bot, still
	// connected to node 2, learns the guild again and keeps working.
	var reset clusterWorld
	if err := c.Node(1).Admin(ctxT(t), "POST", "/worlds/"+w.ID+"/reset", nil, 200, &reset); err != nil {
		t.Fatal(err)
	}
	if reset.Bot() != w.Bot() || reset.Client() != w.Client() || reset.GuildID() != w.GuildID() || reset.General() != w.General() {
		t.Fatalf("reset changed ids or credentials: %+v, was %+v", reset, w)
	}
	if f := bot.next("GUILD_CREATE"); !hasName(f.D, "", "club") {
		t.Fatalf("GUILD_CREATE after the reset %s", f.D)
	}
	for n := range 3 {
		c.Node(n).Expect(t, 200, "GET", "/api/v10/users/@me", w.Bot(), nil)
		c.Node(n).Expect(t, 200, "GET", "/api/v10/channels/"+w.General(), w.Bot(), nil)
		c.Node(n).Expect(t, 200, "GET", "/api/v10/channels/"+w.General(), w.Client(), nil)
		// The reset removed what the world gained: the messages too.
		if msgs := list(t, c.Node(n).Expect(t, 200, "GET", "/api/v10/channels/"+w.General()+"/messages", w.Bot(), nil)); len(msgs) != 0 {
			t.Errorf("node %d: %d messages in #general after the reset, want none", n, len(msgs))
		}
	}
	actPing(t, c, w, bot, 1, 2, "pong again")

	// A delete through node 2: refused on every node at once, and the
	// bot's sessions, on node 2 and on node 0, closed as for a revoked
	// token.
	other := connectBot(t, c.Node(0), w)
	other.next("GUILD_CREATE")
	if err := c.Node(2).Admin(ctxT(t), "DELETE", "/worlds/"+w.ID, nil, 204, nil); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*worldBot{bot, other} {
		if code := b.closed(); code != 4004 {
			t.Errorf("node %d: the deleted world's bot's connection ended with %d, want 4004", b.g.Node.Index, code)
		}
	}
	if _, err := dial(t, c.Node(1)).Identify(ctxT(t), w.Bot(), 1); err == nil {
		t.Error("node 1: the deleted world's bot identified")
	}
	for n := range 3 {
		node := c.Node(n)
		node.Expect(t, 401, "GET", "/api/v10/users/@me", w.Bot(), nil)
		node.Expect(t, 401, "GET", "/api/v10/channels/"+w.General(), w.Client(), nil)
		for _, path := range []string{"/worlds/" + w.ID, "/worlds/" + w.Name, "/guilds/" + w.GuildID(),
			"/users/" + w.Users["alice"].ID, "/applications/" + w.AppID()} {
			if err := node.Admin(ctxT(t), "GET", path, nil, 404, nil); err != nil {
				t.Errorf("after the delete: %v", err)
			}
		}
	}
	if got := createWorld(t, c.Node(1), "across-nodes"); got.ID == w.ID {
		t.Errorf("the name is free again, but the new world has the old one's id")
	}
}

// TestWorldIsolationAcrossNodes: two worlds on the cluster's shared
// store (PostgreSQL) do not see each other's objects through /api/v10,
// whichever node each asks: another world's guild, channel, user, app
// and commands answer as unknown ids do, while their own answer 200.
func TestWorldIsolationAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 2)
	a, b := createWorld(t, c.Node(0), "iso-a"), createWorld(t, c.Node(1), "iso-b")
	type check struct {
		name, path string
		auth       func(clusterWorld) string
		unknown    int // the status and code of another world's, as of an unknown id
		code       int
	}
	bot, client := clusterWorld.Bot, clusterWorld.Client
	checks := func(own, other clusterWorld) []check {
		return []check{
			{"guild", "/guilds/" + other.GuildID(), bot, 404, 10004},
			{"guild channels", "/guilds/" + other.GuildID() + "/channels", client, 404, 10004},
			{"channel", "/channels/" + other.General(), bot, 404, 10003},
			{"channel of a client", "/channels/" + other.General(), client, 404, 10003},
			{"messages", "/channels/" + other.General() + "/messages", bot, 404, 10003},
			{"user", "/users/" + other.Users["alice"].ID, bot, 404, 10013},
			{"member", "/guilds/" + own.GuildID() + "/members/" + other.Users["alice"].ID, bot, 404, 10013},
			{"commands", "/applications/" + other.AppID() + "/commands", bot, 404, 10002},
			{"command", "/applications/" + own.AppID() + "/commands/" + other.Apps["modbot"].Commands["ping"], bot, 404, 10063},
			{"guild commands", "/applications/" + own.AppID() + "/guilds/" + other.GuildID() + "/commands", bot, 404, 10004},
		}
	}
	// Each world's own objects answer 200, as seen from any node.
	for n := range 2 {
		for _, w := range []clusterWorld{a, b} {
			for _, path := range []string{"/guilds/" + w.GuildID(), "/channels/" + w.General(), "/users/" + w.Users["alice"].ID,
				"/applications/" + w.AppID() + "/commands"} {
				c.Node(n).Expect(t, 200, "GET", "/api/v10"+path, w.Bot(), nil)
			}
		}
	}
	unknownIDs := clusterWorld{
		Users: map[string]testenv.WorldUser{"alice": {ID: "1234567890123"}},
		Apps:  map[string]testenv.WorldApp{"modbot": {ID: "1234567890124", Commands: map[string]string{"ping": "1234567890125"}}},
		Guilds: map[string]testenv.WorldGuild{"club": {ID: "1234567890126",
			Channels: map[string]string{"general": "1234567890127"}}}}
	for n := range 2 {
		for _, pair := range [][2]clusterWorld{{a, b}, {b, a}} {
			own, other := pair[0], pair[1]
			unknown := checks(own, unknownIDs)
			for k, ch := range checks(own, other) {
				r := c.Node(n).Do(t, "GET", "/api/v10"+ch.path, ch.auth(own), nil)
				u := c.Node(n).Do(t, "GET", "/api/v10"+unknown[k].path, ch.auth(own), nil)
				code, _ := apiError(r)
				if r.Status != ch.unknown || code != ch.code || r.Status != u.Status || !sameError(r, u) {
					t.Errorf("node %d: %s's %s of %s: %s\nwant as an unknown id: %s", n, own.Name, ch.name, other.Name, r, u)
				}
			}
		}
	}
}

// sameError reports whether two error answers say the same thing.
func sameError(a, b clustertest.Response) bool {
	ca, ma := apiError(a)
	cb, mb := apiError(b)
	return ca == cb && ma == mb
}

// TestWorldClockEndsRateLimitWindowsAcrossNodes: the cluster counts a
// world's bot's requests in the store on its world's clock: a bucket
// spent through nodes 1 and 2 is full again on both once its world's
// clock, moved by advances racing on every node (each counts), passes
// the window's end; another world's bot, spent alike, still waits.
func TestWorldClockEndsRateLimitWindowsAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3, clustertest.WithRateLimit(func(cfg *api.Config) {
		cfg.ReadLimit = ratelimit.Limit{Count: 2, Window: time.Hour}
	}))
	moved, kept := createWorld(t, c.Node(0), "clock-moved"), createWorld(t, c.Node(0), "clock-kept")
	commands := func(w clusterWorld) string { return "/api/v10/applications/" + w.AppID() + "/commands" }
	for _, w := range []clusterWorld{moved, kept} {
		c.Node(1).Expect(t, 200, "GET", commands(w), w.Bot(), nil)
		c.Node(2).Expect(t, 200, "GET", commands(w), w.Bot(), nil)
		for n := 1; n <= 2; n++ {
			c.Node(n).Expect(t, 429, "GET", commands(w), w.Bot(), nil)
		}
	}
	// An hour in three advances of 20 minutes racing on three nodes: each
	// counts.
	advanced := make(chan error, 3)
	for n := range 3 {
		go func() {
			advanced <- c.Node(n).Admin(ctxT(t), "POST", "/worlds/"+moved.ID+"/clock", jsonObj{"advance": "20m"}, 200, nil)
		}()
	}
	for range 3 {
		if err := <-advanced; err != nil {
			t.Fatal(err)
		}
	}
	var clock struct {
		Clock struct {
			OffsetMS int64 `json:"offset_ms"`
		} `json:"clock"`
	}
	if err := c.Node(1).Admin(ctxT(t), "GET", "/worlds/"+moved.ID, nil, 200, &clock); err != nil ||
		clock.Clock.OffsetMS != time.Hour.Milliseconds() {
		t.Fatalf("the clock after three racing advances of 20m: %d ms (%v), want an hour", clock.Clock.OffsetMS, err)
	}
	for n := 1; n <= 2; n++ {
		c.Node(n).Expect(t, 200, "GET", commands(moved), moved.Bot(), nil)
		if r := c.Node(n).Do(t, "GET", commands(kept), kept.Bot(), nil); r.Status != 429 {
			t.Errorf("node %d: the other world's spent bucket: %s, want 429 still", n, r)
		}
	}
}

package clustertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
)

// waitTimeout bounds every wait in these tests: a test fails rather
// than hangs.
const waitTimeout = 30 * time.Second

type jsonObj = map[string]any

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// obj decodes a response's object.
func obj(t testing.TB, r clustertest.Response) jsonObj {
	t.Helper()
	var o jsonObj
	if err := r.Decode(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

// list decodes a response's list of objects.
func list(t testing.TB, r clustertest.Response) []jsonObj {
	t.Helper()
	var l []jsonObj
	if err := r.Decode(&l); err != nil {
		t.Fatal(err)
	}
	return l
}

func str(o jsonObj, k string) string {
	s, _ := o[k].(string)
	return s
}

// apiError decodes an error body's code and message.
func apiError(r clustertest.Response) (code int, message string) {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Code, e.Message
}

// chat is a CHAT_INPUT command body.
func chat(name, description string) jsonObj {
	return jsonObj{"name": name, "description": description}
}

func chatN(prefix string, n int) []jsonObj {
	out := make([]jsonObj, n)
	for i := range out {
		out[i] = chat(fmt.Sprintf("%s-%d", prefix, i), "Seeded")
	}
	return out
}

// gw is a gateway client bound to a test.
type gw struct {
	t testing.TB
	*clustertest.Gateway
}

func dial(t testing.TB, n *clustertest.Node) *gw {
	t.Helper()
	g, err := n.DialGateway(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Drop() })
	return &gw{t: t, Gateway: g}
}

func (g *gw) identify(token string) clustertest.Ready {
	g.t.Helper()
	r, err := g.Identify(ctxT(g.t), token, 0)
	if err != nil {
		g.t.Fatal(err)
	}
	return r
}

func (g *gw) dispatch(name string, seq int64) clustertest.Frame {
	g.t.Helper()
	f, err := g.ReadDispatch(ctxT(g.t), name)
	if err != nil {
		g.t.Fatal(err)
	}
	if f.Seq() != seq {
		g.t.Fatalf("node %d: %s with s %d, want %d", g.Node.Index, name, f.Seq(), seq)
	}
	return f
}

// interactionData is the part of INTERACTION_CREATE the tests read.
type interactionData struct {
	ID            string `json:"id"`
	Token         string `json:"token"`
	ApplicationID string `json:"application_id"`
	GuildID       string `json:"guild_id"`
	ChannelID     string `json:"channel_id"`
	Data          struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"data"`
	Member struct {
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"member"`
}

func decodeInteraction(t testing.TB, f clustertest.Frame) interactionData {
	t.Helper()
	var d interactionData
	if err := json.Unmarshal(f.D, &d); err != nil || d.ID == "" || d.Token == "" {
		t.Fatalf("INTERACTION_CREATE %s: %v", f.D, err)
	}
	return d
}

// invokeResult is what an invocation answers once the app answered.
type invokeResult struct {
	Interaction struct {
		ID                string `json:"id"`
		ResponseMessageID string `json:"response_message_id"`
	} `json:"interaction"`
	Resource struct {
		Type    int `json:"type"`
		Message struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		} `json:"message"`
	} `json:"resource"`
}

// invocation is the body a chat client POSTs to run cmd in channel.
func invocation(c *clustertest.Cluster, channel string, cmd jsonObj) jsonObj {
	return jsonObj{"type": 2, "application_id": c.App.ApplicationID, "guild_id": c.App.GuildID, "channel_id": channel,
		"data": jsonObj{"id": cmd["id"], "name": cmd["name"], "type": cmd["type"], "version": cmd["version"]}}
}

// invoke runs the invocation through node n in the background; the
// result arrives on the channel.
func invoke(n *clustertest.Node, client string, body jsonObj) <-chan result {
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		r, err := n.Request(ctx, "POST", "/api/v10/interactions", client, body)
		ch <- result{r, err}
	}()
	return ch
}

type result struct {
	r   clustertest.Response
	err error
}

func await(t testing.TB, ch <-chan result) clustertest.Response {
	t.Helper()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatal(res.err)
		}
		return res.r
	case <-time.After(waitTimeout):
		t.Fatal("no answer to the invocation")
	}
	return clustertest.Response{}
}

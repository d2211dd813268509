package clustertest_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/ui"
)

// playgroundOf serves node n's playground and returns a client logged
// in to it, and its URL.
func playgroundOf(t *testing.T, c *clustertest.Cluster, n *clustertest.Node) (*http.Client, string) {
	t.Helper()
	h := ui.New(ui.Config{API: n.API, Sessions: n.API.Store(), Events: n.API.Events()})
	n.API.OnDelivery(h.Record)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { n.API.OnDelivery(nil); h.Close(); srv.Close() })
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.PostForm(srv.URL+"/ui/login", url.Values{"token": {c.Admin}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("log in to node %d's playground: %v %v", n.Index, resp, err)
	}
	resp.Body.Close()
	return client, srv.URL
}

// The playground of node A, which delivered an interaction, shows in
// its log entry the refusal of the callback the bot made through node
// C, as it shows follow-ups made on other nodes: both come over the bus.
func TestPlaygroundRefusalAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	a, b, cc := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	client, base := playgroundOf(t, c, a)
	s := newInvokeSetup(t, c, cc)
	bot := dial(t, b)
	bot.identify(c.Bot())

	pending := invoke(a, s.member.Client, invocation(c, s.channel, s.cmd))
	in := decodeInteraction(t, bot.dispatch("INTERACTION_CREATE", 2))
	r := cc.Do(t, "POST", "/api/v10/interactions/"+in.ID+"/"+in.Token+"/callback", "",
		jsonObj{"type": 4, "data": jsonObj{"content": strings.Repeat("x", 2001)}})
	if code, _ := apiError(r); r.Status != 400 || code != 50035 {
		t.Fatalf("a callback of 2,001 characters through node C: %s, want 400 50035", r)
	}
	answer(t, b, in, "pong after all")
	await(t, pending)

	deadline := time.Now().Add(waitTimeout)
	for {
		resp, err := client.Get(base + "/ui/interactions")
		if err != nil {
			t.Fatal(err)
		}
		var entries []ui.LogEntry
		err = json.NewDecoder(resp.Body).Decode(&entries)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 1 && len(entries[0].Refusals) == 1 {
			ref := entries[0].Refusals[0]
			if entries[0].InteractionID.String() != in.ID || ref.Status != 400 || !strings.HasSuffix(ref.Route, "/callback") ||
				ref.UserID == nil || ref.UserID.String() != s.member.ID || !strings.Contains(string(ref.Error), "2000 or fewer") {
				t.Fatalf("node A's entry: %+v", entries[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node A's log after %v: %+v, want its entry with the refusal made on node C", waitTimeout, entries)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

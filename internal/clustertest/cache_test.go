package clustertest_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
)

// Each node caches what it reads (tokens, the app, the guild, the
// installation, the command list). A write acknowledged by one node is
// never read stale through another, whichever node read it last: the
// writer's invalidation reaches the bus before the write's answer, and
// a read waits for the bus to catch up (internal/store/cache).
func TestCachesNeverStaleAcrossNodes(t *testing.T) {
	t.Parallel()
	// Each node's bus is slow: an invalidation takes longer to arrive
	// than an HTTP round trip, so a read that did not wait would be stale.
	c := clustertest.Start(t, 2, clustertest.WithBusLatency(5*time.Millisecond))
	path := c.GuildCommands()
	for i := range 40 {
		writer, reader := c.Node(i), c.Node(i+1)
		reader.Expect(t, 200, "GET", path, c.Bot(), nil) // the reader caches the current list
		want := chatN(fmt.Sprintf("v%d", i), 1+i%4)
		writer.Expect(t, 200, "PUT", path, c.Bot(), want)
		var names []string
		for _, o := range list(t, reader.Expect(t, 200, "GET", path, c.Bot(), nil)) {
			names = append(names, str(o, "name"))
		}
		var wantNames []string
		for _, o := range want {
			wantNames = append(wantNames, o["name"].(string))
		}
		slices.Sort(names)
		if !slices.Equal(names, wantNames) {
			t.Fatalf("round %d: node %d lists %v right after node %d stored %v", i, reader.Index, names, writer.Index, wantNames)
		}
	}

	// An uninstall through node 0 shuts node 1's door at once, and a
	// deleted guild is gone from both.
	c.Node(1).Expect(t, 200, "GET", path, c.Bot(), nil)
	installation := "/guilds/" + c.App.GuildID + "/installations/" + c.App.ApplicationID
	if err := c.Node(0).Admin(ctxT(t), "DELETE", installation, nil, 204, nil); err != nil {
		t.Fatal(err)
	}
	c.Node(1).Expect(t, 403, "GET", path, c.Bot(), nil)
	c.Node(0).Expect(t, 403, "GET", path, c.Bot(), nil)
	if err := c.Node(1).Admin(ctxT(t), "DELETE", "/guilds/"+c.App.GuildID, nil, 204, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes {
		n.Expect(t, 404, "GET", path, c.Bot(), nil)
	}
}

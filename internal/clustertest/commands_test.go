package clustertest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/clustertest"
)

// Same-name upserts sent at once to different nodes make one command:
// one create (201), every other answer an update (200) of that same
// command, and every node lists exactly it.
func TestConcurrentUpsertsMakeOneCommand(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	for _, scope := range []struct{ name, path string }{
		{"global", c.GlobalCommands()},
		{"guild", c.GuildCommands()},
	} {
		t.Run(scope.name, func(t *testing.T) {
			const perNode = 5
			n := len(c.Nodes) * perNode
			res := make([]clustertest.Response, n)
			errs := make([]error, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-start
					res[i], errs[i] = c.Node(i).Request(context.Background(), "POST", scope.path, c.Bot(),
						chat("deploy", fmt.Sprintf("Variant %d", i)))
				})
			}
			close(start)
			wg.Wait()
			id, created := "", 0
			descriptions := map[string]bool{}
			for i, r := range res {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if r.Status != 200 && r.Status != 201 {
					t.Errorf("node %d: %s, want 200 or 201", i%len(c.Nodes), r)
					continue
				}
				if r.Status == 201 {
					created++
				}
				o := obj(t, r)
				if id == "" {
					id = str(o, "id")
				}
				if str(o, "id") != id {
					t.Errorf("node %d: id %s, another answer had %s: %s", i%len(c.Nodes), str(o, "id"), id, r.Body)
				}
				descriptions[fmt.Sprintf("Variant %d", i)] = true
			}
			if created != 1 {
				t.Errorf("%d answers were 201 Created, want exactly 1 (the others update it)", created)
			}
			if t.Failed() {
				t.FailNow()
			}
			var first string
			for _, node := range c.Nodes {
				l := list(t, node.Expect(t, 200, "GET", scope.path, c.Bot(), nil))
				if len(l) != 1 || str(l[0], "id") != id || !descriptions[str(l[0], "description")] {
					t.Fatalf("node %d lists %v, want one command %s with one of the descriptions sent", node.Index, l, id)
				}
				if first == "" {
					first = str(l[0], "description") + "@" + str(l[0], "version")
				} else if got := str(l[0], "description") + "@" + str(l[0], "version"); got != first {
					t.Fatalf("node %d lists %s, node 0 %s", node.Index, got, first)
				}
			}
		})
	}
}

// The daily create limit (200 per scope) holds across nodes: creates of
// distinct names spread over the nodes beyond it get 30034, and exactly
// the allowance succeeds. Each scope counts apart.
func TestDailyCreateLimitAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	for _, scope := range []struct{ name, path string }{
		{"global", c.GlobalCommands()},
		{"guild", c.GuildCommands()},
	} {
		t.Run(scope.name, func(t *testing.T) {
			t.Parallel()
			// 150 creates, none left (a scope holds at most 100 CHAT_INPUT
			// commands, so that the per-type cap stays out of the way).
			seed := c.Nodes[0]
			seed.Expect(t, 200, "PUT", scope.path, c.Bot(), chatN("seed-a", 100))
			seed.Expect(t, 200, "PUT", scope.path, c.Bot(), []jsonObj{})
			c.Nodes[1].Expect(t, 200, "PUT", scope.path, c.Bot(), chatN("seed-b", 50))
			c.Nodes[2].Expect(t, 200, "PUT", scope.path, c.Bot(), []jsonObj{})

			const tries, workers = 120, 24
			res := make([]clustertest.Response, tries)
			errs := make([]error, tries)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < tries; i += workers {
						res[i], errs[i] = c.Node(i).Request(context.Background(), "POST", scope.path, c.Bot(),
							chat(fmt.Sprintf("new-%d", i), "Fresh"))
					}
				})
			}
			wg.Wait()
			created, refused := map[string]bool{}, 0
			for i, r := range res {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				switch r.Status {
				case 201:
					created[str(obj(t, r), "id")] = true
				case 400:
					code, msg := apiError(r)
					if code != 30034 || msg != "Max number of daily application command creates has been reached (200)" {
						t.Errorf("node %d: %s, want error 30034", i%len(c.Nodes), r)
					}
					refused++
				default:
					t.Errorf("node %d: %s, want 201 or 400", i%len(c.Nodes), r)
				}
			}
			if len(created) != 50 || refused != tries-50 {
				t.Fatalf("%d created and %d refused, want 50 and %d (200 creates a day)", len(created), refused, tries-50)
			}
			for _, node := range c.Nodes {
				l := list(t, node.Expect(t, 200, "GET", scope.path, c.Bot(), nil))
				if len(l) != 50 {
					t.Fatalf("node %d lists %d commands, want 50", node.Index, len(l))
				}
				for _, o := range l {
					if !created[str(o, "id")] {
						t.Fatalf("node %d lists %v, which no create answered", node.Index, o)
					}
				}
			}
			// The count is shared: a re-create of a name just deleted on
			// another node is the 201st.
			l := list(t, c.Nodes[0].Expect(t, 200, "GET", scope.path, c.Bot(), nil))
			c.Nodes[1].Expect(t, 204, "DELETE", scope.path+"/"+str(l[0], "id"), c.Bot(), nil)
			r := c.Nodes[2].Expect(t, 400, "POST", scope.path, c.Bot(), chat(str(l[0], "name"), "Again"))
			if code, _ := apiError(r); code != 30034 {
				t.Fatalf("re-create: %s, want 30034", r)
			}
		})
	}
}

// A command list a node has cached is never served stale after a write
// on another node: edits and deletes on one node show at once on the
// others.
func TestNoStaleCacheAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	path := c.GuildCommands()
	cmds := list(t, c.Nodes[0].Expect(t, 200, "PUT", path, c.Bot(), []jsonObj{
		chat("alpha", "Alpha"), chat("beta", "Beta"), chat("gamma", "Gamma")}))
	id := str(cmds[1], "id")

	// lookup finds the command in node n's list and its single GET, which
	// must agree.
	lookup := func(n *clustertest.Node, query string) (jsonObj, bool) {
		t.Helper()
		var found jsonObj
		for _, o := range list(t, n.Expect(t, 200, "GET", path+query, c.Bot(), nil)) {
			if str(o, "id") == id {
				found = o
			}
		}
		single := n.Do(t, "GET", path+"/"+id, c.Bot(), nil)
		switch {
		case found == nil && single.Status != 404:
			t.Fatalf("node %d: the list has no %s but %s", n.Index, id, single)
		case found != nil && single.Status != 200:
			t.Fatalf("node %d: the list has %s but %s", n.Index, id, single)
		case found != nil:
			o := obj(t, single)
			if str(o, "description") != str(found, "description") || str(o, "version") != str(found, "version") {
				t.Fatalf("node %d: the list has %v, the single GET %v", n.Index, found, o)
			}
		}
		return found, found != nil
	}
	for _, n := range c.Nodes { // warm every node's caches
		for range 2 {
			lookup(n, "")
			lookup(n, "?with_localizations=true")
		}
	}
	for i := range 12 {
		writer := c.Node(i)
		desc := fmt.Sprintf("Edited on node %d, round %d", writer.Index, i)
		edited := obj(t, writer.Expect(t, 200, "PATCH", path+"/"+id, c.Bot(), jsonObj{"description": desc}))
		for j := 1; j < len(c.Nodes); j++ {
			reader := c.Node(i + j)
			for _, q := range []string{"", "?with_localizations=true"} {
				o, ok := lookup(reader, q)
				if !ok || str(o, "description") != desc || str(o, "version") != str(edited, "version") {
					t.Fatalf("round %d: after PATCH on node %d (version %s), node %d%s serves %v",
						i, writer.Index, str(edited, "version"), reader.Index, q, o)
				}
			}
		}
	}
	c.Nodes[1].Expect(t, 204, "DELETE", path+"/"+id, c.Bot(), nil)
	for _, n := range c.Nodes {
		if o, ok := lookup(n, ""); ok {
			t.Fatalf("after DELETE on node 1, node %d serves %v", n.Index, o)
		}
		if l := list(t, n.Expect(t, 200, "GET", path, c.Bot(), nil)); len(l) != 2 {
			t.Fatalf("after DELETE on node 1, node %d lists %d commands, want 2", n.Index, len(l))
		}
	}
	// A bulk overwrite on one node replaces what the others list.
	c.Nodes[2].Expect(t, 200, "PUT", path, c.Bot(), []jsonObj{chat("alpha", "Alpha v2")})
	for _, n := range c.Nodes {
		l := list(t, n.Expect(t, 200, "GET", path, c.Bot(), nil))
		if len(l) != 1 || str(l[0], "description") != "Alpha v2" {
			t.Fatalf("after PUT on node 2, node %d lists %v", n.Index, l)
		}
	}
}

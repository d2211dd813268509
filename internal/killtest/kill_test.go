package killtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/event/natsbus/natstest"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
)

// The load: writersPerNode goroutines start on each node and go round the
// live nodes. Each owns cmdsPerWriter commands in the individual-write
// guilds (so every command has a single writer); all of them bulk
// overwrite the bulk guild (bulkGuildSize commands) and the global scope
// (bulkGlobalSize commands) with whole generations.
const (
	nodeCount      = 3
	writersPerNode = 3
	cmdsPerWriter  = 4
	bulkGuildSize  = 10
	bulkGlobalSize = 7

	loadFor   = 7 * time.Second         // the whole load
	killAfter = 2 * time.Second         // when node 1 is killed
	downFor   = 1500 * time.Millisecond // before node 1 starts again
	victim    = 1                       // the node killed
)

// TestKillNodeUnderLoad: SIGKILL of a node while writes go through all
// nodes loses no acknowledged write and leaves no scope half-written.
func TestKillNodeUnderLoad(t *testing.T) {
	dsn := pgtest.DSN(t)
	natsURL := natstest.URL(t)
	bin := slashdBinary(t)
	prefix := natstest.Prefix(t)
	// The nodes' JetStream stream for prefix: this bus deletes it when
	// the test ends (registered first, so after the nodes are gone).
	natstest.OrderedBus(t, prefix)

	// A smaller pool than the default 16 per node: the test server's
	// connections are shared with other tests. (pool_max_conns is
	// slashd's own parameter: the test's connections use dsn.)
	storeDSN := pgtest.WithParam(t, dsn, "pool_max_conns", "8")
	nodes := newCluster(t, bin, nodeCount, true, "--store", storeDSN, "--nats", natsURL, "--nats-prefix", prefix, "--ratelimit=false")

	// Node 0 bootstraps the demo app on the empty store.
	if err := nodes[0].start(); err != nil {
		t.Fatal(err)
	}
	creds, err := readCredentials(nodes[0].dataDir)
	if err != nil {
		t.Fatalf("node 0 did not bootstrap: %v", err)
	}
	// Two more guilds with the app installed, made by the CLI on the
	// same store: one more for single writes, one for bulk overwrites.
	guildCreate := func(name string) string {
		out, err := runCLI(bin, "guild", "create", "--data", nodes[0].dataDir, "--store", storeDSN,
			"--name", name, "--install", creds.ApplicationID, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			GuildID string `json:"guild_id"`
		}
		if err := json.Unmarshal(out, &g); err != nil || g.GuildID == "" {
			t.Fatalf("guild create printed %q (%v)", out, err)
		}
		return g.GuildID
	}
	singleGuilds := []string{creds.GuildID, guildCreate("single writes")}
	bulkGuild := guildCreate("bulk overwrites")

	for _, n := range nodes[1:] {
		if err := n.start(); err != nil {
			t.Fatal(err)
		}
	}
	checkNoSecondBootstrap(t, nodes, dsn)

	c := &cluster{t: t, nodes: nodes, app: creds.ApplicationID, bot: creds.BotToken,
		client: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}}
	// Every node serves the app before the load starts.
	for i := range nodes {
		if _, err := c.list(i, c.guildPath(creds.GuildID)); err != nil {
			t.Fatalf("node %d before the load: %v", i, err)
		}
	}

	// The load.
	l := &load{cluster: c, singleGuilds: singleGuilds, bulkGuild: bulkGuild}
	for i := range nodes {
		l.alive[i].Store(true)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var owned []*ownedCmd
	began := time.Now()
	for w := range nodeCount * writersPerNode {
		var mine []*ownedCmd
		for j := range cmdsPerWriter {
			mine = append(mine, &ownedCmd{guild: singleGuilds[j%len(singleGuilds)], name: fmt.Sprintf("w%d-c%d", w, j)})
		}
		owned = append(owned, mine...)
		wg.Go(func() { l.writer(ctx, w, mine) })
	}
	l.settle(killAfter, func() bool { return l.counts[phaseUp][victim][acked].Load() > 0 })
	// Kill when writes are in flight through the victim (almost always
	// so; the wait is bounded).
	for deadline := time.Now().Add(time.Second); l.inflight[victim].Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	inflight := l.inflight[victim].Load()
	l.alive[victim].Store(false)
	l.phase.Store(phaseDown)
	nodes[victim].kill()
	t.Logf("killed node %d (SIGKILL) %v into the load, %d writes in flight through it",
		victim, time.Since(began).Round(time.Millisecond), inflight)
	l.settle(downFor, func() bool {
		for i := range nodeCount {
			if i != victim && l.counts[phaseDown][i][acked].Load() == 0 {
				return false
			}
		}
		return true
	})
	if err := nodes[victim].start(); err != nil {
		stop()
		wg.Wait()
		t.Fatalf("restart: %v", err)
	}
	t.Logf("node %d is back %v into the load", victim, time.Since(began).Round(time.Millisecond))
	l.phase.Store(phaseBack)
	l.alive[victim].Store(true)
	// At least a while with the restarted node, however long it took.
	l.settle(max(loadFor-time.Since(began), time.Second), func() bool {
		return l.counts[phaseBack][victim][acked].Load() > 0
	})
	stop()
	wg.Wait()
	l.report(t)

	// The restarted node did not bootstrap either.
	checkNoSecondBootstrap(t, nodes, dsn)

	// What every node serves now, the restarted one included: the same.
	type scopeView struct {
		name string
		path string
	}
	scopes := []scopeView{
		{"single guild " + singleGuilds[0], c.guildPath(singleGuilds[0])},
		{"single guild " + singleGuilds[1], c.guildPath(singleGuilds[1])},
		{"bulk guild " + bulkGuild, c.guildPath(bulkGuild)},
		{"global", c.globalPath()},
	}
	views := make([][]cmdJSON, len(scopes))
	for s, sc := range scopes {
		for i := range nodes {
			got, err := c.list(i, sc.path)
			if err != nil {
				t.Fatalf("%s via node %d: %v", sc.name, i, err)
			}
			if i == 0 {
				views[s] = got
				continue
			}
			if a, b := summary(views[s]), summary(got); a != b {
				t.Errorf("%s: node %d serves\n%s\nnode 0 serves\n%s", sc.name, i, b, a)
			}
		}
	}

	// Every acknowledged single write is there, as last acknowledged.
	for g, guild := range singleGuilds {
		var mine []*ownedCmd
		for _, oc := range owned {
			if oc.guild == guild {
				mine = append(mine, oc)
			}
		}
		checkSingles(t, scopes[g].name, views[g], mine)
	}
	// Each bulk scope holds one whole generation.
	checkBulk(t, scopes[2].name, views[2], l.bulkOps(true), "bulk", bulkGuildSize)
	checkBulk(t, scopes[3].name, views[3], l.bulkOps(false), "gbulk", bulkGlobalSize)

	// The store itself holds what the API serves.
	byGuild := map[string][]cmdJSON{
		singleGuilds[0]: views[0], singleGuilds[1]: views[1], bulkGuild: views[2], "0": views[3],
	}
	checkStore(t, dsn, creds.ApplicationID, byGuild)
}

// checkNoSecondBootstrap: only node 0 found an empty store; the others
// (and node 1 restarted) saw the app and made nothing.
func checkNoSecondBootstrap(t *testing.T, nodes []*node, dsn string) {
	t.Helper()
	for _, n := range nodes[1:] {
		if _, err := os.Stat(filepath.Join(n.dataDir, "bootstrap.json")); err == nil {
			t.Errorf("node %d wrote bootstrap.json: it bootstrapped a second demo app", n.index)
		}
		if strings.Contains(n.logs(), "created a demo application") {
			t.Errorf("node %d says it created a demo application", n.index)
		}
	}
	if apps := countApplications(t, dsn); apps != 1 {
		t.Errorf("the store holds %d applications, want the one node 0 bootstrapped", apps)
	}
}

// ---- the API ----

type cluster struct {
	t      *testing.T
	nodes  []*node
	app    string
	bot    string
	client *http.Client
}

func (c *cluster) guildPath(guild string) string {
	return "/api/v10/applications/" + c.app + "/guilds/" + guild + "/commands"
}

func (c *cluster) globalPath() string { return "/api/v10/applications/" + c.app + "/commands" }

// do sends one request to node i; err is a failure to get an answer.
func (c *cluster) do(i int, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.nodes[i].URL()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bot "+c.bot)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err // the answer was cut: not an acknowledgement
	}
	return resp.StatusCode, b, nil
}

func (c *cluster) list(i int, path string) ([]cmdJSON, error) {
	status, b, err := c.do(i, "GET", path, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, status, b)
	}
	var out []cmdJSON
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("GET %s: %v: %s", path, err, b)
	}
	return out, nil
}

// cmdJSON is what the tests read of a command. Its content marker (tag)
// is both its description and its one option's description.
type cmdJSON struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	GuildID     string `json:"guild_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Options     []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"options"`
}

// tag is the command's content marker; an error says its parts disagree
// (a command written by halves).
func (c cmdJSON) tag() (string, error) {
	if len(c.Options) != 1 || c.Options[0].Name != "arg" || c.Options[0].Description != c.Description {
		return "", fmt.Errorf("command %s (%s): description %q but options %+v", c.Name, c.ID, c.Description, c.Options)
	}
	return c.Description, nil
}

func commandBody(name, tag string) map[string]any {
	b := map[string]any{
		"description": tag,
		"options":     []map[string]any{{"type": 3, "name": "arg", "description": tag}},
	}
	if name != "" {
		b["name"] = name
	}
	return b
}

// summary renders a list for comparisons between nodes.
func summary(cs []cmdJSON) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s %s v%s %q\n", c.ID, c.Name, c.Version, c.Description)
	}
	return b.String()
}

// ---- the load ----

// outcome is what a writer learned of one write.
type outcome int

const (
	acked     outcome = iota // a 2xx answer: the write must be there
	uncertain                // no answer (the node died), or a 5xx: there or not
	rejected                 // a 4xx: not done; this load expects none
)

func classify(status int, err error) outcome {
	switch {
	case err != nil || status >= 500:
		return uncertain
	case status >= 200 && status < 300:
		return acked
	}
	return rejected
}

// Phases of the load, by what node 1 is doing.
const (
	phaseUp   = iota // before the kill
	phaseDown        // killed
	phaseBack        // restarted
)

type attempt struct {
	method     string
	tag        string
	out        outcome
	node       int
	phase      int // of the load when the write was sent
	start, end time.Time
}

// ownedCmd is a command of a single writer, with every write made to it.
type ownedCmd struct {
	guild    string
	name     string
	id       string // from the first acknowledged write
	attempts []attempt
}

// bulkOp is one overwrite of a bulk scope with generation tag.
type bulkOp struct {
	guild bool // the bulk guild, else the global scope
	attempt
}

type load struct {
	*cluster
	singleGuilds []string
	bulkGuild    string

	alive    [nodeCount]atomic.Bool
	inflight [nodeCount]atomic.Int64 // requests sent and not answered
	phase    atomic.Int32
	gen      atomic.Int64

	// counts[phase][node][outcome]
	counts [3][nodeCount][3]atomic.Int64

	mu    sync.Mutex
	bulk  []bulkOp
	notes []string // samples of uncertain outcomes
}

// settle lets the load run in its phase for d, and on until ok holds
// (what report checks of the phase: writes acknowledged), for at most
// progressWait more: on a loaded machine a phase can take longer to show
// any.
func (l *load) settle(d time.Duration, ok func() bool) {
	time.Sleep(d) // the load's shape: how long the phase lasts
	for deadline := time.Now().Add(progressWait); !ok() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // a poll interval
	}
}

// progressWait bounds settle's wait past a phase's length.
const progressWait = 30 * time.Second

// pick returns the next live node after *next, round-robin.
func (l *load) pick(next *int) int {
	for k := range nodeCount {
		i := (*next + k) % nodeCount
		if l.alive[i].Load() {
			*next = i + 1
			return i
		}
	}
	return 0
}

func (l *load) writer(ctx context.Context, w int, mine []*ownedCmd) {
	rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
	next := w % nodeCount
	seq := 0
	for ctx.Err() == nil {
		i := l.pick(&next)
		switch r := rng.IntN(10); {
		case r < 6:
			seq++
			l.single(i, mine[rng.IntN(len(mine))], fmt.Sprintf("w%d-s%d", w, seq), rng.IntN(3) == 0)
		default:
			l.overwrite(i, r < 8)
		}
	}
}

// single creates (upserts) or edits one of a writer's commands.
func (l *load) single(i int, oc *ownedCmd, tag string, upsert bool) {
	path := l.guildPath(oc.guild)
	method, body := "PATCH", commandBody("", tag)
	if oc.id == "" || upsert {
		method, body = "POST", commandBody(oc.name, tag)
	} else {
		path += "/" + oc.id
	}
	a := l.begin(i, method, tag)
	status, resp, err := l.do(i, method, path, body)
	a = l.finish(a, status, resp, err)
	oc.attempts = append(oc.attempts, a)
	if a.out != acked {
		return
	}
	var got cmdJSON
	if err := json.Unmarshal(resp, &got); err != nil {
		l.t.Errorf("%s %s via node %d: %v: %s", method, path, i, err, resp)
		return
	}
	if gt, err := got.tag(); err != nil || gt != tag || got.Name != oc.name || got.GuildID != oc.guild {
		l.t.Errorf("%s %s via node %d answered %s, want %s with %q (%v)", method, path, i, resp, oc.name, tag, err)
	}
	if oc.id != "" && status == http.StatusCreated {
		l.t.Errorf("POST %s via node %d created %s again (201, id %s): the acknowledged command %s was gone",
			path, i, oc.name, got.ID, oc.id)
	}
	if oc.id != "" && got.ID != oc.id {
		l.t.Errorf("%s %s via node %d: %s has id %s, was %s", method, path, i, oc.name, got.ID, oc.id)
	}
	oc.id = got.ID
}

// overwrite replaces a bulk scope's commands with a new generation.
func (l *load) overwrite(i int, guild bool) {
	gen := l.gen.Add(1)
	tag := fmt.Sprintf("gen-%d", gen)
	path, prefix, size := l.globalPath(), "gbulk", bulkGlobalSize
	if guild {
		path, prefix, size = l.guildPath(l.bulkGuild), "bulk", bulkGuildSize
	}
	list := make([]map[string]any, size)
	for k := range list {
		list[k] = commandBody(fmt.Sprintf("%s-%d", prefix, k), tag)
	}
	a := l.begin(i, "PUT", tag)
	status, resp, err := l.do(i, "PUT", path, list)
	a = l.finish(a, status, resp, err)
	l.mu.Lock()
	l.bulk = append(l.bulk, bulkOp{guild: guild, attempt: a})
	l.mu.Unlock()
	if a.out != acked {
		return
	}
	var got []cmdJSON
	if err := json.Unmarshal(resp, &got); err != nil {
		l.t.Errorf("PUT %s via node %d: %v: %s", path, i, err, resp)
		return
	}
	if err := wholeGeneration(got, prefix, size); err != nil || got[0].Description != tag {
		l.t.Errorf("PUT %s (%s) via node %d answered a list that is not the generation sent (%v):\n%s", path, tag, i, err, summary(got))
	}
}

func (l *load) begin(i int, method, tag string) attempt {
	l.inflight[i].Add(1)
	return attempt{method: method, tag: tag, node: i, phase: int(l.phase.Load()), start: time.Now()}
}

// finish completes an attempt with its answer.
func (l *load) finish(a attempt, status int, resp []byte, err error) attempt {
	a.end = time.Now()
	l.inflight[a.node].Add(-1)
	a.out = classify(status, err)
	l.counts[a.phase][a.node][a.out].Add(1)
	switch a.out {
	case rejected:
		l.t.Errorf("%s %q via node %d: %d %s", a.method, a.tag, a.node, status, resp)
	case uncertain:
		l.mu.Lock()
		if len(l.notes) < 12 {
			what := fmt.Sprint(err)
			if err == nil {
				what = fmt.Sprintf("%d %s", status, resp)
			}
			l.notes = append(l.notes, fmt.Sprintf("%s %q via node %d: %s", a.method, a.tag, a.node, what))
		}
		l.mu.Unlock()
	}
	return a
}

func (l *load) bulkOps(guild bool) []bulkOp {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []bulkOp
	for _, op := range l.bulk {
		if op.guild == guild {
			out = append(out, op)
		}
	}
	return out
}

// report logs the load's numbers and checks that it did what the test
// is about: writes acknowledged by node 1 before the kill, by the
// survivors while it was down, and by node 1 again after its restart.
func (l *load) report(t *testing.T) {
	t.Helper()
	phases := []string{"before the kill", "node 1 down", "node 1 back"}
	for p, name := range phases {
		var b strings.Builder
		for i := range nodeCount {
			fmt.Fprintf(&b, " node %d: %d acked, %d uncertain, %d rejected;", i,
				l.counts[p][i][acked].Load(), l.counts[p][i][uncertain].Load(), l.counts[p][i][rejected].Load())
		}
		t.Logf("%s:%s", name, b.String())
	}
	for _, n := range l.notes {
		t.Logf("uncertain: %s", n)
	}
	if l.counts[phaseUp][victim][acked].Load() == 0 {
		t.Errorf("node %d acknowledged no write before the kill", victim)
	}
	for i := range nodeCount {
		if i != victim && l.counts[phaseDown][i][acked].Load() == 0 {
			t.Errorf("node %d acknowledged no write while node %d was down", i, victim)
		}
	}
	if l.counts[phaseBack][victim][acked].Load() == 0 {
		t.Errorf("node %d acknowledged no write after its restart", victim)
	}
}

// ---- the checks ----

// checkSingles: every command with an acknowledged write is present, with
// the content of its last acknowledged write or of a later write that got
// no answer; nothing else is in the scope.
func checkSingles(t *testing.T, scope string, view []cmdJSON, mine []*ownedCmd) {
	t.Helper()
	present := map[string]cmdJSON{}
	for _, c := range view {
		if _, dup := present[c.Name]; dup {
			t.Errorf("%s: two commands named %s", scope, c.Name)
		}
		present[c.Name] = c
	}
	ackedWrites := 0
	for _, oc := range mine {
		last := -1
		for k, a := range oc.attempts {
			if a.out == acked {
				last = k
				ackedWrites++
			}
		}
		allowed := map[string]bool{}
		var want []string
		for k, a := range oc.attempts {
			if k == last || (k > last && a.out == uncertain) {
				allowed[a.tag] = true
				want = append(want, a.tag)
			}
		}
		got, ok := present[oc.name]
		delete(present, oc.name)
		if !ok {
			if last >= 0 {
				a := oc.attempts[last]
				t.Errorf("%s: %s is gone; %s %q was acknowledged by node %d", scope, oc.name, a.method, a.tag, a.node)
			}
			continue
		}
		tag, err := got.tag()
		if err != nil {
			t.Errorf("%s: half-written: %v", scope, err)
			continue
		}
		if !allowed[tag] {
			t.Errorf("%s: %s holds %q; want one of %q (the last acknowledged write, then the unanswered ones); writes: %s",
				scope, oc.name, tag, want, history(oc.attempts))
		}
		if oc.id != "" && got.ID != oc.id {
			t.Errorf("%s: %s has id %s, acknowledged as %s", scope, oc.name, got.ID, oc.id)
		}
	}
	for name := range present {
		t.Errorf("%s: %s was never written", scope, name)
	}
	if ackedWrites == 0 {
		t.Errorf("%s: no write was acknowledged", scope)
	}
	t.Logf("%s: %d commands, %d acknowledged writes", scope, len(view), ackedWrites)
}

func history(as []attempt) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "%s %q node %d %s; ", a.method, a.tag, a.node, [...]string{"acked", "uncertain", "rejected"}[a.out])
	}
	return b.String()
}

// wholeGeneration: the list is prefix-0 … prefix-(size-1), each with the
// same content marker.
func wholeGeneration(cs []cmdJSON, prefix string, size int) error {
	if len(cs) != size {
		return fmt.Errorf("%d commands, a generation has %d", len(cs), size)
	}
	var names []string
	var tag0 string
	for k, c := range cs {
		tag, err := c.tag()
		if err != nil {
			return err
		}
		if k == 0 {
			tag0 = tag
		}
		if tag != tag0 {
			return fmt.Errorf("generations mix: %s holds %q, %s holds %q", cs[0].Name, tag0, c.Name, tag)
		}
		names = append(names, c.Name)
	}
	slices.Sort(names)
	var want []string
	for k := range size {
		want = append(want, fmt.Sprintf("%s-%d", prefix, k))
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		return fmt.Errorf("names %v, want %v", names, want)
	}
	return nil
}

// checkBulk: the scope holds exactly one overwrite's whole generation,
// one that was sent and not rejected, and not one that an acknowledged
// overwrite started after it had been acknowledged should have replaced.
func checkBulk(t *testing.T, scope string, view []cmdJSON, ops []bulkOp, prefix string, size int) {
	t.Helper()
	nAcked := 0
	for _, op := range ops {
		if op.out == acked {
			nAcked++
		}
	}
	t.Logf("%s: %d overwrites, %d acknowledged", scope, len(ops), nAcked)
	if nAcked == 0 {
		t.Errorf("%s: no overwrite was acknowledged", scope)
	}
	if len(view) == 0 {
		if nAcked > 0 {
			t.Errorf("%s is empty after %d acknowledged overwrites", scope, nAcked)
		}
		return
	}
	if err := wholeGeneration(view, prefix, size); err != nil {
		t.Errorf("%s is half-written: %v:\n%s", scope, err, summary(view))
		return
	}
	tag := view[0].Description
	var final *bulkOp
	for k := range ops {
		if ops[k].tag == tag {
			final = &ops[k]
		}
	}
	if final == nil {
		t.Errorf("%s holds %q, which no overwrite sent", scope, tag)
		return
	}
	if final.out == rejected {
		t.Errorf("%s holds %q, an overwrite that was rejected", scope, tag)
	}
	if final.out != acked {
		return
	}
	for _, op := range ops {
		if op.out == acked && op.start.After(final.end) {
			t.Errorf("%s holds %q (acknowledged by node %d at %s), but %q was sent later (%s, node %d) and acknowledged: it is lost",
				scope, tag, final.node, final.end.Format("15:04:05.000"), op.tag, op.start.Format("15:04:05.000"), op.node)
			return
		}
	}
}

// checkStore reads the commands table directly: it holds, per scope
// (guild id, 0 for global), exactly what the API served.
func checkStore(t *testing.T, dsn, app string, byGuild map[string][]cmdJSON) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, guild_id, name, version, body FROM commands WHERE application_id = $1 ORDER BY id`, app)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string][]cmdJSON{}
	for rows.Next() {
		var (
			id, guild, version int64
			name, body         string
		)
		if err := rows.Scan(&id, &guild, &name, &version, &body); err != nil {
			t.Fatal(err)
		}
		var c cmdJSON
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Errorf("command %d: body %q: %v", id, body, err)
			continue
		}
		if c.ID != strconv.FormatInt(id, 10) || c.Name != name || c.Version != strconv.FormatInt(version, 10) {
			t.Errorf("command %d row (name %s, version %d) and body disagree: %s", id, name, version, body)
		}
		g := strconv.FormatInt(guild, 10)
		stored[g] = append(stored[g], c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for g, want := range byGuild {
		if a, b := summary(stored[g]), summary(want); a != b {
			t.Errorf("scope %s: the store holds\n%s\nthe API served\n%s", g, a, b)
		}
		delete(stored, g)
	}
	for g, cs := range stored {
		t.Errorf("commands in scope %s, which the load did not write:\n%s", g, summary(cs))
	}
}

package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// Intents and application flags the member requests depend on.
const (
	intentGuilds          = 1 << 0
	intentGuildMembers    = 1 << 1
	intentGuildPresences  = 1 << 8
	flagGuildMembers      = 1 << 15 // GATEWAY_GUILD_MEMBERS_LIMITED
	flagGuildPresences    = 1 << 13 // GATEWAY_PRESENCE_LIMITED
	opRequestGuildMembers = 8
)

// chunkData is GUILD_MEMBERS_CHUNK's data as the tests read it.
type chunkData struct {
	GuildID    string            `json:"guild_id"`
	Members    []json.RawMessage `json:"members"`
	ChunkIndex *int              `json:"chunk_index"`
	ChunkCount *int              `json:"chunk_count"`
	NotFound   *[]string         `json:"not_found"`
	Presences  *[]any            `json:"presences"`
	Nonce      *string           `json:"nonce"`
}

// userIDs are the chunk's members' user ids, in order.
func (d chunkData) userIDs(t *testing.T) []string {
	t.Helper()
	out := make([]string, len(d.Members))
	for i, m := range d.Members {
		var v struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		}
		if err := json.Unmarshal(m, &v); err != nil || v.User.ID == "" {
			t.Fatalf("member without a user id: %s (%v)", m, err)
		}
		out[i] = v.User.ID
	}
	return out
}

// chunk reads a dispatch that must be GUILD_MEMBERS_CHUNK and checks its
// sequence number (0: any).
func (c *client) chunk(seq int64) chunkData {
	c.t.Helper()
	f := c.dispatch("GUILD_MEMBERS_CHUNK")
	if seq != 0 && f.seq() != seq {
		c.t.Fatalf("GUILD_MEMBERS_CHUNK with s %d, want %d: %s", f.seq(), seq, f)
	}
	var d chunkData
	if err := json.Unmarshal(f.D, &d); err != nil {
		c.t.Fatalf("decode %s: %v", f, err)
	}
	if d.ChunkIndex == nil || d.ChunkCount == nil || d.Members == nil {
		c.t.Fatalf("chunk without chunk_index, chunk_count or members: %s", f.D)
	}
	return d
}

// world adds users with the given names to the env's guild (and, with
// outside, users who are in no guild of the bot's); it returns their ids
// by name.
type world struct {
	t     *testing.T
	e     *testenv.Env
	guild snowflake.ID
	ids   map[string]string
}

func newWorld(t *testing.T, e *testenv.Env) *world {
	return &world{t: t, e: e, guild: guildID(t, e), ids: map[string]string{}}
}

// user creates a user, a member of the guild when member is true.
func (w *world) user(name string, member bool) string {
	w.t.Helper()
	id := w.addUser(name, member)
	w.settle()
	return id
}

// settle publishes the world events of what the test wrote to the store
// (as the CLI would, around the server) now rather than at the server's
// next look, so that a bot connecting next is not told of them again.
func (w *world) settle() { w.e.API.PublishWorldEvents(context.Background()) }

func (w *world) addUser(name string, member bool) string {
	w.t.Helper()
	ctx := context.Background()
	id := w.e.IDs.Next()
	if err := w.e.Store.CreateUser(ctx, store.User{ID: id, Username: name, CreatedAt: w.e.Clock.Now()}); err != nil {
		w.t.Fatal(err)
	}
	if member {
		if err := w.e.Store.PutMember(ctx, guild.Member{GuildID: w.guild, UserID: id, JoinedAt: w.e.Clock.Now()}); err != nil {
			w.t.Fatal(err)
		}
	}
	w.ids[name] = id.String()
	return id.String()
}

// members adds n members named prefix0, prefix1, … and returns their ids.
func (w *world) members(prefix string, n int) []string {
	w.t.Helper()
	out := make([]string, n)
	for i := range out {
		out[i] = w.addUser(fmt.Sprintf("%s%d", prefix, i), true)
	}
	w.settle()
	return out
}

// allow lets the env's app identify with the privileged intents of flags.
func allow(t *testing.T, e *testenv.Env, flags uint64) {
	t.Helper()
	if err := e.API.Store().SetApplicationFlags(context.Background(), appID(t, e), flags); err != nil {
		t.Fatal(err)
	}
}

// request sends op 8 for the env's guild with the given fields.
func (c *client) request(e *testenv.Env, fields map[string]any) {
	c.t.Helper()
	d := map[string]any{"guild_id": e.App.GuildID}
	for k, v := range fields {
		d[k] = v
	}
	c.send(opRequestGuildMembers, d)
}

// TestRequestMembersByQuery: a query answers, in one chunk, the members
// whose username starts with it (any case), at most limit of them (and
// at most 100), by user id, with the nonce; nothing matching is one
// empty chunk.
func TestRequestMembersByQuery(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	for _, name := range []string{"Alice", "alfred", "bob", "ALBERT", "al_x"} {
		w.user(name, true)
	}
	w.user("alina", false) // not a member
	c := dial(t, e)
	c.login(e, 0) // READY is 1
	byID := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = w.ids[n]
		}
		slices.SortFunc(out, func(a, b string) int { return compareIDs(t, a, b) })
		return out
	}
	for i, tc := range []struct {
		name   string
		fields map[string]any
		want   []string
	}{
		{"prefix, any case", map[string]any{"query": "AL", "limit": 10, "nonce": "q1"},
			byID("Alice", "alfred", "ALBERT", "al_x")},
		{"limit", map[string]any{"query": "al", "limit": 2, "nonce": "q2"}, byID("Alice", "alfred", "ALBERT", "al_x")[:2]},
		{"limit 0 (at most 100)", map[string]any{"query": "alb", "limit": 0, "nonce": "q3"}, byID("ALBERT")},
		{"_ is a character", map[string]any{"query": "al_", "limit": 1, "nonce": "q4"}, byID("al_x")},
		{"no match", map[string]any{"query": "zed", "limit": 10, "nonce": "q5"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.request(e, tc.fields)
			d := c.chunk(int64(i + 2))
			if got := d.userIDs(t); !slices.Equal(got, tc.want) {
				t.Errorf("members %v, want %v", got, tc.want)
			}
			if *d.ChunkIndex != 0 || *d.ChunkCount != 1 || d.GuildID != e.App.GuildID {
				t.Errorf("chunk %d of %d of guild %s, want 0 of 1 of %s", *d.ChunkIndex, *d.ChunkCount, d.GuildID,
					e.App.GuildID)
			}
			if d.Nonce == nil || *d.Nonce != tc.fields["nonce"] {
				t.Errorf("nonce %v, want %v", d.Nonce, tc.fields["nonce"])
			}
			if d.NotFound != nil || d.Presences != nil {
				t.Errorf("not_found %v, presences %v: want neither for a query", d.NotFound, d.Presences)
			}
		})
	}
}

// TestRequestMembersQueryAtMost100: a prefix query answers at most 100
// members, whatever the limit.
func TestRequestMembersQueryAtMost100(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	w.members("many", 105)
	c := dial(t, e)
	c.login(e, 0)
	for _, limit := range []int{0, 500} {
		c.request(e, map[string]any{"query": "many", "limit": limit})
		if d := c.chunk(0); len(d.Members) != 100 || *d.ChunkCount != 1 {
			t.Errorf("limit %d: %d members in %d chunks, want 100 in 1", limit, len(d.Members), *d.ChunkCount)
		}
	}
}

// compareIDs orders two snowflakes numerically.
func compareIDs(t *testing.T, a, b string) int {
	x, y := mustID(t, a), mustID(t, b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// TestRequestMembersByUserIDs: user_ids (one, or a list) answer those
// members; the others (not members, unknown users) are in not_found,
// each once; a member is the same object GUILD_CREATE lists.
func TestRequestMembersByUserIDs(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	alice, bob := w.user("alice", true), w.user("bob", true)
	outsider := w.user("outsider", false)
	const unknownUser = "123456789012345678"

	c := dial(t, e)
	c.hello()
	c.send(2, identifyData(e.Bot(), intentGuilds))
	c.ready()
	created := c.dispatch("GUILD_CREATE")
	var g struct {
		Members []json.RawMessage `json:"members"`
	}
	if err := json.Unmarshal(created.D, &g); err != nil || len(g.Members) != 1 {
		t.Fatalf("GUILD_CREATE members: %s (%v)", created.D, err)
	}

	c.request(e, map[string]any{"user_ids": []string{bob, outsider, alice, unknownUser, bob}, "nonce": "ids"})
	d := c.chunk(3)
	if got, want := d.userIDs(t), []string{alice, bob}; !slices.Equal(got, want) {
		t.Errorf("members %v, want %v", got, want)
	}
	if d.NotFound == nil || !slices.Equal(*d.NotFound, []string{outsider, unknownUser}) {
		t.Errorf("not_found %v, want [%s %s]", d.NotFound, outsider, unknownUser)
	}
	if *d.ChunkIndex != 0 || *d.ChunkCount != 1 || d.Nonce == nil || *d.Nonce != "ids" {
		t.Errorf("chunk %d of %d with nonce %v, want 0 of 1 with nonce ids", *d.ChunkIndex, *d.ChunkCount, d.Nonce)
	}

	// One id, as a string; the bot's member is GUILD_CREATE's.
	c.request(e, map[string]any{"user_ids": e.App.ApplicationID, "limit": 0})
	d = c.chunk(4)
	if len(d.Members) != 1 || string(d.Members[0]) != string(g.Members[0]) {
		t.Errorf("the bot's member %s, want GUILD_CREATE's %s", d.Members, g.Members[0])
	}
	if d.NotFound == nil || len(*d.NotFound) != 0 || d.Nonce != nil {
		t.Errorf("not_found %v and nonce %v, want [] and none", d.NotFound, d.Nonce)
	}

	// Nobody found: one empty chunk.
	c.request(e, map[string]any{"user_ids": []string{outsider}})
	d = c.chunk(5)
	if len(d.Members) != 0 || *d.ChunkCount != 1 || d.NotFound == nil || !slices.Equal(*d.NotFound, []string{outsider}) {
		t.Errorf("chunk %+v, want no members, count 1, not_found [%s]", d, outsider)
	}
}

// TestRequestAllMembers: query "" with limit 0 and the GUILD_MEMBERS
// intent answers every member, 1000 to a chunk, the chunks numbered in
// sequence; a second such request for the guild within 30 s is answered
// RATE_LIMITED (a limited one is not), and after 30 s it is served again.
func TestRequestAllMembers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	want := append(w.members("m", 2010), e.App.OwnerUserID, e.App.ApplicationID)
	slices.SortFunc(want, func(a, b string) int { return compareIDs(t, a, b) })
	allow(t, e, flagGuildMembers)

	c := dial(t, e)
	c.login(e, intentGuildMembers)
	c.request(e, map[string]any{"query": "", "limit": 0, "nonce": "all"})
	var got []string
	for i, size := range []int{1000, 1000, len(want) - 2000} {
		d := c.chunk(int64(i + 2))
		if len(d.Members) != size || *d.ChunkIndex != i || *d.ChunkCount != 3 || d.Nonce == nil || *d.Nonce != "all" {
			t.Fatalf("chunk %d: %d members, index %d of %d, nonce %v; want %d members, index %d of 3, nonce all",
				i, len(d.Members), *d.ChunkIndex, *d.ChunkCount, d.Nonce, size, i)
		}
		got = append(got, d.userIDs(t)...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d members answered, want the guild's %d by user id", len(got), len(want))
	}

	c.request(e, map[string]any{"query": "", "limit": 0, "nonce": "again"})
	f := c.dispatch("RATE_LIMITED")
	if f.seq() != 5 {
		t.Errorf("RATE_LIMITED with s %d, want 5", f.seq())
	}
	var rl struct {
		Opcode     int     `json:"opcode"`
		RetryAfter float64 `json:"retry_after"`
		Meta       struct {
			GuildID string `json:"guild_id"`
			Nonce   string `json:"nonce"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(f.D, &rl); err != nil {
		t.Fatal(err)
	}
	if rl.Opcode != 8 || rl.RetryAfter <= 0 || rl.RetryAfter > 30 || rl.Meta.GuildID != e.App.GuildID ||
		rl.Meta.Nonce != "again" {
		t.Errorf("RATE_LIMITED %s, want opcode 8, 0 < retry_after <= 30, meta {guild_id, nonce again}", f.D)
	}

	// A limited request for the whole list is not rate limited.
	c.request(e, map[string]any{"query": "", "limit": 3})
	if d := c.chunk(6); !slices.Equal(d.userIDs(t), want[:3]) {
		t.Errorf("limit 3: %v, want %v", d.userIDs(t), want[:3])
	}
	e.Clock.Advance(30 * time.Second)
	c.request(e, map[string]any{"query": "", "limit": 0})
	for i := range 3 {
		if d := c.chunk(int64(7 + i)); *d.ChunkIndex != i {
			t.Fatalf("after 30 s: chunk index %d, want %d", *d.ChunkIndex, i)
		}
	}
}

// TestRequestMembersIntents: without GUILD_MEMBERS a request for the
// member list (query "", any limit) gets no answer while a query or
// user_ids do; presences (an empty list: every member is offline) come
// only when asked for with GUILD_PRESENCES.
func TestRequestMembersIntents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	alice := w.user("alice", true)
	allow(t, e, flagGuildMembers|flagGuildPresences)

	for _, tc := range []struct {
		name      string
		intents   uint64
		fields    map[string]any
		answered  bool
		presences bool
	}{
		{"all without GUILD_MEMBERS", 0, map[string]any{"query": "", "limit": 0}, false, false},
		{"first 5 without GUILD_MEMBERS", 0, map[string]any{"query": "", "limit": 5}, false, false},
		{"all with GUILD_MEMBERS", intentGuildMembers, map[string]any{"query": "", "limit": 0}, true, false},
		{"a query without GUILD_MEMBERS", 0, map[string]any{"query": "a", "limit": 1}, true, false},
		{"user_ids without GUILD_MEMBERS", 0, map[string]any{"user_ids": []string{alice}}, true, false},
		{"presences without GUILD_PRESENCES", 0, map[string]any{"query": "a", "limit": 1, "presences": true}, true, false},
		{"presences with GUILD_PRESENCES", intentGuildPresences,
			map[string]any{"user_ids": alice, "presences": true}, true, true},
		{"no presences asked, with GUILD_PRESENCES", intentGuildPresences,
			map[string]any{"user_ids": alice, "presences": false}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, e)
			c.login(e, tc.intents)
			c.request(e, tc.fields)
			// A request that is always answered follows: its chunk comes
			// first when the one before had no answer.
			c.request(e, map[string]any{"user_ids": alice, "nonce": "probe"})
			d := c.chunk(2)
			if answered := d.Nonce == nil || *d.Nonce != "probe"; answered != tc.answered {
				t.Fatalf("answered: %v, want %v (chunk %+v)", answered, tc.answered, d)
			}
			if tc.answered {
				if got := d.Presences != nil; got != tc.presences {
					t.Errorf("presences %v, want a list: %v", d.Presences, tc.presences)
				}
				if tc.presences && len(*d.Presences) != 0 {
					t.Errorf("presences %v, want []", *d.Presences)
				}
				c.chunk(3) // the probe's
			}
		})
	}
}

// TestRequestMembersNonce: a nonce of up to 32 bytes is echoed in every
// chunk; a longer one, or one that is not a string, is ignored (as the
// real gateway documents), not refused.
func TestRequestMembersNonce(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	c := dial(t, e)
	c.login(e, 0)
	for i, tc := range []struct {
		nonce any
		want  *string
	}{
		{strings.Repeat("n", 32), ptr(strings.Repeat("n", 32))},
		{strings.Repeat("n", 33), nil},
		{"", nil},
		{12345, nil},
		{nil, nil},
	} {
		c.request(e, map[string]any{"user_ids": e.App.ApplicationID, "nonce": tc.nonce})
		d := c.chunk(int64(i + 2))
		if (d.Nonce == nil) != (tc.want == nil) || (d.Nonce != nil && *d.Nonce != *tc.want) {
			t.Errorf("nonce %v: echoed %v, want %v", tc.nonce, d.Nonce, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestRequestMembersNoAnswer: a guild the bot is not in, one that does
// not exist and one on another shard get no answer, and the connection
// stays open; a list of guilds (older libraries send one) is served for
// its first.
func TestRequestMembersNoAnswer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	other := e.NewApp(bootstrap.AppOptions{Name: "other"}) // its guild is not the bot's
	g := guildID(t, e)
	c := dial(t, e)
	c.hello()
	c.send(2, identifyData(e.Bot(), 0))
	c.ready()
	for _, guildID := range []string{other.GuildID, "123456789012345678"} {
		c.send(opRequestGuildMembers, map[string]any{"guild_id": guildID, "query": "o", "limit": 10})
	}
	c.send(opRequestGuildMembers, map[string]any{"guild_id": []string{e.App.GuildID, other.GuildID},
		"user_ids": []string{e.App.ApplicationID}, "nonce": "listed"})
	if d := c.chunk(2); d.Nonce == nil || *d.Nonce != "listed" || d.GuildID != e.App.GuildID || len(d.Members) != 1 {
		t.Fatalf("got %+v, want the answer for the first guild of the list", d)
	}

	// Two shards: the guild is on one of them only.
	home := int((uint64(g) >> 22) % 2)
	away := dial(t, e)
	away.hello()
	d := identifyData(e.Bot(), 0)
	d["shard"] = []int{1 - home, 2}
	away.send(2, d)
	away.ready()
	away.request(e, map[string]any{"user_ids": e.App.ApplicationID})
	away.send(1, nil)
	// The heartbeat's ACK says the request was handled: a chunk, if any,
	// is on the bus by then, ahead of an event for a guild of the shard's
	// published now, which comes next.
	away.expect(11)
	interaction(e, appID(t, e), snowflake.ID(uint64(1-home)<<22), 1)
	if n, _, _ := away.interactionN(); n != 1 {
		t.Fatalf("the shard's next dispatch is event %d, want 1", n)
	}
}

// TestRequestMembersBadPayload: op 8 before identifying closes with
// 4003; a payload the gateway cannot read closes with 4002.
func TestRequestMembersBadPayload(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	c := dial(t, e)
	c.hello()
	c.send(opRequestGuildMembers, map[string]any{"guild_id": e.App.GuildID, "query": "", "limit": 0})
	c.closed(4003, "Not authenticated.")

	g := e.App.GuildID
	for _, tc := range []struct {
		name string
		d    string
	}{
		{"not an object", `"members please"`},
		{"a list", `[]`},
		{"null", `null`},
		{"no guild_id", `{"query":"","limit":0}`},
		{"guild_id not a snowflake", `{"guild_id":"guild","query":"","limit":0}`},
		{"empty guild_id list", `{"guild_id":[],"query":"","limit":0}`},
		{"neither query nor user_ids", `{"guild_id":"` + g + `","limit":0}`},
		{"query not a string", `{"guild_id":"` + g + `","query":5,"limit":0}`},
		{"negative limit", `{"guild_id":"` + g + `","query":"a","limit":-1}`},
		{"fractional limit", `{"guild_id":"` + g + `","query":"a","limit":1.5}`},
		{"limit a string", `{"guild_id":"` + g + `","query":"a","limit":"5"}`},
		{"user_ids not snowflakes", `{"guild_id":"` + g + `","user_ids":["a"]}`},
		{"presences not a boolean", `{"guild_id":"` + g + `","query":"a","limit":1,"presences":"yes"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, e)
			c.login(e, 0)
			c.sendRaw([]byte(`{"op":8,"d":` + tc.d + `}`))
			c.closed(4002, "Error while decoding payload.")
		})
	}
}

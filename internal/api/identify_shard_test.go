package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// guildReads is the store with its per-guild reads recorded: which
// guilds' rows a server asked for.
type guildReads struct {
	store.Store
	mu        sync.Mutex
	guilds    map[snowflake.ID]int
	allGuilds int // reads of every guild of a user (MemberGuilds)
}

func newGuildReads(s store.Store) *guildReads {
	return &guildReads{Store: s, guilds: map[snowflake.ID]int{}}
}

func (r *guildReads) read(guildID snowflake.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guilds[guildID]++
}

// reset forgets what was read so far; read returns what was read since.
func (r *guildReads) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guilds, r.allGuilds = map[snowflake.ID]int{}, 0
}

func (r *guildReads) readSoFar() (guilds []snowflake.ID, allGuilds int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.guilds)), r.allGuilds
}

func (r *guildReads) Guild(ctx context.Context, id snowflake.ID) (store.Guild, error) {
	r.read(id)
	return r.Store.Guild(ctx, id)
}

func (r *guildReads) Snapshot(ctx context.Context, guildID snowflake.ID) (store.Snapshot, error) {
	r.read(guildID)
	return r.Store.Snapshot(ctx, guildID)
}

func (r *guildReads) Member(ctx context.Context, guildID, userID snowflake.ID) (guild.Member, error) {
	r.read(guildID)
	return r.Store.Member(ctx, guildID, userID)
}

func (r *guildReads) Members(ctx context.Context, guildID snowflake.ID) ([]guild.Member, error) {
	r.read(guildID)
	return r.Store.Members(ctx, guildID)
}

func (r *guildReads) MemberCount(ctx context.Context, guildID snowflake.ID) (int, error) {
	r.read(guildID)
	return r.Store.MemberCount(ctx, guildID)
}

func (r *guildReads) Roles(ctx context.Context, guildID snowflake.ID) ([]guild.Role, error) {
	r.read(guildID)
	return r.Store.Roles(ctx, guildID)
}

func (r *guildReads) Channels(ctx context.Context, guildID snowflake.ID) ([]guild.Channel, error) {
	r.read(guildID)
	return r.Store.Channels(ctx, guildID)
}

func (r *guildReads) MemberGuilds(ctx context.Context, userID snowflake.ID) ([]store.Guild, error) {
	r.mu.Lock()
	r.allGuilds++
	r.mu.Unlock()
	return r.Store.MemberGuilds(ctx, userID)
}

// shardOf is the gateway's shard of a guild.
func shardOf(id snowflake.ID, shards int) int { return int((uint64(id) >> 22) % uint64(shards)) }

// guildAt is a guild id whose timestamp is ms milliseconds after the
// snowflake epoch: the shard is read from those bits. The low bits are
// all set, which no id of the server's generator (worker 0) has.
func guildAt(ms int64) snowflake.ID { return snowflake.ID(ms<<22 | 0x3fffff) }

// addBotGuild creates a guild with id, owned by owner, with one text
// channel, and adds app's bot to it as an install does (a managed role,
// the bot a member).
func addBotGuild(t testing.TB, env bootstrap.Env, id, owner snowflake.ID, app store.Application) {
	t.Helper()
	ctx := context.Background()
	if err := env.Store.CreateGuild(ctx, store.Guild{ID: id, Name: fmt.Sprintf("g%d", id), OwnerID: owner,
		CreatedAt: env.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.CreateChannel(ctx, guild.Channel{ID: env.IDs.Next(), GuildID: id, Name: "general"}); err != nil {
		t.Fatal(err)
	}
	if err := bootstrap.SyncBot(ctx, env, id, app, true, 0); err != nil {
		t.Fatal(err)
	}
}

// shardSession is what an identify got: READY's guilds and the
// GUILD_CREATEs that followed (their ids in order, and their bodies), or
// the close code that refused it.
type shardSession struct {
	ready   []snowflake.ID
	creates []snowflake.ID
	bodies  map[snowflake.ID]json.RawMessage
	closed  websocket.StatusCode // -1: not closed
}

// identifyShardOf identifies token's bot on shard [shard, shards] with
// the GUILDS intent, and reads READY and then want GUILD_CREATEs (fewer
// if the gateway closes first).
func identifyShardOf(t *testing.T, url, token string, shard, shards, want int) shardSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1)+"/gateway?v=10&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	defer ws.CloseNow()
	id, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": token, "intents": 1,
		"shard": []int{shard, shards}, "properties": map[string]string{"os": "linux", "browser": "t", "device": "t"}}})
	if err := ws.Write(ctx, websocket.MessageText, id); err != nil {
		t.Fatal(err)
	}
	got := shardSession{closed: -1, bodies: map[snowflake.ID]json.RawMessage{}}
	for got.ready == nil || len(got.creates) < want {
		_, data, err := ws.Read(ctx)
		if code := websocket.CloseStatus(err); code != -1 {
			got.closed = code
			return got
		}
		if err != nil {
			t.Fatalf("shard [%d, %d]: after READY %v and %d GUILD_CREATEs: %v", shard, shards, got.ready,
				len(got.creates), err)
		}
		var f struct {
			T string          `json:"t"`
			D json.RawMessage `json:"d"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("frame %s: %v", data, err)
		}
		switch f.T {
		case "READY":
			var r struct {
				Guilds []struct {
					ID snowflake.ID `json:"id"`
				} `json:"guilds"`
			}
			if err := json.Unmarshal(f.D, &r); err != nil {
				t.Fatalf("READY %s: %v", f.D, err)
			}
			got.ready = []snowflake.ID{}
			for _, g := range r.Guilds {
				got.ready = append(got.ready, g.ID)
			}
		case "GUILD_CREATE":
			var g struct {
				ID snowflake.ID `json:"id"`
			}
			if err := json.Unmarshal(f.D, &g); err != nil {
				t.Fatalf("GUILD_CREATE %s: %v", f.D, err)
			}
			got.creates = append(got.creates, g.ID)
			got.bodies[g.ID] = f.D
		}
	}
	return got
}

// TestIdentifyReadsOnlyItsShard: a bot in 25 guilds identifies shard k
// of 4 through the websocket gateway on a real store. READY lists
// exactly the bot's guilds of shard k, a GUILD_CREATE comes for each of
// them, and the server read no row of any other guild (nor listed all
// the bot's guilds). GuildsPerShard limits the shard's guilds, not the
// bot's: a shard within it identifies, a shard over it (and the bot
// unsharded) is closed with 4011.
func TestIdentifyReadsOnlyItsShard(t *testing.T) {
	t.Parallel()
	const shards, perShard = 4, 6
	e := testenv.New(t, func(c *api.Config) { c.Gateway.GuildsPerShard = perShard })
	ctx := context.Background()
	env := e.Bootstrap()
	appID, owner := mustID(t, e.App.ApplicationID), mustID(t, e.App.OwnerUserID)
	app, err := env.Store.Application(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	// The app's own guild is in shard full, which so holds perShard+1
	// guilds; the test's shard k is the next one, with perShard.
	full := shardOf(mustID(t, e.App.GuildID), shards)
	k := (full + 1) % shards
	base := int64(e.IDs.Next()>>22) - 1_000
	all := []snowflake.ID{mustID(t, e.App.GuildID)}
	for i := range shards * perShard {
		id := guildAt(base + int64(i))
		addBotGuild(t, env, id, owner, app)
		all = append(all, id)
	}
	// In shard k too: a guild the bot left, and one it was never in.
	var left, never snowflake.ID
	for ms := base + shards*perShard; left == 0 || never == 0; ms++ {
		switch id := guildAt(ms); {
		case shardOf(id, shards) != k:
		case left == 0:
			left = id
			addBotGuild(t, env, id, owner, app)
			if err := bootstrap.SyncBot(ctx, env, id, app, false, 0); err != nil {
				t.Fatal(err)
			}
		default:
			never = id
			if err := env.Store.CreateGuild(ctx, store.Guild{ID: id, Name: "never", OwnerID: owner}); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.API.PublishWorldEvents(ctx)
	var want []snowflake.ID
	for _, id := range all {
		if shardOf(id, shards) == k {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	if len(want) != perShard {
		t.Fatalf("shard %d holds %d guilds, want %d: %v", k, len(want), perShard, want)
	}

	// A node whose store records every per-guild read.
	reads := newGuildReads(e.Store)
	node := e.NodeOn(reads)
	reads.reset()
	got := identifyShardOf(t, node.URL, e.Bot(), k, shards, len(want))
	if got.closed != -1 {
		t.Fatalf("shard [%d, %d] of %d guilds: closed %d", k, shards, len(want), got.closed)
	}
	read, readAll := reads.readSoFar()
	if !slices.Equal(got.ready, want) {
		t.Errorf("READY of shard %d lists %v, want %v", k, got.ready, want)
	}
	if slices.Sort(got.creates); !slices.Equal(got.creates, want) {
		t.Errorf("GUILD_CREATEs of shard %d: %v, want %v", k, got.creates, want)
	}
	if !slices.Equal(read, want) {
		t.Errorf("identify of shard %d read guilds %v, want only its own %v (left %d, never in %d)",
			k, read, want, left, never)
	}
	if readAll != 0 {
		t.Errorf("identify of shard %d listed all the bot's guilds %d times", k, readAll)
	}

	// The shard over GuildsPerShard, and the whole bot, are refused.
	for _, s := range [][2]int{{full, shards}, {0, 1}} {
		reads.reset()
		if got := identifyShardOf(t, node.URL, e.Bot(), s[0], s[1], 0); got.closed != 4011 {
			t.Errorf("shard %v with more than %d guilds: READY %v, closed %d; want 4011", s, perShard, got.ready, got.closed)
		}
		if read, _ := reads.readSoFar(); len(read) != 0 {
			t.Errorf("shard %v refused with 4011 read guilds %v first", s, read)
		}
	}
}

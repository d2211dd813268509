package clustertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/clustertest"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

const (
	intentGuildMembers = 1 << 1
	flagGuildMembers   = 1 << 15 // GATEWAY_GUILD_MEMBERS_LIMITED
)

// addMembers makes n users members of the cluster's guild, through node
// 0's store (each write bounded by waitTimeout: thousands of them take a
// while on a loaded machine).
func addMembers(t *testing.T, c *clustertest.Cluster, n int) {
	t.Helper()
	n0 := c.Nodes[0]
	g, err := snowflake.Parse(c.App.GuildID)
	if err != nil {
		t.Fatal(err)
	}
	add := func(i int) error {
		ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
		defer cancel()
		id := n0.IDs.Next()
		if err := n0.Store.CreateUser(ctx, store.User{ID: id, Username: fmt.Sprintf("member%d", i),
			CreatedAt: time.Now()}); err != nil {
			return err
		}
		return n0.Store.PutMember(ctx, guild.Member{GuildID: g, UserID: id, JoinedAt: time.Now()})
	}
	for i := range n {
		if err := add(i); err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
	}
	settle(c) // their GUILD_MEMBER_ADDs go out before a bot connects
}

// TestMemberChunksAcrossNodes: on NATS, the chunks answering a bot's
// member request on node A (one of them too large for one bus message)
// are dispatches of its session on node B too, with the same sequence
// numbers and data, so a resume on B replays them; and the once-per-30 s
// limit on the whole member list holds for the bot across nodes.
func TestMemberChunksAcrossNodes(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 2)
	a, b := c.Nodes[0], c.Nodes[1]
	addMembers(t, c, 1100) // with the owner and the bot: chunks of 1000 and 102
	appID, err := snowflake.Parse(c.App.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.API.Store().SetApplicationFlags(ctxT(t), appID, flagGuildMembers); err != nil {
		t.Fatal(err)
	}

	bot := dial(t, a)
	ready, err := bot.Identify(ctxT(t), c.Bot(), intentGuildMembers)
	if err != nil {
		t.Fatal(err)
	}
	all := jsonObj{"guild_id": c.App.GuildID, "query": "", "limit": 0, "nonce": "all"}
	if err := bot.Send(ctxT(t), 8, all); err != nil {
		t.Fatal(err)
	}
	onA := []clustertest.Frame{bot.dispatch("GUILD_MEMBERS_CHUNK", 2), bot.dispatch("GUILD_MEMBERS_CHUNK", 3)}
	members := 0
	for i, f := range onA {
		var d struct {
			Members    []json.RawMessage `json:"members"`
			ChunkIndex int               `json:"chunk_index"`
			ChunkCount int               `json:"chunk_count"`
			Nonce      string            `json:"nonce"`
		}
		if err := json.Unmarshal(f.D, &d); err != nil {
			t.Fatal(err)
		}
		if d.ChunkIndex != i || d.ChunkCount != 2 || d.Nonce != "all" {
			t.Fatalf("chunk %d: index %d of %d, nonce %q", i, d.ChunkIndex, d.ChunkCount, d.Nonce)
		}
		members += len(d.Members)
	}
	if members != 1102 || len(onA[0].D) <= 256<<10 {
		t.Fatalf("%d members, the first chunk %d bytes: want 1102, the first chunk in pieces on the bus",
			members, len(onA[0].D))
	}

	// Another session of the bot, on B, asks for the whole list again.
	other := dial(t, b)
	if _, err := other.Identify(ctxT(t), c.Bot(), intentGuildMembers); err != nil {
		t.Fatal(err)
	}
	all["nonce"] = "again"
	if err := other.Send(ctxT(t), 8, all); err != nil {
		t.Fatal(err)
	}
	var limited struct {
		Opcode int `json:"opcode"`
		Meta   struct {
			Nonce string `json:"nonce"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(other.dispatch("RATE_LIMITED", 2).D, &limited); err != nil || limited.Opcode != 8 ||
		limited.Meta.Nonce != "again" {
		t.Fatalf("RATE_LIMITED %+v (%v), want opcode 8 and nonce again", limited, err)
	}

	// The bot's connection to A drops; it resumes on B from READY.
	if err := bot.Drop(); err != nil {
		t.Fatal(err)
	}
	bot2 := dial(t, b)
	if err := bot2.Resume(ctxT(t), c.Bot(), ready.SessionID, 1); err != nil {
		t.Fatal(err)
	}
	for i, want := range onA {
		if got := bot2.dispatch("GUILD_MEMBERS_CHUNK", want.Seq()); string(got.D) != string(want.D) {
			t.Fatalf("chunk %d replayed on B differs from A's (%d bytes, want %d)", i, len(got.D), len(want.D))
		}
	}
	bot2.dispatch("RESUMED", 4)
}

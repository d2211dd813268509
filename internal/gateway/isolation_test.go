package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// TestWorldIsolationGateway: a bot of a test world (and one of world 0)
// is told of its own world's guild only (READY, GUILD_CREATE), and gets
// no dispatch caused by activity in another world (messages in a guild
// channel and a DM, a channel created, a member joining), while its own
// world's activity after that reaches it.
func TestWorldIsolationGateway(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	a := e.NewWorldObjects(t, e.NewTestWorld(t, "world-a"), "world-a")
	b := e.NewWorldObjects(t, e.NewTestWorld(t, "world-b"), "world-b")
	zero := e.NewWorldObjects(t, 0, "world-0")

	const intents = 1 | 1<<9 | 1<<12 // GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES
	type session struct {
		c      *client
		own    testenv.WorldObjects
		others []testenv.WorldObjects
	}
	var sessions []session
	for _, s := range []session{{own: a, others: []testenv.WorldObjects{b, zero}}, {own: zero, others: []testenv.WorldObjects{a, b}}} {
		s.c = dial(t, e)
		s.c.hello()
		s.c.send(2, identifyData(s.own.Bot(), intents))
		ready := s.c.ready()
		if len(ready.Guilds) != 1 || ready.Guilds[0].ID != s.own.GuildID {
			t.Fatalf("READY of %s's bot lists guilds %+v, want only %s", s.own.AppID, ready.Guilds, s.own.GuildID)
		}
		var g struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(s.c.dispatch("GUILD_CREATE").D, &g); err != nil || g.ID != s.own.GuildID {
			t.Fatalf("GUILD_CREATE of guild %q (%v), want %s", g.ID, err, s.own.GuildID)
		}
		sessions = append(sessions, s)
	}

	step := func(method, path, auth string, body any, status int) map[string]any {
		t.Helper()
		r := e.Do(method, path, auth, body)
		if r.Status != status {
			t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, status)
		}
		var out map[string]any
		if len(r.Body) > 0 {
			r.JSON(t, &out)
		}
		return out
	}
	// Activity in world B, which no other world's bot may hear of.
	step("POST", "/api/v10/channels/"+b.ChannelID+"/messages", b.Bot(), map[string]any{"content": "b in guild"}, 200)
	step("POST", "/api/v10/channels/"+b.ChannelID+"/messages", b.Client(), map[string]any{"content": "b person"}, 200)
	step("POST", "/api/v10/channels/"+b.DMID+"/messages", b.Client(), map[string]any{"content": "b in DM"}, 200)
	step("POST", "/admin/v1/guilds/"+b.GuildID+"/channels", e.AdminAuth(), map[string]any{"name": "b-new", "type": 0}, 201)
	joiner := step("POST", "/admin/v1/users", e.AdminAuth(),
		map[string]any{"username": "b-joiner", "world_id": b.World.String()}, 201)
	step("PUT", "/admin/v1/guilds/"+b.GuildID+"/members/"+joiner["id"].(string), e.AdminAuth(), nil, 201)

	// Then each world's own activity: its bot must hear of it, and of
	// nothing of another world before it.
	for _, s := range sessions {
		marker := step("POST", "/api/v10/channels/"+s.own.ChannelID+"/messages", s.own.Client(),
			map[string]any{"content": "marker"}, 200)["id"].(string)
		for {
			f := s.c.read()
			if f.Op != 0 {
				continue
			}
			forbidden := []string{joiner["id"].(string)} // of world B, in every session's others
			for _, o := range s.others {
				forbidden = append(forbidden, o.GuildID, o.ChannelID, o.DMID, o.UserID, o.AppID, o.MessageID)
			}
			for _, id := range forbidden {
				if bytes.Contains(f.D, []byte(`"`+id+`"`)) {
					t.Fatalf("bot of %s got a dispatch naming %s of another world: %s", s.own.AppID, id, f)
				}
			}
			var m struct {
				ID string `json:"id"`
			}
			if f.name() == "MESSAGE_CREATE" && json.Unmarshal(f.D, &m) == nil && m.ID == marker {
				break
			}
		}
	}
}

// TestManyWorldsConcurrently: 50 test worlds made at once, each with its
// bot connected on the gateway and its people active at once: no bot is
// told of another world's guild, and none gets a dispatch naming another
// world's object before the last message of its own world, posted after
// every world's activity.
func TestManyWorldsConcurrently(t *testing.T) {
	t.Parallel()
	const n = 50
	e := testenv.New(t)
	worlds := make([]testenv.WorldObjects, n)
	t.Run("create", func(t *testing.T) {
		for i := range worlds {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				worlds[i] = e.NewWorldObjects(t, e.NewTestWorld(t, fmt.Sprintf("w%d", i)), fmt.Sprintf("w%d", i))
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	const intents = 1 | 1<<9 | 1<<12 // GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES
	bots := make([]*client, n)
	for i, w := range worlds {
		bots[i] = dial(t, e)
		bots[i].hello()
		bots[i].send(2, identifyData(w.Bot(), intents))
		if ready := bots[i].ready(); len(ready.Guilds) != 1 || ready.Guilds[0].ID != w.GuildID {
			t.Fatalf("READY of world %d's bot lists %+v, want only %s", i, ready.Guilds, w.GuildID)
		}
		bots[i].dispatch("GUILD_CREATE")
	}
	post := func(t *testing.T, channel, auth, content string) string {
		t.Helper()
		r := e.DoAs(t, "POST", "/api/v10/channels/"+channel+"/messages", auth, map[string]any{"content": content})
		if r.Status != 200 {
			t.Fatalf("POST message: %d %s", r.Status, r.Body)
		}
		var m struct {
			ID string `json:"id"`
		}
		r.JSON(t, &m)
		return m.ID
	}
	t.Run("activity", func(t *testing.T) {
		for i, w := range worlds {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				post(t, w.ChannelID, w.Client(), "in the guild")
				post(t, w.DMID, w.Client(), "in the DM")
				post(t, w.ChannelID, w.Bot(), "the bot")
			})
		}
	})
	owner := map[string]int{} // every world's ids, by world
	for i, w := range worlds {
		for _, id := range []string{w.GuildID, w.ChannelID, w.DMID, w.UserID, w.AppID, w.OwnerID} {
			owner[id] = i
		}
	}
	for i, w := range worlds {
		marker := post(t, w.ChannelID, w.Client(), "marker")
		for {
			f := bots[i].read()
			if f.Op != 0 {
				continue
			}
			var named []string
			collectIDs(f.D, &named)
			for _, id := range named {
				if j, ok := owner[id]; ok && j != i {
					t.Fatalf("world %d's bot got a dispatch naming %s of world %d: %s", i, id, j, f)
				}
			}
			var m struct {
				ID string `json:"id"`
			}
			if f.name() == "MESSAGE_CREATE" && json.Unmarshal(f.D, &m) == nil && m.ID == marker {
				break
			}
		}
	}
}

// collectIDs gathers every string value of a JSON document (ids among
// them).
func collectIDs(raw json.RawMessage, out *[]string) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			*out = append(*out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
}

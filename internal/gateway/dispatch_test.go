package gateway_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// TestDispatch: bus events of the app reach each of its sessions as op 0
// with their data as published and increasing s; other apps' events and
// events that are not dispatched do not.
func TestDispatch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	otherApp, otherGuild := mustID(t, other.ApplicationID), mustID(t, other.GuildID)

	a, b := dial(t, e), dial(t, e)
	a.login(e, 0)
	b.login(e, 0)
	o := dial(t, e)
	o.hello()
	o.send(2, identifyData(other.BotToken, 0))
	o.ready()

	for n := 1; n <= 5; n++ {
		interaction(e, otherApp, otherGuild, 100+n) // only o's
		e.Events.Publish(context.Background(), event.Event{Type: "MESSAGE_CREATE", ApplicationID: app, GuildID: g,
			Data: json.RawMessage(`{"id":"1"}`)}) // not a dispatched type
		interaction(e, app, g, n)
	}
	want := interactionEvent(app, g, 3).Data.(json.RawMessage)
	for _, c := range []*client{a, b} {
		for n := 1; n <= 5; n++ {
			f := c.dispatch("INTERACTION_CREATE")
			if f.seq() != int64(n+1) {
				t.Fatalf("dispatch %d with s %d, want %d (READY is 1)", n, f.seq(), n+1)
			}
			var d struct {
				ID int `json:"id"`
			}
			if err := json.Unmarshal(f.D, &d); err != nil || d.ID != n {
				t.Fatalf("dispatch %s, want the event carrying %d", f, n)
			}
			if n == 3 && string(f.D) != string(want) {
				t.Fatalf("d %s, want the event's data %s", f.D, want)
			}
		}
	}
	for n := 1; n <= 5; n++ {
		if got, _, s := o.interactionN(); got != 100+n || s != int64(n+1) {
			t.Fatalf("other app's session got %d with s %d, want %d with s %d", got, s, 100+n, n+1)
		}
	}
	// Nothing else was queued: a heartbeat is answered next.
	for _, c := range []*client{a, b, o} {
		c.send(1, nil)
		c.expect(11)
	}
}

// TestShardRouting: with two shards a guild's events go only to shard
// (guild_id >> 22) % 2, events without a guild to shard 0, and an
// unsharded session gets all of them; READY and GUILD_CREATE list a
// guild only on its shard.
func TestShardRouting(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	home := int((uint64(g) >> 22) % 2)

	shards := make([]*client, 2)
	for i := range shards {
		c := dial(t, e)
		c.hello()
		d := identifyData(e.Bot(), 1)
		d["shard"] = []int{i, 2}
		c.send(2, d)
		r := c.ready()
		if len(r.Shard) != 2 || r.Shard[0] != i || r.Shard[1] != 2 {
			t.Fatalf("shard %d: READY shard %v", i, r.Shard)
		}
		var listed []string
		for _, gd := range r.Guilds {
			listed = append(listed, gd.ID)
		}
		if i == home {
			if len(listed) != 1 || listed[0] != g.String() {
				t.Fatalf("shard %d READY guilds %v, want [%s]", i, listed, g)
			}
			if f := c.dispatch("GUILD_CREATE"); !jsonHasID(f.D, g.String()) {
				t.Fatalf("shard %d: GUILD_CREATE %s, want guild %s", i, f.D, g)
			}
		} else if len(listed) != 0 {
			t.Fatalf("shard %d READY guilds %v, want none (guild %s is shard %d's)", i, listed, g, home)
		}
		shards[i] = c
	}
	all := dial(t, e)
	all.login(e, 0)

	even, odd := snowflake.ID(1000<<22|12345), snowflake.ID(1001<<22|12345)
	events := []struct {
		guild snowflake.ID
		shard int
	}{{even, 0}, {odd, 1}, {g, home}, {0, 0}, {odd, 1}, {even, 0}}
	for n, ev := range events {
		interaction(e, app, ev.guild, n)
	}
	for i, c := range shards {
		for n, ev := range events {
			if ev.shard != i {
				continue
			}
			got, guild, _ := c.interactionN()
			if got != n || guild != ev.guild.String() {
				t.Fatalf("shard %d got event %d (guild %s), want %d (guild %s)", i, got, guild, n, ev.guild)
			}
		}
		c.send(1, nil)
		c.expect(11) // and no other event
	}
	for n := range events {
		if got, _, _ := all.interactionN(); got != n {
			t.Fatalf("unsharded session got event %d, want %d", got, n)
		}
	}
}

func jsonHasID(data []byte, id string) bool {
	var d struct {
		ID string `json:"id"`
	}
	return json.Unmarshal(data, &d) == nil && d.ID == id
}

// TestPermissionsUpdate: a real PUT of a command's permissions reaches
// the app's session as APPLICATION_COMMAND_PERMISSIONS_UPDATE with the
// list as the API answered it; another app's session does not get it.
func TestPermissionsUpdate(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})

	base := "/api/v10/applications/" + app.String() + "/guilds/" + g.String() + "/commands"
	r := e.Do("POST", base, e.Bot(), map[string]any{"name": "ping", "description": "Ping"})
	if r.Status != 201 {
		t.Fatalf("create command: %d %s", r.Status, r.Body)
	}
	var cmd struct {
		ID string `json:"id"`
	}
	r.JSON(t, &cmd)

	c := dial(t, e)
	c.login(e, 1)
	c.dispatch("GUILD_CREATE")
	o := dial(t, e)
	o.hello()
	o.send(2, identifyData(other.BotToken, 0))
	o.ready()

	body := map[string]any{"permissions": []map[string]any{{"id": g.String(), "type": 1, "permission": false}}}
	r = e.Do("PUT", base+"/"+cmd.ID+"/permissions", e.Owner(), body)
	if r.Status != 200 {
		t.Fatalf("PUT permissions: %d %s", r.Status, r.Body)
	}
	f := c.dispatch("APPLICATION_COMMAND_PERMISSIONS_UPDATE")
	if f.seq() != 3 {
		t.Errorf("s %d, want 3 (after READY and GUILD_CREATE)", f.seq())
	}
	var got, answered any
	if err := json.Unmarshal(f.D, &got); err != nil {
		t.Fatal(err)
	}
	r.JSON(t, &answered)
	gb, _ := json.Marshal(got)
	ab, _ := json.Marshal(answered)
	if string(gb) != string(ab) {
		t.Fatalf("dispatch d %s, want the list the PUT answered %s", gb, ab)
	}
	var d struct {
		ID            string `json:"id"`
		ApplicationID string `json:"application_id"`
		GuildID       string `json:"guild_id"`
		Permissions   []struct {
			ID         string `json:"id"`
			Type       int    `json:"type"`
			Permission bool   `json:"permission"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(f.D, &d); err != nil {
		t.Fatal(err)
	}
	if d.ID != cmd.ID || d.ApplicationID != app.String() || d.GuildID != g.String() || len(d.Permissions) != 1 ||
		d.Permissions[0].ID != g.String() || d.Permissions[0].Type != 1 || d.Permissions[0].Permission {
		t.Fatalf("dispatch d %s", f.D)
	}
	// The other app's session got nothing before its own event.
	interaction(e, mustID(t, other.ApplicationID), mustID(t, other.GuildID), 1)
	if n, _, s := o.interactionN(); n != 1 || s != 2 {
		t.Fatalf("other app's session: event %d with s %d, want its own event with s 2", n, s)
	}
}

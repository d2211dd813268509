package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/testenv"
)

// Intents of the message tests (api-facts §6.4; the others are in
// members_test.go).
const (
	intentGuildMessages  = 1 << 9
	intentDirectMessages = 1 << 12
	intentMessageContent = 1 << 15
)

// adminDo sends an admin API request that must answer 2xx and decodes
// its body into out (when not nil).
func adminDo(t *testing.T, e *testenv.Env, method, path string, body, out any) {
	t.Helper()
	r := e.Do(method, "/admin/v1"+path, e.AdminAuth(), body)
	if r.Status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	if out != nil {
		r.JSON(t, out)
	}
}

// privileged lets the env's first app ask for the privileged intents
// (GATEWAY_GUILD_MEMBERS_LIMITED, GATEWAY_MESSAGE_CONTENT_LIMITED).
func privileged(t *testing.T, e *testenv.Env) {
	t.Helper()
	adminDo(t, e, "PATCH", "/applications/"+appID(t, e).String(), map[string]any{"flags": 1<<15 | 1<<19}, nil)
}

// newUser makes a user and returns its id.
func newUser(t *testing.T, e *testenv.Env, name string) string {
	t.Helper()
	var u struct{ ID string }
	adminDo(t, e, "POST", "/users", map[string]any{"username": name}, &u)
	return u.ID
}

// marker publishes an INTERACTION_CREATE carrying n, which every session
// of the app gets whatever its intents: read after a session's expected
// dispatches, it shows that nothing else came before it.
func marker(t *testing.T, e *testenv.Env, c *client, n int) {
	t.Helper()
	if got, _, _ := c.interactionN(); got != n {
		t.Fatalf("marker %d, want %d", got, n)
	}
}

// TestWorldEventsFollowIntents: world changes made through the admin API
// reach each session of the guild's bot as the dispatches its intents
// ask for (GUILDS: guild, role and channel events; GUILD_MEMBERS: member
// events), with the real shapes, and nothing else.
func TestWorldEventsFollowIntents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	privileged(t, e)
	app, g := appID(t, e), guildID(t, e)
	sessions := []struct {
		intents uint64
		want    []string
	}{
		{0, nil},
		{intentGuilds, []string{"GUILD_ROLE_CREATE", "CHANNEL_CREATE", "GUILD_ROLE_UPDATE", "CHANNEL_DELETE", "GUILD_ROLE_DELETE", "GUILD_UPDATE"}},
		{intentGuildMembers, []string{"GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE"}},
		{intentGuilds | intentGuildMembers, []string{"GUILD_ROLE_CREATE", "GUILD_MEMBER_ADD", "CHANNEL_CREATE", "GUILD_ROLE_UPDATE",
			"GUILD_MEMBER_UPDATE", "CHANNEL_DELETE", "GUILD_ROLE_DELETE", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE", "GUILD_UPDATE"}},
	}
	clients := make([]*client, len(sessions))
	for i, s := range sessions {
		clients[i] = dial(t, e)
		clients[i].login(e, s.intents)
		if s.intents&intentGuilds != 0 {
			clients[i].dispatch("GUILD_CREATE")
		}
	}
	gp := "/guilds/" + g.String()
	alice := newUser(t, e, "alice")
	var role, ch struct{ ID string }
	adminDo(t, e, "POST", gp+"/roles", map[string]any{"name": "mods"}, &role)
	adminDo(t, e, "PUT", gp+"/members/"+alice, map[string]any{"roles": []string{role.ID}, "nick": "Al"}, nil)
	adminDo(t, e, "POST", gp+"/channels", map[string]any{"name": "news", "type": 0}, &ch)
	adminDo(t, e, "PATCH", gp+"/roles/"+role.ID, map[string]any{"name": "moderators"}, nil)
	adminDo(t, e, "PUT", gp+"/members/"+alice, map[string]any{"roles": []string{role.ID}, "nick": "Alice"}, nil)
	adminDo(t, e, "DELETE", gp+"/channels/"+ch.ID, nil, nil)
	adminDo(t, e, "DELETE", gp+"/roles/"+role.ID, nil, nil) // takes the role from alice: a member update
	adminDo(t, e, "DELETE", gp+"/members/"+alice, nil, nil)
	adminDo(t, e, "PATCH", gp, map[string]any{"name": "renamed"}, nil)

	got := map[string]json.RawMessage{}
	all := clients[len(clients)-1]
	for _, name := range sessions[len(sessions)-1].want {
		f := all.dispatch(name)
		if _, seen := got[name]; !seen {
			got[name] = f.D
		}
	}
	interaction(e, app, g, 7) // after every world event on the bus
	for i, s := range sessions {
		c := clients[i]
		if i != len(clients)-1 {
			for _, name := range s.want {
				c.dispatch(name)
			}
		}
		marker(t, e, c, 7)
	}

	// The shapes (docs/compat.md, "World events").
	for name, want := range map[string]string{
		"GUILD_ROLE_CREATE":   `{"guild_id":"` + g.String() + `","role":{"id":"` + role.ID + `","name":"mods"}}`,
		"GUILD_ROLE_UPDATE":   `{"guild_id":"` + g.String() + `","role":{"id":"` + role.ID + `","name":"moderators"}}`,
		"GUILD_ROLE_DELETE":   `{"guild_id":"` + g.String() + `","role_id":"` + role.ID + `"}`,
		"GUILD_MEMBER_ADD":    `{"guild_id":"` + g.String() + `","nick":"Al","roles":["` + role.ID + `"],"user":{"id":"` + alice + `","username":"alice"}}`,
		"GUILD_MEMBER_UPDATE": `{"guild_id":"` + g.String() + `","nick":"Alice","user":{"id":"` + alice + `"}}`,
		"GUILD_MEMBER_REMOVE": `{"guild_id":"` + g.String() + `","user":{"id":"` + alice + `","username":"alice"}}`,
		"CHANNEL_CREATE":      `{"guild_id":"` + g.String() + `","id":"` + ch.ID + `","name":"news","type":0,"permission_overwrites":[]}`,
		"CHANNEL_DELETE":      `{"guild_id":"` + g.String() + `","id":"` + ch.ID + `","name":"news","type":0}`,
		"GUILD_UPDATE":        `{"id":"` + g.String() + `","name":"renamed","features":[],"emojis":[]}`,
	} {
		if !jsonContains(t, got[name], want) {
			t.Errorf("%s: %s, want at least %s", name, got[name], want)
		}
	}
	var ev struct {
		Unavailable *bool `json:"unavailable"`
		JoinedAt    *string
	}
	if err := json.Unmarshal(got["GUILD_UPDATE"], &ev); err != nil || ev.Unavailable != nil {
		t.Errorf("GUILD_UPDATE is the guild object, not GUILD_CREATE's: %s", got["GUILD_UPDATE"])
	}
}

// jsonContains reports whether got holds every key of want with want's
// value (objects compared key by key, recursively).
func jsonContains(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if json.Unmarshal(got, &g) != nil {
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	return contains(g, w)
}

func contains(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		return string(gb) == string(wb)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if gv, present := gm[k]; !present || !contains(gv, v) {
			return false
		}
	}
	return true
}

// TestGuildJoinAndLeave: the bot installed in a guild while connected
// gets its GUILD_CREATE; uninstalled, GUILD_DELETE {"id"} without
// "unavailable" (the bot was removed); the guild's deletion, the same.
// Another app's bot in the guild hears of it as a member (with
// GUILD_MEMBERS).
func TestGuildJoinAndLeave(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	privileged(t, e)
	app := appID(t, e)
	c := dial(t, e)
	c.login(e, intentGuilds|intentGuildMembers)
	c.dispatch("GUILD_CREATE")

	owner := newUser(t, e, "owner")
	for _, end := range []struct {
		name string
		do   func(g string)
	}{
		{"uninstall", func(g string) { adminDo(t, e, "DELETE", "/guilds/"+g+"/installations/"+app.String(), nil, nil) }},
		{"guild deleted", func(g string) { adminDo(t, e, "DELETE", "/guilds/"+g, nil, nil) }},
	} {
		var g struct{ ID string }
		adminDo(t, e, "POST", "/guilds", map[string]any{"name": end.name, "owner_id": owner}, &g)
		adminDo(t, e, "PUT", "/guilds/"+g.ID+"/installations/"+app.String(), map[string]any{"scopes": []string{"bot"}}, nil)
		f := c.dispatch("GUILD_CREATE")
		var gc struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Channels []any  `json:"channels"`
			Members  []struct {
				User struct{ ID string } `json:"user"`
			} `json:"members"`
			JoinedAt    string `json:"joined_at"`
			Unavailable *bool  `json:"unavailable"`
		}
		if err := json.Unmarshal(f.D, &gc); err != nil || gc.ID != g.ID || gc.Name != end.name || gc.JoinedAt == "" ||
			len(gc.Members) != 1 || gc.Members[0].User.ID != app.String() || gc.Channels == nil {
			t.Fatalf("%s: GUILD_CREATE %s", end.name, f.D)
		}
		// A join leaves "unavailable" out: libraries read false as a
		// known guild coming back (discord.py: on_guild_available, not
		// on_guild_join).
		if gc.Unavailable != nil {
			t.Errorf("%s: the join's GUILD_CREATE says unavailable %v, want no unavailable", end.name, *gc.Unavailable)
		}
		end.do(g.ID)
		f = c.dispatch("GUILD_DELETE")
		if string(f.D) != `{"id":"`+g.ID+`"}` {
			t.Errorf("%s: GUILD_DELETE %s, want {\"id\":\"%s\"}", end.name, f.D, g.ID)
		}
	}
	// Nothing else: the managed role's creation and deletion, the bot's
	// own membership, all happened while the bot was not (or no longer)
	// in the guild, or came as the GUILD_CREATE.
	interaction(e, app, 0, 3)
	marker(t, e, c, 3)
}

// TestMessageContent: messages reach the bots that see them with
// GUILD_MESSAGES (guild channels) or DIRECT_MESSAGES (DMs); without
// MESSAGE_CONTENT their content, embeds, attachments and components are
// emptied, except in DMs, in the bot's own messages and in messages
// mentioning the bot. Ephemeral messages reach no bot.
func TestMessageContent(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	privileged(t, e)
	app, g := appID(t, e), guildID(t, e)
	gp := "/guilds/" + g.String()
	var ch struct{ ID string }
	adminDo(t, e, "POST", gp+"/channels", map[string]any{"name": "chat", "type": 0}, &ch)
	alice := newUser(t, e, "alice")
	adminDo(t, e, "PUT", gp+"/members/"+alice, map[string]any{"roles": []string{}}, nil)
	var tok struct{ Token string }
	adminDo(t, e, "POST", "/users/"+alice+"/tokens", map[string]any{"type": "client"}, &tok)
	var dm struct{ ID string }
	adminDo(t, e, "POST", "/users/"+alice+"/channels", map[string]any{"recipient_id": app.String()}, &dm)

	sessions := []uint64{
		intentGuildMessages,
		intentGuildMessages | intentMessageContent,
		intentDirectMessages,
		intentGuilds, // neither: no message
	}
	clients := make([]*client, len(sessions))
	for i, intents := range sessions {
		clients[i] = dial(t, e)
		clients[i].login(e, intents)
		if intents&intentGuilds != 0 {
			clients[i].dispatch("GUILD_CREATE")
		}
	}
	embed := []map[string]any{{"title": "t", "description": "d"}}
	post := func(channel, auth, content string) string {
		t.Helper()
		r := e.Do("POST", "/api/v10/channels/"+channel+"/messages", auth, map[string]any{"content": content, "embeds": embed})
		if r.Status != http.StatusOK {
			t.Fatalf("post %q: %d %s", content, r.Status, r.Body)
		}
		var m struct{ ID string }
		r.JSON(t, &m)
		return m.ID
	}
	type msg struct {
		ID        string            `json:"id"`
		ChannelID string            `json:"channel_id"`
		GuildID   *string           `json:"guild_id"`
		Content   string            `json:"content"`
		Embeds    []json.RawMessage `json:"embeds"`
	}
	read := func(c *client, id, content string, embeds int, guild bool) {
		t.Helper()
		f := c.dispatch("MESSAGE_CREATE")
		var m msg
		if err := json.Unmarshal(f.D, &m); err != nil || m.ID != id || m.Content != content || len(m.Embeds) != embeds ||
			(m.GuildID != nil) != guild || (guild && *m.GuildID != g.String()) {
			t.Fatalf("MESSAGE_CREATE %s, want message %s with content %q and %d embeds (in the guild: %v)", f.D, id, content, embeds, guild)
		}
	}
	hidden, shown := post(ch.ID, tok.Token, "hello"), post(ch.ID, tok.Token, "hey <@"+app.String()+">")
	own := post(ch.ID, e.Bot(), "from the bot")
	inDM := post(dm.ID, tok.Token, "psst")
	// An ephemeral message never goes to a bot, whatever it names.
	e.Events.Publish(context.Background(), event.Event{Type: event.MessageCreate, GuildID: g, Data: event.Message{
		ID: 1, ChannelID: mustID(t, ch.ID), GuildID: g, VisibleTo: mustID(t, alice), AuthorID: app,
		Bots: []snowflake.ID{app}, Body: json.RawMessage(`{"id":"1","content":"secret"}`)}})

	noContent, withContent := clients[0], clients[1]
	read(noContent, hidden, "", 0, true)
	read(noContent, shown, "hey <@"+app.String()+">", 1, true)
	read(noContent, own, "from the bot", 1, true)
	for _, id := range []string{hidden, shown, own} {
		f := withContent.dispatch("MESSAGE_CREATE")
		var m msg
		if json.Unmarshal(f.D, &m) != nil || m.ID != id || m.Content == "" || len(m.Embeds) != 1 {
			t.Fatalf("with MESSAGE_CONTENT: %s, want message %s with its content", f.D, id)
		}
	}
	read(clients[2], inDM, "psst", 1, false)

	// An edit and a deletion, as the API publishes them: MESSAGE_UPDATE
	// emptied like a create, MESSAGE_DELETE {id, channel_id, guild_id}.
	chID := mustID(t, ch.ID)
	edited := event.Message{ID: mustID(t, hidden), ChannelID: chID, GuildID: g, AuthorID: mustID(t, alice),
		Bots: []snowflake.ID{app}, Body: json.RawMessage(`{"id":"` + hidden + `","channel_id":"` + ch.ID +
			`","content":"edited","embeds":[],"attachments":[],"components":[{"type":1,"components":[]}],"poll":{"question":{"text":"q"}}}`)}
	e.Events.Publish(context.Background(), event.Event{Type: event.MessageUpdate, GuildID: g, Data: edited})
	gone := edited
	gone.Body = nil
	e.Events.Publish(context.Background(), event.Event{Type: event.MessageDelete, GuildID: g, Data: gone})
	for i, want := range []string{
		`{"attachments":[],"channel_id":"` + ch.ID + `","components":[],"content":"","embeds":[],"guild_id":"` + g.String() + `","id":"` + hidden + `"}`,
		`{"guild_id":"` + g.String() + `","id":"` + hidden + `","channel_id":"` + ch.ID + `","content":"edited","embeds":[],"attachments":[],"components":[{"type":1,"components":[]}],"poll":{"question":{"text":"q"}}}`,
	} {
		if f := clients[i].dispatch("MESSAGE_UPDATE"); !sameJSON(f.D, want) {
			t.Errorf("session %d: MESSAGE_UPDATE %s, want %s", i, f.D, want)
		}
		want := `{"id":"` + hidden + `","channel_id":"` + ch.ID + `","guild_id":"` + g.String() + `"}`
		if f := clients[i].dispatch("MESSAGE_DELETE"); string(f.D) != want {
			t.Errorf("session %d: MESSAGE_DELETE %s, want %s", i, f.D, want)
		}
	}
	interaction(e, app, 0, 9)
	for _, c := range clients {
		marker(t, e, c, 9)
	}
}

// sameJSON reports whether got and want are the same JSON value.
func sameJSON(got json.RawMessage, want string) bool {
	var g, w any
	if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

// TestIdentifyAfterUnpublishedChanges: a change written around the
// server (as the CLI writes) just before a bot identifies is in its
// GUILD_CREATE and is not dispatched to it again: identify publishes
// the waiting changes before the session starts.
func TestIdentifyAfterUnpublishedChanges(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, g := appID(t, e), guildID(t, e)
	role := e.IDs.Next()
	if err := e.Store.CreateRole(context.Background(), guild.Role{ID: role, GuildID: g, Name: "late"}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, e)
	c.login(e, intentGuilds)
	f := c.dispatch("GUILD_CREATE")
	var gc struct {
		Roles []struct{ ID string } `json:"roles"`
	}
	if err := json.Unmarshal(f.D, &gc); err != nil || !slices.ContainsFunc(gc.Roles, func(r struct{ ID string }) bool {
		return r.ID == role.String()
	}) {
		t.Fatalf("GUILD_CREATE %s lacks the role %s", f.D, role)
	}
	// Once the outbox is empty (had the change waited for the poll, it
	// would now be on the bus), the next event is the marker.
	testenv.WaitFor(t, "the outbox drained", func() bool {
		has, err := e.Store.HasWorldEvents(context.Background())
		return err == nil && !has
	})
	interaction(e, app, g, 4)
	marker(t, e, c, 4) // and no GUILD_ROLE_CREATE before it
}

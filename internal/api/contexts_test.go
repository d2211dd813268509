package api_test

// Where a command is offered and usable (spec §2.6, §2.10; the real
// service's "developing a user-installable app" tutorial): every
// combination of the place (a guild that installed the app, a guild that
// did not, the DM with the app's bot with and without a shared guild,
// a DM with another user, a group DM) × the user's own install × the
// command's integration_types and contexts, through the command picker
// and through invocations, with the payload's context and
// authorizing_integration_owners.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// contextCommand is one global command of the matrix.
type contextCommand struct {
	name     string
	its      []int // integration_types (nil: the app's, [0, 1])
	contexts []int // nil: null
	dmPerm   *bool
}

func contextCommands() []contextCommand {
	f := false
	var out []contextCommand
	for _, its := range [][]int{{0}, {1}, {0, 1}} {
		for _, ctx := range [][]int{nil, {0}, {1}, {2}, {0, 1, 2}} {
			name := "i"
			for _, t := range its {
				name += fmt.Sprint(t)
			}
			name += "-c"
			if ctx == nil {
				name += "null"
			}
			for _, c := range ctx {
				name += fmt.Sprint(c)
			}
			out = append(out, contextCommand{name: name, its: its, contexts: ctx})
		}
	}
	return append(out, contextCommand{name: "i01-cnull-nodm", its: []int{0, 1}, dmPerm: &f})
}

// place is where the matrix's user stands.
type place struct {
	name    string
	channel string
	guild   string // "" outside guilds
	context int    // the interaction context for the app
	// guildInstall: the app's guild installation reaches the place (the
	// guild installed it; the bot's DM with a shared guild).
	guildInstall bool
}

// expectOwners is the documented rule, written out plainly: which
// installations serve cmd at p (the keys of
// authorizing_integration_owners); empty: not offered.
func expectOwners(p place, userInstalled bool, c contextCommand) []string {
	its := c.its
	ctxs := c.contexts
	if ctxs == nil {
		ctxs = []int{0}
		if c.dmPerm == nil || *c.dmPerm {
			ctxs = append(ctxs, 1)
		}
		if slices.Contains(its, 1) {
			ctxs = append(ctxs, 2)
		}
	}
	if !slices.Contains(ctxs, p.context) {
		return nil
	}
	var owners []string
	if p.guildInstall && p.context != 2 && slices.Contains(its, 0) {
		owners = append(owners, "0")
	}
	if userInstalled && slices.Contains(its, 1) {
		owners = append(owners, "1")
	}
	return owners
}

type contextWorld struct {
	*invokeWorld
	cmds   map[string]jsonObj
	places []place
	friend string // a user in the member's DM with them and in the group DM
}

func newContextWorld(t *testing.T, e *testenv.Env, shareGuild bool) *contextWorld {
	t.Helper()
	w := &contextWorld{invokeWorld: newInvokeWorld(t, e), cmds: map[string]jsonObj{}}
	p := v10(e)
	for _, c := range contextCommands() {
		body := jsonObj{"name": c.name, "description": "Matrix " + c.name, "integration_types": c.its}
		if c.contexts != nil {
			body["contexts"] = c.contexts
		}
		if c.dmPerm != nil {
			body["dm_permission"] = *c.dmPerm
		}
		w.cmds[c.name] = create(t, e, p.global(), e.Bot(), body)
	}
	other := adminNewUser(t, e, "friend")
	w.friend = other
	third := adminNewUser(t, e, "third")
	// A guild without the app, where the member also is.
	bare := adminNewGuild(t, e, "no app here", w.owner)
	adminDo(t, e, "PUT", "/guilds/"+bare+"/members/"+w.member, jsonObj{"roles": []string{}}, -1)
	bareChannel := str(adminObj(t, e, "POST", "/guilds/"+bare+"/channels", jsonObj{"name": "lobby", "type": 0}, 201), "id")
	if !shareGuild {
		adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/members/"+w.member, nil, 204)
	}
	botDM := w.openDM(w.member, e.App.ApplicationID)
	friendDM := w.openDM(w.member, other)
	group := e.IDs.Next()
	if err := e.Store.CreateGroupDM(context.Background(), store.PrivateChannel{ID: group, Type: guild.ChannelGroupDM,
		Name: "trio", OwnerID: mustID(t, w.member), Recipients: []snowflake.ID{mustID(t, w.member), mustID(t, other), mustID(t, third)},
		CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if shareGuild {
		w.places = append(w.places, place{name: "guild with the app", channel: w.channel, guild: w.guild, context: 0, guildInstall: true})
	}
	w.places = append(w.places,
		place{name: "guild without the app", channel: bareChannel, guild: bare, context: 0},
		place{name: "DM with the app's bot", channel: botDM, context: 1, guildInstall: shareGuild},
		place{name: "DM with a friend", channel: friendDM, context: 2},
		place{name: "group DM", channel: group.String(), context: 2},
	)
	return w
}

// openDM opens the DM of two users and returns its id.
func (w *contextWorld) openDM(a, b string) string {
	w.t.Helper()
	c, _, err := w.e.Store.OpenDM(context.Background(), store.PrivateChannel{ID: w.e.IDs.Next(), Type: guild.ChannelDM,
		Recipients: []snowflake.ID{mustID(w.t, a), mustID(w.t, b)}, CreatedAt: time.Now()})
	if err != nil {
		w.t.Fatal(err)
	}
	return c.ID.String()
}

// installForUser installs the app to the member's account.
func (w *contextWorld) installForUser() {
	w.t.Helper()
	if err := w.e.Store.InstallForUser(context.Background(), store.UserInstallation{UserID: mustID(w.t, w.member),
		ApplicationID: mustID(w.t, w.app), Scopes: []string{"applications.commands"}, CreatedAt: time.Now()}); err != nil {
		w.t.Fatal(err)
	}
}

// picked is the picker's command names of the app at p.
func (w *contextWorld) picked(p place) []string {
	w.t.Helper()
	r := w.e.Do("GET", "/api/v10/channels/"+p.channel+"/application-command-index", w.client, nil)
	wantStatus(w.t, r, 200)
	var idx struct {
		Commands []jsonObj `json:"application_commands"`
	}
	if err := json.Unmarshal(r.Body, &idx); err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, c := range idx.Commands {
		if str(c, "application_id") == w.app {
			out = append(out, str(c, "name"))
		}
	}
	sort.Strings(out)
	return out
}

// invokeAt runs cmd at p and returns the response.
func (w *contextWorld) invokeAt(p place, cmd jsonObj) testenv.Response {
	body := w.invocation(2, cmd)
	body["channel_id"] = p.channel
	if p.guild == "" {
		delete(body, "guild_id")
	} else {
		body["guild_id"] = p.guild
	}
	return w.invoke(body)
}

func TestContextMatrix(t *testing.T) {
	t.Parallel()
	for _, share := range []bool{true, false} {
		for _, userInstalled := range []bool{false, true} {
			t.Run(fmt.Sprintf("shared guild %v, user install %v", share, userInstalled), func(t *testing.T) {
				t.Parallel()
				e := testenv.New(t)
				w := newContextWorld(t, e, share)
				if userInstalled {
					w.installForUser()
				}
				var raw []byte
				w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
					raw = i.Raw
					return interactions.Message("ok"), nil
				})
				for _, p := range w.places {
					var want []string
					for _, c := range contextCommands() {
						if len(expectOwners(p, userInstalled, c)) > 0 {
							want = append(want, c.name)
						}
					}
					sort.Strings(want)
					if got := w.picked(p); !slices.Equal(got, want) {
						t.Errorf("%s: picker %v, want %v", p.name, got, want)
					}
					for _, c := range contextCommands() {
						owners := expectOwners(p, userInstalled, c)
						raw = nil
						r := w.invokeAt(p, w.cmds[c.name])
						if len(owners) == 0 {
							if r.Status != 403 && r.Status != 404 {
								t.Errorf("%s /%s: %s, want refused", p.name, c.name, describe(r))
							}
							continue
						}
						if r.Status != 200 {
							t.Errorf("%s /%s: %s, want 200", p.name, c.name, describe(r))
							continue
						}
						w.checkPayload(t, p, c.name, raw, owners)
					}
				}
			})
		}
	}
}

// checkPayload checks what the app received for an invocation at p.
func (w *contextWorld) checkPayload(t *testing.T, p place, name string, raw []byte, owners []string) {
	t.Helper()
	var got struct {
		Context  int                        `json:"context"`
		Owners   map[string]string          `json:"authorizing_integration_owners"`
		GuildID  *string                    `json:"guild_id"`
		Member   map[string]json.RawMessage `json:"member"`
		User     map[string]any             `json:"user"`
		Channel  map[string]any             `json:"channel"`
		AppPerms string                     `json:"app_permissions"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s /%s: payload %s: %v", p.name, name, raw, err)
	}
	if got.Context != p.context {
		t.Errorf("%s /%s: context %d, want %d", p.name, name, got.Context, p.context)
	}
	var keys []string
	for k := range got.Owners {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !slices.Equal(keys, owners) {
		t.Errorf("%s /%s: owners %v, want keys %v", p.name, name, got.Owners, owners)
	}
	if v, ok := got.Owners["1"]; ok && v != w.member {
		t.Errorf("%s /%s: USER_INSTALL owner %q, want the user %s", p.name, name, v, w.member)
	}
	if v, ok := got.Owners["0"]; ok {
		wantGuild := p.guild
		if wantGuild == "" {
			wantGuild = "0" // the bot's DM
		}
		if v != wantGuild {
			t.Errorf("%s /%s: GUILD_INSTALL owner %q, want %q", p.name, name, v, wantGuild)
		}
	}
	if str(jsonObj(got.Channel), "id") != p.channel {
		t.Errorf("%s /%s: channel %v", p.name, name, got.Channel)
	}
	if p.guild == "" {
		if got.GuildID != nil || got.Member != nil || got.User == nil {
			t.Errorf("%s /%s: outside guilds want user, no member or guild_id: %s", p.name, name, raw)
		}
		if got.Channel["recipients"] == nil {
			t.Errorf("%s /%s: channel lacks recipients: %v", p.name, name, got.Channel)
		}
		wantPerms := map[int]string{1: "442368", 2: "180224"}[p.context]
		if got.AppPerms != wantPerms {
			t.Errorf("%s /%s: app_permissions %s, want %s", p.name, name, got.AppPerms, wantPerms)
		}
		return
	}
	if got.GuildID == nil || *got.GuildID != p.guild || got.Member == nil || got.User != nil {
		t.Errorf("%s /%s: in a guild want guild_id and member, no user: %s", p.name, name, raw)
	}
}

// Age-restricted commands (spec §2.10): in guilds only in age-restricted
// channels, in the app's DM only for adults, never in other DMs; and
// guild commands never leave their guild.
func TestContextAgeRestrictedAndGuildCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newContextWorld(t, e, true)
	w.installForUser()
	p := v10(e)
	nsfw := create(t, e, p.global(), e.Bot(), jsonObj{"name": "spicy", "description": "Age-restricted",
		"nsfw": true, "integration_types": []int{0, 1}, "contexts": []int{0, 1, 2}})
	local := w.command(jsonObj{"name": "local", "description": "Guild only", "contexts": []int{0, 1, 2}})
	nsfwChannel := w.world.channel(jsonObj{"name": "after-dark", "type": 0, "nsfw": true})
	minor := w.user("kid")
	w.world.member(minor)
	minorClient := w.world.client(minor)
	minorDM := w.openDM(minor, e.App.ApplicationID)
	adultID := w.user("grown", "adult", true)
	w.world.member(adultID)
	adultClient := w.world.client(adultID)
	adultDM := w.openDM(adultID, e.App.ApplicationID)
	friendDM := w.openDM(adultID, w.owner)
	if err := e.Store.InstallForUser(context.Background(), store.UserInstallation{UserID: mustID(t, adultID),
		ApplicationID: mustID(t, w.app), Scopes: []string{"applications.commands"}, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	run := func(client, guild, channel string, cmd jsonObj) int {
		body := w.invocation(2, cmd)
		body["channel_id"] = channel
		if guild == "" {
			delete(body, "guild_id")
		} else {
			body["guild_id"] = guild
		}
		return w.e.Do("POST", "/api/v10/interactions", client, body).Status
	}
	cases := []struct {
		name          string
		client, guild string
		channel       string
		cmd           jsonObj
		want          int
	}{
		{"adult, age-restricted channel", adultClient, w.guild, nsfwChannel, nsfw, 200},
		{"adult, plain channel", adultClient, w.guild, w.channel, nsfw, 403},
		{"minor, age-restricted channel", minorClient, w.guild, nsfwChannel, nsfw, 403},
		{"adult, the app's DM", adultClient, "", adultDM, nsfw, 200},
		{"minor, the app's DM", minorClient, "", minorDM, nsfw, 403},
		{"adult, a DM with a friend (user install)", adultClient, "", friendDM, nsfw, 403},
		{"guild command in its guild", adultClient, w.guild, w.channel, local, 200},
		{"guild command in the app's DM", adultClient, "", adultDM, local, 404},
		{"guild command in a DM with a friend", adultClient, "", friendDM, local, 404},
	}
	for _, c := range cases {
		if got := run(c.client, c.guild, c.channel, c.cmd); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// An app reached only through the user's install (not installed where it
// is used): its answers are ephemeral where the user lacks
// USE_EXTERNAL_APPS, and it may create 5 follow-ups per interaction
// (40094 after); a guild-installed app is limited by neither.
func TestUserInstallOnlyAnswers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newContextWorld(t, e, true)
	w.installForUser()
	var token string
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		token = i.Token
		return interactions.Message("hello"), nil
	})
	bare := w.places[1] // the guild without the app
	if bare.name != "guild without the app" {
		t.Fatalf("places: %+v", w.places)
	}
	run := func(p place, name string) (int, string) {
		t.Helper()
		r := w.invokeAt(p, w.cmds[name])
		wantStatus(t, r, 200)
		var a struct {
			Resource struct {
				Message struct {
					Flags int `json:"flags"`
				} `json:"message"`
			} `json:"resource"`
		}
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		return a.Resource.Message.Flags, token
	}

	got := adminObj(t, e, "GET", accessPath(bare.guild, str(w.cmds["i1-c012"], "id"), w.member, bare.channel), nil, 200)
	if got["allowed"] != true || got["rule"] != "user_install" || fmt.Sprint(got["authorizing_integration_owners"]) != "[1]" {
		t.Errorf("explainer in the guild without the app: %v", got)
	}
	if flags, _ := run(bare, "i1-c012"); flags&64 != 0 {
		t.Errorf("with USE_EXTERNAL_APPS the answer is ephemeral (flags %d)", flags)
	}
	// The guild takes USE_EXTERNAL_APPS (1<<50) from @everyone in the channel.
	adminDo(t, e, "PATCH", "/guilds/"+bare.guild+"/channels/"+bare.channel, jsonObj{"permission_overwrites": []jsonObj{
		{"id": bare.guild, "type": 0, "allow": "0", "deny": "1125899906842624"}}}, 200)
	flags, tok := run(bare, "i1-c012")
	if flags&64 == 0 {
		t.Errorf("without USE_EXTERNAL_APPS the answer is public (flags %d)", flags)
	}
	hook := "/api/v10/webhooks/" + w.app + "/" + tok
	for i := range 5 {
		r := w.e.Do("POST", hook, "", jsonObj{"content": fmt.Sprint("follow-up ", i)})
		wantStatus(t, r, 200)
		if f := int(decodeObj(t, r)["flags"].(float64)); f&64 == 0 {
			t.Errorf("follow-up %d is public (flags %d)", i, f)
		}
	}
	wantError(t, w.e.Do("POST", hook, "", jsonObj{"content": "one too many"}), 400,
		apiError(40094, "This interaction has hit the maximum number of follow up messages"))

	// The guild-installed app in its own guild: no limit, public.
	flags, tok = run(w.places[0], "i0-c012")
	if flags&64 != 0 {
		t.Errorf("guild install: ephemeral answer (flags %d)", flags)
	}
	for i := range 7 {
		wantStatus(t, w.e.Do("POST", "/api/v10/webhooks/"+w.app+"/"+tok, "", jsonObj{"content": fmt.Sprint("more ", i)}), 200)
	}
}

// Components and modals outside guilds: a button on the app's reply in
// the bot's DM, and a modal opened in a group DM through the user's
// install, make interactions in the same place, carrying the owners of
// the command they follow; another participant's click keeps the
// authorizing user.
func TestContextComponentsAndModals(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newContextWorld(t, e, true)
	w.installForUser()
	type seen struct {
		Type    int               `json:"type"`
		Context int               `json:"context"`
		Owners  map[string]string `json:"authorizing_integration_owners"`
		User    struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	var last seen
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		last = seen{}
		_ = json.Unmarshal(i.Raw, &last)
		switch {
		case i.Type == interactions.InteractionApplicationCommand && i.Data.Name == "i01-c012":
			return interactions.Response{Type: 4, Data: jsonObj{"content": "panel", "components": []any{
				jsonObj{"type": 1, "components": []any{jsonObj{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}}}}}}, nil
		case i.Type == interactions.InteractionApplicationCommand:
			return interactions.Response{Type: 9, Data: jsonObj{"custom_id": "fb", "title": "Feedback", "components": []any{
				jsonObj{"type": 1, "components": []any{jsonObj{"type": 4, "custom_id": "text", "label": "Text", "style": 1}}}}}}, nil
		}
		return interactions.Message("thanks"), nil
	})
	botDM, group := w.places[2], w.places[4]
	if botDM.context != 1 || group.name != "group DM" {
		t.Fatalf("places: %+v", w.places)
	}

	// panel runs the button command at p and returns its message's id.
	panel := func(p place) string {
		t.Helper()
		r := w.invokeAt(p, w.cmds["i01-c012"])
		wantStatus(t, r, 200)
		var reply struct {
			Resource struct {
				Message struct {
					ID string `json:"id"`
				} `json:"message"`
			} `json:"resource"`
		}
		r.JSON(t, &reply)
		return reply.Resource.Message.ID
	}
	click := func(client string, p place, msgID string) {
		t.Helper()
		wantStatus(t, w.e.Do("POST", "/api/v10/interactions", client, jsonObj{"type": 3, "application_id": w.app,
			"channel_id": p.channel, "message_id": msgID, "data": jsonObj{"custom_id": "go", "component_type": 2}}), 200)
	}

	msgID := panel(botDM)
	commandOwners := last.Owners
	click(w.client, botDM, msgID)
	if last.Type != 3 || last.Context != 1 || fmt.Sprint(last.Owners) != fmt.Sprint(commandOwners) || last.User.ID != w.member {
		t.Errorf("button in the bot's DM: %+v, want context 1 and the command's owners %v", last, commandOwners)
	}

	// In the group DM a friend without the app clicks the member's panel:
	// the interaction is the friend's, authorized by the member's install.
	msgID = panel(group)
	click(w.world.client(w.friend), group, msgID)
	if last.Type != 3 || last.Context != 2 || fmt.Sprint(last.Owners) != fmt.Sprint(map[string]string{"1": w.member}) ||
		last.User.ID != w.friend {
		t.Errorf("the friend's click in the group DM: %+v, want context 2, owners {1: %s}, user %s", last, w.member, w.friend)
	}

	// A modal in the group DM, through the user's install.
	r := w.invokeAt(group, w.cmds["i1-c012"])
	wantStatus(t, r, 200)
	var shown struct {
		Interaction struct {
			ID string `json:"id"`
		} `json:"interaction"`
	}
	r.JSON(t, &shown)
	r = w.invoke(jsonObj{"type": 5, "application_id": w.app, "channel_id": group.channel, "data": jsonObj{
		"id": shown.Interaction.ID, "custom_id": "fb", "components": []any{
			jsonObj{"type": 1, "components": []any{jsonObj{"type": 4, "custom_id": "text", "value": "great"}}}}}})
	wantStatus(t, r, 200)
	if last.Type != 5 || last.Context != 2 || fmt.Sprint(last.Owners) != fmt.Sprint(map[string]string{"1": w.member}) {
		t.Errorf("modal in the group DM: %+v, want context 2 and owners {1: %s}", last, w.member)
	}
}

// TestExplainPrivateAccess: in each DM and group DM, with and without
// the user's install, the admin explainer allows exactly the commands
// the picker shows, and says why for the others.
func TestExplainPrivateAccess(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newContextWorld(t, e, true)
	for _, installed := range []bool{false, true} {
		if installed {
			w.installForUser()
		}
		for _, p := range w.places {
			if p.guild != "" {
				continue
			}
			shown := map[string]bool{}
			for _, n := range w.picked(p) {
				shown[n] = true
			}
			for name, c := range w.cmds {
				d := adminObj(t, e, "GET", "/private-channels/"+p.channel+"/commands/"+str(c, "id")+"/access?user_id="+w.member, nil, 200)
				if allowed, _ := d["allowed"].(bool); allowed != shown[name] || (!allowed && str(d, "reason") == "") {
					t.Errorf("installed %v, %s, /%s: explainer %v, picker shows it: %v", installed, p.name, name, d, shown[name])
				}
			}
		}
	}
	// A guild channel is the guild explainer's.
	adminDo(t, e, "GET", "/private-channels/"+w.channel+"/commands/"+str(w.cmds[contextCommands()[0].name], "id")+"/access?user_id="+w.member, nil, 404)
}

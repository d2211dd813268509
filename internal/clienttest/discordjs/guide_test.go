// Package discordjs holds the discord.js v14 tests: the discord.js
// guide's deployment scripts and bot (this directory), run with Node
// against slashd with discord.js's default options, the only addition
// being the REST base (`rest: { api }`, `new REST({ api })`). Each test
// names the guide section it mirrors. The Go side plays the bot's users:
// members invoke, type in options, submit modals and click buttons
// through slashd's client API, and read the channel back.
package discordjs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/clienttest/netlink"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// The discord.js guide's code (this directory) and its npm packages,
// which .ci/run installs with `npm ci` here.
const (
	djsBot    = "bot.js"             // the guide's index.js
	djsDeploy = "deploy-commands.js" // "Registering slash commands"
	djsDelete = "delete-commands.js" // "Deleting commands"
)

// TestMain runs the tests where Node and the guide's npm packages are
// installed (.ci/run installs both). Elsewhere it runs none, and `go
// test` says "[no tests to run]" for the package; under CI it fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestDiscordJSInstalled", findDiscordJS,
		"install Node 18.17+ and run `npm ci` in internal/clienttest/discordjs"))
}

// findDiscordJS looks for node and for discord.js installed beside the
// guide's code.
func findDiscordJS() error { return drive.NodePackages("discord.js") }

// TestDiscordJSInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestDiscordJSInstalled(t *testing.T) { testtool.Probe(t, findDiscordJS) }

// djsProc is a running script of this directory: the bot, or a one-shot
// script, which reports as drive's scripts do (report.js), with the
// REST responses discord.js got among its reports.
type djsProc struct{ *drive.Proc }

// startDJS runs script with args against api (slashd's REST base, or a
// proxy in front of it), as e's first app in e's first guild. A wait
// fails on a loginError as on an error.
func startDJS(t *testing.T, e *testenv.Env, api, script string, args ...string) djsProc {
	t.Helper()
	p := drive.StartNode(t, []string{"SLASHD_API=" + api, "SLASHD_BOT_TOKEN=" + e.App.BotToken,
		"SLASHD_CLIENT_ID=" + e.App.ApplicationID, "SLASHD_GUILD_ID=" + e.App.GuildID}, script, args...)
	p.FailOn("loginError")
	return djsProc{p}
}

// startDiscordJS runs the guide's bot against e.
func startDiscordJS(t *testing.T, e *testenv.Env) djsProc {
	t.Helper()
	return startDJS(t, e, e.URL+"/api", djsBot)
}

// runDJS runs a one-shot script to its end and returns what it reported;
// it fails if the script reported an error or exited with one.
func runDJS(t *testing.T, e *testenv.Env, script string, args ...string) djsProc {
	t.Helper()
	p := startDJS(t, e, e.URL+"/api", script, args...)
	p.Stop(t)
	if errs := p.All("error"); len(errs) > 0 {
		t.Fatalf("%s %q: errors %s\nstderr:\n%s", script, args, errs, p.Stderr())
	}
	return p
}

// djsREST is one response @discordjs/rest got (report.js's watchREST).
type djsREST struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Status  int    `json:"status"`
	Retries int    `json:"retries"`
}

func (p djsProc) rest(t *testing.T) []djsREST { return djsDecodeAll[djsREST](t, p, "rest") }

// djsDecodeAll decodes every event named name the bot has printed so far,
// in order.
func djsDecodeAll[T any](t *testing.T, p djsProc, name string) []T {
	t.Helper()
	var out []T
	for _, raw := range p.All(name) {
		var v T
		drive.Decode(t, raw, &v)
		out = append(out, v)
	}
	return out
}

// wantREST checks that discord.js made the request method path (as
// @discordjs/rest routes it: `@` is escaped) and got status.
func (p djsProc) wantREST(t *testing.T, method, path string, status int) {
	t.Helper()
	all := p.rest(t)
	for _, r := range all {
		if r.Method == method && r.Path == path {
			if r.Status != status {
				t.Errorf("%s %s: %d, want %d", method, path, r.Status, status)
			}
			return
		}
	}
	t.Errorf("discord.js made no %s %s; it made %+v", method, path, all)
}

// cleanREST checks that every REST request discord.js made succeeded the
// first time.
func (p djsProc) cleanREST(t *testing.T) {
	t.Helper()
	for _, r := range p.rest(t) {
		if r.Status/100 != 2 || r.Retries != 0 {
			t.Errorf("discord.js: %s %s answered %d (retry %d)", r.Method, r.Path, r.Status, r.Retries)
		}
	}
}

// djsAdmin sends an admin API request and decodes the answer into v
// (unless nil), failing unless the status is want (any 2xx when want is
// -1).
func djsAdmin(t *testing.T, e *testenv.Env, method, path string, body any, want int, v any) {
	t.Helper()
	r := e.Do(method, "/admin/v1"+path, e.AdminAuth(), body)
	if (want < 0 && r.Status/100 != 2) || (want >= 0 && r.Status != want) {
		t.Fatalf("admin %s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	if v != nil {
		r.JSON(t, v)
	}
}

// Privileged intent flags of an application (GATEWAY_GUILD_MEMBERS_LIMITED)
// and the BAN_MEMBERS permission.
const (
	djsFlagGuildMembersLimited = 1 << 15
	djsPermBanMembers          = 1 << 2
)

// djsAllowMembersIntent turns on the app's Server Members Intent, as a
// developer does in the portal ("Gateway Intents": privileged intents),
// so that the bot may ask for GatewayIntentBits.GuildMembers.
func djsAllowMembersIntent(t *testing.T, e *testenv.Env) {
	t.Helper()
	djsAdmin(t, e, "PATCH", "/applications/"+e.App.ApplicationID, map[string]any{"flags": djsFlagGuildMembersLimited}, 200, nil)
}

// djsWorld is the guide's development guild: #general, alice (a
// moderator, with BAN_MEMBERS) and bob, both with client tokens, and an
// app allowed the members intent.
type djsWorld struct {
	e         *testenv.Env
	app       string
	guild     string
	channel   string // #general
	member    string // alice's user id
	client    string // alice's client token (sent bare)
	bob       string // user id
	bobClient string // bob's client token
}

func newDJSWorld(t *testing.T, e *testenv.Env) *djsWorld {
	t.Helper()
	w := newDJSGuild(t, e)
	mods := djsAdminID(t, e, "POST", "/guilds/"+w.guild+"/roles",
		map[string]any{"name": "moderators", "permissions": fmt.Sprint(djsPermBanMembers)}, "id")
	djsAdmin(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.member, map[string]any{"roles": []string{mods}}, -1, nil)
	w.bob = djsAdminID(t, e, "POST", "/users", map[string]any{"username": "bob"}, "id")
	djsAdmin(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.bob, map[string]any{"roles": []string{}}, -1, nil)
	w.bobClient = djsAdminID(t, e, "POST", "/users/"+w.bob+"/tokens", map[string]any{"type": "client"}, "token")
	djsAllowMembersIntent(t, e)
	return w
}

// newDJSGuild is the app's guild with #general and alice, a plain member
// (no bob, no roles, no members intent yet).
func newDJSGuild(t *testing.T, e *testenv.Env) *djsWorld {
	t.Helper()
	w := &djsWorld{e: e, app: e.App.ApplicationID, guild: e.App.GuildID}
	w.channel = djsAdminID(t, e, "POST", "/guilds/"+w.guild+"/channels", map[string]any{"name": "general", "type": 0}, "id")
	w.member = djsAdminID(t, e, "POST", "/users", map[string]any{"username": "alice"}, "id")
	djsAdmin(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.member, map[string]any{"roles": []string{}}, -1, nil)
	w.client = djsAdminID(t, e, "POST", "/users/"+w.member+"/tokens", map[string]any{"type": "client"}, "token")
	return w
}

// djsAdminID sends an admin API request that must answer 201 and returns
// the string field key of its body.
func djsAdminID(t *testing.T, e *testenv.Env, method, path string, body any, key string) string {
	t.Helper()
	var m map[string]any
	djsAdmin(t, e, method, path, body, http.StatusCreated, &m)
	s, _ := m[key].(string)
	if s == "" {
		t.Fatalf("%s %s: no %q in %v", method, path, key, m)
	}
	return s
}

// djsPermissionsBody is a PUT body of one user overwrite.
func djsPermissionsBody(user string, allow bool) map[string]any {
	return map[string]any{"permissions": []map[string]any{{"id": user, "type": 2, "permission": allow}}}
}

// djsCommand is an application command as the API returns it.
type djsCommand struct {
	ID                       string      `json:"id"`
	ApplicationID            string      `json:"application_id"`
	GuildID                  string      `json:"guild_id"`
	Name                     string      `json:"name"`
	Type                     int         `json:"type"`
	Description              string      `json:"description"`
	Version                  string      `json:"version"`
	DefaultMemberPermissions *string     `json:"default_member_permissions"`
	Contexts                 []int       `json:"contexts"`
	IntegrationTypes         []int       `json:"integration_types"`
	Options                  []djsOption `json:"options"`
}

type djsOption struct {
	Type         int         `json:"type"`
	Name         string      `json:"name"`
	Required     bool        `json:"required"`
	Autocomplete bool        `json:"autocomplete"`
	Choices      []djsChoice `json:"choices"`
	Options      []djsOption `json:"options"`
}

type djsChoice struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// byName indexes commands by name.
func byName(cmds []djsCommand) map[string]djsCommand {
	out := map[string]djsCommand{}
	for _, c := range cmds {
		out[c.Name] = c
	}
	return out
}

// djsGuideCommands are the names of the guide's commands in
// commands/, which the deployment script registers.
var djsGuideCommands = []string{"anywhere", "ban", "defer", "delete", "dm-me", "echo", "edit", "fetch", "followup", "gif", "guide", "info", "member",
	"Message Information", "modal", "ping", "secret", "server", "user", "User Information", "vote", "whois"}

// commands lists the app's commands in scope (global when guild is "")
// as slashd stores them.
func (w *djsWorld) commands(t *testing.T, guild string) []djsCommand {
	t.Helper()
	path := "/api/v10/applications/" + w.app + "/commands"
	if guild != "" {
		path = "/api/v10/applications/" + w.app + "/guilds/" + guild + "/commands"
	}
	r := w.e.Do("GET", path, w.e.Bot(), nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var cmds []djsCommand
	r.JSON(t, &cmds)
	return cmds
}

// djsMessage is a message as slashd returns it.
type djsMessage struct {
	ID              string  `json:"id"`
	ChannelID       string  `json:"channel_id"`
	Content         string  `json:"content"`
	Flags           int     `json:"flags"`
	EditedTimestamp *string `json:"edited_timestamp"`
	Author          struct {
		ID string `json:"id"`
	} `json:"author"`
	InteractionMetadata *struct {
		ID string `json:"id"`
	} `json:"interaction_metadata"`
	Components []struct {
		Type       int `json:"type"`
		Components []struct {
			Type     int    `json:"type"`
			CustomID string `json:"custom_id"`
			Label    string `json:"label"`
			Style    int    `json:"style"`
		} `json:"components"`
	} `json:"components"`
}

// djsAnswer is what an invocation returns: the interaction and the app's
// answer (the body of a callback's ?with_response=true).
type djsAnswer struct {
	Interaction struct {
		ID                       string `json:"id"`
		Type                     int    `json:"type"`
		ResponseMessageID        string `json:"response_message_id"`
		ResponseMessageEphemeral bool   `json:"response_message_ephemeral"`
	} `json:"interaction"`
	Resource struct {
		Type    int         `json:"type"`
		Message *djsMessage `json:"message"`
		Choices []djsChoice `json:"choices"`
		Modal   *struct {
			CustomID   string `json:"custom_id"`
			Title      string `json:"title"`
			Components []struct {
				Components []struct {
					Type     int    `json:"type"`
					CustomID string `json:"custom_id"`
					Label    string `json:"label"`
					Style    int    `json:"style"`
				} `json:"components"`
			} `json:"components"`
		} `json:"modal"`
	} `json:"resource"`
}

// invokeAs sends an invocation as the user of client and returns the
// app's answer; it must be 200.
func (w *djsWorld) invokeAs(t *testing.T, client string, body map[string]any) djsAnswer {
	t.Helper()
	r := w.e.Do("POST", "/api/v10/interactions", client, body)
	if r.Status != 200 {
		t.Fatalf("invoke %v: %d %s", body, r.Status, r.Body)
	}
	var a djsAnswer
	r.JSON(t, &a)
	return a
}

// invokeLater sends an invocation as alice in the background (it waits
// for the app's answer); the outcome arrives on the channel.
func (w *djsWorld) invokeLater(body map[string]any) <-chan djsInvoked {
	out := make(chan djsInvoked, 1)
	go func() {
		enc, err := json.Marshal(body)
		if err != nil {
			out <- djsInvoked{err: err}
			return
		}
		req, err := http.NewRequest("POST", w.e.URL+"/api/v10/interactions", bytes.NewReader(enc))
		if err != nil {
			out <- djsInvoked{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", w.client)
		resp, err := w.e.Server.Client().Do(req)
		if err != nil {
			out <- djsInvoked{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		out <- djsInvoked{status: resp.StatusCode, body: b, err: err}
	}()
	return out
}

// djsInvoked is the end of an invocation sent with invokeLater.
type djsInvoked struct {
	status int
	body   []byte
	err    error
}

// answerOf waits for an invocation sent with invokeLater, which must end
// 200, and returns the app's answer.
func (w *djsWorld) answerOf(t *testing.T, done <-chan djsInvoked) djsAnswer {
	t.Helper()
	var r djsInvoked
	select {
	case r = <-done:
	case <-time.After(drive.Wait):
		t.Fatal("the invocation did not end")
	}
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("invoke: %d %s %v", r.status, r.body, r.err)
	}
	var a djsAnswer
	drive.Decode(t, r.body, &a)
	return a
}

// awaitBusInteraction returns once an INTERACTION_CREATE of the app is on
// the event bus (events must be subscribed before the invocation starts).
func (w *djsWorld) awaitBusInteraction(t *testing.T, events <-chan event.Event, done <-chan djsInvoked) {
	t.Helper()
	timeout := time.After(drive.Wait)
	for {
		select {
		case ev := <-events:
			if ev.Type == event.InteractionCreate && ev.ApplicationID.String() == w.app {
				return
			}
		case r := <-done:
			t.Fatalf("the invocation ended before it was published: %d %s %v", r.status, r.body, r.err)
		case <-timeout:
			t.Fatal("no INTERACTION_CREATE on the event bus")
		}
	}
}

// run invokes cmd as alice (type 2, or 4 for an autocomplete) with data
// fields added to the command's.
func (w *djsWorld) run(t *testing.T, typ int, cmd djsCommand, data map[string]any) djsAnswer {
	t.Helper()
	if cmd.ID == "" {
		t.Fatalf("no such command deployed")
	}
	d := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version}
	for k, v := range data {
		d[k] = v
	}
	return w.invokeAs(t, w.client, map[string]any{"type": typ, "application_id": w.app, "guild_id": w.guild,
		"channel_id": w.channel, "data": d})
}

// message checks that the answer is a new message (type 4) and returns it.
func (a djsAnswer) message(t *testing.T) djsMessage {
	t.Helper()
	if a.Resource.Type != 4 || a.Resource.Message == nil || a.Interaction.ResponseMessageID != a.Resource.Message.ID {
		t.Fatalf("answer: %+v, want a message (type 4)", a)
	}
	return *a.Resource.Message
}

// messages lists the channel as the user of client sees it.
func (w *djsWorld) messages(t *testing.T, client string) []djsMessage {
	t.Helper()
	r := w.e.Do("GET", "/api/v10/channels/"+w.channel+"/messages", client, nil)
	if r.Status != 200 {
		t.Fatalf("list messages: %d %s", r.Status, r.Body)
	}
	var msgs []djsMessage
	r.JSON(t, &msgs)
	return msgs
}

// seen returns message id as the user of client sees it, or nil.
func (w *djsWorld) seen(t *testing.T, client, id string) *djsMessage {
	t.Helper()
	for _, m := range w.messages(t, client) {
		if m.ID == id {
			return &m
		}
	}
	return nil
}

// djsReported is an interaction as a command reported it (report.js's
// interaction()).
type djsReported struct {
	ID          string `json:"id"`
	Type        int    `json:"type"`
	CommandName string `json:"commandName"`
	CommandID   string `json:"commandId"`
	CommandType int    `json:"commandType"`
	CustomID    string `json:"customId"`
	GuildID     string `json:"guildId"`
	ChannelID   string `json:"channelId"`
	ChannelName string `json:"channelName"`
	UserID      string `json:"userId"`
	Username    string `json:"username"`
	MemberID    string `json:"memberId"`
	Locale      string `json:"locale"`
}

// djsReportedMessage is a message as discord.js built it (report.js's
// message()).
type djsReportedMessage struct {
	ID                  string   `json:"id"`
	ChannelID           string   `json:"channelId"`
	Content             string   `json:"content"`
	AuthorID            string   `json:"authorId"`
	Flags               int      `json:"flags"`
	EditedTimestamp     *float64 `json:"editedTimestamp"`
	Components          int      `json:"components"`
	WebhookID           string   `json:"webhookId"`
	ApplicationID       string   `json:"applicationId"`
	InteractionMetadata *struct {
		ID     string `json:"id"`
		Type   int    `json:"type"`
		UserID string `json:"userId"`
	} `json:"interactionMetadata"`
}

// fromInteraction checks that discord.js read m as the app's answer to
// interaction id, invoked by user.
func (m djsReportedMessage) fromInteraction(t *testing.T, app, id, user string) {
	t.Helper()
	if md := m.InteractionMetadata; m.AuthorID != app || m.WebhookID != app || m.ApplicationID != app || md == nil ||
		md.ID != id || md.Type != 2 || md.UserID != user {
		t.Errorf("message %s as discord.js read it: %+v (metadata %+v), want the answer of app %s to interaction %s by %s",
			m.ID, m, md, app, id, user)
	}
}

// TestDiscordJSDeploy runs the guide's deployment script ("Creating your
// bot: Registering slash commands") and its "Deleting commands" scripts:
// the commands the builders make (options, an autocomplete option,
// choices, subcommands, default member permissions, contexts, user and
// message context menus) are stored as sent, a second run changes
// nothing, and deletes of one command (204) and of all (PUT []) work, in
// a guild and globally.
func TestDiscordJSDeploy(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := &djsWorld{e: e, app: e.App.ApplicationID, guild: e.App.GuildID}

	for _, scope := range []struct {
		section string
		arg     string // deploy-commands.js's argument
		guild   string // the scope's guild ("" global)
	}{
		{"command-deployment#guild-commands", "", w.guild},
		{"command-deployment#global-commands", "global", ""},
	} {
		t.Run(scope.section, func(t *testing.T) {
			var args []string
			if scope.arg != "" {
				args = append(args, scope.arg)
			}
			var deployed struct {
				Commands []djsCommand `json:"commands"`
			}
			runDJS(t, e, djsDeploy, args...).Wait(t, "deployed", nil, &deployed)
			stored := w.commands(t, scope.guild)
			checkGuideCommands(t, deployed.Commands, stored, scope.guild)

			// The guide: run it again whenever the definitions change.
			// They did not: same ids, same versions.
			runDJS(t, e, djsDeploy, args...).Wait(t, "deployed", nil, &deployed)
			again := byName(w.commands(t, scope.guild))
			for _, c := range stored {
				if a := again[c.Name]; a.ID != c.ID || a.Version != c.Version {
					t.Errorf("redeployed %q: id %s version %s, was %s %s", c.Name, a.ID, a.Version, c.ID, c.Version)
				}
			}

			deleteScope := "guild"
			if scope.guild == "" {
				deleteScope = "global"
			}
			t.Run("deleting-commands#deleting-specific-commands", func(t *testing.T) {
				ping := byName(stored)["ping"]
				var deleted struct {
					Result struct {
						Bytes *int `json:"bytes"`
					} `json:"result"`
				}
				p := runDJS(t, e, djsDelete, deleteScope, ping.ID)
				p.Wait(t, "deleted", nil, &deleted)
				if deleted.Result.Bytes == nil || *deleted.Result.Bytes != 0 {
					t.Errorf("rest.delete resolved to %s, want the empty body of a 204", p.All("deleted"))
				}
				path := "/applications/" + w.app + "/commands/" + ping.ID
				if scope.guild != "" {
					path = "/applications/" + w.app + "/guilds/" + w.guild + "/commands/" + ping.ID
				}
				p.wantREST(t, "DELETE", path, 204)
				left := byName(w.commands(t, scope.guild))
				if _, ok := left["ping"]; ok || len(left) != len(stored)-1 {
					t.Errorf("after deleting ping: %v", left)
				}
			})
			t.Run("deleting-commands#deleting-all-commands", func(t *testing.T) {
				var deleted struct {
					Result []djsCommand `json:"result"`
				}
				runDJS(t, e, djsDelete, deleteScope, "all").Wait(t, "deleted", nil, &deleted)
				if deleted.Result == nil || len(deleted.Result) != 0 {
					t.Errorf("PUT [] answered %v, want []", deleted.Result)
				}
				if left := w.commands(t, scope.guild); len(left) != 0 {
					t.Errorf("after deleting all: %v", left)
				}
			})
		})
	}
}

// checkGuideCommands checks the deployment script's answer and slashd's
// list against the guide's commands.
func checkGuideCommands(t *testing.T, deployed, stored []djsCommand, guild string) {
	t.Helper()
	var names []string
	for _, c := range stored {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	want := slices.Clone(djsGuideCommands)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("stored commands %q, want %q", names, want)
	}
	dep := byName(deployed)
	for _, c := range stored {
		if d := dep[c.Name]; d.ID != c.ID || d.Version != c.Version || d.GuildID != guild {
			t.Errorf("%q: deploy answered %+v, slashd lists %+v (guild %q)", c.Name, d, c, guild)
		}
	}
	cmds := byName(stored)
	if o := cmds["guide"].Options; len(o) != 1 || o[0].Name != "query" || o[0].Type != 3 || !o[0].Autocomplete || o[0].Required {
		t.Errorf("guide: options %+v, want an optional autocomplete string query", o)
	}
	if o := cmds["gif"].Options; len(o) != 1 || !o[0].Required || len(o[0].Choices) != 3 ||
		o[0].Choices[1] != (djsChoice{Name: "Meme", Value: "gif_meme"}) {
		t.Errorf("gif: options %+v, want a required category of three choices", o)
	}
	if o := cmds["info"].Options; len(o) != 2 || o[0].Type != 1 || o[0].Name != "user" || len(o[0].Options) != 1 ||
		o[0].Options[0].Type != 6 || o[1].Type != 1 || o[1].Name != "server" || len(o[1].Options) != 0 {
		t.Errorf("info: options %+v, want subcommands user (target) and server", o)
	}
	ban := cmds["ban"]
	if ban.DefaultMemberPermissions == nil || *ban.DefaultMemberPermissions != fmt.Sprint(djsPermBanMembers) ||
		!slices.Equal(ban.Contexts, []int{0}) || len(ban.Options) != 2 || !ban.Options[0].Required || ban.Options[1].Required {
		t.Errorf("ban: %+v, want BAN_MEMBERS by default, guild context only, a required target and a reason", ban)
	}
	if a := cmds["anywhere"]; !slices.Equal(a.IntegrationTypes, []int{0, 1}) || !slices.Equal(a.Contexts, []int{0, 1, 2}) {
		t.Errorf("anywhere: integration_types %v contexts %v, want [0 1] and [0 1 2]", a.IntegrationTypes, a.Contexts)
	}
	for name, typ := range map[string]int{"User Information": 2, "Message Information": 3, "ping": 1} {
		if c := cmds[name]; c.Type != typ || (typ != 1 && c.Description != "") {
			t.Errorf("%q: type %d description %q, want type %d", name, c.Type, c.Description, typ)
		}
	}
}

// TestDiscordJSGuide runs the guide's bot: the guide's commands, deployed
// globally by its script, answered from interactionCreate through each
// response method the guide shows, with autocomplete, a modal, a button
// collected with awaitMessageComponent, and context menus; then the
// managers a bot uses beyond the guide; and the gateway connection with
// its events. Subtests name the guide's page and section.
func TestDiscordJSGuide(t *testing.T) {
	t.Parallel()
	// A 2 s heartbeat interval (the real one is 41.25 s) so that discord.js
	// heartbeats during the test; the server closes a connection silent
	// for 3 s.
	e := testenv.New(t, func(c *api.Config) { c.Gateway.HeartbeatInterval = 2 * time.Second })
	w := newDJSWorld(t, e)
	var deployed struct {
		Commands []djsCommand `json:"commands"`
	}
	runDJS(t, e, djsDeploy, "global").Wait(t, "deployed", nil, &deployed)
	cmds := byName(deployed.Commands)

	g := &djsGuide{djsWorld: w, bot: startDiscordJS(t, e), cmds: cmds}
	for _, section := range []struct {
		name string // the guide's page#section, or the discord.js documentation
		run  func(t *testing.T)
	}{
		{"creating-your-bot/main-file", g.mainFile},
		{"creating-your-bot/slash-commands#individual-command-files/ping", g.ping},
		{"creating-your-bot/slash-commands#individual-command-files/user", g.user},
		{"creating-your-bot/slash-commands#individual-command-files/server", g.server},
		{"slash-commands/response-methods#ephemeral-responses", g.ephemeralResponses},
		{"slash-commands/response-methods#editing-responses", g.editingResponses},
		{"slash-commands/response-methods#deferred-responses", g.deferredResponses},
		{"slash-commands/response-methods#follow-ups", g.followUps},
		{"slash-commands/response-methods#fetching-and-deleting-responses", g.fetchingAndDeletingResponses},
		{"slash-commands/advanced-creation#required-options", g.requiredOptions},
		{"slash-commands/advanced-creation#choices", g.choices},
		{"slash-commands/advanced-creation#subcommands", g.subcommands},
		{"slash-commands/autocomplete#sending-results", g.autocompleteResults},
		{"interactions/modals", g.modals},
		{"interactive-components/interactions#awaiting-components", g.awaitingComponents},
		{"interactions/context-menus", g.contextMenus},
		{"discord.js/GuildApplicationCommandManager", g.guildCommandManager},
		{"discord.js/ClientApplication#fetch", g.applicationFetch},
		{"discord.js/ApplicationCommandPermissionsManager#fetch", g.permissionsFetch},
		{"discord.js/GuildMemberManager#fetch", g.membersFetch},
		{"gateway", g.gateway},
	} {
		t.Run(section.name, section.run)
	}

	// Nothing went wrong anywhere: no error reported, every REST request
	// answered 2xx the first time.
	if errs := g.bot.All("error"); len(errs) != 0 {
		t.Errorf("discord.js reported errors: %s", errs)
	}
	g.bot.cleanREST(t)

	// Closing stdin: client.destroy() closes the websocket with 1000, which
	// ends the session.
	g.bot.Stop(t)
	testenv.WaitFor(t, "no gateway session after client.destroy()", func() bool { return g.e.API.Gateway().Sessions() == 0 })
}

// djsGuide is TestDiscordJSGuide's world: the guild, the guide's bot
// running in it, and the guide's commands, deployed globally, by name.
type djsGuide struct {
	*djsWorld
	bot  djsProc
	cmds map[string]djsCommand
}

// mainFile: "Creating the main file". ready comes once the GUILD_CREATE
// of the guild READY lists has come: the bot user and application from
// READY, the guild (no longer unavailable) and its channel.
func (g *djsGuide) mainFile(t *testing.T) {
	type channel struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	var ready struct {
		User struct {
			ID  string `json:"id"`
			Bot bool   `json:"bot"`
		} `json:"user"`
		Application string `json:"application"`
		Guilds      []struct {
			ID        string    `json:"id"`
			Available bool      `json:"available"`
			Me        string    `json:"me"`
			Channels  []channel `json:"channels"`
		} `json:"guilds"`
	}
	g.bot.Wait(t, "ready", nil, &ready)
	if ready.User.ID != g.app || !ready.User.Bot || ready.Application != g.app {
		t.Errorf("ready: user %+v application %q, want the bot %s", ready.User, ready.Application, g.app)
	}
	if len(ready.Guilds) != 1 || ready.Guilds[0].ID != g.guild || !ready.Guilds[0].Available || ready.Guilds[0].Me != g.app {
		t.Fatalf("ready: guilds %+v, want %s available with the bot as member", ready.Guilds, g.guild)
	}
	if !slices.Contains(ready.Guilds[0].Channels, channel{ID: g.channel, Name: "general"}) {
		t.Errorf("ready: guild channels %+v lack #general %s", ready.Guilds[0].Channels, g.channel)
	}
	if got := g.e.API.Gateway().Sessions(); got != 1 {
		t.Errorf("gateway sessions after ready: %d, want 1", got)
	}
}

// ping: "Creating slash commands", commands/utility/ping.js. A default
// reply() asks for no response (?with_response=false): slashd answers the
// callback 204 with no body, which @discordjs/rest must not parse.
func (g *djsGuide) ping(t *testing.T) {
	a := g.run(t, 2, g.cmds["ping"], nil)
	msg := a.message(t)
	if msg.Content != "Pong!" || msg.Author.ID != g.app || msg.ChannelID != g.channel || msg.Flags != 0 {
		t.Errorf("ping answered %+v", msg)
	}
	var got struct {
		djsReported
		Replied bool `json:"replied"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.CommandName != "ping" || got.CommandID != g.cmds["ping"].ID || got.CommandType != 1 || got.GuildID != g.guild ||
		got.ChannelID != g.channel || got.ChannelName != "general" || got.UserID != g.member || got.Username != "alice" ||
		got.MemberID != g.member || !got.Replied {
		t.Errorf("the interaction as discord.js saw it: %+v", got)
	}
	g.wantCallback(t, a.Interaction.ID, 204)
	if m := g.seen(t, g.client, msg.ID); m == nil || m.Content != "Pong!" {
		t.Errorf("alice sees %+v, want the reply", m)
	}
}

// user: "Creating slash commands", commands/utility/user.js, which reads
// interaction.member.joinedAt.
func (g *djsGuide) user(t *testing.T) {
	a := g.run(t, 2, g.cmds["user"], nil)
	msg := a.message(t)
	var got struct {
		JoinedAt string `json:"joinedAt"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	var member struct {
		JoinedAt time.Time `json:"joined_at"`
	}
	djsAdmin(t, g.e, "GET", "/guilds/"+g.guild+"/members/"+g.member, nil, 200, &member)
	joined, err := time.Parse(time.RFC3339Nano, got.JoinedAt)
	if err != nil || !joined.Equal(member.JoinedAt.Truncate(time.Millisecond)) {
		t.Errorf("interaction.member.joinedAt %q, want %v", got.JoinedAt, member.JoinedAt)
	}
	if !strings.HasPrefix(msg.Content, "This command was run by alice, who joined on ") || strings.Contains(msg.Content, "null") {
		t.Errorf("user answered %q", msg.Content)
	}
}

// server: "Creating slash commands", commands/utility/server.js, which
// reads interaction.guild's name and memberCount from GUILD_CREATE.
func (g *djsGuide) server(t *testing.T) {
	a := g.run(t, 2, g.cmds["server"], nil)
	msg := a.message(t)
	var guild struct {
		Name    string `json:"name"`
		Members []any  `json:"members"`
	}
	djsAdmin(t, g.e, "GET", "/guilds/"+g.guild, nil, 200, &guild)
	if want := fmt.Sprintf("This server is %s and has %d members.", guild.Name, len(guild.Members)); msg.Content != want {
		t.Errorf("server answered %q, want %q", msg.Content, want)
	}
}

// ephemeralResponses: "Command response methods: ephemeral responses"
// (flags: MessageFlags.Ephemeral): only the invoker sees the reply.
func (g *djsGuide) ephemeralResponses(t *testing.T) {
	a := g.run(t, 2, g.cmds["secret"], nil)
	msg := a.message(t)
	if msg.Content != "Secret Pong!" || msg.Flags != 64 || !a.Interaction.ResponseMessageEphemeral {
		t.Errorf("secret answered %+v (ephemeral %v), want an ephemeral message", msg, a.Interaction.ResponseMessageEphemeral)
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
	if g.seen(t, g.client, msg.ID) == nil {
		t.Error("alice does not see her ephemeral reply")
	}
	if g.seen(t, g.bobClient, msg.ID) != nil {
		t.Error("bob sees alice's ephemeral reply")
	}
}

// editingResponses: "Command response methods: editing responses"
// (reply, then editReply).
func (g *djsGuide) editingResponses(t *testing.T) {
	a := g.run(t, 2, g.cmds["edit"], nil)
	msg := a.message(t)
	if msg.Content != "Pong!" {
		t.Errorf("edit answered %q", msg.Content)
	}
	var got struct {
		Edited djsReportedMessage `json:"edited"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Edited.ID != msg.ID || got.Edited.Content != "Pong again!" || got.Edited.EditedTimestamp == nil {
		t.Errorf("editReply resolved to %+v", got.Edited)
	}
	got.Edited.fromInteraction(t, g.app, a.Interaction.ID, g.member)
	if m := g.seen(t, g.client, msg.ID); m == nil || m.Content != "Pong again!" || m.EditedTimestamp == nil {
		t.Errorf("alice sees %+v, want the edited reply", m)
	}
}

// deferredResponses: "Command response methods: deferred responses"
// (deferReply, then editReply fills the deferred message in).
func (g *djsGuide) deferredResponses(t *testing.T) {
	a := g.run(t, 2, g.cmds["defer"], nil)
	if a.Resource.Type != 5 || a.Resource.Message == nil {
		t.Fatalf("defer answered %+v, want a deferred message (type 5)", a.Resource)
	}
	var got struct {
		Edited djsReportedMessage `json:"edited"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	id := a.Resource.Message.ID
	if got.Edited.ID != id || got.Edited.Content != "Pong!" {
		t.Errorf("editReply resolved to %+v, want message %s", got.Edited, id)
	}
	got.Edited.fromInteraction(t, g.app, a.Interaction.ID, g.member)
	if m := g.seen(t, g.client, id); m == nil || m.Content != "Pong!" || m.Flags != 0 {
		t.Errorf("alice sees %+v, want the deferred reply filled in", m)
	}
	g.wantCallback(t, a.Interaction.ID, 204)
}

// followUps: "Command response methods: follow-ups", the plain and the
// ephemeral one.
func (g *djsGuide) followUps(t *testing.T) {
	a := g.run(t, 2, g.cmds["followup"], nil)
	reply := a.message(t)
	var got struct {
		FollowUp  djsReportedMessage `json:"followUp"`
		Ephemeral djsReportedMessage `json:"ephemeral"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.FollowUp.Content != "Pong again!" || got.FollowUp.Flags != 0 || got.FollowUp.ID == reply.ID ||
		got.Ephemeral.Content != "Pong again!" || got.Ephemeral.Flags != 64 || got.Ephemeral.ID == got.FollowUp.ID {
		t.Errorf("followUp resolved to %+v and %+v", got.FollowUp, got.Ephemeral)
	}
	got.FollowUp.fromInteraction(t, g.app, a.Interaction.ID, g.member)
	got.Ephemeral.fromInteraction(t, g.app, a.Interaction.ID, g.member)
	for _, c := range []struct {
		who, client string
		ephemeral   bool
	}{{"alice", g.client, true}, {"bob", g.bobClient, false}} {
		if g.seen(t, c.client, reply.ID) == nil || g.seen(t, c.client, got.FollowUp.ID) == nil {
			t.Errorf("%s does not see the reply and the follow-up", c.who)
		}
		if (g.seen(t, c.client, got.Ephemeral.ID) != nil) != c.ephemeral {
			t.Errorf("%s sees the ephemeral follow-up: %v, want %v", c.who, !c.ephemeral, c.ephemeral)
		}
	}
}

// fetchingAndDeletingResponses: "Command response methods: fetching and
// deleting responses" (fetchReply; deleteReply, a 204).
func (g *djsGuide) fetchingAndDeletingResponses(t *testing.T) {
	a := g.run(t, 2, g.cmds["fetch"], nil)
	msg := a.message(t)
	var got struct {
		Fetched djsReportedMessage `json:"fetched"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Fetched.ID != msg.ID || got.Fetched.Content != "Pong!" {
		t.Errorf("fetchReply resolved to %+v, want %+v", got.Fetched, msg)
	}
	got.Fetched.fromInteraction(t, g.app, a.Interaction.ID, g.member)

	a = g.run(t, 2, g.cmds["delete"], nil)
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
	g.bot.wantREST(t, "DELETE", "/webhooks/"+g.app+"/"+djsTokenOf(t, g.bot, a.Interaction.ID)+"/messages/%40original", 204)
	// The bot deletes its reply at once: on a loaded machine it can be gone
	// before the invocation's answer is read, and then the answer carries
	// no message (docs/compat.md, "deleted since"). Either way no message
	// of this interaction is left in the channel.
	if a.Resource.Type != 4 {
		t.Fatalf("answer: %+v, want type 4", a)
	}
	if a.Resource.Message != nil {
		if m := g.seen(t, g.client, a.Resource.Message.ID); m != nil {
			t.Errorf("alice still sees the deleted reply %+v", m)
		}
	}
	for _, m := range g.messages(t, g.client) {
		if m.InteractionMetadata != nil && m.InteractionMetadata.ID == a.Interaction.ID {
			t.Errorf("alice still sees the deleted reply %+v", m)
		}
	}
}

// requiredOptions: "Advanced command creation: required options" (the
// echo command).
func (g *djsGuide) requiredOptions(t *testing.T) {
	a := g.run(t, 2, g.cmds["echo"], map[string]any{"options": []map[string]any{{"type": 3, "name": "input", "value": "hello"}}})
	if msg := a.message(t); msg.Content != "hello" {
		t.Errorf("echo answered %q", msg.Content)
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
}

// choices: "Advanced command creation: choices" and "Parsing options:
// choices" (the gif command).
func (g *djsGuide) choices(t *testing.T) {
	a := g.run(t, 2, g.cmds["gif"], map[string]any{"options": []map[string]any{{"type": 3, "name": "category", "value": "gif_meme"}}})
	if msg := a.message(t); msg.Content != "Here is a gif_meme gif." {
		t.Errorf("gif answered %q", msg.Content)
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
}

// subcommands: "Advanced command creation: subcommands" and "Parsing
// options: subcommands" (the info command, its user option resolved to
// a user and a member).
func (g *djsGuide) subcommands(t *testing.T) {
	a := g.run(t, 2, g.cmds["info"], map[string]any{"options": []map[string]any{{"type": 1, "name": "user",
		"options": []map[string]any{{"type": 6, "name": "target", "value": g.bob}}}}})
	if msg := a.message(t); msg.Content != "Username: bob\nID: "+g.bob {
		t.Errorf("info user answered %q", msg.Content)
	}
	var got struct {
		Subcommand   string `json:"subcommand"`
		Target       string `json:"target"`
		TargetMember string `json:"targetMember"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Subcommand != "user" || got.Target != g.bob || got.TargetMember != g.bob {
		t.Errorf("info user as discord.js parsed it: %+v", got)
	}

	a = g.run(t, 2, g.cmds["info"], map[string]any{"options": []map[string]any{{"type": 1, "name": "server"}}})
	if msg := a.message(t); !strings.HasPrefix(msg.Content, "Server name: ") {
		t.Errorf("info server answered %q", msg.Content)
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
}

// autocompleteResults: "Autocomplete: sending results": the member types
// in the query option, the bot's respond() is what the member's client
// gets; then the command runs with a chosen value.
func (g *djsGuide) autocompleteResults(t *testing.T) {
	a := g.run(t, 4, g.cmds["guide"], map[string]any{"options": []map[string]any{
		{"type": 3, "name": "query", "value": "Popular", "focused": true}}})
	want := []djsChoice{{"Popular Topics: Threads", "Popular Topics: Threads"},
		{"Popular Topics: Embed preview", "Popular Topics: Embed preview"}}
	if a.Interaction.Type != 4 || a.Resource.Type != 8 || !slices.Equal(a.Resource.Choices, want) {
		t.Errorf("autocomplete answered %+v, want the choices %v", a, want)
	}
	var got struct {
		Focused   string `json:"focused"`
		Responded bool   `json:"responded"`
	}
	g.bot.Wait(t, "autocompleted", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Focused != "Popular" || !got.Responded {
		t.Errorf("autocomplete as discord.js saw it: %+v", got)
	}
	g.wantCallback(t, a.Interaction.ID, 204)

	a = g.run(t, 2, g.cmds["guide"], map[string]any{"options": []map[string]any{
		{"type": 3, "name": "query", "value": "Popular Topics: Threads"}}})
	if msg := a.message(t); msg.Content != "You searched for Popular Topics: Threads" {
		t.Errorf("guide answered %q", msg.Content)
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, nil)
}

// modals: "Modals": showModal, awaitModalSubmit (as "Collectors: await
// modal submit" shows), the member submits, the bot reads the fields and
// replies to the submission.
func (g *djsGuide) modals(t *testing.T) {
	a := g.run(t, 2, g.cmds["modal"], nil)
	m := a.Resource.Modal
	if a.Resource.Type != 9 || m == nil || m.CustomID != "myModal" || m.Title != "My Modal" || len(m.Components) != 2 ||
		len(m.Components[0].Components) != 1 || m.Components[0].Components[0].CustomID != "favoriteColorInput" ||
		m.Components[0].Components[0].Style != 1 || m.Components[1].Components[0].Style != 2 {
		t.Fatalf("modal answered %+v, want My Modal with its two text inputs", a.Resource)
	}
	// The user fills the modal in once discord.js awaits it.
	g.bot.Wait(t, "awaitingModal", map[string]any{"id": a.Interaction.ID}, nil)
	g.wantCallback(t, a.Interaction.ID, 204)
	input := func(id, value string) map[string]any {
		return map[string]any{"type": 1, "components": []map[string]any{{"type": 4, "custom_id": id, "value": value}}}
	}
	sub := g.invokeAs(t, g.client, map[string]any{"type": 5, "application_id": g.app, "guild_id": g.guild, "channel_id": g.channel,
		"data": map[string]any{"id": a.Interaction.ID, "custom_id": "myModal", "components": []map[string]any{
			input("favoriteColorInput", "blue"), input("hobbiesInput", "chess\nclimbing")}}})
	answer := sub.message(t)
	if sub.Interaction.Type != 5 || answer.Content != "Your submission was received successfully! blue; chess\nclimbing" {
		t.Errorf("the submission answered %+v", sub)
	}
	if m := g.seen(t, g.bobClient, answer.ID); m == nil || m.Content != answer.Content {
		t.Errorf("bob sees %+v, want the answer to alice's submission", m)
	}
	var got struct {
		Submission    djsReported `json:"submission"`
		FavoriteColor string      `json:"favoriteColor"`
		Hobbies       string      `json:"hobbies"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Submission.ID != sub.Interaction.ID || got.Submission.CustomID != "myModal" || got.Submission.UserID != g.member ||
		got.FavoriteColor != "blue" || got.Hobbies != "chess\nclimbing" {
		t.Errorf("the submission as discord.js saw it: %+v", got)
	}
}

// awaitingComponents: "Buttons" and "Component interactions: awaiting
// components": the ban confirmation with its buttons (reply with
// withResponse, as the guide does there), the member clicks Confirm Ban,
// the bot's awaitMessageComponent gets it and update()s the message.
func (g *djsGuide) awaitingComponents(t *testing.T) {
	a := g.run(t, 2, g.cmds["ban"], map[string]any{"options": []map[string]any{
		{"type": 6, "name": "target", "value": g.bob}, {"type": 3, "name": "reason", "value": "trolling"}}})
	msg := a.message(t)
	if msg.Content != "Are you sure you want to ban bob for reason: trolling?" || len(msg.Components) != 1 ||
		len(msg.Components[0].Components) != 2 || msg.Components[0].Components[1].CustomID != "confirm" ||
		msg.Components[0].Components[1].Style != 4 {
		t.Fatalf("ban answered %+v, want the confirmation with its buttons", msg)
	}
	var awaiting struct {
		Message djsReportedMessage `json:"message"`
	}
	g.bot.Wait(t, "awaitingComponent", map[string]any{"id": a.Interaction.ID}, &awaiting)
	if awaiting.Message.ID != msg.ID || awaiting.Message.Components != 1 {
		t.Errorf("reply({ withResponse: true }).resource.message: %+v, want %s", awaiting.Message, msg.ID)
	}
	awaiting.Message.fromInteraction(t, g.app, a.Interaction.ID, g.member)
	click := g.invokeAs(t, g.client, map[string]any{"type": 3, "application_id": g.app, "guild_id": g.guild,
		"channel_id": g.channel, "message_id": msg.ID, "data": map[string]any{"custom_id": "confirm", "component_type": 2}})
	upd := click.Resource.Message
	if click.Interaction.Type != 3 || click.Resource.Type != 7 || upd == nil || upd.ID != msg.ID ||
		upd.Content != "bob has been banned for reason: trolling" || len(upd.Components) != 0 {
		t.Errorf("the click answered %+v, want the confirmation updated", click)
	}
	var got struct {
		Confirmation djsReported `json:"confirmation"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Confirmation.ID != click.Interaction.ID || got.Confirmation.CustomID != "confirm" || got.Confirmation.UserID != g.member {
		t.Errorf("the click as discord.js saw it: %+v", got.Confirmation)
	}
	g.wantCallback(t, a.Interaction.ID, 200) // the guide's withResponse: true
	g.wantCallback(t, click.Interaction.ID, 204)
	if m := g.seen(t, g.bobClient, msg.ID); m == nil || m.Content != "bob has been banned for reason: trolling" || len(m.Components) != 0 {
		t.Errorf("bob sees %+v, want the updated confirmation", m)
	}
}

// contextMenus: "Context Menus": a user command (targetUser,
// targetMember) and a message command (targetMessage).
func (g *djsGuide) contextMenus(t *testing.T) {
	a := g.run(t, 2, g.cmds["User Information"], map[string]any{"target_id": g.bob})
	if msg := a.message(t); msg.Content != "That is bob." {
		t.Errorf("User Information answered %q", msg.Content)
	}
	var user struct {
		TargetUser   string `json:"targetUser"`
		TargetMember string `json:"targetMember"`
		CommandType  int    `json:"commandType"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &user)
	if user.TargetUser != g.bob || user.TargetMember != g.bob || user.CommandType != 2 {
		t.Errorf("User Information as discord.js saw it: %+v", user)
	}

	r := g.e.Do("POST", "/api/v10/channels/"+g.channel+"/messages", g.bobClient, map[string]any{"content": "hello from bob"})
	if r.Status != 200 {
		t.Fatalf("bob posts: %d %s", r.Status, r.Body)
	}
	var posted djsMessage
	r.JSON(t, &posted)
	a = g.run(t, 2, g.cmds["Message Information"], map[string]any{"target_id": posted.ID})
	if msg := a.message(t); msg.Content != "That message says hello from bob" {
		t.Errorf("Message Information answered %q", msg.Content)
	}
	var message struct {
		TargetMessage djsReportedMessage `json:"targetMessage"`
	}
	g.bot.Wait(t, "done", map[string]any{"id": a.Interaction.ID}, &message)
	if tm := message.TargetMessage; tm.ID != posted.ID || tm.AuthorID != g.bob || tm.ChannelID != g.channel {
		t.Errorf("interaction.targetMessage: %+v, want bob's message %s", tm, posted.ID)
	}
}

// guildCommandManager: not in the guide; discord.js's
// GuildApplicationCommandManager set, fetch and delete (guild.commands).
func (g *djsGuide) guildCommandManager(t *testing.T) {
	type command struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Type    int    `json:"type"`
		GuildID string `json:"guildId"`
		Version string `json:"version"`
	}
	var set, fetched struct {
		Commands []command `json:"commands"`
	}
	g.bot.Do(t, "setGuildCommands", map[string]any{"names": []string{"echo", "User Information"}}, &set)
	stored := byName(g.commands(t, g.guild))
	if len(set.Commands) != 2 || len(stored) != 2 {
		t.Fatalf("guild.commands.set: %+v; slashd lists %+v", set.Commands, stored)
	}
	for _, c := range set.Commands {
		if s := stored[c.Name]; s.ID != c.ID || s.Type != c.Type || s.Version != c.Version || c.GuildID != g.guild {
			t.Errorf("guild.commands.set resolved %+v; slashd lists %+v", c, s)
		}
	}
	g.bot.Do(t, "fetchGuildCommands", nil, &fetched)
	if len(fetched.Commands) != 2 || !slices.ContainsFunc(fetched.Commands, func(c command) bool { return c.ID == stored["echo"].ID }) {
		t.Errorf("guild.commands.fetch: %+v, want %+v", fetched.Commands, stored)
	}
	var deleted struct {
		Deleted string   `json:"deleted"`
		Cached  []string `json:"cached"`
	}
	g.bot.Do(t, "deleteGuildCommand", map[string]any{"id": stored["echo"].ID}, &deleted)
	if deleted.Deleted != stored["echo"].ID || len(deleted.Cached) != 1 {
		t.Errorf("guild.commands.delete: %+v", deleted)
	}
	if left := g.commands(t, g.guild); len(left) != 1 || left[0].Name != "User Information" {
		t.Errorf("after guild.commands.delete slashd lists %+v", left)
	}
}

// applicationFetch: not in the guide; discord.js's ClientApplication#fetch
// (client.application.fetch(), GET /applications/@me).
func (g *djsGuide) applicationFetch(t *testing.T) {
	var app struct {
		ID          string  `json:"id"`
		Name        string  `json:"name"`
		BotPublic   bool    `json:"botPublic"`
		OwnerID     string  `json:"ownerId"`
		Flags       string  `json:"flags"`
		VerifyKey   string  `json:"verifyKey"`
		Bot         string  `json:"bot"`
		EndpointURL *string `json:"interactionsEndpointURL"`
	}
	g.bot.Do(t, "fetchApplication", nil, &app)
	if app.ID != g.app || app.Name != "testapp" || app.OwnerID != g.e.App.OwnerUserID || app.Bot != g.app ||
		app.Flags != fmt.Sprint(djsFlagGuildMembersLimited) || app.VerifyKey != g.e.App.PublicKey || app.EndpointURL != nil {
		t.Errorf("client.application.fetch(): %+v", app)
	}
}

// permissionsFetch: not in the guide; the owner edits a command's
// permissions (the bot gets APPLICATION_COMMAND_PERMISSIONS_UPDATE), and
// discord.js's ApplicationCommandPermissionsManager#fetch
// (client.application.commands.permissions.fetch({ guild })) reads them.
func (g *djsGuide) permissionsFetch(t *testing.T) {
	// The guild owner (a Bearer token with
	// applications.commands.permissions.update) lets alice use /ban:
	// the bot gets APPLICATION_COMMAND_PERMISSIONS_UPDATE.
	ban := g.cmds["ban"].ID
	r := g.e.Do("PUT", "/api/v10/applications/"+g.app+"/guilds/"+g.guild+"/commands/"+ban+"/permissions", g.e.Owner(),
		djsPermissionsBody(g.member, true))
	if r.Status != 200 {
		t.Fatalf("edit permissions: %d %s", r.Status, r.Body)
	}
	type overwrite struct {
		ID         string `json:"id"`
		Type       int    `json:"type"`
		Permission bool   `json:"permission"`
	}
	var update struct {
		ID            string      `json:"id"`
		GuildID       string      `json:"guildId"`
		ApplicationID string      `json:"applicationId"`
		Permissions   []overwrite `json:"permissions"`
	}
	g.bot.Wait(t, "applicationCommandPermissionsUpdate", nil, &update)
	want := []overwrite{{ID: g.member, Type: 2, Permission: true}}
	if update.ID != ban || update.GuildID != g.guild || update.ApplicationID != g.app || !slices.Equal(update.Permissions, want) {
		t.Errorf("applicationCommandPermissionsUpdate: %+v", update)
	}
	var fetched struct {
		Permissions map[string][]overwrite `json:"permissions"`
	}
	g.bot.Do(t, "fetchPermissions", nil, &fetched)
	if len(fetched.Permissions) != 1 || !slices.Equal(fetched.Permissions[ban], want) {
		t.Errorf("client.application.commands.permissions.fetch({ guild }): %+v, want %s: %+v", fetched.Permissions, ban, want)
	}
}

// membersFetch: not in the guide but its FAQ ("How do I find all online
// members of a guild?"); discord.js's GuildMemberManager#fetch with no
// arguments (guild.members.fetch(), gateway op 8) gets every member.
func (g *djsGuide) membersFetch(t *testing.T) {
	var fetched struct {
		Members []struct {
			ID       string `json:"id"`
			Username string `json:"username"`
			JoinedAt string `json:"joinedAt"`
		} `json:"members"`
	}
	g.bot.Do(t, "fetchMembers", nil, &fetched)
	var members []struct {
		UserID   string    `json:"user_id"`
		JoinedAt time.Time `json:"joined_at"`
	}
	djsAdmin(t, g.e, "GET", "/guilds/"+g.guild+"/members", nil, 200, &members)
	got := map[string]string{}
	for _, m := range fetched.Members {
		got[m.ID] = m.JoinedAt
	}
	if len(got) != len(members) {
		t.Errorf("guild.members.fetch(): %+v, want the %d members", fetched.Members, len(members))
	}
	for _, m := range members {
		joined, err := time.Parse(time.RFC3339Nano, got[m.UserID])
		if err != nil || !joined.Equal(m.JoinedAt.Truncate(time.Millisecond)) {
			t.Errorf("guild.members.fetch(): member %s joined %q, want %v", m.UserID, got[m.UserID], m.JoinedAt)
		}
	}
}

// gateway: the connection itself. discord.js heartbeats (its first one
// after a random part of the interval) and reads the ACKs; nothing made
// it reconnect or warn.
func (g *djsGuide) gateway(t *testing.T) {
	// discord.js heartbeats (its first one after a random part of the
	// interval) and reads the ACKs; nothing made it reconnect.
	var ack struct {
		Latency int `json:"latency"`
	}
	g.bot.Wait(t, "heartbeatAck", nil, &ack)
	if ack.Latency < 0 {
		t.Errorf("heartbeat ACK: latency %d", ack.Latency)
	}
	for _, trouble := range []string{"shardDisconnect", "shardReconnecting", "shardResume", "invalidated", "warn", "warning"} {
		if n := len(g.bot.All(trouble)); n != 0 {
			t.Errorf("discord.js reported %s %d times: %s", trouble, n, g.bot.All(trouble))
		}
	}
}

// djsTokenOf is the interaction token discord.js used for interaction id:
// the path of its first callback.
func djsTokenOf(t *testing.T, p djsProc, id string) string {
	t.Helper()
	prefix := "/interactions/" + id + "/"
	for _, r := range p.rest(t) {
		if rest, ok := strings.CutPrefix(r.Path, prefix); ok {
			if token, ok := strings.CutSuffix(rest, "/callback"); ok {
				return token
			}
		}
	}
	t.Fatalf("discord.js made no callback for interaction %s", id)
	return ""
}

// wantCallback checks that discord.js answered interaction id through the
// callback endpoint and got status (204 unless it asked for the response).
func (g *djsGuide) wantCallback(t *testing.T, id string, status int) {
	t.Helper()
	g.bot.wantREST(t, "POST", "/interactions/"+id+"/"+djsTokenOf(t, g.bot, id)+"/callback", status)
}

// djsProxy is the network between node and slashd in the resume test: a
// TCP proxy that passes REST connections straight through and sends
// gateway websocket connections (GET /gateway…) through a netlink.Link, which
// records what discord.js sends, cuts them like a network failure (both
// TCP halves closed, no close frame) and holds reconnections. slashd
// builds the gateway URL it returns (GET /gateway/bot, READY's
// resume_gateway_url) from the request's Host, so a bot whose rest.api
// points at the proxy dials the gateway through it too.
type djsProxy struct {
	URL      string // http://127.0.0.1:port
	link     *netlink.Link
	upstream string // slashd's host:port
	ln       net.Listener
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	gateways atomic.Int32 // gateway connections accepted

	mu    sync.Mutex
	conns map[net.Conn]struct{} // nil once closed
}

func newDJSProxy(t *testing.T, e *testenv.Env) *djsProxy {
	t.Helper()
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &djsProxy{URL: "http://" + ln.Addr().String(), link: netlink.New(), upstream: u.Host, ln: ln,
		conns: map[net.Conn]struct{}{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *djsProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			_ = c.Close()
			return
		}
		p.wg.Add(1)
		go p.pass(c)
	}
}

// pass connects one client connection to slashd: gateway connections
// through the link (a held dial waits there, the upgrade request unread),
// others directly.
func (p *djsProxy) pass(c net.Conn) {
	defer p.wg.Done()
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		p.drop(c)
		return
	}
	var up net.Conn
	if strings.HasPrefix(line, "GET /gateway") {
		p.gateways.Add(1)
		up, err = p.link.Dial(p.ctx, "tcp", p.upstream)
	} else {
		var d net.Dialer
		up, err = d.DialContext(p.ctx, "tcp", p.upstream)
	}
	if err != nil {
		p.drop(c)
		return
	}
	if !p.track(up) {
		_ = up.Close()
		p.drop(c)
		return
	}
	// Either direction ending (a cut link reads EOF) closes both
	// connections outright.
	var once sync.Once
	end := func() { once.Do(func() { p.drop(c); p.drop(up) }) }
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer end()
		if _, err := io.WriteString(up, line); err == nil {
			_, _ = br.WriteTo(up)
		}
	}()
	defer end()
	_, _ = io.Copy(c, up)
}

func (p *djsProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *djsProxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

func (p *djsProxy) close() {
	p.cancel() // held dials give up
	_ = p.ln.Close()
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
	p.wg.Wait()
}

// djsDispatch is a gateway dispatch as discord.js received it (bot.js's
// "dispatch" lines).
type djsDispatch struct {
	T         string `json:"t"`
	S         int64  `json:"s"`
	SessionID string `json:"sessionId"`
	ResumeURL string `json:"resumeURL"`
}

func (p djsProc) dispatches(t *testing.T) []djsDispatch {
	return djsDecodeAll[djsDispatch](t, p, "dispatch")
}

// TestDiscordJSResume cuts the guide's bot's gateway connection the way a
// network failure does (TCP closed both ways, no close frame) and holds
// its reconnection while a permissions update and an interaction are
// published. discord.js, on its default options, reads close 1006,
// reconnects to resume_gateway_url and resumes (op 6 with READY's session
// and the last sequence it had), gets both events replayed, then RESUMED,
// and answers the interaction (the guide's echo, "Advanced command
// creation": required options) while the member's invoke still waits
// (within the 3 s answer window: discord.js reconnects at once when let
// through); it never identifies again, and nothing is delivered twice.
func TestDiscordJSResume(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.Gateway.HeartbeatInterval = 2 * time.Second })
	w := newDJSGuild(t, e)
	djsAllowMembersIntent(t, e)
	r := e.Do("POST", "/api/v10/applications/"+w.app+"/guilds/"+w.guild+"/commands", e.Bot(), map[string]any{
		"name": "echo", "description": "Replies with your input!", "options": []map[string]any{
			{"type": 3, "name": "input", "description": "The input to echo back", "required": true},
		},
	})
	if r.Status != 201 {
		t.Fatalf("create command: %d %s", r.Status, r.Body)
	}
	var cmd djsCommand
	r.JSON(t, &cmd)
	// The overwrite toggled is the owner's, so that the member may still
	// run the command.
	setPerms := func(allow bool) {
		t.Helper()
		r := e.Do("PUT", "/api/v10/applications/"+w.app+"/guilds/"+w.guild+"/commands/"+cmd.ID+"/permissions", e.Owner(),
			djsPermissionsBody(e.App.OwnerUserID, allow))
		if r.Status != 200 {
			t.Fatalf("edit permissions: %d %s", r.Status, r.Body)
		}
	}
	type permsUpdate struct {
		ID          string `json:"id"`
		Permissions []struct {
			ID         string `json:"id"`
			Permission bool   `json:"permission"`
		} `json:"permissions"`
	}
	checkPerms := func(raw json.RawMessage, allow bool) {
		t.Helper()
		var p permsUpdate
		drive.Decode(t, raw, &p)
		if p.ID != cmd.ID || len(p.Permissions) != 1 || p.Permissions[0].ID != e.App.OwnerUserID ||
			p.Permissions[0].Permission != allow {
			t.Errorf("applicationCommandPermissionsUpdate %s, want the owner's overwrite set to %v", raw, allow)
		}
	}
	// nthPerms waits for the nth applicationCommandPermissionsUpdate.
	nthPerms := func(bot djsProc, n int) json.RawMessage {
		t.Helper()
		return bot.Nth(t, "applicationCommandPermissionsUpdate", nil, n)
	}

	proxy := newDJSProxy(t, e)
	bot := startDJS(t, e, proxy.URL+"/api", djsBot)
	bot.Wait(t, "ready", nil, nil)
	ds := bot.dispatches(t)
	if len(ds) == 0 || ds[0].T != "READY" || ds[0].SessionID == "" {
		t.Fatalf("dispatches before ready: %+v, want READY first", ds)
	}
	session := ds[0]
	if want := "ws://" + strings.TrimPrefix(proxy.URL, "http://") + "/gateway"; session.ResumeURL != want {
		t.Errorf("READY resume_gateway_url %q, want %q (the proxy, which discord.js dialed)", session.ResumeURL, want)
	}
	if n := proxy.gateways.Load(); n != 1 {
		t.Fatalf("%d gateway connections through the proxy before the cut, want 1", n)
	}
	// One event before the drop, so that the resume starts from a sequence
	// beyond READY and GUILD_CREATE.
	setPerms(true)
	checkPerms(nthPerms(bot, 1), true)
	before := bot.dispatches(t)
	last := before[len(before)-1]
	if last.T != "APPLICATION_COMMAND_PERMISSIONS_UPDATE" {
		t.Fatalf("last dispatch before the cut: %+v", last)
	}

	// The network drops; once discord.js tries to reconnect (held), a
	// permissions update and an interaction are published.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bus := e.Events.Subscribe(ctx, 64)
	proxy.link.Cut()
	proxy.link.HeldDial(t, drive.Wait)
	setPerms(false)
	done := w.invokeLater(map[string]any{"type": 2, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version,
			"options": []map[string]any{{"type": 3, "name": "input", "value": "again"}}}})
	w.awaitBusInteraction(t, bus, done)
	proxy.link.Release()

	bot.Wait(t, "shardResume", nil, nil)
	perms := nthPerms(bot, 2)
	msg := w.answerOf(t, done).message(t)
	if stored := w.seen(t, w.client, msg.ID); msg.Content != "again" || msg.ChannelID != w.channel ||
		stored == nil || stored.Content != "again" {
		t.Fatalf("the answer %+v (in the channel: %+v), want \"again\" in #general", msg, stored)
	}
	checkPerms(perms, false)
	var ic djsReported
	bot.Wait(t, "done", nil, &ic)
	if ic.CommandID != cmd.ID || ic.CommandName != "echo" || ic.UserID != w.member {
		t.Errorf("the interaction after the resume: %+v", ic)
	}

	// How discord.js saw the drop: close 1006 (no close frame), to be
	// resumed, not a network error (which would make it identify anew).
	var closed []struct {
		Code int    `json:"code"`
		Then string `json:"then"`
	}
	for _, raw := range bot.All("gatewayClosed") {
		var c struct {
			Code int    `json:"code"`
			Then string `json:"then"`
		}
		drive.Decode(t, raw, &c)
		closed = append(closed, c)
	}
	if len(closed) != 1 || closed[0].Code != 1006 || closed[0].Then != "resume" {
		t.Errorf("discord.js's reading of the drop: %+v, want one close 1006 to resume", closed)
	}
	if n := len(bot.All("networkError")); n != 0 {
		t.Errorf("discord.js reported %d network errors", n)
	}
	// It resumed at READY's resume_gateway_url from the last sequence it
	// had, with READY's session.
	resuming := bot.All("resuming")
	var rsm struct {
		URL      string `json:"url"`
		Sequence int64  `json:"sequence"`
	}
	if len(resuming) != 1 || json.Unmarshal(resuming[0], &rsm) != nil || rsm.URL != session.ResumeURL || rsm.Sequence != last.S {
		t.Errorf("discord.js resuming: %s, want once at %s from sequence %d", resuming, session.ResumeURL, last.S)
	}
	// What came after the cut: the two events missed, in order and
	// numbered on, then RESUMED (which slashd numbers too, so discord.js
	// counts it among the replayed).
	after := bot.dispatches(t)[len(before):]
	want := []djsDispatch{
		{T: "APPLICATION_COMMAND_PERMISSIONS_UPDATE", S: last.S + 1},
		{T: "INTERACTION_CREATE", S: last.S + 2},
		{T: "RESUMED", S: last.S + 3},
	}
	if len(after) != len(want) {
		t.Errorf("dispatches after the cut: %+v, want %+v", after, want)
	} else {
		for i := range want {
			if after[i].T != want[i].T || after[i].S != want[i].S {
				t.Errorf("dispatches after the cut: %+v, want %+v", after, want)
				break
			}
		}
	}
	var resumed struct {
		Replayed int `json:"replayed"`
	}
	bot.Wait(t, "shardResume", nil, &resumed)
	if resumed.Replayed != 3 {
		t.Errorf("shardResume replayed %d, want 3 (2 missed events and RESUMED)", resumed.Replayed)
	}
	// Nothing is delivered twice: the next update is the next one, and the
	// interaction came once.
	setPerms(true)
	checkPerms(nthPerms(bot, 3), true)
	if ds := bot.dispatches(t); len(ds) != len(before)+len(want)+1 || ds[len(ds)-1].S != last.S+4 {
		t.Errorf("dispatches: %+v, want %d, the last with s %d", ds, len(before)+len(want)+1, last.S+4)
	}
	if n := len(bot.All("interactionCreate")); n != 1 {
		t.Errorf("interactionCreate %d times, want 1", n)
	}

	// The resumed connection lives on: discord.js heartbeats on it and
	// reads slashd's ACK (an ACK read after the resume). By then, a bot
	// that had been told to start over would have identified again.
	var ack struct {
		Latency int `json:"latency"`
	}
	drive.Decode(t, bot.Nth(t, "heartbeatAck", nil, len(bot.All("heartbeatAck"))+1), &ack)
	if ack.Latency < 0 {
		t.Errorf("heartbeat ACK after the resume: latency %d", ack.Latency)
	}
	if n := proxy.gateways.Load(); n != 2 {
		t.Errorf("%d gateway connections through the proxy, want 2 (the first and the resume)", n)
	}
	identifies, resumes := proxy.link.Payloads(2), proxy.link.Payloads(6)
	if len(identifies) != 1 || len(resumes) != 1 {
		t.Fatalf("discord.js sent %d identifies and %d resumes, want 1 and 1", len(identifies), len(resumes))
	}
	var id, rs struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if err := json.Unmarshal(identifies[0], &id); err != nil || id.Token == "" {
		t.Errorf("identify %s: %v", identifies[0], err)
	}
	if err := json.Unmarshal(resumes[0], &rs); err != nil || rs.SessionID != session.SessionID || rs.Seq != last.S || rs.Token != id.Token {
		t.Errorf("resume %s: %v, want READY's session %s, seq %d and identify's token", resumes[0], err, session.SessionID, last.S)
	}
	for name, n := range map[string]int{"ready": 1, "shardReady": 1, "shardResume": 1, "shardReconnecting": 1,
		"shardDisconnect": 0, "invalidated": 0, "error": 0} {
		if got := len(bot.All(name)); got != n {
			t.Errorf("discord.js reported %s %d times, want %d", name, got, n)
		}
	}
	if n := e.API.Gateway().Sessions(); n != 1 {
		t.Errorf("gateway sessions after the resume: %d, want 1", n)
	}
	bot.cleanREST(t)

	bot.Stop(t)
	testenv.WaitFor(t, "no gateway session after client.destroy()", func() bool { return e.API.Gateway().Sessions() == 0 })
}

package clienttest

// discordgo's REST methods on slashd's commands API, on a session made as
// every discordgo example makes it (discordgo.New("Bot " + token), or a
// Bearer token for permission edits), with discordgo's defaults; the only
// change is its http.Client's transport (rewriteTransport), which sends
// discord.com's requests to the test server. These tests call the
// command methods the examples (discordgo_examples_test.go) do not reach
// and check what comes back through discordgo's own types.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
)

// exchange is one request/response pair seen by rewriteTransport.
type exchange struct {
	Method string
	Path   string
	Status int
	Header http.Header
	Body   []byte
}

// rewriteTransport aims discordgo at the test server without touching
// discordgo's package-level endpoint variables (tests run in parallel):
// it rewrites the scheme and host of every discord.com request and keeps
// the path, so discordgo's default /api/v9/ prefix reaches slashd as is.
// It records every exchange so tests can look at the raw wire format;
// with a nil target it only records (disgo is aimed by its own option).
type rewriteTransport struct {
	target *url.URL
	base   http.RoundTripper

	mu  sync.Mutex
	log []exchange
}

func (rt *rewriteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r
	if rt.target != nil {
		if r.URL.Host != "discord.com" {
			return nil, fmt.Errorf("rewriteTransport: unexpected host %q", r.URL.Host)
		}
		out = r.Clone(r.Context())
		out.URL.Scheme = rt.target.Scheme
		out.URL.Host = rt.target.Host
		out.Host = ""
	}
	resp, err := rt.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rt.mu.Lock()
	rt.log = append(rt.log, exchange{Method: r.Method, Path: r.URL.Path, Status: resp.StatusCode, Header: resp.Header.Clone(), Body: body})
	rt.mu.Unlock()
	return resp, nil
}

// last returns the latest exchange.
func (rt *rewriteTransport) last(t *testing.T) exchange {
	t.Helper()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.log) == 0 {
		t.Fatal("no request was sent")
	}
	return rt.log[len(rt.log)-1]
}

func (rt *rewriteTransport) exchanges() []exchange {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]exchange(nil), rt.log...)
}

// newDiscordgo returns a discordgo session whose Authorization header is
// auth ("Bot …" or "Bearer …"), talking to e's server.
func newDiscordgo(t *testing.T, e *testenv.Env, auth string) (*discordgo.Session, *rewriteTransport) {
	t.Helper()
	s, err := discordgo.New(auth)
	if err != nil {
		t.Fatalf("discordgo.New: %v", err)
	}
	target, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	rt := &rewriteTransport{target: target, base: e.Server.Client().Transport}
	// discordgo's own client is &http.Client{Timeout: 20 * time.Second};
	// only the transport changes.
	s.Client = &http.Client{Transport: rt, Timeout: 20 * time.Second}
	return s, rt
}

// restErr asserts err is a *discordgo.RESTError with the given HTTP status
// and (unless code is -1) JSON error code.
func restErr(t *testing.T, err error, status, code int) *discordgo.RESTError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want HTTP %d code %d", status, code)
	}
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		t.Fatalf("error %T %v is not a *discordgo.RESTError", err, err)
	}
	if re.Response == nil || re.Response.StatusCode != status {
		t.Fatalf("status: got %v, want %d (body %s)", re.Response.Status, status, re.ResponseBody)
	}
	if code >= 0 {
		if re.Message == nil {
			t.Fatalf("discordgo could not decode the error body %q", re.ResponseBody)
		}
		if re.Message.Code != code {
			t.Fatalf("code: got %d, want %d (body %s)", re.Message.Code, code, re.ResponseBody)
		}
	}
	return re
}

func ptr[T any](v T) *T { return &v }

func TestDiscordgoCommandCRUD(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	s, rt := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	app, guild := e.App.ApplicationID, e.App.GuildID

	// Global chat-input command with options. discordgo leaves out "type"
	// and sends "channel_types": null, "choices": null, "options": null on
	// options.
	minV := 1.0
	global := &discordgo.ApplicationCommand{
		Name:        "roll",
		Description: "Roll dice",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionInteger, Name: "sides", Description: "Number of sides", Required: true, MinValue: &minV, MaxValue: 100},
			{Type: discordgo.ApplicationCommandOptionString, Name: "colour", Description: "Dice colour", Choices: []*discordgo.ApplicationCommandOptionChoice{
				{Name: "Red", Value: "red"}, {Name: "Blue", Value: "blue"},
			}},
		},
		Contexts:         &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM},
		IntegrationTypes: &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall},
	}
	g, err := s.ApplicationCommandCreate(app, "", global)
	if err != nil {
		t.Fatalf("create global: %v", err)
	}
	if ex := rt.last(t); ex.Status != http.StatusCreated || !strings.HasPrefix(ex.Path, "/api/v9/applications/") {
		t.Errorf("create global: status %d path %s, want 201 under /api/v9/", ex.Status, ex.Path)
	}
	if g.ID == "" || g.Version == "" || g.ApplicationID != app || g.GuildID != "" {
		t.Errorf("create global: id %q version %q app %q guild %q", g.ID, g.Version, g.ApplicationID, g.GuildID)
	}
	if g.Type != discordgo.ChatApplicationCommand || g.Name != "roll" || g.Description != "Roll dice" {
		t.Errorf("create global: type %d name %q description %q", g.Type, g.Name, g.Description)
	}
	if len(g.Options) != 2 {
		t.Fatalf("create global: %d options, want 2", len(g.Options))
	}
	if o := g.Options[0]; o.Type != discordgo.ApplicationCommandOptionInteger || o.Name != "sides" || !o.Required ||
		o.MinValue == nil || *o.MinValue != 1 || o.MaxValue != 100 {
		t.Errorf("create global: option 0 = %+v", o)
	}
	if o := g.Options[1]; o.Type != discordgo.ApplicationCommandOptionString || o.Required || len(o.Choices) != 2 ||
		o.Choices[0].Name != "Red" || o.Choices[0].Value != "red" || o.Choices[1].Value != "blue" {
		t.Errorf("create global: option 1 = %+v", o)
	}
	if g.Contexts == nil || len(*g.Contexts) != 2 || (*g.Contexts)[1] != discordgo.InteractionContextBotDM {
		t.Errorf("create global: contexts %v", g.Contexts)
	}
	if g.IntegrationTypes == nil || len(*g.IntegrationTypes) != 1 || (*g.IntegrationTypes)[0] != discordgo.ApplicationIntegrationGuildInstall {
		t.Errorf("create global: integration_types %v", g.IntegrationTypes)
	}

	// Guild chat-input command with default_member_permissions, sent by
	// discordgo as a string.
	perms := int64(discordgo.PermissionManageGuild)
	gc, err := s.ApplicationCommandCreate(app, guild, &discordgo.ApplicationCommand{
		Name: "config", Description: "Configure the bot", DefaultMemberPermissions: &perms,
	})
	if err != nil {
		t.Fatalf("create guild: %v", err)
	}
	if gc.ID == "" || gc.Version == "" || gc.ApplicationID != app || gc.GuildID != guild {
		t.Errorf("create guild: id %q version %q app %q guild %q", gc.ID, gc.Version, gc.ApplicationID, gc.GuildID)
	}
	if gc.DefaultMemberPermissions == nil || *gc.DefaultMemberPermissions != perms {
		t.Errorf("create guild: default_member_permissions %v, want %d", gc.DefaultMemberPermissions, perms)
	}
	if len(gc.Options) != 0 {
		t.Errorf("create guild: options %v, want none", gc.Options)
	}

	// USER command: no description sent, an empty string (never null) back.
	u, err := s.ApplicationCommandCreate(app, "", &discordgo.ApplicationCommand{Type: discordgo.UserApplicationCommand, Name: "Show Profile"})
	if err != nil {
		t.Fatalf("create user command: %v", err)
	}
	if u.Type != discordgo.UserApplicationCommand || u.Name != "Show Profile" || u.Description != "" || u.ID == "" {
		t.Errorf("create user command: %+v", u)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rt.last(t).Body, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["description"]) != `""` {
		t.Errorf(`user command description on the wire: %s, want ""`, raw["description"])
	}

	// A create with the same name and type is an upsert: 200, same id.
	again, err := s.ApplicationCommandCreate(app, "", global)
	if err != nil {
		t.Fatalf("upsert: %v", err)
	}
	if ex := rt.last(t); ex.Status != http.StatusOK || again.ID != g.ID {
		t.Errorf("upsert: status %d id %s, want 200 and %s", ex.Status, again.ID, g.ID)
	}

	// List (discordgo asks with_localizations=true) and get.
	list, err := s.ApplicationCommands(app, "")
	if err != nil {
		t.Fatalf("list global: %v", err)
	}
	if names := cmdNames(list); names != "Show Profile,roll" && names != "roll,Show Profile" {
		t.Errorf("list global: %s", names)
	}
	glist, err := s.ApplicationCommands(app, guild)
	if err != nil {
		t.Fatalf("list guild: %v", err)
	}
	if len(glist) != 1 || glist[0].ID != gc.ID || glist[0].GuildID != guild {
		t.Errorf("list guild: %+v", glist)
	}
	got, err := s.ApplicationCommand(app, "", g.ID)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.ID != g.ID || got.Version != g.Version || len(got.Options) != 2 {
		t.Errorf("get: %+v", got)
	}
	gotGuild, err := s.ApplicationCommand(app, guild, gc.ID)
	if err != nil || gotGuild.ID != gc.ID {
		t.Errorf("get guild: %+v %v", gotGuild, err)
	}

	// Edit. discordgo PATCHes the whole struct (name always, "options"
	// null when empty), so the options are sent again.
	edit := *global
	edit.Description = "Roll some dice"
	ed, err := s.ApplicationCommandEdit(app, "", g.ID, &edit)
	if err != nil {
		t.Fatalf("edit description: %v", err)
	}
	if ed.ID != g.ID || ed.Description != "Roll some dice" || ed.Name != "roll" || len(ed.Options) != 2 {
		t.Errorf("edit description: %+v", ed)
	}
	if ed.Version == g.Version {
		t.Errorf("edit description: version unchanged (%s)", ed.Version)
	}
	edit.Name = "dice"
	ren, err := s.ApplicationCommandEdit(app, "", g.ID, &edit)
	if err != nil {
		t.Fatalf("edit name: %v", err)
	}
	if ren.ID != g.ID || ren.Name != "dice" || ren.Version == ed.Version {
		t.Errorf("edit name: id %s name %s version %s (was %s)", ren.ID, ren.Name, ren.Version, ed.Version)
	}
	guildEdit, err := s.ApplicationCommandEdit(app, guild, gc.ID, &discordgo.ApplicationCommand{Name: "config", Description: "Configure it"})
	if err != nil || guildEdit.Description != "Configure it" || guildEdit.GuildID != guild {
		t.Errorf("edit guild: %+v %v", guildEdit, err)
	}

	// Delete, then get: 404 Unknown application command.
	if err := s.ApplicationCommandDelete(app, "", g.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if ex := rt.last(t); ex.Status != http.StatusNoContent {
		t.Errorf("delete: status %d, want 204", ex.Status)
	}
	_, err = s.ApplicationCommand(app, "", g.ID)
	restErr(t, err, http.StatusNotFound, 10063)
	err = s.ApplicationCommandDelete(app, "", g.ID)
	restErr(t, err, http.StatusNotFound, 10063)
}

func cmdNames(cmds []*discordgo.ApplicationCommand) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return strings.Join(names, ",")
}

func TestDiscordgoBulkOverwrite(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	s, rt := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	app, guild := e.App.ApplicationID, e.App.GuildID

	for _, scope := range []string{"", guild} {
		name := "global"
		if scope != "" {
			name = "guild"
		}
		t.Run(name, func(t *testing.T) {
			old, err := s.ApplicationCommandCreate(app, scope, &discordgo.ApplicationCommand{Name: "old", Description: "Goes away"})
			if err != nil {
				t.Fatalf("create old: %v", err)
			}
			kept, err := s.ApplicationCommandCreate(app, scope, &discordgo.ApplicationCommand{Name: "kept", Description: "Stays"})
			if err != nil {
				t.Fatalf("create kept: %v", err)
			}
			set := []*discordgo.ApplicationCommand{
				{Name: "kept", Description: "Stays"},
				{Name: "fresh", Description: "New one", Options: []*discordgo.ApplicationCommandOption{
					{Type: discordgo.ApplicationCommandOptionBoolean, Name: "loud", Description: "Shout it"},
				}},
				{Type: discordgo.MessageApplicationCommand, Name: "Quote Message"},
			}
			first, err := s.ApplicationCommandBulkOverwrite(app, scope, set)
			if err != nil {
				t.Fatalf("overwrite: %v", err)
			}
			if ex := rt.last(t); ex.Status != http.StatusOK {
				t.Errorf("overwrite: status %d, want 200", ex.Status)
			}
			if len(first) != 3 {
				t.Fatalf("overwrite returned %d commands, want 3", len(first))
			}
			byName := map[string]*discordgo.ApplicationCommand{}
			for _, c := range first {
				byName[c.Name] = c
				if c.ID == "" || c.Version == "" || c.ApplicationID != app || c.GuildID != scope {
					t.Errorf("overwrite: %q id %q version %q app %q guild %q", c.Name, c.ID, c.Version, c.ApplicationID, c.GuildID)
				}
			}
			if k := byName["kept"]; k == nil || k.ID != kept.ID {
				t.Errorf("overwrite: kept command changed id: %+v, was %s", k, kept.ID)
			}
			if f := byName["fresh"]; f == nil || len(f.Options) != 1 || f.Options[0].Name != "loud" {
				t.Errorf("overwrite: fresh = %+v", f)
			}
			if m := byName["Quote Message"]; m == nil || m.Type != discordgo.MessageApplicationCommand || m.Description != "" {
				t.Errorf("overwrite: message command = %+v", m)
			}
			list, err := s.ApplicationCommands(app, scope)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 3 {
				t.Errorf("after overwrite: %s", cmdNames(list))
			}
			for _, c := range list {
				if c.ID == old.ID {
					t.Errorf("after overwrite: %q (%s) still listed", c.Name, c.ID)
				}
			}
			_, err = s.ApplicationCommand(app, scope, old.ID)
			restErr(t, err, http.StatusNotFound, 10063)

			// The same set again changes nothing: same ids, same versions.
			second, err := s.ApplicationCommandBulkOverwrite(app, scope, set)
			if err != nil {
				t.Fatalf("second overwrite: %v", err)
			}
			if len(second) != len(first) {
				t.Fatalf("second overwrite: %d commands, want %d", len(second), len(first))
			}
			for _, c := range second {
				f := byName[c.Name]
				if f == nil || f.ID != c.ID || f.Version != c.Version {
					t.Errorf("second overwrite: %q id %s version %s, first had %+v", c.Name, c.ID, c.Version, f)
				}
			}

			// An empty list clears the scope.
			empty, err := s.ApplicationCommandBulkOverwrite(app, scope, []*discordgo.ApplicationCommand{})
			if err != nil || len(empty) != 0 {
				t.Fatalf("empty overwrite: %v %v", empty, err)
			}
		})
	}
}

func TestDiscordgoErrors(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	s, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	app, guild := e.App.ApplicationID, e.App.GuildID

	// Validation: an uppercase chat-input name is a 50035 form error whose
	// raw body names the field error.
	_, err := s.ApplicationCommandCreate(app, "", &discordgo.ApplicationCommand{Name: "Hello", Description: "Says hello"})
	re := restErr(t, err, http.StatusBadRequest, 50035)
	if !bytes.Contains(re.ResponseBody, []byte("APPLICATION_COMMAND_INVALID_NAME")) {
		t.Errorf("validation body %s lacks APPLICATION_COMMAND_INVALID_NAME", re.ResponseBody)
	}
	if re.Message.Message == "" {
		t.Errorf("validation error has no message: %s", re.ResponseBody)
	}

	// Unknown command id on get and edit.
	_, err = s.ApplicationCommand(app, guild, "123456789012345678")
	restErr(t, err, http.StatusNotFound, 10063)
	_, err = s.ApplicationCommandEdit(app, "", "123456789012345678", &discordgo.ApplicationCommand{Name: "x", Description: "y"})
	restErr(t, err, http.StatusNotFound, 10063)

	// Another app's id: the bot token is not authorized for it.
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	_, err = s.ApplicationCommands(other.ApplicationID, "")
	restErr(t, err, http.StatusForbidden, 20012)

	// A wrong token: 401 with a JSON body discordgo can read.
	bad, _ := newDiscordgo(t, e, "Bot not-a-token")
	_, err = bad.ApplicationCommands(app, "")
	restErr(t, err, http.StatusUnauthorized, 0)
}

func TestDiscordgoPermissions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	bot, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	owner, _ := newDiscordgo(t, e, "Bearer "+e.App.OwnerBearerToken)
	app, guild := e.App.ApplicationID, e.App.GuildID

	cmd, err := bot.ApplicationCommandCreate(app, guild, &discordgo.ApplicationCommand{Name: "ban", Description: "Ban someone"})
	if err != nil {
		t.Fatalf("create: %v", err)
	}

	// No overwrites yet: 404 Unknown application command permissions.
	_, err = bot.ApplicationCommandPermissions(app, guild, cmd.ID)
	restErr(t, err, http.StatusNotFound, 10066)
	list, err := bot.GuildApplicationCommandsPermissions(app, guild)
	if err != nil || len(list) != 0 {
		t.Fatalf("list before edit: %v %v", list, err)
	}

	allChannels, err := discordgo.GuildAllChannelsID(guild)
	if err != nil {
		t.Fatal(err)
	}
	perms := &discordgo.ApplicationCommandPermissionsList{Permissions: []*discordgo.ApplicationCommandPermissions{
		{ID: guild, Type: discordgo.ApplicationCommandPermissionTypeRole, Permission: false},
		{ID: e.App.OwnerUserID, Type: discordgo.ApplicationCommandPermissionTypeUser, Permission: true},
		{ID: allChannels, Type: discordgo.ApplicationCommandPermissionTypeChannel, Permission: true},
	}}

	// A bot token may not edit permissions.
	err = bot.ApplicationCommandPermissionsEdit(app, guild, cmd.ID, perms)
	restErr(t, err, http.StatusForbidden, 20001)

	// The guild owner's Bearer token (applications.commands.permissions.update) may.
	if err := owner.ApplicationCommandPermissionsEdit(app, guild, cmd.ID, perms); err != nil {
		t.Fatalf("edit with Bearer token: %v", err)
	}
	got, err := bot.ApplicationCommandPermissions(app, guild, cmd.ID)
	if err != nil {
		t.Fatalf("get after edit: %v", err)
	}
	if got.ID != cmd.ID || got.ApplicationID != app || got.GuildID != guild || len(got.Permissions) != 3 {
		t.Fatalf("get after edit: %+v", got)
	}
	if p := got.Permissions[1]; p.ID != e.App.OwnerUserID || p.Type != discordgo.ApplicationCommandPermissionTypeUser || !p.Permission {
		t.Errorf("get after edit: permission 1 = %+v", p)
	}
	list, err = bot.GuildApplicationCommandsPermissions(app, guild)
	if err != nil {
		t.Fatalf("list after edit: %v", err)
	}
	if len(list) != 1 || list[0].ID != cmd.ID || len(list[0].Permissions) != 3 {
		t.Errorf("list after edit: %+v", list)
	}

	// The batch endpoint was removed by permissions v2: 405.
	err = owner.ApplicationCommandPermissionsBatchEdit(app, guild, []*discordgo.GuildApplicationCommandPermissions{
		{ID: cmd.ID, ApplicationID: app, GuildID: guild, Permissions: perms.Permissions},
	})
	restErr(t, err, http.StatusMethodNotAllowed, -1)
}

func TestDiscordgoRateLimit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) {
		c.WriteLimit = ratelimit.Limit{Count: 2, Window: 2 * time.Second}
	}))
	s, rt := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	app := e.App.ApplicationID
	start := time.Now()

	// Five sequential creates: discordgo reads X-RateLimit-Remaining and
	// -Reset-After and sleeps before the third and the fifth.
	for i := range 5 {
		if _, err := s.ApplicationCommandCreate(app, "", &discordgo.ApplicationCommand{
			Name: fmt.Sprintf("cmd-%d", i), Description: "Rate limited",
		}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	firstFive := time.Since(start)
	if firstFive < 1500*time.Millisecond {
		t.Errorf("5 creates with 2 per 2 s took %v; the limit was not applied", firstFive)
	}
	for _, ex := range rt.exchanges() {
		if ex.Header.Get("X-RateLimit-Limit") != "2" || ex.Header.Get("X-RateLimit-Reset-After") == "" || ex.Header.Get("X-RateLimit-Bucket") == "" {
			t.Errorf("%s %s: rate limit headers %v", ex.Method, ex.Path, ex.Header)
			break
		}
	}

	// A second session with the same token knows nothing of the bucket:
	// once the first has used it up, its request gets a 429, which
	// discordgo waits out (body retry_after) and retries by itself.
	other, ort := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	for i := 5; ; i++ {
		if _, err := s.ApplicationCommandCreate(app, "", &discordgo.ApplicationCommand{
			Name: fmt.Sprintf("cmd-%d", i), Description: "Rate limited",
		}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		if rt.last(t).Header.Get("X-RateLimit-Remaining") == "0" {
			break
		}
	}
	if _, err := other.ApplicationCommandCreate(app, "", &discordgo.ApplicationCommand{Name: "late", Description: "Waited"}); err != nil {
		t.Fatalf("create after 429: %v", err)
	}
	var limited, ok bool
	for _, ex := range ort.exchanges() {
		switch ex.Status {
		case http.StatusTooManyRequests:
			limited = true
			var body struct {
				RetryAfter *float64 `json:"retry_after"`
				Global     *bool    `json:"global"`
			}
			if err := json.Unmarshal(ex.Body, &body); err != nil || body.RetryAfter == nil || body.Global == nil || *body.Global {
				t.Errorf("429 body %s: %v", ex.Body, err)
			}
			if ex.Header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After header")
			}
		case http.StatusCreated:
			ok = limited
		}
	}
	if !limited || !ok {
		t.Errorf("second session: want a 429 then a 201, got %v", statuses(ort.exchanges()))
	}
	list, err := s.ApplicationCommands(app, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 7 {
		t.Errorf("listed %d commands, want at least 7", len(list))
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("rate-limited test took %v, want < 15 s", d)
	}
}

func statuses(exs []exchange) []int {
	out := make([]int, len(exs))
	for i, ex := range exs {
		out[i] = ex.Status
	}
	return out
}

package clienttest

// disgo's REST client on slashd's commands API, made as
// _examples/pagination/example.go (disgo v0.19.6) makes one,
// rest.New(rest.NewClient(token)), aimed at slashd with rest.WithURL (the
// version in the URL). These tests call the command methods the examples
// do not reach and check what comes back through disgo's own types.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/disgoorg/disgo"
	"github.com/disgoorg/disgo/bot"
	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/omit"
	"github.com/disgoorg/snowflake/v2"

	"github.com/slashd/slashd/internal/testenv"
)

// newDisgo is the example's REST client aimed at e's server. Its
// http.Client records the exchanges, whose statuses and raw bodies the
// tests read; the timeout is disgo's default.
func newDisgo(t *testing.T, e *testenv.Env) (rest.Rest, *rewriteTransport) {
	t.Helper()
	rt := &rewriteTransport{base: e.Server.Client().Transport}
	client := rest.NewClient(e.App.BotToken,
		rest.WithURL(e.URL+"/api/v10"),
		rest.WithHTTPClient(&http.Client{Transport: rt, Timeout: 20 * time.Second}),
	)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		client.Close(ctx)
	})
	return rest.New(client), rt
}

func ids(t *testing.T, e *testenv.Env) (app, guild snowflake.ID) {
	t.Helper()
	return snowflake.MustParse(e.App.ApplicationID), snowflake.MustParse(e.App.GuildID)
}

// disgoErr asserts err is a *rest.Error with the HTTP status and JSON code.
func disgoErr(t *testing.T, err error, status int, code rest.JSONErrorCode) *rest.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want HTTP %d code %d", status, code)
	}
	var re *rest.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %T %v is not a *rest.Error", err, err)
	}
	if re.Response == nil || re.Response.StatusCode != status {
		t.Fatalf("status: got %v, want %d (body %s)", re.Response, status, re.RsBody)
	}
	if re.Code != code {
		t.Fatalf("code: got %d, want %d (body %s)", re.Code, code, re.RsBody)
	}
	if !rest.IsJSONErrorCode(err, code) {
		t.Errorf("rest.IsJSONErrorCode(err, %d) is false", code)
	}
	return re
}

// TestDisgoBotToken shows slashd's bot tokens have the shape disgo needs:
// bot.New derives the application id from the token's first segment, and
// without gateway options it dials nothing, so its REST client can be
// used against slashd directly.
func TestDisgoBotToken(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	app, guild := ids(t, e)
	client, err := disgo.New(e.App.BotToken,
		bot.WithRestClientConfigOpts(rest.WithURL(e.URL+"/api/v10")),
	)
	if err != nil {
		t.Fatalf("disgo.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		client.Close(ctx)
	})
	if client.ApplicationID != app {
		t.Fatalf("application id from token: got %s, want %s", client.ApplicationID, app)
	}
	cmd, err := client.Rest.CreateGuildCommand(client.ApplicationID, guild, discord.SlashCommandCreate{Name: "ping", Description: "Replies with pong"})
	if err != nil {
		t.Fatalf("create through bot client: %v", err)
	}
	if cmd.ApplicationID() != app || cmd.GuildID() == nil || *cmd.GuildID() != guild {
		t.Errorf("created: app %s guild %v", cmd.ApplicationID(), cmd.GuildID())
	}
	cmds, err := client.Rest.GetGuildCommands(client.ApplicationID, guild, false)
	if err != nil || len(cmds) != 1 || cmds[0].ID() != cmd.ID() {
		t.Errorf("list through bot client: %v %v", cmds, err)
	}
}

func pizzaCommand() discord.SlashCommandCreate {
	return discord.SlashCommandCreate{
		Name:                     "pizza",
		NameLocalizations:        map[discord.Locale]string{discord.LocaleGerman: "pizza-bestellen"},
		Description:              "Order a pizza",
		DescriptionLocalizations: map[discord.Locale]string{discord.LocaleGerman: "Eine Pizza bestellen"},
		Options: []discord.ApplicationCommandOption{
			discord.ApplicationCommandOptionString{
				Name: "size", Description: "Pizza size", Required: true,
				Choices: []discord.ApplicationCommandOptionChoiceString{
					{Name: "Small", Value: "s", NameLocalizations: map[discord.Locale]string{discord.LocaleGerman: "Klein"}},
					{Name: "Large", Value: "l"},
				},
			},
			discord.ApplicationCommandOptionInt{Name: "count", Description: "How many", MinValue: omit.Ptr(1), MaxValue: omit.Ptr(10)},
			discord.ApplicationCommandOptionString{Name: "note", Description: "For the cook", MinLength: omit.Ptr(0), MaxLength: omit.Ptr(200)},
		},
		DefaultMemberPermissions: omit.NewPtr(discord.PermissionManageGuild),
		IntegrationTypes:         []discord.ApplicationIntegrationType{discord.ApplicationIntegrationTypeGuildInstall, discord.ApplicationIntegrationTypeUserInstall},
		Contexts:                 []discord.InteractionContextType{discord.InteractionContextTypeGuild, discord.InteractionContextTypeBotDM},
	}
}

func adminCommand() discord.SlashCommandCreate {
	return discord.SlashCommandCreate{
		Name:        "admin",
		Description: "Administration",
		Options: []discord.ApplicationCommandOption{
			discord.ApplicationCommandOptionSubCommandGroup{
				Name: "user", Description: "Manage users",
				Options: []discord.ApplicationCommandOptionSubCommand{
					{Name: "add", Description: "Add a user", Options: []discord.ApplicationCommandOption{
						discord.ApplicationCommandOptionUser{Name: "who", Description: "The user", Required: true},
					}},
					{Name: "remove", Description: "Remove a user"},
				},
			},
			discord.ApplicationCommandOptionSubCommand{Name: "status", Description: "Show status"},
		},
	}
}

func TestDisgoCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r, rt := newDisgo(t, e)
	app, guild := ids(t, e)

	// Global slash command: every field comes back through disgo's types.
	created, err := r.CreateGlobalCommand(app, pizzaCommand())
	if err != nil {
		t.Fatalf("create pizza: %v", err)
	}
	if ex := rt.last(t); ex.Status != http.StatusCreated || !strings.HasPrefix(ex.Path, "/api/v10/applications/") {
		t.Errorf("create pizza: status %d path %s", ex.Status, ex.Path)
	}
	pizza, ok := created.(discord.SlashCommand)
	if !ok {
		t.Fatalf("create pizza returned %T", created)
	}
	if pizza.ID() == 0 || pizza.Version() == 0 || pizza.ApplicationID() != app || pizza.GuildID() != nil {
		t.Errorf("pizza: id %s version %s app %s guild %v", pizza.ID(), pizza.Version(), pizza.ApplicationID(), pizza.GuildID())
	}
	if pizza.DefaultMemberPermissions() != discord.PermissionManageGuild {
		t.Errorf("pizza: default_member_permissions %d", pizza.DefaultMemberPermissions())
	}
	if it := pizza.IntegrationTypes(); len(it) != 2 || it[1] != discord.ApplicationIntegrationTypeUserInstall {
		t.Errorf("pizza: integration_types %v", it)
	}
	if c := pizza.Contexts(); len(c) != 2 || c[1] != discord.InteractionContextTypeBotDM {
		t.Errorf("pizza: contexts %v", c)
	}
	checkPizzaOptions(t, pizza)
	// The create response carries the full dictionaries.
	if pizza.NameLocalizations()[discord.LocaleGerman] != "pizza-bestellen" || pizza.DescriptionLocalizations[discord.LocaleGerman] != "Eine Pizza bestellen" {
		t.Errorf("pizza: localizations %v %v", pizza.NameLocalizations(), pizza.DescriptionLocalizations)
	}

	adm, err := r.CreateGlobalCommand(app, adminCommand())
	if err != nil {
		t.Fatalf("create admin: %v", err)
	}
	checkAdminOptions(t, adm)
	// Without default_member_permissions and contexts the wire has null
	// and disgo decodes zero values.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rt.last(t).Body, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["default_member_permissions"]) != "null" {
		t.Errorf("admin: default_member_permissions on the wire %s, want null", raw["default_member_permissions"])
	}
	if adm.DefaultMemberPermissions() != 0 {
		t.Errorf("admin: default_member_permissions %d", adm.DefaultMemberPermissions())
	}
	if c, ok := raw["contexts"]; !ok || (string(c) != "null" && !strings.HasPrefix(string(c), "[")) {
		t.Errorf("admin: contexts on the wire %s, want null or a list", c)
	}
	if it := adm.IntegrationTypes(); len(it) == 0 {
		t.Errorf("admin: integration_types %v, want the app's default", it)
	}

	user, err := r.CreateGlobalCommand(app, discord.UserCommandCreate{Name: "High Five"})
	if err != nil {
		t.Fatalf("create user command: %v", err)
	}
	if _, ok := user.(discord.UserCommand); !ok || user.Name() != "High Five" || user.Type() != discord.ApplicationCommandTypeUser {
		t.Errorf("user command: %T %q", user, user.Name())
	}
	msg, err := r.CreateGlobalCommand(app, discord.MessageCommandCreate{Name: "Bookmark", NSFW: omit.Ptr(true)})
	if err != nil {
		t.Fatalf("create message command: %v", err)
	}
	if _, ok := msg.(discord.MessageCommand); !ok || msg.Name() != "Bookmark" || !msg.NSFW() {
		t.Errorf("message command: %T %q nsfw %v", msg, msg.Name(), msg.NSFW())
	}

	// Guild command with the same name as a global one is allowed.
	gp, err := r.CreateGuildCommand(app, guild, discord.SlashCommandCreate{Name: "pizza", Description: "Guild pizza"})
	if err != nil {
		t.Fatalf("create guild pizza: %v", err)
	}
	if gp.GuildID() == nil || *gp.GuildID() != guild || gp.ID() == pizza.ID() {
		t.Errorf("guild pizza: guild %v id %s", gp.GuildID(), gp.ID())
	}

	// List without localizations: name_localized for the requested
	// locale, no dictionaries.
	list, err := r.GetGlobalCommands(app, false, rest.WithDiscordLocale(discord.LocaleGerman))
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list) != 4 {
		t.Fatalf("list: %d commands, want 4", len(list))
	}
	lp := findCmd(t, list, "pizza").(discord.SlashCommand)
	if lp.NameLocalized() != "pizza-bestellen" || lp.DescriptionLocalized != "Eine Pizza bestellen" {
		t.Errorf("list de: name_localized %q description_localized %q", lp.NameLocalized(), lp.DescriptionLocalized)
	}
	if lp.NameLocalizations() != nil || lp.DescriptionLocalizations != nil {
		t.Errorf("list without localizations has dictionaries: %v %v", lp.NameLocalizations(), lp.DescriptionLocalizations)
	}
	if lp.Version() != pizza.Version() || lp.ID() != pizza.ID() {
		t.Errorf("list: id %s version %s, created %s %s", lp.ID(), lp.Version(), pizza.ID(), pizza.Version())
	}
	checkPizzaOptions(t, lp)
	if o := lp.Options[0].(discord.ApplicationCommandOptionString); o.Choices[0].Name != "Small" {
		t.Errorf("list de: choice name %q, want the default", o.Choices[0].Name)
	}
	checkAdminOptions(t, findCmd(t, list, "admin"))

	// With localizations: the dictionaries, no *_localized.
	full, err := r.GetGlobalCommands(app, true, rest.WithDiscordLocale(discord.LocaleGerman))
	if err != nil {
		t.Fatalf("list with localizations: %v", err)
	}
	fp := findCmd(t, full, "pizza").(discord.SlashCommand)
	if fp.NameLocalizations()[discord.LocaleGerman] != "pizza-bestellen" || fp.DescriptionLocalizations[discord.LocaleGerman] != "Eine Pizza bestellen" {
		t.Errorf("with localizations: %v %v", fp.NameLocalizations(), fp.DescriptionLocalizations)
	}
	if fp.NameLocalized() != "" {
		t.Errorf("with localizations: name_localized %q", fp.NameLocalized())
	}
	if o := fp.Options[0].(discord.ApplicationCommandOptionString); o.Choices[0].NameLocalizations[discord.LocaleGerman] != "Klein" {
		t.Errorf("with localizations: choice localizations %v", o.Choices[0].NameLocalizations)
	}

	glist, err := r.GetGuildCommands(app, guild, true)
	if err != nil || len(glist) != 1 || glist[0].ID() != gp.ID() {
		t.Errorf("guild list: %v %v", glist, err)
	}
	// GetGlobalCommand/GetGuildCommand: see TestDisgoGetCommand.

	// PATCH replaces only the fields sent: the options stay.
	upd, err := r.UpdateGlobalCommand(app, pizza.ID(), discord.SlashCommandUpdate{Description: omit.Ptr("Order a tasty pizza")})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	up := upd.(discord.SlashCommand)
	if up.ID() != pizza.ID() || up.Description != "Order a tasty pizza" || up.Name() != "pizza" || up.Version() == pizza.Version() {
		t.Errorf("update: id %s description %q name %q version %s (was %s)", up.ID(), up.Description, up.Name(), up.Version(), pizza.Version())
	}
	checkPizzaOptions(t, up)
	if up.DefaultMemberPermissions() != discord.PermissionManageGuild {
		t.Errorf("update: default_member_permissions %d", up.DefaultMemberPermissions())
	}
	// default_member_permissions "0" (admins only) is distinct from null.
	zero, err := r.UpdateGlobalCommand(app, adm.ID(), discord.SlashCommandUpdate{DefaultMemberPermissions: omit.NewPtr(discord.PermissionsNone)})
	if err != nil {
		t.Fatalf("update perms 0: %v", err)
	}
	if err := json.Unmarshal(rt.last(t).Body, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["default_member_permissions"]) != `"0"` || zero.DefaultMemberPermissions() != 0 {
		t.Errorf(`update perms 0: wire %s, want "0"`, raw["default_member_permissions"])
	}
	ren, err := r.UpdateGuildCommand(app, guild, gp.ID(), discord.SlashCommandUpdate{Name: omit.Ptr("calzone")})
	if err != nil || ren.Name() != "calzone" || ren.ID() != gp.ID() {
		t.Errorf("rename guild command: %v %v", ren, err)
	}

	// Delete, then get: 404 Unknown application command (10063).
	if err := r.DeleteGlobalCommand(app, msg.ID()); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if ex := rt.last(t); ex.Status != http.StatusNoContent {
		t.Errorf("delete: status %d", ex.Status)
	}
	_, err = r.UpdateGlobalCommand(app, msg.ID(), discord.MessageCommandUpdate{Name: omit.Ptr("Gone")})
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)
	err = r.DeleteGlobalCommand(app, msg.ID())
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)
	if err := r.DeleteGuildCommand(app, guild, gp.ID()); err != nil {
		t.Fatalf("delete guild: %v", err)
	}
	if g, err := r.GetGuildCommands(app, guild, false); err != nil || len(g) != 0 {
		t.Errorf("guild list after delete: %v %v", g, err)
	}
	if l, err := r.GetGlobalCommands(app, false); err != nil || len(l) != 3 {
		t.Errorf("global list after delete: %d %v", len(l), err)
	}
}

// TestDisgoGetCommand covers disgo's single-command getters. disgo v0.19.6
// builds their path with a singular "command" segment,
// GET /applications/{a}/command/{c} and
// GET /applications/{a}/guilds/{g}/command/{c}, unlike the spec's
// /commands/{c} (which every other method uses); slashd serves both. The
// recorded paths prove the singular routes were the ones exercised.
func TestDisgoGetCommand(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r, rt := newDisgo(t, e)
	app, guild := ids(t, e)

	global, err := r.CreateGlobalCommand(app, pizzaCommand())
	if err != nil {
		t.Fatal(err)
	}
	local, err := r.CreateGuildCommand(app, guild, adminCommand())
	if err != nil {
		t.Fatal(err)
	}
	// disgo asks for one command with a singular "command" segment.
	one, err := r.GetGlobalCommand(app, global.ID())
	if p := rt.last(t).Path; !strings.Contains(p, "/command/") {
		t.Fatalf("disgo requested %s, expected the singular /command/ path", p)
	}
	if err != nil {
		t.Fatalf("get global: %v", err)
	}
	if one.ID() != global.ID() || one.Version() != global.Version() {
		t.Errorf("get global: id %s version %s", one.ID(), one.Version())
	}
	checkPizzaOptions(t, one.(discord.SlashCommand))
	two, err := r.GetGuildCommand(app, guild, local.ID())
	if err != nil {
		t.Fatalf("get guild: %v", err)
	}
	checkAdminOptions(t, two)
	if err := r.DeleteGlobalCommand(app, global.ID()); err != nil {
		t.Fatal(err)
	}
	_, err = r.GetGlobalCommand(app, global.ID())
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)
}

func findCmd(t *testing.T, cmds []discord.ApplicationCommand, name string) discord.ApplicationCommand {
	t.Helper()
	for _, c := range cmds {
		if c.Name() == name {
			return c
		}
	}
	t.Fatalf("no command %q", name)
	return nil
}

func checkPizzaOptions(t *testing.T, c discord.SlashCommand) {
	t.Helper()
	if len(c.Options) != 3 {
		t.Fatalf("pizza: %d options, want 3", len(c.Options))
	}
	size, ok := c.Options[0].(discord.ApplicationCommandOptionString)
	if !ok || size.Name != "size" || !size.Required || len(size.Choices) != 2 || size.Choices[0].Value != "s" || size.Choices[1].Value != "l" {
		t.Errorf("pizza: option size = %#v", c.Options[0])
	}
	count, ok := c.Options[1].(discord.ApplicationCommandOptionInt)
	if !ok || count.Name != "count" || count.Required || count.MinValue == nil || *count.MinValue != 1 || count.MaxValue == nil || *count.MaxValue != 10 {
		t.Errorf("pizza: option count = %#v", c.Options[1])
	}
	note, ok := c.Options[2].(discord.ApplicationCommandOptionString)
	if !ok || note.MinLength == nil || *note.MinLength != 0 || note.MaxLength == nil || *note.MaxLength != 200 {
		t.Errorf("pizza: option note = %#v", c.Options[2])
	}
}

func checkAdminOptions(t *testing.T, c discord.ApplicationCommand) {
	t.Helper()
	sc, ok := c.(discord.SlashCommand)
	if !ok || len(sc.Options) != 2 {
		t.Fatalf("admin: %#v", c)
	}
	grp, ok := sc.Options[0].(discord.ApplicationCommandOptionSubCommandGroup)
	if !ok || grp.Name != "user" || len(grp.Options) != 2 || grp.Options[0].Name != "add" || grp.Options[1].Name != "remove" {
		t.Fatalf("admin: group = %#v", sc.Options[0])
	}
	if len(grp.Options[0].Options) != 1 {
		t.Fatalf("admin: add has %d options", len(grp.Options[0].Options))
	}
	if who, ok := grp.Options[0].Options[0].(discord.ApplicationCommandOptionUser); !ok || who.Name != "who" || !who.Required {
		t.Errorf("admin: add option = %#v", grp.Options[0].Options[0])
	}
	if sub, ok := sc.Options[1].(discord.ApplicationCommandOptionSubCommand); !ok || sub.Name != "status" {
		t.Errorf("admin: status = %#v", sc.Options[1])
	}
}

func TestDisgoBulkOverwrite(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r, _ := newDisgo(t, e)
	app, guild := ids(t, e)

	set := []discord.ApplicationCommandCreate{
		pizzaCommand(),
		adminCommand(),
		discord.UserCommandCreate{Name: "High Five"},
		discord.MessageCommandCreate{Name: "Bookmark"},
	}
	check := func(t *testing.T, name string, set func([]discord.ApplicationCommandCreate) ([]discord.ApplicationCommand, error),
		get func() ([]discord.ApplicationCommand, error), cmds []discord.ApplicationCommandCreate) {
		first, err := set(cmds)
		if err != nil {
			t.Fatalf("%s: first overwrite: %v", name, err)
		}
		if len(first) != len(cmds) {
			t.Fatalf("%s: first overwrite returned %d commands", name, len(first))
		}
		second, err := set(cmds)
		if err != nil {
			t.Fatalf("%s: second overwrite: %v", name, err)
		}
		byName := map[string]discord.ApplicationCommand{}
		for _, c := range first {
			if c.ID() == 0 || c.Version() == 0 {
				t.Errorf("%s: %q id %s version %s", name, c.Name(), c.ID(), c.Version())
			}
			byName[c.Name()] = c
		}
		for _, c := range second {
			f := byName[c.Name()]
			if f == nil || f.ID() != c.ID() || f.Version() != c.Version() {
				t.Errorf("%s: re-run changed %q: id %s version %s, first %v", name, c.Name(), c.ID(), c.Version(), f)
			}
		}
		listed, err := get()
		if err != nil || len(listed) != len(cmds) {
			t.Errorf("%s: list after overwrite: %d %v", name, len(listed), err)
		}
	}

	check(t, "global", func(c []discord.ApplicationCommandCreate) ([]discord.ApplicationCommand, error) {
		return r.SetGlobalCommands(app, c)
	}, func() ([]discord.ApplicationCommand, error) { return r.GetGlobalCommands(app, true) }, set)

	// Guild commands take no integration_types or contexts.
	guildSet := []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{Name: "pizza", Description: "Order a pizza", Options: pizzaCommand().Options},
		adminCommand(),
		discord.UserCommandCreate{Name: "High Five"},
	}
	check(t, "guild", func(c []discord.ApplicationCommandCreate) ([]discord.ApplicationCommand, error) {
		return r.SetGuildCommands(app, guild, c)
	}, func() ([]discord.ApplicationCommand, error) { return r.GetGuildCommands(app, guild, false) }, guildSet)

	// A smaller set replaces the list: kept names keep their ids.
	before, err := r.GetGlobalCommands(app, false)
	if err != nil {
		t.Fatal(err)
	}
	after, err := r.SetGlobalCommands(app, []discord.ApplicationCommandCreate{adminCommand()})
	if err != nil {
		t.Fatalf("replace: %v", err)
	}
	if len(after) != 1 || after[0].ID() != findCmd(t, before, "admin").ID() {
		t.Errorf("replace: %v", after)
	}
	err = r.DeleteGlobalCommand(app, findCmd(t, before, "pizza").ID())
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)
	// Guild list untouched by the global overwrite.
	if g, err := r.GetGuildCommands(app, guild, false); err != nil || len(g) != 3 {
		t.Errorf("guild list after global overwrite: %d %v", len(g), err)
	}
}

func TestDisgoPermissions(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r, _ := newDisgo(t, e)
	app, guild := ids(t, e)

	cmd, err := r.CreateGuildCommand(app, guild, discord.SlashCommandCreate{Name: "ban", Description: "Ban someone"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.GetGuildCommandsPermissions(app, guild)
	if err != nil || len(all) != 0 {
		t.Fatalf("list before any edit: %v %v", all, err)
	}
	_, err = r.GetGuildCommandPermissions(app, guild, cmd.ID())
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommandPermissions)
	// An id that is no command: the real service answers 10066 here too
	// (the permissions of a deleted command go with it); 10063 would be
	// as readable to a client.
	_, err = r.GetGuildCommandPermissions(app, guild, snowflake.ID(123456789012345678))
	if !rest.IsJSONErrorCode(err, rest.JSONErrorCodeUnknownApplicationCommandPermissions, rest.JSONErrorCodeUnknownApplicationCommand) {
		t.Errorf("permissions of an unknown command: %v", err)
	}
	var re *rest.Error
	if errors.As(err, &re) && re.Response.StatusCode != http.StatusNotFound {
		t.Errorf("permissions of an unknown command: status %d", re.Response.StatusCode)
	}

	// disgo has no permission PUT (it needs a user's Bearer token); set
	// them with the owner's token over plain HTTP and read them with disgo.
	allChannels := guild - 1
	body := map[string]any{"permissions": []map[string]any{
		{"id": guild.String(), "type": 1, "permission": false},
		{"id": e.App.OwnerUserID, "type": 2, "permission": true},
		{"id": allChannels.String(), "type": 3, "permission": false},
	}}
	path := "/api/v10/applications/" + app.String() + "/guilds/" + guild.String() + "/commands/" + cmd.ID().String() + "/permissions"
	if resp := e.Do("PUT", path, e.Owner(), body); resp.Status != http.StatusOK {
		t.Fatalf("PUT permissions: %d %s", resp.Status, resp.Body)
	}
	got, err := r.GetGuildCommandPermissions(app, guild, cmd.ID())
	if err != nil {
		t.Fatalf("get permissions: %v", err)
	}
	if got.ID != cmd.ID() || got.ApplicationID != app || got.GuildID != guild || len(got.Permissions) != 3 {
		t.Fatalf("get permissions: %+v", got)
	}
	role, ok := got.Permissions[0].(discord.ApplicationCommandPermissionRole)
	if !ok || role.RoleID != guild || role.Permission {
		t.Errorf("permission 0: %#v", got.Permissions[0])
	}
	usr, ok := got.Permissions[1].(discord.ApplicationCommandPermissionUser)
	if !ok || usr.UserID.String() != e.App.OwnerUserID || !usr.Permission {
		t.Errorf("permission 1: %#v", got.Permissions[1])
	}
	ch, ok := got.Permissions[2].(discord.ApplicationCommandPermissionChannel)
	if !ok || ch.ChannelID != allChannels || ch.Permission {
		t.Errorf("permission 2: %#v", got.Permissions[2])
	}
	all, err = r.GetGuildCommandsPermissions(app, guild)
	if err != nil || len(all) != 1 || all[0].ID != cmd.ID() || len(all[0].Permissions) != 3 {
		t.Errorf("list permissions: %+v %v", all, err)
	}
}

func TestDisgoErrors(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r, _ := newDisgo(t, e)
	app, guild := ids(t, e)

	// 50035 with the field tree in Errors; disgo walks that tree to print
	// it, so a malformed tree would panic here.
	_, err := r.CreateGlobalCommand(app, discord.SlashCommandCreate{Name: "Bad Name", Description: "Nope"})
	re := disgoErr(t, err, http.StatusBadRequest, rest.JSONErrorCodeInvalidFormBody)
	var tree struct {
		Name struct {
			Errors []struct{ Code, Message string } `json:"_errors"`
		} `json:"name"`
	}
	if err := json.Unmarshal(re.Errors, &tree); err != nil || len(tree.Name.Errors) == 0 || tree.Name.Errors[0].Code != "APPLICATION_COMMAND_INVALID_NAME" {
		t.Errorf("errors tree %s: %v", re.Errors, err)
	}
	if msg := re.Error(); !strings.Contains(msg, "50035") || !strings.Contains(msg, "name -> APPLICATION_COMMAND_INVALID_NAME") {
		t.Errorf("disgo's rendering: %q", msg)
	}

	// A nested error: an option name, in a guild bulk overwrite.
	_, err = r.SetGuildCommands(app, guild, []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{Name: "ok", Description: "Fine", Options: []discord.ApplicationCommandOption{
			discord.ApplicationCommandOptionBool{Name: "Loud", Description: "Shout"},
		}},
	})
	re = disgoErr(t, err, http.StatusBadRequest, rest.JSONErrorCodeInvalidFormBody)
	if msg := re.Error(); !strings.Contains(msg, "0 -> options -> 0 -> name -> APPLICATION_COMMAND_INVALID_NAME") {
		t.Errorf("nested error rendering: %q (errors %s)", msg, re.Errors)
	}

	// A context-menu command with a description is rejected.
	raw := e.Do("POST", "/api/v10/applications/"+app.String()+"/commands", e.Bot(), `{"type":2,"name":"Wave","description":"no"}`)
	if raw.Status != http.StatusBadRequest {
		t.Errorf("user command with description: %d %s", raw.Status, raw.Body)
	}

	// Unknown command.
	_, err = r.UpdateGlobalCommand(app, snowflake.ID(123456789012345678), discord.SlashCommandUpdate{Description: omit.Ptr("x")})
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)
	err = r.DeleteGuildCommand(app, guild, snowflake.ID(123456789012345678))
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownApplicationCommand)

	// Unknown guild.
	_, err = r.GetGuildCommands(app, snowflake.ID(123456789012345678), false)
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCodeUnknownGuild)
}

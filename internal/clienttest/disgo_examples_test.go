package clienttest

// disgo's own examples (github.com/disgoorg/disgo v0.19.6, _examples/…)
// run against slashd, one test per example: the client is made as the
// examples make it, disgo.New(token, …) with the example's options
// (bot.WithDefaultGateway() or bot.WithGatewayConfigOpts(…), its
// listeners or handler.New() router, handler.SyncCommands or
// client.Rest.SetGuildCommands), with disgo's defaults otherwise (zstd
// gateway compression among them). The one change is where it connects:
// rest.WithURL (the version in the URL); disgo then asks GET /gateway
// where the websocket is. Each library call's error is recorded
// (handlerLog), where the examples log it or return it to the router.
// The member, on the other side, uses slashd's client API as a chat
// client does.

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disgoorg/disgo"
	"github.com/disgoorg/disgo/bot"
	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/events"
	"github.com/disgoorg/disgo/gateway"
	"github.com/disgoorg/disgo/handler"
	"github.com/disgoorg/disgo/handler/middleware"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/omit"
	"github.com/disgoorg/snowflake/v2"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// exampleHeartbeatInterval is the gateway's heartbeat interval in the
// disgo example tests: a test's connection closes between disgo's first
// and second heartbeat (see disgoRaceKit), and an example test runs
// several exchanges in between.
const exampleHeartbeatInterval = 4 * time.Second

func exampleHeartbeat(c *api.Config) { c.Gateway.HeartbeatInterval = exampleHeartbeatInterval }

// exampleClient is disgo.New(token, opts...) aimed at e, with the
// disgoRaceKit's options after the example's, closed when the test ends.
// e must run with exampleHeartbeat.
func exampleClient(t *testing.T, e *testenv.Env, opts ...bot.ConfigOpt) *bot.Client {
	t.Helper()
	kit := newDisgoRaceKit(t)
	opts = append([]bot.ConfigOpt{bot.WithRestClientConfigOpts(rest.WithURL(e.URL + "/api/v10"))}, opts...)
	client, err := disgo.New(e.App.BotToken, append(opts, kit.options()...)...)
	if err != nil {
		t.Fatalf("error while building bot: %v", err)
	}
	t.Cleanup(func() { kit.close(t, client, exampleHeartbeatInterval) })
	return client
}

// openGateway is the examples' client.OpenGateway.
func openGateway(t *testing.T, client *bot.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), gatewayTimeout)
	defer cancel()
	if err := client.OpenGateway(ctx); err != nil {
		t.Fatalf("error while connecting to gateway: %v", err)
	}
}

// recorded returns a handler's error after recording it as step name.
func recorded(l *handlerLog, name string, err error) error {
	l.did(name, err)
	return err
}

// TestDisgoHandlerExample runs _examples/handler/example.go: a router
// (handler.New) with the Go and Logger middlewares, groups, a /test route
// with a {group} variable, a button with data in its custom_id, and
// NotFound; bot.WithDefaultGateway(), bot.WithEventListeners(r),
// handler.SyncCommands for one guild, OpenGateway.
func TestDisgoHandlerExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, exampleHeartbeat)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	commands := []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{Name: "ping", Description: "Replies with pong"},
		discord.SlashCommandCreate{
			Name:        "test",
			Description: "Replies with test",
			Options: []discord.ApplicationCommandOption{
				discord.ApplicationCommandOptionSubCommandGroup{Name: "idk", Description: "Group command",
					Options: []discord.ApplicationCommandOptionSubCommand{{Name: "sub", Description: "Sub command"}}},
				discord.ApplicationCommandOptionSubCommandGroup{Name: "idk2", Description: "Group2 command",
					Options: []discord.ApplicationCommandOptionSubCommand{{Name: "sub", Description: "Sub command"}}},
				discord.ApplicationCommandOptionSubCommand{Name: "sub2", Description: "Sub2 command"},
			},
		},
		discord.SlashCommandCreate{Name: "ping2", Description: "Replies with pong2"},
	}
	handleContent := func(content string) handler.CommandHandler {
		return func(event *handler.CommandEvent) error {
			return recorded(l, content, event.CreateMessage(discord.MessageCreate{Content: content}))
		}
	}
	handleVariableContent := func(event *handler.CommandEvent) error {
		group := event.Vars["group"]
		return recorded(l, "group: "+group, event.CreateMessage(discord.MessageCreate{Content: "group: " + group}))
	}
	handlePing := func(event *handler.CommandEvent) error {
		return recorded(l, "pong", event.CreateMessage(discord.MessageCreate{
			Content: "pong",
			Components: []discord.LayoutComponent{
				discord.NewActionRow(discord.NewPrimaryButton("button1", "/button1/testData")),
			},
		}))
	}
	handleComponent := func(event *handler.ComponentEvent) error {
		data := event.Vars["data"]
		return recorded(l, "component: "+data, event.CreateMessage(discord.MessageCreate{Content: "component: " + data}))
	}
	handleNotFound := func(event *handler.InteractionEvent) error {
		return recorded(l, "not found", event.CreateMessage(discord.MessageCreate{Content: "not found"}))
	}

	r := handler.New()
	r.Use(middleware.Go)
	r.Use(middleware.Logger)
	r.Group(func(r handler.Router) {
		r.Use(middleware.Print("group1"))
		r.Route("/test", func(r handler.Router) {
			r.Command("/sub2", handleContent("/test/sub2"))
			r.Route("/{group}", func(r handler.Router) {
				r.Command("/sub", handleVariableContent)
			})
		})
	})
	r.Group(func(r handler.Router) {
		r.Use(middleware.Print("group2"))
		r.Command("/ping", handlePing)
		r.Command("/ping2", handleContent("pong2"))
		r.Component("/button1/{data}", handleComponent)
	})
	r.NotFound(handleNotFound)

	client := exampleClient(t, e, bot.WithDefaultGateway(), bot.WithEventListeners(r))
	if err := handler.SyncCommands(client, commands, []snowflake.ID{snowflake.MustParse(w.guild)}); err != nil {
		t.Fatalf("error while syncing commands: %v", err)
	}
	openGateway(t, client)

	ping := w.reply(t, w.run(w.pick(t, "ping")), "pong")
	l.await(t, "pong")
	if ids := customIDs(ping.Components); len(ids) != 1 || ids[0] != "/button1/testData" || ping.Components[0].Components[0].Label != "button1" {
		t.Fatalf("pong's button: %+v", ping.Components)
	}
	if m := w.reply(t, w.click(ping.ID, "/button1/testData", 2), "component: testData"); m.Type != 0 || m.Flags != 0 {
		t.Errorf("the answer to the button: type %d flags %d", m.Type, m.Flags)
	}
	l.await(t, "component: testData")
	w.reply(t, w.run(w.pick(t, "ping2")), "pong2")
	l.await(t, "pong2")
	test := w.pick(t, "test")
	w.reply(t, w.run(test, subcommand("sub2", 1)), "/test/sub2")
	l.await(t, "/test/sub2")
	for _, group := range []string{"idk", "idk2"} {
		w.reply(t, w.run(test, subcommand(group, 2, subcommand("sub", 1))), "group: "+group)
		l.await(t, "group: "+group)
	}
	l.idle(t)
}

// TestDisgoTestExample runs _examples/test: the router's SlashCommand
// handler answers with CreateMessage, then edits its answer with
// UpdateInteractionResponse; the client sets a presence in its Identify
// (gateway.WithPresenceOpts).
func TestDisgoTestExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, exampleHeartbeat)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	commands := []discord.ApplicationCommandCreate{discord.SlashCommandCreate{Name: "test", Description: "test"}}
	handleTestCommand := func(_ discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		if err := recorded(l, "CreateMessage", e.CreateMessage(discord.MessageCreate{
			Content: "Test command received!",
		})); err != nil {
			return err
		}
		_, err := e.UpdateInteractionResponse(discord.MessageUpdate{
			Content: omit.Ptr("Test command response updated!"),
		})
		return recorded(l, "UpdateInteractionResponse", err)
	}
	r := handler.New()
	r.SlashCommand("/test", handleTestCommand)
	client := exampleClient(t, e,
		bot.WithGatewayConfigOpts(
			gateway.WithPresenceOpts(gateway.WithListeningActivity("your bullshit", gateway.WithActivityState("lol")), gateway.WithOnlineStatus(discord.OnlineStatusDND)),
		),
		bot.WithEventListeners(r),
	)
	if err := handler.SyncCommands(client, commands, []snowflake.ID{snowflake.MustParse(w.guild)}); err != nil {
		t.Fatalf("error while syncing commands: %v", err)
	}
	openGateway(t, client)

	// The handler edits its answer at once: the member's answer shows the
	// message as it was when slashd read it, either content.
	m := *w.interact(t, 4, w.run(w.pick(t, "test"))).Resource.Message
	if m.Content != "Test command received!" && m.Content != "Test command response updated!" {
		t.Errorf("the answer: %q", m.Content)
	}
	l.await(t, "CreateMessage", "UpdateInteractionResponse")
	if got := w.seenAs(t, m.ID, "Test command response updated!"); got.EditedTimestamp == nil {
		t.Error("the updated answer has no edited_timestamp")
	}
	l.idle(t)
}

// TestDisgoModalsExample runs _examples/modals/example.go: no intents, a
// global command (handler.SyncCommands without guilds) for guild and user
// installs, answered with a modal of labels around two text inputs and a
// string select; the submission's components, read with
// Data.AllComponents(), come back in a message.
func TestDisgoModalsExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, exampleHeartbeat)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	commands := []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{
			Name:        "modal",
			Description: "brings up a modal",
			IntegrationTypes: []discord.ApplicationIntegrationType{
				discord.ApplicationIntegrationTypeUserInstall,
				discord.ApplicationIntegrationTypeGuildInstall,
			},
			Contexts: []discord.InteractionContextType{
				discord.InteractionContextTypeGuild,
				discord.InteractionContextTypeBotDM,
				discord.InteractionContextTypePrivateChannel,
			},
		},
	}
	commandListener := func(event *events.ApplicationCommandInteractionCreate) {
		data := event.SlashCommandInteractionData()
		if data.CommandName() == "modal" {
			l.did("Modal", event.Modal(discord.NewModalCreate("modal-id", "Modal Title").
				AddLabel("short text", discord.NewShortTextInput("short-text-input")).
				AddLabel("paragraph text", discord.NewParagraphTextInput("paragraph-text-input")).
				AddLabel("select menu", discord.NewStringSelectMenu("select-menu", "select something idiot",
					discord.NewStringSelectMenuOption("helo", "helo"),
					discord.NewStringSelectMenuOption("uwu", "uwu"),
					discord.NewStringSelectMenuOption("owo", "owo"),
				).
					WithMinValues(0).
					WithMaxValues(2),
				),
			))
		}
	}
	modalListener := func(event *events.ModalSubmitInteractionCreate) {
		var content string
		for component := range event.Data.AllComponents() {
			switch c := component.(type) {
			case discord.TextInputComponent:
				content += c.CustomID + ": " + c.Value + "\n"
			case discord.StringSelectMenuComponent:
				content += c.CustomID + ": " + strings.Join(c.Values, ", ") + "\n"
			}
		}
		l.did("CreateMessage", event.CreateMessage(discord.MessageCreate{Content: content}))
	}
	client := exampleClient(t, e,
		bot.WithGatewayConfigOpts(gateway.WithIntents(gateway.IntentsNone)),
		bot.WithEventListenerFunc(commandListener),
		bot.WithEventListenerFunc(modalListener),
	)
	if err := handler.SyncCommands(client, commands, nil); err != nil {
		t.Fatalf("error while registering commands: %v", err)
	}
	openGateway(t, client)

	a := w.interact(t, 9, w.run(w.pick(t, "modal")))
	l.await(t, "Modal")
	modal := a.Resource.Modal
	if modal == nil || modal.CustomID != "modal-id" || modal.Title != "Modal Title" || len(modal.Components) != 3 ||
		modal.Components[2].Type != 18 || strings.Join(customIDs(modal.Components), ",") != "short-text-input,paragraph-text-input,select-menu" {
		t.Fatalf("the modal: %+v", modal)
	}
	w.reply(t, w.submit(a.Interaction.ID, "modal-id",
		inLabel(map[string]any{"type": 4, "custom_id": "short-text-input", "value": "hi"}),
		inLabel(map[string]any{"type": 4, "custom_id": "paragraph-text-input", "value": "more words"}),
		inLabel(map[string]any{"type": 3, "custom_id": "select-menu", "values": []string{"uwu", "owo"}})),
		"short-text-input: hi\nparagraph-text-input: more words\nselect-menu: uwu, owo\n")
	l.await(t, "CreateMessage")
	l.idle(t)
}

// TestDisgoComponentsV2Example runs _examples/componentsv2/example.go: a
// components v2 message (container, section with a thumbnail, text
// displays, separator, buttons) with a file, ephemeral unless the member
// says otherwise, and the /modal route: a modal of a text display and
// labels around a text input and a user select, whose submission the
// router's Modal route answers. The example routes /modal but registers
// only /test; the test registers "modal" beside it so that the member
// can run it.
func TestDisgoComponentsV2Example(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, exampleHeartbeat)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	thumbnail := []byte("not really a picture")
	commands := []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{
			Name:        "test",
			Description: "test",
			Options: []discord.ApplicationCommandOption{
				discord.ApplicationCommandOptionBool{Name: "ephemeral", Description: "if the message should be ephemeral", Required: false},
			},
			IntegrationTypes: []discord.ApplicationIntegrationType{
				discord.ApplicationIntegrationTypeGuildInstall,
				discord.ApplicationIntegrationTypeUserInstall,
			},
			Contexts: []discord.InteractionContextType{
				discord.InteractionContextTypeGuild,
				discord.InteractionContextTypeBotDM,
				discord.InteractionContextTypePrivateChannel,
			},
		},
		discord.SlashCommandCreate{Name: "modal", Description: "brings up a modal"},
	}
	onTest := func(data discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		flags := discord.MessageFlagIsComponentsV2
		if ephemeral, ok := data.OptBool("ephemeral"); !ok || ephemeral {
			flags = flags.Add(discord.MessageFlagEphemeral)
		}
		return recorded(l, "test", e.CreateMessage(discord.MessageCreate{
			Flags: flags,
			Components: []discord.LayoutComponent{
				discord.NewContainer(
					discord.NewSection(
						discord.NewTextDisplay("**Name: [Seeing Red](https://open.spotify.com/track/65qBr6ToDUjTD1RiE1H4Gl)**"),
						discord.NewTextDisplay("**Artist: [Architects](https://open.spotify.com/artist/3ZztVuWxHzNpl0THurTFCv)**"),
						discord.NewTextDisplay("**Album:  [The Sky, The Earth & All Between](https://open.spotify.com/album/2W82VyyIFAXigJEiLm5TT1)**"),
					).WithAccessory(discord.NewThumbnail("attachment://thumbnail.png")),
					discord.NewTextDisplay("`0:08`/`3:40`"),
					discord.NewTextDisplay("[🔘▬▬▬▬▬▬▬▬▬]"),
					discord.NewSmallSeparator(),
					discord.NewActionRow(
						discord.NewPrimaryButton("", "/player/previous").WithEmoji(discord.ComponentEmoji{Name: "⏮"}),
						discord.NewPrimaryButton("", "/player/pause_play").WithEmoji(discord.ComponentEmoji{Name: "⏯"}),
						discord.NewPrimaryButton("", "/player/next").WithEmoji(discord.ComponentEmoji{Name: "⏭"}),
						discord.NewDangerButton("", "/player/stop").WithEmoji(discord.ComponentEmoji{Name: "⏹"}),
						discord.NewPrimaryButton("", "/player/like").WithEmoji(discord.ComponentEmoji{Name: "❤️"}),
					),
				).WithAccentColor(0x5c5fea),
			},
			Files: []*discord.File{
				discord.NewFile("thumbnail.png", "", bytes.NewReader(thumbnail)),
			},
		}))
	}
	onModal := func(_ discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		return recorded(l, "modal", e.Modal(discord.ModalCreate{
			CustomID: "/modal",
			Title:    "Test Modal",
			Components: []discord.LayoutComponent{
				discord.NewTextDisplay("This is a modal"),
				discord.NewLabel("Test Input", discord.NewShortTextInput("test_input")),
				discord.NewLabel("Test Select", discord.NewUserSelectMenu("test_user", "Select a user")),
			},
		}))
	}
	onModalSubmit := func(e *handler.ModalEvent) error {
		return recorded(l, "submitted", e.CreateMessage(discord.MessageCreate{
			Content: "You submitted the modal!",
			Flags:   discord.MessageFlagEphemeral,
		}))
	}
	r := handler.New()
	r.SlashCommand("/test", onTest)
	r.SlashCommand("/modal", onModal)
	r.Modal("/modal", onModalSubmit)
	client := exampleClient(t, e, bot.WithDefaultGateway(), bot.WithEventListeners(r))
	if err := handler.SyncCommands(client, commands, []snowflake.ID{snowflake.MustParse(w.guild)}); err != nil {
		t.Fatalf("error while syncing commands: %v", err)
	}
	openGateway(t, client)

	test := w.pick(t, "test")
	for _, c := range []struct {
		options []map[string]any
		flags   int
	}{
		{nil, 1<<15 | flagEphemeral},
		{[]map[string]any{option("ephemeral", 5, false)}, 1 << 15},
	} {
		m := w.reply(t, w.run(test, c.options...), "")
		l.await(t, "test")
		if m.Flags != c.flags || len(m.Components) != 1 || m.Components[0].Type != 17 ||
			strings.Join(customIDs(m.Components), ",") != "/player/previous,/player/pause_play,/player/next,/player/stop,/player/like" {
			t.Errorf("the player: flags %d, components %+v", m.Flags, m.Components)
		}
		if len(m.Attachments) != 1 || m.Attachments[0].Filename != "thumbnail.png" {
			t.Errorf("the player's attachments: %+v", m.Attachments)
		}
	}

	a := w.interact(t, 9, w.run(w.pick(t, "modal")))
	l.await(t, "modal")
	if modal := a.Resource.Modal; modal == nil || modal.CustomID != "/modal" || len(modal.Components) != 3 ||
		strings.Join(customIDs(modal.Components), ",") != "test_input,test_user" {
		t.Fatalf("the modal: %+v", a.Resource.Modal)
	}
	m := w.reply(t, w.submit(a.Interaction.ID, "/modal",
		map[string]any{"type": 10},
		inLabel(map[string]any{"type": 4, "custom_id": "test_input", "value": "typed"}),
		inLabel(map[string]any{"type": 5, "custom_id": "test_user", "values": []string{w.member}})),
		"You submitted the modal!")
	l.await(t, "submitted")
	if m.Flags != flagEphemeral {
		t.Errorf("the answer to the modal: flags %d", m.Flags)
	}
	l.idle(t)
}

// TestDisgoRouter drives the router event methods no disgo example
// reaches, on the handler example's client and router
// (_examples/handler/example.go: handler.New, bot.WithDefaultGateway,
// handler.SyncCommands), each route registered as handler/doc.go lists
// them: an Autocomplete route answering AutocompleteResult, a command
// answering DeferCreateMessage then UpdateInteractionResponse and a
// follow-up, and a Component route answering UpdateMessage (the message
// the button is on changes in place).
func TestDisgoRouter(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, exampleHeartbeat)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	colors := []string{"red", "green", "blue", "black"}
	commands := []discord.ApplicationCommandCreate{
		discord.SlashCommandCreate{Name: "color", Description: "Picks a color", Options: []discord.ApplicationCommandOption{
			discord.ApplicationCommandOptionString{Name: "name", Description: "The color", Required: true, Autocomplete: true},
		}},
		discord.SlashCommandCreate{Name: "slow", Description: "Thinks first"},
		discord.SlashCommandCreate{Name: "counter", Description: "Counts clicks"},
	}
	counter := func(n int) discord.MessageUpdate {
		next := "/counter/" + strconv.Itoa(n+1)
		return discord.MessageUpdate{
			Content:    omit.Ptr("clicks: " + strconv.Itoa(n)),
			Components: &[]discord.LayoutComponent{discord.NewActionRow(discord.NewPrimaryButton("+1", next))},
		}
	}
	r := handler.New()
	r.Autocomplete("/color", func(e *handler.AutocompleteEvent) error {
		typed := e.Data.String("name")
		var choices []discord.AutocompleteChoice
		for _, c := range colors {
			if strings.HasPrefix(c, typed) {
				choices = append(choices, discord.AutocompleteChoiceString{Name: c, Value: c})
			}
		}
		return recorded(l, "AutocompleteResult", e.AutocompleteResult(choices))
	})
	r.SlashCommand("/color", func(data discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		return recorded(l, "color", e.CreateMessage(discord.MessageCreate{Content: "you picked " + data.String("name")}))
	})
	r.SlashCommand("/slow", func(_ discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		if err := recorded(l, "DeferCreateMessage", e.DeferCreateMessage(false)); err != nil {
			return err
		}
		if !l.pause() { // the work the bot defers for
			return nil
		}
		_, err := e.UpdateInteractionResponse(discord.MessageUpdate{Content: omit.Ptr("done thinking")})
		if recorded(l, "UpdateInteractionResponse", err) != nil {
			return err
		}
		_, err = e.CreateFollowupMessage(discord.MessageCreate{Content: "and one more thing"})
		return recorded(l, "CreateFollowupMessage", err)
	})
	r.SlashCommand("/counter", func(_ discord.SlashCommandInteractionData, e *handler.CommandEvent) error {
		u := counter(0)
		return recorded(l, "counter", e.CreateMessage(discord.MessageCreate{Content: *u.Content, Components: *u.Components}))
	})
	r.Component("/counter/{n}", func(e *handler.ComponentEvent) error {
		n, err := strconv.Atoi(e.Vars["n"])
		if err != nil {
			return err
		}
		return recorded(l, "UpdateMessage", e.UpdateMessage(counter(n)))
	})
	client := exampleClient(t, e, bot.WithDefaultGateway(), bot.WithEventListeners(r))
	if err := handler.SyncCommands(client, commands, []snowflake.ID{snowflake.MustParse(w.guild)}); err != nil {
		t.Fatalf("error while syncing commands: %v", err)
	}
	openGateway(t, client)

	color := w.pick(t, "color")
	a := w.interact(t, 8, w.typing(color, focused("name", 3, "b")))
	l.await(t, "AutocompleteResult")
	if len(a.Resource.Choices) != 2 || a.Resource.Choices[0].Value != "blue" || a.Resource.Choices[1].Name != "black" {
		t.Errorf("choices for b: %+v", a.Resource.Choices)
	}
	w.reply(t, w.run(color, option("name", 3, "blue")), "you picked blue")
	l.await(t, "color")

	deferred := w.interact(t, 5, w.run(w.pick(t, "slow")))
	l.await(t, "DeferCreateMessage")
	thinking := deferred.Resource.Message
	if thinking.Flags&128 == 0 {
		t.Errorf("the deferred answer: flags %d, want LOADING", thinking.Flags)
	}
	l.resume(t)
	l.await(t, "UpdateInteractionResponse", "CreateFollowupMessage")
	if done := w.seenAs(t, thinking.ID, "done thinking"); done.Flags&128 != 0 {
		t.Errorf("the filled answer: flags %d", done.Flags)
	}
	if f := w.newest(t); f.Content != "and one more thing" || f.ID == thinking.ID {
		t.Errorf("the follow-up: %+v", f)
	}

	m := w.reply(t, w.run(w.pick(t, "counter")), "clicks: 0")
	l.await(t, "counter")
	for n := 1; n <= 2; n++ {
		a := w.interact(t, 7, w.click(m.ID, "/counter/"+strconv.Itoa(n), 2))
		l.await(t, "UpdateMessage")
		got := a.Resource.Message
		if got.ID != m.ID || got.Content != "clicks: "+strconv.Itoa(n) || got.EditedTimestamp == nil ||
			strings.Join(customIDs(got.Components), ",") != "/counter/"+strconv.Itoa(n+1) {
			t.Fatalf("after click %d: %+v", n, got)
		}
		w.seenAs(t, m.ID, "clicks: "+strconv.Itoa(n))
	}
	l.idle(t)
}

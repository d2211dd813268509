package clienttest

// discordgo's own examples (github.com/bwmarrin/discordgo v0.29.0,
// examples/…/main.go) run against slashd, one test per example: the
// session is made as every example makes it, discordgo.New("Bot " +
// token), with discordgo's defaults (API v9, state on, Identify intents
// and compression, handlers in goroutines); the only change is where it
// connects: its http.Client's transport sends discord.com's requests to
// the test server (rewriteTransport), and GET /gateway then points Open()
// at slashd's websocket. The commands and handlers are the examples',
// with two changes that do not touch the library: each library call's
// error is recorded (handlerLog) where the example panics or ignores it,
// and where an example sleeps so that its user can watch a message change,
// the handler waits for the test, which checks what the member sees then.
// The member, on the other side, uses slashd's client API as a chat client
// does.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/testenv"
)

// exampleSession is the session of every discordgo example, aimed at e.
func exampleSession(t *testing.T, e *testenv.Env) *discordgo.Session {
	t.Helper()
	s, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	return s
}

// open is the examples' s.Open(), closed when the test ends.
func open(t *testing.T, s *discordgo.Session) {
	t.Helper()
	if err := s.Open(); err != nil {
		t.Fatalf("Cannot open the session: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
}

// deleteCommands is the examples' cleanup: every command they registered
// is deleted; the member's picker is empty afterwards.
func deleteCommands(t *testing.T, s *discordgo.Session, w *gwWorld, appID string, cmds []*discordgo.ApplicationCommand) {
	t.Helper()
	for _, v := range cmds {
		if err := s.ApplicationCommandDelete(appID, w.guild, v.ID); err != nil {
			t.Fatalf("Cannot delete '%v' command: %v", v.Name, err)
		}
	}
	if left := w.picker(t); len(left) != 0 {
		t.Errorf("after the cleanup the picker still has %v", left)
	}
	if left, err := s.ApplicationCommands(appID, w.guild); err != nil || len(left) != 0 {
		t.Errorf("after the cleanup: %d commands, %v", len(left), err)
	}
}

// slashCommandsExample is examples/slash_commands/main.go's command list.
func slashCommandsExample() []*discordgo.ApplicationCommand {
	integerOptionMinValue := 1.0
	dmPermission := false
	var defaultMemberPermissions int64 = discordgo.PermissionManageGuild
	return []*discordgo.ApplicationCommand{
		{Name: "basic-command", Description: "Basic command"},
		{
			Name:                     "permission-overview",
			Description:              "Command for demonstration of default command permissions",
			DefaultMemberPermissions: &defaultMemberPermissions,
			DMPermission:             &dmPermission,
		},
		{Name: "basic-command-with-files", Description: "Basic command with files"},
		{
			Name:                     "localized-command",
			Description:              "Localized command. Description and name may vary depending on the Language setting",
			NameLocalizations:        &map[discordgo.Locale]string{discordgo.ChineseCN: "本地化的命令"},
			DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.ChineseCN: "这是一个本地化的命令"},
			Options: []*discordgo.ApplicationCommandOption{{
				Name:                     "localized-option",
				Description:              "Localized option. Description and name may vary depending on the Language setting",
				NameLocalizations:        map[discordgo.Locale]string{discordgo.ChineseCN: "一个本地化的选项"},
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.ChineseCN: "这是一个本地化的选项"},
				Type:                     discordgo.ApplicationCommandOptionInteger,
				Choices: []*discordgo.ApplicationCommandOptionChoice{
					{Name: "First", NameLocalizations: map[discordgo.Locale]string{discordgo.ChineseCN: "一的"}, Value: 1},
					{Name: "Second", NameLocalizations: map[discordgo.Locale]string{discordgo.ChineseCN: "二的"}, Value: 2},
				},
			}},
		},
		{
			Name:        "options",
			Description: "Command for demonstrating options",
			Options: []*discordgo.ApplicationCommandOption{
				{Type: discordgo.ApplicationCommandOptionString, Name: "string-option", Description: "String option", Required: true},
				{Type: discordgo.ApplicationCommandOptionInteger, Name: "integer-option", Description: "Integer option", MinValue: &integerOptionMinValue, MaxValue: 10, Required: true},
				{Type: discordgo.ApplicationCommandOptionNumber, Name: "number-option", Description: "Float option", MaxValue: 10.1, Required: true},
				{Type: discordgo.ApplicationCommandOptionBoolean, Name: "bool-option", Description: "Boolean option", Required: true},
				{Type: discordgo.ApplicationCommandOptionChannel, Name: "channel-option", Description: "Channel option",
					ChannelTypes: []discordgo.ChannelType{discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildVoice}, Required: false},
				{Type: discordgo.ApplicationCommandOptionUser, Name: "user-option", Description: "User option", Required: false},
				{Type: discordgo.ApplicationCommandOptionRole, Name: "role-option", Description: "Role option", Required: false},
			},
		},
		{
			Name:        "subcommands",
			Description: "Subcommands and command groups example",
			Options: []*discordgo.ApplicationCommandOption{
				{
					Name:        "subcommand-group",
					Description: "Subcommands group",
					Options: []*discordgo.ApplicationCommandOption{
						{Name: "nested-subcommand", Description: "Nested subcommand", Type: discordgo.ApplicationCommandOptionSubCommand},
					},
					Type: discordgo.ApplicationCommandOptionSubCommandGroup,
				},
				{Name: "subcommand", Description: "Top-level subcommand", Type: discordgo.ApplicationCommandOptionSubCommand},
			},
		},
		{
			Name:        "responses",
			Description: "Interaction responses testing initiative",
			Options: []*discordgo.ApplicationCommandOption{{
				Name:        "resp-type",
				Description: "Response type",
				Type:        discordgo.ApplicationCommandOptionInteger,
				Choices: []*discordgo.ApplicationCommandOptionChoice{
					{Name: "Channel message with source", Value: 4},
					{Name: "Deferred response With Source", Value: 5},
				},
				Required: true,
			}},
		},
		{Name: "followups", Description: "Followup messages"},
	}
}

const (
	respondedContent = "You just responded to an interaction, sent a message and showed the original one. Congratulations!" +
		"\nAlso... you can edit your response, wait 5 seconds and this message will be changed"
	editedContent = respondedContent + "\n\nWell, now you know how to create and edit responses. " +
		"But you still don't know how to delete them... so... wait 10 seconds and this " +
		"message will be deleted."
	followupContent       = "Followup message has been created, after 5 seconds it will be edited"
	followupEditedContent = "Now the original message is gone and after 10 seconds this message will ~~self-destruct~~ be deleted."
	unicornContent        = "For those, who didn't skip anything and followed tutorial along fairly, " +
		"take a unicorn :unicorn: as reward!\n" +
		"Also, as bonus... look at the original interaction response :D"
)

// slashCommandsHandlers is examples/slash_commands/main.go's
// commandHandlers.
func slashCommandsHandlers(l *handlerLog) map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate) {
	message := func(content string) *discordgo.InteractionResponse {
		return &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: content},
		}
	}
	return map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"basic-command": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("basic-command", s.InteractionRespond(i.Interaction, message("Hey there! Congratulations, you just executed your first slash command")))
		},
		"basic-command-with-files": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("basic-command-with-files", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: "Hey there! Congratulations, you just executed your first slash command with a file in the response",
					Files: []*discordgo.File{
						{ContentType: "text/plain", Name: "test.txt", Reader: strings.NewReader("Hello Discord!!")},
					},
				},
			}))
		},
		"localized-command": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			responses := map[discordgo.Locale]string{discordgo.ChineseCN: "你好！ 这是一个本地化的命令"}
			response := "Hi! This is a localized message"
			if r, ok := responses[i.Locale]; ok {
				response = r
			}
			l.did("localized-command", s.InteractionRespond(i.Interaction, message(response)))
		},
		"options": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			options := i.ApplicationCommandData().Options
			optionMap := make(map[string]*discordgo.ApplicationCommandInteractionDataOption, len(options))
			for _, opt := range options {
				optionMap[opt.Name] = opt
			}
			margs := make([]interface{}, 0, len(options))
			msgformat := "You learned how to use command options! " +
				"Take a look at the value(s) you entered:\n"
			if option, ok := optionMap["string-option"]; ok {
				margs = append(margs, option.StringValue())
				msgformat += "> string-option: %s\n"
			}
			if opt, ok := optionMap["integer-option"]; ok {
				margs = append(margs, opt.IntValue())
				msgformat += "> integer-option: %d\n"
			}
			if opt, ok := optionMap["number-option"]; ok {
				margs = append(margs, opt.FloatValue())
				msgformat += "> number-option: %f\n"
			}
			if opt, ok := optionMap["bool-option"]; ok {
				margs = append(margs, opt.BoolValue())
				msgformat += "> bool-option: %v\n"
			}
			if opt, ok := optionMap["channel-option"]; ok {
				margs = append(margs, opt.ChannelValue(nil).ID)
				msgformat += "> channel-option: <#%s>\n"
			}
			if opt, ok := optionMap["user-option"]; ok {
				margs = append(margs, opt.UserValue(nil).ID)
				msgformat += "> user-option: <@%s>\n"
			}
			if opt, ok := optionMap["role-option"]; ok {
				margs = append(margs, opt.RoleValue(nil, "").ID)
				msgformat += "> role-option: <@&%s>\n"
			}
			l.did("options", s.InteractionRespond(i.Interaction, message(fmt.Sprintf(msgformat, margs...))))
		},
		"permission-overview": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			perms, err := s.ApplicationCommandPermissions(s.State.User.ID, i.GuildID, i.ApplicationCommandData().ID)
			var restError *discordgo.RESTError
			if errors.As(err, &restError) && restError.Message != nil && restError.Message.Code == discordgo.ErrCodeUnknownApplicationCommandPermissions {
				l.did("permission-overview: none", s.InteractionRespond(i.Interaction, message(":x: No permission overwrites")))
				return
			} else if err != nil {
				l.did("permission-overview: ApplicationCommandPermissions", err)
				return
			}
			format := "- %s %s\n"
			channels, users, roles := "", "", ""
			for _, o := range perms.Permissions {
				emoji := "❌"
				if o.Permission {
					emoji = "☑"
				}
				switch o.Type {
				case discordgo.ApplicationCommandPermissionTypeUser:
					users += fmt.Sprintf(format, emoji, "<@!"+o.ID+">")
				case discordgo.ApplicationCommandPermissionTypeChannel:
					allChannels, _ := discordgo.GuildAllChannelsID(i.GuildID)
					if o.ID == allChannels {
						channels += fmt.Sprintf(format, emoji, "All channels")
					} else {
						channels += fmt.Sprintf(format, emoji, "<#"+o.ID+">")
					}
				case discordgo.ApplicationCommandPermissionTypeRole:
					if o.ID == i.GuildID {
						roles += fmt.Sprintf(format, emoji, "@everyone")
					} else {
						roles += fmt.Sprintf(format, emoji, "<@&"+o.ID+">")
					}
				}
			}
			// The example sends an empty value for a kind without
			// overwrites, which the real service refuses (an embed field's
			// value is required: docs/compat.md, "Message bodies: embeds,
			// mentions, polls"); here such a kind says so.
			for _, list := range []*string{&users, &channels, &roles} {
				if *list == "" {
					*list = "none"
				}
			}
			l.did("permission-overview: overview", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Embeds: []*discordgo.MessageEmbed{{
						Title:       "Permissions overview",
						Description: "Overview of permissions for this command",
						Fields: []*discordgo.MessageEmbedField{
							{Name: "Users", Value: users},
							{Name: "Channels", Value: channels},
							{Name: "Roles", Value: roles},
						},
					}},
					AllowedMentions: &discordgo.MessageAllowedMentions{},
				},
			}))
		},
		"subcommands": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			options := i.ApplicationCommandData().Options
			content := ""
			switch options[0].Name {
			case "subcommand":
				content = "The top-level subcommand is executed. Now try to execute the nested one."
			case "subcommand-group":
				options = options[0].Options
				switch options[0].Name {
				case "nested-subcommand":
					content = "Nice, now you know how to execute nested commands too"
				default:
					content = "Oops, something went wrong.\n" +
						"Hol' up, you aren't supposed to see this message."
				}
			}
			l.did("subcommands", s.InteractionRespond(i.Interaction, message(content)))
		},
		// The example's fallbacks on a failed call (a follow-up saying
		// "Something went wrong") are the test's failure here.
		"responses": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			content := ""
			switch i.ApplicationCommandData().Options[0].IntValue() {
			case int64(discordgo.InteractionResponseChannelMessageWithSource):
				content = respondedContent
			default:
				l.did("responses: deferred", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
					Type: discordgo.InteractionResponseType(i.ApplicationCommandData().Options[0].IntValue()),
				}))
				return
			}
			err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseType(i.ApplicationCommandData().Options[0].IntValue()),
				Data: &discordgo.InteractionResponseData{Content: content},
			})
			l.did("responses: InteractionRespond", err)
			if err != nil {
				return
			}
			go func() { // the example's time.AfterFunc(5 s, …)
				if !l.pause() {
					return
				}
				content := content + "\n\nWell, now you know how to create and edit responses. " +
					"But you still don't know how to delete them... so... wait 10 seconds and this " +
					"message will be deleted."
				_, err := s.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: &content})
				l.did("responses: InteractionResponseEdit", err)
				if err != nil || !l.pause() { // the example's time.Sleep(10 s)
					return
				}
				l.did("responses: InteractionResponseDelete", s.InteractionResponseDelete(i.Interaction))
			}()
		},
		"followups": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("followups: InteractionRespond", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral, Content: "Surprise!"},
			}))
			msg, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: followupContent})
			l.did("followups: FollowupMessageCreate", err)
			if err != nil || !l.pause() { // the example's time.Sleep(5 s)
				return
			}
			content := followupEditedContent
			_, err = s.FollowupMessageEdit(i.Interaction, msg.ID, &discordgo.WebhookEdit{Content: &content})
			l.did("followups: FollowupMessageEdit", err)
			if !l.pause() { // the example's time.Sleep(10 s)
				return
			}
			l.did("followups: FollowupMessageDelete", s.FollowupMessageDelete(i.Interaction, msg.ID))
			_, err = s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{Content: unicornContent})
			l.did("followups: FollowupMessageCreate", err)
		},
	}
}

// TestDiscordgoSlashCommandsExample runs examples/slash_commands/main.go:
// Open, ApplicationCommandCreate for each command with the id of
// s.State.User (the bot user READY named), the commandHandlers map behind
// one InteractionCreate handler, and the cleanup that deletes the
// commands (-rmcmd defaults to true). The member runs every command.
func TestDiscordgoSlashCommandsExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	s := exampleSession(t, e)
	commandHandlers := slashCommandsHandlers(l)
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		if h, ok := commandHandlers[i.ApplicationCommandData().Name]; ok {
			h(s, i)
		}
	})
	ready := make(chan string, 1)
	s.AddHandler(func(s *discordgo.Session, r *discordgo.Ready) {
		ready <- s.State.User.Username + "#" + s.State.User.Discriminator // the example logs it
	})
	open(t, s)
	if s.State.User == nil || s.State.User.ID != w.app || !s.State.User.Bot {
		t.Fatalf("state user after Open: %+v, want the bot user %s", s.State.User, w.app)
	}
	if who := recv(t, ready, "READY"); !strings.HasPrefix(who, s.State.User.Username+"#") {
		t.Errorf("Logged in as: %s", who)
	}

	commands := slashCommandsExample()
	registeredCommands := make([]*discordgo.ApplicationCommand, len(commands))
	for i, v := range commands {
		cmd, err := s.ApplicationCommandCreate(s.State.User.ID, w.guild, v)
		if err != nil {
			t.Fatalf("Cannot create '%v' command: %v", v.Name, err)
		}
		registeredCommands[i] = cmd
	}

	w.reply(t, w.run(w.pick(t, "basic-command")), "Hey there! Congratulations, you just executed your first slash command")
	l.await(t, "basic-command")

	m := w.reply(t, w.run(w.pick(t, "basic-command-with-files")),
		"Hey there! Congratulations, you just executed your first slash command with a file in the response")
	l.await(t, "basic-command-with-files")
	if len(m.Attachments) != 1 || m.Attachments[0].Filename != "test.txt" {
		t.Errorf("the answer's attachments: %+v, want test.txt", m.Attachments)
	}

	w.reply(t, w.run(w.pick(t, "localized-command")), "Hi! This is a localized message")
	l.await(t, "localized-command")

	role := adminID(t, e, "POST", "/guilds/"+w.guild+"/roles", map[string]any{"name": "mods"}, "id")
	w.reply(t, w.run(w.pick(t, "options"),
		option("string-option", 3, "hello"), option("integer-option", 4, 7), option("number-option", 10, 2.5),
		option("bool-option", 5, true), option("channel-option", 7, w.channel), option("user-option", 6, w.member),
		option("role-option", 8, role)),
		"You learned how to use command options! Take a look at the value(s) you entered:\n"+
			"> string-option: hello\n> integer-option: 7\n> number-option: 2.500000\n> bool-option: true\n"+
			"> channel-option: <#"+w.channel+">\n> user-option: <@"+w.member+">\n> role-option: <@&"+role+">\n")
	l.await(t, "options")

	sub := w.pick(t, "subcommands")
	w.reply(t, w.run(sub, subcommand("subcommand", 1)), "The top-level subcommand is executed. Now try to execute the nested one.")
	w.reply(t, w.run(sub, subcommand("subcommand-group", 2, subcommand("nested-subcommand", 1))),
		"Nice, now you know how to execute nested commands too")
	l.await(t, "subcommands", "subcommands")

	// responses 4: answer, edit (@original), delete.
	responses := w.pick(t, "responses")
	m = w.reply(t, w.run(responses, option("resp-type", 4, 4)), respondedContent)
	l.await(t, "responses: InteractionRespond")
	if m.Type != 20 || m.InteractionMetadata == nil || m.InteractionMetadata.Name != "responses" || m.InteractionMetadata.User.ID != w.member {
		t.Errorf("the answer: type %d interaction_metadata %+v", m.Type, m.InteractionMetadata)
	}
	w.seenAs(t, m.ID, respondedContent)
	l.resume(t)
	l.await(t, "responses: InteractionResponseEdit")
	if edited := w.seenAs(t, m.ID, editedContent); edited.EditedTimestamp == nil {
		t.Error("the edited answer has no edited_timestamp")
	}
	l.resume(t)
	l.await(t, "responses: InteractionResponseDelete")
	if _, ok := w.seen(t, m.ID); ok {
		t.Errorf("the deleted answer %s is still in the channel", m.ID)
	}
	// responses 5: a deferred answer, which the member sees loading.
	a := w.interact(t, 5, w.run(responses, option("resp-type", 4, 5)))
	l.await(t, "responses: deferred")
	if a.Interaction.ResponseMessageLoading == nil || !*a.Interaction.ResponseMessageLoading || a.Resource.Message.Flags&128 == 0 {
		t.Errorf("deferred answer: loading %v flags %d, want a loading message", a.Interaction.ResponseMessageLoading, a.Resource.Message.Flags)
	}

	// followups: an ephemeral answer, a follow-up edited then deleted,
	// another follow-up.
	m = w.reply(t, w.run(w.pick(t, "followups")), "Surprise!")
	if m.Flags&flagEphemeral == 0 {
		t.Errorf("Surprise! flags %d, want EPHEMERAL", m.Flags)
	}
	l.await(t, "followups: InteractionRespond", "followups: FollowupMessageCreate")
	followup := w.newest(t)
	if followup.Content != followupContent || followup.ID == m.ID || followup.Flags&flagEphemeral != 0 {
		t.Fatalf("the follow-up: %+v", followup)
	}
	l.resume(t)
	l.await(t, "followups: FollowupMessageEdit")
	w.seenAs(t, followup.ID, followupEditedContent)
	l.resume(t)
	l.await(t, "followups: FollowupMessageDelete", "followups: FollowupMessageCreate")
	if _, ok := w.seen(t, followup.ID); ok {
		t.Errorf("the deleted follow-up %s is still in the channel", followup.ID)
	}
	if last := w.newest(t); last.Content != unicornContent {
		t.Errorf("the last follow-up: %q", last.Content)
	}

	// permission-overview asks for MANAGE_GUILD, which the owner has and
	// the member has not; once the owner allows the member (a Bearer
	// token with applications.commands.permissions.update, through
	// discordgo), the member may run it and sees the overwrite.
	ownerClient := adminID(t, e, "POST", "/users/"+e.App.OwnerUserID+"/tokens", map[string]any{"type": "client"}, "token")
	if _, ok := w.picker(t)["permission-overview"]; ok {
		t.Error("the member's picker shows permission-overview")
	}
	overview := w.pickAs(t, ownerClient, "permission-overview")
	w.interactAs(t, ownerClient, 4, w.run(overview))
	l.await(t, "permission-overview: none")
	owner, _ := newDiscordgo(t, e, "Bearer "+e.App.OwnerBearerToken)
	if err := owner.ApplicationCommandPermissionsEdit(w.app, w.guild, overview.ID, &discordgo.ApplicationCommandPermissionsList{
		Permissions: []*discordgo.ApplicationCommandPermissions{{ID: w.member, Type: discordgo.ApplicationCommandPermissionTypeUser, Permission: true}},
	}); err != nil {
		t.Fatalf("allow the member: %v", err)
	}
	m = *w.interact(t, 4, w.run(w.pick(t, "permission-overview"))).Resource.Message
	l.await(t, "permission-overview: overview")
	// The field values come back trimmed, as the real service stores them.
	if len(m.Embeds) != 1 || m.Embeds[0].Title != "Permissions overview" || len(m.Embeds[0].Fields) != 3 ||
		m.Embeds[0].Fields[0].Value != "- ☑ <@!"+w.member+">" || m.Embeds[0].Fields[2].Value != "none" {
		t.Errorf("the overview: %+v", m.Embeds)
	}

	deleteCommands(t, s, w, s.State.User.ID, registeredCommands)
	l.idle(t)
}

// componentsHandlers is examples/components/main.go's componentsHandlers
// (their rows of link buttons shortened to the two they share), without
// its time.Sleep(time.Second) "so user won't see instant response".
func componentsHandlers(l *handlerLog) map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate) {
	ephemeral := func(content string, components ...discordgo.MessageComponent) *discordgo.InteractionResponse {
		return &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: content, Flags: discordgo.MessageFlagsEphemeral, Components: components},
		}
	}
	links := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Emoji: &discordgo.ComponentEmoji{Name: "🔧"}, Label: "Discord developers", Style: discordgo.LinkButton, URL: "https://discord.gg/discord-developers"},
		discordgo.Button{Emoji: &discordgo.ComponentEmoji{Name: "🦫"}, Label: "Discord Gophers", Style: discordgo.LinkButton, URL: "https://discord.gg/7RuRrVHyXF"},
	}}
	return map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"fd_no": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("fd_no", s.InteractionRespond(i.Interaction, ephemeral("Huh. I see, maybe some of these resources might help you?", links)))
		},
		"fd_yes": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("fd_yes", s.InteractionRespond(i.Interaction, ephemeral("Great! If you wanna know more or just have questions, feel free to visit Discord Devs and Discord Gophers server. "+
				"But now, when you know how buttons work, let's move onto select menus (execute `/selects single`)", links)))
		},
		"select": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			var response *discordgo.InteractionResponse
			data := i.MessageComponentData()
			switch data.Values[0] {
			case "go":
				response = ephemeral("This is the way.")
			default:
				response = ephemeral("It is not the way to go.")
			}
			l.did("select: InteractionRespond", s.InteractionRespond(i.Interaction, response))
			_, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{
				Content: "Anyways, now when you know how to use single select menus, let's see how multi select menus work. " +
					"Try calling `/selects multi` command.",
				Flags: discordgo.MessageFlagsEphemeral,
			})
			l.did("select: FollowupMessageCreate", err)
		},
		"stackoverflow_tags": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			data := i.MessageComponentData()
			const stackoverflowFormat = `https://stackoverflow.com/questions/tagged/%s`
			l.did("stackoverflow_tags: InteractionRespond", s.InteractionRespond(i.Interaction,
				ephemeral("Here is your stackoverflow URL: "+fmt.Sprintf(stackoverflowFormat, strings.Join(data.Values, "+")))))
			_, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{
				Content: "But wait, there is more! You can also auto populate the select menu. Try executing `/selects auto-populated`.",
				Flags:   discordgo.MessageFlagsEphemeral,
			})
			l.did("stackoverflow_tags: FollowupMessageCreate", err)
		},
		"channel_select": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("channel_select", s.InteractionRespond(i.Interaction, ephemeral("This is it. You've reached your destination. Your choice was <#"+i.MessageComponentData().Values[0]+">\n"+
				"If you want to know more, check out the links below", links)))
		},
	}
}

// componentsCommandsHandlers is examples/components/main.go's
// commandsHandlers.
func componentsCommandsHandlers(l *handlerLog) map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate) {
	option := func(label, value, emoji, description string) discordgo.SelectMenuOption {
		return discordgo.SelectMenuOption{Label: label, Value: value, Emoji: &discordgo.ComponentEmoji{Name: emoji}, Description: description}
	}
	menu := func(content string, menu discordgo.SelectMenu) *discordgo.InteractionResponse {
		return &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: content, Flags: discordgo.MessageFlagsEphemeral,
				Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}}}},
		}
	}
	return map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"buttons": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("buttons", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: "Are you comfortable with buttons and other message components?",
					Flags:   discordgo.MessageFlagsEphemeral,
					Components: []discordgo.MessageComponent{
						discordgo.ActionsRow{Components: []discordgo.MessageComponent{
							discordgo.Button{Label: "Yes", Style: discordgo.SuccessButton, Disabled: false, CustomID: "fd_yes"},
							discordgo.Button{Label: "No", Style: discordgo.DangerButton, Disabled: false, CustomID: "fd_no"},
							discordgo.Button{Label: "I don't know", Style: discordgo.LinkButton, Disabled: false,
								URL: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", Emoji: &discordgo.ComponentEmoji{Name: "🤷"}},
						}},
						discordgo.ActionsRow{Components: []discordgo.MessageComponent{
							discordgo.Button{Label: "Discord Developers server", Style: discordgo.LinkButton, Disabled: false, URL: "https://discord.gg/discord-developers"},
						}},
					},
				},
			}))
		},
		"selects": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			var response *discordgo.InteractionResponse
			switch i.ApplicationCommandData().Options[0].Name {
			case "single":
				response = menu("Now let's take a look on selects. This is single item select menu.", discordgo.SelectMenu{
					CustomID:    "select",
					Placeholder: "Choose your favorite programming language 👇",
					Options: []discordgo.SelectMenuOption{
						option("Go", "go", "🦦", "Go programming language"),
						option("JS", "js", "🟨", "JavaScript programming language"),
						option("Python", "py", "🐍", "Python programming language"),
					},
				})
			case "multi":
				minValues := 1
				response = menu("Now let's see how the multi-item select menu works: "+
					"try generating your own stackoverflow search link", discordgo.SelectMenu{
					CustomID:    "stackoverflow_tags",
					Placeholder: "Select tags to search on StackOverflow",
					MinValues:   &minValues,
					MaxValues:   3,
					Options: []discordgo.SelectMenuOption{
						option("Go", "go", "🦦", "Simple yet powerful programming language"),
						option("JS", "javascript", "🟨", "Multiparadigm OOP language"),
						option("Python", "python", "🐍", "OOP prototyping programming language"),
						option("Web", "web", "🌐", "Web related technologies"),
						option("Desktop", "desktop", "💻", "Desktop applications"),
					},
				})
			case "auto-populated":
				response = menu("The tastiest things are left for the end. Meet auto populated select menus.\n"+
					"By setting `MenuType` on the select menu you can tell Discord to automatically populate the menu with entities of your choice: roles, members, channels. Try one below.",
					discordgo.SelectMenu{
						MenuType:     discordgo.ChannelSelectMenu,
						CustomID:     "channel_select",
						Placeholder:  "Pick your favorite channel!",
						ChannelTypes: []discordgo.ChannelType{discordgo.ChannelTypeGuildText},
					})
			}
			l.did("selects", s.InteractionRespond(i.Interaction, response))
		},
	}
}

// TestDiscordgoComponentsExample runs examples/components/main.go: the
// two commands created for -app and -guild before Open, one
// InteractionCreate handler routing commands by name and components by
// custom_id. The member presses the buttons and picks from each menu,
// "in order it's placed in the example".
func TestDiscordgoComponentsExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	s := exampleSession(t, e)
	componentsHandlers, commandsHandlers := componentsHandlers(l), componentsCommandsHandlers(l)
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		switch i.Type {
		case discordgo.InteractionApplicationCommand:
			if h, ok := commandsHandlers[i.ApplicationCommandData().Name]; ok {
				h(s, i)
			}
		case discordgo.InteractionMessageComponent:
			if h, ok := componentsHandlers[i.MessageComponentData().CustomID]; ok {
				h(s, i)
			}
		}
	})
	if _, err := s.ApplicationCommandCreate(w.app, w.guild, &discordgo.ApplicationCommand{
		Name:        "buttons",
		Description: "Test the buttons if you got courage",
	}); err != nil {
		t.Fatalf("Cannot create slash command: %v", err)
	}
	if _, err := s.ApplicationCommandCreate(w.app, w.guild, &discordgo.ApplicationCommand{
		Name: "selects",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "multi", Description: "Multi-item select menu"},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "single", Description: "Single-item select menu"},
			{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "auto-populated", Description: "Automatically populated select menu, which lets you pick a member, channel or role"},
		},
		Description: "Lo and behold: dropdowns are coming",
	}); err != nil {
		t.Fatalf("Cannot create slash command: %v", err)
	}
	open(t, s)

	buttons := w.reply(t, w.run(w.pick(t, "buttons")), "Are you comfortable with buttons and other message components?")
	l.await(t, "buttons")
	if ids := strings.Join(customIDs(buttons.Components), ","); buttons.Flags&flagEphemeral == 0 || len(buttons.Components) != 2 || ids != "fd_yes,fd_no" {
		t.Fatalf("the buttons: flags %d, %d rows, custom ids %s", buttons.Flags, len(buttons.Components), ids)
	}
	if link := buttons.Components[0].Components[2]; link.Style != int(discordgo.LinkButton) || link.URL == "" {
		t.Errorf("the link button: %+v", link)
	}
	yes := w.reply(t, w.click(buttons.ID, "fd_yes", 2), "Great! If you wanna know more or just have questions, feel free to visit Discord Devs and Discord Gophers server. "+
		"But now, when you know how buttons work, let's move onto select menus (execute `/selects single`)")
	l.await(t, "fd_yes")
	if yes.Flags&flagEphemeral == 0 || yes.Type != 0 || len(yes.Components) != 1 {
		t.Errorf("the answer to a button: type %d flags %d components %+v", yes.Type, yes.Flags, yes.Components)
	}
	w.reply(t, w.click(buttons.ID, "fd_no", 2), "Huh. I see, maybe some of these resources might help you?")
	l.await(t, "fd_no")

	selects := w.pick(t, "selects")
	single := w.reply(t, w.run(selects, subcommand("single", 1)), "Now let's take a look on selects. This is single item select menu.")
	l.await(t, "selects")
	w.reply(t, w.click(single.ID, "select", 3, "go"), "This is the way.")
	l.await(t, "select: InteractionRespond", "select: FollowupMessageCreate")
	if f := w.newest(t); f.Content != "Anyways, now when you know how to use single select menus, let's see how multi select menus work. Try calling `/selects multi` command." ||
		f.Flags&flagEphemeral == 0 {
		t.Errorf("the follow-up: %q flags %d", f.Content, f.Flags)
	}
	w.reply(t, w.click(single.ID, "select", 3, "py"), "It is not the way to go.")
	l.await(t, "select: InteractionRespond", "select: FollowupMessageCreate")

	multi := w.reply(t, w.run(selects, subcommand("multi", 1)),
		"Now let's see how the multi-item select menu works: try generating your own stackoverflow search link")
	l.await(t, "selects")
	w.reply(t, w.click(multi.ID, "stackoverflow_tags", 3, "go", "python"),
		"Here is your stackoverflow URL: https://stackoverflow.com/questions/tagged/go+python")
	l.await(t, "stackoverflow_tags: InteractionRespond", "stackoverflow_tags: FollowupMessageCreate")

	auto := w.interact(t, 4, w.run(selects, subcommand("auto-populated", 1))).Resource.Message
	l.await(t, "selects")
	w.reply(t, w.click(auto.ID, "channel_select", 8, w.channel), "This is it. You've reached your destination. Your choice was <#"+w.channel+">\n"+
		"If you want to know more, check out the links below")
	l.await(t, "channel_select")
	l.idle(t)
}

// TestDiscordgoModalsExample runs examples/modals/main.go: the survey
// command created before Open, a modal (callback type 9) with two text
// inputs in action rows, and on the submission an ephemeral thanks and
// the results sent to the -results channel with ChannelMessageSend; the
// cleanup deletes the command.
func TestDiscordgoModalsExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	resultsChannel := adminID(t, e, "POST", "/guilds/"+w.guild+"/channels", map[string]any{"name": "survey-results"}, "id")
	l := newHandlerLog(t)
	s := exampleSession(t, e)
	commands := []discordgo.ApplicationCommand{{Name: "modals-survey", Description: "Take a survey about modals"}}
	commandsHandlers := map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"modals-survey": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did("modals-survey", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseModal,
				Data: &discordgo.InteractionResponseData{
					CustomID: "modals_survey_" + i.Interaction.Member.User.ID,
					Title:    "Modals survey",
					Components: []discordgo.MessageComponent{
						discordgo.ActionsRow{Components: []discordgo.MessageComponent{
							discordgo.TextInput{
								CustomID:    "opinion",
								Label:       "What is your opinion on them?",
								Style:       discordgo.TextInputShort,
								Placeholder: "Don't be shy, share your opinion with us",
								Required:    true,
								MaxLength:   300,
								MinLength:   10,
							},
						}},
						discordgo.ActionsRow{Components: []discordgo.MessageComponent{
							discordgo.TextInput{
								CustomID:  "suggestions",
								Label:     "What would you suggest to improve them?",
								Style:     discordgo.TextInputParagraph,
								Required:  false,
								MaxLength: 2000,
							},
						}},
					},
				},
			}))
		},
	}
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		switch i.Type {
		case discordgo.InteractionApplicationCommand:
			if h, ok := commandsHandlers[i.ApplicationCommandData().Name]; ok {
				h(s, i)
			}
		case discordgo.InteractionModalSubmit:
			err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: "Thank you for taking your time to fill this survey",
					Flags:   discordgo.MessageFlagsEphemeral,
				},
			})
			l.did("modal: InteractionRespond", err)
			data := i.ModalSubmitData()
			if !strings.HasPrefix(data.CustomID, "modals_survey") {
				return
			}
			userid := strings.Split(data.CustomID, "_")[2]
			_, err = s.ChannelMessageSend(resultsChannel, fmt.Sprintf(
				"Feedback received. From <@%s>\n\n**Opinion**:\n%s\n\n**Suggestions**:\n%s",
				userid,
				data.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput).Value,
				data.Components[1].(*discordgo.ActionsRow).Components[0].(*discordgo.TextInput).Value,
			))
			l.did("modal: ChannelMessageSend", err)
		}
	})
	var created []*discordgo.ApplicationCommand
	for _, cmd := range commands {
		rcmd, err := s.ApplicationCommandCreate(w.app, w.guild, &cmd)
		if err != nil {
			t.Fatalf("Cannot create slash command %q: %v", cmd.Name, err)
		}
		created = append(created, rcmd)
	}
	open(t, s)

	a := w.interact(t, 9, w.run(w.pick(t, "modals-survey")))
	l.await(t, "modals-survey")
	modal := a.Resource.Modal
	if modal == nil || modal.CustomID != "modals_survey_"+w.member || modal.Title != "Modals survey" ||
		strings.Join(customIDs(modal.Components), ",") != "opinion,suggestions" {
		t.Fatalf("the modal: %+v", modal)
	}
	thanks := w.reply(t, w.submit(a.Interaction.ID, modal.CustomID,
		textRow("opinion", "They are really handy"), textRow("suggestions", "More kinds of input")),
		"Thank you for taking your time to fill this survey")
	l.await(t, "modal: InteractionRespond", "modal: ChannelMessageSend")
	if thanks.Flags&flagEphemeral == 0 {
		t.Errorf("the thanks: flags %d, want EPHEMERAL", thanks.Flags)
	}
	results := w.messagesIn(t, resultsChannel)
	if len(results) != 1 || !results[0].Author.Bot || results[0].Author.ID != w.app ||
		results[0].Content != "Feedback received. From <@"+w.member+">\n\n**Opinion**:\nThey are really handy\n\n**Suggestions**:\nMore kinds of input" {
		t.Fatalf("the results channel: %+v", results)
	}

	deleteCommands(t, s, w, w.app, created)
	l.idle(t)
}

// TestDiscordgoAutocompleteExample runs examples/autocomplete/main.go:
// Open, ApplicationCommandBulkOverwrite with s.State.User.ID, handlers
// answering autocomplete (callback type 8) and the command itself, and
// the cleanup deleting the created commands.
func TestDiscordgoAutocompleteExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	s := exampleSession(t, e)
	commands := []*discordgo.ApplicationCommand{
		{
			Name:        "single-autocomplete",
			Description: "Showcase of single autocomplete option",
			Type:        discordgo.ChatApplicationCommand,
			Options: []*discordgo.ApplicationCommandOption{
				{Name: "autocomplete-option", Description: "Autocomplete option", Type: discordgo.ApplicationCommandOptionString, Required: true, Autocomplete: true},
			},
		},
		{
			Name:        "multi-autocomplete",
			Description: "Showcase of multiple autocomplete option",
			Type:        discordgo.ChatApplicationCommand,
			Options: []*discordgo.ApplicationCommandOption{
				{Name: "autocomplete-option-1", Description: "Autocomplete option 1", Type: discordgo.ApplicationCommandOptionString, Required: true, Autocomplete: true},
				{Name: "autocomplete-option-2", Description: "Autocomplete option 2", Type: discordgo.ApplicationCommandOptionString, Required: true, Autocomplete: true},
			},
		},
	}
	choice := func(name, value string) *discordgo.ApplicationCommandOptionChoice {
		return &discordgo.ApplicationCommandOptionChoice{Name: name, Value: value}
	}
	respondChoices := func(s *discordgo.Session, i *discordgo.InteractionCreate, choices []*discordgo.ApplicationCommandOptionChoice) error {
		return s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: choices},
		})
	}
	commandHandlers := map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		"single-autocomplete": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			switch i.Type {
			case discordgo.InteractionApplicationCommand:
				data := i.ApplicationCommandData()
				l.did("single-autocomplete", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
					Type: discordgo.InteractionResponseChannelMessageWithSource,
					Data: &discordgo.InteractionResponseData{
						Content: fmt.Sprintf("You picked %q autocompletion", data.Options[0].StringValue()),
					},
				}))
			case discordgo.InteractionApplicationCommandAutocomplete:
				data := i.ApplicationCommandData()
				choices := []*discordgo.ApplicationCommandOptionChoice{
					choice("Autocomplete", "autocomplete"), choice("Autocomplete is best!", "autocomplete_is_best"),
					choice("Choice 3", "choice3"), choice("Choice 4", "choice4"), choice("Choice 5", "choice5"),
				}
				if data.Options[0].StringValue() != "" {
					choices = append(choices, choice(data.Options[0].StringValue(), "choice_custom"))
				}
				l.did("single-autocomplete: choices", respondChoices(s, i, choices))
			}
		},
		"multi-autocomplete": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			switch i.Type {
			case discordgo.InteractionApplicationCommand:
				data := i.ApplicationCommandData()
				l.did("multi-autocomplete", s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
					Type: discordgo.InteractionResponseChannelMessageWithSource,
					Data: &discordgo.InteractionResponseData{
						Content: fmt.Sprintf("Option 1: %s\nOption 2: %s", data.Options[0].StringValue(), data.Options[1].StringValue()),
					},
				}))
			case discordgo.InteractionApplicationCommandAutocomplete:
				data := i.ApplicationCommandData()
				var choices []*discordgo.ApplicationCommandOptionChoice
				switch {
				case data.Options[0].Focused:
					choices = []*discordgo.ApplicationCommandOptionChoice{
						choice("Autocomplete 4 first option", "autocomplete_default"),
						choice("Choice 3", "choice3"), choice("Choice 4", "choice4"), choice("Choice 5", "choice5"),
					}
					if data.Options[0].StringValue() != "" {
						choices = append(choices, choice(data.Options[0].StringValue(), "choice_custom"))
					}
				case data.Options[1].Focused:
					choices = []*discordgo.ApplicationCommandOptionChoice{
						choice("Autocomplete 4 second option", "autocomplete_1_default"),
						choice("Choice 3.1", "choice3_1"), choice("Choice 4.1", "choice4_1"), choice("Choice 5.1", "choice5_1"),
					}
					if data.Options[1].StringValue() != "" {
						choices = append(choices, choice(data.Options[1].StringValue(), "choice_custom_2"))
					}
				}
				l.did("multi-autocomplete: choices", respondChoices(s, i, choices))
			}
		},
	}
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		if h, ok := commandHandlers[i.ApplicationCommandData().Name]; ok {
			h(s, i)
		}
	})
	open(t, s)
	createdCommands, err := s.ApplicationCommandBulkOverwrite(s.State.User.ID, w.guild, commands)
	if err != nil {
		t.Fatalf("Cannot register commands: %v", err)
	}

	checkChoices := func(a memberAnswer, want ...string) {
		t.Helper()
		var got []string
		for _, c := range a.Resource.Choices {
			got = append(got, fmt.Sprintf("%s=%v", c.Name, c.Value))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("choices: %v, want %v", got, want)
		}
	}
	single := w.pick(t, "single-autocomplete")
	checkChoices(w.interact(t, 8, w.typing(single, focused("autocomplete-option", 3, "auto"))),
		"Autocomplete=autocomplete", "Autocomplete is best!=autocomplete_is_best", "Choice 3=choice3", "Choice 4=choice4",
		"Choice 5=choice5", "auto=choice_custom")
	l.await(t, "single-autocomplete: choices")
	w.reply(t, w.run(single, option("autocomplete-option", 3, "autocomplete_is_best")), `You picked "autocomplete_is_best" autocompletion`)
	l.await(t, "single-autocomplete")

	multi := w.pick(t, "multi-autocomplete")
	checkChoices(w.interact(t, 8, w.typing(multi, focused("autocomplete-option-1", 3, ""), option("autocomplete-option-2", 3, ""))),
		"Autocomplete 4 first option=autocomplete_default", "Choice 3=choice3", "Choice 4=choice4", "Choice 5=choice5")
	checkChoices(w.interact(t, 8, w.typing(multi, option("autocomplete-option-1", 3, "autocomplete_default"), focused("autocomplete-option-2", 3, "3.1"))),
		"Autocomplete 4 second option=autocomplete_1_default", "Choice 3.1=choice3_1", "Choice 4.1=choice4_1", "Choice 5.1=choice5_1", "3.1=choice_custom_2")
	l.await(t, "multi-autocomplete: choices", "multi-autocomplete: choices")
	w.reply(t, w.run(multi, option("autocomplete-option-1", 3, "autocomplete_default"), option("autocomplete-option-2", 3, "choice3_1")),
		"Option 1: autocomplete_default\nOption 2: choice3_1")
	l.await(t, "multi-autocomplete")

	deleteCommands(t, s, w, s.State.User.ID, createdCommands)
	l.idle(t)
}

// TestDiscordgoContextMenusExample runs examples/context_menus/main.go:
// its USER and MESSAGE commands created before Open, each MESSAGE command
// answering with a search link built from the target message's content
// (resolved.messages), the USER command "rickroll-em" answering and then
// opening a DM with its target (UserChannelCreate, POST
// /users/@me/channels) to post there (ChannelMessageSend), which the
// target reads with their client token, and the cleanup.
func TestDiscordgoContextMenusExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	l := newHandlerLog(t)
	s := exampleSession(t, e)
	searchLink := func(message, format, sep string) string {
		return fmt.Sprintf(format, strings.Join(strings.Split(message, " "), sep))
	}
	commands := []discordgo.ApplicationCommand{
		{Name: "rickroll-em", Type: discordgo.UserApplicationCommand},
		{Name: "google-it", Type: discordgo.MessageApplicationCommand},
		{Name: "stackoverflow-it", Type: discordgo.MessageApplicationCommand},
		{Name: "godoc-it", Type: discordgo.MessageApplicationCommand},
		{Name: "discordjs-it", Type: discordgo.MessageApplicationCommand},
		{Name: "discordpy-it", Type: discordgo.MessageApplicationCommand},
	}
	formats := map[string]string{
		"google-it":        "https://google.com/search?q=%s",
		"stackoverflow-it": "https://stackoverflow.com/search?q=%s",
		"godoc-it":         "https://pkg.go.dev/search?q=%s",
		"discordjs-it":     "https://discord.js.org/#/docs/main/stable/search?query=%s",
		"discordpy-it":     "https://discordpy.readthedocs.io/en/stable/search.html?q=%s",
	}
	commandsHandlers := map[string]func(s *discordgo.Session, i *discordgo.InteractionCreate){
		// As the example, but for its panics, which become failed steps
		// (the example panics on each error; after a failed
		// UserChannelCreate it sends a follow-up, then panics on the nil
		// channel).
		"rickroll-em": func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: "Operation rickroll has begun",
					Flags:   discordgo.MessageFlagsEphemeral,
				},
			})
			l.did("rickroll-em", err)
			if err != nil {
				return
			}
			ch, err := s.UserChannelCreate(
				i.ApplicationCommandData().TargetID,
			)
			if err != nil {
				_, ferr := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{
					Content: fmt.Sprintf("Mission failed. Cannot send a message to this user: %q", err.Error()),
					Flags:   discordgo.MessageFlagsEphemeral,
				})
				l.did("rickroll-em: UserChannelCreate", errors.Join(err, ferr))
				return
			}
			l.did("rickroll-em: UserChannelCreate", nil)
			_, err = s.ChannelMessageSend(
				ch.ID,
				fmt.Sprintf("%s sent you this: https://youtu.be/dQw4w9WgXcQ", i.Member.Mention()),
			)
			l.did("rickroll-em: ChannelMessageSend", err)
		},
	}
	for name, format := range formats {
		commandsHandlers[name] = func(s *discordgo.Session, i *discordgo.InteractionCreate) {
			l.did(name, s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{
					Content: searchLink(i.ApplicationCommandData().Resolved.Messages[i.ApplicationCommandData().TargetID].Content, format, "+"),
					Flags:   discordgo.MessageFlagsEphemeral,
				},
			}))
		}
	}
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		if h, ok := commandsHandlers[i.ApplicationCommandData().Name]; ok {
			h(s, i)
		}
	})
	var created []*discordgo.ApplicationCommand
	for _, cmd := range commands {
		rcmd, err := s.ApplicationCommandCreate(w.app, w.guild, &cmd)
		if err != nil {
			t.Fatalf("Cannot create slash command %q: %v", cmd.Name, err)
		}
		created = append(created, rcmd)
	}
	open(t, s)

	target := w.post(t, "how to write a bot")
	for _, name := range []string{"google-it", "stackoverflow-it", "godoc-it", "discordjs-it", "discordpy-it"} {
		m := w.reply(t, w.runOn(w.pick(t, name), target), fmt.Sprintf(formats[name], "how+to+write+a+bot"))
		l.await(t, name)
		if m.Flags&flagEphemeral == 0 || m.Type != 23 {
			t.Errorf("%s: type %d flags %d, want an ephemeral CONTEXT_MENU_COMMAND message", name, m.Type, m.Flags)
		}
	}
	// bob, another member, is rickrolled: the answer is ephemeral, and
	// the bot's DM reaches him. slashd, as the real gateway, sends the
	// bot no CHANNEL_CREATE for the DM.
	channelCreates := make(chan *discordgo.ChannelCreate, 4)
	s.AddHandler(func(_ *discordgo.Session, c *discordgo.ChannelCreate) { channelCreates <- c })
	bob := adminID(t, e, "POST", "/users", map[string]any{"username": "bob"}, "id")
	if r := e.Do("PUT", "/admin/v1/guilds/"+w.guild+"/members/"+bob, e.AdminAuth(), map[string]any{}); r.Status/100 != 2 {
		t.Fatalf("add bob: %d %s", r.Status, r.Body)
	}
	bobClient := adminID(t, e, "POST", "/users/"+bob+"/tokens", map[string]any{"type": "client"}, "token")
	rick := w.pick(t, "rickroll-em")
	if rick.Type != int(discordgo.UserApplicationCommand) {
		t.Errorf("rickroll-em: type %d", rick.Type)
	}
	if m := w.reply(t, w.runOn(rick, bob), "Operation rickroll has begun"); m.Flags&flagEphemeral == 0 || m.Type != 23 {
		t.Errorf("rickroll-em: type %d flags %d, want an ephemeral CONTEXT_MENU_COMMAND message", m.Type, m.Flags)
	}
	l.await(t, "rickroll-em", "rickroll-em: UserChannelCreate", "rickroll-em: ChannelMessageSend")
	var dms []struct {
		ID         string `json:"id"`
		Type       int    `json:"type"`
		Recipients []struct {
			ID  string `json:"id"`
			Bot bool   `json:"bot"`
		} `json:"recipients"`
	}
	r := e.Do("GET", "/api/v10/users/@me/channels", bobClient, nil)
	r.JSON(t, &dms)
	if r.Status != 200 || len(dms) != 1 || dms[0].Type != 1 || len(dms[0].Recipients) != 1 ||
		dms[0].Recipients[0].ID != w.app || !dms[0].Recipients[0].Bot {
		t.Fatalf("bob's DMs: %d %s", r.Status, r.Body)
	}
	var inbox []wireMessage
	r = e.Do("GET", "/api/v10/channels/"+dms[0].ID+"/messages", bobClient, nil)
	r.JSON(t, &inbox)
	// Member.Mention is the nickname form, <@!id>.
	if want := "<@!" + w.member + "> sent you this: https://youtu.be/dQw4w9WgXcQ"; r.Status != 200 || len(inbox) != 1 ||
		inbox[0].Content != want || inbox[0].Author.ID != w.app || inbox[0].ChannelID != dms[0].ID {
		t.Errorf("bob's DM with the bot: %d %s, want the bot's %q", r.Status, r.Body, want)
	}

	// Once the next dispatch (an interaction) has reached the bot, any
	// CHANNEL_CREATE sent before it would have too.
	w.reply(t, w.runOn(w.pick(t, "google-it"), target), fmt.Sprintf(formats["google-it"], "how+to+write+a+bot"))
	l.await(t, "google-it")
	select {
	case c := <-channelCreates:
		t.Errorf("CHANNEL_CREATE for %+v", c.Channel)
	default:
	}

	deleteCommands(t, s, w, w.app, created)
	l.idle(t)
}

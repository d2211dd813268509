package clienttest

// A bot's channel messages through real clients: discordgo's
// ChannelMessage, ChannelMessageEdit and ChannelMessageDelete (its
// default API v9) and disgo's rest GetMessage, UpdateMessage and
// DeleteMessage (v10), on the bot's own message and on a member's; and a
// disgo bot on its HTTP interactions server answering a command with a
// file, which disgo's server writes as a multipart/form-data answer.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/disgoorg/disgo"
	"github.com/disgoorg/disgo/bot"
	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/events"
	"github.com/disgoorg/disgo/httpserver"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/snowflake/v2"

	"github.com/slashd/slashd/internal/testenv"
)

func TestDiscordgoChannelMessage(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	s, _ := newDiscordgo(t, e, "Bot "+e.App.BotToken)
	hers := w.post(t, "from alice")

	sent, err := s.ChannelMessageSend(w.channel, "from the bot")
	if err != nil {
		t.Fatalf("ChannelMessageSend: %v", err)
	}
	got, err := s.ChannelMessage(w.channel, sent.ID)
	if err != nil || got.ID != sent.ID || got.Content != "from the bot" || got.Author == nil || got.Author.ID != w.app {
		t.Fatalf("ChannelMessage: %+v, %v", got, err)
	}
	if got, err := s.ChannelMessage(w.channel, hers); err != nil || got.Content != "from alice" || got.Author.ID != w.member {
		t.Fatalf("ChannelMessage(alice's): %+v, %v", got, err)
	}
	edited, err := s.ChannelMessageEdit(w.channel, sent.ID, "edited by the bot")
	if err != nil || edited.ID != sent.ID || edited.Content != "edited by the bot" || edited.EditedTimestamp == nil {
		t.Fatalf("ChannelMessageEdit: %+v, %v", edited, err)
	}
	w.seenAs(t, sent.ID, "edited by the bot")

	_, err = s.ChannelMessageEdit(w.channel, hers, "mine now")
	restErr(t, err, http.StatusForbidden, 50005)
	restErr(t, s.ChannelMessageDelete(w.channel, hers), http.StatusForbidden, 50013)
	_, err = s.ChannelMessage(w.channel, "1234567")
	restErr(t, err, http.StatusNotFound, 10008)

	if err := s.ChannelMessageDelete(w.channel, sent.ID); err != nil {
		t.Fatalf("ChannelMessageDelete: %v", err)
	}
	if _, ok := w.seen(t, sent.ID); ok {
		t.Fatal("the deleted message is still in the channel")
	}
	_, err = s.ChannelMessage(w.channel, sent.ID)
	restErr(t, err, http.StatusNotFound, 10008)
}

func TestDisgoChannelMessage(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	client, _ := newDisgo(t, e)
	channel := snowflake.MustParse(w.channel)
	hers := snowflake.MustParse(w.post(t, "from alice"))

	sent, err := client.CreateMessage(channel, discord.MessageCreate{Content: "from the bot",
		Embeds: []discord.Embed{{Description: "an embed"}}})
	if err != nil {
		t.Fatalf("CreateMessage: %v", err)
	}
	got, err := client.GetMessage(channel, sent.ID)
	if err != nil || got.ID != sent.ID || got.Content != "from the bot" || got.Author.ID.String() != w.app || len(got.Embeds) != 1 {
		t.Fatalf("GetMessage: %+v, %v", got, err)
	}
	content := "edited by the bot"
	suppressed := discord.MessageFlagSuppressEmbeds
	edited, err := client.UpdateMessage(channel, sent.ID, discord.MessageUpdate{Content: &content, Flags: &suppressed})
	if err != nil || edited.Content != content || edited.EditedTimestamp == nil || !edited.Flags.Has(discord.MessageFlagSuppressEmbeds) ||
		len(edited.Embeds) != 1 {
		t.Fatalf("UpdateMessage: %+v, %v", edited, err)
	}

	mine := "mine now"
	_, err = client.UpdateMessage(channel, hers, discord.MessageUpdate{Content: &mine})
	disgoErr(t, err, http.StatusForbidden, rest.JSONErrorCode(50005))
	disgoErr(t, client.DeleteMessage(channel, hers), http.StatusForbidden, rest.JSONErrorCode(50013))
	_, err = client.GetMessage(channel, snowflake.ID(1234567))
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCode(10008))

	if err := client.DeleteMessage(channel, sent.ID); err != nil {
		t.Fatalf("DeleteMessage: %v", err)
	}
	_, err = client.GetMessage(channel, sent.ID)
	disgoErr(t, err, http.StatusNotFound, rest.JSONErrorCode(10008))
}

// A disgo bot that receives interactions on its HTTP server
// (bot.WithHTTPServerConfigOpts, client.OpenHTTPServer) and answers a
// command with a file: disgo's server writes the answer as
// multipart/form-data (payload_json and files[0]); the member gets the
// message with the file as its attachment. The server's handler is
// mounted on a test server (httpserver.WithServeMux) instead of the
// example's :80.
func TestDisgoHTTPServerReplyWithFile(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGWWorld(t, e)
	mux := http.NewServeMux()
	l := newHandlerLog(t)
	client, err := disgo.New(e.App.BotToken,
		bot.WithRestClientConfigOpts(rest.WithURL(e.URL+"/api/v10")),
		bot.WithHTTPServerConfigOpts(e.App.PublicKey,
			httpserver.WithServeMux(mux),
			httpserver.WithURL("/interactions/callback"),
			httpserver.WithAddress("127.0.0.1:0"),
			httpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		),
		bot.WithEventListenerFunc(func(event *events.ApplicationCommandInteractionCreate) {
			l.did("reply", event.CreateMessage(discord.NewMessageCreate().
				WithContent("here is the report").
				AddFile("report.txt", "the report", strings.NewReader("all good"))))
		}),
	)
	if err != nil {
		t.Fatalf("disgo.New: %v", err)
	}
	if err := client.OpenHTTPServer(); err != nil {
		t.Fatalf("OpenHTTPServer: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		client.Close(ctx)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	if r := e.Do("PUT", "/admin/v1/applications/"+w.app+"/interactions-endpoint", e.AdminAuth(),
		map[string]any{"interactions_endpoint_url": srv.URL + "/interactions/callback"}); r.Status != http.StatusOK {
		t.Fatalf("set the endpoint: %d %s", r.Status, r.Body)
	}
	cmd, err := client.Rest.CreateGuildCommand(client.ApplicationID, snowflake.MustParse(w.guild),
		discord.SlashCommandCreate{Name: "report", Description: "Sends the report"})
	if err != nil {
		t.Fatalf("CreateGuildCommand: %v", err)
	}

	r := e.Do("POST", "/api/v10/interactions", w.client, w.invocationBody(cmd.ID().String(), "report", cmd.Version().String()))
	if r.Status != http.StatusOK {
		t.Fatalf("POST /interactions: %d %s", r.Status, r.Body)
	}
	l.await(t, "reply")
	var a struct {
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID          string `json:"id"`
				Content     string `json:"content"`
				Attachments []struct {
					ID          string `json:"id"`
					Filename    string `json:"filename"`
					Description string `json:"description"`
					Size        int64  `json:"size"`
					URL         string `json:"url"`
				} `json:"attachments"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &a)
	m := a.Resource.Message
	if a.Resource.Type != 4 || m.Content != "here is the report" || len(m.Attachments) != 1 {
		t.Fatalf("answer: %s", r.Body)
	}
	att := m.Attachments[0]
	if att.Filename != "report.txt" || att.Description != "the report" || att.Size != int64(len("all good")) ||
		!strings.HasPrefix(att.URL, e.URL+"/attachments/"+w.channel+"/"+att.ID+"/report.txt?") {
		t.Fatalf("attachment: %+v", att)
	}
	// The file is served where its url says, as the bot sent it.
	if got := e.Do("GET", strings.TrimPrefix(att.URL, e.URL), "", nil); got.Status != http.StatusOK || string(got.Body) != "all good" {
		t.Fatalf("GET the attachment's url: %d %q", got.Status, got.Body)
	}
	if seen := w.seenAs(t, m.ID, "here is the report"); len(seen.Attachments) != 1 {
		t.Fatalf("the channel's message: %+v", seen)
	}
}

// A connected discordgo bot (the examples' session, default intents)
// sees its own edits and deletions through the channel routes as
// MESSAGE_UPDATE and MESSAGE_DELETE, its message's content included.
func TestDiscordgoChannelMessageEvents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, fastHeartbeat)
	w := newGWWorld(t, e)
	s := exampleSession(t, e)
	ready := make(chan *discordgo.Ready, 1)
	updates := make(chan *discordgo.MessageUpdate, 8)
	deletes := make(chan *discordgo.MessageDelete, 8)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageUpdate) { updates <- m })
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageDelete) { deletes <- m })
	open(t, s)
	recv(t, ready, "READY")

	sent, err := s.ChannelMessageSend(w.channel, "from the bot")
	if err != nil {
		t.Fatalf("ChannelMessageSend: %v", err)
	}
	if _, err := s.ChannelMessageEdit(w.channel, sent.ID, "edited by the bot"); err != nil {
		t.Fatalf("ChannelMessageEdit: %v", err)
	}
	u := recv(t, updates, "MESSAGE_UPDATE")
	if u.ID != sent.ID || u.ChannelID != w.channel || u.GuildID != w.guild || u.Content != "edited by the bot" {
		t.Fatalf("MESSAGE_UPDATE: %+v", u.Message)
	}
	if err := s.ChannelMessageDelete(w.channel, sent.ID); err != nil {
		t.Fatalf("ChannelMessageDelete: %v", err)
	}
	if d := recv(t, deletes, "MESSAGE_DELETE"); d.ID != sent.ID || d.ChannelID != w.channel || d.GuildID != w.guild {
		t.Fatalf("MESSAGE_DELETE: %+v", d.Message)
	}
}

// Package discordpy holds the discord.py 2.2 tests: discord.py's basic
// app-commands example (bot.py here, grown the way its docs teach), run
// with Debian's system Python and its python3-discord package against
// slashd, with the library's defaults. The only change is where it
// connects: discord.http.Route.BASE and
// discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY. The Go side plays
// the bot's users and changes the world around it through the admin
// API.
package discordpy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/clienttest/drive"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool"
)

// Debian's system Python and its discord.py (python3-discord 2.2.2),
// which .ci/run installs: not a Python earlier on PATH (pyenv's, a
// venv's), which would lack the package.
const (
	python  = "/usr/bin/python3"
	discord = "/usr/lib/python3/dist-packages/discord/__init__.py"
)

// TestMain runs the tests where Debian's python3-discord is installed.
// Elsewhere it runs none, and `go test` says "[no tests to run]" for the
// package; under CI it fails.
func TestMain(m *testing.M) {
	os.Exit(testtool.Main(m, "TestDiscordPyInstalled", findDiscordPy,
		"apt-get install python3-discord python3-aiohttp (Debian's discord.py, for /usr/bin/python3)"))
}

// findDiscordPy looks for Debian's python3 and its discord package (go
// test's cache follows both files).
func findDiscordPy() error {
	for _, f := range []string{python, discord} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("no %s: %w", f, err)
		}
	}
	return nil
}

// TestDiscordPyInstalled is the check TestMain relies on, made where go
// test's cache sees it, and checks the version the suite was written for.
func TestDiscordPyInstalled(t *testing.T) {
	testtool.Probe(t, findDiscordPy)
	out, err := exec.Command(python, "-c", "import discord; print(discord.__version__)").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "2.") {
		t.Fatalf("discord.py: %s %v, want 2.x", out, err)
	}
}

// startBot runs bot.py against e (whose first app's bot it logs in as,
// syncing its commands to the first guild) and waits for on_ready.
func startBot(t *testing.T, e *testenv.Env) *drive.Proc {
	t.Helper()
	cmd := exec.Command(python, "bot.py")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "SLASHD_URL="+e.URL,
		"SLASHD_BOT_TOKEN="+e.App.BotToken, "SLASHD_GUILD_ID="+e.App.GuildID)
	bot := drive.Start(t, "bot.py", cmd)
	bot.Wait(t, "ready", nil, nil)
	return bot
}

// reported is an interaction as a command handler saw it.
type reported struct {
	ID          string  `json:"id"`
	User        string  `json:"user"`
	Guild       string  `json:"guild"`
	GuildCached bool    `json:"guild_cached"`
	ChannelType string  `json:"channel_type"`
	Command     *string `json:"command"`
}

// step is one REST call /note made, as discord.py returned it.
type step struct {
	OK      bool   `json:"ok"`
	ID      string `json:"id"`
	Content string `json:"content"`
	Author  string `json:"author"`
	Edited  bool   `json:"edited"`
	Error   string `json:"error"`
	Status  int    `json:"status"`
	Code    int    `json:"code"`
	Text    string `json:"text"`
}

func (s step) String() string {
	if s.OK {
		return fmt.Sprintf("ok %q", s.Content)
	}
	return fmt.Sprintf("%s %d (code %d): %s", s.Error, s.Status, s.Code, s.Text)
}

// TestDiscordPyBasicExample runs discord.py's app_commands basic example
// (examples/app_commands/basic.py: a CommandTree, copy_global_to and
// sync to one guild, interaction.response.send_message) and the message
// calls its docs teach: a member runs each command, and every reply,
// follow-up, edit, fetch and delete lands where a chat client shows it.
// The channel message calls (channel.send, message.edit, message.delete,
// channel.fetch_message) use /channels/{c}/messages/{m}.
func TestDiscordPyBasicExample(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bot := startBot(t, e)
	var synced struct {
		Commands []string `json:"commands"`
	}
	bot.Wait(t, "synced", nil, &synced)
	if want := []string{"add", "chart", "count", "hello", "note"}; !slices.Equal(synced.Commands, want) {
		t.Fatalf("tree.sync(guild=...) returned %v, want %v", synced.Commands, want)
	}
	cmds := w.Commands(t, w.Guild)

	t.Run("hello", func(t *testing.T) {
		a := w.Run(t, cmds["hello"], nil)
		if m := a.Resource.Message; a.Resource.Type != 4 || m == nil || m.Content != "Hi, <@"+w.Alice+">" {
			t.Fatalf("answer %+v, want a message mentioning alice", a)
		}
		var got reported
		bot.Wait(t, "hello", map[string]any{"id": a.Interaction.ID}, &got)
		if got.User != w.Alice || got.Guild != w.Guild || !got.GuildCached || got.ChannelType != "TextChannel" {
			t.Errorf("discord.py's interaction %+v, want alice's in a cached guild's TextChannel", got)
		}
	})

	t.Run("add", func(t *testing.T) {
		a := w.Run(t, cmds["add"], []map[string]any{
			{"name": "first_value", "type": 4, "value": 2}, {"name": "second_value", "type": 4, "value": 40}})
		if m := a.Resource.Message; m == nil || m.Content != "2 + 40 = 42" {
			t.Fatalf("answer %+v, want 2 + 40 = 42", a)
		}
	})

	t.Run("a reply and a follow-up, both edited", func(t *testing.T) {
		a := w.Run(t, cmds["count"], nil)
		if m := a.Resource.Message; m == nil || m.Content != "one" {
			t.Fatalf("answer %+v, want one", a)
		}
		var got struct {
			First, Second, Third string
		}
		bot.Wait(t, "count", map[string]any{"id": a.Interaction.ID}, &got)
		for id, want := range map[string]string{got.First: "one!", got.Second: "two!"} {
			if m := w.Seen(t, id); m == nil || m.Content != want || m.Author.ID != w.App {
				t.Errorf("message %s as alice sees it: %+v, want %q by the bot", id, m, want)
			}
		}
		if m := w.Seen(t, got.Third); m != nil {
			t.Errorf("alice still sees the deleted follow-up: %+v", m)
		}

	})

	t.Run("an image sent as a file, fetched back", func(t *testing.T) {
		a := w.Run(t, cmds["chart"], nil)
		if m := a.Resource.Message; m == nil || m.Content != "Your chart" {
			t.Fatalf("answer %+v, want Your chart", a)
		}
		var got struct {
			PNG                 string `json:"png"`
			URL                 string `json:"url"`
			ProxyURL            string `json:"proxy_url"`
			Filename            string `json:"filename"`
			ContentType         string `json:"content_type"`
			Description         string `json:"description"`
			Width, Height, Size int
			ReadBack            bool `json:"read_back"`
		}
		bot.Wait(t, "chart", map[string]any{"id": a.Interaction.ID}, &got)
		sent, err := base64.StdEncoding.DecodeString(got.PNG)
		if err != nil {
			t.Fatal(err)
		}
		if got.Filename != "chart.png" || got.ContentType != "image/png" || got.Width != 120 || got.Height != 80 ||
			got.Size != len(sent) || got.Description != "a gradient" || got.ProxyURL != got.URL {
			t.Errorf("discord.py's attachment %s %s %s %d×%d %d bytes %q, want chart.png, image/png, 120×80, %d bytes",
				got.Filename, got.ContentType, got.URL, got.Width, got.Height, got.Size, got.Description, len(sent))
		}
		if !got.ReadBack {
			t.Errorf("attachment.read() did not give back the bytes sent")
		}
		if !strings.HasPrefix(got.URL, e.URL+"/attachments/"+w.Channel+"/") {
			t.Fatalf("url %s: want slashd's own", got.URL)
		}
		resp, err := http.Get(got.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		served, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(served, sent) ||
			resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET url: %d %s, %d bytes (%v); want the %d bytes sent", resp.StatusCode,
				resp.Header.Get("Content-Type"), len(served), err, len(sent))
		}
	})

	t.Run("a channel message sent, edited, fetched and deleted", func(t *testing.T) {
		a := w.Run(t, cmds["note"], []map[string]any{{"name": "text", "type": 3, "value": "buy milk"}})
		if m := a.Resource.Message; m == nil || m.Content != "Noting buy milk" {
			t.Fatalf("answer %+v, want Noting buy milk", a)
		}
		var got struct {
			Steps map[string]step `json:"steps"`
		}
		bot.Wait(t, "note", map[string]any{"id": a.Interaction.ID}, &got)
		s := got.Steps
		if st := s["fetch_answer"]; st.ID != a.Interaction.ResponseMessageID || st.Content != "Noting buy milk" || st.Author != w.App {
			t.Errorf("channel.fetch_message() of the interaction's answer: %v, want message %s", st, a.Interaction.ResponseMessageID)
		}
		if s["send"].Content != "buy milk" || s["send"].Author != w.App {
			t.Fatalf("channel.send(): %v, want the bot's message", s["send"])
		}
		for name, want := range map[string]string{"edit": "buy milk (edited)", "fetch": "buy milk (edited)"} {
			if st := s[name]; !st.OK || st.Content != want || !st.Edited || st.ID != s["send"].ID {
				t.Errorf("%s: %v, want %q, edited", name, st, want)
			}
		}
		if !s["delete"].OK {
			t.Errorf("message.delete(): %v", s["delete"])
		}
		if st := s["fetch_deleted"]; st.Error != "NotFound" || st.Code != 10008 {
			t.Errorf("fetch_message() of the deleted message: %v, want NotFound (10008)", st)
		}
		if m := w.Seen(t, s["send"].ID); m != nil {
			t.Errorf("alice still sees the deleted note: %+v", m)
		}
	})
}

// cached is what discord.py's cache holds of a guild (the "guild" order).
type cached struct {
	Cached   bool     `json:"cached"`
	Name     string   `json:"name"`
	Channels []string `json:"channels"`
	Roles    []string `json:"roles"`
}

// TestDiscordPyWorldEvents changes the world around a connected bot,
// through the admin API of the node it is connected to and of another
// node of the cluster, and checks each change reaches discord.py's
// events and its cache: an installation in a new guild (on_guild_join,
// client.guilds), a guild renamed (on_guild_update, guild.name), a
// channel created and deleted (on_guild_channel_create and _delete,
// guild.channels), a role created (on_guild_role_create, guild.roles),
// the uninstallation (on_guild_remove, client.guilds).
func TestDiscordPyWorldEvents(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bot := startBot(t, e)
	for _, node := range []struct {
		name string
		e    *testenv.Env
	}{{"the bot's node", e}, {"another node", e.Node()}} {
		t.Run(node.name, func(t *testing.T) {
			on := *w
			on.E = node.e
			guild := on.AdminID(t, "POST", "/guilds", map[string]any{"name": "second home", "owner_id": e.App.OwnerUserID})
			on.AdminID(t, "POST", "/guilds/"+guild+"/channels", map[string]any{"name": "lobby", "type": 0})
			on.Admin(t, "PUT", "/guilds/"+guild+"/installations/"+w.App,
				map[string]any{"scopes": []string{"bot", "applications.commands"}}, http.StatusCreated, nil)
			var joined struct {
				Channels []string `json:"channels"`
			}
			bot.Wait(t, "guild_join", map[string]any{"guild": guild}, &joined)
			if !slices.Contains(joined.Channels, "lobby") {
				t.Errorf("on_guild_join: channels %v, want lobby", joined.Channels)
			}
			var guilds struct {
				Guilds []string `json:"guilds"`
			}
			bot.Do(t, "guilds", nil, &guilds)
			if !slices.Contains(guilds.Guilds, guild) || !slices.Contains(guilds.Guilds, w.Guild) {
				t.Errorf("client.guilds %v, want %s and %s", guilds.Guilds, w.Guild, guild)
			}
			look := func(t *testing.T, g string) cached {
				t.Helper()
				var c cached
				bot.Do(t, "guild", map[string]any{"guild": g}, &c)
				if !c.Cached {
					t.Fatalf("guild %s is not in discord.py's cache", g)
				}
				return c
			}

			on.Admin(t, "PATCH", "/guilds/"+guild, map[string]any{"name": "new home"}, -1, nil)
			bot.Wait(t, "guild_update", map[string]any{"guild": guild, "before": "second home", "name": "new home"}, nil)
			if c := look(t, guild); c.Name != "new home" {
				t.Errorf("guild.name %q after the rename", c.Name)
			}

			for _, g := range []string{w.Guild, guild} {
				name := "news-" + g
				id := on.AdminID(t, "POST", "/guilds/"+g+"/channels", map[string]any{"name": name, "type": 0})
				bot.Wait(t, "channel_create", map[string]any{"channel": id, "name": name}, nil)
				if c := look(t, g); !slices.Contains(c.Channels, name) {
					t.Errorf("guild %s's channels %v, want %s", g, c.Channels, name)
				}
				on.Admin(t, "DELETE", "/guilds/"+g+"/channels/"+id, nil, -1, nil)
				bot.Wait(t, "channel_delete", map[string]any{"channel": id}, nil)
				if c := look(t, g); slices.Contains(c.Channels, name) {
					t.Errorf("guild %s's channels %v still hold %s after its deletion", g, c.Channels, name)
				}
			}

			role := on.AdminID(t, "POST", "/guilds/"+guild+"/roles", map[string]any{"name": "helpers", "permissions": "0"})
			bot.Wait(t, "role_create", map[string]any{"role": role, "name": "helpers"}, nil)
			if c := look(t, guild); !slices.Contains(c.Roles, "helpers") {
				t.Errorf("guild.roles %v, want helpers", c.Roles)
			}

			on.Admin(t, "DELETE", "/guilds/"+guild+"/installations/"+w.App, nil, -1, nil)
			bot.Wait(t, "guild_remove", map[string]any{"guild": guild}, nil)
			bot.Do(t, "guilds", nil, &guilds)
			if slices.Contains(guilds.Guilds, guild) {
				t.Errorf("client.guilds %v still holds %s after the uninstallation", guilds.Guilds, guild)
			}
		})
	}
}

// TestDiscordPyInteractionInNewGuild runs a command in a guild the bot
// joined while connected: discord.py resolves the interaction's guild
// and channel from its cache (a partial channel means the join never
// reached it).
func TestDiscordPyInteractionInNewGuild(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bot := startBot(t, e)
	guild := w.AdminID(t, "POST", "/guilds", map[string]any{"name": "second home", "owner_id": e.App.OwnerUserID})
	lobby := w.AdminID(t, "POST", "/guilds/"+guild+"/channels", map[string]any{"name": "lobby", "type": 0})
	w.Admin(t, "PUT", "/guilds/"+guild+"/members/"+w.Alice, map[string]any{"roles": []string{}}, -1, nil)
	w.Admin(t, "PUT", "/guilds/"+guild+"/installations/"+w.App,
		map[string]any{"scopes": []string{"bot", "applications.commands"}}, http.StatusCreated, nil)
	bot.Wait(t, "guild_join", map[string]any{"guild": guild}, nil)
	// The tree's commands are global too once synced globally: then
	// they run in every guild.
	var synced struct {
		Commands []string `json:"commands"`
	}
	bot.Do(t, "sync_global", nil, &synced)
	hello := w.Commands(t, "")["hello"]
	r := w.Invoke(t, w.Client, map[string]any{"type": 2, "guild_id": guild, "channel_id": lobby,
		"data": map[string]any{"id": hello.ID, "name": "hello", "type": 1, "version": hello.Version}})
	if r.Status != http.StatusOK {
		t.Fatalf("/hello in the new guild: %d %s", r.Status, r.Body)
	}
	var a drive.Answer
	r.JSON(t, &a)
	var got reported
	bot.Wait(t, "hello", map[string]any{"id": a.Interaction.ID}, &got)
	if got.Guild != guild || !got.GuildCached || got.ChannelType != "TextChannel" {
		t.Errorf("discord.py's interaction %+v, want guild %s cached and #lobby a TextChannel", got, guild)
	}
}

// TestDiscordPyGlobalAndGuildCommands syncs the tree globally as well as
// to the guild (the basic example's copy_global_to plus the global sync
// many bots also run): as on the real service, the member's picker then
// shows both /hello commands (discord-api-docs#3885, "my commands show
// twice"), and both run.
func TestDiscordPyGlobalAndGuildCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := drive.NewWorld(t, e)
	bot := startBot(t, e)
	var synced struct {
		Commands []string `json:"commands"`
	}
	bot.Do(t, "sync_global", nil, &synced)
	if !slices.Contains(synced.Commands, "hello") {
		t.Fatalf("tree.sync(): %v", synced.Commands)
	}
	global, local := w.Commands(t, "")["hello"], w.Commands(t, w.Guild)["hello"]
	r := e.Do("GET", "/api/v10/channels/"+w.Channel+"/application-command-index", w.Client, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("command index: %d %s", r.Status, r.Body)
	}
	var index struct {
		Commands []drive.Command `json:"application_commands"`
	}
	r.JSON(t, &index)
	var shown []string
	for _, c := range index.Commands {
		if c.Name == "hello" {
			shown = append(shown, c.ID)
		}
	}
	slices.Sort(shown)
	want := []string{global.ID, local.ID}
	slices.Sort(want)
	if !slices.Equal(shown, want) {
		t.Errorf("the picker shows /hello %v, want the global and the guild one %v", shown, want)
	}
	for _, cmd := range []drive.Command{global, local} {
		r := w.Invoke(t, w.Client, map[string]any{"type": 2,
			"data": map[string]any{"id": cmd.ID, "name": "hello", "type": 1, "version": cmd.Version}})
		if r.Status != http.StatusOK {
			t.Errorf("/hello %s (guild %q): %d %s", cmd.ID, cmd.GuildID, r.Status, r.Body)
			continue
		}
		var a drive.Answer
		r.JSON(t, &a)
		bot.Wait(t, "hello", map[string]any{"id": a.Interaction.ID}, nil)
	}
}

// TestDiscordPyGlobalRateLimit has the bot fetch a channel more times at
// once than the global limit allows: discord.py waits each 429 out (it
// reads one without a Via header as a Cloudflare ban and raises) and
// every call succeeds.
func TestDiscordPyGlobalRateLimit(t *testing.T) {
	t.Parallel()
	const limit, burst = 10, 25
	e := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) {
		c.GlobalLimit = ratelimit.Limit{Count: limit, Window: time.Second}
		c.ReadLimit = ratelimit.Limit{Count: 1000, Window: time.Second}
	}))
	w := drive.NewWorld(t, e)
	bot := startBot(t, e)
	var got struct {
		OK     int               `json:"ok"`
		Errors []json.RawMessage `json:"errors"`
	}
	bot.Do(t, "burst", map[string]any{"channel": w.Channel, "n": burst}, &got)
	if got.OK != burst {
		t.Fatalf("%d of %d fetch_channel() calls succeeded; errors: %s", got.OK, burst, got.Errors)
	}
	limited := bot.WaitFor(t, drive.Wait, "rate_limited", func(_ int, raw json.RawMessage) bool {
		return strings.Contains(string(raw), "Global rate limit")
	})
	t.Logf("discord.py: %s", limited)
}

package clienttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// The discord.js bot (discordjs/bot.mjs) and its npm packages, which
// .ci/run installs with `npm ci` in that directory.
const (
	discordjsDir    = "discordjs"
	discordjsScript = "bot.mjs"
)

// nodeForDiscordJS finds node and the installed discord.js, or skips
// (fails under CI, like the browser test of internal/oauth/browsertest).
func nodeForDiscordJS(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: the discord.js test needs Node 18.17+ and `npm ci` in internal/clienttest/%s (.ci/run does both)",
				what, discordjsDir)
		}
		t.Skipf("%s (install Node 18.17+ and run `npm ci` in internal/clienttest/%s)", what, discordjsDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(discordjsDir, "node_modules", "discord.js", "package.json")); err != nil {
		missing("discord.js is not installed")
	}
	return node
}

// djsEvent is one line the bot prints: {"event": …, …}.
type djsEvent struct {
	Event string
	Raw   json.RawMessage
}

// discordjsBot is a running bot.mjs.
type discordjsBot struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan djsEvent
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's error, once done is closed

	mu     sync.Mutex
	stderr bytes.Buffer
	seen   []string // every line read, for failure messages
}

// startDiscordJS runs bot.mjs against e with the first app's bot token.
func startDiscordJS(t *testing.T, e *testenv.Env) *discordjsBot {
	t.Helper()
	node := nodeForDiscordJS(t)
	b := &discordjsBot{t: t, events: make(chan djsEvent, 64), done: make(chan struct{})}
	b.cmd = exec.Command(node, discordjsScript)
	b.cmd.Dir = discordjsDir
	b.cmd.Env = append(os.Environ(), "SLASHD_API="+e.URL+"/api", "SLASHD_BOT_TOKEN="+e.App.BotToken)
	b.cmd.Stderr = djsLockedWriter{&b.mu, &b.stderr}
	var err error
	if b.stdin, err = b.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(b.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			b.mu.Lock()
			b.seen = append(b.seen, line)
			b.mu.Unlock()
			var head struct {
				Event string `json:"event"`
			}
			if json.Unmarshal([]byte(line), &head) != nil || head.Event == "" {
				continue // not ours (a library printing to stdout)
			}
			b.events <- djsEvent{Event: head.Event, Raw: json.RawMessage(line)}
		}
	}()
	go func() {
		<-read // Wait closes stdout: read it all first
		b.err = b.cmd.Wait()
		close(b.done)
	}()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			_ = b.cmd.Process.Kill()
			go func() {
				for range b.events { // unblock the reader if the test stopped reading
				}
			}()
			<-b.done
		}
		if t.Failed() {
			t.Logf("bot.mjs stdout:\n%s\nbot.mjs stderr:\n%s", b.stdout(), b.stderrText())
		}
	})
	return b
}

func (b *discordjsBot) stdout() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.seen, "\n")
}

// count is how many events named name the bot has printed so far.
func (b *discordjsBot) count(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, line := range b.seen {
		var head struct {
			Event string `json:"event"`
		}
		if json.Unmarshal([]byte(line), &head) == nil && head.Event == name {
			n++
		}
	}
	return n
}

func (b *discordjsBot) stderrText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// wait returns the next event named name (decoded into v), skipping
// others; it fails on a loginError or replyError, on exit, or after d.
func (b *discordjsBot) wait(name string, d time.Duration, v any) {
	b.t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-b.events:
			if !ok {
				<-b.done
				b.t.Fatalf("bot.mjs exited (%v) before %q\nstderr:\n%s", b.err, name, b.stderrText())
			}
			if ev.Event == "loginError" || ev.Event == "replyError" {
				b.t.Fatalf("bot.mjs, waiting for %q: %s\nstderr:\n%s", name, ev.Raw, b.stderrText())
			}
			if ev.Event != name {
				continue
			}
			if v != nil {
				if err := json.Unmarshal(ev.Raw, v); err != nil {
					b.t.Fatalf("decode %s: %v", ev.Raw, err)
				}
			}
			return
		case <-timer.C:
			b.t.Fatalf("bot.mjs: no %q within %v\nstdout:\n%s\nstderr:\n%s", name, d, b.stdout(), b.stderrText())
		}
	}
}

// stop closes the bot's stdin (it calls client.destroy() and exits 0),
// and waits for it to exit.
func (b *discordjsBot) stop(d time.Duration) {
	b.t.Helper()
	b.stdin.Close()
	select {
	case <-b.done:
	case <-time.After(d):
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
		b.t.Fatalf("bot.mjs did not exit within %v of its stdin closing", d)
	}
	if b.err != nil {
		var ee *exec.ExitError
		if errors.As(b.err, &ee) {
			b.t.Fatalf("bot.mjs exited with %v\nstderr:\n%s", ee, b.stderrText())
		}
		b.t.Fatalf("bot.mjs: %v", b.err)
	}
}

type djsLockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l djsLockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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

// TestDiscordJSClient runs a discord.js v14 Client against slashd: it
// logs in (REST base in rest.api, gateway found through GET /gateway/bot),
// emits ready once the GUILD_CREATE of its guild has come, gets a
// member's invocation as interactionCreate and answers it with
// interaction.reply, which is what the member's invoke returns; it also
// sees a permissions edit as applicationCommandPermissionsUpdate, and
// keeps its connection (heartbeats acknowledged) until client.destroy().
func TestDiscordJSClient(t *testing.T) {
	t.Parallel()
	nodeForDiscordJS(t)
	start := time.Now()
	// A 2 s heartbeat interval (the real one is 41.25 s) so that discord.js
	// heartbeats during the test; the server closes a connection silent
	// for 3 s.
	e := testenv.New(t, func(c *api.Config) { c.Gateway.HeartbeatInterval = 2 * time.Second })
	app, guild := e.App.ApplicationID, e.App.GuildID

	// A text channel, a member with a client token, and a guild command:
	// all before the bot connects, so GUILD_CREATE lists the channel.
	var ch, member struct {
		ID string `json:"id"`
	}
	djsAdmin(t, e, "POST", "/guilds/"+guild+"/channels", map[string]any{"name": "general", "type": 0}, 201, &ch)
	djsAdmin(t, e, "POST", "/users", map[string]any{"username": "alice"}, 201, &member)
	djsAdmin(t, e, "PUT", "/guilds/"+guild+"/members/"+member.ID, map[string]any{"roles": []string{}}, -1, nil)
	var client struct {
		Token string `json:"token"`
	}
	djsAdmin(t, e, "POST", "/users/"+member.ID+"/tokens", map[string]any{"type": "client"}, 201, &client)
	r := e.Do("POST", "/api/v10/applications/"+app+"/guilds/"+guild+"/commands", e.Bot(), map[string]any{
		"name": "echo", "description": "Echo some text", "options": []map[string]any{
			{"type": 3, "name": "text", "description": "What to say", "required": true},
		},
	})
	if r.Status != 201 {
		t.Fatalf("create command: %d %s", r.Status, r.Body)
	}
	var cmd struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Type    int    `json:"type"`
		Version string `json:"version"`
	}
	r.JSON(t, &cmd)

	bot := startDiscordJS(t, e)

	// ready: the bot user and application from READY, the guild (no
	// longer unavailable) and its channel from GUILD_CREATE.
	var ready struct {
		MS   int64 `json:"ms"`
		User struct {
			ID  string `json:"id"`
			Bot bool   `json:"bot"`
		} `json:"user"`
		Application string `json:"application"`
		Guilds      []struct {
			ID        string `json:"id"`
			Available bool   `json:"available"`
			Me        string `json:"me"`
			Channels  []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"channels"`
		} `json:"guilds"`
	}
	bot.wait("ready", 10*time.Second, &ready)
	if ready.User.ID != app || !ready.User.Bot || ready.Application != app {
		t.Errorf("ready: user %+v application %q, want the bot %s", ready.User, ready.Application, app)
	}
	if len(ready.Guilds) != 1 || ready.Guilds[0].ID != guild || !ready.Guilds[0].Available || ready.Guilds[0].Me != app {
		t.Fatalf("ready: guilds %+v, want %s available with the bot as member", ready.Guilds, guild)
	}
	var sawChannel bool
	for _, c := range ready.Guilds[0].Channels {
		sawChannel = sawChannel || (c.ID == ch.ID && c.Name == "general")
	}
	if !sawChannel {
		t.Errorf("ready: guild channels %+v lack #general %s", ready.Guilds[0].Channels, ch.ID)
	}
	if got := e.API.Gateway().Sessions(); got != 1 {
		t.Errorf("gateway sessions after ready: %d, want 1", got)
	}

	// The member invokes /echo: the app has no Interactions Endpoint URL,
	// so it goes out as INTERACTION_CREATE, and the invoke waits for the
	// bot's interaction.reply.
	r = e.Do("POST", "/api/v10/interactions", client.Token, map[string]any{
		"type": 2, "application_id": app, "guild_id": guild, "channel_id": ch.ID,
		"data": map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version,
			"options": []map[string]any{{"type": 3, "name": "text", "value": "hello"}}},
	})
	if r.Status != 200 {
		t.Fatalf("invoke: %d %s\nbot.mjs stderr:\n%s", r.Status, r.Body, bot.stderrText())
	}
	var answer struct {
		Interaction struct {
			ID                string `json:"id"`
			ResponseMessageID string `json:"response_message_id"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID      string `json:"id"`
				Content string `json:"content"`
				Author  struct {
					ID string `json:"id"`
				} `json:"author"`
			} `json:"message"`
		} `json:"resource"`
	}
	r.JSON(t, &answer)
	if answer.Resource.Type != 4 || answer.Resource.Message.Content != "discord.js says hello" ||
		answer.Resource.Message.Author.ID != app || answer.Interaction.ResponseMessageID != answer.Resource.Message.ID {
		t.Errorf("invoke answer: %s", r.Body)
	}

	var got struct {
		ID            string `json:"id"`
		CommandID     string `json:"commandId"`
		CommandName   string `json:"commandName"`
		CommandType   int    `json:"commandType"`
		ApplicationID string `json:"applicationId"`
		GuildID       string `json:"guildId"`
		ChannelID     string `json:"channelId"`
		ChannelName   string `json:"channelName"`
		UserID        string `json:"userId"`
		Username      string `json:"username"`
		MemberID      string `json:"memberId"`
		InGuild       bool   `json:"inGuild"`
		Options       []struct {
			Name  string `json:"name"`
			Type  int    `json:"type"`
			Value any    `json:"value"`
		} `json:"options"`
		Text string `json:"text"`
	}
	bot.wait("interactionCreate", 5*time.Second, &got)
	if got.ID != answer.Interaction.ID || got.CommandID != cmd.ID || got.CommandName != "echo" || got.CommandType != 1 ||
		got.ApplicationID != app || got.GuildID != guild || got.ChannelID != ch.ID || !got.InGuild ||
		got.UserID != member.ID || got.Username != "alice" || got.MemberID != member.ID {
		t.Errorf("interactionCreate: %+v", got)
	}
	if got.ChannelName != "general" {
		t.Errorf("interactionCreate: interaction.channel %q, want #general from the GUILD_CREATE cache", got.ChannelName)
	}
	if len(got.Options) != 1 || got.Options[0].Name != "text" || got.Options[0].Type != 3 ||
		got.Options[0].Value != "hello" || got.Text != "hello" {
		t.Errorf("interactionCreate options: %+v (getString %q)", got.Options, got.Text)
	}

	// interaction.reply({withResponse: true}) read the callback response,
	// and fetchReply (GET …/messages/@original) the same message.
	var replied struct {
		InteractionID     string `json:"interactionId"`
		ResponseMessageID string `json:"responseMessageId"`
		ResourceType      int    `json:"resourceType"`
		MessageID         string `json:"messageId"`
		Content           string `json:"content"`
		AuthorID          string `json:"authorId"`
	}
	bot.wait("replied", 5*time.Second, &replied)
	if replied.InteractionID != answer.Interaction.ID || replied.ResourceType != 4 ||
		replied.MessageID != answer.Resource.Message.ID || replied.Content != "discord.js says hello" || replied.AuthorID != app {
		t.Errorf("reply's callback response as discord.js read it: %+v", replied)
	}
	var fetched struct {
		MessageID string `json:"messageId"`
		Content   string `json:"content"`
	}
	bot.wait("fetchedReply", 5*time.Second, &fetched)
	if fetched.MessageID != answer.Resource.Message.ID || fetched.Content != "discord.js says hello" {
		t.Errorf("fetchReply: %+v", fetched)
	}

	// The reply is stored in the channel.
	r = e.Do("GET", "/api/v10/channels/"+ch.ID+"/messages", client.Token, nil)
	var msgs []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	if r.Status != 200 {
		t.Fatalf("channel messages: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &msgs)
	if len(msgs) != 1 || msgs[0].ID != answer.Resource.Message.ID || msgs[0].Content != "discord.js says hello" {
		t.Errorf("channel messages: %s", r.Body)
	}

	// The guild owner (a Bearer token with
	// applications.commands.permissions.update) restricts /echo to alice:
	// the bot gets APPLICATION_COMMAND_PERMISSIONS_UPDATE.
	r = e.Do("PUT", "/api/v10/applications/"+app+"/guilds/"+guild+"/commands/"+cmd.ID+"/permissions", e.Owner(),
		map[string]any{"permissions": []map[string]any{{"id": member.ID, "type": 2, "permission": true}}})
	if r.Status != 200 {
		t.Fatalf("edit permissions: %d %s", r.Status, r.Body)
	}
	var perms struct {
		ID            string `json:"id"`
		GuildID       string `json:"guildId"`
		ApplicationID string `json:"applicationId"`
		Permissions   []struct {
			ID         string `json:"id"`
			Type       int    `json:"type"`
			Permission bool   `json:"permission"`
		} `json:"permissions"`
	}
	bot.wait("applicationCommandPermissionsUpdate", 5*time.Second, &perms)
	if perms.ID != cmd.ID || perms.GuildID != guild || perms.ApplicationID != app || len(perms.Permissions) != 1 ||
		perms.Permissions[0].ID != member.ID || perms.Permissions[0].Type != 2 || !perms.Permissions[0].Permission {
		t.Errorf("applicationCommandPermissionsUpdate: %+v", perms)
	}

	// discord.js heartbeats (its first one after a random part of the
	// interval) and reads the ACKs; nothing made it reconnect.
	var ack struct {
		Latency int `json:"latency"`
	}
	bot.wait("heartbeatAck", 5*time.Second, &ack)
	if ack.Latency < 0 {
		t.Errorf("heartbeat ACK: latency %d", ack.Latency)
	}
	for _, trouble := range []string{"shardDisconnect", "shardReconnecting", "shardResume", "invalidated"} {
		if n := bot.count(trouble); n != 0 {
			t.Errorf("discord.js reported %s %d times before it was stopped", trouble, n)
		}
	}

	// Closing stdin: client.destroy() closes the websocket with 1000, which
	// ends the session.
	bot.stop(5 * time.Second)
	deadline := time.Now().Add(2 * time.Second)
	for e.API.Gateway().Sessions() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.API.Gateway().Sessions(); n != 0 {
		t.Errorf("gateway sessions after client.destroy(): %d, want 0", n)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the discord.js test took %v, want < 15 s", d)
	}
}

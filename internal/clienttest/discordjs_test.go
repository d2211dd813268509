package clienttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
	return startDiscordJSAt(t, e, e.URL+"/api")
}

// startDiscordJSAt runs bot.mjs with rest.api set to api (e's server,
// or a proxy in front of it) and the first app's bot token.
func startDiscordJSAt(t *testing.T, e *testenv.Env, api string) *discordjsBot {
	t.Helper()
	node := nodeForDiscordJS(t)
	b := &discordjsBot{t: t, events: make(chan djsEvent, 64), done: make(chan struct{})}
	b.cmd = exec.Command(node, discordjsScript)
	b.cmd.Dir = discordjsDir
	b.cmd.Env = append(os.Environ(), "SLASHD_API="+api, "SLASHD_BOT_TOKEN="+e.App.BotToken)
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

// all returns every event named name the bot has printed so far, in
// order.
func (b *discordjsBot) all(name string) []json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []json.RawMessage
	for _, line := range b.seen {
		var head struct {
			Event string `json:"event"`
		}
		if json.Unmarshal([]byte(line), &head) == nil && head.Event == name {
			out = append(out, json.RawMessage(line))
		}
	}
	return out
}

// waitAll waits until the bot has printed an event of each name, in any
// order, and returns the first of each (consuming what it reads, like
// wait).
func (b *discordjsBot) waitAll(d time.Duration, names ...string) map[string]json.RawMessage {
	b.t.Helper()
	got := map[string]json.RawMessage{}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for len(got) < len(want) {
		select {
		case ev, ok := <-b.events:
			if !ok {
				<-b.done
				b.t.Fatalf("bot.mjs exited (%v) before %q\nstderr:\n%s", b.err, names, b.stderrText())
			}
			if ev.Event == "loginError" || ev.Event == "replyError" {
				b.t.Fatalf("bot.mjs, waiting for %q: %s\nstderr:\n%s", names, ev.Raw, b.stderrText())
			}
			if want[ev.Event] && got[ev.Event] == nil {
				got[ev.Event] = ev.Raw
			}
		case <-timer.C:
			var missing []string
			for _, n := range names {
				if got[n] == nil {
					missing = append(missing, n)
				}
			}
			b.t.Fatalf("bot.mjs: no %q within %v\nstdout:\n%s\nstderr:\n%s", missing, d, b.stdout(), b.stderrText())
		}
	}
	return got
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

// djsProxy is the network between node and slashd in the resume test: a
// TCP proxy that passes REST connections straight through and sends
// gateway websocket connections (GET /gateway…) through a netLink, which
// records what discord.js sends, cuts them like a network failure (both
// TCP halves closed, no close frame) and holds reconnections. slashd
// builds the gateway URL it returns (GET /gateway/bot, READY's
// resume_gateway_url) from the request's Host, so a bot whose rest.api
// points at the proxy dials the gateway through it too.
type djsProxy struct {
	URL      string // http://127.0.0.1:port
	link     *netLink
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
	p := &djsProxy{URL: "http://" + ln.Addr().String(), link: newNetLink(), upstream: u.Host, ln: ln,
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
		up, err = p.link.dial(p.ctx, "tcp", p.upstream)
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

// djsDispatch is a gateway dispatch as discord.js received it (bot.mjs's
// "dispatch" lines).
type djsDispatch struct {
	T         string `json:"t"`
	S         int64  `json:"s"`
	SessionID string `json:"sessionId"`
	ResumeURL string `json:"resumeURL"`
}

func (b *discordjsBot) dispatches() []djsDispatch {
	b.t.Helper()
	var out []djsDispatch
	for _, raw := range b.all("dispatch") {
		var d djsDispatch
		if err := json.Unmarshal(raw, &d); err != nil {
			b.t.Fatalf("decode %s: %v", raw, err)
		}
		out = append(out, d)
	}
	return out
}

// TestDiscordJSResume cuts discord.js's gateway connection the way a
// network failure does (TCP closed both ways, no close frame) and holds
// its reconnection while a permissions update and an interaction are
// published. discord.js reads close 1006, reconnects to
// resume_gateway_url and resumes (op 6 with READY's session and the last
// sequence it had), gets both events replayed, then RESUMED, and answers
// the interaction while the member's invoke still waits; it never
// identifies again, and nothing is delivered twice.
func TestDiscordJSResume(t *testing.T) {
	t.Parallel()
	nodeForDiscordJS(t)
	start := time.Now()
	e := testenv.New(t, func(c *api.Config) { c.Gateway.HeartbeatInterval = 2 * time.Second })
	w := newGWWorld(t, e)
	r := e.Do("POST", "/api/v10/applications/"+w.app+"/guilds/"+w.guild+"/commands", e.Bot(), map[string]any{
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
	// The overwrite toggled is the owner's, so that the member may still
	// run the command.
	setPerms := func(allow bool) {
		t.Helper()
		r := e.Do("PUT", "/api/v10/applications/"+w.app+"/guilds/"+w.guild+"/commands/"+cmd.ID+"/permissions", e.Owner(),
			permissionsBody(e.App.OwnerUserID, allow))
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
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if p.ID != cmd.ID || len(p.Permissions) != 1 || p.Permissions[0].ID != e.App.OwnerUserID ||
			p.Permissions[0].Permission != allow {
			t.Errorf("applicationCommandPermissionsUpdate %s, want the owner's overwrite set to %v", raw, allow)
		}
	}

	proxy := newDJSProxy(t, e)
	bot := startDiscordJSAt(t, e, proxy.URL+"/api")
	bot.wait("ready", 10*time.Second, nil)
	ds := bot.dispatches()
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
	var raw json.RawMessage
	bot.wait("applicationCommandPermissionsUpdate", gatewayTimeout, &raw)
	checkPerms(raw, true)
	before := bot.dispatches()
	last := before[len(before)-1]
	if last.T != "APPLICATION_COMMAND_PERMISSIONS_UPDATE" {
		t.Fatalf("last dispatch before the cut: %+v", last)
	}

	// The network drops; once discord.js tries to reconnect (held), a
	// permissions update and an interaction are published.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bus := e.Events.Subscribe(ctx, 64)
	proxy.link.cut()
	proxy.link.heldDial(t)
	setPerms(false)
	done := w.invoke(map[string]any{"type": 2, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version,
			"options": []map[string]any{{"type": 3, "name": "text", "value": "again"}}}})
	w.awaitBusInteraction(t, bus, done)
	proxy.link.release()

	got := bot.waitAll(gatewayTimeout, "shardResume", "applicationCommandPermissionsUpdate", "interactionCreate", "replied")
	msg := w.answer(t, done, "discord.js says again")
	w.stored(t, msg, "discord.js says again")
	checkPerms(got["applicationCommandPermissionsUpdate"], false)
	var ic struct {
		CommandID string `json:"commandId"`
		Text      string `json:"text"`
		UserID    string `json:"userId"`
	}
	if err := json.Unmarshal(got["interactionCreate"], &ic); err != nil || ic.CommandID != cmd.ID || ic.Text != "again" || ic.UserID != w.member {
		t.Errorf("interactionCreate after the resume: %s", got["interactionCreate"])
	}

	// How discord.js saw the drop: close 1006 (no close frame), to be
	// resumed, not a network error (which would make it identify anew).
	var closed []struct {
		Code int    `json:"code"`
		Then string `json:"then"`
	}
	for _, raw := range bot.all("gatewayClosed") {
		var c struct {
			Code int    `json:"code"`
			Then string `json:"then"`
		}
		_ = json.Unmarshal(raw, &c)
		closed = append(closed, c)
	}
	if len(closed) != 1 || closed[0].Code != 1006 || closed[0].Then != "resume" {
		t.Errorf("discord.js's reading of the drop: %+v, want one close 1006 to resume", closed)
	}
	if n := bot.count("networkError"); n != 0 {
		t.Errorf("discord.js reported %d network errors", n)
	}
	// It resumed at READY's resume_gateway_url from the last sequence it
	// had, with READY's session.
	resuming := bot.all("resuming")
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
	after := bot.dispatches()[len(before):]
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
	if err := json.Unmarshal(got["shardResume"], &resumed); err != nil || resumed.Replayed != 3 {
		t.Errorf("shardResume %s: want 3 replayed (2 missed events and RESUMED)", got["shardResume"])
	}
	// Nothing is delivered twice: the next update is the next one, and the
	// interaction came once.
	setPerms(true)
	bot.wait("applicationCommandPermissionsUpdate", gatewayTimeout, &raw)
	checkPerms(raw, true)
	if ds := bot.dispatches(); len(ds) != len(before)+len(want)+1 || ds[len(ds)-1].S != last.S+4 {
		t.Errorf("dispatches: %+v, want %d, the last with s %d", ds, len(before)+len(want)+1, last.S+4)
	}
	if n := bot.count("interactionCreate"); n != 1 {
		t.Errorf("interactionCreate %d times, want 1", n)
	}

	// The resumed connection lives on: discord.js heartbeats on it and
	// reads slashd's ACK (an ACK read from here on came after the resume).
	// By then, a bot that had been told to start over would have
	// identified again.
	var ack struct {
		Latency int `json:"latency"`
	}
	bot.wait("heartbeatAck", 5*time.Second, &ack)
	if ack.Latency < 0 {
		t.Errorf("heartbeat ACK after the resume: latency %d", ack.Latency)
	}
	if n := proxy.gateways.Load(); n != 2 {
		t.Errorf("%d gateway connections through the proxy, want 2 (the first and the resume)", n)
	}
	identifies, resumes := proxy.link.payloads(2), proxy.link.payloads(6)
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
		"shardDisconnect": 0, "invalidated": 0} {
		if got := bot.count(name); got != n {
			t.Errorf("discord.js reported %s %d times, want %d", name, got, n)
		}
	}
	if n := e.API.Gateway().Sessions(); n != 1 {
		t.Errorf("gateway sessions after the resume: %d, want 1", n)
	}

	bot.stop(5 * time.Second)
	deadline := time.Now().Add(2 * time.Second)
	for e.API.Gateway().Sessions() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.API.Gateway().Sessions(); n != 0 {
		t.Errorf("gateway sessions after client.destroy(): %d, want 0", n)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the discord.js resume test took %v, want < 15 s", d)
	}
}

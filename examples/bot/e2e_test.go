package main

// End-to-end: a real slashd (internal/testenv), the real bot on an HTTP
// listener as the app's Interactions Endpoint URL, and a guild's members
// using the bot's commands through slashd's HTTP API only, as a chat
// client does. The bot's REST calls (edits, follow-ups) go to the same
// slashd through interactions.Client.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// world is a guild with the app installed, a text channel and two members
// with client tokens, built through slashd's admin API.
type world struct {
	t       *testing.T
	e       *testenv.Env
	app     string
	guild   string
	channel string
	alice   member
	bob     member
}

type member struct {
	id, name, token string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := testenv.New(t)
	w := &world{t: t, e: e, app: e.App.ApplicationID, guild: e.App.GuildID}
	w.alice, w.bob = w.member("alice"), w.member("bob")
	w.channel = str(t, w.admin("POST", "/guilds/"+w.guild+"/channels", map[string]any{"name": "general", "type": 0}, 201), "id")
	return w
}

// member creates a user, makes them a member and mints their client token.
func (w *world) member(name string) member {
	w.t.Helper()
	id := str(w.t, w.admin("POST", "/users", map[string]any{"username": name}, 201), "id")
	w.admin("PUT", "/guilds/"+w.guild+"/members/"+id, map[string]any{"roles": []string{}}, 0)
	tok := str(w.t, w.admin("POST", "/users/"+id+"/tokens", map[string]any{"type": "client"}, 201), "token")
	return member{id: id, name: name, token: tok}
}

// admin calls the admin API and decodes the object answered. status 0
// accepts any 2xx.
func (w *world) admin(method, path string, body any, status int) map[string]any {
	w.t.Helper()
	r := w.e.Do(method, "/admin/v1"+path, w.e.AdminAuth(), body)
	if (status == 0 && r.Status/100 != 2) || (status != 0 && r.Status != status) {
		w.t.Fatalf("%s /admin/v1%s: %d %s", method, path, r.Status, r.Body)
	}
	var out map[string]any
	r.JSON(w.t, &out)
	return out
}

// call calls the API (/api/v10) and fails unless it answers status.
func (w *world) call(method, path, auth string, body any, status int) []byte {
	w.t.Helper()
	r := w.e.Do(method, "/api/v10"+path, auth, body)
	if r.Status != status {
		w.t.Fatalf("%s /api/v10%s: %d %s", method, path, r.Status, r.Body)
	}
	return r.Body
}

func str(t *testing.T, o map[string]any, key string) string {
	t.Helper()
	s, ok := o[key].(string)
	if !ok || s == "" {
		t.Fatalf("no %q in %v", key, o)
	}
	return s
}

// setEndpoint makes url the app's Interactions Endpoint URL (slashd checks
// it with a signed PING and a bad signature first).
func (w *world) setEndpoint(url string) {
	w.t.Helper()
	w.admin("PUT", "/applications/"+w.app+"/interactions-endpoint", map[string]any{"interactions_endpoint_url": url}, 200)
}

// enableActivities turns the app's EMBEDDED flag on, which gives it the
// global entry point command "Launch" (handler 2).
func (w *world) enableActivities() {
	w.t.Helper()
	flags, _ := w.admin("GET", "/applications/"+w.app, nil, 200)["flags"].(float64)
	w.admin("PATCH", "/applications/"+w.app, map[string]any{"flags": uint64(flags) | 1<<17}, 200)
}

// command is a registered command, as the API returns it.
type command struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Type    int    `json:"type"`
	Version string `json:"version"`
	Handler *int   `json:"handler"`
}

// putCommands bulk-overwrites commands (global when guild is "") with the
// bot token and returns them by name.
func (w *world) putCommands(guild, body string) map[string]command {
	w.t.Helper()
	path := "/applications/" + w.app + "/commands"
	if guild != "" {
		path = "/applications/" + w.app + "/guilds/" + guild + "/commands"
	}
	var list []command
	if err := json.Unmarshal(w.call("PUT", path, w.e.Bot(), body, 200), &list); err != nil {
		w.t.Fatal(err)
	}
	out := map[string]command{}
	for _, c := range list {
		out[c.Name] = c
	}
	return out
}

// message is a message as the API returns it.
type message struct {
	ID                  string          `json:"id"`
	Type                int             `json:"type"`
	ChannelID           string          `json:"channel_id"`
	Content             string          `json:"content"`
	Flags               int             `json:"flags"`
	EditedTimestamp     *string         `json:"edited_timestamp"`
	Author              user            `json:"author"`
	Components          json.RawMessage `json:"components"`
	InteractionMetadata *struct {
		ID                        string `json:"id"`
		Name                      string `json:"name"`
		User                      user   `json:"user"`
		OriginalResponseMessageID string `json:"original_response_message_id"`
		TargetUser                *user  `json:"target_user"`
		TargetMessageID           string `json:"target_message_id"`
	} `json:"interaction_metadata"`
	ActivityInstance *struct {
		ID string `json:"id"`
	} `json:"activity_instance"`
}

type user struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Bot      bool   `json:"bot"`
}

// outcome is what POST /interactions answers: the interaction callback
// response, with slashd's choices and modal.
type outcome struct {
	Interaction struct {
		ID                       string `json:"id"`
		Type                     int    `json:"type"`
		ResponseMessageID        string `json:"response_message_id"`
		ResponseMessageLoading   *bool  `json:"response_message_loading"`
		ResponseMessageEphemeral *bool  `json:"response_message_ephemeral"`
		ActivityInstanceID       string `json:"activity_instance_id"`
	} `json:"interaction"`
	Resource struct {
		Type    int      `json:"type"`
		Message *message `json:"message"`
		Choices []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"choices"`
		Modal *struct {
			CustomID   string `json:"custom_id"`
			Title      string `json:"title"`
			Components []struct {
				Type       int `json:"type"`
				Components []struct {
					Type     int    `json:"type"`
					CustomID string `json:"custom_id"`
					Style    int    `json:"style"`
					Label    string `json:"label"`
				} `json:"components"`
			} `json:"components"`
		} `json:"modal"`
		ActivityInstance *struct {
			ID string `json:"id"`
		} `json:"activity_instance"`
	} `json:"resource"`
	raw []byte
}

// invocation is the body a chat client POSTs to /interactions to use cmd
// (typ 2) or to autocomplete in it (typ 4); data adds keys to "data".
func (w *world) invocation(typ int, cmd command, data map[string]any) map[string]any {
	d := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version}
	for k, v := range data {
		d[k] = v
	}
	return map[string]any{"type": typ, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel, "data": d}
}

// invoke has m use a command and returns the outcome (200 required).
func (w *world) invoke(m member, body map[string]any) outcome {
	w.t.Helper()
	raw := w.call("POST", "/interactions", m.token, body, 200)
	var out outcome
	if err := json.Unmarshal(raw, &out); err != nil {
		w.t.Fatalf("outcome %s: %v", raw, err)
	}
	out.raw = raw
	return out
}

// messages is the channel as m sees it, newest first.
func (w *world) messages(m member) []message {
	w.t.Helper()
	var out []message
	if err := json.Unmarshal(w.call("GET", "/channels/"+w.channel+"/messages", m.token, nil, 200), &out); err != nil {
		w.t.Fatal(err)
	}
	return out
}

// find returns the message with id among msgs.
func find(msgs []message, id string) (message, bool) {
	i := slices.IndexFunc(msgs, func(m message) bool { return m.ID == id })
	if i < 0 {
		return message{}, false
	}
	return msgs[i], true
}

// eventually polls the channel (as m sees it) until ok holds, for up to
// testenv.WaitTimeout.
func (w *world) eventually(m member, what string, ok func([]message) bool) []message {
	w.t.Helper()
	deadline := time.Now().Add(testenv.WaitTimeout)
	for {
		msgs := w.messages(m)
		if ok(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: never seen; channel: %+v", what, msgs)
		}
		time.Sleep(50 * time.Millisecond) // a poll interval
	}
}

// deliveries records the interactions slashd delivered to the bot.
type deliveries struct {
	mu   sync.Mutex
	got  []string // "type:command name" ("type:custom_id" for components and modals)
	last *interactions.Interaction
}

func (d *deliveries) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var i struct {
			Type int `json:"type"`
			Data struct {
				Name     string `json:"name"`
				CustomID string `json:"custom_id"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &i) == nil && i.Type != 1 {
			decoded, _ := interactions.Decode(body)
			d.mu.Lock()
			d.got = append(d.got, fmt.Sprintf("%d:%s", i.Type, cmp.Or(i.Data.Name, i.Data.CustomID)))
			d.last = decoded
			d.mu.Unlock()
		}
		h.ServeHTTP(rw, r)
	})
}

// lastDecoded is the last interaction delivered, as the SDK decodes it.
func (d *deliveries) lastDecoded() *interactions.Interaction {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

func (d *deliveries) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.got)
}

// The acceptance test: every kind of command the example bot has,
// used by members through slashd, answered by the bot.
func TestEndToEnd(t *testing.T) {
	w := newWorld(t)
	w.enableActivities()

	b, err := newHandler(w.e.App.PublicKey, &interactions.Client{BaseURL: w.e.URL, HTTP: w.e.Server.Client()})
	if err != nil {
		t.Fatal(err)
	}
	b.thinking = 500 * time.Millisecond
	var logMu sync.Mutex
	var failures []string
	b.logf = func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	var delivered deliveries
	srv := httptest.NewServer(delivered.wrap(b))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { // after every step: the bot's background work went well
		b.wait()
		logMu.Lock()
		defer logMu.Unlock()
		if len(failures) > 0 {
			t.Errorf("the bot's work after answering failed: %v", failures)
		}
	})
	w.setEndpoint(srv.URL + InteractionsPath)
	cmds := w.putCommands(w.guild, guildCommands)
	if len(cmds) != 9 {
		t.Fatalf("registered %d commands: %v", len(cmds), cmds)
	}
	alice, bob := w.alice, w.bob

	// botReply checks an outcome is a message answer (type 4) from the bot,
	// stored in the channel, and returns it.
	botReply := func(t *testing.T, out outcome, name string) message {
		t.Helper()
		m := out.Resource.Message
		if out.Resource.Type != 4 || m == nil || m.ID == "" || out.Interaction.ResponseMessageID != m.ID ||
			m.Author.ID != w.app || !m.Author.Bot || m.ChannelID != w.channel ||
			m.InteractionMetadata == nil || m.InteractionMetadata.Name != name {
			t.Fatalf("%s: outcome %s", name, out.raw)
		}
		stored, ok := find(w.messages(alice), m.ID)
		if !ok || stored.Content != m.Content {
			t.Fatalf("%s: answer %q not in the channel as answered: %+v", name, m.Content, stored)
		}
		return *m
	}

	t.Run("chat input", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["echo"], map[string]any{
			"options": []any{map[string]any{"type": 3, "name": "text", "value": "hello @everyone"}}}))
		if m := botReply(t, out, "echo"); m.Content != "hello @everyone" || m.Type != 20 ||
			m.InteractionMetadata.User.ID != alice.id || m.Flags != 0 {
			t.Fatalf("/echo: %s", out.raw)
		}
		out = w.invoke(alice, w.invocation(2, cmds["pick"], map[string]any{"options": []any{
			map[string]any{"type": 3, "name": "fruit", "value": "mango"},
			map[string]any{"type": 4, "name": "amount", "value": 3}}}))
		if m := botReply(t, out, "pick"); m.Content != "You picked 3 × mango." {
			t.Fatalf("/pick: %s", out.raw)
		}
	})

	t.Run("user command", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["Wave"], map[string]any{"target_id": bob.id}))
		m := botReply(t, out, "Wave")
		if m.Content != "alice waves at bob 👋" || m.Type != 23 || m.InteractionMetadata.TargetUser == nil ||
			m.InteractionMetadata.TargetUser.ID != bob.id {
			t.Fatalf("Wave: %s", out.raw)
		}
	})

	t.Run("message command", func(t *testing.T) {
		var posted message
		raw := w.call("POST", "/channels/"+w.channel+"/messages", alice.token, map[string]any{"content": "to be\nor not to be"}, 200)
		if err := json.Unmarshal(raw, &posted); err != nil || posted.ID == "" || posted.Author.ID != alice.id {
			t.Fatalf("posted %s: %v", raw, err)
		}
		out := w.invoke(bob, w.invocation(2, cmds["Quote"], map[string]any{"target_id": posted.ID}))
		m := botReply(t, out, "Quote")
		if m.Content != "> to be\n> or not to be\n— alice" || m.Type != 23 || m.InteractionMetadata.TargetMessageID != posted.ID ||
			m.InteractionMetadata.User.ID != bob.id {
			t.Fatalf("Quote: %s", out.raw)
		}
	})

	t.Run("autocomplete", func(t *testing.T) {
		before := len(w.messages(alice))
		out := w.invoke(alice, w.invocation(4, cmds["pick"], map[string]any{"options": []any{
			map[string]any{"type": 3, "name": "fruit", "value": "berr", "focused": true}}}))
		var names []string
		for _, c := range out.Resource.Choices {
			if c.Value != c.Name {
				t.Fatalf("choice %v: value is not the fruit", c)
			}
			names = append(names, c.Name)
		}
		if out.Resource.Type != 8 || out.Interaction.Type != 4 || out.Resource.Message != nil ||
			strings.Join(names, ",") != "blackberry,blueberry,cranberry,raspberry,strawberry" {
			t.Fatalf("fruit autocomplete: %s", out.raw)
		}
		// An INTEGER option being typed is sent as the raw text, a string;
		// the other options filled so far come along.
		out = w.invoke(alice, w.invocation(4, cmds["pick"], map[string]any{"options": []any{
			map[string]any{"type": 3, "name": "fruit", "value": "mango"},
			map[string]any{"type": 4, "name": "amount", "value": "1", "focused": true}}}))
		got, _ := json.Marshal(out.Resource.Choices)
		if out.Resource.Type != 8 || string(got) != `[{"name":"1","value":1},{"name":"10","value":10},{"name":"11","value":11},{"name":"12","value":12}]` {
			t.Fatalf("amount autocomplete: %s", out.raw)
		}
		if n := len(w.messages(alice)); n != before {
			t.Fatalf("autocomplete posted messages: %d → %d", before, n)
		}
	})

	t.Run("deferred answer, edited later", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["slow"], nil))
		m := out.Resource.Message
		if out.Resource.Type != 5 || m == nil || m.Flags&interactions.FlagLoading == 0 || m.Content != "" ||
			out.Interaction.ResponseMessageLoading == nil || !*out.Interaction.ResponseMessageLoading ||
			out.Interaction.ResponseMessageID != m.ID {
			t.Fatalf("/slow: %s", out.raw)
		}
		if stored, ok := find(w.messages(bob), m.ID); !ok || stored.Flags&interactions.FlagLoading == 0 {
			t.Fatalf("/slow: the loading message is not in the channel: %+v", stored)
		}
		w.eventually(bob, "/slow's edit", func(msgs []message) bool {
			got, ok := find(msgs, m.ID)
			return ok && got.Content == "Thought about it: the answer is 42." && got.Flags&interactions.FlagLoading == 0
		})
	})

	t.Run("answer and follow-up", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["multi"], nil))
		first := botReply(t, out, "multi")
		if first.Content != "This is the answer." {
			t.Fatalf("/multi: %s", out.raw)
		}
		msgs := w.eventually(bob, "/multi's follow-up", func(msgs []message) bool {
			return slices.ContainsFunc(msgs, func(m message) bool { return m.Content == "And this is a follow-up." })
		})
		f := msgs[slices.IndexFunc(msgs, func(m message) bool { return m.Content == "And this is a follow-up." })]
		if f.ID == first.ID || f.Author.ID != w.app || f.InteractionMetadata == nil ||
			f.InteractionMetadata.ID != out.Interaction.ID || f.InteractionMetadata.OriginalResponseMessageID != first.ID {
			t.Fatalf("follow-up: %+v", f)
		}
		if got, ok := find(msgs, first.ID); !ok || got.Content != "This is the answer." {
			t.Fatalf("the answer changed: %+v", got)
		}
	})

	t.Run("button", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["counter"], nil))
		m := botReply(t, out, "counter")
		if m.Content != "Count: 0" || !strings.Contains(string(m.Components), `"custom_id":"counter:0"`) {
			t.Fatalf("/counter: %s", out.raw)
		}
		// Bob presses "+1": the bot updates the message (type 7).
		out = w.invoke(bob, map[string]any{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"message_id": m.ID, "data": map[string]any{"custom_id": "counter:0", "component_type": 2}})
		if out.Resource.Type != 7 || out.Resource.Message == nil || out.Resource.Message.ID != m.ID ||
			out.Resource.Message.Content != "Count: 1" {
			t.Fatalf("+1: %s", out.raw)
		}
		// What the bot got, as the SDK reads it: the button and its message.
		if i := delivered.lastDecoded(); i == nil || i.Type != interactions.InteractionMessageComponent || i.Data == nil ||
			i.Data.CustomID != "counter:0" || i.Data.ComponentType != interactions.ComponentButton ||
			i.Message == nil || i.Message.ID != m.ID || i.Message.Content != "Count: 0" || len(i.Message.Components) != 1 {
			t.Fatalf("the press as decoded: %+v", i)
		}
		got, ok := find(w.messages(alice), m.ID)
		if !ok || got.Content != "Count: 1" || got.EditedTimestamp == nil ||
			!strings.Contains(string(got.Components), `"custom_id":"counter:1"`) || strings.Contains(string(got.Components), `"counter:0"`) {
			t.Fatalf("after +1 the message is %+v (components %s)", got, got.Components)
		}
	})

	t.Run("modal", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["feedback"], nil))
		md := out.Resource.Modal
		if out.Resource.Type != 9 || md == nil || md.CustomID != "feedback" || md.Title != "Feedback" ||
			len(md.Components) != 1 || len(md.Components[0].Components) != 1 ||
			md.Components[0].Components[0].CustomID != "text" || md.Components[0].Components[0].Type != 4 ||
			out.Resource.Message != nil || out.Interaction.ResponseMessageID != "" {
			t.Fatalf("/feedback: %s", out.raw)
		}
		// Alice submits it: the bot quotes her, for her only.
		out = w.invoke(alice, map[string]any{"type": 5, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
			"data": map[string]any{"id": out.Interaction.ID, "custom_id": "feedback", "components": []any{
				map[string]any{"type": 1, "components": []any{map[string]any{"type": 4, "custom_id": "text", "value": "Lovely @everyone"}}}}}})
		if m := out.Resource.Message; out.Resource.Type != 4 || m == nil || m.Content != "Thanks for your feedback: Lovely @everyone" ||
			m.Flags&interactions.FlagEphemeral == 0 {
			t.Fatalf("modal submit: %s", out.raw)
		}
		i := delivered.lastDecoded()
		if text, ok := i.Data.ModalValue("text"); i.Type != interactions.InteractionModalSubmit || i.Data.CustomID != "feedback" ||
			!ok || text != "Lovely @everyone" {
			t.Fatalf("the submission as decoded: %+v", i.Data)
		}
	})

	t.Run("ephemeral", func(t *testing.T) {
		out := w.invoke(alice, w.invocation(2, cmds["ping"], nil))
		m := out.Resource.Message
		if out.Resource.Type != 4 || m == nil || m.Content != "pong" || m.Flags&interactions.FlagEphemeral == 0 ||
			out.Interaction.ResponseMessageEphemeral == nil || !*out.Interaction.ResponseMessageEphemeral {
			t.Fatalf("/ping: %s", out.raw)
		}
		if got, ok := find(w.messages(alice), m.ID); !ok || got.Content != "pong" {
			t.Fatalf("alice does not see her ephemeral pong")
		}
		if _, ok := find(w.messages(bob), m.ID); ok {
			t.Fatalf("bob sees alice's ephemeral pong")
		}
	})

	t.Run("entry point", func(t *testing.T) {
		global := w.globalCommands()
		launch, ok := global["Launch"]
		if !ok || launch.Type != 4 || launch.Handler == nil || *launch.Handler != 2 {
			t.Fatalf("enabling Activities gave these global commands: %v", global)
		}
		// Handler 2: slashd launches the Activity itself; the bot is not asked.
		n := len(delivered.list())
		out := w.invoke(alice, w.invocation(2, launch, nil))
		checkLaunch(t, w, alice, out)
		if got := delivered.list(); len(got) != n {
			t.Fatalf("handler 2 was delivered to the bot: %v", got[n:])
		}

		// Handler 1: the bot answers with LAUNCH_ACTIVITY.
		set := w.putCommands("", `[{"type":4,"name":"launch","description":"Launch the activity","handler":1}]`)
		launch, ok = set["launch"]
		if !ok || launch.Handler == nil || *launch.Handler != 1 || len(set) != 1 {
			t.Fatalf("global commands now: %v", set)
		}
		out = w.invoke(alice, w.invocation(2, launch, nil))
		checkLaunch(t, w, alice, out)
		if got := delivered.list(); len(got) != n+1 || got[n] != "2:launch" {
			t.Fatalf("handler 1 deliveries: %v", got[n:])
		}
	})

	// Every command use above reached the bot, in order, except the
	// handler 2 launch.
	want := []string{"2:echo", "2:pick", "2:Wave", "2:Quote", "4:pick", "4:pick", "2:slow", "2:multi", "2:counter", "3:counter:0",
		"2:feedback", "5:feedback", "2:ping", "2:launch"}
	if got := delivered.list(); !slices.Equal(got, want) {
		t.Errorf("deliveries:\n got %v\nwant %v", got, want)
	}
}

// globalCommands lists the global commands by name.
func (w *world) globalCommands() map[string]command {
	w.t.Helper()
	var list []command
	if err := json.Unmarshal(w.call("GET", "/applications/"+w.app+"/commands", w.e.Bot(), nil, 200), &list); err != nil {
		w.t.Fatal(err)
	}
	out := map[string]command{}
	for _, c := range list {
		out[c.Name] = c
	}
	return out
}

// checkLaunch checks an outcome launched an Activity, and the message
// saying so is in the channel.
func checkLaunch(t *testing.T, w *world, m member, out outcome) {
	t.Helper()
	inst := out.Resource.ActivityInstance
	if out.Resource.Type != 12 || inst == nil || inst.ID == "" || out.Interaction.ActivityInstanceID != inst.ID {
		t.Fatalf("launch: %s", out.raw)
	}
	msgs := w.messages(m)
	if !slices.ContainsFunc(msgs, func(msg message) bool {
		return msg.ActivityInstance != nil && msg.ActivityInstance.ID == inst.ID && msg.Author.ID == w.app
	}) {
		t.Fatalf("no message for activity instance %s in the channel: %+v", inst.ID, msgs)
	}
}

// The SDK's REST client against a real slashd: an app that answers its
// deliveries with 202 and then through the callback endpoint, follow-ups
// and edits, and the service's errors as *interactions.APIError.
func TestClientAgainstSlashd(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	key, err := interactions.ParsePublicKey(w.e.App.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	received := make(chan *interactions.Interaction, 4)
	app := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := interactions.VerifyRequest(key, r)
		if err != nil {
			http.Error(rw, "bad signature", http.StatusUnauthorized)
			return
		}
		i, err := interactions.Decode(body)
		if err != nil {
			http.Error(rw, "bad interaction", http.StatusBadRequest)
			return
		}
		if i.Type == interactions.InteractionPing {
			rw.Header().Set("Content-Type", "application/json")
			io.WriteString(rw, `{"type":1}`)
			return
		}
		received <- i
		rw.WriteHeader(http.StatusAccepted) // the answer comes through the callback endpoint
	}))
	t.Cleanup(app.Close)
	w.setEndpoint(app.URL)
	cmd := w.putCommands(w.guild, `[{"name":"t","description":"Test"}]`)["t"]
	c := &interactions.Client{BaseURL: w.e.URL, HTTP: w.e.Server.Client()}

	// invoke has alice use cmd; the outcome ("status body") arrives once
	// the app has answered.
	invoke := func(cmd command) (*interactions.Interaction, <-chan []byte) {
		t.Helper()
		body, _ := json.Marshal(w.invocation(2, cmd, nil))
		done := make(chan []byte, 1)
		go func() {
			req, _ := http.NewRequest("POST", w.e.URL+"/api/v10/interactions", bytes.NewReader(body))
			req.Header.Set("Authorization", w.alice.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := w.e.Server.Client().Do(req)
			if err != nil {
				done <- []byte(err.Error())
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			done <- append([]byte(fmt.Sprintf("%d ", resp.StatusCode)), b...)
		}()
		select {
		case i := <-received:
			return i, done
		case <-time.After(testenv.WaitTimeout):
			t.Fatal("nothing delivered")
			return nil, nil
		}
	}
	wantCode := func(what string, err error, code int) {
		t.Helper()
		var ae *interactions.APIError
		if !errors.As(err, &ae) || ae.Code != code {
			t.Fatalf("%s: err = %v, want code %d", what, err, code)
		}
	}

	// (A follow-up before the initial answer waits for it in slashd: see
	// internal/api's TestGatewayFollowups.)
	i, done := invoke(cmd)
	wantCode("callback with another token", c.Respond(ctx, i.ID, i.Token+"x", interactions.Message("x")), interactions.CodeUnknownInteraction)

	res, err := c.RespondWithResult(ctx, i.ID, i.Token, interactions.Response{Type: interactions.CallbackChannelMessageWithSource,
		Data: map[string]any{"content": "first", "embeds": []any{map[string]any{"title": "kept"}}}})
	if err != nil {
		t.Fatal(err)
	}
	orig := res.Resource.Message
	if res.Interaction.ID != i.ID || res.Resource.Type != interactions.CallbackChannelMessageWithSource || orig == nil ||
		orig.Content != "first" || len(orig.Embeds) != 1 || res.Interaction.ResponseMessageID != orig.ID ||
		res.Interaction.ResponseMessageLoading || res.Interaction.ResponseMessageEphemeral || orig.Timestamp.IsZero() ||
		orig.Author.ID != w.app || orig.ChannelID != w.channel || len(orig.Raw) == 0 {
		t.Fatalf("RespondWithResult: %s", res.Raw)
	}
	if got := <-done; !bytes.HasPrefix(got, []byte("200 ")) || !bytes.Contains(got, []byte(`"content":"first"`)) {
		t.Fatalf("the invoking client got %s", got)
	}
	wantCode("a second answer", c.Respond(ctx, i.ID, i.Token, interactions.Message("again")), interactions.CodeAlreadyAcknowledged)

	m, err := c.GetOriginal(ctx, w.app, i.Token)
	if err != nil || m.ID != orig.ID || m.Content != "first" {
		t.Fatalf("GetOriginal: %+v, %v", m, err)
	}
	m, err = c.EditOriginal(ctx, w.app, i.Token, interactions.EditData{Content: new("edited")})
	if err != nil || m.ID != orig.ID || m.Content != "edited" || len(m.Embeds) != 1 || m.EditedTimestamp == nil {
		t.Fatalf("EditOriginal (content only; the embed stays): %+v, %v", m, err)
	}
	m, err = c.EditOriginal(ctx, w.app, i.Token, interactions.EditData{Embeds: []json.RawMessage{}})
	if err != nil || m.Content != "edited" || len(m.Embeds) != 0 {
		t.Fatalf("EditOriginal (remove the embeds): %+v, %v", m, err)
	}

	f, err := c.Followup(ctx, w.app, i.Token, interactions.MessageData{Content: "second", Flags: interactions.FlagEphemeral})
	if err != nil || f.ID == orig.ID || f.Content != "second" || f.Flags&interactions.FlagEphemeral == 0 {
		t.Fatalf("Followup: %+v, %v", f, err)
	}
	if _, ok := find(w.messages(w.bob), f.ID); ok {
		t.Fatal("bob sees the ephemeral follow-up")
	}
	if got, ok := find(w.messages(w.alice), f.ID); !ok || got.Content != "second" {
		t.Fatal("alice does not see her ephemeral follow-up")
	}
	if m, err = c.GetFollowup(ctx, w.app, i.Token, f.ID); err != nil || m.Content != "second" {
		t.Fatalf("GetFollowup: %+v, %v", m, err)
	}
	if m, err = c.EditFollowup(ctx, w.app, i.Token, f.ID, interactions.EditData{Content: new("second, edited")}); err != nil ||
		m.ID != f.ID || m.Content != "second, edited" || m.Flags&interactions.FlagEphemeral == 0 {
		t.Fatalf("EditFollowup: %+v, %v", m, err)
	}
	_, err = c.Followup(ctx, w.app, i.Token, interactions.MessageData{})
	wantCode("an empty follow-up", err, interactions.CodeEmptyMessage)
	_, err = c.EditFollowup(ctx, w.app, i.Token, f.ID, interactions.EditData{Content: new("")})
	wantCode("an edit leaving nothing to show", err, interactions.CodeEmptyMessage)
	_, err = c.GetFollowup(ctx, w.app, i.Token+"x", f.ID)
	wantCode("another token", err, interactions.CodeUnknownWebhook)

	if err := c.DeleteFollowup(ctx, w.app, i.Token, f.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetFollowup(ctx, w.app, i.Token, f.ID)
	wantCode("a deleted follow-up", err, interactions.CodeUnknownMessage)
	if err := c.DeleteOriginal(ctx, w.app, i.Token); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetOriginal(ctx, w.app, i.Token)
	wantCode("a deleted original", err, interactions.CodeUnknownMessage)
	if _, ok := find(w.messages(w.alice), orig.ID); ok {
		t.Fatal("the deleted original is still in the channel")
	}

	// A deferred answer: the first follow-up fills the loading message.
	i, done = invoke(cmd)
	if err := c.Respond(ctx, i.ID, i.Token, interactions.Defer(true)); err != nil {
		t.Fatal(err)
	}
	var deferred outcome
	if got := <-done; !bytes.HasPrefix(got, []byte("200 ")) || json.Unmarshal(got[4:], &deferred) != nil ||
		deferred.Resource.Message == nil || deferred.Resource.Message.Flags&(interactions.FlagLoading|interactions.FlagEphemeral) !=
		interactions.FlagLoading|interactions.FlagEphemeral {
		t.Fatalf("the invoking client got %s", got)
	}
	m, err = c.GetOriginal(ctx, w.app, i.Token)
	if err != nil || m.Flags&interactions.FlagLoading == 0 || m.ID != deferred.Resource.Message.ID {
		t.Fatalf("GetOriginal of a deferred answer: %+v, %v", m, err)
	}
	f, err = c.Followup(ctx, w.app, i.Token, interactions.MessageData{Content: "filled"})
	if err != nil || f.ID != m.ID || f.Content != "filled" || f.Flags&interactions.FlagLoading != 0 ||
		f.Flags&interactions.FlagEphemeral == 0 {
		t.Fatalf("Followup after Defer: %+v, %v", f, err)
	}
	f, err = c.Followup(ctx, w.app, i.Token, interactions.MessageData{Content: "another"})
	if err != nil || f.ID == m.ID || f.Content != "another" {
		t.Fatalf("second Followup after Defer: %+v, %v", f, err)
	}

	// LAUNCH_ACTIVITY through the callback endpoint (entry point, handler 1).
	w.enableActivities()
	launch := w.putCommands("", `[{"type":4,"name":"launch","description":"Launch","handler":1}]`)["launch"]
	i, done = invoke(launch)
	if i.Data == nil || i.Data.Type != interactions.CommandPrimaryEntryPoint {
		t.Fatalf("delivered %s", i.Raw)
	}
	res, err = c.RespondWithResult(ctx, i.ID, i.Token, interactions.LaunchActivity())
	if err != nil || res.Resource == nil || res.Resource.Type != interactions.CallbackLaunchActivity ||
		res.Resource.ActivityInstance == nil || res.Resource.ActivityInstance.ID == "" ||
		res.Interaction.ActivityInstanceID != res.Resource.ActivityInstance.ID {
		t.Fatalf("RespondWithResult(LaunchActivity): %s, %v", res.Raw, err)
	}
	if got := <-done; !bytes.HasPrefix(got, []byte("200 ")) || !bytes.Contains(got, []byte(res.Resource.ActivityInstance.ID)) {
		t.Fatalf("the invoking client got %s", got)
	}
}

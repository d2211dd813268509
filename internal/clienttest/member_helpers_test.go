package clienttest

// The member's side of the Go libraries' example tests: what a chat
// client sends to slashd when its user runs a command from the picker,
// types in an autocomplete option, clicks a component or submits a modal
// (POST /api/v10/interactions with the user's client token), and what it
// reads back (the command picker, the channel's messages). The bot's
// side, handlerLog, records every library call the bot's handlers make,
// so that a test checks both ends of each exchange.

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// pickerCommand is a command as the member's picker lists it.
type pickerCommand struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Type    int    `json:"type"`
	Version string `json:"version"`
}

// picker returns the commands the member may run in the world's channel
// (GET /channels/{id}/application-command-index), by name.
func (w *gwWorld) picker(t *testing.T) map[string]pickerCommand {
	t.Helper()
	return w.pickerAs(t, w.client)
}

// pickerAs is picker for another user's client token.
func (w *gwWorld) pickerAs(t *testing.T, client string) map[string]pickerCommand {
	t.Helper()
	r := w.e.Do("GET", "/api/v10/channels/"+w.channel+"/application-command-index", client, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("command picker: %d %s", r.Status, r.Body)
	}
	var index struct {
		Commands []pickerCommand `json:"application_commands"`
	}
	r.JSON(t, &index)
	out := map[string]pickerCommand{}
	for _, c := range index.Commands {
		out[c.Name] = c
	}
	return out
}

// pick returns the member's picker's command name, failing when it is
// not there.
func (w *gwWorld) pick(t *testing.T, name string) pickerCommand {
	t.Helper()
	return w.pickAs(t, w.client, name)
}

// pickAs is pick for another user's client token.
func (w *gwWorld) pickAs(t *testing.T, client, name string) pickerCommand {
	t.Helper()
	c, ok := w.pickerAs(t, client)[name]
	if !ok {
		t.Fatalf("the picker has no %q", name)
	}
	return c
}

// option is one option value as the client sends it.
func option(name string, typ int, value any) map[string]any {
	return map[string]any{"name": name, "type": typ, "value": value}
}

// focused is the option the member is typing in (autocomplete).
func focused(name string, typ int, partial string) map[string]any {
	return map[string]any{"name": name, "type": typ, "value": partial, "focused": true}
}

// subcommand is a subcommand or group option holding options.
func subcommand(name string, typ int, options ...map[string]any) map[string]any {
	return map[string]any{"name": name, "type": typ, "options": options}
}

// commandBody runs cmd (interaction type 2) or types in one of its options
// (type 4) in the world's channel.
func (w *gwWorld) commandBody(typ int, cmd pickerCommand, options ...map[string]any) map[string]any {
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type, "version": cmd.Version}
	if len(options) > 0 {
		data["options"] = options
	}
	return map[string]any{"type": typ, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel, "data": data}
}

// run is the member running cmd.
func (w *gwWorld) run(cmd pickerCommand, options ...map[string]any) map[string]any {
	return w.commandBody(2, cmd, options...)
}

// typing is the member typing in an autocomplete option of cmd.
func (w *gwWorld) typing(cmd pickerCommand, options ...map[string]any) map[string]any {
	return w.commandBody(4, cmd, options...)
}

// runOn is the member running a USER or MESSAGE command on target.
func (w *gwWorld) runOn(cmd pickerCommand, target string) map[string]any {
	b := w.commandBody(2, cmd)
	b["data"].(map[string]any)["target_id"] = target
	return b
}

// click is the member using a component of message (type 3): a button
// (componentType 2) or a select menu with values.
func (w *gwWorld) click(message, customID string, componentType int, values ...string) map[string]any {
	data := map[string]any{"custom_id": customID, "component_type": componentType}
	if componentType != 2 {
		data["values"] = append([]string{}, values...)
	}
	return map[string]any{"type": 3, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"message_id": message, "data": data}
}

// submit is the member submitting the modal the app showed in answer to
// interaction modalID (type 5), with its components as the client sends
// them.
func (w *gwWorld) submit(modalID, customID string, components ...map[string]any) map[string]any {
	return map[string]any{"type": 5, "application_id": w.app, "guild_id": w.guild, "channel_id": w.channel,
		"data": map[string]any{"id": modalID, "custom_id": customID, "components": components}}
}

// textRow is an action row holding one filled text input, as a modal
// submission carries it.
func textRow(customID, value string) map[string]any {
	return map[string]any{"type": 1, "components": []map[string]any{{"type": 4, "custom_id": customID, "value": value}}}
}

// inLabel is a label (type 18) around one filled input, as a modal
// submission carries it: {type: 4, custom_id, value} or {type: 3 (5–8),
// custom_id, values}.
func inLabel(component map[string]any) map[string]any {
	return map[string]any{"type": 18, "component": component}
}

// wireMessage is a message as slashd renders it, the fields the tests
// read.
type wireMessage struct {
	ID              string  `json:"id"`
	Type            int     `json:"type"`
	ChannelID       string  `json:"channel_id"`
	Content         string  `json:"content"`
	Flags           int     `json:"flags"`
	EditedTimestamp *string `json:"edited_timestamp"`
	Author          struct {
		ID  string `json:"id"`
		Bot bool   `json:"bot"`
	} `json:"author"`
	Components []wireComponent `json:"components"`
	Embeds     []struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Fields      []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"fields"`
	} `json:"embeds"`
	Attachments []struct {
		Filename string `json:"filename"`
	} `json:"attachments"`
	InteractionMetadata *struct {
		ID   string `json:"id"`
		Type int    `json:"type"`
		Name string `json:"name"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"interaction_metadata"`
}

// wireComponent is a component of a message or modal, nested.
type wireComponent struct {
	Type       int             `json:"type"`
	CustomID   string          `json:"custom_id"`
	Label      string          `json:"label"`
	URL        string          `json:"url"`
	Style      int             `json:"style"`
	Components []wireComponent `json:"components"`
	Component  *wireComponent  `json:"component"`
	Options    []struct {
		Value string `json:"value"`
	} `json:"options"`
}

// customIDs lists the custom_ids of a component tree, depth first.
func customIDs(cs []wireComponent) []string {
	var out []string
	for _, c := range cs {
		if c.CustomID != "" {
			out = append(out, c.CustomID)
		}
		out = append(out, customIDs(c.Components)...)
		if c.Component != nil {
			out = append(out, customIDs([]wireComponent{*c.Component})...)
		}
	}
	return out
}

const flagEphemeral = 1 << 6

// memberAnswer is what POST /interactions returns once the app answered.
type memberAnswer struct {
	Interaction struct {
		ID                       string `json:"id"`
		Type                     int    `json:"type"`
		ResponseMessageID        string `json:"response_message_id"`
		ResponseMessageLoading   *bool  `json:"response_message_loading"`
		ResponseMessageEphemeral *bool  `json:"response_message_ephemeral"`
	} `json:"interaction"`
	Resource struct {
		Type    int          `json:"type"`
		Message *wireMessage `json:"message"`
		Choices []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"choices"`
		Modal *struct {
			CustomID   string          `json:"custom_id"`
			Title      string          `json:"title"`
			Components []wireComponent `json:"components"`
		} `json:"modal"`
	} `json:"resource"`
}

// interact sends body as the member and returns the app's answer, which
// must be of callback type want.
func (w *gwWorld) interact(t *testing.T, want int, body any) memberAnswer {
	t.Helper()
	return w.interactAs(t, w.client, want, body)
}

// interactAs is interact with another user's client token.
func (w *gwWorld) interactAs(t *testing.T, client string, want int, body any) memberAnswer {
	t.Helper()
	r := w.e.Do("POST", "/api/v10/interactions", client, body)
	if r.Status != http.StatusOK {
		t.Fatalf("POST /interactions: %d %s", r.Status, r.Body)
	}
	var a memberAnswer
	r.JSON(t, &a)
	if a.Interaction.ID == "" || a.Resource.Type != want {
		t.Fatalf("POST /interactions: %s, want callback type %d", r.Body, want)
	}
	if want == 4 || want == 5 || want == 7 {
		if m := a.Resource.Message; m == nil || m.ID == "" || m.ID != a.Interaction.ResponseMessageID {
			t.Fatalf("POST /interactions: %s, want the answer's message", r.Body)
		}
	}
	return a
}

// reply is interact for a type 4 answer: its message, whose content must
// be content.
func (w *gwWorld) reply(t *testing.T, body any, content string) wireMessage {
	t.Helper()
	m := *w.interact(t, 4, body).Resource.Message
	if m.Content != content || m.ChannelID != w.channel || !m.Author.Bot || m.Author.ID != w.app {
		t.Fatalf("answer: channel %s author %+v content %q, want the bot's %q in %s", m.ChannelID, m.Author, m.Content, content, w.channel)
	}
	return m
}

// messagesIn returns what the member sees in a channel, newest first.
func (w *gwWorld) messagesIn(t *testing.T, channel string) []wireMessage {
	t.Helper()
	r := w.e.Do("GET", "/api/v10/channels/"+channel+"/messages", w.client, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list messages: %d %s", r.Status, r.Body)
	}
	var msgs []wireMessage
	r.JSON(t, &msgs)
	return msgs
}

// seen returns message id as the member sees it in the world's channel.
func (w *gwWorld) seen(t *testing.T, id string) (wireMessage, bool) {
	t.Helper()
	for _, m := range w.messagesIn(t, w.channel) {
		if m.ID == id {
			return m, true
		}
	}
	return wireMessage{}, false
}

// seenAs checks that the member sees message id with content.
func (w *gwWorld) seenAs(t *testing.T, id, content string) wireMessage {
	t.Helper()
	m, ok := w.seen(t, id)
	if !ok {
		t.Fatalf("message %s is not in the channel", id)
	}
	if m.Content != content {
		t.Fatalf("message %s: content %q, want %q", id, m.Content, content)
	}
	return m
}

// newest returns the member's newest message in the world's channel.
func (w *gwWorld) newest(t *testing.T) wireMessage {
	t.Helper()
	msgs := w.messagesIn(t, w.channel)
	if len(msgs) == 0 {
		t.Fatal("the channel has no messages")
	}
	return msgs[0]
}

// post is the member writing a message in the world's channel.
func (w *gwWorld) post(t *testing.T, content string) string {
	t.Helper()
	r := w.e.Do("POST", "/api/v10/channels/"+w.channel+"/messages", w.client, map[string]any{"content": content})
	if r.Status != http.StatusOK {
		t.Fatalf("post a message: %d %s", r.Status, r.Body)
	}
	var m wireMessage
	r.JSON(t, &m)
	return m.ID
}

// handlerLog is the bot's side: each library call a handler makes is a
// step (its name and the error the library returned), and where an
// example waits on a timer (to let its user watch a message change) the
// handler waits for the test instead, which checks what the member sees
// at that point and then lets it go on.
type handlerLog struct {
	steps   chan step
	proceed chan struct{}
	stop    chan struct{}
	once    sync.Once
}

type step struct {
	name string
	err  error
}

func newHandlerLog(t *testing.T) *handlerLog {
	l := &handlerLog{steps: make(chan step, 64), proceed: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { l.once.Do(func() { close(l.stop) }) })
	return l
}

// did records a library call of a handler.
func (l *handlerLog) did(name string, err error) {
	select {
	case l.steps <- step{name, err}:
	case <-l.stop:
	}
}

// pause is where the example sleeps: it returns true when the test lets
// the handler go on, false when the test has ended.
func (l *handlerLog) pause() bool {
	select {
	case <-l.proceed:
		return true
	case <-l.stop:
		return false
	}
}

// await checks that the bot's next steps are names, in order, each
// without error.
func (l *handlerLog) await(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		select {
		case s := <-l.steps:
			if s.name != name {
				t.Fatalf("the bot did %q (error %v), want %q", s.name, s.err, name)
			}
			if s.err != nil {
				t.Fatalf("%s: %v", name, s.err)
			}
		case <-time.After(gatewayTimeout):
			t.Fatalf("the bot did not do %q", name)
		}
	}
}

// resume lets a paused handler go on.
func (l *handlerLog) resume(t *testing.T) {
	t.Helper()
	select {
	case l.proceed <- struct{}{}:
	case <-time.After(gatewayTimeout):
		t.Fatal("no handler is paused")
	}
}

// idle checks that the bot did nothing more.
func (l *handlerLog) idle(t *testing.T) {
	t.Helper()
	select {
	case s := <-l.steps:
		t.Errorf("the bot also did %q (error %v)", s.name, s.err)
	default:
	}
}

package act

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/world"
)

// Outcomes of an interaction.
const (
	OutcomeAnswered       = "answered"
	OutcomeDeferredFilled = "deferred-then-filled"
	OutcomeNotFilled      = "deferred-and-not-filled-within-wait"
	OutcomeFailed         = "failed"
)

// Answer is what the member then sees.
type Answer struct {
	// Message is the answer message as the API renders it (a deferred one
	// once filled in, an edited one after a click), or the message said.
	Message json.RawMessage `json:"message,omitempty"`
	// Modal is a modal that opened.
	Modal json.RawMessage `json:"modal,omitempty"`
	// Choices are autocomplete's.
	Choices     json.RawMessage `json:"choices,omitempty"`
	Interaction *Outcome        `json:"interaction,omitempty"`
}

// Outcome is the interaction an action made and how it went.
type Outcome struct {
	// ID is absent only when the interaction was not recorded.
	ID      snowflake.ID `json:"id,omitempty"`
	Type    int          `json:"type"`
	Outcome string       `json:"outcome"`
	// Error is what the member was told when it failed (the API's error
	// envelope).
	Error json.RawMessage `json:"error,omitempty"`
}

// Refused is a request the member API refused: its status and error
// envelope, answered as they are.
type Refused struct {
	Status int
	Body   json.RawMessage
}

func (r *Refused) Error() string { return fmt.Sprintf("refused: %d %s", r.Status, r.Body) }

// Runner runs actions through the member API (the server's own handler,
// called in process) with the member's client token.
type Runner struct {
	API http.Handler
	// Modal is the modal an interaction opened and its app (the store's
	// record of the MODAL answer); an unknown one is an error for the
	// member (the service's own).
	Modal func(ctx context.Context, interaction snowflake.ID) (app snowflake.ID, modal json.RawMessage, err error)
	// Commands are an app's guild commands (guild 0: none) and global
	// commands, as the picker lists them, whoever may use them.
	Commands func(ctx context.Context, app, guild snowflake.ID) ([]command.ListItem, error)
	memo     memo
}

// NewRunner runs actions through api; modal and commands read the store.
func NewRunner(api http.Handler, modal func(context.Context, snowflake.ID) (snowflake.ID, json.RawMessage, error),
	commands func(context.Context, snowflake.ID, snowflake.ID) ([]command.ListItem, error)) *Runner {
	return &Runner{API: api, Modal: modal, Commands: commands, memo: memo{last: map[memoKey]snowflake.ID{}}}
}

// memo remembers, per world and member, the last modal an action opened,
// so that a submit need not name it. It is this node's memory only; a
// submit on another node names its modal.
type memo struct {
	mu   sync.Mutex
	last map[memoKey]snowflake.ID
}

type memoKey struct{ world, user snowflake.ID }

// maxMemo bounds the memo (it is forgotten whole past it).
const maxMemo = 4096

func (m *memo) set(k memoKey, id snowflake.ID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.last) >= maxMemo {
		clear(m.last)
	}
	m.last[k] = id
}

func (m *memo) get(k memoKey) snowflake.ID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last[k]
}

// member is who acts, where.
type member struct {
	world  snowflake.ID
	id     snowflake.ID
	token  string
	place  Place
	view   world.View
	runner *Runner
}

// Do runs a.
func (r *Runner) Do(ctx context.Context, worldID snowflake.ID, v world.View, a Action) (Answer, error) {
	u, ok := v.Users[a.As]
	if !ok {
		for _, uu := range v.Users {
			if uu.ID.String() == a.As {
				u, ok = uu, true
			}
		}
	}
	if !ok || u.ClientToken == "" {
		return Answer{}, apierr.Invalid(CodeUnknownHandle, fmt.Sprintf("No user %q in this world.", a.As), "as")
	}
	p, err := PlaceOf(v, a.In)
	if err != nil {
		return Answer{}, err
	}
	m := &member{world: worldID, id: u.ID, token: u.ClientToken, place: p, view: v, runner: r}
	switch a.Kind {
	case KindSay:
		var msg json.RawMessage
		if err := m.call(ctx, "POST", "/channels/"+p.ChannelID.String()+"/messages", map[string]any{"content": a.Text}, &msg); err != nil {
			return Answer{}, err
		}
		return Answer{Message: msg}, nil
	case KindRun, KindAutocomplete:
		return m.run(ctx, a)
	case KindUserCommand, KindMessageCommand:
		return m.contextCommand(ctx, a)
	case KindClick, KindChoose:
		return m.component(ctx, a)
	case KindSubmit:
		return m.submit(ctx, a)
	}
	return Answer{}, fmt.Errorf("act: kind %q", a.Kind)
}

// call is a request to the member API as the member, in process.
func (m *member) call(ctx context.Context, method, path string, body, out any) error {
	return m.callAs(ctx, m.token, method, path, body, out)
}

// callAs is a request to the public API with auth, in process.
func (m *member) callAs(ctx context.Context, auth, method, path string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("act: %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequestWithContext(ctx, method, "/api/v10"+path, rd)
	req.RemoteAddr = "127.0.0.1:0" // the admin's own act, from this host
	req.Header.Set("Authorization", auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	m.runner.API.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		return &Refused{Status: rec.Code, Body: bytes.TrimSpace(rec.Body.Bytes())}
	}
	if out == nil || rec.Code == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return fmt.Errorf("act: %s %s answered %.200s: %w", method, path, rec.Body.Bytes(), err)
	}
	return nil
}

// index is the member's command picker in the place.
func (m *member) index(ctx context.Context) ([]command.ListItem, error) {
	var index struct {
		Commands []command.ListItem `json:"application_commands"`
	}
	err := m.call(ctx, "GET", "/channels/"+m.place.ChannelID.String()+"/application-command-index", nil, &index)
	return index.Commands, err
}

// appFilter is the app an action names (0: any).
func (m *member) appFilter(a Action) (snowflake.ID, error) {
	if a.App == "" {
		return 0, nil
	}
	if app, ok := m.view.Apps[a.App]; ok {
		return app.ID, nil
	}
	if id, err := snowflake.Parse(a.App); err == nil && id != 0 {
		return id, nil
	}
	return 0, apierr.Invalid(CodeUnknownHandle, fmt.Sprintf("No application %q in this world.", a.App), "app")
}

// hidden are the world's apps' commands here (guild commands first),
// whether the member may use them or not: those the picker does not show
// are run all the same, so that the service refuses them as it refuses a
// client that sends one anyway. They are read from the store, not through
// the bot's token, so the journal does not show the bot asking.
func (m *member) hidden(ctx context.Context, app snowflake.ID) ([]command.ListItem, error) {
	var out []command.ListItem
	for _, av := range m.view.Apps {
		if app != 0 && av.ID != app {
			continue
		}
		list, err := m.runner.Commands(ctx, av.ID, m.place.GuildID)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// errUnknownCommand is the service's own answer to a command it does not
// know.
func errUnknownCommand() error {
	return &Refused{Status: http.StatusNotFound, Body: json.RawMessage(`{"message":"Unknown application command","code":` +
		strconv.Itoa(apierr.CodeUnknownCommand) + `}`)}
}

func (m *member) run(ctx context.Context, a Action) (Answer, error) {
	line, err := slashline.Parse(a.Text)
	if err != nil {
		return Answer{}, apierr.Invalid(CodeBadValue, err.Error(), a.Kind)
	}
	line = Substitute(m.view, m.place, line)
	app, err := m.appFilter(a)
	if err != nil {
		return Answer{}, err
	}
	cmds, err := m.index(ctx)
	if err != nil {
		return Answer{}, err
	}
	inv, err := slashline.Resolve(line, cmds, slashline.Filter{App: app})
	if err != nil {
		// Not in the picker: one of the world's commands the member may
		// not use gets the service's refusal; anything else is unknown.
		hidden, herr := m.hidden(ctx, app)
		if herr != nil {
			return Answer{}, herr
		}
		if inv, err = resolveHidden(line, cmds, hidden, app, err); err != nil {
			return Answer{}, err
		}
	}
	data := any(inv.Data)
	typ := 2
	if a.Kind == KindAutocomplete {
		typ = 4
		data = focusLast(inv.Data)
	}
	return m.interact(ctx, map[string]any{"type": typ, "application_id": inv.ApplicationID, "data": data}, a.Wait, nil)
}

// resolveHidden resolves a line against the commands the picker hid. A
// line whose command the picker shows keeps the picker's error (a bad
// option…); one naming no command of the world is unknown, as the
// service says it.
func resolveHidden(line slashline.Line, shown, hidden []command.ListItem, app snowflake.ID, pickerErr error) (slashline.Invocation, error) {
	name := ""
	if len(line.Words) > 0 {
		name = line.Words[0]
	}
	for _, c := range shown {
		if c.Name == name {
			return slashline.Invocation{}, apierr.Invalid(CodeBadValue, pickerErr.Error(), KindRun)
		}
	}
	for _, c := range hidden {
		if c.Name == name && c.Type == 1 {
			inv, err := slashline.Resolve(line, hidden, slashline.Filter{App: app})
			if err != nil {
				return inv, apierr.Invalid(CodeBadValue, err.Error(), KindRun)
			}
			return inv, nil
		}
	}
	return slashline.Invocation{}, errUnknownCommand()
}

// focusLast marks the last option typed (at any depth) as the one being
// typed in, its value sent as text, as the client sends it.
func focusLast(d slashline.Data) map[string]any {
	var conv func(opts []slashline.OptionValue, last bool) []map[string]any
	conv = func(opts []slashline.OptionValue, last bool) []map[string]any {
		out := make([]map[string]any, len(opts))
		for i, o := range opts {
			m := map[string]any{"name": o.Name, "type": o.Type}
			isLast := last && i == len(opts)-1
			if len(o.Options) > 0 || o.Type == 1 || o.Type == 2 {
				m["options"] = conv(o.Options, isLast)
			} else {
				m["value"] = o.Value
				if isLast {
					m["focused"] = true
					m["value"] = fmt.Sprint(o.Value)
				}
			}
			out[i] = m
		}
		return out
	}
	return map[string]any{"id": d.ID, "name": d.Name, "type": d.Type, "version": d.Version, "options": conv(d.Options, true)}
}

func (m *member) contextCommand(ctx context.Context, a Action) (Answer, error) {
	typ := command.Type(2)
	target := a.Target
	if a.Kind == KindMessageCommand {
		typ = 3
	} else {
		id, err := UserOf(m.view, a.Target, "target")
		if err != nil {
			return Answer{}, err
		}
		target = id.String()
	}
	app, err := m.appFilter(a)
	if err != nil {
		return Answer{}, err
	}
	cmds, err := m.index(ctx)
	if err != nil {
		return Answer{}, err
	}
	hidden, err := m.hidden(ctx, app)
	if err != nil {
		return Answer{}, err
	}
	cmds = append(cmds, hidden...)
	for _, c := range cmds {
		if c.Type == typ && c.Name == a.Text && (app == 0 || c.ApplicationID == app) {
			return m.interact(ctx, map[string]any{"type": 2, "application_id": c.ApplicationID,
				"data": map[string]any{"id": c.ID, "name": c.Name, "type": c.Type, "version": c.Version, "target_id": target}}, a.Wait, nil)
		}
	}
	return Answer{}, errUnknownCommand()
}

// message is a message as the member sees it, with what a click needs.
type message struct {
	raw           json.RawMessage
	ID            snowflake.ID    `json:"id"`
	Flags         int             `json:"flags"`
	Components    json.RawMessage `json:"components"`
	ApplicationID snowflake.ID    `json:"application_id"`
	Author        struct {
		ID snowflake.ID `json:"id"`
	} `json:"author"`
}

// messages lists the place's messages the member sees, newest first
// (before: only those older than that id).
func (m *member) messages(ctx context.Context, before snowflake.ID, limit int) ([]message, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if before != 0 {
		q.Set("before", before.String())
	}
	var raws []json.RawMessage
	if err := m.call(ctx, "GET", "/channels/"+m.place.ChannelID.String()+"/messages?"+q.Encode(), nil, &raws); err != nil {
		return nil, err
	}
	out := make([]message, 0, len(raws))
	for _, r := range raws {
		var msg message
		if err := json.Unmarshal(r, &msg); err != nil {
			return nil, fmt.Errorf("act: a message %.200s: %w", r, err)
		}
		msg.raw = r
		out = append(out, msg)
	}
	return out, nil
}

// message reads one message (ok false: gone, or not seen by the member).
func (m *member) message(ctx context.Context, id snowflake.ID) (message, bool, error) {
	msgs, err := m.messages(ctx, id+1, 1)
	if err != nil || len(msgs) == 0 || msgs[0].ID != id {
		return message{}, false, err
	}
	return msgs[0], true, nil
}

// scanLimit is how many of the channel's newest messages a click looks
// through for its component.
const scanLimit = 50

func (m *member) component(ctx context.Context, a Action) (Answer, error) {
	selectMenu := a.Kind == KindChoose
	var candidates []message
	if a.Message != 0 {
		msg, ok, err := m.message(ctx, a.Message)
		if err != nil {
			return Answer{}, err
		}
		if !ok {
			return Answer{}, &Refused{Status: http.StatusNotFound, Body: json.RawMessage(`{"message":"Unknown Message","code":10008}`)}
		}
		candidates = []message{msg}
	} else {
		var err error
		if candidates, err = m.messages(ctx, 0, scanLimit); err != nil {
			return Answer{}, err
		}
	}
	for _, msg := range candidates {
		c, ok := FindComponent(msg.Components, a.Text, selectMenu)
		if !ok {
			continue
		}
		data := map[string]any{"custom_id": c.CustomID, "component_type": c.Type}
		if selectMenu {
			values := a.Values
			if values == nil {
				values = []string{}
			}
			data["values"] = values
		}
		app := msg.ApplicationID
		if app == 0 {
			app = msg.Author.ID // an app's bot posted it: the bot's id is the app's
		}
		body := map[string]any{"type": 3, "application_id": app, "message_id": msg.ID, "data": data}
		return m.interact(ctx, body, a.Wait, &msg)
	}
	what := "button"
	if selectMenu {
		what = "select menu"
	}
	where := "the channel's last " + strconv.Itoa(scanLimit) + " messages"
	if a.Message != 0 {
		where = "message " + a.Message.String()
	}
	return Answer{}, apierr.Invalid(CodeBadValue, fmt.Sprintf("No %s %q (custom_id or label) on %s.", what, a.Text, where), a.Kind)
}

func (m *member) submit(ctx context.Context, a Action) (Answer, error) {
	opener := a.Modal
	if opener == 0 {
		opener = m.runner.memo.get(memoKey{m.world, m.id})
	}
	if opener == 0 {
		return Answer{}, apierr.Invalid(CodeBadValue, "No modal is open: name the interaction that opened one (modal).", "modal")
	}
	app, modal, err := m.runner.Modal(ctx, opener)
	if err != nil {
		return Answer{}, err
	}
	data, err := Submission(modal, a.Fields)
	if err != nil {
		return Answer{}, err
	}
	data["id"] = opener
	return m.interact(ctx, map[string]any{"type": 5, "application_id": app, "data": data}, a.Wait, nil)
}

// Callback types and message flags the answer is read with.
const (
	callbackMessage         = 4
	callbackDeferredMessage = 5
	callbackDeferredUpdate  = 6
	callbackUpdate          = 7
	callbackModal           = 9
	messageLoading          = 1 << 7
)

// interact posts an interaction as the member (POST /interactions, in
// the action's place) and waits, up to wait, for a deferred answer to be
// filled in; clicked is the message clicked on (a deferred update waits
// for it to change).
func (m *member) interact(ctx context.Context, body map[string]any, wait time.Duration, clicked *message) (Answer, error) {
	body["channel_id"] = m.place.ChannelID
	if m.place.GuildID != 0 {
		body["guild_id"] = m.place.GuildID
	}
	var res struct {
		Interaction struct {
			ID   snowflake.ID `json:"id"`
			Type int          `json:"type"`
		} `json:"interaction"`
		Resource struct {
			Type    int             `json:"type"`
			Message json.RawMessage `json:"message"`
			Choices json.RawMessage `json:"choices"`
			Modal   json.RawMessage `json:"modal"`
		} `json:"resource"`
	}
	ctx, recorded := interaction.WithIDSink(ctx)
	err := m.call(ctx, "POST", "/interactions", body, &res)
	var refused *Refused
	if errors.As(err, &refused) && (refused.Status == http.StatusBadGateway || refused.Status == http.StatusGatewayTimeout) {
		// The app did not answer in time, or answered wrong: the member
		// sees "This interaction failed".
		t, _ := body["type"].(int)
		// The wire names no interaction then; the record made does.
		return Answer{Interaction: &Outcome{ID: recorded(), Type: t, Outcome: OutcomeFailed, Error: refused.Body}}, nil
	}
	if err != nil {
		return Answer{}, err
	}
	out := Answer{Interaction: &Outcome{ID: res.Interaction.ID, Type: res.Interaction.Type, Outcome: OutcomeAnswered},
		Message: res.Resource.Message, Choices: res.Resource.Choices, Modal: res.Resource.Modal}
	switch res.Resource.Type {
	case callbackModal:
		m.runner.memo.set(memoKey{m.world, m.id}, res.Interaction.ID)
	case callbackDeferredMessage:
		var msg message
		if json.Unmarshal(res.Resource.Message, &msg) != nil {
			break
		}
		if msg.Flags&messageLoading == 0 {
			// A quick app filled the answer in before the invocation
			// read it back: deferred all the same, then filled.
			out.Interaction.Outcome = OutcomeDeferredFilled
			break
		}
		filled, ok, err := m.waitFor(ctx, msg.ID, wait, func(now message) bool { return now.Flags&messageLoading == 0 })
		if err != nil {
			return Answer{}, err
		}
		out.Message, out.Interaction.Outcome = filled.raw, outcome(ok)
	case callbackDeferredUpdate:
		if clicked == nil {
			break
		}
		before := clicked.raw
		edited, ok, err := m.waitFor(ctx, clicked.ID, wait, func(now message) bool { return !bytes.Equal(now.raw, before) })
		if err != nil {
			return Answer{}, err
		}
		out.Message, out.Interaction.Outcome = edited.raw, outcome(ok)
	}
	return out, nil
}

func outcome(filled bool) string {
	if filled {
		return OutcomeDeferredFilled
	}
	return OutcomeNotFilled
}

// pollEvery is how often a deferred answer is looked at while waiting.
const pollEvery = 25 * time.Millisecond

// waitFor reads message id until done says so (ok) or wait is over (the
// message as it then is).
func (m *member) waitFor(ctx context.Context, id snowflake.ID, wait time.Duration, done func(message) bool) (message, bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		msg, found, err := m.message(ctx, id)
		if err != nil {
			return message{}, false, err
		}
		if !found {
			return message{}, false, &Refused{Status: http.StatusNotFound, Body: json.RawMessage(`{"message":"Unknown Message","code":10008}`)}
		}
		if done(msg) {
			return msg, true, nil
		}
		select {
		case <-ctx.Done():
			return message{}, false, ctx.Err()
		case <-deadline.C:
			return msg, false, nil
		case <-tick.C:
		}
	}
}

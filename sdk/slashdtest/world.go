package slashdtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// World is a test world (docs/worlds.md): its ids and credentials by the
// handles of its spec, and what a test does in it: act as its users (As),
// read its journal (Events), add faults (Fault), move its clock (Clock),
// reset it to its spec (Reset) and delete it (Delete).
//
// The handle maps are filled when the world is made, opened or reset;
// don't change them. Its methods may be called from any goroutine.
type World struct {
	ID     string                `json:"id"`
	Name   string                `json:"name"`
	Users  map[string]WorldUser  `json:"users"`
	Apps   map[string]WorldApp   `json:"apps"`
	Guilds map[string]WorldGuild `json:"guilds"`
	// DMs and GroupDMs are the channel ids of its DMs and group DMs by
	// handle.
	DMs      map[string]string `json:"dms"`
	GroupDMs map[string]string `json:"group_dms"`
	// BearerTokens are the Bearer tokens of the spec's grants, by
	// "user:app".
	BearerTokens map[string]BearerToken `json:"bearer_tokens"`

	c *Client
}

// WorldUser is a user of a world.
type WorldUser struct {
	ID string `json:"id"`
	// ClientToken is the token the user acts with, sent bare as
	// Authorization.
	ClientToken string `json:"client_token"`
}

// WorldApp is an application of a world, with its bot.
type WorldApp struct {
	// ID is the app's id, also its bot user's (BotUserID).
	ID           string `json:"id"`
	BotUserID    string `json:"bot_user_id"`
	BotToken     string `json:"bot_token"`
	PublicKey    string `json:"public_key"`
	ClientSecret string `json:"client_secret"`
	// Commands are its global commands' ids by key (name; "name#2" for a
	// user command, "name#3" for a message command); GuildCommands its
	// guild commands' by guild handle, then key.
	Commands      map[string]string            `json:"commands"`
	GuildCommands map[string]map[string]string `json:"guild_commands"`
}

// BearerToken is an OAuth2 token a world's user granted one of its apps.
type BearerToken struct {
	// AccessToken is sent as "Authorization: Bearer <AccessToken>".
	AccessToken string   `json:"access_token"`
	Scopes      []string `json:"scopes"`
}

// WorldGuild is a guild of a world.
type WorldGuild struct {
	ID string `json:"id"`
	// Roles and Channels are ids by handle; Roles has "@everyone".
	Roles    map[string]string `json:"roles"`
	Channels map[string]string `json:"channels"`
}

func (w *World) path(rest string) string {
	return "/admin/v1/worlds/" + url.PathEscape(w.ID) + rest
}

// App returns the app of that handle; it panics when the world has none,
// a mistake in the test.
func (w *World) App(handle string) WorldApp {
	a, ok := w.Apps[handle]
	if !ok {
		panic(fmt.Sprintf("slashdtest: world %s has no app %q", w.Name, handle))
	}
	return a
}

// Reset puts the world back as its spec made it (same ids and
// credentials; what it gained since removed). The journal and the faults
// stay. An app's Interactions Endpoint set since (SetInteractionsEndpoint)
// is gone too unless the spec has it: set it again.
func (w *World) Reset(ctx context.Context) error {
	fresh := &World{c: w.c}
	if err := w.c.do(ctx, "POST", w.path("/reset"), "", nil, fresh); err != nil {
		return err
	}
	*w = *fresh
	return nil
}

// Delete deletes the world and everything it made; its credentials are
// refused from then on.
func (w *World) Delete(ctx context.Context) error {
	return w.c.do(ctx, "DELETE", w.path(""), "", nil, nil)
}

// SetInteractionsEndpoint makes endpointURL the Interactions Endpoint of
// the world's app (a handle), as the developer portal does: slashd first
// sends it a signed PING and a badly signed one (sdk/interactions.Handler
// answers both). A refused URL is *APIError 400 50035.
func (w *World) SetInteractionsEndpoint(ctx context.Context, app, endpointURL string) error {
	return w.c.do(ctx, "PUT", "/admin/v1/applications/"+w.App(app).ID+"/interactions-endpoint", "",
		map[string]string{"interactions_endpoint_url": endpointURL}, nil)
}

// RegisterGuildCommands replaces the app's commands in a guild (handles),
// with the app's bot token, as a bot does at start-up. commands is as
// Server.RegisterGuildCommands takes it.
func (w *World) RegisterGuildCommands(ctx context.Context, app, guild string, commands any) error {
	a := w.App(app)
	g, ok := w.Guilds[guild]
	if !ok {
		return fmt.Errorf("slashdtest: world %s has no guild %q", w.Name, guild)
	}
	return w.c.do(ctx, "PUT", "/api/v10/applications/"+a.ID+"/guilds/"+g.ID+"/commands", "Bot "+a.BotToken, commands, nil)
}

// As returns the world's user (a handle, or an id) ready to act. Say
// where with In.
func (w *World) As(user string) *Actor {
	return &Actor{w: w, as: user}
}

// Actor is a user of a world acting as a chat client does, in a channel
// (In): run commands, click, choose, submit modals, say things. Each
// action answers with what the user then sees (POST
// /admin/v1/worlds/{world}/act). An Actor is a value: In and the options
// return new ones, and it may be used from any goroutine.
type Actor struct {
	w       *World
	as, in  string
	app     string
	wait    time.Duration
	message string
}

// In returns the actor acting in a channel: a handle ("general";
// "club/general" when several guilds have one), a DM's or group DM's
// handle, or a channel id.
func (a *Actor) In(channel string) *Actor {
	c := *a
	c.in = channel
	return &c
}

// WithApp returns the actor naming the app (a handle or id) whose command
// they run, where several apps have one of that name.
func (a *Actor) WithApp(app string) *Actor {
	c := *a
	c.app = app
	return &c
}

// Waiting returns the actor waiting up to d (at most 30 s; the server's
// default is 10 s) for a deferred answer to be filled in.
func (a *Actor) Waiting(d time.Duration) *Actor {
	c := *a
	c.wait = d
	return &c
}

// OnMessage returns the actor clicking and choosing on the message of
// that id, rather than the newest of the channel with such a component.
func (a *Actor) OnMessage(messageID string) *Actor {
	c := *a
	c.message = messageID
	return &c
}

// Run types a command line, as a chat client takes it: "/ban user:@bob
// reason:\"spam\"", handles where ids go (@user, #channel, @&role).
func (a *Actor) Run(ctx context.Context, line string) (*Answer, error) {
	return a.act(ctx, map[string]any{"run": line})
}

// UserCommand runs the user command name on target (a user's handle or
// id).
func (a *Actor) UserCommand(ctx context.Context, name, target string) (*Answer, error) {
	return a.act(ctx, map[string]any{"user_command": name, "target": target})
}

// MessageCommand runs the message command name on the message of that
// id.
func (a *Actor) MessageCommand(ctx context.Context, name, messageID string) (*Answer, error) {
	return a.act(ctx, map[string]any{"message_command": name, "target": messageID})
}

// Autocomplete types a command line whose last option is being typed in
// ("/pick fruit:man") and returns the app's choices.
func (a *Actor) Autocomplete(ctx context.Context, line string) ([]Choice, error) {
	r, err := a.act(ctx, map[string]any{"autocomplete": line})
	if err != nil {
		return nil, err
	}
	return r.Choices, nil
}

// Say posts a plain message and returns it.
func (a *Actor) Say(ctx context.Context, content string) (*Message, error) {
	r, err := a.act(ctx, map[string]any{"say": content})
	if err != nil {
		return nil, err
	}
	return r.Message, nil
}

// Click clicks the button whose custom_id, or else label, is button, on
// the message OnMessage named or the channel's newest with such a button.
func (a *Actor) Click(ctx context.Context, button string) (*Answer, error) {
	return a.act(ctx, map[string]any{"click": button})
}

// Select chooses values in the select menu whose custom_id (or
// placeholder) is menu.
func (a *Actor) Select(ctx context.Context, menu string, values ...string) (*Answer, error) {
	if values == nil {
		values = []string{}
	}
	return a.act(ctx, map[string]any{"choose": menu, "values": values})
}

// Submit submits the last modal an action of the actor opened, with each
// input's value by custom_id (Modal.Submit names the modal).
func (a *Actor) Submit(ctx context.Context, values map[string]string) (*Answer, error) {
	return a.act(ctx, map[string]any{"submit": values})
}

func (a *Actor) act(ctx context.Context, action map[string]any) (*Answer, error) {
	action["as"], action["in"] = a.as, a.in
	if a.app != "" && (action["run"] != nil || action["autocomplete"] != nil ||
		action["user_command"] != nil || action["message_command"] != nil) {
		action["app"] = a.app
	}
	if a.wait > 0 {
		action["wait"] = a.wait.String()
	}
	if a.message != "" && (action["click"] != nil || action["choose"] != nil) {
		action["message"] = a.message
	}
	var raw json.RawMessage
	if err := a.w.c.do(ctx, "POST", a.w.path("/act"), "", action, &raw); err != nil {
		return nil, err
	}
	return decodeAct(raw, a)
}

// Outcomes of an interaction (Answer.Outcome).
const (
	// OutcomeAnswered: the app answered in time.
	OutcomeAnswered = "answered"
	// OutcomeDeferredThenFilled: a deferred answer filled in within the
	// wait.
	OutcomeDeferredThenFilled = "deferred-then-filled"
	// OutcomeDeferredNotFilled: a deferred answer still loading when the
	// wait ran out.
	OutcomeDeferredNotFilled = "deferred-and-not-filled-within-wait"
	// OutcomeFailed: no usable answer in 3 seconds; Answer.Failure says
	// what the user was told.
	OutcomeFailed = "failed"
)

// Answer is what a world's user sees after an action: the message
// answered (or edited by a click, or posted by Say), the modal that
// opened, autocomplete's choices, and how the interaction ended.
//
// It is not Reply, the answer of Member.Invoke (the in-process kit's
// member), whose fields predate worlds.
type Answer struct {
	// Message is the message the user sees, nil when none (a modal,
	// autocomplete). Content, Embeds, Components, Attachments and
	// Ephemeral are its fields, empty without one.
	Message     *Message
	Content     string
	Embeds      []json.RawMessage
	Components  []json.RawMessage
	Attachments []json.RawMessage
	Ephemeral   bool
	// Modal is the modal that opened, nil when none.
	Modal *Modal
	// Choices are autocomplete's.
	Choices []Choice
	// InteractionID is the interaction's id ("" for Say, and when the
	// interaction failed before it was recorded).
	InteractionID string
	// Outcome is how the interaction ended (OutcomeAnswered…; "" for
	// Say).
	Outcome string
	// Failure is what the user was told when Outcome is OutcomeFailed:
	// the 502 or 504 of POST /api/v10/interactions.
	Failure *APIError
	// Raw is the act's whole answer.
	Raw json.RawMessage

	actor *Actor
}

// String returns r.Raw, so that test failures print the whole answer.
func (r *Answer) String() string {
	if r == nil {
		return "<nil>"
	}
	return string(r.Raw)
}

// Click clicks a button of the reply's message (its custom_id or label),
// as the same user in the same channel; the answer has the message as the
// click left it.
func (r *Answer) Click(ctx context.Context, button string) (*Answer, error) {
	return r.onMessage().Click(ctx, button)
}

// Select chooses values in a select menu of the reply's message.
func (r *Answer) Select(ctx context.Context, menu string, values ...string) (*Answer, error) {
	return r.onMessage().Select(ctx, menu, values...)
}

func (r *Answer) onMessage() *Actor {
	if r.Message == nil {
		return r.actor
	}
	return r.actor.OnMessage(r.Message.ID)
}

// Modal is a modal that opened.
type Modal struct {
	CustomID   string            `json:"custom_id"`
	Title      string            `json:"title"`
	Components []json.RawMessage `json:"components"`

	interactionID string
	actor         *Actor
}

// Submit submits the modal, each input's value by custom_id, as the user
// it opened for.
func (m *Modal) Submit(ctx context.Context, values map[string]string) (*Answer, error) {
	return m.actor.act(ctx, map[string]any{"submit": values, "modal": m.interactionID})
}

func decodeAct(raw json.RawMessage, a *Actor) (*Answer, error) {
	var wire struct {
		Message     json.RawMessage `json:"message"`
		Modal       *Modal          `json:"modal"`
		Choices     []wireChoice    `json:"choices"`
		Interaction *struct {
			ID      string          `json:"id"`
			Outcome string          `json:"outcome"`
			Error   json.RawMessage `json:"error"`
		} `json:"interaction"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("slashdtest: decode the act's answer %s: %w", raw, err)
	}
	r := &Answer{Modal: wire.Modal, Raw: raw, actor: a}
	if len(wire.Message) > 0 && string(wire.Message) != "null" {
		m, err := decodeMessage(wire.Message)
		if err != nil {
			return nil, err
		}
		r.Message = &m
		r.Content, r.Embeds, r.Components, r.Attachments, r.Ephemeral = m.Content, m.Embeds, m.Components, m.Attachments, m.Ephemeral
	}
	for _, c := range wire.Choices {
		r.Choices = append(r.Choices, c.choice())
	}
	if in := wire.Interaction; in != nil {
		r.InteractionID, r.Outcome = in.ID, in.Outcome
		if len(in.Error) > 0 {
			status := 502
			if strings.Contains(string(in.Error), "did not respond") {
				status = 504
			}
			r.Failure = apiError("POST", "/api/v10/interactions", status, in.Error)
		}
	}
	if r.Modal != nil {
		r.Modal.interactionID, r.Modal.actor = r.InteractionID, a
	}
	return r, nil
}

// Clock is a world's clock (docs/testing.md, "A world's clock").
type Clock struct{ w *World }

// Clock returns the world's clock.
func (w *World) Clock() Clock { return Clock{w} }

// Advance moves the world's clock ahead by d, a Go duration ("15m",
// "24h"; more than 0, at most 8784h), and returns the world's now.
func (c Clock) Advance(ctx context.Context, d string) (time.Time, error) {
	var out struct {
		Now time.Time `json:"now"`
	}
	err := c.w.c.do(ctx, "POST", c.w.path("/clock"), "", map[string]string{"advance": d}, &out)
	return out.Now, err
}

// Fault is a fault to add to a world (docs/faults.md): Kind, what it
// targets, how often, and the kind's parameters.
type Fault struct {
	// Kind is "rest.429", "rest.500", "rest.502", "rest.delay",
	// "delivery.late", "delivery.drop", "delivery.answered",
	// "gateway.reconnect", "gateway.invalid_session", "gateway.close",
	// "gateway.withhold_ack" or "gateway.delay_dispatch".
	Kind string
	// App (a handle or id), Route ("METHOD /path", REST kinds) and
	// Session (gateway kinds) narrow what it matches; empty: anything of
	// the world.
	App, Route, Session string
	// Count is how many times it fires (0: once, unless Probability).
	Count int
	// Probability (0 < p ≤ 1) with Seed fires it on a seeded share of the
	// matches.
	Probability float64
	Seed        int64
	// Params are the kind's parameters: "retry_after", "scope",
	// "delay_ms", "response", "resumable", "code", "event".
	Params map[string]any
}

// FaultState is a fault as the world holds it.
type FaultState struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Remaining is how many firings a counted fault has left (nil for a
	// probable one without count).
	Remaining *int `json:"remaining"`
	// Matched and Fired count the requests or events it matched and
	// those it fired on.
	Matched int `json:"matched"`
	Fired   int `json:"fired"`
	// Raw is the whole fault object.
	Raw json.RawMessage `json:"-"`
}

// Fault adds a fault to the world. A bad one is *APIError 400 50035.
func (w *World) Fault(ctx context.Context, f Fault) (*FaultState, error) {
	body := map[string]any{"kind": f.Kind}
	for k, v := range f.Params {
		body[k] = v
	}
	for k, v := range map[string]string{"app": f.App, "route": f.Route, "session": f.Session} {
		if v != "" {
			body[k] = v
		}
	}
	if f.Count > 0 {
		body["count"] = f.Count
	}
	if f.Probability > 0 {
		body["probability"], body["seed"] = f.Probability, f.Seed
	}
	var raw json.RawMessage
	if err := w.c.do(ctx, "POST", w.path("/faults"), "", body, &raw); err != nil {
		return nil, err
	}
	return decodeFault(raw)
}

// Faults lists the world's faults, spent ones included.
func (w *World) Faults(ctx context.Context) ([]FaultState, error) {
	var raws []json.RawMessage
	if err := w.c.do(ctx, "GET", w.path("/faults"), "", nil, &raws); err != nil {
		return nil, err
	}
	out := make([]FaultState, 0, len(raws))
	for _, raw := range raws {
		f, err := decodeFault(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, *f)
	}
	return out, nil
}

// ClearFaults deletes every fault of the world.
func (w *World) ClearFaults(ctx context.Context) error {
	return w.c.do(ctx, "DELETE", w.path("/faults"), "", nil, nil)
}

func decodeFault(raw json.RawMessage) (*FaultState, error) {
	f := &FaultState{Raw: raw}
	if err := json.Unmarshal(raw, f); err != nil {
		return nil, fmt.Errorf("slashdtest: decode fault %s: %w", raw, err)
	}
	return f, nil
}

// Events is a world's journal (docs/journal.md), read from its oldest
// entry or, after From or Latest, from a cursor on.
type Events struct {
	w     *World
	after string
}

// Events returns the world's journal, from its oldest entry.
func (w *World) Events() Events { return Events{w: w} }

// From returns the journal read from after the entry of that cursor
// (Event.Cursor) on.
func (e Events) From(cursor string) Events {
	e.after = cursor
	return e
}

// Latest returns the journal read from after the newest entry written so
// far: WaitFor then sees only what happens next, not what an earlier
// test did in the same world (a reset keeps the journal).
func (e Events) Latest(ctx context.Context) (Events, error) {
	cursor := e.after
	for {
		page, next, err := e.page(ctx, cursor, "", 0)
		if err != nil {
			return e, err
		}
		if len(page) == 0 || next == cursor {
			return e.From(next), nil
		}
		cursor = next
	}
}

// Event is an entry of a world's journal. The fields most tests look at
// are decoded; the rest of its type's fields are in Raw (Decode).
type Event struct {
	Cursor string `json:"cursor"`
	ID     string `json:"id"`
	// Type is "interaction.answered", "rest.request", "fault.fired"…
	Type          string    `json:"type"`
	At            time.Time `json:"at"`
	ApplicationID string    `json:"application_id"`
	InteractionID string    `json:"interaction_id"`
	// Method, Route and Status are a rest.request's; Outcome an
	// interaction's; Kind a fault's; Error a refused request's body.
	Method  string          `json:"method"`
	Route   string          `json:"route"`
	Status  int             `json:"status"`
	Outcome string          `json:"outcome"`
	Kind    string          `json:"kind"`
	Error   json.RawMessage `json:"error"`
	// Raw is the whole entry.
	Raw json.RawMessage `json:"-"`
}

// String returns e.Raw, so that test failures print the whole entry.
func (e Event) String() string { return string(e.Raw) }

// Decode decodes the whole entry into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Raw, v) }

// page reads the entries after cursor (of types, comma-separated; ""
// all), waiting up to wait for one when none is there.
func (e Events) page(ctx context.Context, after, types string, wait time.Duration) ([]Event, string, error) {
	q := url.Values{"limit": {"1000"}}
	if after != "" {
		q.Set("after", after)
	}
	if types != "" {
		q.Set("type", types)
	}
	if wait > 0 {
		q.Set("wait", strconv.FormatInt(wait.Milliseconds(), 10)+"ms")
	}
	var wire struct {
		Events []json.RawMessage `json:"events"`
		Cursor string            `json:"cursor"`
	}
	if err := e.w.c.do(ctx, "GET", e.w.path("/events?"+q.Encode()), "", nil, &wire); err != nil {
		return nil, "", err
	}
	out := make([]Event, 0, len(wire.Events))
	for _, raw := range wire.Events {
		ev := Event{Raw: raw}
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, "", fmt.Errorf("slashdtest: decode journal entry %s: %w", raw, err)
		}
		out = append(out, ev)
	}
	if wire.Cursor == "" {
		wire.Cursor = after
	}
	return out, wire.Cursor, nil
}

// List returns the journal's entries written so far (after From's
// cursor), the oldest first:
// all of them, or those of types ("rest.request", "failures"…). The
// journal is written in batches every 10 ms: wait for what a test
// expects with WaitFor before reading the rest.
func (e Events) List(ctx context.Context, types ...string) ([]Event, error) {
	var all []Event
	cursor := e.after
	for {
		page, next, err := e.page(ctx, cursor, strings.Join(types, ","), 0)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) == 0 || next == cursor {
			return all, nil
		}
		cursor = next
	}
}

// Failures returns what the world's bots got wrong so far (type
// failures: refused REST calls, failed interactions, 429s, dropped
// entries): what `slashd test` prints at the end. A test of a bot that
// did everything right ends with none.
func (e Events) Failures(ctx context.Context) ([]Event, error) {
	return e.List(ctx, "failures")
}

// WaitFor returns the first entry of the journal (from its oldest, or
// after From's or Latest's cursor) for which match is true, waiting for it to be written (long-polling). It
// gives up with ctx's error when ctx ends; a ctx without deadline gets
// 30 seconds.
func (e Events) WaitFor(ctx context.Context, match func(Event) bool) (Event, error) {
	ctx, cancel := withDefaultTimeout(ctx, 30*time.Second)
	defer cancel()
	cursor := e.after
	for {
		wait := 10 * time.Second
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			wait = max(time.Until(dl), time.Millisecond)
		}
		page, next, err := e.page(ctx, cursor, "", wait)
		if err != nil {
			if ctx.Err() != nil {
				return Event{}, errorf(ctx.Err(), "wait for a journal entry of world %s", e.w.Name)
			}
			return Event{}, err
		}
		for _, ev := range page {
			if match(ev) {
				return ev, nil
			}
		}
		if ctx.Err() != nil {
			return Event{}, errorf(ctx.Err(), "wait for a journal entry of world %s", e.w.Name)
		}
		cursor = next
	}
}

package adminapi

// POST /admin/v1/worlds/{world}/act: a world's member does what a chat
// client does, and the answer is what they then see. The member acts
// through the public API, in this process, with their own client token
// (the world's credentials): the same rules, errors and deliveries as a
// real client gets, nothing the admin's token could do that a member's
// could not.

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
	"strings"
	"time"

	"github.com/slashd/slashd/internal/act"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/worlds"
)

const (
	defaultActWait = 10 * time.Second
	maxActWait     = 60 * time.Second
	// actPoll is how often a deferred answer is looked at while it waits.
	actPoll = 50 * time.Millisecond

	messageLoading = 1 << 7
)

// actions are the keys naming what the member does; exactly one is given.
var actions = []string{"run", "autocomplete", "user_command", "message_command", "click", "select", "submit", "say"}

// actRequest is a decoded act body.
type actRequest struct {
	as, in, action, arg, target, message, interaction string
	values                                            []any
	fields                                            map[string]any
	wait                                              time.Duration
}

// actor is a member acting in a world.
type actor struct {
	a       *API
	ctx     context.Context
	token   string
	channel snowflake.ID
	view    worlds.Object
}

func (a *API) act(ctx context.Context, req *Request) (Response, error) {
	r := readAct(req.Form)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	obj, err := a.worldObject(req.World)
	if err != nil {
		return Response{}, err
	}
	u, ok := obj.Users[r.as]
	if !ok {
		return Response{}, apierr.Invalid("UNKNOWN_HANDLE", "No user of the world has the handle \""+r.as+"\"", "as")
	}
	ch, ok := channelOf(obj, r.in)
	if !ok {
		return Response{}, apierr.Invalid("UNKNOWN_HANDLE",
			"No channel of the world is \""+r.in+"\" (a channel handle, guild/channel, a DM handle or an id)", "in")
	}
	m := &actor{a: a, ctx: ctx, token: u.ClientToken, channel: ch, view: obj}
	res, err := m.do(r)
	var passed *passedError
	if errors.As(err, &passed) {
		// What the API refused the member, as it refused it.
		return Response{Status: passed.status, Body: json.RawMessage(passed.body)}, nil
	}
	return res, err
}

// readAct reads an act body, its errors recorded in f.
func readAct(f interface {
	Require(string) bool
	Str(string) (string, bool)
	StrLen(string, int, int) (string, bool)
	List(string) ([]any, bool)
	Dict(string) (map[string]any, bool)
	Present(string) bool
	At(...any) *apierr.Fields
}) actRequest {
	var r actRequest
	f.Require("as")
	r.as, _ = f.Str("as")
	f.Require("in")
	r.in, _ = f.Str("in")
	for _, k := range actions {
		if !f.Present(k) {
			continue
		}
		if r.action != "" {
			f.At(k).Add("ACTION_INVALID", "One action per request: "+r.action+" is given already")
			continue
		}
		r.action = k
	}
	if r.action == "" {
		f.At("run").Add(form.CodeRequired, "Say what the member does: one of "+strings.Join(actions, ", "))
	}
	switch r.action {
	case "submit":
		r.fields, _ = f.Dict("submit")
		f.Require("interaction")
		r.interaction, _ = f.Str("interaction")
	case "select":
		r.arg, _ = f.StrLen("select", 1, 100)
		f.Require("values")
		r.values, _ = f.List("values")
		f.Require("message")
	case "click":
		r.arg, _ = f.StrLen("click", 1, 100)
		f.Require("message")
	case "user_command", "message_command":
		r.arg, _ = f.StrLen(r.action, 1, 32)
		f.Require("target")
		r.target, _ = f.Str("target")
	case "":
	default:
		r.arg, _ = f.StrLen(r.action, 1, 4000)
	}
	r.message, _ = f.Str("message")
	r.wait = defaultActWait
	if s, ok := f.Str("wait"); ok {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > maxActWait {
			f.At("wait").Add("DURATION_INVALID", `Must be a duration from "0s" to "60s".`)
		}
		r.wait = d
	}
	return r
}

// channelOf finds the channel "in" names: a channel handle of one guild,
// guild/channel, a DM or group DM handle, or an id.
func channelOf(obj worlds.Object, in string) (snowflake.ID, bool) {
	if id, err := snowflake.Parse(in); err == nil && id != 0 {
		return id, true
	}
	if g, c, ok := strings.Cut(in, "/"); ok {
		id, found := obj.Guilds[g].Channels[c]
		return id, found
	}
	if id, ok := obj.DMs[in]; ok {
		return id, true
	}
	if id, ok := obj.GroupDMs[in]; ok {
		return id, true
	}
	var found []snowflake.ID
	for _, g := range obj.Guilds {
		if id, ok := g.Channels[in]; ok {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		return 0, false
	}
	return found[0], true
}

// lookup finds a handle's id for a command line (act.Substitute).
func (m *actor) lookup(k act.Kind, h string) (string, bool) {
	switch k {
	case act.User:
		if u, ok := m.view.Users[h]; ok {
			return u.ID.String(), true
		}
		if app, ok := m.view.Apps[h]; ok {
			return app.BotUserID.String(), true
		}
	case act.Role:
		for _, g := range m.view.Guilds {
			if id, ok := g.Roles[h]; ok {
				return id.String(), true
			}
		}
	case act.Channel:
		if id, ok := channelOf(m.view, h); ok {
			return id.String(), true
		}
	}
	return "", false
}

// do runs the action.
func (m *actor) do(r actRequest) (Response, error) {
	switch r.action {
	case "say":
		var msg json.RawMessage
		if err := m.call(http.MethodPost, "/channels/"+m.channel.String()+"/messages", map[string]any{"content": r.arg}, &msg); err != nil {
			return Response{}, err
		}
		return ok(map[string]any{"message": msg}), nil
	case "run", "autocomplete":
		return m.run(r)
	case "user_command", "message_command":
		return m.contextCommand(r)
	case "click", "select":
		return m.component(r)
	case "submit":
		return m.submit(r)
	}
	return Response{}, fmt.Errorf("act: unknown action %q", r.action)
}

// index is the command picker the member sees in the channel.
func (m *actor) index() ([]command.ListItem, error) {
	var index struct {
		Commands []command.ListItem `json:"application_commands"`
	}
	err := m.call(http.MethodGet, "/channels/"+m.channel.String()+"/application-command-index", nil, &index)
	return index.Commands, err
}

func (m *actor) run(r actRequest) (Response, error) {
	line, err := slashline.Parse(act.Substitute(r.arg, m.lookup))
	if err != nil {
		return Response{}, apierr.Invalid("COMMAND_LINE_INVALID", err.Error(), r.action)
	}
	cmds, err := m.index()
	if err != nil {
		return Response{}, err
	}
	inv, err := slashline.Resolve(line, cmds, slashline.Filter{})
	if err != nil {
		return Response{}, apierr.Invalid("COMMAND_LINE_INVALID", err.Error(), r.action)
	}
	typ := 2
	var data any = inv.Data
	if r.action == "autocomplete" {
		typ, data = 4, focusLast(inv.Data)
	}
	return m.interact(r, map[string]any{"type": typ, "application_id": inv.ApplicationID, "channel_id": m.channel,
		"data": data})
}

// focusLast is an invocation's data with its last option focused, its
// value as typed (a client sends the partial text).
func focusLast(d slashline.Data) map[string]any {
	var v map[string]any
	b, _ := json.Marshal(d)
	_ = json.Unmarshal(b, &v)
	opts, _ := v["options"].([]any)
	for len(opts) > 0 {
		last, _ := opts[len(opts)-1].(map[string]any)
		if inner, ok := last["options"].([]any); ok && len(inner) > 0 {
			opts = inner
			continue
		}
		last["focused"] = true
		if val, ok := last["value"]; ok {
			last["value"] = fmt.Sprint(val)
		} else {
			last["value"] = ""
		}
		break
	}
	return v
}

func (m *actor) contextCommand(r actRequest) (Response, error) {
	typ := command.User
	if r.action == "message_command" {
		typ = command.Message
	}
	cmds, err := m.index()
	if err != nil {
		return Response{}, err
	}
	var found *command.ListItem
	for i := range cmds {
		if cmds[i].Type == typ && strings.EqualFold(cmds[i].Name, r.arg) {
			found = &cmds[i]
			break
		}
	}
	if found == nil {
		return Response{}, apierr.Invalid("UNKNOWN_COMMAND", "No "+strings.ReplaceAll(r.action, "_", " ")+
			" \""+r.arg+"\" is in the member's picker here", r.action)
	}
	target := r.target
	if typ == command.User {
		if id, ok := m.lookup(act.User, strings.TrimPrefix(target, "@")); ok {
			target = id
		}
	}
	return m.interact(r, map[string]any{"type": 2, "application_id": found.ApplicationID, "channel_id": m.channel,
		"data": map[string]any{"id": found.ID, "name": found.Name, "type": typ, "version": found.Version, "target_id": target}})
}

// component clicks a button or chooses in a select of a message.
func (m *actor) component(r actRequest) (Response, error) {
	var msg struct {
		ID            snowflake.ID `json:"id"`
		ApplicationID snowflake.ID `json:"application_id"`
		Author        struct {
			ID snowflake.ID `json:"id"`
		} `json:"author"`
		Components []any `json:"components"`
	}
	if err := m.message(r.message, &msg); err != nil {
		return Response{}, err
	}
	c, ok := act.FindComponent(msg.Components, r.arg)
	if !ok {
		return Response{}, apierr.Invalid("UNKNOWN_COMPONENT",
			"The message has no component with the custom_id or label \""+r.arg+"\"", r.action)
	}
	app := msg.ApplicationID
	if app == 0 {
		app = msg.Author.ID
	}
	data := map[string]any{"custom_id": c.CustomID, "component_type": c.Type}
	if r.action == "select" {
		data["values"] = r.values
	}
	return m.interact(r, map[string]any{"type": 3, "application_id": app, "channel_id": m.channel,
		"message_id": msg.ID, "data": data})
}

// submit fills in and submits the modal an interaction's answer opened.
func (m *actor) submit(r actRequest) (Response, error) {
	id, err := snowflake.Parse(r.interaction)
	if err != nil {
		return Response{}, apierr.Invalid("NUMBER_TYPE_COERCE", "Value is not snowflake.", "interaction")
	}
	rec, err := m.a.Store.Interaction(m.ctx, id)
	var modal struct {
		CustomID   string `json:"custom_id"`
		Components []any  `json:"components"`
	}
	if err == nil && rec.ResponseType == 9 {
		err = json.Unmarshal(rec.Result, &modal)
	} else if err == nil || errors.Is(err, store.ErrNotFound) {
		return Response{}, apierr.Invalid("UNKNOWN_MODAL", "The interaction did not open a modal", "interaction")
	}
	if err != nil {
		return Response{}, err
	}
	app := rec.ApplicationID
	return m.interact(r, map[string]any{"type": 5, "application_id": app, "channel_id": m.channel,
		"data": map[string]any{"id": id, "custom_id": modal.CustomID, "components": act.ModalAnswer(modal.Components, r.fields)}})
}

// message reads a message of the channel as the member sees it.
func (m *actor) message(id string, v any) error {
	mid, err := snowflake.Parse(id)
	if err != nil {
		return apierr.Invalid("NUMBER_TYPE_COERCE", "Value is not snowflake.", "message")
	}
	var msgs []json.RawMessage
	q := url.Values{"before": {strconv.FormatUint(uint64(mid)+1, 10)}, "limit": {"1"}}
	if err := m.call(http.MethodGet, "/channels/"+m.channel.String()+"/messages?"+q.Encode(), nil, &msgs); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return apierr.New(http.StatusNotFound, 10008, "Unknown Message")
	}
	if err := json.Unmarshal(msgs[0], v); err != nil {
		return err
	}
	var got struct {
		ID snowflake.ID `json:"id"`
	}
	if json.Unmarshal(msgs[0], &got); got.ID != mid {
		return apierr.New(http.StatusNotFound, 10008, "Unknown Message")
	}
	return nil
}

// interact sends an interaction as the member and waits, up to r.wait,
// for a deferred answer to be filled in.
func (m *actor) interact(r actRequest, body map[string]any) (Response, error) {
	var answer struct {
		Interaction map[string]any `json:"interaction"`
		Resource    struct {
			Type    int             `json:"type"`
			Message json.RawMessage `json:"message"`
			Modal   json.RawMessage `json:"modal"`
			Choices json.RawMessage `json:"choices"`
		} `json:"resource"`
	}
	if err := m.call(http.MethodPost, "/interactions", body, &answer); err != nil {
		return Response{}, err
	}
	out := map[string]any{}
	outcome := "answered"
	msg := answer.Resource.Message
	switch answer.Resource.Type {
	case 5: // a deferred message: wait for it to be filled in
		filled, done, err := m.waitFilled(msg, r.wait)
		if err != nil {
			return Response{}, err
		}
		msg, outcome = filled, "deferred"
		if done {
			outcome = "deferred_filled"
		}
	case 6: // a deferred update: the message as it is now
		outcome = "deferred_update"
	}
	if len(msg) > 0 && string(msg) != "null" {
		out["message"] = msg
	}
	if len(answer.Resource.Modal) > 0 && string(answer.Resource.Modal) != "null" {
		out["modal"], outcome = answer.Resource.Modal, "modal"
	}
	if len(answer.Resource.Choices) > 0 && string(answer.Resource.Choices) != "null" {
		out["choices"] = answer.Resource.Choices
	}
	out["interaction"] = map[string]any{"id": answer.Interaction["id"], "type": answer.Interaction["type"],
		"callback_type": answer.Resource.Type, "outcome": outcome}
	return ok(out), nil
}

// waitFilled waits for a loading message to be filled in: the message,
// and whether it was within wait.
func (m *actor) waitFilled(loading json.RawMessage, wait time.Duration) (json.RawMessage, bool, error) {
	var head struct {
		ID    snowflake.ID `json:"id"`
		Flags int          `json:"flags"`
	}
	if json.Unmarshal(loading, &head) != nil || head.Flags&messageLoading == 0 {
		return loading, true, nil
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(actPoll)
	defer tick.Stop()
	last := loading
	for {
		var now json.RawMessage
		if err := m.message(head.ID.String(), &now); err != nil {
			return nil, false, err
		}
		last = now
		var h struct {
			Flags int `json:"flags"`
		}
		if json.Unmarshal(now, &h) == nil && h.Flags&messageLoading == 0 {
			return now, true, nil
		}
		select {
		case <-m.ctx.Done():
			return nil, false, m.ctx.Err()
		case <-deadline.C:
			return last, false, nil
		case <-tick.C:
		}
	}
}

// call sends a request to the public API, in this process, with the
// member's client token, and decodes a 2xx answer into v; any other
// answer is returned as the API's error, as it is.
func (m *actor) call(method, path string, body, v any) error {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequestWithContext(m.ctx, method, "/api/v10"+path, rd)
	req.Header.Set("Authorization", m.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	m.a.Local.ServeHTTP(rec, req)
	if rec.Code/100 != 2 {
		return &passedError{status: rec.Code, body: rec.Body.Bytes(), header: rec.Header()}
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(rec.Body.Bytes(), v)
}

// passedError is an answer of the public API passed on as it is.
type passedError struct {
	status int
	body   []byte
	header http.Header
}

func (e *passedError) Error() string { return fmt.Sprintf("%d %s", e.status, bytes.TrimSpace(e.body)) }

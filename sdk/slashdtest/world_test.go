package slashdtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/sdk/interactions"
	"github.com/slashd/slashd/sdk/slashdtest"
)

// worldSpec is the world the kit's tests make: alice (a mod) and bob in
// a guild with #general, the app "bot" installed with its commands.
func worldSpec(name string) map[string]any {
	return map[string]any{
		"name":  name,
		"users": map[string]any{"alice": map[string]any{}, "bob": map[string]any{}},
		"apps": map[string]any{"bot": map[string]any{"commands": []map[string]any{
			{"name": "echo", "description": "Say it back", "options": []map[string]any{
				{"type": 3, "name": "text", "description": "What to say", "required": true}}},
			{"name": "secret", "description": "Whisper"},
			{"name": "counter", "description": "A counter"},
			{"name": "menu", "description": "A menu"},
			{"name": "feedback", "description": "Tell us"},
			{"name": "slow", "description": "Defer, then fill in"},
			{"name": "fruit", "description": "Pick a fruit", "options": []map[string]any{
				{"type": 3, "name": "name", "description": "The fruit", "required": true, "autocomplete": true}}},
			{"name": "ban", "description": "Ban someone", "default_member_permissions": "4"},
		}}},
		"dms": map[string]any{"ab": map[string]any{"between": []string{"alice", "bob"}}},
		"guilds": map[string]any{"club": map[string]any{
			"owner":    "alice",
			"roles":    map[string]any{"mods": map[string]any{"permissions": []string{"BAN_MEMBERS"}}},
			"channels": map[string]any{"general": map[string]any{}},
			"members":  map[string]any{"alice": map[string]any{"roles": []string{"mods"}}, "bob": map[string]any{}},
			"install":  map[string]any{"bot": map[string]any{"scopes": []string{"bot", "applications.commands"}}},
		}},
	}
}

// worldBot answers the commands of worldSpec; /slow fills its deferred
// answer in through the API at base.
type worldBot struct {
	api *interactions.Client
	wg  sync.WaitGroup
}

func (b *worldBot) handle(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
	d := i.Data
	switch {
	case i.Type == interactions.InteractionAutocomplete:
		o, _ := d.Focused()
		typed, _ := o.String()
		var cs []interactions.Choice
		for _, f := range fruits {
			if strings.HasPrefix(f, typed) {
				cs = append(cs, interactions.Choice{Name: f, Value: f})
			}
		}
		return interactions.Autocomplete(cs...), nil
	case i.Type == interactions.InteractionModalSubmit:
		text, _ := d.ModalValue("text")
		return interactions.Message("thanks: "+text, interactions.Ephemeral()), nil
	case i.Type == interactions.InteractionMessageComponent && d.CustomID == "inc":
		return interactions.UpdateMessage("Count: 1"), nil
	case i.Type == interactions.InteractionMessageComponent && d.CustomID == "menu":
		return interactions.UpdateMessage("chose " + strings.Join(d.SelectValues, ",")), nil
	}
	switch d.Name {
	case "echo":
		o, _ := d.Option("text")
		s, _ := o.String()
		return interactions.Message("you said " + s), nil
	case "secret":
		return interactions.Message("psst", interactions.Ephemeral()), nil
	case "counter":
		return interactions.Message("Count: 0", interactions.WithComponents(interactions.Row(
			interactions.Button("inc", "+1", interactions.ButtonPrimary)))), nil
	case "menu":
		return interactions.Message("choose", interactions.WithComponents(interactions.Row(json.RawMessage(
			`{"type": 3, "custom_id": "menu", "max_values": 2, "options": [{"label": "A", "value": "a"}, {"label": "B", "value": "b"}]}`)))), nil
	case "feedback":
		return interactions.Modal("fb", "Feedback", interactions.TextInputRow("text", "Say", interactions.TextInputShort)), nil
	case "slow":
		b.wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// The deferred answer is taken from the HTTP response, after
			// this handler returns: until then the webhook is unknown.
			for {
				_, err := b.api.EditOriginal(ctx, i.ApplicationID, i.Token, interactions.EditData{Content: new("done")})
				var apiErr *interactions.APIError
				if err == nil || !errors.As(err, &apiErr) || apiErr.Code != interactions.CodeUnknownWebhook || ctx.Err() != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		return interactions.Defer(false), nil
	case "ban":
		return interactions.Message("banned"), nil
	}
	return interactions.Message("unknown"), nil
}

// connections are the ways to reach a server the kit offers: the
// in-process server itself, its URL as a remote server (ConnectTo), and
// `slashd test`'s environment (Connect).
var connections = []struct {
	name    string
	connect func(t *testing.T, s *slashdtest.Server) *slashdtest.Client
}{
	{"in-process", func(t *testing.T, s *slashdtest.Server) *slashdtest.Client { return s.Client() }},
	{"ConnectTo", func(t *testing.T, s *slashdtest.Server) *slashdtest.Client {
		return slashdtest.ConnectTo(s.URL+"/", s.AdminToken)
	}},
	{"Connect", func(t *testing.T, s *slashdtest.Server) *slashdtest.Client {
		t.Setenv("SLASHD_URL", s.URL)
		t.Setenv("SLASHD_ADMIN_TOKEN", s.AdminToken)
		c, err := slashdtest.Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
}

// newWorld makes worldSpec(name) through c and serves its bot, at the
// URL it returns; the world is deleted when the test ends.
func newWorld(t *testing.T, c *slashdtest.Client, name string) (*slashdtest.World, string) {
	t.Helper()
	ctx := t.Context()
	w, err := c.World(ctx, worldSpec(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Delete(context.Background()) })
	b := &worldBot{api: &interactions.Client{BaseURL: c.URL}}
	app := httptest.NewServer(interactions.Handler(w.App("bot").PublicKey, b.handle))
	t.Cleanup(func() { app.Close(); b.wg.Wait() })
	if err := w.SetInteractionsEndpoint(ctx, "bot", app.URL); err != nil {
		t.Fatal(err)
	}
	return w, app.URL
}

func TestWorldKit(t *testing.T) {
	s := slashdtest.Start(t)
	for _, conn := range connections {
		t.Run(conn.name, func(t *testing.T) {
			ctx := t.Context()
			w, _ := newWorld(t, conn.connect(t, s), "kit-"+strings.ToLower(conn.name))
			alice, bob := w.As("alice").In("general"), w.As("bob").In("general")
			if w.Users["alice"].ID == "" || w.Apps["bot"].BotToken == "" || w.Guilds["club"].Channels["general"] == "" {
				t.Fatalf("handles missing: %+v", w)
			}

			steps := []struct {
				name             string
				do               func() (*slashdtest.Answer, error)
				content, outcome string
				ephemeral        bool
			}{
				{"a command with options", func() (*slashdtest.Answer, error) { return alice.Run(ctx, `/echo text:"hello there"`) },
					"you said hello there", slashdtest.OutcomeAnswered, false},
				{"an ephemeral reply", func() (*slashdtest.Answer, error) { return bob.Run(ctx, "/secret") },
					"psst", slashdtest.OutcomeAnswered, true},
				{"defer, then fill in", func() (*slashdtest.Answer, error) { return alice.Run(ctx, "/slow") },
					"done", slashdtest.OutcomeDeferredThenFilled, false},
				{"a permission the member has", func() (*slashdtest.Answer, error) { return alice.Run(ctx, "/ban") },
					"banned", slashdtest.OutcomeAnswered, false},
			}
			for _, st := range steps {
				r, err := st.do()
				if err != nil {
					t.Errorf("%s: %v", st.name, err)
					continue
				}
				if r.Content != st.content || r.Outcome != st.outcome || r.Ephemeral != st.ephemeral {
					t.Errorf("%s: %q %s ephemeral %v, want %q %s %v: %s", st.name, r.Content, r.Outcome, r.Ephemeral,
						st.content, st.outcome, st.ephemeral, r)
				}
			}

			// A command bob's permissions hide: slashd refuses it as the
			// real service does, a typed error.
			_, err := bob.Run(ctx, "/ban")
			var apiErr *slashdtest.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden || apiErr.Code != 50013 {
				t.Errorf("bob's /ban: %v, want 403 50013", err)
			}
			_, err = alice.Run(ctx, "/nosuch")
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound {
				t.Errorf("/nosuch: %v, want 404", err)
			}

			counter, err := alice.Run(ctx, "/counter")
			if err != nil || len(counter.Components) != 1 {
				t.Fatalf("/counter: %v %s", err, counter)
			}
			clicked, err := counter.Click(ctx, "+1")
			if err != nil || clicked.Content != "Count: 1" || clicked.Message.ID != counter.Message.ID {
				t.Errorf("click +1: %v %s", err, clicked)
			}
			menu, err := alice.Run(ctx, "/menu")
			if err != nil {
				t.Fatal(err)
			}
			if chose, err := menu.Select(ctx, "menu", "a", "b"); err != nil || chose.Content != "chose a,b" {
				t.Errorf("select: %v %s", err, chose)
			}

			form, err := alice.Run(ctx, "/feedback")
			if err != nil || form.Modal == nil || form.Modal.Title != "Feedback" {
				t.Fatalf("/feedback: %v %s", err, form)
			}
			if r, err := form.Modal.Submit(ctx, map[string]string{"text": "lovely"}); err != nil || r.Content != "thanks: lovely" || !r.Ephemeral {
				t.Errorf("submit: %v %s", err, r)
			}

			choices, err := bob.Autocomplete(ctx, "/fruit name:ap")
			if err != nil || len(choices) != 2 || choices[0].Value != "apple" {
				t.Errorf("autocomplete: %v %+v", err, choices)
			}
			said, err := bob.Say(ctx, "hi all")
			if err != nil || said.Content != "hi all" {
				t.Errorf("say: %v %+v", err, said)
			}
			if w.DMs["ab"] == "" {
				t.Errorf("no DM ab: %+v", w.DMs)
			}
			if said, err := w.As("bob").In("ab").Say(ctx, "psst alice"); err != nil || said.ChannelID != w.DMs["ab"] {
				t.Errorf("say in the DM: %v %+v", err, said)
			}

			ev, err := w.Events().WaitFor(ctx, func(e slashdtest.Event) bool {
				return e.Type == "interaction.answered" && e.InteractionID == counter.InteractionID
			})
			if err != nil || ev.ApplicationID != w.App("bot").ID {
				t.Errorf("WaitFor the counter's answer: %v %s", err, ev)
			}
			// Latest: WaitFor sees only what comes after it.
			latest, err := w.Events().Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			again, err := alice.Run(ctx, "/secret")
			if err != nil {
				t.Fatal(err)
			}
			ev, err = latest.WaitFor(ctx, func(e slashdtest.Event) bool { return e.Type == "interaction.answered" })
			if err != nil || ev.InteractionID != again.InteractionID {
				t.Errorf("Latest().WaitFor: %v %s, want the answer to %s", err, ev, again.InteractionID)
			}
			if f, err := w.Events().Failures(ctx); err != nil || len(f) != 0 {
				t.Errorf("failures: %v %v", err, f)
			}
		})
	}
}

// TestWorldFaultsClockReset: a fault fires and shows in the journal, the
// clock moves, a reset keeps the credentials, a delete ends them.
func TestWorldFaultsClockReset(t *testing.T) {
	s := slashdtest.Start(t)
	ctx := t.Context()
	w, botURL := newWorld(t, s.Client(), "faults")
	alice := w.As("alice").In("general")

	f, err := w.Fault(ctx, slashdtest.Fault{Kind: "delivery.drop", App: "bot", Count: 1})
	if err != nil || f.ID == "" || f.Remaining == nil || *f.Remaining != 1 {
		t.Fatalf("Fault: %v %+v", err, f)
	}
	r, err := alice.Run(ctx, "/secret")
	if err != nil || r.Outcome != slashdtest.OutcomeFailed || r.Failure == nil || r.Failure.Status != http.StatusGatewayTimeout {
		t.Fatalf("a dropped delivery: %v %s", err, r)
	}
	for _, typ := range []string{"fault.fired", "interaction.failed"} {
		if _, err := w.Events().WaitFor(ctx, func(e slashdtest.Event) bool { return e.Type == typ }); err != nil {
			t.Error(err)
		}
	}
	if r, err := alice.Run(ctx, "/secret"); err != nil || r.Content != "psst" {
		t.Errorf("after the fault: %v %s", err, r)
	}
	if fails, err := w.Events().Failures(ctx); err != nil || len(fails) != 1 || fails[0].Type != "interaction.failed" {
		t.Errorf("failures: %v %v", err, fails)
	}
	if fs, err := w.Faults(ctx); err != nil || len(fs) != 1 || fs[0].Fired != 1 {
		t.Errorf("Faults: %v %+v", err, fs)
	}
	if err := w.ClearFaults(ctx); err != nil {
		t.Error(err)
	}
	_, err = w.Fault(ctx, slashdtest.Fault{Kind: "no.such"})
	var apiErr *slashdtest.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Code != 50035 {
		t.Errorf("a bad fault: %v", err)
	}

	before := time.Now()
	now, err := w.Clock().Advance(ctx, "15m")
	if err != nil || now.Sub(before) < 15*time.Minute {
		t.Errorf("Advance: %v %v", err, now)
	}

	token := w.Users["alice"].ClientToken
	if err := w.Reset(ctx); err != nil || w.Users["alice"].ClientToken != token {
		t.Errorf("Reset: %v", err)
	}
	// The reset took the app back to its spec, which has no Interactions
	// Endpoint: the bot sets it again, as it would at start-up.
	if r, err := alice.Run(ctx, "/secret"); err != nil || r.Outcome != slashdtest.OutcomeFailed {
		t.Errorf("after the reset, before the endpoint is set again: %v %s", err, r)
	}
	if err := w.SetInteractionsEndpoint(ctx, "bot", botURL); err != nil {
		t.Fatal(err)
	}
	if r, err := alice.Run(ctx, "/secret"); err != nil || r.Content != "psst" {
		t.Errorf("after the reset: %v %s", err, r)
	}
	opened, err := s.Client().OpenWorld(ctx, "faults")
	if err != nil || opened.ID != w.ID || opened.Apps["bot"].BotToken != w.Apps["bot"].BotToken {
		t.Errorf("OpenWorld: %v %+v", err, opened)
	}
	if err := w.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s.Client().OpenWorld(ctx, "faults")
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound || apiErr.Code != 10000 {
		t.Errorf("a deleted world: %v", err)
	}
}

// TestWorldSpecErrors: a spec refused is a typed error; YAML is sent as
// YAML.
func TestWorldSpecErrors(t *testing.T) {
	s := slashdtest.Start(t)
	ctx := t.Context()
	tests := []struct {
		name   string
		spec   any
		status int
		path   string // in Errors
	}{
		{"unknown owner", `{"name": "bad", "users": {}, "guilds": {"g": {"owner": "nobody"}}}`, 400, "owner"},
		{"YAML", "name: yaml-ok\nusers:\n  alice: {}\n", 0, ""},
		{"no name", map[string]any{"users": map[string]any{}}, 400, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := s.World(ctx, tt.spec)
			if tt.status == 0 {
				if err != nil || w.Users["alice"].ID == "" {
					t.Fatalf("%v %+v", err, w)
				}
				return
			}
			var apiErr *slashdtest.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status || !strings.Contains(string(apiErr.Errors), tt.path) {
				t.Errorf("%v, want %d at %s", err, tt.status, tt.path)
			}
		})
	}
	if _, err := slashdtest.ConnectTo(s.URL, "wrong").World(ctx, worldSpec("x")); err == nil {
		t.Error("a wrong admin token was accepted")
	}
	t.Setenv("SLASHD_URL", "")
	if _, err := slashdtest.Connect(ctx); !errors.Is(err, slashdtest.ErrNoServer) {
		t.Errorf("Connect without the environment: %v", err)
	}
	// Without the environment, ConnectOrStart starts a server of its own.
	if c := slashdtest.ConnectOrStart(t); c.URL == s.URL || c.Healthy(ctx) != nil {
		t.Errorf("ConnectOrStart without the environment: %s", c.URL)
	}
	t.Setenv("SLASHD_URL", s.URL)
	t.Setenv("SLASHD_ADMIN_TOKEN", s.AdminToken)
	if c := slashdtest.ConnectOrStart(t); c.URL != s.URL {
		t.Errorf("ConnectOrStart under slashd test: %s, want %s", c.URL, s.URL)
	}
}

// BenchmarkWorldRun: a member's /echo through the kit (Actor.Run: the
// act, its answer decoded), against the baseline of the same act sent
// as raw JSON with the kit's Client.Do, decoded into nothing.
func BenchmarkWorldRun(b *testing.B) {
	s := slashdtest.Start(b)
	ctx := context.Background()
	w, err := s.World(ctx, worldSpec("bench"))
	if err != nil {
		b.Fatal(err)
	}
	bot := &worldBot{api: &interactions.Client{BaseURL: s.URL}}
	app := httptest.NewServer(interactions.Handler(w.App("bot").PublicKey, bot.handle))
	b.Cleanup(app.Close)
	if err := w.SetInteractionsEndpoint(ctx, "bot", app.URL); err != nil {
		b.Fatal(err)
	}
	alice := w.As("alice").In("general")
	b.Run("kit", func(b *testing.B) {
		for b.Loop() {
			if r, err := alice.Run(ctx, "/echo text:hi"); err != nil || r.Content != "you said hi" {
				b.Fatal(err, r)
			}
		}
	})
	b.Run("baseline-raw-act", func(b *testing.B) {
		body := json.RawMessage(`{"as": "alice", "in": "general", "run": "/echo text:hi"}`)
		for b.Loop() {
			if err := s.Client().Do(ctx, "POST", "/admin/v1/worlds/bench/act", "", body, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

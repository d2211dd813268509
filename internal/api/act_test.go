package api_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// actSpec is the example with an app that answers over its
// Interactions Endpoint URL (%s) and more commands to act on.
const actSpec = `{"name": "act-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"interactions_endpoint_url": %q, "commands": [
   {"name": "ban", "description": "Ban someone",
    "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
                {"type": 3, "name": "reason", "description": "Why"}]},
   {"name": "secret", "description": "Whispers"},
   {"name": "slow", "description": "Takes its time"},
   {"name": "never", "description": "Defers and forgets"},
   {"name": "quick", "description": "Defers and fills in before its delivery returns"},
   {"name": "panel", "description": "A panel"},
   {"name": "form", "description": "A form"},
   {"name": "pick", "description": "Picks a fruit",
    "options": [{"type": 3, "name": "fruit", "description": "Which", "autocomplete": true}]},
   {"name": "mute", "description": "Mods only", "default_member_permissions": "8"},
   {"name": "menu", "description": "A select"},
   {"name": "broken", "description": "Answers nonsense"},
   {"type": 2, "name": "Report"}, {"type": 3, "name": "Quote"}]}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}, "staff": {"overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]},
                                                        "mods": {"allow": ["VIEW_CHANNEL"]}}}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// actApp is the world's app: it answers each command its own way.
func actApp(t *testing.T, e *testenv.Env, i *interactions.Interaction) (interactions.Response, error) {
	client := &interactions.Client{BaseURL: e.URL}
	// fill edits the deferred answer once the service has it (the edit
	// is refused until the initial answer is in).
	fill := func(content string) {
		go func() {
			retry := time.NewTicker(5 * time.Millisecond) // a retry interval, not a wait for the event
			defer retry.Stop()
			for ; ; <-retry.C {
				_, err := client.EditOriginal(context.Background(), i.ApplicationID, i.Token,
					interactions.EditData{Content: &content})
				var apiErr *interactions.APIError
				if err == nil || !errors.As(err, &apiErr) || apiErr.Code != interactions.CodeUnknownWebhook {
					if err != nil {
						t.Errorf("fill: %v", err)
					}
					return
				}
			}
		}()
	}
	d := i.Data
	switch i.Type {
	case interactions.InteractionApplicationCommand:
		switch d.Name {
		case "ban":
			who, _ := d.Option("user")
			id, _ := who.Snowflake()
			why, _ := d.Option("reason")
			reason, _ := why.String()
			return interactions.Message(fmt.Sprintf("banned <@%s>: %s", id, reason)), nil
		case "secret":
			return interactions.Message("psst", interactions.Ephemeral()), nil
		case "slow":
			fill("done at last")
			return interactions.Defer(false), nil
		case "never":
			return interactions.Defer(false), nil
		case "panel":
			return interactions.Message("panel", interactions.WithComponents(
				interactions.Row(interactions.Button("go", "Go", interactions.ButtonPrimary),
					interactions.Button("later", "Later", interactions.ButtonSecondary),
					interactions.Button("ask", "Ask", interactions.ButtonSecondary)))), nil
		case "form":
			return interactions.Modal("feedback", "Feedback",
				interactions.TextInputRow("opinion", "Your opinion", interactions.TextInputShort)), nil
		case "menu":
			return interactions.Message("menu", interactions.WithComponents(interactions.Row(map[string]any{
				"type": 3, "custom_id": "fruit", "placeholder": "A fruit", "max_values": 2,
				"options": []map[string]any{{"label": "Apple", "value": "apple"}, {"label": "Pear", "value": "pear"}}}))), nil
		case "broken":
			return interactions.Message(""), nil
		case "Quote":
			return interactions.Message("quoted " + d.TargetID), nil
		case "Report":
			return interactions.Message("reported <@" + d.TargetID + ">"), nil
		}
	case interactions.InteractionMessageComponent:
		switch d.CustomID {
		case "later":
			fill("edited later")
			return interactions.DeferUpdate(), nil
		case "ask":
			return interactions.Modal("feedback", "Feedback",
				interactions.TextInputRow("opinion", "Your opinion", interactions.TextInputShort)), nil
		}
		if len(d.SelectValues) > 0 {
			return interactions.UpdateMessage("chose " + strings.Join(d.SelectValues, ",")), nil
		}
		return interactions.UpdateMessage("clicked " + d.CustomID), nil
	case interactions.InteractionModalSubmit:
		in, _ := d.ModalInput("opinion")
		return interactions.Message("thanks for: " + in.Value), nil
	case interactions.InteractionAutocomplete:
		f, _ := d.Focused()
		typed, _ := f.String()
		return interactions.Autocomplete(interactions.Choice{Name: typed + "go", Value: typed + "go"}), nil
	}
	return interactions.Message("?"), nil
}

// quickFiller answers /quick over the callback route before its delivery
// returns: it defers, fills the answer in, then answers the delivery
// 202. By the time the invocation reads its answer, the deferred message
// is already filled (what a quick gateway bot can do too). Everything
// else goes to next.
func quickFiller(t *testing.T, e *testenv.Env, publicKeyHex string, next http.Handler) http.Handler {
	key, err := hex.DecodeString(publicKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	client := &interactions.Client{BaseURL: e.URL}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := interactions.VerifyRequest(ed25519.PublicKey(key), r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		i, err := interactions.Decode(body)
		if err != nil || i.Type != interactions.InteractionApplicationCommand || i.Data.Name != "quick" {
			next.ServeHTTP(w, r) // r.Body reads body again
			return
		}
		content := "filled at once"
		if err := client.Respond(r.Context(), i.ID, i.Token, interactions.Defer(false)); err != nil {
			t.Errorf("quick: defer: %v", err)
		} else if _, err := client.EditOriginal(r.Context(), i.ApplicationID, i.Token,
			interactions.EditData{Content: &content}); err != nil {
			t.Errorf("quick: fill: %v", err)
		}
		w.WriteHeader(http.StatusAccepted)
	})
}

// actAnswer is the act route's answer.
type actAnswer struct {
	Message *struct {
		ID         string          `json:"id"`
		Content    string          `json:"content"`
		Flags      int             `json:"flags"`
		Components json.RawMessage `json:"components"`
		Edited     *string         `json:"edited_timestamp"`
	} `json:"message"`
	Modal   json.RawMessage `json:"modal"`
	Choices []struct {
		Name string `json:"name"`
	} `json:"choices"`
	Interaction *struct {
		ID      string          `json:"id"`
		Type    int             `json:"type"`
		Outcome string          `json:"outcome"`
		Error   json.RawMessage `json:"error"`
	} `json:"interaction"`
}

func TestAct(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var app atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := app.Load()
		if h == nil {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	w := createWorld(t, e, fmt.Sprintf(actSpec, srv.URL))
	h := quickFiller(t, e, w.Apps["modbot"].PublicKey, interactions.Handler(w.Apps["modbot"].PublicKey,
		func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
			return actApp(t, e, i)
		}))
	app.Store(&h)
	path := "/admin/v1/worlds/act-tests/act"
	act := func(t *testing.T, body string, status int) actAnswer {
		t.Helper()
		res := e.Do("POST", path, e.AdminAuth(), body)
		if res.Status != status {
			t.Fatalf("act %s: %d %s", body, res.Status, res.Body)
		}
		var a actAnswer
		if status == 200 {
			res.JSON(t, &a)
		}
		return a
	}
	bob := w.Users["bob"].ID

	t.Run("the issue's example", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "run": "/ban user:@bob reason:\"spam\""}`, 200)
		if a.Message == nil || a.Message.Content != "banned <@"+bob+">: spam" || a.Interaction == nil ||
			a.Interaction.Outcome != "answered" || a.Interaction.Type != 2 || a.Interaction.ID == "" {
			t.Fatalf("answer: %+v", a)
		}
	})
	t.Run("an id where a handle goes, and a world named by id", func(t *testing.T) {
		res := e.Do("POST", "/admin/v1/worlds/"+w.ID+"/act", e.AdminAuth(),
			`{"as": "alice", "in": "club/general", "run": "/ban user:`+bob+`"}`)
		if res.Status != 200 || !strings.Contains(string(res.Body), "banned <@"+bob+">") {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
	t.Run("ephemeral", func(t *testing.T) {
		a := act(t, `{"as": "bob", "in": "general", "run": "/secret"}`, 200)
		if a.Message == nil || a.Message.Content != "psst" || a.Message.Flags&64 == 0 {
			t.Fatalf("answer: %+v", a.Message)
		}
	})
	t.Run("deferred then filled", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "run": "/slow"}`, 200)
		if a.Message == nil || a.Message.Content != "done at last" || a.Interaction.Outcome != "deferred-then-filled" {
			t.Fatalf("answer: %+v %+v", a.Message, a.Interaction)
		}
	})
	t.Run("deferred and filled before the answer was read", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "run": "/quick"}`, 200)
		if a.Message == nil || a.Message.Content != "filled at once" || a.Message.Flags&128 != 0 ||
			a.Interaction.Outcome != "deferred-then-filled" {
			t.Fatalf("answer: %+v %+v", a.Message, a.Interaction)
		}
	})
	t.Run("deferred and not filled", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "run": "/never", "wait": "0s"}`, 200)
		if a.Message == nil || a.Message.Flags&128 == 0 || a.Interaction.Outcome != "deferred-and-not-filled-within-wait" {
			t.Fatalf("answer: %+v %+v", a.Message, a.Interaction)
		}
	})
	t.Run("click by label edits the message", func(t *testing.T) {
		panel := act(t, `{"as": "alice", "in": "general", "run": "/panel"}`, 200)
		a := act(t, `{"as": "alice", "in": "general", "click": "Go"}`, 200)
		if a.Message == nil || a.Message.ID != panel.Message.ID || a.Message.Content != "clicked go" || a.Message.Edited == nil ||
			a.Interaction.Type != 3 {
			t.Fatalf("answer: %+v %+v", a.Message, a.Interaction)
		}
		a = act(t, `{"as": "alice", "in": "general", "click": "go", "message": "`+panel.Message.ID+`"}`, 200)
		if a.Message == nil || a.Message.ID != panel.Message.ID {
			t.Fatalf("by custom_id on a given message: %+v", a.Message)
		}
		a = act(t, `{"as": "alice", "in": "general", "click": "Later"}`, 200)
		if a.Message == nil || a.Message.ID != panel.Message.ID || a.Message.Content != "edited later" ||
			a.Interaction.Outcome != "deferred-then-filled" {
			t.Fatalf("a deferred update: %+v %+v", a.Message, a.Interaction)
		}
		a = act(t, `{"as": "bob", "in": "general", "click": "Ask"}`, 200)
		if !strings.Contains(string(a.Modal), `"feedback"`) {
			t.Fatalf("a modal from a button: %s", a.Modal)
		}
		a = act(t, `{"as": "bob", "in": "general", "submit": {"opinion": "fine"}}`, 200)
		if a.Message == nil || a.Message.Content != "thanks for: fine" {
			t.Fatalf("its submit: %+v", a.Message)
		}
		res := e.Do("POST", path, e.AdminAuth(), `{"as": "alice", "in": "general", "click": "Stop"}`)
		wantFormError(t, res, "click", "ACT_INVALID")
	})
	t.Run("modal then submit", func(t *testing.T) {
		a := act(t, `{"as": "bob", "in": "general", "run": "/form"}`, 200)
		if !strings.Contains(string(a.Modal), `"feedback"`) {
			t.Fatalf("modal: %s", a.Modal)
		}
		opener := a.Interaction.ID
		a = act(t, `{"as": "bob", "in": "general", "submit": {"opinion": "great"}}`, 200)
		if a.Message == nil || a.Message.Content != "thanks for: great" || a.Interaction.Type != 5 {
			t.Fatalf("answer: %+v %+v", a.Message, a.Interaction)
		}
		a = act(t, `{"as": "bob", "in": "general", "submit": {"opinion": "again"}, "modal": "`+opener+`"}`, 200)
		if a.Message == nil || a.Message.Content != "thanks for: again" {
			t.Fatalf("the modal named: %+v", a.Message)
		}
		res := e.Do("POST", path, e.AdminAuth(), `{"as": "bob", "in": "general", "submit": {"nope": "x"}}`)
		wantFormError(t, res, "submit.nope", "ACT_INVALID")
		res = e.Do("POST", path, e.AdminAuth(), `{"as": "alice", "in": "general", "submit": {}, "modal": "`+opener+`"}`)
		wantFormError(t, res, "data.id", "INTERACTION_MODAL_INVALID")
	})
	t.Run("autocomplete", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "autocomplete": "/pick fruit:man"}`, 200)
		if len(a.Choices) != 1 || a.Choices[0].Name != "mango" || a.Interaction.Type != 4 {
			t.Fatalf("answer: %+v", a)
		}
	})
	t.Run("user command", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "user_command": "Report", "target": "bob"}`, 200)
		if a.Message == nil || a.Message.Content != "reported <@"+bob+">" {
			t.Fatalf("answer: %+v", a.Message)
		}
	})
	t.Run("say", func(t *testing.T) {
		a := act(t, `{"as": "bob", "in": "general", "say": "hello"}`, 200)
		if a.Message == nil || a.Message.Content != "hello" || a.Interaction != nil {
			t.Fatalf("answer: %+v", a)
		}
	})
	t.Run("choose in a select by placeholder", func(t *testing.T) {
		menu := act(t, `{"as": "alice", "in": "general", "run": "/menu"}`, 200)
		a := act(t, `{"as": "alice", "in": "general", "choose": "A fruit", "values": ["pear", "apple"]}`, 200)
		if a.Message == nil || a.Message.ID != menu.Message.ID || a.Message.Content != "chose pear,apple" {
			t.Fatalf("answer: %+v", a.Message)
		}
		res := e.Do("POST", path, e.AdminAuth(), `{"as": "alice", "in": "general", "choose": "fruit", "values": ["plum"]}`)
		wantFormError(t, res, "data.values.0", "INTERACTION_COMPONENT_INVALID")
	})
	t.Run("message command on a message said", func(t *testing.T) {
		said := act(t, `{"as": "bob", "in": "general", "say": "quote me"}`, 200)
		a := act(t, `{"as": "alice", "in": "general", "message_command": "Quote", "target": "`+said.Message.ID+`"}`, 200)
		if a.Message == nil || a.Message.Content != "quoted "+said.Message.ID {
			t.Fatalf("answer: %+v", a.Message)
		}
	})
	t.Run("an answer the service refuses fails", func(t *testing.T) {
		a := act(t, `{"as": "alice", "in": "general", "run": "/broken"}`, 200)
		if a.Interaction == nil || a.Interaction.Outcome != "failed" || len(a.Interaction.Error) == 0 || a.Message != nil ||
			a.Interaction.ID == "" {
			t.Fatalf("answer: %+v; want a failure naming its interaction", a.Interaction)
		}
	})
	t.Run("refusals are the API's", func(t *testing.T) {
		res := e.Do("POST", path, e.AdminAuth(), `{"as": "alice", "in": "general", "run": "/nope"}`)
		wantError(t, res, 404, apiError(10063, "Unknown application command"))
		res = e.Do("POST", path, e.AdminAuth(), `{"as": "bob", "in": "general", "run": "/mute"}`)
		if res.Status != 403 || !strings.Contains(string(res.Body), `"code":50013`) {
			t.Fatalf("a command bob may not use: %d %s", res.Status, res.Body)
		}
		res = e.Do("POST", path, e.AdminAuth(), `{"as": "carol", "in": "general", "say": "hi"}`)
		wantFormError(t, res, "as", "ACT_UNKNOWN_HANDLE")
		res = e.Do("POST", path, e.AdminAuth(), `{"as": "alice", "in": "general", "say": "hi", "run": "/ban"}`)
		if res.Status != 400 {
			t.Fatalf("two actions: %d %s", res.Status, res.Body)
		}
		res = e.Do("POST", path, "Bot "+w.Apps["modbot"].BotToken, `{"as": "alice", "in": "general", "say": "hi"}`)
		if res.Status != 401 {
			t.Fatalf("without the admin token: %d %s", res.Status, res.Body)
		}
		res = e.Do("POST", "/admin/v1/worlds/nope/act", e.AdminAuth(), `{"as": "alice", "in": "general", "say": "hi"}`)
		if res.Status != 404 {
			t.Fatalf("unknown world: %d %s", res.Status, res.Body)
		}
	})
}

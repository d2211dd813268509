package api_test

// POST /admin/v1/worlds/{world}/act: a world's member runs commands,
// clicks, fills in modals and talks, and the answer is what they see.

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// actWorld is the example with more commands for modbot.
const actWorld = `{"name": "act-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"commands": [
   {"name": "ban", "description": "Ban someone", "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
     {"type": 3, "name": "reason", "description": "Why"}]},
   {"name": "ping", "description": "Pong, for you alone"},
   {"name": "slow", "description": "Thinks first"},
   {"name": "form", "description": "A form"},
   {"name": "pick", "description": "Pick", "options": [{"type": 3, "name": "fruit", "description": "Which", "autocomplete": true}]},
   {"name": "Wave", "type": 2}]}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

// modbot answers the way a moderation bot would.
func modbot(t *testing.T, e *testenv.Env, publicKey string) string {
	api := &interactions.Client{BaseURL: e.URL}
	srv := httptest.NewServer(interactions.Handler(publicKey, func(ctx context.Context, i *interactions.Interaction) (interactions.Response, error) {
		d := i.Data
		switch {
		case i.Type == interactions.InteractionType(3) && d.CustomID == "accept":
			return interactions.UpdateMessage("Accepted by " + i.InvokingUser().Username), nil
		case i.Type == interactions.InteractionType(5):
			v, _ := d.ModalValue("text")
			return interactions.Message("Thanks: " + v), nil
		case i.Type == interactions.InteractionType(4):
			f, _ := d.Focused()
			var typed string
			_ = json.Unmarshal(f.Value, &typed)
			return interactions.Autocomplete(interactions.Choice{Name: typed + "go", Value: typed + "go"}), nil
		}
		switch d.Name {
		case "ban":
			who, _ := d.Option("user")
			why, _ := d.Option("reason")
			var id, reason string
			_ = json.Unmarshal(who.Value, &id)
			_ = json.Unmarshal(why.Value, &reason)
			return interactions.Message("Banned <@"+id+">: "+reason,
				interactions.WithComponents(interactions.Row(interactions.Button("accept", "Accept", interactions.ButtonPrimary)))), nil
		case "ping":
			return interactions.Message("pong", interactions.Ephemeral()), nil
		case "slow":
			appID, token := i.ApplicationID, i.Token
			go func() {
				content := "done thinking"
				_, _ = api.EditOriginal(context.Background(), appID, token, interactions.EditData{Content: &content})
			}()
			return interactions.Defer(false), nil
		case "form":
			return interactions.Modal("feedback", "Feedback", interactions.TextInputRow("text", "Text", interactions.TextInputShort)), nil
		case "Wave":
			u, _ := d.TargetUser()
			return interactions.Message(i.InvokingUser().Username + " waves at " + u.Username), nil
		}
		return interactions.Message("?"), nil
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

type actAnswer struct {
	Interaction struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	} `json:"interaction"`
	Message struct {
		ID      string `json:"id"`
		Content string `json:"content"`
		Flags   int    `json:"flags"`
	} `json:"message"`
	Modal *struct {
		CustomID string `json:"custom_id"`
	} `json:"modal"`
	Choices []struct {
		Name string `json:"name"`
	} `json:"choices"`
}

func doAct(t *testing.T, e *testenv.Env, body string) (int, actAnswer, string) {
	t.Helper()
	r := e.Do("POST", "/admin/v1/worlds/act-tests/act", e.AdminAuth(), body)
	var a actAnswer
	if r.Status == 200 {
		r.JSON(t, &a)
	}
	return r.Status, a, string(r.Body)
}

func TestWorldAct(t *testing.T) {
	e := testenv.New(t)
	w := createWorld(t, e, actWorld)
	url := modbot(t, e, w.Apps["modbot"].PublicKey)
	if r := e.Do("PUT", "/admin/v1/applications/"+w.Apps["modbot"].ID+"/interactions-endpoint", e.AdminAuth(),
		map[string]any{"interactions_endpoint_url": url}); r.Status != 200 {
		t.Fatalf("endpoint: %d %s", r.Status, r.Body)
	}
	bob := w.Users["bob"].ID

	// The example users copy, as written.
	status, a, body := doAct(t, e, `{"as": "alice", "in": "general", "run": "/ban user:@bob reason:\"spam\""}`)
	if status != 200 || a.Message.Content != "Banned <@"+bob+">: spam" || a.Interaction.Outcome != "answered" {
		t.Fatalf("/ban: %d %s", status, body)
	}
	// Its button, by label: the message is edited.
	status, clicked, body := doAct(t, e, `{"as": "bob", "in": "general", "click": "Accept", "message": "`+a.Message.ID+`"}`)
	if status != 200 || clicked.Message.Content != "Accepted by bob" || clicked.Message.ID != a.Message.ID {
		t.Errorf("click: %d %s", status, body)
	}
	// An ephemeral reply.
	if status, a, body := doAct(t, e, `{"as": "bob", "in": "club/general", "run": "/ping"}`); status != 200 ||
		a.Message.Content != "pong" || a.Message.Flags&64 == 0 {
		t.Errorf("/ping: %d %s", status, body)
	}
	// A deferred answer, filled in within the wait.
	if status, a, body := doAct(t, e, `{"as": "alice", "in": "general", "run": "/slow", "wait": "20s"}`); status != 200 ||
		a.Message.Content != "done thinking" || a.Interaction.Outcome != "deferred_filled" {
		t.Errorf("/slow: %d %s", status, body)
	}
	// A modal opens; submitting it answers.
	status, opened, body := doAct(t, e, `{"as": "alice", "in": "general", "run": "/form"}`)
	if status != 200 || opened.Modal == nil || opened.Modal.CustomID != "feedback" || opened.Interaction.Outcome != "modal" {
		t.Fatalf("/form: %d %s", status, body)
	}
	if status, a, body := doAct(t, e, `{"as": "alice", "in": "general", "submit": {"text": "great"}, "interaction": "`+
		opened.Interaction.ID+`"}`); status != 200 || a.Message.Content != "Thanks: great" {
		t.Errorf("submit: %d %s", status, body)
	}
	// Autocomplete.
	if status, a, body := doAct(t, e, `{"as": "alice", "in": "general", "autocomplete": "/pick fruit:man"}`); status != 200 ||
		len(a.Choices) != 1 || a.Choices[0].Name != "mango" {
		t.Errorf("autocomplete: %d %s", status, body)
	}
	// A user command on a member.
	if status, a, body := doAct(t, e, `{"as": "alice", "in": "general", "user_command": "Wave", "target": "bob"}`); status != 200 ||
		a.Message.Content != "alice waves at bob" {
		t.Errorf("Wave: %d %s", status, body)
	}
	// A plain message.
	if status, a, body := doAct(t, e, `{"as": "bob", "in": "general", "say": "hello"}`); status != 200 || a.Message.Content != "hello" {
		t.Errorf("say: %d %s", status, body)
	}
	// What the API refuses the member comes back as it is: an unknown
	// option, an unknown handle.
	if status, _, body := doAct(t, e, `{"as": "alice", "in": "general", "run": "/ban user:@bob color:red"}`); status != 400 {
		t.Errorf("unknown option: %d %s", status, body)
	}
	if status, _, body := doAct(t, e, `{"as": "carol", "in": "general", "say": "hi"}`); status != 400 ||
		!strings.Contains(body, "UNKNOWN_HANDLE") {
		t.Errorf("unknown user: %d %s", status, body)
	}
	if status, _, body := doAct(t, e, `{"as": "alice", "in": "general"}`); status != 400 || !strings.Contains(body, "BASE_TYPE_REQUIRED") {
		t.Errorf("no action: %d %s", status, body)
	}
}

package drive

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// World is the bot's guild (e's first app's, where its bot is): #general
// and alice, a member with a client token who invokes the bot's
// commands.
type World struct {
	E       *testenv.Env
	App     string
	Guild   string
	Channel string // #general
	Alice   string // alice's user id
	Client  string // alice's client token (sent bare, as a chat client does)
}

// NewWorld sets up e's first guild with #general and alice.
func NewWorld(t testing.TB, e *testenv.Env) *World {
	t.Helper()
	w := &World{E: e, App: e.App.ApplicationID, Guild: e.App.GuildID}
	w.Channel = w.AdminID(t, "POST", "/guilds/"+w.Guild+"/channels", map[string]any{"name": "general", "type": 0})
	w.Alice, w.Client = w.Member(t, w.Guild, "alice")
	return w
}

// Member creates a user named name, makes them a member of guild and
// returns their id and a client token.
func (w *World) Member(t testing.TB, guild, name string) (id, client string) {
	t.Helper()
	id = w.AdminID(t, "POST", "/users", map[string]any{"username": name})
	w.Admin(t, "PUT", "/guilds/"+guild+"/members/"+id, map[string]any{"roles": []string{}}, -1, nil)
	var tok struct {
		Token string `json:"token"`
	}
	w.Admin(t, "POST", "/users/"+id+"/tokens", map[string]any{"type": "client"}, http.StatusCreated, &tok)
	return id, tok.Token
}

// Admin sends an admin API request and decodes the answer into v (unless
// nil), failing unless the status is want (any 2xx when want is -1).
func (w *World) Admin(t testing.TB, method, path string, body any, want int, v any) {
	t.Helper()
	r := w.E.Do(method, "/admin/v1"+path, w.E.AdminAuth(), body)
	if (want < 0 && r.Status/100 != 2) || (want >= 0 && r.Status != want) {
		t.Fatalf("admin %s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	if v != nil {
		r.JSON(t, v)
	}
}

// AdminID sends an admin API request that must answer 201 and returns
// the id it created.
func (w *World) AdminID(t testing.TB, method, path string, body any) string {
	t.Helper()
	var m struct {
		ID string `json:"id"`
	}
	w.Admin(t, method, path, body, http.StatusCreated, &m)
	if m.ID == "" {
		t.Fatalf("%s %s: no id", method, path)
	}
	return m.ID
}

// SetEndpoint saves url as the app's interactions endpoint, as a
// developer does in the portal: slashd checks it answers a signed PING
// and refuses a bad signature first.
func (w *World) SetEndpoint(t testing.TB, url string) {
	t.Helper()
	w.Admin(t, "PUT", "/applications/"+w.App+"/interactions-endpoint", map[string]any{"interactions_endpoint_url": url}, http.StatusOK, nil)
}

// Command is an application command as the API lists it.
type Command struct {
	ID      string          `json:"id"`
	GuildID string          `json:"guild_id"`
	Name    string          `json:"name"`
	Type    int             `json:"type"`
	Version string          `json:"version"`
	Options json.RawMessage `json:"options"`
}

// Commands lists the app's commands in guild (global ones when guild is
// ""), as the bot's own token reads them.
func (w *World) Commands(t testing.TB, guild string) map[string]Command {
	t.Helper()
	path := "/api/v10/applications/" + w.App + "/commands"
	if guild != "" {
		path = "/api/v10/applications/" + w.App + "/guilds/" + guild + "/commands"
	}
	r := w.E.Do("GET", path, w.E.Bot(), nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var list []Command
	r.JSON(t, &list)
	out := map[string]Command{}
	for _, c := range list {
		out[c.Name] = c
	}
	return out
}

// Message is a message as slashd returns it.
type Message struct {
	ID          string `json:"id"`
	ChannelID   string `json:"channel_id"`
	Content     string `json:"content"`
	Flags       int    `json:"flags"`
	Attachments []struct {
		Filename string `json:"filename"`
		Size     int    `json:"size"`
		URL      string `json:"url"`
	} `json:"attachments"`
	Components []struct {
		Type       int `json:"type"`
		Components []struct {
			Type     int    `json:"type"`
			CustomID string `json:"custom_id"`
			Label    string `json:"label"`
		} `json:"components"`
	} `json:"components"`
	Author struct {
		ID string `json:"id"`
	} `json:"author"`
}

// Answer is what an invocation returns: the interaction and the app's
// answer.
type Answer struct {
	Interaction struct {
		ID                string `json:"id"`
		Type              int    `json:"type"`
		ResponseMessageID string `json:"response_message_id"`
	} `json:"interaction"`
	Resource struct {
		Type    int      `json:"type"`
		Message *Message `json:"message"`
	} `json:"resource"`
}

// Invoke sends an interaction (body: its type, data, …; the app, guild
// and #general are filled in when missing) as the user of client and
// returns the HTTP response; the invocation returns once the app has
// answered.
func (w *World) Invoke(t testing.TB, client string, body map[string]any) testenv.Response {
	t.Helper()
	for k, v := range map[string]any{"application_id": w.App, "guild_id": w.Guild, "channel_id": w.Channel} {
		if _, ok := body[k]; !ok {
			body[k] = v
		}
	}
	return w.E.Do("POST", "/api/v10/interactions", client, body)
}

// Run invokes the chat command cmd as alice with options (nil: none) and
// returns the app's answer, which must come (200).
func (w *World) Run(t testing.TB, cmd Command, options any) Answer {
	t.Helper()
	if cmd.ID == "" {
		t.Fatal("no such command registered")
	}
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": 1, "version": cmd.Version}
	if options != nil {
		data["options"] = options
	}
	r := w.Invoke(t, w.Client, map[string]any{"type": 2, "data": data})
	if r.Status != http.StatusOK {
		t.Fatalf("invoke /%s: %d %s", cmd.Name, r.Status, r.Body)
	}
	var a Answer
	r.JSON(t, &a)
	return a
}

// Click clicks the button customID on message msg as the user of client
// and returns the HTTP response.
func (w *World) Click(t testing.TB, client string, msg Message, customID string) testenv.Response {
	t.Helper()
	return w.Invoke(t, client, map[string]any{"type": 3, "channel_id": msg.ChannelID, "message_id": msg.ID,
		"data": map[string]any{"component_type": 2, "custom_id": customID}})
}

// Messages lists #general as alice sees it, newest first.
func (w *World) Messages(t testing.TB) []Message {
	t.Helper()
	r := w.E.Do("GET", "/api/v10/channels/"+w.Channel+"/messages", w.Client, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list messages: %d %s", r.Status, r.Body)
	}
	var msgs []Message
	r.JSON(t, &msgs)
	return msgs
}

// Seen returns message id as alice sees it in #general, or nil.
func (w *World) Seen(t testing.TB, id string) *Message {
	t.Helper()
	for _, m := range w.Messages(t) {
		if m.ID == id {
			return &m
		}
	}
	return nil
}

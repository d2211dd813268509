package browsertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/webhook"
)

// pickerApp is the demo app's endpoint for TestChatPickers: it checks
// each delivery's signature and answers with what it received, read
// from data.resolved: /whois names its user option and its attachment,
// /panel posts a user select and a channel select, and a choice in
// either names what the values resolved to.
func (w *world) startPickerApp(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !webhook.Verify(w.creds.PublicKey, r.Header.Get(webhook.HeaderSignature), r.Header.Get(webhook.HeaderTimestamp), body) {
			http.Error(rw, "bad signature", http.StatusUnauthorized)
			return
		}
		var in struct {
			Type int
			Data struct {
				Name     string
				CustomID string `json:"custom_id"`
				Values   []string
				// a modal submission's labels
				Components []struct {
					Component struct {
						CustomID string `json:"custom_id"`
						Value    string
						Values   []string
					}
				}
				Options []struct {
					Name  string
					Value any
				}
				Resolved struct {
					Users       map[string]struct{ Username string }
					Channels    map[string]struct{ Name string }
					Attachments map[string]struct {
						Filename string
						Size     int
					}
				}
			}
		}
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		res := in.Data.Resolved
		var answer any
		switch {
		case in.Type == 1:
			answer = map[string]any{"type": 1}
		case in.Type == 2 && in.Data.Name == "panel":
			answer = map[string]any{"type": 4, "data": map[string]any{"content": "Pick someone and somewhere",
				"components": []any{
					map[string]any{"type": 1, "components": []any{map[string]any{"type": 5, "custom_id": "who", "placeholder": "One or two members", "max_values": 2}}},
					map[string]any{"type": 1, "components": []any{map[string]any{"type": 8, "custom_id": "where",
						"placeholder": "A text channel", "channel_types": []int{0}}}},
				}}}
		case in.Type == 2 && in.Data.Name == "assign":
			answer = map[string]any{"type": 9, "data": map[string]any{"custom_id": "assign", "title": "Assign a task",
				"components": []any{
					map[string]any{"type": 18, "label": "Who does it", "component": map[string]any{"type": 5, "custom_id": "who"}},
					map[string]any{"type": 18, "label": "The task", "component": map[string]any{"type": 4, "custom_id": "task", "style": 1}},
				}}}
		case in.Type == 5:
			var who, task string
			for _, c := range in.Data.Components {
				switch c.Component.CustomID {
				case "who":
					for _, v := range c.Component.Values {
						who = res.Users[v].Username
					}
				case "task":
					task = c.Component.Value
				}
			}
			answer = map[string]any{"type": 4, "data": map[string]any{"content": "Assigned to " + who + ": " + task}}
		case in.Type == 2:
			var said []string
			for _, o := range in.Data.Options {
				id := fmt.Sprint(o.Value)
				switch o.Name {
				case "who":
					said = append(said, "user: "+res.Users[id].Username)
				case "file":
					a := res.Attachments[id]
					said = append(said, fmt.Sprintf("file: %s (%d bytes)", a.Filename, a.Size))
				}
			}
			answer = map[string]any{"type": 4, "data": map[string]any{"content": strings.Join(said, "; ")}}
		case in.Type == 3:
			var names []string
			for _, v := range in.Data.Values {
				if u, ok := res.Users[v]; ok {
					names = append(names, "user "+u.Username)
				} else if c, ok := res.Channels[v]; ok {
					names = append(names, "channel #"+c.Name)
				}
			}
			sort.Strings(names)
			answer = map[string]any{"type": 4, "data": map[string]any{"content": "Selected " + strings.Join(names, ", ")}}
		default:
			http.Error(rw, "unexpected", http.StatusBadRequest)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(answer)
	}))
	t.Cleanup(srv.Close)
	w.admin(t, "PUT", "/applications/"+w.creds.ApplicationID+"/interactions-endpoint",
		map[string]any{"interactions_endpoint_url": srv.URL}, nil)
	w.call(t, "PUT", "/api/v10/applications/"+w.creds.ApplicationID+"/guilds/"+w.creds.GuildID+"/commands",
		"Bot "+w.creds.BotToken, []any{
			map[string]any{"name": "whois", "description": "Who is it", "options": []any{
				map[string]any{"type": 6, "name": "who", "description": "A member", "required": true},
				map[string]any{"type": 11, "name": "file", "description": "A file"}}},
			map[string]any{"name": "panel", "description": "Select menus"},
			map[string]any{"name": "assign", "description": "A modal with a user select"},
		}, nil)
}

// TestChatPickers: a user option picked from the guild's members and
// an attachment option's file reach the app resolved; a user select
// (type 5) and a channel select (type 8, channel_types) of its message
// list the guild's members and text channels, and a choice reaches the
// app resolved; so does a user select in a modal.
func TestChatPickers(t *testing.T) {
	w := newWorld(t)
	w.startPickerApp(t)
	bob := w.addMember(t, "bob")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	waitText(t, ctx, "#chat-channel", "#general")
	choose(t, ctx, "chat-user", bob)
	waitJS(t, ctx, "the live stream", `document.getElementById("chat-live").dataset.state === "open"`)

	// /whois: the user picker lists the members; the file goes along.
	typeInto(t, ctx, "composer-input", "/whois")
	click(t, ctx, `#picker button[data-name="whois"]`)
	waitText(t, ctx, "#opt-who", "bob")
	waitText(t, ctx, "#opt-who", "demo owner")
	choose(t, ctx, "opt-who", bob)
	run(t, ctx, "pick the file", chromedp.SetUploadFiles(chromedp.ID("opt-file"), []string{file}))
	shot(t, ctx, "12-option-pickers")
	click(t, ctx, "#send")
	waitText(t, ctx, "#messages", "user: bob; file: notes.txt (12 bytes)")

	// /panel: the selects, with the guild's choices.
	typeInto(t, ctx, "composer-input", "/panel")
	click(t, ctx, `#picker button[data-name="panel"]`)
	waitText(t, ctx, "#messages", "Pick someone and somewhere")
	waitText(t, ctx, `#messages select[data-custom-id="who"]`, "bob")
	waitText(t, ctx, `#messages select[data-custom-id="where"]`, "#general")
	shot(t, ctx, "13-select-menus")
	// The user select takes up to two: bob and the owner, then "Send".
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const s = document.querySelector('#messages select[data-custom-id="who"]');
		for (const o of s.options) o.selected = o.value === `+jsString(bob)+` || o.value === `+jsString(w.creds.OwnerUserID)+`;
		return true; })()`)); err != nil {
		t.Fatalf("select two members: %v", err)
	}
	click(t, ctx, `#messages button[data-send="who"]`)
	waitText(t, ctx, "#messages", "Selected user bob, user owner")
	chooseIn(t, ctx, `#messages select[data-custom-id="where"]`, w.creds.ChannelID)
	waitText(t, ctx, "#messages", "Selected channel #general")

	// /assign: a modal with a user select in a label.
	typeInto(t, ctx, "composer-input", "/assign")
	click(t, ctx, `#picker button[data-name="assign"]`)
	run(t, ctx, "the modal", chromedp.WaitVisible(chromedp.ID("modal")))
	waitText(t, ctx, "#modal-who", "bob")
	choose(t, ctx, "modal-who", bob)
	typeInto(t, ctx, "modal-task", "water the plants")
	shot(t, ctx, "13b-modal-select")
	click(t, ctx, "#modal-submit")
	waitText(t, ctx, "#messages", "Assigned to bob: water the plants")
}

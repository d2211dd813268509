package discordjs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

// A discord.js bot that writes its components by hand gets slashd's
// refusal of an invalid one as the real service's would reach it: a
// DiscordAPIError[50035] whose message names the field, before anything
// is stored (issue 26: "A button with neither custom_id nor url is stored
// and shown"). The same message with its custom_id is sent.
func TestDiscordJSComponentRefused(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDJSWorld(t, e)
	bot := startDiscordJS(t, e)
	bot.Wait(t, "ready", nil, nil)

	type sent struct {
		ID       string `json:"id"`
		APIError *struct {
			Name    string `json:"name"`
			Code    int    `json:"code"`
			Status  int    `json:"status"`
			Message string `json:"message"`
		} `json:"apiError"`
	}
	button := map[string]any{"type": 2, "style": 1, "label": "Go"}
	row := func(b map[string]any) []any { return []any{map[string]any{"type": 1, "components": []any{b}}} }

	var got sent
	bot.Do(t, "sendComponents", map[string]any{"channelId": w.channel, "components": row(button)}, &got)
	if got.APIError == nil || got.APIError.Code != 50035 || got.APIError.Status != 400 ||
		got.APIError.Name != "DiscordAPIError[50035]" ||
		!strings.Contains(got.APIError.Message, "components[0].components[0].custom_id[BUTTON_COMPONENT_CUSTOM_ID_REQUIRED]: A custom id is required") {
		t.Fatalf("an invalid button: %+v %+v", got, got.APIError)
	}

	button["custom_id"] = "go"
	got = sent{}
	bot.Do(t, "sendComponents", map[string]any{"channelId": w.channel, "components": row(button)}, &got)
	if got.APIError != nil || got.ID == "" {
		t.Fatalf("a valid button: %+v %+v", got, got.APIError)
	}
	// One request each, not retried: a 400 is final.
	var statuses []int
	for _, r := range bot.rest(t) {
		if r.Method == "POST" && r.Path == "/channels/"+w.channel+"/messages" {
			statuses = append(statuses, r.Status)
		}
	}
	if !slices.Equal(statuses, []int{400, 200}) {
		t.Fatalf("POST /channels/%s/messages: %v", w.channel, statuses)
	}
}

// A discord.js bot's interaction.reply() with an invalid component (the
// guide's buttons, both given the custom id 'yes': commands/buttons/
// vote.js) is refused as the real service refuses it: discord.js rejects
// the reply with DiscordAPIError[50035] naming the field, the guide's
// error handler (bot.js) answers the member instead, and the refused
// message is nowhere.
func TestDiscordJSReplyRefused(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newDJSWorld(t, e)
	var deployed struct {
		Commands []djsCommand `json:"commands"`
	}
	runDJS(t, e, djsDeploy, "global").Wait(t, "deployed", nil, &deployed)
	bot := startDiscordJS(t, e)
	bot.Wait(t, "ready", nil, nil)

	msg := w.run(t, 2, byName(deployed.Commands)["vote"], nil).message(t)
	if msg.Content != "There was an error while executing this command!" || msg.Flags&64 == 0 {
		t.Errorf("the member got %+v, want the guide's ephemeral error answer", msg)
	}
	errs := bot.TakeErrors()
	if len(errs) != 1 {
		t.Fatalf("discord.js reported %d errors, want the refused reply only: %q", len(errs), errs)
	}
	var reported struct {
		Where string `json:"where"`
		Error struct {
			Name    string `json:"name"`
			Message string `json:"message"`
			Code    int    `json:"code"`
			Status  int    `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(errs[0]), &reported); err != nil {
		t.Fatal(err)
	}
	if reported.Where != "executing vote" || reported.Error.Name != "DiscordAPIError[50035]" ||
		reported.Error.Code != 50035 || reported.Error.Status != 400 ||
		!strings.Contains(reported.Error.Message,
			"components[0].components[1].custom_id[COMPONENT_CUSTOM_ID_DUPLICATED]: Component custom id cannot be duplicated") {
		t.Errorf("interaction.reply() rejected with %+v", reported)
	}
	for _, m := range w.messages(t, w.client) {
		if m.Content == "Do you agree?" {
			t.Errorf("the refused reply was stored: %+v", m)
		}
	}
}

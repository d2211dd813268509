package browsertest

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// fill opens the folded form id, fills its fields (input or select
// ids) and submits it.
func fill(t *testing.T, ctx context.Context, id string, values map[string]string) {
	t.Helper()
	click(t, ctx, `details:has(#`+id+`) > summary`)
	for field, v := range values {
		fid := id + "-" + field
		isSelect, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById(`+jsString(fid)+`).tagName === "SELECT"`))
		if err != nil {
			t.Fatalf("field %s: %v", fid, err)
		}
		if isSelect {
			choose(t, ctx, fid, v)
		} else {
			typeInto(t, ctx, fid, v)
		}
	}
	click(t, ctx, "#"+id+"-submit")
}

// TestAuthoring: the world browser's forms write through the admin API
// and the real permissions endpoint: a user, a DM, a channel, a member,
// a command permission (as the guild's owner) and the interactions
// endpoint (verified by slashd against examples/bot).
func TestAuthoring(t *testing.T) {
	w := newWorld(t)
	cmds := w.registerBotCommands(t)
	botURL := w.runBot(t)
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")

	// The endpoint, then a command permission.
	fill(t, ctx, "app-endpoint", map[string]string{"url": botURL})
	waitText(t, ctx, "#world-pane", "verified")
	click(t, ctx, `#world-side button[data-id="new"]`)
	fill(t, ctx, "new-user", map[string]string{"username": "carol"})
	waitText(t, ctx, "#world-pane", "Mint a client token") // carol's pane
	var users []struct{ ID, Username string }
	w.admin(t, "GET", "/users", nil, &users)
	carol := ""
	for _, u := range users {
		if u.Username == "carol" {
			carol = u.ID
		}
	}
	if carol == "" {
		t.Fatalf("no carol among %v", users)
	}
	fill(t, ctx, "user-dm", map[string]string{"recipient": w.creds.OwnerUserID})
	waitJS(t, ctx, "carol's DM", `(() => { const p = document.getElementById("world-pane");
		const s = p ? p.innerText.toLowerCase() : "";
		return s.includes("mint a client token") && s.includes("dms and group dms") && !s.includes("no dm yet"); })()`)
	var dms []struct{ ID string }
	w.admin(t, "GET", "/users/"+carol+"/channels", nil, &dms)
	if len(dms) != 1 {
		t.Fatalf("carol's DMs: %v", dms)
	}

	click(t, ctx, `#world-side button[data-id="`+w.creds.GuildID+`"]`)
	fill(t, ctx, "guild-channel", map[string]string{"name": "lounge"})
	waitText(t, ctx, "#guild-channels", "#lounge")
	fill(t, ctx, "guild-member", map[string]string{"user": carol})
	waitText(t, ctx, "#guild-members", "carol")
	shot(t, ctx, "12-authoring-guild")

	click(t, ctx, `#world-side button[data-id="`+w.creds.ApplicationID+`"]`)
	fill(t, ctx, "app-perms", map[string]string{"command": w.creds.GuildID + "/" + cmds["ping"], "target": "2:" + carol,
		"permission": "deny"})
	waitText(t, ctx, ".guild-commands", "user carol: deny")
	shot(t, ctx, "13-authoring-app")

	// What the app sees through the API.
	var perms struct {
		Permissions []struct {
			ID         string
			Type       int
			Permission bool
		}
	}
	w.call(t, "GET", "/api/v10/applications/"+w.creds.ApplicationID+"/guilds/"+w.creds.GuildID+"/commands/"+cmds["ping"]+"/permissions",
		"Bot "+w.creds.BotToken, nil, &perms)
	if len(perms.Permissions) != 1 || perms.Permissions[0].ID != carol || perms.Permissions[0].Type != 2 || perms.Permissions[0].Permission {
		t.Fatalf("permissions after the form: %+v", perms)
	}
	var app struct {
		InteractionsEndpointURL string `json:"interactions_endpoint_url"`
	}
	w.admin(t, "GET", "/applications/"+w.creds.ApplicationID, nil, &app)
	if app.InteractionsEndpointURL != botURL {
		t.Fatalf("endpoint %q, want %q", app.InteractionsEndpointURL, botURL)
	}
}

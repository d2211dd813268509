package testenv

import (
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

// WorldObjects are one test world's objects of a fixed shape, made
// through the admin API and the public API (so that the isolation tests
// act only through the real interfaces): an app with its bot, its
// owner's Bearer token and its guild (the bot installed there); a person
// with a client token, a member of the guild; a text channel with a
// message the bot posted (with a button, custom_id "go"); a DM between the person and the bot; a global
// and a guild command of the app (with an optional user option "who"). Every id is a snowflake string.
type WorldObjects struct {
	World snowflake.ID // 0: no world

	AppID, BotToken, PublicKey            string
	OwnerID, OwnerBearer                  string
	GuildID, ChannelID, MessageID         string
	UserID, ClientToken                   string
	DMID                                  string
	GlobalCommandID, GlobalCommandVersion string
	GuildCommandID, GuildCommandVersion   string
}

// Bot is the app's bot Authorization; Client the person's; Bearer the
// app owner's.
func (w WorldObjects) Bot() string    { return "Bot " + w.BotToken }
func (w WorldObjects) Client() string { return w.ClientToken }
func (w WorldObjects) Bearer() string { return "Bearer " + w.OwnerBearer }

// NewWorldObjects makes WorldObjects in world (0: no world), each of its
// objects created with "world_id" where the admin API takes one; label
// names them.
func (e *Env) NewWorldObjects(t testing.TB, world snowflake.ID, label string) WorldObjects {
	t.Helper()
	w := WorldObjects{World: world}
	withWorld := func(body map[string]any) map[string]any {
		if world != 0 {
			body["world_id"] = world.String()
		}
		return body
	}
	step := func(method, path, auth string, body any, status int, out any) {
		t.Helper()
		r := e.DoAs(t, method, path, auth, body)
		if r.Status != status {
			t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, status)
		}
		if out != nil {
			r.JSON(t, out)
		}
	}
	var app struct {
		ApplicationID    string `json:"application_id"`
		BotToken         string `json:"bot_token"`
		GuildID          string `json:"guild_id"`
		OwnerUserID      string `json:"owner_user_id"`
		OwnerBearerToken string `json:"owner_bearer_token"`
		PublicKey        string `json:"public_key"`
	}
	admin := e.AdminAuth()
	step("POST", "/admin/v1/applications", admin, withWorld(map[string]any{"name": label + " app"}), 201, &app)
	w.AppID, w.BotToken, w.GuildID, w.OwnerID, w.OwnerBearer =
		app.ApplicationID, app.BotToken, app.GuildID, app.OwnerUserID, app.OwnerBearerToken
	w.PublicKey = app.PublicKey

	var obj struct {
		ID      string `json:"id"`
		Token   string `json:"token"`
		Version string `json:"version"`
	}
	step("POST", "/admin/v1/users", admin, withWorld(map[string]any{"username": label + "-user"}), 201, &obj)
	w.UserID = obj.ID
	step("POST", "/admin/v1/users/"+w.UserID+"/tokens", admin, map[string]any{"type": "client"}, 201, &obj)
	w.ClientToken = obj.Token
	step("PUT", "/admin/v1/guilds/"+w.GuildID+"/members/"+w.UserID, admin, nil, 201, nil)
	step("POST", "/admin/v1/guilds/"+w.GuildID+"/channels", admin, map[string]any{"name": "general", "type": 0}, 201, &obj)
	w.ChannelID = obj.ID
	step("POST", "/admin/v1/users/"+w.UserID+"/channels", admin, map[string]any{"recipient_id": w.AppID}, 201, &obj)
	w.DMID = obj.ID

	api := "/api/v10"
	step("POST", api+"/channels/"+w.ChannelID+"/messages", w.Bot(), map[string]any{"content": "hello from " + label,
		"components": []map[string]any{{"type": 1, "components": []map[string]any{
			{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}}}}}, 200, &obj)
	w.MessageID = obj.ID
	step("POST", api+"/applications/"+w.AppID+"/commands", w.Bot(),
		map[string]any{"name": "ping", "description": "Ping"}, 201, &obj)
	w.GlobalCommandID, w.GlobalCommandVersion = obj.ID, obj.Version
	step("POST", api+"/applications/"+w.AppID+"/guilds/"+w.GuildID+"/commands", w.Bot(),
		map[string]any{"name": "local", "description": "Local", "options": []map[string]any{
			{"type": 6, "name": "who", "description": "Who"}}}, 201, &obj)
	w.GuildCommandID, w.GuildCommandVersion = obj.ID, obj.Version
	return w
}

// NewTestWorld makes an empty test world named name (POST
// /admin/v1/worlds) and returns its id, for objects to join with
// world_id.
func (e *Env) NewTestWorld(t testing.TB, name string) snowflake.ID {
	t.Helper()
	r := e.DoAs(t, "POST", "/admin/v1/worlds", e.AdminAuth(), map[string]any{"name": name})
	if r.Status != 201 {
		t.Fatalf("POST /admin/v1/worlds %q: %d %s", name, r.Status, r.Body)
	}
	var w struct {
		ID snowflake.ID `json:"id"`
	}
	r.JSON(t, &w)
	return w.ID
}

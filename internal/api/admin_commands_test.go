package api_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// TestAdminAppCommands: GET /admin/v1/applications/{id}/commands lists an
// app's global commands, or with guild_id its commands there with that
// guild's permission overwrites, as the API lists them.
func TestAdminAppCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	app, guild := w.app, w.guild
	global := create(t, e, "/api/v10/applications/"+app+"/commands", e.Bot(), jsonObj{"name": "hello", "description": "Hi"})
	cmd := w.command(jsonObj{"name": "local", "description": "Here"})
	mustDo(t, e, "PUT", "/api/v10/applications/"+app+"/guilds/"+guild+"/commands/"+str(cmd, "id")+"/permissions", w.editor(w.owner),
		jsonObj{"permissions": []jsonObj{{"id": w.member, "type": 2, "permission": false}}}, 200)

	type listing struct {
		Commands []struct {
			ID, Name, Version string
			GuildID           string `json:"guild_id"`
		}
		Permissions []struct {
			ID          string
			Permissions []struct {
				ID         string
				Type       int
				Permission bool
			}
		}
	}
	var got listing
	adminDo(t, e, "GET", "/applications/"+app+"/commands", nil, 200).JSON(t, &got)
	if len(got.Commands) != 1 || got.Commands[0].ID != str(global, "id") || got.Commands[0].Version != str(global, "version") ||
		got.Permissions == nil || len(got.Permissions) != 0 {
		t.Fatalf("global: %+v", got)
	}
	got = listing{}
	adminDo(t, e, "GET", "/applications/"+app+"/commands?guild_id="+guild, nil, 200).JSON(t, &got)
	if len(got.Commands) != 1 || got.Commands[0].ID != str(cmd, "id") || got.Commands[0].GuildID != guild ||
		len(got.Permissions) != 1 || got.Permissions[0].ID != str(cmd, "id") ||
		len(got.Permissions[0].Permissions) != 1 || got.Permissions[0].Permissions[0].ID != w.member {
		t.Fatalf("guild: %+v", got)
	}

	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/applications/" + unknownID + "/commands", 404, apiError(10002, "Unknown Application")},
		{"/applications/" + app + "/commands?guild_id=" + unknownID, 404, apiError(10004, "Unknown Guild")},
	} {
		r := adminDo(t, e, "GET", tc.path, nil, tc.status)
		wantJSON(t, r.Body, tc.body)
	}
	adminDo(t, e, "GET", "/applications/"+app+"/commands?guild_id=x", nil, 400)
	if r := e.Do("GET", "/admin/v1/applications/"+app+"/commands", e.Bot(), nil); r.Status != 401 {
		t.Fatalf("with a bot token: %d", r.Status)
	}
}

// TestOnDelivery: the delivery hook sees each delivered interaction with
// its payload as delivered, route and answer.
func TestOnDelivery(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var mu sync.Mutex
	var seen []api.Delivery
	e.API.OnDelivery(func(d api.Delivery) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, d)
	})
	w := newInvokeWorld(t, e)
	cmd := w.command(jsonObj{"name": "ping", "description": "Ping"})
	r := w.invoke(w.invocation(2, cmd))
	wantStatus(t, r, 200)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("deliveries: %d", len(seen))
	}
	d := seen[0]
	var payload struct {
		Data struct{ Name string }
	}
	if err := json.Unmarshal(d.Payload, &payload); err != nil || payload.Data.Name != "ping" {
		t.Fatalf("payload %s: %v", d.Payload, err)
	}
	if d.Type != 2 || d.Route != "endpoint" || d.Status != 200 || d.Outcome != "answered" || d.ApplicationID.String() != e.App.ApplicationID ||
		d.UserID.String() != w.member || d.Endpoint == "" {
		t.Fatalf("delivery %+v", d)
	}
	wantJSON(t, d.Answer, string(r.Body))
}

package api_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

// An entry point command is visible to users only when the app has
// Activities enabled (spec §2.3): the picker hides it otherwise.
func TestCommandPickerShowsEntryPointsOnlyForActivities(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, c := range []struct {
		name     string
		embedded bool
		want     bool
	}{{"plain app", false, false}, {"app with an Activity", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			app := e.NewApp(bootstrap.AppOptions{Name: "games", Embedded: c.embedded})
			if !c.embedded { // an embedded app gets its Launch command by itself
				r := e.Do("POST", "/api/v10/applications/"+app.ApplicationID+"/commands", "Bot "+app.BotToken,
					`{"type":4,"name":"Launch","description":"Launch"}`)
				if r.Status != 201 {
					t.Fatalf("create entry point: %d %s", r.Status, r.Body)
				}
			}
			var launch []struct{ ID string }
			e.Do("GET", "/api/v10/applications/"+app.ApplicationID+"/commands", "Bot "+app.BotToken, nil).JSON(t, &launch)
			if len(launch) != 1 {
				t.Fatalf("global commands: %v", launch)
			}
			ch := e.Do("POST", "/admin/v1/guilds/"+app.GuildID+"/channels", e.AdminAuth(), `{"name":"general"}`)
			tok := e.Do("POST", "/admin/v1/users/"+app.OwnerUserID+"/tokens", e.AdminAuth(), `{"type":"client"}`)
			if ch.Status != 201 || tok.Status != 201 {
				t.Fatalf("world: channel %d %s, token %d %s", ch.Status, ch.Body, tok.Status, tok.Body)
			}
			var channel struct{ ID string }
			var token struct{ Token string }
			ch.JSON(t, &channel)
			tok.JSON(t, &token)
			r := e.Do("GET", "/api/v10/channels/"+channel.ID+"/application-command-index", token.Token, nil)
			if r.Status != 200 {
				t.Fatalf("index: %d %s", r.Status, r.Body)
			}
			var index struct {
				Commands []struct{ Type int } `json:"application_commands"`
			}
			if err := json.Unmarshal(r.Body, &index); err != nil {
				t.Fatal(err)
			}
			got := false
			for _, cmd := range index.Commands {
				got = got || cmd.Type == 4
			}
			if got != c.want {
				t.Fatalf("entry point shown: %v, want %v (%s)", got, c.want, r.Body)
			}
			// The explainer agrees with the picker.
			var why struct {
				Allowed bool
				Rule    string
			}
			e.Do("GET", "/admin/v1/guilds/"+app.GuildID+"/commands/"+launch[0].ID+"/access?user_id="+app.OwnerUserID+
				"&channel_id="+channel.ID, e.AdminAuth(), nil).JSON(t, &why)
			if why.Allowed != c.want || (!c.want && why.Rule != "entry_point_without_activity") {
				t.Fatalf("explainer: %+v, want allowed=%v", why, c.want)
			}
		})
	}
}

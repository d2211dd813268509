package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// principal kinds of the isolation table.
const (
	asBot    = "bot"
	asClient = "client"
	asBearer = "bearer"
)

func authOf(w testenv.WorldObjects, kind string) string {
	switch kind {
	case asBot:
		return w.Bot()
	case asClient:
		return w.Client()
	}
	return w.Bearer()
}

// isolationRoute is one request that names ids: build makes it for a
// principal of world own naming the objects of world other (own itself
// for the check that it works).
type isolationRoute struct {
	name    string
	pattern string         // the route, as registered under /api/v10 (without it)
	own     map[string]int // the status of the request on its own world's objects, by principal kind
	build   func(own, other testenv.WorldObjects) (method, path string, body any)
}

func invocationOf(channelOf, appOf testenv.WorldObjects) map[string]any {
	return map[string]any{"type": 2, "application_id": appOf.AppID, "guild_id": channelOf.GuildID,
		"channel_id": channelOf.ChannelID, "data": map[string]any{"id": appOf.GuildCommandID, "name": "local",
			"type": 1, "version": appOf.GuildCommandVersion}}
}

// clickOf is a click on the button "go" of message, in channelOf's
// channel, for appOf's app.
func clickOf(channelOf, appOf testenv.WorldObjects, message string) map[string]any {
	return map[string]any{"type": 3, "application_id": appOf.AppID, "guild_id": channelOf.GuildID,
		"channel_id": channelOf.ChannelID, "message_id": message,
		"data": map[string]any{"component_type": 2, "custom_id": "go"}}
}

// isolationRoutes are every /api route that takes a user, guild,
// channel, message, application or command id, with what each principal
// gets on its own world. The DELETEs come last: their own checks delete.
var isolationRoutes = []isolationRoute{
	{"GET user", "GET /users/{user_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/users/" + o.UserID, nil
	}},
	{"open DM", "POST /users/@me/channels", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "POST", "/users/@me/channels", map[string]any{"recipient_id": o.OwnerID}
	}},
	{"GET guild", "GET /guilds/{guild_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID, nil
	}},
	{"GET members", "GET /guilds/{guild_id}/members", map[string]int{asBot: 403, asClient: 403}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/members", nil
	}},
	{"search members", "GET /guilds/{guild_id}/members/search", map[string]int{asBot: 200, asClient: 403}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/members/search?query=a", nil
	}},
	{"GET member", "GET /guilds/{guild_id}/members/{user_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/members/" + o.UserID, nil
	}},
	{"GET member of another world in own guild", "GET /guilds/{guild_id}/members/{user_id}", map[string]int{asBot: 200, asClient: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/guilds/" + own.GuildID + "/members/" + o.UserID, nil
		}},
	{"PUT member role", "PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}", map[string]int{asBot: 403, asClient: 403}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "PUT", "/guilds/" + o.GuildID + "/members/" + o.UserID + "/roles/" + o.GuildID, nil
	}},
	{"GET roles", "GET /guilds/{guild_id}/roles", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/roles", nil
	}},
	{"GET role", "GET /guilds/{guild_id}/roles/{role_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/roles/" + o.GuildID, nil
	}},
	{"GET guild channels", "GET /guilds/{guild_id}/channels", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/guilds/" + o.GuildID + "/channels", nil
	}},
	{"GET channel", "GET /channels/{channel_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.ChannelID, nil
	}},
	{"GET DM", "GET /channels/{channel_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.DMID, nil
	}},
	{"GET DM messages", "GET /channels/{channel_id}/messages", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.DMID + "/messages", nil
	}},
	{"GET messages", "GET /channels/{channel_id}/messages", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.ChannelID + "/messages", nil
	}},
	{"POST message", "POST /channels/{channel_id}/messages", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "POST", "/channels/" + o.ChannelID + "/messages", map[string]any{"content": "hi"}
	}},
	{"GET message", "GET /channels/{channel_id}/messages/{message_id}", map[string]int{asBot: 200, asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.ChannelID + "/messages/" + o.MessageID, nil
	}},
	{"PATCH message", "PATCH /channels/{channel_id}/messages/{message_id}", map[string]int{asBot: 200, asClient: 403}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "PATCH", "/channels/" + o.ChannelID + "/messages/" + o.MessageID, map[string]any{"content": "edited"}
	}},
	{"command index", "GET /channels/{channel_id}/application-command-index", map[string]int{asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/channels/" + o.ChannelID + "/application-command-index", nil
	}},
	{"invoke in a channel", "POST /interactions", map[string]int{asClient: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "POST", "/interactions", invocationOf(o, o)
	}},
	{"invoke another world's app in own channel", "POST /interactions", map[string]int{asClient: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "POST", "/interactions", invocationOf(own, o)
		}},
	{"invoke naming another world's user", "POST /interactions", map[string]int{asClient: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			inv := invocationOf(own, own)
			inv["data"].(map[string]any)["options"] = []map[string]any{{"type": 6, "name": "who", "value": o.UserID}}
			return "POST", "/interactions", inv
		}},
	{"click a button in another world", "POST /interactions", map[string]int{asClient: 200},
		func(_, o testenv.WorldObjects) (string, string, any) {
			return "POST", "/interactions", clickOf(o, o, o.MessageID)
		}},
	{"click another world's app's button in own channel", "POST /interactions", map[string]int{asClient: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "POST", "/interactions", clickOf(own, o, own.MessageID)
		}},
	{"click another world's message in own channel", "POST /interactions", map[string]int{asClient: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "POST", "/interactions", clickOf(own, own, o.MessageID)
		}},
	{"GET app commands", "GET /applications/{application_id}/commands", map[string]int{asBot: 200, asBearer: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/applications/" + o.AppID + "/commands", nil
	}},
	{"GET app command", "GET /applications/{application_id}/commands/{command_id}", map[string]int{asBot: 200, asBearer: 200}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/applications/" + o.AppID + "/commands/" + o.GlobalCommandID, nil
	}},
	{"GET another world's command through own app", "GET /applications/{application_id}/commands/{command_id}", map[string]int{asBot: 200, asBearer: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/applications/" + own.AppID + "/commands/" + o.GlobalCommandID, nil
		}},
	{"GET guild commands", "GET /applications/{application_id}/guilds/{guild_id}/commands", map[string]int{asBot: 200, asBearer: 200}, func(own, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands", nil
	}},
	{"GET guild command permissions", "GET /applications/{application_id}/guilds/{guild_id}/commands/permissions", map[string]int{asBot: 200, asBearer: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/permissions", nil
		}},
	{"GET app command (singular path)", "GET /applications/{application_id}/command/{command_id}", map[string]int{asBot: 200, asBearer: 200},
		func(_, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/applications/" + o.AppID + "/command/" + o.GlobalCommandID, nil
		}},
	{"POST app command", "POST /applications/{application_id}/commands", map[string]int{asBot: 201, asBearer: 401}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "POST", "/applications/" + o.AppID + "/commands", map[string]any{"name": "extra", "description": "Extra"}
	}},
	{"PATCH app command", "PATCH /applications/{application_id}/commands/{command_id}", map[string]int{asBot: 200, asBearer: 401}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "PATCH", "/applications/" + o.AppID + "/commands/" + o.GlobalCommandID, map[string]any{"description": "Pong"}
	}},
	{"GET guild command", "GET /applications/{application_id}/guilds/{guild_id}/commands/{command_id}", map[string]int{asBot: 200, asBearer: 200}, func(own, o testenv.WorldObjects) (string, string, any) {
		return "GET", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/" + o.GuildCommandID, nil
	}},
	{"POST guild command", "POST /applications/{application_id}/guilds/{guild_id}/commands", map[string]int{asBot: 201, asBearer: 401}, func(own, o testenv.WorldObjects) (string, string, any) {
		return "POST", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands",
			map[string]any{"name": "extra", "description": "Extra"}
	}},
	{"GET command permissions", "GET /applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions", map[string]int{asBot: 404, asBearer: 404},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/" + own.GuildCommandID + "/permissions", nil
		}},
	{"PUT command permissions", "PUT /applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions", map[string]int{asBearer: 200}, // a bot is refused before any id is read
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "PUT", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/" + own.GuildCommandID + "/permissions",
				map[string]any{"permissions": []any{}}
		}},
	{"DELETE member role", "DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}", map[string]int{asBot: 403, asClient: 403}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "DELETE", "/guilds/" + o.GuildID + "/members/" + o.UserID + "/roles/" + o.GuildID, nil
	}},
	{"PUT app commands", "PUT /applications/{application_id}/commands", map[string]int{asBot: 200, asBearer: 401},
		func(_, o testenv.WorldObjects) (string, string, any) {
			return "PUT", "/applications/" + o.AppID + "/commands", []map[string]any{{"name": "ping", "description": "Ping"}}
		}},
	{"GET guild command (singular path)", "GET /applications/{application_id}/guilds/{guild_id}/command/{command_id}", map[string]int{asBot: 200, asBearer: 200},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "GET", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/command/" + o.GuildCommandID, nil
		}},
	{"PUT guild commands", "PUT /applications/{application_id}/guilds/{guild_id}/commands", map[string]int{asBot: 200, asBearer: 401},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "PUT", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands", []map[string]any{{
				"name": "local", "description": "Local", "options": []map[string]any{{"type": 6, "name": "who", "description": "Who"}}}}
		}},
	{"PATCH guild command", "PATCH /applications/{application_id}/guilds/{guild_id}/commands/{command_id}", map[string]int{asBot: 200, asBearer: 401},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "PATCH", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/" + o.GuildCommandID,
				map[string]any{"description": "Local!"}
		}},
	{"PUT guild permissions (batch)", "PUT /applications/{application_id}/guilds/{guild_id}/commands/permissions", map[string]int{asBot: 405, asBearer: 405},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "PUT", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/permissions", []any{}
		}},
	{"DELETE guild command", "DELETE /applications/{application_id}/guilds/{guild_id}/commands/{command_id}", map[string]int{asBot: 204, asBearer: 401},
		func(own, o testenv.WorldObjects) (string, string, any) {
			return "DELETE", "/applications/" + own.AppID + "/guilds/" + o.GuildID + "/commands/" + own.GuildCommandID, nil
		}},
	{"DELETE app command", "DELETE /applications/{application_id}/commands/{command_id}", map[string]int{asBot: 204, asBearer: 401},
		func(_, o testenv.WorldObjects) (string, string, any) {
			return "DELETE", "/applications/" + o.AppID + "/commands/" + o.GlobalCommandID, nil
		}},
	{"DELETE message", "DELETE /channels/{channel_id}/messages/{message_id}", map[string]int{asClient: 403, asBot: 204}, func(_, o testenv.WorldObjects) (string, string, any) {
		return "DELETE", "/channels/" + o.ChannelID + "/messages/" + o.MessageID, nil
	}},
}

// TestWorldIsolationHTTP: the credentials of a test world's app (bot and
// Bearer token) and person (client token) reach every route with an id
// on their own world's objects, and get exactly the answer of an unknown
// id (status and body) on another world's and on world 0's; world 0's
// get it on a world's.
func TestWorldIsolationHTTP(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	a := e.NewWorldObjects(t, e.NewTestWorld(t, "world-a"), "world-a")
	b := e.NewWorldObjects(t, e.NewTestWorld(t, "world-b"), "world-b")
	zero := e.NewWorldObjects(t, 0, "world-0")
	// The principals' apps answer their invocations at once.
	for _, w := range []testenv.WorldObjects{a, zero} {
		endpoint := httptest.NewServer(interactions.Handler(w.PublicKey,
			func(context.Context, *interactions.Interaction) (interactions.Response, error) {
				return interactions.Message("ok"), nil
			}))
		t.Cleanup(endpoint.Close)
		adminDo(t, e, "PUT", "/applications/"+w.AppID+"/interactions-endpoint",
			jsonObj{"interactions_endpoint_url": endpoint.URL}, 200)
	}
	unknown := testenv.WorldObjects{}
	for _, p := range []*string{&unknown.AppID, &unknown.GuildID, &unknown.ChannelID, &unknown.MessageID,
		&unknown.UserID, &unknown.OwnerID, &unknown.DMID, &unknown.GlobalCommandID, &unknown.GuildCommandID} {
		*p = e.IDs.Next().String()
	}
	unknown.GlobalCommandVersion, unknown.GuildCommandVersion = unknown.GlobalCommandID, unknown.GuildCommandID

	do := func(t *testing.T, auth, method, path string, body any) testenv.Response {
		t.Helper()
		r, err := doJSON(e, method, "/api/v10"+path, auth, body)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return r
	}
	// The table covers every route with an id in its path, but those an
	// interaction's token authenticates (its id and app are the token's).
	covered := map[string]bool{}
	for _, r := range isolationRoutes {
		covered[r.pattern] = true
	}
	tokenRoutes := map[string]bool{
		"POST /interactions/{interaction_id}/{interaction_token}/callback":            true,
		"POST /webhooks/{application_id}/{interaction_token}":                         true,
		"GET /webhooks/{application_id}/{interaction_token}/messages/{message_id}":    true,
		"PATCH /webhooks/{application_id}/{interaction_token}/messages/{message_id}":  true,
		"DELETE /webhooks/{application_id}/{interaction_token}/messages/{message_id}": true,
	}
	for _, pattern := range e.API.Routes() {
		method, path, _ := strings.Cut(pattern, " ")
		rest, ok := strings.CutPrefix(path, "/api/v10/")
		route := method + " /" + rest
		if ok && strings.Contains(rest, "{") && !covered[route] && !tokenRoutes[route] {
			t.Errorf("route %s takes an id and is not in isolationRoutes", route)
		}
	}

	pairs := []struct {
		name   string
		own    testenv.WorldObjects
		others []testenv.WorldObjects
	}{
		{"world A", a, []testenv.WorldObjects{b, zero}},
		{"world 0", zero, []testenv.WorldObjects{a}},
	}
	for _, pair := range pairs {
		for _, route := range isolationRoutes {
			for _, kind := range []string{asClient, asBot, asBearer} {
				ownStatus, applies := route.own[kind]
				if !applies {
					continue
				}
				name := fmt.Sprintf("%s/%s/%s", pair.name, route.name, kind)
				auth := authOf(pair.own, kind)
				for i, other := range pair.others {
					method, path, body := route.build(pair.own, other)
					got := do(t, auth, method, path, body)
					um, upath, ubody := route.build(pair.own, unknown)
					want := do(t, auth, um, upath, ubody)
					if want.Status < 400 || want.Status == 403 {
						t.Errorf("%s: an unknown id answers %s, want a 4xx other than 403", name, describe(want))
					}
					if got.Status != want.Status || !bytes.Equal(canonBody(got.Body), canonBody(want.Body)) {
						t.Errorf("%s: other world #%d: %s %s answers %s, an unknown id %s", name, i, method, path,
							describe(got), describe(want))
					}
				}
				method, path, body := route.build(pair.own, pair.own)
				if r := do(t, auth, method, path, body); r.Status != ownStatus {
					t.Errorf("%s: own world: %s %s answers %s, want %d", name, method, path, describe(r), ownStatus)
				}
			}
		}
	}
}

// canonBody is a body without its trailing newline.
func canonBody(b []byte) []byte { return bytes.TrimSpace(b) }

package api_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/testenv"
	worldspec "github.com/slashd/slashd/internal/world"
)

// exportSpec is the world the round trip starts from: the example
// with a grant (to set command permissions with) and a guild command.
const exportSpec = `{"name": "export-src",
 "users": {"alice": {"grants": {"modbot": ["applications.commands.permissions.update"]}}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"commands": [{"name": "ban", "description": "Ban someone",
           "options": [{"type": 6, "name": "user", "description": "Who", "required": true},
                       {"type": 3, "name": "reason", "description": "Why"}]}],
          "guild_commands": {"club": [{"name": "warn", "description": "Warn someone"}]}}},
 "guilds": {"club": {"owner": "alice",
   "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}, "staff": {"overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]},
                                                        "mods": {"allow": ["VIEW_CHANNEL"]}}}},
   "members": {"alice": {"roles": ["mods"]}, "bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"], "permissions": ["SEND_MESSAGES"]}}}},
 "dms": {"ab": {"between": ["alice", "bob"]}}}`

// exportWorldAnswer is what the round trip reads of a world object.
type exportWorldAnswer = testenv.World

// exportServer is a server to run the round trip on: its admin
// Authorization and its requests.
type exportServer struct {
	e     *testenv.Env
	admin string
}

func (s exportServer) do(t *testing.T, want int, method, path, auth string, body any) []byte {
	t.Helper()
	res := s.e.DoAs(t, method, path, auth, body)
	if res.Status != want {
		t.Fatalf("%s %s: %d %s (want %d)", method, path, res.Status, res.Body, want)
	}
	return res.Body
}

func (s exportServer) decode(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// TestWorldExportRoundTrip: a world changed through the admin API and
// /api/v10, exported, made again from its export under another name and
// exported again gives the same document but for the name; and the
// export makes a world, names new objects by their names and holds no
// credential.
func TestWorldExportRoundTrip(t *testing.T) {
	e := testenv.New(t)
	exportRoundTrip(t, exportServer{e: e, admin: e.AdminAuth()})
}

func TestWorldExportRoundTripPostgres(t *testing.T) {
	e := testenv.New(t)
	pg, err := postgres.Open(t.Context(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	tok, err := bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: pg, IDs: e.IDs, Rand: rand.Reader, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	exportRoundTrip(t, exportServer{e: e.NodeOn(pg), admin: "Admin " + tok})
}

func exportRoundTrip(t *testing.T, s exportServer) {
	var w exportWorldAnswer
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/worlds", s.admin, exportSpec), &w)
	club := w.Guilds["club"]
	bot := "Bot " + w.Apps["modbot"].BotToken
	appID := w.Apps["modbot"].ID
	alice, bob := w.Users["alice"], w.Users["bob"]

	// Through the admin API: a user, a role, a category with a channel
	// in it, a member with a nick, a group DM, a user install, app
	// settings.
	var carol struct{ ID string }
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/users", s.admin,
		map[string]any{"username": "Carol Smith", "world_id": w.ID, "adult": true}), &carol)
	var helpers struct{ ID string }
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/guilds/"+club.ID+"/roles", s.admin,
		map[string]any{"name": "Helpers!", "permissions": "8192", "position": 2}), &helpers)
	var cat, ops struct{ ID string }
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/guilds/"+club.ID+"/channels", s.admin,
		map[string]any{"name": "Work", "type": 4}), &cat)
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/guilds/"+club.ID+"/channels", s.admin,
		map[string]any{"name": "ops", "parent_id": cat.ID, "position": 0, "permission_overwrites": []any{
			map[string]any{"id": helpers.ID, "type": 0, "allow": "1024"},
			map[string]any{"id": carol.ID, "type": 1, "deny": "2048"}}}), &ops)
	s.do(t, http.StatusCreated, "PUT", "/admin/v1/guilds/"+club.ID+"/members/"+carol.ID, s.admin,
		map[string]any{"nick": "cc", "roles": []string{helpers.ID, club.Roles["mods"]}})
	s.do(t, http.StatusOK, "PUT", "/admin/v1/guilds/"+club.ID+"/members/"+appID, s.admin,
		map[string]any{"nick": "Moddy", "roles": []string{helpers.ID}})
	s.do(t, http.StatusCreated, "POST", "/admin/v1/group-dms", s.admin,
		map[string]any{"owner_id": bob.ID, "recipient_ids": []string{alice.ID, carol.ID}, "name": "trio"})
	s.do(t, http.StatusCreated, "PUT", "/admin/v1/users/"+carol.ID+"/installations/"+appID, s.admin, nil)
	s.do(t, http.StatusOK, "PATCH", "/admin/v1/applications/"+appID, s.admin, map[string]any{"flags": 8192 | 131072,
		"integration_types_config": map[string]any{"0": map[string]any{"oauth2_install_params": map[string]any{
			"scopes": []string{"applications.commands", "bot"}, "permissions": "2048"}}, "1": nil}})

	// Through /api/v10: a guild command by the bot, its permissions and
	// the app's by alice's grant, messages.
	var slow struct{ ID string }
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/api/v10/applications/"+appID+"/guilds/"+club.ID+"/commands", bot,
		map[string]any{"name": "slowmode", "description": "Slow the channel", "default_member_permissions": "16"}), &slow)
	s.do(t, http.StatusCreated, "POST", "/api/v10/applications/"+appID+"/commands", bot,
		map[string]any{"name": "Report", "type": 3})
	bearer := "Bearer " + w.BearerTokens["alice:modbot"].AccessToken
	s.do(t, http.StatusOK, "PUT", "/api/v10/applications/"+appID+"/guilds/"+club.ID+"/commands/"+slow.ID+"/permissions",
		bearer, map[string]any{"permissions": []any{
			map[string]any{"id": helpers.ID, "type": 1, "permission": true},
			map[string]any{"id": bob.ID, "type": 2, "permission": false},
			map[string]any{"id": ops.ID, "type": 3, "permission": true}}})
	s.do(t, http.StatusOK, "PUT", "/api/v10/applications/"+appID+"/guilds/"+club.ID+"/commands/"+appID+"/permissions",
		bearer, map[string]any{"permissions": []any{
			map[string]any{"id": club.ID, "type": 1, "permission": false},
			map[string]any{"id": fmt.Sprint(mustID(t, club.ID) - 1), "type": 3, "permission": true}}})
	s.do(t, http.StatusOK, "PUT", "/api/v10/applications/"+appID+"/guilds/"+club.ID+"/commands/"+w.Apps["modbot"].Commands["ban"]+"/permissions",
		bearer, map[string]any{"permissions": []any{map[string]any{"id": club.Roles["mods"], "type": 1, "permission": true}}})
	general := club.Channels["general"]
	s.do(t, http.StatusOK, "POST", "/api/v10/channels/"+general+"/messages", alice.ClientToken,
		map[string]any{"content": "hello <@" + bob.ID + ">"})
	s.do(t, http.StatusOK, "POST", "/api/v10/channels/"+general+"/messages", bot,
		map[string]any{"embeds": []any{map[string]any{"title": "Rules", "description": "Be nice"}}})
	s.do(t, http.StatusOK, "POST", "/api/v10/channels/"+w.DMs["ab"]+"/messages", bob.ClientToken,
		map[string]any{"content": "psst"})

	first := s.do(t, http.StatusOK, "GET", "/admin/v1/worlds/export-src/export?messages=true", s.admin, nil)
	noMessages := s.do(t, http.StatusOK, "GET", "/admin/v1/worlds/"+w.ID+"/export", s.admin, nil)
	if bytes.Contains(noMessages, []byte(`"messages"`)) {
		t.Errorf("an export without ?messages has messages: %s", noMessages)
	}
	for _, secret := range []string{alice.ClientToken, w.Apps["modbot"].BotToken, w.BearerTokens["alice:modbot"].AccessToken} {
		if bytes.Contains(first, []byte(secret)) {
			t.Fatalf("the export holds a credential: %s", first)
		}
	}
	v, err := form.DecodeJSON(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worldspec.Decode(v); err != nil {
		t.Fatalf("the export is no spec: %v\n%s", err, first)
	}
	var doc map[string]any
	s.decode(t, first, &doc)
	for path, want := range map[string]any{
		"users.Carol-Smith.username":                                               "Carol Smith",
		"users.Carol-Smith.installs.0":                                             "modbot",
		"guilds.club.roles.Helpers.name":                                           "Helpers!",
		"guilds.club.channels.ops.parent":                                          "Work",
		"guilds.club.channels.ops.overwrites.Carol-Smith.deny":                     []any{"SEND_MESSAGES"},
		"guilds.club.members.Carol-Smith.nick":                                     "cc",
		"guilds.club.members.modbot.nick":                                          "Moddy",
		"guilds.club.members.modbot.roles.0":                                       "Helpers",
		"guilds.club.command_permissions.modbot.slowmode.1.user":                   "bob",
		"guilds.club.command_permissions.modbot.*.1.channel":                       "*",
		"group_dms.trio.owner":                                                     "bob",
		"apps.modbot.flags":                                                        float64(8192 | 131072),
		"apps.modbot.integration_types_config.0.oauth2_install_params.permissions": "2048",
		"apps.modbot.commands.0.name":                                              "Launch",
		"apps.modbot.guild_commands.club.1.name":                                   "warn",
		"guilds.club.channels.general.messages.1.author":                           "modbot",
		"dms.ab.messages.0.content":                                                "psst",
		"guilds.club.channels.general.messages.0.content":                          "hello <@bob>",
	} {
		if got := lookupPath(doc, path); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}

	// The export makes a world (under another name), whose export is the
	// same.
	copySpec := bytes.Replace(first, []byte(`"name":"export-src"`), []byte(`"name":"export-copy"`), 1)
	var w2 exportWorldAnswer
	s.decode(t, s.do(t, http.StatusCreated, "POST", "/admin/v1/worlds", s.admin, copySpec), &w2)
	if w2.ID == w.ID || w2.Apps["modbot"].BotToken == w.Apps["modbot"].BotToken {
		t.Fatalf("the import shares the source's id or credentials")
	}
	second := s.do(t, http.StatusOK, "GET", "/admin/v1/worlds/export-copy/export?messages=true", s.admin, nil)
	if !bytes.Equal(copySpec, second) {
		t.Fatalf("the export of the import differs:\nfirst  %s\nsecond %s", copySpec, second)
	}
	// And it works: the permissions hold in the copy (bob is denied
	// slowmode's list in the copy as in the source).
	var perms []struct {
		ID          string `json:"id"`
		Permissions []struct {
			ID   string `json:"id"`
			Type int    `json:"type"`
		} `json:"permissions"`
	}
	s.decode(t, s.do(t, http.StatusOK, "GET", "/api/v10/applications/"+w2.Apps["modbot"].ID+"/guilds/"+w2.Guilds["club"].ID+
		"/commands/permissions", "Bot "+w2.Apps["modbot"].BotToken, nil), &perms)
	if len(perms) != 3 {
		t.Errorf("the copy has %d permission lists, want 3: %+v", len(perms), perms)
	}

	// Mentions are the copy's: bob's handle became the copy's bob.
	var msgs []struct {
		Content string `json:"content"`
	}
	s.decode(t, s.do(t, http.StatusOK, "GET", "/api/v10/channels/"+w2.Guilds["club"].Channels["general"]+"/messages",
		w2.Users["alice"].ClientToken, nil), &msgs)
	if len(msgs) != 2 || msgs[1].Content != "hello <@"+w2.Users["bob"].ID+">" {
		t.Errorf("the copy's messages = %+v", msgs)
	}

	// An unknown world is 404 10000; a bad ?messages a 50035.
	res := s.e.DoAs(t, "GET", "/admin/v1/worlds/no-such-world/export", s.admin, nil)
	if res.Status != http.StatusNotFound || !strings.Contains(string(res.Body), `"code":10000`) {
		t.Errorf("unknown world: %d %s", res.Status, res.Body)
	}
	res = s.e.DoAs(t, "GET", "/admin/v1/worlds/export-src/export?messages=maybe", s.admin, nil)
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "BOOLEAN_TYPE_CONVERT") {
		t.Errorf("?messages=maybe: %d %s", res.Status, res.Body)
	}
}

// lookupPath reads a dotted path (list indexes as numbers) in a decoded
// JSON document; nil when it is not there.
func lookupPath(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			v = node[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i < 0 || i >= len(node) {
				return nil
			}
			v = node[i]
		default:
			return nil
		}
	}
	return v
}

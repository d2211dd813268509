package api_test

// HTTP tests of the guild routes a bot reads: GET /guilds/{id}, its
// members, roles and channels, under every API prefix, with their
// success shapes and every error.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/testenv"
)

// guildWorld is a guild with the app's bot in it, a role, members with
// nicknames, a category, channels (one hidden from @everyone) and a
// thread; a stranger who is in no guild, and a guild the bot is not in.
type guildWorld struct {
	*world
	mod                    string // a role
	alice, bob, stranger   string // users: alice (nick "Ali", role mod) and bob (nick "zed") are members
	aliceTok, strangerTok  string
	category, text, hidden string
	thread                 string
	otherGuild             string // the bot is not in it
}

func newGuildWorld(t *testing.T, e *testenv.Env) *guildWorld {
	t.Helper()
	w := &guildWorld{world: newWorld(t, e)}
	w.mod = w.role("mod", "8192", 1)
	w.alice, w.bob, w.stranger = w.user("alice"), w.user("bob"), w.user("stranger")
	adminDo(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.alice, jsonObj{"roles": []string{w.mod}, "nick": "Ali"}, -1)
	adminDo(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.bob, jsonObj{"roles": []string{}, "nick": "zed"}, -1)
	w.aliceTok, w.strangerTok = w.client(w.alice), w.client(w.stranger)
	w.category = w.channel(jsonObj{"name": "info", "type": 4})
	w.text = w.channel(jsonObj{"name": "general", "type": 0, "parent_id": w.category})
	w.hidden = w.channel(jsonObj{"name": "staff", "type": 0, "permission_overwrites": []jsonObj{
		{"id": w.guild, "type": 0, "allow": "0", "deny": "1024"}}})
	w.thread = w.channel(jsonObj{"name": "a thread", "type": 11, "parent_id": w.text})
	w.otherGuild = adminNewGuild(t, e, "elsewhere", w.owner)
	return w
}

// enableMembersIntent turns on the app's GATEWAY_GUILD_MEMBERS_LIMITED
// flag (1<<15), as the portal's switch does.
func (w *guildWorld) enableMembersIntent() {
	w.t.Helper()
	adminDo(w.t, w.e, "PATCH", "/applications/"+w.app, jsonObj{"flags": 1 << 15}, http.StatusOK)
}

func TestGuildGet(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	for _, prefix := range apiPrefixes {
		for _, c := range []struct{ name, auth string }{{"bot", e.Bot()}, {"member's client token", w.aliceTok}} {
			t.Run(prefix+" "+c.name, func(t *testing.T) {
				g := decodeObj(t, mustDo(t, e, "GET", prefix+"/guilds/"+w.guild, c.auth, nil, http.StatusOK))
				want := jsonObj{"id": w.guild, "name": "perm2 world", "owner_id": w.owner, "icon": nil,
					"features": []any{}, "emojis": []any{}, "stickers": []any{}, "incidents_data": nil,
					"application_id": nil, "afk_timeout": float64(300), "preferred_locale": "en-US",
					"max_members": float64(500000), "nsfw": false, "widget_enabled": false}
				for k, v := range want {
					if got, ok := g[k]; !ok || mustMarshalJSON(t, got) != mustMarshalJSON(t, v) {
						t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
					}
				}
				for _, k := range []string{"approximate_member_count", "approximate_presence_count", "members",
					"channels", "joined_at"} {
					if _, ok := g[k]; ok {
						t.Errorf("%s present without with_counts: the guild object has no %s", k, k)
					}
				}
				roles := ids(objs(t, g["roles"]), "id")
				if !slices.Contains(roles, w.guild) || !slices.Contains(roles, w.mod) {
					t.Errorf("roles %v, want @everyone (%s) and mod (%s)", roles, w.guild, w.mod)
				}
			})
		}
	}

	t.Run("with_counts", func(t *testing.T) {
		count := func() (members, online any) {
			g := decodeObj(t, mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"?with_counts=true", e.Bot(), nil, 200))
			return g["approximate_member_count"], g["approximate_presence_count"]
		}
		before, online := count()
		if online != float64(0) {
			t.Errorf("approximate_presence_count = %v, want 0 (slashd keeps no presences)", online)
		}
		w.member(w.stranger)
		defer adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/members/"+w.stranger, nil, -1)
		after, _ := count()
		n, ok := before.(float64)
		if !ok || n < 3 || after != n+1 {
			t.Errorf("approximate_member_count %v, then %v after one joined", before, after)
		}
		for _, v := range []string{"false", "0", "False"} {
			g := decodeObj(t, mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"?with_counts="+v, e.Bot(), nil, 200))
			if _, ok := g["approximate_member_count"]; ok {
				t.Errorf("with_counts=%s: counts present", v)
			}
		}
		wantError(t, mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"?with_counts=yes", e.Bot(), nil, -1), 400,
			formError(leaf{"with_counts", "BOOLEAN_TYPE_CONVERT", "Must be either true or false."}))
	})
}

// objs is a JSON array of objects.
func objs(t testing.TB, v any) []jsonObj {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("want an array, got %T", v)
	}
	out := make([]jsonObj, len(list))
	for i, o := range list {
		if out[i], ok = o.(jsonObj); !ok {
			t.Fatalf("item %d is %T", i, o)
		}
	}
	return out
}

// memberJSON is the whole member object of GET /guilds/{id}/members/…,
// as GUILD_CREATE renders one: the user, no permissions.
func memberJSON(user jsonObj, nick any, roles []string, joinedAt any) jsonObj {
	return jsonObj{"user": user, "nick": nick, "avatar": nil, "banner": nil, "roles": roles, "joined_at": joinedAt,
		"premium_since": nil, "deaf": false, "mute": false, "pending": false, "flags": 0,
		"communication_disabled_until": nil}
}

// joinedAt is a member's joined_at, checked to be the API's timestamp.
func joinedAt(t testing.TB, m jsonObj) string {
	t.Helper()
	s, _ := m["joined_at"].(string)
	if _, err := time.Parse(interaction.TimestampLayout, s); err != nil {
		t.Fatalf("joined_at %q: %v", m["joined_at"], err)
	}
	return s
}

func TestGuildMember(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	for _, prefix := range apiPrefixes {
		for _, c := range []struct{ name, auth string }{{"bot", e.Bot()}, {"member's client token", w.aliceTok}} {
			t.Run(prefix+" "+c.name, func(t *testing.T) {
				r := mustDo(t, e, "GET", prefix+"/guilds/"+w.guild+"/members/"+w.alice, c.auth, nil, http.StatusOK)
				m := decodeObj(t, r)
				want := memberJSON(userJSON(w.alice, "alice", nil, false), "Ali", []string{w.mod}, joinedAt(t, m))
				wantJSON(t, r.Body, mustMarshalJSON(t, want))
			})
		}
	}
	t.Run("the bot's own member", func(t *testing.T) {
		m := decodeObj(t, mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"/members/"+w.app, e.Bot(), nil, 200))
		if u, _ := m["user"].(jsonObj); u["bot"] != true || m["nick"] != nil {
			t.Errorf("bot member %v", m)
		}
	})
}

func TestGuildMemberList(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	list := "/api/v10/guilds/" + w.guild + "/members"

	// Without the GUILD_MEMBERS intent: Missing Access.
	wantError(t, mustDo(t, e, "GET", list, e.Bot(), nil, -1), http.StatusForbidden, bodyMissingAccess)
	w.enableMembersIntent()

	all := decodeList(t, mustDo(t, e, "GET", list+"?limit=1000", e.Bot(), nil, http.StatusOK))
	var userIDs []string
	for _, m := range all {
		joinedAt(t, m)
		u, _ := m["user"].(jsonObj)
		userIDs = append(userIDs, str(u, "id"))
		if _, ok := m["permissions"]; ok {
			t.Errorf("member %v carries permissions", u["id"])
		}
	}
	for _, id := range []string{w.app, w.alice, w.bob} {
		if !slices.Contains(userIDs, id) {
			t.Errorf("listed %v, want %s among them", userIDs, id)
		}
	}
	if slices.Contains(userIDs, w.stranger) {
		t.Errorf("listed the stranger")
	}
	if !slices.IsSortedFunc(userIDs, func(a, b string) int { return cmpID(t, a, b) }) {
		t.Errorf("listed %v, want ascending user ids", userIDs)
	}
	page := func(query string) []string {
		t.Helper()
		var out []string
		for _, m := range decodeList(t, mustDo(t, e, "GET", list+query, e.Bot(), nil, http.StatusOK)) {
			out = append(out, str(m["user"].(jsonObj), "id"))
		}
		return out
	}
	for _, prefix := range apiPrefixes {
		got := decodeList(t, mustDo(t, e, "GET", prefix+"/guilds/"+w.guild+"/members", e.Bot(), nil, http.StatusOK))
		if len(got) != 1 || mustMarshalJSON(t, got[0]) != mustMarshalJSON(t, all[0]) {
			t.Errorf("%s default page %v, want the first member only", prefix, got)
		}
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"?limit=2", userIDs[:2]},
		{"?after=" + userIDs[0] + "&limit=1000", userIDs[1:]},
		{"?after=" + userIDs[1] + "&limit=1", userIDs[2:3]},
		{"?after=" + userIDs[len(userIDs)-1] + "&limit=5", nil},
		{"?after=0&limit=1000", userIDs},
	}
	for _, c := range cases {
		if got := page(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}

	errs := []struct {
		name, auth, query string
		status            int
		body              string
	}{
		{"limit 0", e.Bot(), "?limit=0", 400, formError(leaf{"limit", "NUMBER_TYPE_MIN", form.MsgIntMin(1)})},
		{"limit 1001", e.Bot(), "?limit=1001", 400, formError(leaf{"limit", "NUMBER_TYPE_MAX", form.MsgIntMax(1000)})},
		{"limit not a number", e.Bot(), "?limit=x", 400,
			formError(leaf{"limit", "NUMBER_TYPE_COERCE", `Value "x" is not int.`})},
		{"after not a snowflake", e.Bot(), "?after=x", 400, formError(leaf{"after", "NUMBER_TYPE_COERCE", notSnowflake("x")})},
		{"a member's client token", w.aliceTok, "", 403, bodyMissingAccess},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) { wantError(t, mustDo(t, e, "GET", list+c.query, c.auth, nil, -1), c.status, c.body) })
	}
}

// cmpID orders snowflake strings numerically.
func cmpID(t testing.TB, a, b string) int {
	x, y := mustID(t, a), mustID(t, b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func TestGuildMemberSearch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	search := "/api/v10/guilds/" + w.guild + "/members/search"
	names := func(query string) []string {
		t.Helper()
		var out []string
		for _, m := range decodeList(t, mustDo(t, e, "GET", search+query, e.Bot(), nil, http.StatusOK)) {
			joinedAt(t, m)
			out = append(out, str(m["user"].(jsonObj), "username"))
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?query=ALI&limit=10", []string{"alice"}}, // username and nickname
		{"?query=ze&limit=10", []string{"bob"}},    // nickname "zed"
		{"?query=b&limit=10", []string{"bob"}},     // username
		{"?query=str&limit=10", nil},               // not a member
		{"?query=nobody", nil},
	} {
		if got := names(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	// The default limit is 1.
	adminDo(t, e, "PUT", "/guilds/"+w.guild+"/members/"+w.stranger, jsonObj{"roles": []string{}, "nick": "alf"}, -1)
	if got := names("?query=al"); len(got) != 1 {
		t.Errorf("default limit: %v, want one member", got)
	}
	if got := names("?query=al&limit=2"); len(got) != 2 {
		t.Errorf("limit 2: %v, want alice and the stranger (nick alf)", got)
	}

	long := make([]byte, 101)
	for i := range long {
		long[i] = 'a'
	}
	for _, c := range []struct {
		name, auth, query string
		status            int
		body              string
	}{
		{"no query", e.Bot(), "", 400, formError(leaf{"query", "BASE_TYPE_REQUIRED", msgRequired})},
		{"empty query", e.Bot(), "?query=", 400,
			formError(leaf{"query", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."})},
		{"query too long", e.Bot(), "?query=" + string(long), 400,
			formError(leaf{"query", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."})},
		{"limit not a number", e.Bot(), "?query=a&limit=x", 400,
			formError(leaf{"limit", "NUMBER_TYPE_COERCE", `Value "x" is not int.`})},
		{"a member's client token", w.aliceTok, "?query=a", 403, bodyMissingAccess},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, mustDo(t, e, "GET", search+c.query, c.auth, nil, -1), c.status, c.body)
		})
	}
}

func TestGuildRoles(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	mod := jsonObj{"id": w.mod, "name": "mod", "color": 0,
		"colors": jsonObj{"primary_color": 0, "secondary_color": nil, "tertiary_color": nil},
		"hoist":  false, "icon": nil, "unicode_emoji": nil, "position": 1, "permissions": "8192", "managed": false,
		"mentionable": false, "flags": 0}
	for _, prefix := range apiPrefixes {
		for _, c := range []struct{ name, auth string }{{"bot", e.Bot()}, {"member's client token", w.aliceTok}} {
			t.Run(prefix+" "+c.name, func(t *testing.T) {
				roles := decodeList(t, mustDo(t, e, "GET", prefix+"/guilds/"+w.guild+"/roles", c.auth, nil, 200))
				byID := map[string]jsonObj{}
				for _, r := range roles {
					byID[str(r, "id")] = r
				}
				if mustMarshalJSON(t, byID[w.mod]) != mustMarshalJSON(t, mod) {
					t.Errorf("mod in the list: %v, want %v", byID[w.mod], mod)
				}
				if everyone := byID[w.guild]; everyone["name"] != "@everyone" || everyone["position"] != float64(0) {
					t.Errorf("@everyone: %v", everyone)
				}
				r := mustDo(t, e, "GET", prefix+"/guilds/"+w.guild+"/roles/"+w.mod, c.auth, nil, 200)
				wantJSON(t, r.Body, mustMarshalJSON(t, mod))
			})
		}
	}
}

func TestGuildChannels(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	// A message in general: its last_message_id.
	msg := decodeObj(t, mustDo(t, e, "POST", "/api/v10/channels/"+w.text+"/messages", e.Bot(),
		jsonObj{"content": "hi"}, 200))
	for _, prefix := range apiPrefixes {
		for _, c := range []struct{ name, auth string }{{"bot", e.Bot()}, {"member's client token", w.aliceTok}} {
			t.Run(prefix+" "+c.name, func(t *testing.T) {
				list := decodeList(t, mustDo(t, e, "GET", prefix+"/guilds/"+w.guild+"/channels", c.auth, nil, 200))
				got := map[string]jsonObj{}
				for _, ch := range list {
					got[str(ch, "id")] = ch
					if ch["guild_id"] != w.guild {
						t.Errorf("channel %v: guild_id %v", ch["id"], ch["guild_id"])
					}
				}
				// Threads are left out; the channel @everyone cannot see is listed.
				if _, ok := got[w.thread]; ok {
					t.Errorf("the thread is listed")
				}
				for _, id := range []string{w.category, w.text, w.hidden} {
					if _, ok := got[id]; !ok {
						t.Errorf("channel %s missing from %v", id, ids(list, "id"))
					}
				}
				// Each as GET /channels/{id} renders it (a bot reads them all).
				one := decodeObj(t, mustDo(t, e, "GET", prefix+"/channels/"+w.text, e.Bot(), nil, 200))
				if mustMarshalJSON(t, got[w.text]) != mustMarshalJSON(t, one) {
					t.Errorf("listed %v\n  GET /channels/{id} %v", got[w.text], one)
				}
				if got[w.text]["last_message_id"] != msg["id"] || got[w.text]["parent_id"] != w.category {
					t.Errorf("general: %v", got[w.text])
				}
			})
		}
	}
}

// TestGuildErrors drives every guild route to each error it answers.
func TestGuildErrors(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGuildWorld(t, e)
	w.enableMembersIntent() // so the member list fails for the reasons below only
	bearer := w.bearer(w.alice, w.app, "identify guilds")
	routes := []string{"", "/members", "/members/search?query=a", "/members/" + w.alice, "/roles", "/roles/" + w.mod,
		"/channels"}
	for _, route := range routes {
		for _, c := range []struct {
			name, guild, auth string
			status            int
			body              string
		}{
			{"no token", w.guild, "", 401, bodyUnauthorized},
			{"unknown bot token", w.guild, "Bot nope", 401, bodyUnauthorized},
			{"OAuth2 Bearer token", w.guild, bearer, 401, bodyUnauthorized},
			{"unknown guild", "1234567890123456789", e.Bot(), 404, bodyUnknownGuild},
			{"guild id not a snowflake", "x", e.Bot(), 400, formError(leaf{"guild_id", "NUMBER_TYPE_COERCE", notSnowflake("x")})},
			{"bot not in the guild", w.otherGuild, e.Bot(), notInGuildStatus(route), notInGuildBody(route)},
			{"person not in the guild", w.guild, w.strangerTok, notInGuildStatus(route), notInGuildBody(route)},
		} {
			t.Run(c.name+" "+route, func(t *testing.T) {
				wantError(t, mustDo(t, e, "GET", "/api/v10/guilds/"+c.guild+route, c.auth, nil, -1), c.status, c.body)
			})
		}
	}
	g := "/api/v10/guilds/" + w.guild
	for _, c := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"member: unknown user", "/members/1234567890123456789", 404, apiError(10013, "Unknown User")},
		{"member: a user not in the guild", "/members/" + w.stranger, 404, apiError(10007, "Unknown Member")},
		{"member: not a snowflake", "/members/x", 400, formError(leaf{"user_id", "NUMBER_TYPE_COERCE", notSnowflake("x")})},
		{"role: unknown", "/roles/1234567890123456789", 404, apiError(10011, "Unknown Role")},
		{"role: another guild's", "/roles/" + w.otherGuild, 404, apiError(10011, "Unknown Role")},
		{"role: not a snowflake", "/roles/x", 400, formError(leaf{"role_id", "NUMBER_TYPE_COERCE", notSnowflake("x")})},
		{"a write method", "/roles", 405, bodyMethod},
	} {
		t.Run(c.name, func(t *testing.T) {
			method := "GET"
			if c.status == 405 {
				method = "POST"
			}
			wantError(t, mustDo(t, e, method, g+c.path, e.Bot(), jsonObj{}, -1), c.status, c.body)
		})
	}
}

// notInGuildStatus: GET /guilds/{id} does not tell a guild the caller is
// not in from one that does not exist (Unknown Guild); its sub-routes
// answer Missing Access.
func notInGuildStatus(route string) int {
	if route == "" {
		return http.StatusNotFound
	}
	return http.StatusForbidden
}

func notInGuildBody(route string) string {
	if route == "" {
		return bodyUnknownGuild
	}
	return bodyMissingAccess
}

// TestGuildRoutesRateLimited: the guild routes are read routes, limited
// per guild like the others.
func TestGuildRoutesRateLimited(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) { c.ReadLimit.Count, c.ReadLimit.Window = 3, time.Hour }))
	w := newGuildWorld(t, e)
	r := mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"/roles", e.Bot(), nil, 200)
	limit, err := strconv.Atoi(r.Header.Get("X-RateLimit-Limit"))
	if err != nil || r.Header.Get("X-RateLimit-Bucket") == "" {
		t.Fatalf("rate limit headers: %v", r.Header)
	}
	for range limit - 1 {
		mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"/roles", e.Bot(), nil, 200)
	}
	limited := mustDo(t, e, "GET", "/api/v10/guilds/"+w.guild+"/roles", e.Bot(), nil, http.StatusTooManyRequests)
	var body struct {
		Global bool `json:"global"`
	}
	if err := json.Unmarshal(limited.Body, &body); err != nil || body.Global {
		t.Errorf("429 body %s", limited.Body)
	}
	// Another guild's bucket is its own.
	mustDo(t, e, "GET", "/api/v10/guilds/"+w.otherGuild+"/roles", e.Bot(), nil, http.StatusForbidden)
}

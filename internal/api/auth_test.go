package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// endpoint is one of the 16 routes of spec §4, with a body that would be
// accepted.
type endpoint struct {
	method, path string
	body         any
}

// endpointsOf lists every endpoint for one app/guild under p, acting on
// the given global and guild command ids.
func endpointsOf(p apiPaths, globalID, guildID string) []endpoint {
	perms := permsBody(entry(p.guild, 1, true))
	return []endpoint{
		{"GET", p.global(), nil},
		{"POST", p.global(), chat("new")},
		{"PUT", p.global(), []jsonObj{chat("new")}},
		{"GET", p.globalCmd(globalID), nil},
		{"PATCH", p.globalCmd(globalID), jsonObj{"description": "x"}},
		{"DELETE", p.globalCmd(globalID), nil},
		{"GET", p.guildCmds(), nil},
		{"POST", p.guildCmds(), chat("new")},
		{"PUT", p.guildCmds(), []jsonObj{chat("new")}},
		{"GET", p.guildCmd(guildID), nil},
		{"PATCH", p.guildCmd(guildID), jsonObj{"description": "x"}},
		{"DELETE", p.guildCmd(guildID), nil},
		{"GET", p.allPerms(), nil},
		{"GET", p.cmdPerms(guildID), nil},
		{"PUT", p.cmdPerms(guildID), perms},
		{"PUT", p.allPerms(), []jsonObj{}},
	}
}

func (ep endpoint) String() string { return ep.method + " " + ep.path }

func (ep endpoint) guildRoute() bool { return strings.Contains(ep.path, "/guilds/") }

func (ep endpoint) permsPut() bool {
	return ep.method == "PUT" && strings.HasSuffix(ep.path, "/permissions") && !strings.HasSuffix(ep.path, "/commands/permissions")
}

func (ep endpoint) batchPut() bool {
	return ep.method == "PUT" && strings.HasSuffix(ep.path, "/commands/permissions")
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g := str(create(t, e, p.global(), e.Bot(), chat("g")), "id")
	l := str(create(t, e, p.guildCmds(), e.Bot(), chat("l")), "id")
	snapG, snapL := snapshot(t, e, p.global()), snapshot(t, e, p.guildCmds())

	// An expired Bearer token of the owner.
	expired := "expired-token-0123456789abcdefg"
	if err := e.Store.CreateToken(context.Background(), store.Token{Hash: auth.Hash(expired), Kind: store.TokenBearer,
		ApplicationID: mustID(t, e.App.ApplicationID), UserID: mustID(t, e.App.OwnerUserID),
		Scopes:    []string{auth.ScopeCommandsUpdate, auth.ScopeCommandsPermissionsUpdate},
		ExpiresAt: time.Now().Add(-time.Minute), CreatedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{
		"missing":                   "",
		"scheme only":               "Bot",
		"scheme and blank":          "Bot    ",
		"unknown bot token":         "Bot " + e.App.BotToken + "x",
		"bare bot token":            e.App.BotToken,
		"unknown scheme":            "Token " + e.App.BotToken,
		"basic":                     "Basic " + base64.StdEncoding.EncodeToString([]byte(e.App.ClientID+":"+e.App.ClientSecret)),
		"garbage":                   "!!!garbage!!!",
		"garbage bearer":            "Bearer garbage",
		"bearer scheme, bot token":  "Bearer " + e.App.BotToken,
		"bot scheme, bearer token":  "Bot " + e.App.OwnerBearerToken,
		"client secret as a token":  "Bearer " + e.App.ClientSecret,
		"expired bearer":            "Bearer " + expired,
		"another app's bot, broken": "Bot " + strings.ToUpper(e.App.BotToken),
	}
	for name, h := range headers {
		t.Run(name, func(t *testing.T) {
			for _, ep := range endpointsOf(p, g, l) {
				hdr := map[string]string{"Content-Type": "application/json"}
				if h != "" {
					hdr["Authorization"] = h
				}
				var body []byte
				if ep.body != nil {
					body = mustMarshal(ep.body)
				}
				r := send(t, e, ep.method, ep.path, hdr, body)
				if r.Status != 401 {
					t.Fatalf("%s: %s", ep, describe(r))
				}
				wantError(t, r, 401, bodyUnauthorized)
			}
		})
	}
	// The scheme word is case-insensitive.
	mustDo(t, e, "GET", p.global(), "bot "+e.App.BotToken, nil, 200)
	mustDo(t, e, "GET", p.global(), "BEARER "+e.App.OwnerBearerToken, nil, 200)
	wantUnchanged(t, e, p.global(), snapG)
	wantUnchanged(t, e, p.guildCmds(), snapL)
}

// TestResourceErrors: unknown application, unknown guild, guild without
// the app, and malformed path ids, on every endpoint they apply to.
func TestResourceErrors(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	g := str(create(t, e, p.global(), e.Bot(), chat("g")), "id")
	l := str(create(t, e, p.guildCmds(), e.Bot(), chat("l")), "id")
	owner := mustID(t, e.App.OwnerUserID)
	bare := newGuild(t, e, owner, 0)
	// Installed, but with neither applications.commands nor bot.
	webhookOnly := newGuild(t, e, owner, 0)
	if err := e.API.Store().Install(context.Background(), store.Installation{GuildID: mustID(t, webhookOnly),
		ApplicationID: mustID(t, e.App.ApplicationID), Scopes: []string{"webhook.incoming"}}); err != nil {
		t.Fatal(err)
	}
	// Installed with applications.commands only: enough.
	commandsOnly := newGuild(t, e, owner, 0)
	if err := e.API.Store().Install(context.Background(), store.Installation{GuildID: mustID(t, commandsOnly),
		ApplicationID: mustID(t, e.App.ApplicationID), Scopes: []string{"applications.commands"}}); err != nil {
		t.Fatal(err)
	}

	authFor := func(ep endpoint) string {
		if ep.permsPut() {
			return e.Owner()
		}
		return e.Bot()
	}
	check := func(t *testing.T, eps []endpoint, filter func(endpoint) bool, status int, body string) {
		t.Helper()
		for _, ep := range eps {
			if !filter(ep) {
				continue
			}
			r := mustDo(t, e, ep.method, ep.path, authFor(ep), ep.body, status)
			wantError(t, r, status, body)
		}
	}
	notBatch := func(ep endpoint) bool { return !ep.batchPut() }
	guildOnly := func(ep endpoint) bool { return ep.guildRoute() && !ep.batchPut() }

	t.Run("unknown application", func(t *testing.T) {
		q := p
		q.app = "1234567890123456789"
		check(t, endpointsOf(q, g, l), notBatch, 404, bodyUnknownApp)
	})
	t.Run("unknown guild", func(t *testing.T) {
		check(t, endpointsOf(p.withGuild("1234567890123456789"), g, l), guildOnly, 404, bodyUnknownGuild)
	})
	t.Run("app not installed", func(t *testing.T) {
		check(t, endpointsOf(p.withGuild(bare), g, l), guildOnly, 403, bodyMissingAccess)
	})
	t.Run("installed without applications.commands", func(t *testing.T) {
		check(t, endpointsOf(p.withGuild(webhookOnly), g, l), guildOnly, 403, bodyMissingAccess)
	})
	t.Run("installed with applications.commands only", func(t *testing.T) {
		mustDo(t, e, "POST", p.withGuild(commandsOnly).guildCmds(), e.Bot(), chat("ok"), 201)
	})
	t.Run("installed with bot only (which includes applications.commands)", func(t *testing.T) {
		botOnly := newGuild(t, e, owner, 0)
		if err := e.API.Store().Install(context.Background(), store.Installation{GuildID: mustID(t, botOnly),
			ApplicationID: mustID(t, e.App.ApplicationID), Scopes: []string{"bot"}}); err != nil {
			t.Fatal(err)
		}
		mustDo(t, e, "POST", p.withGuild(botOnly).guildCmds(), e.Bot(), chat("ok"), 201)
	})
	for _, bad := range []string{"abc", "-1", "01", "1.5", "18446744073709551616", "１２３"} {
		t.Run("application_id "+bad, func(t *testing.T) {
			q := p
			q.app = bad
			check(t, endpointsOf(q, g, l), notBatch, 400,
				formError(leaf{"application_id", "NUMBER_TYPE_COERCE", notSnowflake(bad)}))
		})
		t.Run("guild_id "+bad, func(t *testing.T) {
			check(t, endpointsOf(p.withGuild(bad), g, l), guildOnly, 400,
				formError(leaf{"guild_id", "NUMBER_TYPE_COERCE", notSnowflake(bad)}))
		})
	}
	t.Run("command_id", func(t *testing.T) {
		for _, ep := range endpointsOf(p, "x1", "x1") {
			if !strings.Contains(ep.path, "/x1") {
				continue
			}
			r := mustDo(t, e, ep.method, ep.path, authFor(ep), ep.body, 400)
			wantError(t, r, 400, formError(leaf{"command_id", "NUMBER_TYPE_COERCE", notSnowflake("x1")}))
		}
	})
}

func TestBotTokenShape(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, c := range []bootstrap.Credentials{e.App, e.NewApp(bootstrap.AppOptions{Name: "second"})} {
		parts := strings.Split(c.BotToken, ".")
		if len(parts) != 3 {
			t.Fatalf("bot token %q: %d segments", c.BotToken, len(parts))
		}
		head, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(parts[0], "="))
		if err != nil {
			t.Fatalf("first segment %q: %v", parts[0], err)
		}
		if string(head) != c.ApplicationID {
			t.Fatalf("first segment decodes to %q, want the application id %s", head, c.ApplicationID)
		}
	}
}

// ---- client credentials ----

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)

	tokenURL := "/api/v10/oauth2/token"
	var tokens []string
	t.Run("basic auth", func(t *testing.T) {
		r := postForm(t, e, tokenURL, map[string][]string{"grant_type": {"client_credentials"},
			"scope": {"applications.commands.update identify"}}, e.App.ClientID, e.App.ClientSecret)
		wantStatus(t, r, 200)
		m := decodeObj(t, r)
		if m["token_type"] != "Bearer" || m["expires_in"] != 604800.0 || m["scope"] != "applications.commands.update identify" ||
			len(str(m, "access_token")) < 20 {
			t.Fatalf("token response %s", r.Body)
		}
		if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("headers %v", r.Header)
		}
		tokens = append(tokens, "Bearer "+str(m, "access_token"))
	})
	t.Run("form credentials", func(t *testing.T) {
		r := postForm(t, e, "/api/oauth2/token", map[string][]string{"grant_type": {"client_credentials"},
			"scope": {"applications.commands.update"}, "client_id": {e.App.ClientID}, "client_secret": {e.App.ClientSecret}}, "", "")
		wantStatus(t, r, 200)
		tokens = append(tokens, "Bearer "+str(decodeObj(t, r), "access_token"))
	})
	if len(tokens) != 2 {
		t.FailNow()
	}
	for i, tok := range tokens {
		// Create, edit, bulk-overwrite and delete, global and guild.
		name := []string{"basic", "form"}[i]
		c := create(t, e, p.global(), tok, chat(name))
		mustDo(t, e, "PATCH", p.globalCmd(str(c, "id")), tok, jsonObj{"description": "edited"}, 200)
		create(t, e, p.guildCmds(), tok, chat(name))
		res := decodeList(t, mustDo(t, e, "PUT", p.global(), tok, []jsonObj{chat(name), chat(name + "-2")}, 200))
		mustDo(t, e, "PUT", p.guildCmds(), tok, []jsonObj{chat(name + "-3")}, 200)
		mustDo(t, e, "DELETE", p.globalCmd(str(res[1], "id")), tok, nil, 204)
		mustDo(t, e, "GET", p.global(), tok, nil, 200)
		mustDo(t, e, "GET", p.allPerms(), tok, nil, 200)
	}

	// identify only: may read, not write.
	ro := clientCredentials(t, e, e.App, "identify")
	c := create(t, e, p.global(), e.Bot(), chat("keep"))
	snap := snapshot(t, e, p.global())
	mustDo(t, e, "GET", p.global(), ro, nil, 200)
	mustDo(t, e, "GET", p.globalCmd(str(c, "id")), ro, nil, 200)
	mustDo(t, e, "GET", p.guildCmds(), ro, nil, 200)
	for _, w := range []endpoint{
		{"POST", p.global(), chat("nope")},
		{"PUT", p.global(), []jsonObj{chat("nope")}},
		{"PATCH", p.globalCmd(str(c, "id")), jsonObj{"description": "nope"}},
		{"DELETE", p.globalCmd(str(c, "id")), nil},
		{"POST", p.guildCmds(), chat("nope")},
		{"PUT", p.guildCmds(), []jsonObj{}},
	} {
		wantError(t, mustDo(t, e, w.method, w.path, ro, w.body, 401), 401, bodyMissingScope)
	}
	wantUnchanged(t, e, p.global(), snap)
	// The owner's bootstrap token (identify + permissions) may not write commands either.
	wantError(t, mustDo(t, e, "POST", p.global(), e.Owner(), chat("nope"), 401), 401, bodyMissingScope)

	// Another app's client credentials are another app.
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	otherTok := clientCredentials(t, e, other, "applications.commands.update")
	wantError(t, mustDo(t, e, "POST", p.global(), otherTok, chat("x"), 403), 403, bodyNotYourApp)
	mustDo(t, e, "POST", pathsFor("/api/v10", other).global(), otherTok, chat("x"), 201)
}

func TestTokenEndpointErrors(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	cc := map[string][]string{"grant_type": {"client_credentials"}, "scope": {"identify"}}
	form := func(kv ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = []string{kv[i+1]}
		}
		return m
	}
	cases := []struct {
		name       string
		form       map[string][]string
		user, pass string
		status     int
		errCode    string
	}{
		{"wrong secret", cc, e.App.ClientID, "nope", 401, "invalid_client"},
		{"unknown client", cc, "1234567890123456789", e.App.ClientSecret, 401, "invalid_client"},
		{"client id not a snowflake", cc, "abc", e.App.ClientSecret, 401, "invalid_client"},
		{"no credentials", cc, "", "", 401, "invalid_client"},
		{"wrong secret in the form", form("grant_type", "client_credentials", "scope", "identify",
			"client_id", e.App.ClientID, "client_secret", "nope"), "", "", 401, "invalid_client"},
		{"unsupported grant", form("grant_type", "password", "scope", "identify"), e.App.ClientID, e.App.ClientSecret, 400, "unsupported_grant_type"},
		{"unknown authorization code", form("grant_type", "authorization_code", "code", "x"), e.App.ClientID, e.App.ClientSecret, 400, "invalid_grant"},
		{"missing grant", form("scope", "identify"), e.App.ClientID, e.App.ClientSecret, 400, "invalid_request"},
		{"permissions scope not allowed", form("grant_type", "client_credentials", "scope", "applications.commands.permissions.update"),
			e.App.ClientID, e.App.ClientSecret, 400, "invalid_scope"},
		{"bot scope not allowed", form("grant_type", "client_credentials", "scope", "identify bot"), e.App.ClientID, e.App.ClientSecret, 400, "invalid_scope"},
		{"unknown scope", form("grant_type", "client_credentials", "scope", "nonsense"), e.App.ClientID, e.App.ClientSecret, 400, "invalid_scope"},
		{"no scope", form("grant_type", "client_credentials"), e.App.ClientID, e.App.ClientSecret, 400, "invalid_scope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := postForm(t, e, "/api/v10/oauth2/token", c.form, c.user, c.pass)
			wantStatus(t, r, c.status)
			m := decodeObj(t, r)
			if m["error"] != c.errCode {
				t.Fatalf("error %v, want %s (%s)", m["error"], c.errCode, r.Body)
			}
			if _, ok := m["access_token"]; ok {
				t.Fatalf("token issued: %s", r.Body)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if c.status == 401 && r.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("401 without WWW-Authenticate")
			}
		})
	}
	// Wrong method on the token route.
	wantError(t, mustDo(t, e, "GET", "/api/v10/oauth2/token", "", nil, http.StatusMethodNotAllowed), 405, bodyMethod)
}

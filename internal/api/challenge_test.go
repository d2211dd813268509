package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/internal/testtool/wwwauth"
)

// noChallenge marks an answer that must carry no WWW-Authenticate.
const noChallenge = "-"

// wantBearerChallenge reads r's WWW-Authenticate as an RFC 7235 client
// does and checks it: absent when wantError is noChallenge, otherwise one
// Bearer challenge of realm slashd with that error ("" for none, and then
// no description) and scope.
func wantBearerChallenge(t testing.TB, r testenv.Response, wantError, wantScope string) {
	t.Helper()
	values := r.Header.Values("WWW-Authenticate")
	if wantError == noChallenge {
		if len(values) != 0 {
			t.Errorf("%d with WWW-Authenticate %q, want none", r.Status, values)
		}
		return
	}
	if len(values) != 1 {
		t.Fatalf("%d with WWW-Authenticate %q, want one Bearer challenge", r.Status, values)
	}
	cs, err := wwwauth.Parse(values[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || !strings.EqualFold(cs[0].Scheme, "Bearer") {
		t.Fatalf("WWW-Authenticate %q: want one Bearer challenge", values[0])
	}
	p := cs[0].Params
	if p["realm"] != "slashd" || p["error"] != wantError || p["scope"] != wantScope {
		t.Errorf("WWW-Authenticate %q: want realm slashd, error %q, scope %q", values[0], wantError, wantScope)
	}
	if (p["error_description"] != "") != (wantError != "") {
		t.Errorf("WWW-Authenticate %q: a description comes with an error, and only then", values[0])
	}
}

// TestBearerChallengesOnAppRoutes: the commands API's 401s carry RFC
// 6750's challenge when a Bearer token failed (invalid_token) or no
// credential slashd reads was sent (no error); a bot token's refusal is
// the real service's, without one. The bodies are unchanged.
func TestBearerChallengesOnAppRoutes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	cmd := str(create(t, e, p.guildCmds(), e.Bot(), chat("c")), "id")
	expired := "expired-token-0123456789abcdefg"
	if err := e.Store.CreateToken(context.Background(), store.Token{Hash: auth.Hash(expired), Kind: store.TokenBearer,
		ApplicationID: mustID(t, e.App.ApplicationID), UserID: mustID(t, e.App.OwnerUserID),
		Scopes:    []string{auth.ScopeCommandsUpdate, auth.ScopeIdentify},
		ExpiresAt: time.Now().Add(-time.Minute), CreatedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	routes := []endpoint{
		{"GET", p.global(), nil},
		{"POST", p.guildCmds(), chat("new")},
		{"PUT", p.cmdPerms(cmd), permsBody()},
		{"GET", "/api/v10/users/@me", nil},
		{"GET", "/api/v9/applications/@me", nil},
		{"GET", "/api/gateway/bot", nil},
	}
	for _, c := range []struct {
		name, authz string
		wantError   string
	}{
		{"no credential", "", ""},
		{"unknown scheme", "Token " + e.App.BotToken, ""},
		{"basic", "Basic dXNlcjpwYXNz", ""},
		{"bare bot token", e.App.BotToken, ""},
		{"unknown Bearer token", "Bearer garbage", auth.ChallengeInvalidToken},
		{"expired Bearer token", "Bearer " + expired, auth.ChallengeInvalidToken},
		{"Bearer scheme alone", "Bearer", auth.ChallengeInvalidToken},
		{"Bearer scheme, bot token", "bearer " + e.App.BotToken, auth.ChallengeInvalidToken},
		{"unknown bot token", "Bot garbage", noChallenge},
		{"Bot scheme alone", "Bot", noChallenge},
		{"Bot scheme, Bearer token", "Bot " + e.App.OwnerBearerToken, noChallenge},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, ep := range routes {
				r := mustDo(t, e, ep.method, ep.path, c.authz, ep.body, http.StatusUnauthorized)
				wantError(t, r, http.StatusUnauthorized, bodyUnauthorized)
				wantBearerChallenge(t, r, c.wantError, "")
			}
		})
	}
}

// TestBearerInsufficientScope: a valid Bearer token without the scope a
// route needs gets the real service's refusal (status and body
// unchanged) with RFC 6750's insufficient_scope challenge naming the
// scope; with the scope, or with a bot token, there is no challenge.
func TestBearerInsufficientScope(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := v10(e)
	cmd := str(create(t, e, p.guildCmds(), e.Bot(), chat("c")), "id")
	bearer := func(scopes string) string {
		t.Helper()
		return "Bearer " + str(adminObj(t, e, "POST", "/users/"+e.App.OwnerUserID+"/tokens", jsonObj{"type": "bearer",
			"application_id": e.App.ApplicationID, "scopes": scopes}, 201), "access_token")
	}
	// The owner is the guild's owner, so may edit permissions.
	readOnly := bearer("applications.commands")
	everything := bearer("identify applications.commands.update applications.commands.permissions.update")
	for _, c := range []struct {
		name, authz string
		ep          endpoint
		status      int
		body        string // "" for a success
		wantError   string
		wantScope   string
	}{
		{"create without update", readOnly, endpoint{"POST", p.global(), chat("nope")},
			401, bodyMissingScope, auth.ChallengeInsufficientScope, auth.ScopeCommandsUpdate},
		{"overwrite without update", readOnly, endpoint{"PUT", p.guildCmds(), []jsonObj{}},
			401, bodyMissingScope, auth.ChallengeInsufficientScope, auth.ScopeCommandsUpdate},
		{"delete without update", readOnly, endpoint{"DELETE", p.guildCmd(cmd), nil},
			401, bodyMissingScope, auth.ChallengeInsufficientScope, auth.ScopeCommandsUpdate},
		{"permissions without permissions.update", readOnly, endpoint{"PUT", p.cmdPerms(cmd), permsBody()},
			401, bodyMissingScope, auth.ChallengeInsufficientScope, auth.ScopeCommandsPermissionsUpdate},
		{"current user without identify", readOnly, endpoint{"GET", "/api/v10/users/@me", nil},
			401, bodyUnauthorized, auth.ChallengeInsufficientScope, auth.ScopeIdentify},
		{"read with applications.commands", readOnly, endpoint{"GET", p.guildCmds(), nil}, 200, "", noChallenge, ""},
		{"create with update", everything, endpoint{"POST", p.global(), chat("yes")}, 201, "", noChallenge, ""},
		{"permissions with permissions.update", everything, endpoint{"PUT", p.cmdPerms(cmd), permsBody()}, 200, "", noChallenge, ""},
		{"current user with identify", everything, endpoint{"GET", "/api/v10/users/@me", nil}, 200, "", noChallenge, ""},
		// Bot tokens keep the real service's answers.
		{"bot edits permissions", e.Bot(), endpoint{"PUT", p.cmdPerms(cmd), permsBody()},
			403, bodyBotsCannotUse, noChallenge, ""},
		{"bot creates", e.Bot(), endpoint{"POST", p.global(), chat("bot")}, 201, "", noChallenge, ""},
		{"bot reads its user", e.Bot(), endpoint{"GET", "/api/v10/users/@me", nil}, 200, "", noChallenge, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustDo(t, e, c.ep.method, c.ep.path, c.authz, c.ep.body, c.status)
			if c.body != "" {
				wantError(t, r, c.status, c.body)
			}
			wantBearerChallenge(t, r, c.wantError, c.wantScope)
		})
	}
}

// TestBearerChallengeNotOnAddressRefusal: once an address has used up
// its budget of authentication failures, its 429 carries no challenge
// (it is the rate limit's answer, not the credential's), on the API and
// on userinfo alike.
func TestBearerChallengeNotOnAddressRefusal(t *testing.T) {
	t.Parallel()
	const budget = 2
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	e.Clock.Freeze()
	for i, req := range []credentialed{
		{name: "API", method: "GET", path: v10(e).global(), auth: "Bearer " + randomHex(t)},
		{name: "userinfo", method: "GET", path: "/api/v10/oauth2/userinfo", auth: "Bearer " + randomHex(t)},
	} {
		t.Run(req.name, func(t *testing.T) {
			client := clientFrom(t, []string{"127.0.0.21", "127.0.0.22"}[i])
			for range budget {
				r := req.send(t, client, e.URL)
				wantStatus(t, r, 401)
				wantBearerChallenge(t, r, auth.ChallengeInvalidToken, "")
			}
			r := req.send(t, client, e.URL)
			wantAddressRefused(t, r, budget)
			wantBearerChallenge(t, r, noChallenge, "")
		})
	}
}

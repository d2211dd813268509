package oauth_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/testenv"
)

// oauthWorld is a test world with an OAuth2 app (confidential, with
// confRedirect registered) and a user alice who can sign in to the
// consent page.
type oauthWorld struct {
	name, appID, secret, aliceID, login string
}

func newOAuthWorld(t *testing.T, e *testenv.Env, name string) oauthWorld {
	t.Helper()
	spec := fmt.Sprintf(`{"name": %q, "users": {"alice": {}}, "apps": {"game": {}}}`, name)
	r := e.Do("POST", "/admin/v1/worlds", e.AdminAuth(), json.RawMessage(spec))
	var obj struct {
		Users map[string]struct {
			ID string `json:"id"`
		} `json:"users"`
		Apps map[string]struct {
			ID           string `json:"id"`
			ClientSecret string `json:"client_secret"`
		} `json:"apps"`
	}
	r.JSON(t, &obj)
	if r.Status != http.StatusCreated || obj.Apps["game"].ClientSecret == "" {
		t.Fatalf("create world %s: %d %s", name, r.Status, r.Body)
	}
	w := oauthWorld{name: name, appID: obj.Apps["game"].ID, secret: obj.Apps["game"].ClientSecret,
		aliceID: obj.Users["alice"].ID, login: name + "-alice"}
	if r := e.Do("PUT", "/admin/v1/applications/"+w.appID+"/oauth", e.AdminAuth(),
		map[string]any{"redirect_uris": []string{confRedirect}}); r.Status != http.StatusOK {
		t.Fatalf("OAuth2 settings: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PUT", "/admin/v1/users/"+w.aliceID+"/login", e.AdminAuth(),
		map[string]any{"name": w.login, "password": alicePassword}); r.Status != http.StatusCreated {
		t.Fatalf("login: %d %s", r.Status, r.Body)
	}
	return w
}

// code has alice sign in and approve identify for the world's app on
// the consent page, and returns the code the redirect carries.
func (w oauthWorld) code(t *testing.T, e *testenv.Env) string {
	t.Helper()
	params := url.Values{"client_id": {w.appID}, "response_type": {"code"}, "redirect_uri": {confRedirect},
		"scope": {"identify"}, "state": {"st"}}
	a := newAgent(t, e.URL)
	consent := a.login(authPath("/api/v10", params), w.login, alicePassword)
	q := wantRedirect(t, a.submit(consent, "approve"), confRedirect, map[string]string{"state": "st"})
	if q.Get("code") == "" {
		t.Fatalf("no code in the redirect: %v", q)
	}
	return q.Get("code")
}

func (w oauthWorld) exchange(e *testenv.Env, form url.Values) testenv.Response {
	return e.PostForm(tokenPath, form, w.appID, w.secret)
}

func (w oauthWorld) advance(t *testing.T, e *testenv.Env, by string) {
	t.Helper()
	if r := e.Do("POST", "/admin/v1/worlds/"+w.name+"/clock", e.AdminAuth(), map[string]any{"advance": by}); r.Status != 200 {
		t.Fatalf("advance %s's clock: %d %s", w.name, r.Status, r.Body)
	}
}

// TestWorldClockMovesOAuth2: a test world's clock is its OAuth2 clock. A
// code of the world's app expires when the world's clock passes its 10
// minutes (invalid_grant, as a code 10 real minutes old), while another
// world's code of the same age is exchanged; a code issued after the
// clock moved lives its 10 minutes from the world's now. The access
// token expires on the world's clock at /oauth2/@me as at the API, and
// what a refresh or the admin API gives once the clock moved a week is
// valid, not born expired.
func TestWorldClockMovesOAuth2(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			if backend == "postgres" {
				e = onPostgres(t, e)
			}
			testWorldClockMovesOAuth2(t, e)
		})
	}
}

// onPostgres is a node of e's server on a PostgreSQL store of its own,
// with an admin token there.
func onPostgres(t *testing.T, e *testenv.Env) *testenv.Env {
	t.Helper()
	pg, err := postgres.Open(t.Context(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	n := e.NodeOn(pg)
	if n.Admin, err = bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: pg, IDs: e.IDs, Rand: rand.Reader,
		Now: e.Clock.Now}); err != nil {
		t.Fatal(err)
	}
	return n
}

func testWorldClockMovesOAuth2(t *testing.T, e *testenv.Env) {
	a, b := newOAuthWorld(t, e, "oauth-moved"), newOAuthWorld(t, e, "oauth-kept")
	codeA, codeB := a.code(t, e), b.code(t, e)

	a.advance(t, e, "10m")
	wantOAuthError(t, a.exchange(e, codeForm(codeA, confRedirect, "")), http.StatusBadRequest, "invalid_grant",
		"The authorization code has expired")
	tokB := exchangeOK(t, b, e, codeForm(codeB, confRedirect, ""))

	// Issued now, on the world's clock: 10 minutes from the world's now.
	tokA := exchangeOK(t, a, e, codeForm(a.code(t, e), confRedirect, ""))
	wantStatus(t, e, "/api/v10/oauth2/@me", tokA.AccessToken, 200)

	a.advance(t, e, "168h")
	for _, path := range []string{"/api/v10/oauth2/@me", "/api/v10/users/@me"} {
		wantStatus(t, e, path, tokA.AccessToken, 401)
		wantStatus(t, e, path, tokB.AccessToken, 200)
	}
	refreshed := exchangeOK(t, a, e, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tokA.RefreshToken}})
	var minted struct {
		AccessToken string `json:"access_token"`
	}
	r := e.Do("POST", "/admin/v1/users/"+a.aliceID+"/tokens", e.AdminAuth(),
		map[string]any{"type": "bearer", "application_id": a.appID, "scopes": "identify"})
	r.JSON(t, &minted)
	if r.Status != http.StatusCreated {
		t.Fatalf("mint: %d %s", r.Status, r.Body)
	}
	for _, access := range []string{refreshed.AccessToken, minted.AccessToken} {
		for _, path := range []string{"/api/v10/oauth2/@me", "/api/v10/users/@me"} {
			wantStatus(t, e, path, access, 200)
		}
	}
}

func exchangeOK(t *testing.T, w oauthWorld, e *testenv.Env, form url.Values) tokens {
	t.Helper()
	r := w.exchange(e, form)
	var tok tokens
	r.JSON(t, &tok)
	if r.Status != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("%s: token request %v: %d %s", w.name, form, r.Status, r.Body)
	}
	return tok
}

func wantStatus(t *testing.T, e *testenv.Env, path, access string, status int) {
	t.Helper()
	if r := e.Do("GET", path, "Bearer "+access, nil); r.Status != status {
		t.Errorf("GET %s: %d %s, want %d", path, r.Status, r.Body, status)
	}
}

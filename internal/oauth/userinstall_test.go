package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// TestConsentUserInstall: integration_type=1 with applications.commands
// installs the app to the user's account through the consent page, the
// grant being the installation's: revoking it uninstalls. The app must
// support USER_INSTALL, a user install takes no bot, and a guild install
// of a user-install-only app is refused the same way.
func TestConsentUserInstall(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t)
	a := newAgent(t, w.e.URL)
	ctx := context.Background()
	newApp := func(t *testing.T, name string) (client, url.Values) {
		t.Helper()
		c := clientOf(t, w.e.NewApp(bootstrap.AppOptions{Name: name}))
		w.e.SetOAuth(c.id, true, "http://127.0.0.1/callback")
		p := w.pubParams("identify applications.commands")
		p.Set("client_id", c.id.String())
		p.Set("integration_type", "1")
		return c, p
	}
	setConfig := func(t *testing.T, app client, config string) {
		t.Helper()
		var body map[string]any
		if err := json.Unmarshal([]byte(`{"integration_types_config":`+config+`}`), &body); err != nil {
			t.Fatal(err)
		}
		if r := w.e.Do("PATCH", "/admin/v1/applications/"+app.id.String(), w.e.AdminAuth(), body); r.Status != http.StatusOK {
			t.Fatalf("PATCH config: %d %s", r.Status, r.Body)
		}
	}
	installedBy := func(app client) (snowflake.ID, bool) {
		t.Helper()
		in, err := w.e.Store.UserInstallation(ctx, w.alice.ID, app.id)
		if errors.Is(err, store.ErrNotFound) {
			return 0, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return in.GrantID, true
	}
	a.login(authPath("/api/v10", w.pubParams("identify")), "alice", alicePassword)
	consentFor := func(t *testing.T, path string) page {
		t.Helper()
		p := a.get(path)
		if p.status != http.StatusOK || !p.isConsent() {
			t.Fatalf("%d, want the consent page:\n%s", p.status, p.body)
		}
		wantSecurityHeaders(t, p)
		return p
	}

	t.Run("approve installs to the account, revoking uninstalls", func(t *testing.T) {
		app, params := newApp(t, "Pocket Tool")
		c := consentFor(t, authPath("/api/v10", params))
		for _, want := range []string{"Add to my apps", "wants to be added to your account",
			"This installs Pocket Tool to your account",
			"<li>" + html.EscapeString(oauth.DescribeUserInstallScopes([]string{"applications.commands"})[0]) + "</li>"} {
			if !strings.Contains(c.body, want) {
				t.Errorf("the consent page lacks %q:\n%s", want, c.body)
			}
		}
		if strings.Contains(c.body, "<select") || strings.Contains(c.body, "Add to server") {
			t.Errorf("a guild picker on a user install:\n%s", c.body)
		}
		if _, ok := installedBy(app); ok {
			t.Fatal("installed before approval")
		}
		q := wantRedirect(t, a.submit(c, "approve"), loopbackPort,
			map[string]string{"state": "st4te", "guild_id": "", "permissions": ""})
		grantID, ok := installedBy(app)
		if !ok || grantID == 0 {
			t.Fatalf("not installed to alice's account after approval (grant %d)", grantID)
		}
		if r := w.e.Do("GET", "/admin/v1/users/"+w.alice.ID.String()+"/installations", w.e.AdminAuth(), nil); r.Status != 200 ||
			!strings.Contains(string(r.Body), `"application_id":"`+app.id.String()+`"`) {
			t.Errorf("admin list of alice's installations: %d %s", r.Status, r.Body)
		}
		r := w.e.Do("GET", "/api/v10/applications/@me", "Bot "+app.creds.BotToken, nil)
		if !strings.Contains(string(r.Body), `"approximate_user_install_count":1`) {
			t.Errorf("application counts: %s", r.Body)
		}
		tok := w.h.exchange(t, codeForm(q.Get("code"), loopbackPort, rfcVerifier, "client_id", app.id.String()), "", "")
		if !strings.Contains(tok.Scope, "applications.commands") {
			t.Errorf("token scope %q", tok.Scope)
		}
		// Revoking the token revokes its grant, which uninstalls.
		rv := w.h.post("/api/v10/oauth2/token/revoke", url.Values{"token": {tok.AccessToken}, "client_id": {app.id.String()}}, "", "")
		if rv.Status != http.StatusOK {
			t.Fatalf("revoke: %d %s", rv.Status, rv.Body)
		}
		if g, ok := installedBy(app); ok {
			t.Fatalf("still installed (grant %d) after its grant was revoked", g)
		}
	})

	t.Run("cancel installs nothing", func(t *testing.T) {
		app, params := newApp(t, "Declined Tool")
		c := consentFor(t, authPath("/api/v10", params))
		wantRedirect(t, a.submit(c, "cancel"), loopbackPort, map[string]string{"error": "access_denied"})
		if _, ok := installedBy(app); ok {
			t.Fatal("installed after Cancel")
		}
	})

	t.Run("prompt=none still shows the page", func(t *testing.T) {
		app, params := newApp(t, "Again Tool")
		wantRedirect(t, a.submit(consentFor(t, authPath("/api/v10", params)), "approve"), loopbackPort, map[string]string{"state": "st4te"})
		c := consentFor(t, authPath("/api/v10", params, "prompt", "none"))
		if !strings.Contains(c.body, "Add to my apps") {
			t.Errorf("not the user install page:\n%s", c.body)
		}
		first, _ := installedBy(app)
		wantRedirect(t, a.submit(c, "approve"), loopbackPort, map[string]string{"state": "st4te"})
		if again, ok := installedBy(app); !ok || again == first {
			t.Errorf("the second install's grant %d (first %d, installed %v): want the new grant", again, first, ok)
		}
	})

	t.Run("without applications.commands nothing is installed", func(t *testing.T) {
		app, params := newApp(t, "Identify Only")
		params.Set("scope", "identify")
		c := consentFor(t, authPath("/api/v10", params))
		if strings.Contains(c.body, "Add to my apps") {
			t.Errorf("an install notice without applications.commands:\n%s", c.body)
		}
		wantRedirect(t, a.submit(c, "approve"), loopbackPort, map[string]string{"state": "st4te"})
		if _, ok := installedBy(app); ok {
			t.Fatal("installed without applications.commands")
		}
	})

	t.Run("refusals", func(t *testing.T) {
		guildOnly, params := newApp(t, "Server Only")
		setConfig(t, guildOnly, `{"0": null}`)
		userOnly, userParams := newApp(t, "Account Only")
		setConfig(t, userOnly, `{"1": null}`)
		for _, c := range []struct {
			name, path, code, descr string
		}{
			{"user install of a guild-only app", authPath("/api/v10", params), "invalid_request", `Unsupported "integration_type"`},
			{"guild install of a user-only app", authPath("/api/v10", userParams, "integration_type", "0"), "invalid_request",
				`Unsupported "integration_type"`},
			{"default (guild) install of a user-only app", authPath("/api/v10", userParams, "integration_type", ""),
				"invalid_request", `Unsupported "integration_type"`},
			{"bot in a user install", authPath("/api/v10", userParams, "scope", "applications.commands bot"), "invalid_scope",
				`Scope "bot" cannot be used with "integration_type" 1`},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantRedirect(t, a.get(c.path), loopbackPort,
					map[string]string{"error": c.code, "error_description": c.descr, "state": "st4te"})
			})
		}
		// A form posted for a request the app stopped supporting since the
		// page was shown is refused too, and installs nothing.
		later, laterParams := newApp(t, "Changed Mind")
		c := consentFor(t, authPath("/api/v10", laterParams))
		setConfig(t, later, `{"0": null}`)
		wantRedirect(t, a.submit(c, "approve"), loopbackPort,
			map[string]string{"error": "invalid_request", "error_description": `Unsupported "integration_type"`})
		for _, app := range []client{guildOnly, userOnly, later} {
			if _, ok := installedBy(app); ok {
				t.Errorf("app %s installed after a refusal", app.id)
			}
		}
		// The user-only app installs to the account as usual.
		wantRedirect(t, a.submit(consentFor(t, authPath("/api/v10", userParams)), "approve"), loopbackPort,
			map[string]string{"state": "st4te"})
		if _, ok := installedBy(userOnly); !ok {
			t.Error("a user-install-only app was not installed")
		}
	})
}

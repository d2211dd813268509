package browsertest

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/sdk/authorize"
)

// TestConsentUserInstall: the SDK's IntegrationType UserInstall asks for
// a user install; the real consent page says it adds the app to the
// user's account, approving installs it there (no guild is picked), and
// revoking the token through the SDK uninstalls it.
func TestConsentUserInstall(t *testing.T) {
	w := newWorld(t)
	ctx := browser(t)
	bg := context.Background()

	authURL, verifier, done := startAuthorize(t, w, "identify applications.commands",
		func(a *authorize.AuthorizationArgs) { a.SetIntegrationType(authorize.Some(authorize.UserInstall)) })
	if !strings.Contains(authURL, "integration_type=1") {
		t.Fatalf("the SDK's URL lacks integration_type=1: %s", authURL)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "alice"),
		chromedp.SendKeys(chromedp.ID("password"), w.password),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("user-install")),
	)
	if err != nil {
		t.Fatalf("drive the consent page: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	for _, want := range []string{"Puzzle Quest", "wants to be added to your account, Alice", "ADD TO MY APPS",
		"This installs Puzzle Quest to your account", "all your servers, DMs and group DMs"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "ADD TO SERVER") {
		t.Errorf("a guild picker on a user install:\n%s", text)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := screenshotPath(t, "consent-user-install.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("user install consent page screenshot: %s", path)
	if _, err := w.st.UserInstallation(bg, w.userID, w.appID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("installed before approval: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))); err != nil {
		t.Fatalf("approve: %v", err)
	}

	r := wait(t, done)
	if r.err != nil {
		t.Fatalf("Authorize: %v", r.err)
	}
	in, err := w.st.UserInstallation(bg, w.userID, w.appID)
	if err != nil || in.GrantID == 0 || !slices.Equal(in.Scopes, []string{"applications.commands"}) {
		t.Fatalf("after approval: installation %+v, %v", in, err)
	}
	// The app was installed to the account, in no guild.
	if insts, err := w.st.Installations(bg, w.guildID); err != nil || len(insts) != 0 {
		t.Fatalf("guild installations after a user install: %+v, %v", insts, err)
	}
	status, body := w.call(t, "GET", "/api/v10/applications/@me", "Bot "+w.app.BotToken, "")
	if status != 200 || !strings.Contains(body, `"approximate_user_install_count":1`) {
		t.Fatalf("application counts: %d %s", status, body)
	}
	tok, err := r.client.GetToken(bg, uint64(w.appID), r.res.Code, verifier, r.res.RedirectURI)
	if err != nil {
		t.Fatalf("GetToken: %v", err)
	}
	if !strings.Contains(tok.Scope, "applications.commands") {
		t.Fatalf("token scope %q", tok.Scope)
	}
	// Revoking the token revokes the grant that installed the app.
	if err := r.client.RevokeToken(bg, uint64(w.appID), tok.AccessToken); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	if in, err := w.st.UserInstallation(bg, w.userID, w.appID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after revoking: installation %+v, %v", in, err)
	}
}

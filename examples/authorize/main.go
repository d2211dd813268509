// Command authorize walks through slashd's OAuth2 authorization the way a
// game does with the Go SDK (github.com/slashd/slashd/sdk/authorize): it
// creates a PKCE verifier, opens the consent page in your browser, receives
// the redirect on a loopback listener, exchanges the code for a token, and
// calls GET /api/v10/oauth2/@me with that token.
//
// Run it against a local slashd:
//
//	go run ./cmd/slashd serve                          # in another terminal
//	go run ./examples/authorize -app <application_id>  # e.g. -app $(jq -r .application_id slashd-data/bootstrap.json)
//
// The application must be a public client that allows the loopback
// redirect http://127.0.0.1/callback (any port is accepted on loopback); see
// docs/oauth2.md for how to configure an app. Log in and
// approve on the consent page, then come back to the terminal.
//
// The server's address comes from SLASHD_URL (default
// http://127.0.0.1:8080). Flags:
//
//	-app ID         application id (required)
//	-scopes LIST    scopes to request (default "openid sdk.social_layer")
//	-timeout D      how long to wait for the consent (default 5m)
//	-no-browser     only print the authorization URL, to open it yourself
//	-revoke         revoke the token at the end
//	-user-install   install the app to your account (IntegrationType
//	                UserInstall, integration_type=1); the scopes default to
//	                "identify applications.commands"
//
// With -user-install the consent page says it adds the app to your
// account ("Add to my apps"); approving installs it, and its commands
// follow you to all your servers, DMs and group DMs. The app must support
// user installs (its integration_types_config has "1"; bootstrapped apps
// do). Revoking the token (-revoke) uninstalls it again.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/slashd/slashd/sdk/authorize"
)

// userInstallScopes are what -user-install asks for by default: who you
// are, and the commands a user install adds to your account.
const userInstallScopes = "identify applications.commands"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, authorize.OpenBrowser)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "authorize:", err)
		os.Exit(1)
	}
}

// run is the whole program; openBrowser is the system browser opener, or a
// fake one in tests.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer,
	openBrowser func(string) error) error {
	fs := flag.NewFlagSet("authorize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	appID := fs.Uint64("app", 0, "application id (required)")
	scopes := fs.String("scopes", authorize.DefaultCommunicationScopes, "space-separated scopes to request")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the consent")
	noBrowser := fs.Bool("no-browser", false, "only print the authorization URL")
	revoke := fs.Bool("revoke", false, "revoke the token at the end")
	userInstall := fs.Bool("user-install", false, `install the app to your account (integration_type=1; scopes default to "`+
		userInstallScopes+`")`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	scopesSet := false
	fs.Visit(func(f *flag.Flag) { scopesSet = scopesSet || f.Name == "scopes" })
	if *userInstall && !scopesSet {
		*scopes = userInstallScopes
	}
	if *appID == 0 {
		fs.Usage()
		return errors.New("-app is required")
	}
	base := strings.TrimRight(getenv("SLASHD_URL"), "/")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}

	// The opener prints the URL first, so it can be opened by hand when no
	// browser starts (over SSH, in a container).
	opener := func(u string) error {
		fmt.Fprintf(stderr, "Open this URL to authorize the app:\n\n  %s\n\n", u)
		if *noBrowser {
			return nil
		}
		if err := openBrowser(u); err != nil {
			fmt.Fprintf(stderr, "(could not open a browser: %v)\n", err)
		}
		return nil
	}
	client := authorize.NewClient(base, authorize.WithBrowserOpener(opener))
	client.SetApplicationID(*appID)

	// 1. A PKCE pair: the challenge goes to the consent page, the verifier
	// to the token exchange.
	verifier, err := client.CreateAuthorizationCodeVerifier()
	if err != nil {
		return err
	}
	authArgs := authorize.NewAuthorizationArgs()
	authArgs.SetScopes(*scopes)
	authArgs.SetCodeChallenge(authorize.Some(verifier.Challenge))
	if *userInstall {
		// The installation context: the app goes to the user's account,
		// not to a server.
		authArgs.SetIntegrationType(authorize.Some(authorize.UserInstall))
	}

	// 2. Consent in the browser; the redirect comes back to a loopback
	// listener on an ephemeral port.
	fmt.Fprintf(stderr, "Waiting for the consent (up to %s, Ctrl-C to cancel)...\n", *timeout)
	actx, cancel := context.WithTimeout(ctx, *timeout)
	res, err := client.Authorize(actx, authArgs)
	cancel()
	var aerr *authorize.Error
	if errors.As(err, &aerr) && aerr.Kind == authorize.KindAborted {
		if aerr.OAuthError == "access_denied" {
			return errors.New("the consent was denied")
		}
		return fmt.Errorf("the authorization was cancelled: %w", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "authorized: redirect URI %s\n", res.RedirectURI)
	if *userInstall {
		fmt.Fprintln(stdout, "installed to your account: its commands are yours in all your servers, DMs and group DMs")
	}

	// 3. Exchange the code, with the verifier and the exact redirect URI.
	tok, err := client.GetToken(ctx, *appID, res.Code, verifier.Verifier, res.RedirectURI)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "token: type %s, scope %q, expires %s (in %ds), refresh token %t, id_token %t\n",
		tok.TokenType, tok.Scope, tok.Expiry.Format(time.RFC3339), tok.ExpiresIn, tok.RefreshToken != "", tok.IDToken != "")

	// 4. Use it.
	me, err := currentAuthorization(ctx, base, tok.AccessToken)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "GET /api/v10/oauth2/@me:\n%s\n", me)

	if *revoke {
		if err := client.RevokeToken(ctx, *appID, tok.AccessToken); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "token revoked")
	}
	return nil
}

// currentAuthorization calls GET /api/v10/oauth2/@me with a Bearer token and
// returns the JSON body, indented.
func currentAuthorization(ctx context.Context, base, accessToken string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v10/oauth2/@me", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /api/v10/oauth2/@me: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		return string(body), nil
	}
	return out.String(), nil
}

package authorize

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// newArgs returns args with the default scopes and a fresh PKCE challenge.
func newArgs(t *testing.T, c *Client) (AuthorizationArgs, AuthorizationCodeVerifier) {
	t.Helper()
	v, err := c.CreateAuthorizationCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthorizationArgs()
	a.SetScopes(c.GetDefaultCommunicationScopes())
	a.SetCodeChallenge(Some(v.Challenge))
	return a, v
}

var loopbackRE = regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/callback$`)

func TestAuthorizeLoopbackEndToEnd(t *testing.T) {
	f := newFakeServer(t)
	b := &browser{}
	c := NewClient(f.URL+"/", WithBrowserOpener(b.open))
	c.SetApplicationID(123)
	args, v := newArgs(t, c)
	args.SetNonce(Some("n-1"))
	args.SetIntegrationType(Some(UserInstall))

	res, err := c.Authorize(t.Context(), args)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	if !loopbackRE.MatchString(res.RedirectURI) {
		t.Errorf("RedirectURI = %q, want http://127.0.0.1:<port>/callback", res.RedirectURI)
	}
	if res.Code != "code-1" {
		t.Errorf("Code = %q", res.Code)
	}
	if len(res.State) != 43 || !verifierRE.MatchString(res.State) {
		t.Errorf("generated state %q: want 43 base64url characters", res.State)
	}

	// What the server got, in the reference SDK's order, spaces as %20.
	au := f.lastAuthorize(t)
	wantQuery := "client_id=123&response_type=code&redirect_uri=" + url.QueryEscape(res.RedirectURI) +
		"&scope=openid%20sdk.social_layer&state=" + res.State + "&nonce=n-1&code_challenge=" + v.Challenge.Challenge +
		"&code_challenge_method=S256&integration_type=1"
	if au.RawQuery != wantQuery {
		t.Errorf("authorize query\n got %s\nwant %s", au.RawQuery, wantQuery)
	}
	if au.Path != "/oauth2/authorize" {
		t.Errorf("authorize path %q", au.Path)
	}

	status, page := b.last()
	if status != http.StatusOK || !strings.Contains(page, "You can close this window") {
		t.Errorf("browser page: %d %q", status, page)
	}
	// The listener is gone once Authorize returns.
	if resp, err := http.Get(res.RedirectURI); err == nil {
		resp.Body.Close()
		t.Error("the loopback listener still answers after Authorize returned")
	}

	// The code exchange works with the exact redirect URI and the verifier.
	tok, err := c.GetToken(t.Context(), 123, res.Code, v.Verifier, res.RedirectURI)
	if err != nil {
		t.Fatalf("GetToken: %v", err)
	}
	if tok.Scope != "openid sdk.social_layer" || tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Errorf("token %+v", tok)
	}
}

func TestAuthorizeClientIdAndState(t *testing.T) {
	f := newFakeServer(t)
	b := &browser{}
	c := NewClient(f.URL, WithBrowserOpener(b.open))
	c.SetApplicationID(123)
	a := NewAuthorizationArgs()
	a.SetScopes("identify")
	a.SetClientId(999)
	a.SetState(Some("my own state"))
	res, err := c.Authorize(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	q := f.lastAuthorize(t).Query()
	if q.Get("client_id") != "999" || q.Get("state") != "my own state" || res.State != "my own state" {
		t.Errorf("client_id %q state %q result state %q", q.Get("client_id"), q.Get("state"), res.State)
	}
	for _, k := range []string{"nonce", "code_challenge", "code_challenge_method", "integration_type"} {
		if q.Has(k) {
			t.Errorf("unset property sent as %s=%q", k, q.Get(k))
		}
	}
}

func TestAuthorizeRedirectOutcomes(t *testing.T) {
	tests := []struct {
		mode       string
		kind       ErrorKind
		oauthError string
		is         error
		pageStatus int
	}{
		{mode: "badstate", kind: KindAuthorizationFailed, is: ErrStateMismatch, pageStatus: http.StatusBadRequest},
		{mode: "deny", kind: KindAborted, oauthError: "access_denied", pageStatus: http.StatusOK},
		{mode: "invalid_scope", kind: KindAuthorizationFailed, oauthError: "invalid_scope", pageStatus: http.StatusBadRequest},
		{mode: "nocode", kind: KindAuthorizationFailed, pageStatus: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			f := newFakeServer(t)
			f.setMode(tt.mode)
			b := &browser{}
			c := NewClient(f.URL, WithBrowserOpener(b.open))
			c.SetApplicationID(1)
			args, _ := newArgs(t, c)
			res, err := c.Authorize(t.Context(), args)
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind {
				t.Fatalf("err = %v, want kind %v", err, tt.kind)
			}
			if res != (AuthorizeResult{}) {
				t.Errorf("result %+v on error", res)
			}
			if e.OAuthError != tt.oauthError {
				t.Errorf("OAuthError = %q, want %q", e.OAuthError, tt.oauthError)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.is)
			}
			if tt.mode == "deny" && e.Description != "The resource owner denied the request" {
				t.Errorf("Description = %q", e.Description)
			}
			if status, page := b.last(); status != tt.pageStatus || !strings.Contains(page, "close this window") {
				t.Errorf("browser page: %d %q", status, page)
			}
		})
	}
}

func TestAuthorizeContextEnds(t *testing.T) {
	t.Run("cancel while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { cancel(); return nil }))
		c.SetApplicationID(1)
		args, _ := newArgs(t, c)
		_, err := c.Authorize(ctx, args)
		if KindOf(err) != KindAborted || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want Aborted wrapping context.Canceled", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { return nil }))
		c.SetApplicationID(1)
		args, _ := newArgs(t, c)
		_, err := c.Authorize(ctx, args)
		if KindOf(err) != KindAborted || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want Aborted wrapping DeadlineExceeded", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		opened := false
		c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { opened = true; return nil }))
		c.SetApplicationID(1)
		args, _ := newArgs(t, c)
		if _, err := c.Authorize(ctx, args); KindOf(err) != KindAborted || opened {
			t.Fatalf("err = %v, opened %v", err, opened)
		}
	})
}

func TestAuthorizeValidation(t *testing.T) {
	opened := false
	c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { opened = true; return nil }))
	c.SetApplicationID(1)
	tests := []struct {
		name string
		args AuthorizationArgs
	}{
		{"empty scopes", NewAuthorizationArgs()},
		{"nullobj", Null()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Authorize(t.Context(), tt.args)
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindValidation || e.Op != "Authorize" {
				t.Fatalf("err = %v, want a validation error", err)
			}
		})
	}
	if opened {
		t.Error("the browser was opened for invalid args")
	}
	t.Run("bad base URL", func(t *testing.T) {
		for _, base := range []string{"127.0.0.1:8080", "ftp://x", "http://", "http://h/?q=1", "::"} {
			c := NewClient(base)
			c.SetApplicationID(1)
			args, _ := newArgs(t, c)
			if _, err := c.Authorize(t.Context(), args); KindOf(err) != KindValidation {
				t.Errorf("NewClient(%q): err = %v, want a validation error", base, err)
			}
		}
	})
}

func TestAuthorizeOpenerFails(t *testing.T) {
	boom := errors.New("no browser")
	c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { return boom }))
	c.SetApplicationID(1)
	args, _ := newArgs(t, c)
	_, err := c.Authorize(t.Context(), args)
	if KindOf(err) != KindAuthorizationFailed || !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// waitingOpener records the URL and signals, without completing the flow.
type waitingOpener struct {
	urls chan string
}

func newWaitingOpener() *waitingOpener { return &waitingOpener{urls: make(chan string, 4)} }

func (w *waitingOpener) open(u string) error { w.urls <- u; return nil }

func TestAbortAuthorize(t *testing.T) {
	w := newWaitingOpener()
	c := NewClient("http://127.0.0.1:1", WithBrowserOpener(w.open))
	c.SetApplicationID(1)
	c.AbortAuthorize() // nothing pending: no effect
	args, _ := newArgs(t, c)
	errc := make(chan error, 1)
	go func() { _, err := c.Authorize(t.Context(), args); errc <- err }()
	<-w.urls
	c.AbortAuthorize()
	if err := <-errc; KindOf(err) != KindAborted || !errors.Is(err, ErrAuthorizeAborted) {
		t.Fatalf("err = %v", err)
	}
}

func TestAuthorizeSupersedesPending(t *testing.T) {
	w := newWaitingOpener()
	c := NewClient("http://127.0.0.1:1", WithBrowserOpener(w.open))
	c.SetApplicationID(1)
	args, _ := newArgs(t, c)
	first := make(chan error, 1)
	go func() { _, err := c.Authorize(t.Context(), args); first <- err }()
	<-w.urls
	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error, 1)
	go func() { _, err := c.Authorize(ctx, args); second <- err }()
	if err := <-first; KindOf(err) != KindAborted || !errors.Is(err, ErrAuthorizeSuperseded) {
		t.Fatalf("first: err = %v", err)
	}
	<-w.urls
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second: err = %v", err)
	}
}

func TestLoopbackIgnoresForeignHost(t *testing.T) {
	f := newFakeServer(t)
	b := &browser{}
	var rebound int
	open := func(u string) error {
		// A DNS-rebound page at evil.example:<port> cannot end the flow.
		au, _ := url.Parse(u)
		q := au.Query()
		cb := q.Get("redirect_uri") + "?code=x&state=" + url.QueryEscape(q.Get("state"))
		req, _ := http.NewRequest(http.MethodGet, cb, nil)
		req.Host = "evil.example:" + strings.Split(strings.TrimPrefix(q.Get("redirect_uri"), "http://127.0.0.1:"), "/")[0]
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		rebound = resp.StatusCode
		// Other paths and methods are not the callback either.
		if resp, err := http.Post(cb, "text/plain", nil); err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST callback: %d", resp.StatusCode)
			}
		}
		return b.open(u)
	}
	c := NewClient(f.URL, WithBrowserOpener(open))
	c.SetApplicationID(1)
	args, _ := newArgs(t, c)
	res, err := c.Authorize(t.Context(), args)
	if err != nil || res.Code != "code-1" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if rebound != http.StatusBadRequest {
		t.Errorf("foreign Host answered %d, want 400", rebound)
	}
}

func TestAuthorizeCustomScheme(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		scheme  Optional[string]
		wantURI string
	}{
		{"CustomSchemeParam", nil, Some("mygame"), "mygame:/authorize/callback"},
		{"WithCustomSchemeRedirects default scheme", []Option{WithCustomSchemeRedirects()}, None[string](), "service-123:/authorize/callback"},
		{"WithCustomSchemeRedirects and CustomSchemeParam", []Option{WithCustomSchemeRedirects()}, Some("com.example.game"), "com.example.game:/authorize/callback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(t)
			var c *Client
			handleErr := make(chan error, 1)
			open := func(u string) error {
				loc, err := noRedirect(u)
				if err != nil {
					return err
				}
				if !strings.HasPrefix(loc, tt.wantURI+"?") {
					t.Errorf("server redirected to %q", loc)
				}
				// The OS hands the deep link to the app, possibly later and
				// on another goroutine.
				go func() { handleErr <- c.HandleRedirect(loc) }()
				return nil
			}
			c = NewClient(f.URL, append(tt.opts, WithBrowserOpener(open))...)
			c.SetApplicationID(123)
			args, v := newArgs(t, c)
			args.SetCustomSchemeParam(tt.scheme)
			res, err := c.Authorize(t.Context(), args)
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if res.RedirectURI != tt.wantURI || res.Code != "code-1" {
				t.Errorf("result %+v, want redirect URI %q", res, tt.wantURI)
			}
			if err := <-handleErr; err != nil {
				t.Errorf("HandleRedirect: %v", err)
			}
			if got := f.lastAuthorize(t).Query().Get("redirect_uri"); got != tt.wantURI {
				t.Errorf("redirect_uri sent = %q", got)
			}
			if _, err := c.GetToken(t.Context(), 0, res.Code, v.Verifier, res.RedirectURI); err != nil {
				t.Errorf("GetToken: %v", err)
			}
		})
	}
}

func TestHandleRedirect(t *testing.T) {
	c := NewClient("http://127.0.0.1:1")
	if err := c.HandleRedirect("mygame:/authorize/callback?code=x&state=y"); KindOf(err) != KindValidation {
		t.Fatalf("nothing pending: err = %v", err)
	}

	var mu sync.Mutex
	var state string
	ready := make(chan struct{})
	c = NewClient("http://127.0.0.1:1", WithBrowserOpener(func(u string) error {
		au, _ := url.Parse(u)
		mu.Lock()
		state = au.Query().Get("state")
		mu.Unlock()
		close(ready)
		return nil
	}))
	c.SetApplicationID(1)
	args, _ := newArgs(t, c)
	args.SetCustomSchemeParam(Some("MyGame"))
	type result struct {
		res AuthorizeResult
		err error
	}
	done := make(chan result, 1)
	go func() { r, err := c.Authorize(t.Context(), args); done <- result{r, err} }()
	<-ready
	mu.Lock()
	st := url.QueryEscape(state)
	mu.Unlock()

	for _, bad := range []string{
		"other:/authorize/callback?code=x&state=" + st,   // another app's scheme
		"mygame:/authorize/other?code=x&state=" + st,     // another path
		"mygame://authorize/callback?code=x&state=" + st, // a host, not our form
		"http://127.0.0.1/callback?code=x&state=" + st,   // not a custom scheme
		"mygame:authorize/callback?code=x&state=" + st,   // opaque
		"%zz", // not a URL
	} {
		if err := c.HandleRedirect(bad); KindOf(err) != KindValidation {
			t.Errorf("HandleRedirect(%q) = %v, want a validation error", bad, err)
		}
	}
	select {
	case r := <-done:
		t.Fatalf("a rejected URL ended the flow: %+v", r)
	default:
	}
	// Schemes compare case-insensitively (RFC 3986 §3.1).
	if err := c.HandleRedirect("mygame:/authorize/callback?code=the-code&state=" + st); err != nil {
		t.Fatalf("HandleRedirect: %v", err)
	}
	r := <-done
	if r.err != nil || r.res.Code != "the-code" || r.res.RedirectURI != "MyGame:/authorize/callback" {
		t.Fatalf("result %+v err %v", r.res, r.err)
	}
}

func TestHandleRedirectStateMismatchAndReplay(t *testing.T) {
	ready := make(chan struct{})
	c := NewClient("http://127.0.0.1:1", WithBrowserOpener(func(string) error { close(ready); return nil }),
		WithCustomSchemeRedirects())
	c.SetApplicationID(5)
	args, _ := newArgs(t, c)
	errc := make(chan error, 1)
	go func() { _, err := c.Authorize(t.Context(), args); errc <- err }()
	<-ready
	if err := c.HandleRedirect("service-5:/authorize/callback?code=x&state=forged"); err != nil {
		t.Fatalf("HandleRedirect: %v", err)
	}
	// A second redirect finds the flow finished (or no longer pending).
	if err := c.HandleRedirect("service-5:/authorize/callback?code=x&state=forged"); KindOf(err) != KindValidation {
		t.Errorf("second HandleRedirect = %v, want a validation error", err)
	}
	if err := <-errc; KindOf(err) != KindAuthorizationFailed || !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("err = %v", err)
	}
}

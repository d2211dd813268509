package authorize

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newTokenClient(t *testing.T, f *fakeServer, opts ...Option) *Client {
	t.Helper()
	c := NewClient(f.URL, opts...)
	c.now = func() time.Time { return fixedNow }
	c.SetApplicationID(123)
	return c
}

func TestGetTokenWireFormat(t *testing.T) {
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	tests := []struct {
		name     string
		opts     []Option
		verifier string
		appID    uint64
		wantForm url.Values
		wantUser string // Basic auth user, "" for none
	}{
		{
			name: "public client with PKCE", verifier: verifier, appID: 123,
			wantForm: url.Values{"grant_type": {"authorization_code"}, "client_id": {"123"}, "code": {"c"},
				"code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}},
		},
		{
			name: "application id defaults", verifier: verifier, appID: 0,
			wantForm: url.Values{"grant_type": {"authorization_code"}, "client_id": {"123"}, "code": {"c"},
				"code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}},
		},
		{
			name: "confidential client without PKCE", opts: []Option{WithClientSecret("s3cret")}, appID: 77,
			wantForm: url.Values{"grant_type": {"authorization_code"}, "client_id": {"77"}, "code": {"c"},
				"redirect_uri": {"http://127.0.0.1:5555/callback"}},
			wantUser: "77",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(t)
			ch := ""
			if tt.verifier != "" {
				ch = S256Challenge(tt.verifier)
			}
			f.seed("c", grant{challenge: ch, redirectURI: "http://127.0.0.1:5555/callback", scope: "openid sdk.social_layer"})
			c := newTokenClient(t, f, tt.opts...)
			tok, err := c.GetToken(t.Context(), tt.appID, "c", tt.verifier, "http://127.0.0.1:5555/callback")
			if err != nil {
				t.Fatalf("GetToken: %v", err)
			}
			r := f.lastRequest(t)
			if r.Method != http.MethodPost || r.Path != "/api/v10/oauth2/token" {
				t.Errorf("%s %s", r.Method, r.Path)
			}
			if r.ContentType != "application/x-www-form-urlencoded" || r.Accept != "application/json" {
				t.Errorf("Content-Type %q Accept %q", r.ContentType, r.Accept)
			}
			if !reflect.DeepEqual(r.Form, tt.wantForm) {
				t.Errorf("form\n got %v\nwant %v", r.Form, tt.wantForm)
			}
			if r.Basic != (tt.wantUser != "") || r.User != tt.wantUser || (r.Basic && r.Pass != "s3cret") {
				t.Errorf("basic auth %v %q:%q", r.Basic, r.User, r.Pass)
			}
			want := Token{AccessToken: "access-1", TokenType: "Bearer", ExpiresIn: 604800, RefreshToken: "refresh-1",
				Scope: "openid sdk.social_layer", IDToken: "a.b.c", Expiry: fixedNow.Add(7 * 24 * time.Hour)}
			if tok != want {
				t.Errorf("token\n got %+v\nwant %+v", tok, want)
			}
		})
	}
}

func TestRefreshToken(t *testing.T) {
	f := newFakeServer(t)
	c := newTokenClient(t, f)
	f.seed("c", grant{redirectURI: "r"})
	first, err := c.GetToken(t.Context(), 0, "c", "", "r")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.RefreshToken(t.Context(), 123, first.RefreshToken)
	if err != nil {
		t.Fatalf("RefreshToken: %v", err)
	}
	r := f.lastRequest(t)
	want := url.Values{"grant_type": {"refresh_token"}, "client_id": {"123"}, "refresh_token": {first.RefreshToken}}
	if !reflect.DeepEqual(r.Form, want) || r.ContentType != "application/x-www-form-urlencoded" || r.Path != "/api/v10/oauth2/token" {
		t.Errorf("request %+v", r)
	}
	if second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
		t.Errorf("not rotated: %+v", second)
	}
	// The old refresh token is spent: the server's invalid_grant comes back.
	_, err = c.RefreshToken(t.Context(), 0, first.RefreshToken)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindHTTP || e.Status != 400 || e.OAuthError != "invalid_grant" {
		t.Fatalf("reuse: err = %v", err)
	}
}

func TestRevokeToken(t *testing.T) {
	f := newFakeServer(t)
	c := newTokenClient(t, f, WithClientSecret("s"))
	if err := c.RevokeToken(t.Context(), 0, "access-1"); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	r := f.lastRequest(t)
	want := url.Values{"client_id": {"123"}, "token": {"access-1"}}
	if r.Method != http.MethodPost || r.Path != "/api/v10/oauth2/token/revoke" || !reflect.DeepEqual(r.Form, want) ||
		r.ContentType != "application/x-www-form-urlencoded" || !r.Basic || r.User != "123" || r.Pass != "s" {
		t.Errorf("request %+v", r)
	}
}

func TestTokenHTTPErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		header      map[string]string
		body        string
		want        Error // Kind, Status, OAuthError, Description, URI, Code, Message, RetryAfter
		retryable   bool
	}{
		{name: "invalid_grant", status: 400, contentType: "application/json",
			body: `{"error":"invalid_grant","error_description":"Invalid \"code\" in request."}`,
			want: Error{Kind: KindHTTP, Status: 400, OAuthError: "invalid_grant", Description: `Invalid "code" in request.`}},
		{name: "invalid_client", status: 401, contentType: "application/json", header: map[string]string{"WWW-Authenticate": `Basic realm="x"`},
			body: `{"error":"invalid_client","error_uri":"https://example.com/e"}`,
			want: Error{Kind: KindHTTP, Status: 401, OAuthError: "invalid_client", URI: "https://example.com/e"}},
		{name: "REST envelope", status: 403, contentType: "application/json",
			body: `{"message":"Missing Access","code":50001}`,
			want: Error{Kind: KindHTTP, Status: 403, Code: 50001, Message: "Missing Access"}},
		{name: "rate limited", status: 429, contentType: "application/json", header: map[string]string{"Retry-After": "1.5"},
			body: `{"message":"You are being rate limited.","retry_after":1.5,"global":false}`,
			want: Error{Kind: KindHTTP, Status: 429, Message: "You are being rate limited.", RetryAfter: 1500 * time.Millisecond}, retryable: true},
		{name: "server error, not JSON", status: 502, contentType: "text/html", body: `<h1>Bad gateway</h1>`,
			want: Error{Kind: KindHTTP, Status: 502}, retryable: true},
		{name: "200 without access_token", status: 200, contentType: "application/json", body: `{"token_type":"Bearer"}`,
			want: Error{Kind: KindHTTP, Status: 200}},
		{name: "200 not JSON", status: 200, contentType: "text/plain", body: `access_token=x`,
			want: Error{Kind: KindHTTP, Status: 200}},
		{name: "200 malformed JSON", status: 200, contentType: "application/json", body: `{"access_token":`,
			want: Error{Kind: KindHTTP, Status: 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := NewClient(srv.URL)
			c.SetApplicationID(1)
			calls := map[string]func() error{
				"GetToken": func() error {
					_, err := c.GetToken(t.Context(), 0, "code", "", "http://127.0.0.1/callback")
					return err
				},
				"RefreshToken": func() error { _, err := c.RefreshToken(t.Context(), 0, "rt"); return err },
				"RevokeToken":  func() error { return c.RevokeToken(t.Context(), 0, "tok") },
			}
			for op, call := range calls {
				err := call()
				if op == "RevokeToken" && tt.status == 200 {
					if err != nil { // revocation needs no body
						t.Errorf("RevokeToken: %v", err)
					}
					continue
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: err = %v, want *Error", op, err)
				}
				got := Error{Kind: e.Kind, Status: e.Status, OAuthError: e.OAuthError, Description: e.Description,
					URI: e.URI, Code: e.Code, Message: e.Message, RetryAfter: e.RetryAfter}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s:\n got %+v\nwant %+v", op, got, tt.want)
				}
				if e.Op != op || string(e.Body) != tt.body || e.Retryable() != tt.retryable {
					t.Errorf("%s: Op %q Body %q Retryable %v", op, e.Op, e.Body, e.Retryable())
				}
			}
		})
	}
}

func TestTokenExpiresInForms(t *testing.T) {
	for _, body := range []string{
		`{"access_token":"a","token_type":"Bearer","expires_in":"3600"}`,
		`{"access_token":"a","token_type":"Bearer","expires_in":3600}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		c := NewClient(srv.URL)
		c.now = func() time.Time { return fixedNow }
		tok, err := c.RefreshToken(t.Context(), 1, "rt")
		srv.Close()
		if err != nil || tok.ExpiresIn != 3600 || !tok.Expiry.Equal(fixedNow.Add(time.Hour)) || tok.RefreshToken != "" {
			t.Errorf("%s: %+v %v", body, tok, err)
		}
	}
}

func TestTokenNetworkAndContextErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // connection refused from now on
	c := NewClient(base)
	_, err := c.GetToken(t.Context(), 1, "c", "", "r")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNetwork || !e.Retryable() || e.Err == nil {
		t.Fatalf("closed server: err = %v", err)
	}

	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err = NewClient(slow.URL).RevokeToken(ctx, 1, "tok")
	if KindOf(err) != KindAborted || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: err = %v", err)
	}
}

func TestTokenValidation(t *testing.T) {
	f := newFakeServer(t)
	c := NewClient(f.URL) // no application id
	tests := []struct {
		name string
		call func() error
		msg  string
	}{
		{"no application id", func() error { _, err := c.GetToken(t.Context(), 0, "c", "", "r"); return err }, "applicationID"},
		{"no code", func() error { _, err := c.GetToken(t.Context(), 1, "", "", "r"); return err }, "code"},
		{"no redirect URI", func() error { _, err := c.GetToken(t.Context(), 1, "c", "", ""); return err }, "redirectURI"},
		{"short verifier", func() error { _, err := c.GetToken(t.Context(), 1, "c", "short", "r"); return err }, "codeVerifier"},
		{"verifier charset", func() error {
			_, err := c.GetToken(t.Context(), 1, "c", strings.Repeat("a", 42)+"+", "r")
			return err
		}, "codeVerifier"},
		{"refresh without token", func() error { _, err := c.RefreshToken(t.Context(), 1, ""); return err }, "refreshToken"},
		{"refresh without app", func() error { _, err := c.RefreshToken(t.Context(), 0, "rt"); return err }, "applicationID"},
		{"revoke without token", func() error { return c.RevokeToken(t.Context(), 1, "") }, "token"},
		{"bad base URL", func() error { _, err := NewClient("not a url").RefreshToken(t.Context(), 1, "rt"); return err }, "base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if KindOf(err) != KindValidation || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want a validation error mentioning %q", err, tt.msg)
			}
		})
	}
	if n := f.requestCount(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

func TestErrorFormatting(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: KindHTTP, Op: "GetToken", Status: 400, OAuthError: "invalid_grant", Description: "bad code"},
			"authorize: GetToken: HTTPError: 400 Bad Request: invalid_grant (bad code)"},
		{&Error{Kind: KindHTTP, Op: "GetToken", Status: 403, Code: 50001, Message: "Missing Access"},
			"authorize: GetToken: HTTPError: 403 Forbidden: Missing Access (code 50001)"},
		{&Error{Kind: KindAborted, Op: "Authorize", Err: context.Canceled},
			"authorize: Authorize: Aborted: context canceled"},
		{&Error{Kind: KindAuthorizationFailed, Op: "Authorize", Err: ErrStateMismatch},
			"authorize: Authorize: AuthorizationFailed: state mismatch"},
		{validationError("Authorize", "Scopes is required"), "authorize: Authorize: ValidationError: Scopes is required"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	wrapped := errors.Join(errors.New("context"), &Error{Kind: KindNetwork})
	if KindOf(wrapped) != KindNetwork || KindOf(errors.New("x")) != KindNone || KindOf(nil) != KindNone {
		t.Error("KindOf")
	}
	if ErrorKind(42).String() != "ErrorKind(42)" || KindValidation.String() != "ValidationError" {
		t.Error("ErrorKind.String")
	}
}

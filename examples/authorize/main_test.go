package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/slashd/slashd/sdk/authorize"
)

// fakeSlashd approves every authorization at once and checks PKCE; the
// authorization requests' queries go to queries, when set.
func fakeSlashd(t *testing.T, queries chan<- url.Values) *httptest.Server {
	var mu sync.Mutex
	var challenge, redirect string
	revoked := false
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth2/authorize", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		q := r.URL.Query()
		if queries != nil {
			queries <- q
		}
		challenge, redirect = q.Get("code_challenge"), q.Get("redirect_uri")
		http.Redirect(w, r, redirect+"?code=abc&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /api/v10/oauth2/token", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.FormValue("code") != "abc" || r.FormValue("redirect_uri") != redirect ||
			authorize.S256Challenge(r.FormValue("code_verifier")) != challenge {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer",
			"expires_in": 604800, "refresh_token": "rt", "scope": "openid sdk.social_layer"})
	})
	mux.HandleFunc("GET /api/v10/oauth2/@me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer at" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"scopes":["openid","sdk.social_layer"],"user":{"id":"1","username":"alice"}}`)
	})
	mux.HandleFunc("POST /api/v10/oauth2/token/revoke", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		revoked = r.FormValue("token") == "at"
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		if !revoked {
			t.Error("the token was not revoked")
		}
	})
	return srv
}

func TestRun(t *testing.T) {
	queries := make(chan url.Values, 1)
	srv := fakeSlashd(t, queries)
	getenv := func(k string) string {
		if k == "SLASHD_URL" {
			return srv.URL
		}
		return ""
	}
	browser := func(u string) error { // follows the redirect to the loopback listener
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-app", "42", "-revoke"}, getenv, &stdout, &stderr, browser)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"authorized: redirect URI http://127.0.0.1:", `scope "openid sdk.social_layer"`, `"username": "alice"`, "token revoked"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), srv.URL+"/oauth2/authorize?client_id=42&") {
		t.Errorf("the URL was not printed:\n%s", stderr.String())
	}
	if q := <-queries; q.Has("integration_type") || q.Get("scope") != "openid sdk.social_layer" {
		t.Errorf("a plain authorization sent %v", q)
	}
}

// TestRunUserInstall: -user-install asks for integration_type=1 with
// applications.commands, through the SDK's IntegrationType.
func TestRunUserInstall(t *testing.T) {
	for _, c := range []struct {
		args      []string
		wantScope string
	}{
		{[]string{"-app", "42", "-revoke", "-user-install"}, "identify applications.commands"},
		{[]string{"-app", "42", "-revoke", "-user-install", "-scopes", "applications.commands"}, "applications.commands"},
	} {
		queries := make(chan url.Values, 1)
		srv := fakeSlashd(t, queries)
		getenv := func(k string) string {
			if k == "SLASHD_URL" {
				return srv.URL
			}
			return ""
		}
		browser := func(u string) error {
			resp, err := http.Get(u)
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		}
		var stdout, stderr strings.Builder
		if err := run(t.Context(), c.args, getenv, &stdout, &stderr, browser); err != nil {
			t.Fatalf("run %v: %v\n%s", c.args, err, stderr.String())
		}
		q := <-queries
		if q.Get("integration_type") != "1" || q.Get("scope") != c.wantScope {
			t.Errorf("run %v: integration_type %q scope %q, want 1 and %q", c.args, q.Get("integration_type"), q.Get("scope"), c.wantScope)
		}
		if !strings.Contains(stdout.String(), "installed to your account") {
			t.Errorf("run %v: output lacks the install:\n%s", c.args, stdout.String())
		}
	}
}

func TestRunRequiresApp(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), nil, func(string) string { return "" }, &out, &out, nil); err == nil {
		t.Fatal("run without -app succeeded")
	}
}

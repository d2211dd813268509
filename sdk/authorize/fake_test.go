package authorize

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// fakeServer is a minimal OAuth2 server: /oauth2/authorize redirects at
// once (no consent page) according to mode; the token endpoint checks PKCE
// and the redirect URI like the real one; revoke records its request.
type fakeServer struct {
	*httptest.Server

	mu         sync.Mutex
	mode       string // approve (default), deny, badstate, invalid_scope, nocode
	authorizes []*url.URL
	requests   []recorded
	codes      map[string]grant // issued codes
	refresh    map[string]bool  // live refresh tokens
	nextCode   int
}

type grant struct{ challenge, redirectURI, scope string }

// recorded is one request to the token or revoke endpoint.
type recorded struct {
	Method, Path, ContentType, Accept string
	Form                              url.Values
	User, Pass                        string
	Basic                             bool
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{codes: map[string]grant{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth2/authorize", f.authorize)
	mux.HandleFunc("POST /api/v10/oauth2/token", f.token)
	mux.HandleFunc("POST /api/v10/oauth2/token/revoke", f.revoke)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) setMode(m string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = m
}

// seed registers a code as if an authorization had issued it.
func (f *fakeServer) seed(code string, g grant) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.codes[code] = g
}

func (f *fakeServer) lastAuthorize(t *testing.T) *url.URL {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.authorizes) == 0 {
		t.Fatal("no authorize request reached the server")
	}
	return f.authorizes[len(f.authorizes)-1]
}

func (f *fakeServer) lastRequest(t *testing.T) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no token request reached the server")
	}
	return f.requests[len(f.requests)-1]
}

func (f *fakeServer) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeServer) authorize(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.authorizes = append(f.authorizes, r.URL)
	q := r.URL.Query()
	target, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || q.Get("response_type") != "code" || q.Get("client_id") == "" {
		http.Error(w, "invalid request", http.StatusBadRequest) // never redirect then
		return
	}
	out := url.Values{"state": {q.Get("state")}}
	switch f.mode {
	case "deny":
		out.Set("error", "access_denied")
		out.Set("error_description", "The resource owner denied the request")
	case "invalid_scope":
		out.Set("error", "invalid_scope")
	case "badstate":
		out.Set("state", "forged")
		out.Set("code", "stolen")
	case "nocode":
	default:
		f.nextCode++
		code := "code-" + strconv.Itoa(f.nextCode)
		f.codes[code] = grant{challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri"), scope: q.Get("scope")}
		out.Set("code", code)
	}
	target.RawQuery = out.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

func (f *fakeServer) record(r *http.Request) recorded {
	_ = r.ParseForm()
	u, p, ok := r.BasicAuth()
	rec := recorded{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"),
		Accept: r.Header.Get("Accept"), Form: r.PostForm, User: u, Pass: p, Basic: ok}
	f.requests = append(f.requests, rec)
	return rec
}

func oauthErr(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

func (f *fakeServer) token(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := f.record(r)
	if rec.ContentType != "application/x-www-form-urlencoded" {
		oauthErr(w, 400, "invalid_request", "form bodies only")
		return
	}
	var scope string
	switch rec.Form.Get("grant_type") {
	case "authorization_code":
		g, ok := f.codes[rec.Form.Get("code")]
		if !ok {
			oauthErr(w, 400, "invalid_grant", `Invalid "code" in request.`)
			return
		}
		delete(f.codes, rec.Form.Get("code"))
		if g.redirectURI != rec.Form.Get("redirect_uri") {
			oauthErr(w, 400, "invalid_grant", `Invalid "redirect_uri" in request.`)
			return
		}
		if g.challenge != "" && S256Challenge(rec.Form.Get("code_verifier")) != g.challenge {
			oauthErr(w, 400, "invalid_grant", `Invalid "code_verifier"`)
			return
		}
		scope = g.scope
	case "refresh_token":
		if !f.refresh[rec.Form.Get("refresh_token")] {
			oauthErr(w, 400, "invalid_grant", `Invalid "refresh_token" in request.`)
			return
		}
		delete(f.refresh, rec.Form.Get("refresh_token"))
		scope = "openid sdk.social_layer"
	default:
		oauthErr(w, 400, "unsupported_grant_type", "")
		return
	}
	f.nextCode++
	rt := "refresh-" + strconv.Itoa(f.nextCode)
	f.refresh[rt] = true
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": "access-" + strconv.Itoa(f.nextCode), "token_type": "Bearer",
		"expires_in": 604800, "refresh_token": rt, "scope": scope, "id_token": "a.b.c",
	})
}

func (f *fakeServer) revoke(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(r)
	w.WriteHeader(http.StatusOK)
}

// browser is a fake system browser: it GETs the URL and follows redirects
// (to the loopback listener), keeping the last page it got.
type browser struct {
	mu     sync.Mutex
	status int
	page   string
	opened []string
}

func (b *browser) open(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status, b.page = resp.StatusCode, string(body)
	b.opened = append(b.opened, u)
	return nil
}

func (b *browser) last() (int, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.status, b.page
}

// noRedirect GETs u and returns the Location it redirects to, as a browser
// would hand a custom-scheme redirect to the operating system.
func noRedirect(u string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return resp.Header.Get("Location"), nil
}

package oauth_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

const tokenPath = "/api/v10/oauth2/token"

// harness is a server with two apps: the bootstrapped confidential one
// and a public client, plus a user alice.
type harness struct {
	e      *testenv.Env
	conf   client // e.App, confidential, with a registered https redirect
	public client // a public client (Social SDK style)
	alice  store.User
}

type client struct {
	id     snowflake.ID
	secret string
	creds  bootstrap.Credentials
}

const (
	confRedirect   = "https://game.example/callback"
	publicRedirect = "http://127.0.0.1/callback"
)

func newHarness(t *testing.T) *harness {
	t.Helper()
	e := testenv.New(t)
	h := &harness{e: e, conf: clientOf(t, e.App)}
	h.public = clientOf(t, e.NewApp(bootstrap.AppOptions{Name: "game"}))
	e.SetOAuth(h.conf.id, false, confRedirect)
	e.SetOAuth(h.public.id, true, publicRedirect)
	h.alice = e.NewUser("alice", "")
	return h
}

func clientOf(t *testing.T, c bootstrap.Credentials) client {
	t.Helper()
	id, err := snowflake.Parse(c.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	return client{id: id, secret: c.ClientSecret, creds: c}
}

// approve stands for the consent page: the user approves scopes for app.
func (h *harness) approve(t *testing.T, app snowflake.ID, user snowflake.ID, scopes, redirectURI, challenge, nonce string) string {
	t.Helper()
	method := ""
	if challenge != "" {
		method = "S256"
	}
	code, err := h.e.OAuth.IssueCode(context.Background(),
		store.Grant{ApplicationID: app, UserID: user, Scopes: strings.Fields(scopes)}, redirectURI, challenge, method, nonce)
	if err != nil {
		t.Fatalf("IssueCode: %v", err)
	}
	return code
}

// tokens is a successful token response.
type tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	IDToken      string `json:"id_token"`
}

// post sends a form to the token endpoint (or path), with HTTP Basic
// authentication when user is set.
func (h *harness) post(path string, form url.Values, user, pass string) testenv.Response {
	return h.e.PostForm(path, form, user, pass)
}

// exchange expects a successful token response.
func (h *harness) exchange(t *testing.T, form url.Values, user, pass string) tokens {
	t.Helper()
	r := h.post(tokenPath, form, user, pass)
	if r.Status != http.StatusOK {
		t.Fatalf("token request %v: %d %s", form, r.Status, r.Body)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	var tok tokens
	r.JSON(t, &tok)
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 604800 || len(tok.AccessToken) < 30 {
		t.Fatalf("token response %s", r.Body)
	}
	return tok
}

// oauthError is an RFC 6749 error body.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// wantOAuthError checks an RFC 6749 error response.
func wantOAuthError(t *testing.T, r testenv.Response, status int, code, description string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d (%s)", r.Status, status, r.Body)
	}
	var m map[string]any
	r.JSON(t, &m)
	if _, ok := m["access_token"]; ok {
		t.Fatalf("a token was issued: %s", r.Body)
	}
	var e oauthError
	r.JSON(t, &e)
	if e.Error != code || description != "" && e.Description != description {
		t.Fatalf("error %q %q, want %q %q", e.Error, e.Description, code, description)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if status == http.StatusUnauthorized && r.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
}

// me calls GET /oauth2/@me with a Bearer token and returns the status.
func (h *harness) me(t *testing.T, access string) (int, map[string]any) {
	t.Helper()
	r := h.e.Do("GET", "/api/v10/oauth2/@me", "Bearer "+access, nil)
	var m map[string]any
	r.JSON(t, &m)
	return r.Status, m
}

func codeForm(code, redirectURI, verifier string, kv ...string) url.Values {
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}}
	if redirectURI != "" {
		f.Set("redirect_uri", redirectURI)
	}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}

// jwtParts decodes a compact JWS's header and claims.
func jwtParts(t *testing.T, tok string) (header, claims map[string]any, signingInput string, sig []byte) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("id_token %q: %d parts", tok, len(parts))
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("base64url %q: %v", s, err)
		}
		return b
	}
	if err := json.Unmarshal(dec(parts[0]), &header); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(dec(parts[1]), &claims); err != nil {
		t.Fatal(err)
	}
	return header, claims, parts[0] + "." + parts[1], dec(parts[2])
}

// verifyIDToken checks an id_token's RS256 signature against the JWKS
// at jwksURL and returns its claims.
func verifyIDToken(t *testing.T, e *testenv.Env, jwksURL, tok string) map[string]any {
	t.Helper()
	header, claims, input, sig := jwtParts(t, tok)
	if header["alg"] != "RS256" || header["typ"] != "JWT" {
		t.Fatalf("header %v", header)
	}
	r := e.Do("GET", strings.TrimPrefix(jwksURL, e.URL), "", nil)
	var set struct {
		Keys []struct{ Kty, Use, Alg, Kid, N, E string } `json:"keys"`
	}
	r.JSON(t, &set)
	for _, k := range set.Keys {
		if k.Kid != header["kid"] {
			continue
		}
		if k.Kty != "RSA" || k.Alg != "RS256" || k.Use != "sig" {
			t.Fatalf("key %+v", k)
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		eb, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err1 != nil || err2 != nil {
			t.Fatalf("key %+v: %v %v", k, err1, err2)
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(eb).Int64())}
		if pub.N.BitLen() != 2048 {
			t.Errorf("key of %d bits, want 2048", pub.N.BitLen())
		}
		digest := sha256.Sum256([]byte(input))
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig); err != nil {
			t.Fatalf("id_token signature: %v", err)
		}
		return claims
	}
	t.Fatalf("no key %v in %s", header["kid"], r.Body)
	return nil
}

// ownerOf is the bootstrapped app's owner, who owns its guild.
func ownerOf(t *testing.T, h *harness) snowflake.ID {
	t.Helper()
	id, err := snowflake.Parse(h.conf.creds.OwnerUserID)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func asError(err error, target **oauth.Error) bool { return errors.As(err, target) }

package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// request is one token-endpoint request of the error table.
type request struct {
	form       url.Values
	user, pass string // HTTP Basic, when user is set
	raw        func(h *harness) testenv.Response
}

// TestTokenEndpointErrors walks every error path of POST /oauth2/token.
func TestTokenEndpointErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	conf, pub := h.conf, h.public
	basic := func(form url.Values) request { return request{form: form, user: conf.id.String(), pass: conf.secret} }
	publicOnly := func(form url.Values) request {
		form.Set("client_id", pub.id.String())
		return request{form: form}
	}
	// Each case gets fresh codes: a failed exchange spends its code.
	confCode := func(scopes string) string {
		return h.approve(t, conf.id, h.alice.ID, scopes, confRedirect, "", "")
	}
	pkceCode := func() string {
		return h.approve(t, pub.id, h.alice.ID, "openid identify", publicRedirect, rfcChallenge, "")
	}
	refreshOf := func(app client) string {
		if app.id == pub.id {
			return h.exchange(t, codeForm(pkceCode(), publicRedirect, rfcVerifier, "client_id", pub.id.String()), "", "").RefreshToken
		}
		return h.exchange(t, codeForm(confCode("identify"), confRedirect, ""), conf.id.String(), conf.secret).RefreshToken
	}
	expiredCode := func() string {
		ctx := context.Background()
		g := store.Grant{ID: h.e.IDs.Next(), ApplicationID: conf.id, UserID: h.alice.ID, Scopes: []string{"identify"},
			CreatedAt: time.Now().Add(-time.Hour)}
		if err := h.e.Store.CreateGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
		if err := h.e.Store.CreateCode(ctx, store.AuthCode{Hash: auth.Hash("expired-code"), GrantID: g.ID,
			ExpiresAt: time.Now().Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
		return "expired-code"
	}
	cc := func(scope string) url.Values {
		return url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	}

	cases := []struct {
		name        string
		req         func() request
		status      int
		code        string
		description string
	}{
		// The request itself.
		{"JSON body", func() request {
			return request{raw: func(h *harness) testenv.Response {
				return h.e.Do("POST", tokenPath, "", `{"grant_type":"client_credentials","scope":"identify"}`)
			}}
		}, 400, "invalid_request", `The body must be form-encoded (Content-Type "application/x-www-form-urlencoded")`},
		{"text/plain body", func() request {
			return request{raw: func(h *harness) testenv.Response {
				req, _ := http.NewRequest("POST", h.e.URL+tokenPath, strings.NewReader("grant_type=client_credentials"))
				req.Header.Set("Content-Type", "text/plain")
				req.SetBasicAuth(conf.id.String(), conf.secret)
				resp, err := h.e.Server.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
			}}
		}, 400, "invalid_request", ""},
		{"duplicate parameter", func() request {
			return basic(url.Values{"grant_type": {"client_credentials"}, "scope": {"identify", "identify"}})
		}, 400, "invalid_request", `Duplicate "scope"`},
		{"missing grant_type", func() request { return basic(url.Values{"scope": {"identify"}}) },
			400, "invalid_request", `Missing "grant_type"`},
		{"unsupported grant", func() request { return basic(url.Values{"grant_type": {"password"}}) },
			400, "unsupported_grant_type", `Unsupported grant type "password"`},
		{"implicit is no grant", func() request { return basic(url.Values{"grant_type": {"token"}}) },
			400, "unsupported_grant_type", ""},

		// Client authentication.
		{"client id not a snowflake", func() request { return request{form: cc("identify"), user: "abc", pass: conf.secret} },
			401, "invalid_client", ""},
		{"unknown client id", func() request {
			return request{form: cc("identify"), user: "1234567890123456789", pass: conf.secret}
		}, 401, "invalid_client", ""},
		{"no client at all", func() request { return request{form: cc("identify")} }, 401, "invalid_client", ""},
		{"wrong secret (Basic)", func() request { return request{form: cc("identify"), user: conf.id.String(), pass: "nope"} },
			401, "invalid_client", ""},
		{"wrong secret (form)", func() request {
			f := cc("identify")
			f.Set("client_id", conf.id.String())
			f.Set("client_secret", "nope")
			return request{form: f}
		}, 401, "invalid_client", ""},
		{"another app's secret", func() request { return request{form: cc("identify"), user: conf.id.String(), pass: pub.secret} },
			401, "invalid_client", ""},
		{"confidential client without secret", func() request {
			return request{form: codeForm(confCode("identify"), confRedirect, "", "client_id", conf.id.String())}
		}, 401, "invalid_client", ""},
		{"Basic and form secret together", func() request {
			r := basic(cc("identify"))
			r.form.Set("client_secret", conf.secret)
			return r
		}, 400, "invalid_request", ""},
		{"form client_id other than Basic's", func() request {
			r := basic(cc("identify"))
			r.form.Set("client_id", pub.id.String())
			return r
		}, 400, "invalid_request", ""},

		// authorization_code.
		{"missing code", func() request { return basic(codeForm("", confRedirect, "")) }, 400, "invalid_request", `Missing "code"`},
		{"unknown code", func() request { return basic(codeForm("nope", confRedirect, "")) },
			400, "invalid_grant", `Invalid "code" in request.`},
		{"expired code", func() request { return basic(codeForm(expiredCode(), "", "")) },
			400, "invalid_grant", "The authorization code has expired"},
		{"code of another client", func() request {
			return basic(codeForm(h.approve(t, pub.id, h.alice.ID, "identify", publicRedirect, rfcChallenge, ""),
				publicRedirect, rfcVerifier))
		}, 400, "invalid_grant", `Invalid "code" in request.`},
		{"public client without PKCE", func() request {
			return publicOnly(codeForm(h.approve(t, pub.id, h.alice.ID, "identify", publicRedirect, "", ""), publicRedirect, ""))
		}, 401, "invalid_client", "A public client may leave out its secret only for codes issued with PKCE"},
		{"missing redirect_uri", func() request { return basic(codeForm(confCode("identify"), "", "")) },
			400, "invalid_request", `Missing "redirect_uri"`},
		{"redirect_uri mismatch", func() request { return basic(codeForm(confCode("identify"), confRedirect+"/", "")) },
			400, "invalid_grant", `Invalid "redirect_uri" in request.`},
		{"loopback port is exact at the token endpoint", func() request {
			code := h.approve(t, pub.id, h.alice.ID, "identify", "http://127.0.0.1:5000/callback", rfcChallenge, "")
			return publicOnly(codeForm(code, "http://127.0.0.1:5001/callback", rfcVerifier))
		}, 400, "invalid_grant", `Invalid "redirect_uri" in request.`},
		{"missing code_verifier", func() request { return publicOnly(codeForm(pkceCode(), publicRedirect, "")) },
			400, "invalid_request", `Missing "code_verifier"`},
		{"short code_verifier", func() request { return publicOnly(codeForm(pkceCode(), publicRedirect, rfcVerifier[:42])) },
			400, "invalid_request", `Invalid "code_verifier"`},
		{"long code_verifier", func() request {
			return publicOnly(codeForm(pkceCode(), publicRedirect, strings.Repeat(rfcVerifier, 3)))
		}, 400, "invalid_request", `Invalid "code_verifier"`},
		{"code_verifier with a bad character", func() request {
			return publicOnly(codeForm(pkceCode(), publicRedirect, rfcVerifier[:42]+"+"))
		}, 400, "invalid_request", `Invalid "code_verifier"`},
		{"wrong code_verifier", func() request {
			return publicOnly(codeForm(pkceCode(), publicRedirect, strings.Repeat("a", 43)))
		}, 400, "invalid_grant", `Invalid "code_verifier"`},
		{"code_verifier for a code issued without PKCE", func() request {
			return basic(codeForm(confCode("identify"), confRedirect, rfcVerifier))
		}, 400, "invalid_grant", ""},

		// refresh_token.
		{"missing refresh_token", func() request { return basic(url.Values{"grant_type": {"refresh_token"}}) },
			400, "invalid_request", `Missing "refresh_token"`},
		{"unknown refresh token", func() request {
			return basic(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"nope"}})
		}, 400, "invalid_grant", `Invalid "refresh_token" in request.`},
		{"refresh token of another client", func() request {
			return basic(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshOf(pub)}})
		}, 400, "invalid_grant", `Invalid "refresh_token" in request.`},
		{"refresh asking for a scope not granted", func() request {
			return basic(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshOf(conf)}, "scope": {"identify email"}})
		}, 400, "invalid_scope", `Scope "email" was not granted`},
		{"refresh by a confidential client without secret", func() request {
			return request{form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshOf(conf)},
				"client_id": {conf.id.String()}}}
		}, 401, "invalid_client", ""},

		// client_credentials (the error strings of the first version).
		{"client_credentials: permissions scope", func() request { return basic(cc("applications.commands.permissions.update")) },
			400, "invalid_scope", `Scope "applications.commands.permissions.update" is not allowed for the client_credentials grant`},
		{"client_credentials: bot scope", func() request { return basic(cc("identify bot")) }, 400, "invalid_scope", ""},
		{"client_credentials: unknown scope", func() request { return basic(cc("nonsense")) }, 400, "invalid_scope", ""},
		{"client_credentials: no scope", func() request { return basic(url.Values{"grant_type": {"client_credentials"}}) },
			400, "invalid_scope", "No scope requested"},
		{"client_credentials: public client without secret", func() request { return publicOnly(cc("identify")) },
			401, "invalid_client", "The client_credentials grant needs the client secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.req()
			var r testenv.Response
			if req.raw != nil {
				r = req.raw(h)
			} else {
				r = h.post(tokenPath, req.form, req.user, req.pass)
			}
			wantOAuthError(t, r, c.status, c.code, c.description)
		})
	}
}

// TestFailedExchangeRevokesGrant: once a code is found it is spent; a
// failed exchange leaves nothing to retry.
func TestFailedExchangeRevokesGrant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := h.approve(t, h.public.id, h.alice.ID, "identify", publicRedirect, rfcChallenge, "")
	form := codeForm(code, publicRedirect, strings.Repeat("a", 43), "client_id", h.public.id.String())
	wantOAuthError(t, h.post(tokenPath, form, "", ""), 400, "invalid_grant", `Invalid "code_verifier"`)
	form.Set("code_verifier", rfcVerifier)
	wantOAuthError(t, h.post(tokenPath, form, "", ""), 400, "invalid_grant", `Invalid "code" in request.`)
}

// TestCodeReuseRevokesGrant: a code presented twice revokes its grant,
// and the access token issued the first time stops working on @me and
// on the commands API (RFC 6749 §4.1.2).
func TestCodeReuseRevokesGrant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := ownerOf(t, h)
	code := h.approve(t, h.conf.id, owner, "identify applications.commands.permissions.update", confRedirect, "", "")
	form := codeForm(code, confRedirect, "")
	first := h.exchange(t, form, h.conf.id.String(), h.conf.secret)
	listPath := "/api/v10/applications/" + h.conf.creds.ApplicationID + "/guilds/" + h.conf.creds.GuildID + "/commands/permissions"
	if st, _ := h.me(t, first.AccessToken); st != 200 {
		t.Fatalf("@me before reuse: %d", st)
	}
	if r := h.e.Do("GET", listPath, "Bearer "+first.AccessToken, nil); r.Status != 200 {
		t.Fatalf("commands API before reuse: %d %s", r.Status, r.Body)
	}

	wantOAuthError(t, h.post(tokenPath, form, h.conf.id.String(), h.conf.secret), 400, "invalid_grant", `Invalid "code" in request.`)

	if st, m := h.me(t, first.AccessToken); st != 401 || m["message"] != "401: Unauthorized" {
		t.Errorf("@me after reuse: %d %v", st, m)
	}
	if r := h.e.Do("GET", listPath, "Bearer "+first.AccessToken, nil); r.Status != 401 {
		t.Errorf("commands API after reuse: %d %s", r.Status, r.Body)
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}}
	wantOAuthError(t, h.post(tokenPath, refresh, h.conf.id.String(), h.conf.secret), 400, "invalid_grant", "")
}

// TestRefreshRotation: a refresh gives a new access and refresh token;
// the old refresh token is spent, and presenting it again revokes the
// grant with every token it issued.
func TestRefreshRotation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id, secret := h.conf.id.String(), h.conf.secret
	first := h.exchange(t, codeForm(h.approve(t, h.conf.id, h.alice.ID, "identify guilds", confRedirect, "", ""), confRedirect, ""), id, secret)
	refresh := func(rt string, kv ...string) url.Values {
		f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
		for i := 0; i+1 < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f
	}
	second := h.exchange(t, refresh(first.RefreshToken), id, secret)
	if second.RefreshToken == "" || second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatalf("no rotation: %+v after %+v", second, first)
	}
	if second.Scope != "identify guilds" || second.IDToken != "" {
		t.Errorf("refresh response %+v", second)
	}
	// Narrowing to part of the grant.
	third := h.exchange(t, refresh(second.RefreshToken, "scope", "identify"), id, secret)
	if third.Scope != "identify" {
		t.Errorf("narrowed scope %q", third.Scope)
	}
	for _, tok := range []string{first.AccessToken, second.AccessToken, third.AccessToken} {
		if st, _ := h.me(t, tok); st != 200 {
			t.Fatalf("@me of a live token: %d", st)
		}
	}
	// Reuse of a spent refresh token: refused, and the grant is gone.
	wantOAuthError(t, h.post(tokenPath, refresh(first.RefreshToken), id, secret), 400, "invalid_grant", `Invalid "refresh_token" in request.`)
	for _, tok := range []string{first.AccessToken, second.AccessToken, third.AccessToken} {
		if st, _ := h.me(t, tok); st != 401 {
			t.Errorf("@me after refresh reuse: %d, want 401", st)
		}
	}
	wantOAuthError(t, h.post(tokenPath, refresh(third.RefreshToken), id, secret), 400, "invalid_grant", "")
}

// TestPublicClientPKCE is the Social SDK's flow: a public client, a
// loopback redirect on an ephemeral port, PKCE, no secret anywhere.
func TestPublicClientPKCE(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	redirect := "http://127.0.0.1:49321/callback"
	if _, ok := oauth.MatchRedirectURI([]string{publicRedirect}, redirect, h.public.id, true, true); !ok {
		t.Fatal("the loopback redirect does not match")
	}
	code := h.approve(t, h.public.id, h.alice.ID, strings.Join(oauth.Expand([]string{"openid", "sdk.social_layer_presence"}), " "),
		redirect, rfcChallenge, "")
	clientID := h.public.id.String()
	tok := h.exchange(t, codeForm(code, redirect, rfcVerifier, "client_id", clientID), "", "")
	if tok.RefreshToken == "" || tok.IDToken == "" || !strings.HasPrefix(tok.Scope, "openid sdk.social_layer_presence identify") {
		t.Fatalf("token %+v", tok)
	}
	// Basic with an empty password is a public client too (x/oauth2's
	// AuthStyleInHeader without secret).
	again := h.exchange(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}, clientID, "")
	if again.AccessToken == tok.AccessToken {
		t.Fatal("same access token after refresh")
	}
	st, m := h.me(t, again.AccessToken)
	if st != 200 || m["user"].(map[string]any)["id"] != h.alice.ID.String() {
		t.Fatalf("@me %d %v", st, m)
	}
	// The default custom scheme, for a public client, with PKCE.
	def := oauth.DefaultRedirectURI(h.public.id)
	code = h.approve(t, h.public.id, h.alice.ID, "identify", def, rfcChallenge, "")
	h.exchange(t, codeForm(code, def, rfcVerifier, "client_id", clientID), "", "")
	// The confidential client may use PKCE too, with its secret.
	code = h.approve(t, h.conf.id, h.alice.ID, "identify", confRedirect, rfcChallenge, "")
	h.exchange(t, codeForm(code, confRedirect, rfcVerifier), h.conf.id.String(), h.conf.secret)
}

// TestAuthorizationCodeConfidential: a web backend's exchange, secret in
// the form, no redirect_uri sent to /authorize (none needed at the token
// endpoint), and the @me answer.
func TestAuthorizationCodeConfidential(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := h.approve(t, h.conf.id, h.alice.ID, "identify guilds", "", "", "")
	tok := h.exchange(t, codeForm(code, "", "", "client_id", h.conf.id.String(), "client_secret", h.conf.secret), "", "")
	if tok.Scope != "identify guilds" || tok.RefreshToken == "" || tok.IDToken != "" {
		t.Fatalf("token %+v", tok)
	}
	st, m := h.me(t, tok.AccessToken)
	if st != 200 {
		t.Fatalf("@me: %d %v", st, m)
	}
	// ApplicationResponse's required fields (type null, flags_new a
	// string) and the bot, a whole user object.
	botUser := map[string]any{"id": h.conf.id.String(), "username": "testapp", "avatar": nil, "discriminator": "0",
		"public_flags": 0.0, "flags": 0.0, "bot": true, "banner": nil, "accent_color": nil, "global_name": nil,
		"avatar_decoration_data": nil, "collectibles": nil, "display_name_styles": nil, "clan": nil, "primary_guild": nil}
	wantApp := map[string]any{"id": h.conf.id.String(), "name": "testapp", "icon": nil, "description": "",
		"type": nil, "bot": botUser, "hook": true, "bot_public": true, "bot_require_code_grant": false,
		"verify_key": h.conf.creds.PublicKey, "flags": 0.0, "flags_new": "0"}
	if app := m["application"]; !reflect.DeepEqual(app, wantApp) {
		t.Errorf("@me application\n got  %v\n want %v", app, wantApp)
	}
	if s := m["scopes"].([]any); len(s) != 2 || s[0] != "identify" || s[1] != "guilds" {
		t.Errorf("@me scopes %v", s)
	}
	expires, err := time.Parse("2006-01-02T15:04:05.000000+00:00", m["expires"].(string))
	if err != nil || expires.Sub(time.Now()) < 604700*time.Second || expires.Sub(time.Now()) > 604800*time.Second {
		t.Errorf("@me expires %v (%v)", m["expires"], err)
	}
	wantUser := map[string]any{"id": h.alice.ID.String(), "username": "alice", "avatar": nil, "discriminator": "0",
		"public_flags": 0.0, "flags": 0.0, "banner": nil, "accent_color": nil, "global_name": nil,
		"avatar_decoration_data": nil, "collectibles": nil, "display_name_styles": nil, "clan": nil, "primary_guild": nil}
	if user := m["user"]; !reflect.DeepEqual(user, wantUser) {
		t.Errorf("@me user\n got  %v\n want %v", user, wantUser)
	}
}

// TestMe covers GET /oauth2/@me's refusals and the user object's absence
// without identify.
func TestMe(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := h.approve(t, h.conf.id, h.alice.ID, "guilds", confRedirect, "", "")
	tok := h.exchange(t, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret)
	st, m := h.me(t, tok.AccessToken)
	if _, ok := m["user"]; st != 200 || ok {
		t.Errorf("@me without identify: %d %v", st, m)
	}
	for name, authz := range map[string]string{
		"no token":      "",
		"unknown token": "Bearer nope",
		"bot token":     h.e.Bot(),
		"bare token":    tok.AccessToken,
	} {
		r := h.e.Do("GET", "/api/v10/oauth2/@me", authz, nil)
		if r.Status != 401 || string(r.Body) != `{"message":"401: Unauthorized","code":0}` {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// Every API prefix serves it.
	for _, p := range []string{"/api/v9", "/api"} {
		if r := h.e.Do("GET", p+"/oauth2/@me", "Bearer "+tok.AccessToken, nil); r.Status != 200 {
			t.Errorf("%s/oauth2/@me: %d", p, r.Status)
		}
	}
	// userinfo needs openid or identify (RFC 6750's insufficient_scope).
	if r := h.e.Do("GET", "/api/v10/oauth2/userinfo", "Bearer "+tok.AccessToken, nil); r.Status != 403 {
		t.Errorf("userinfo without openid: %d", r.Status)
	}
}

// TestIDToken: with openid the exchange returns an id_token signed RS256
// by a key of the JWKS, carrying the nonce, issuer, audience and subject;
// the key survives a restart of the server on the same store.
func TestIDToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code := h.approve(t, h.public.id, h.alice.ID, "openid identify", publicRedirect, rfcChallenge, "n-0S6_WzA2Mj")
	tok := h.exchange(t, codeForm(code, publicRedirect, rfcVerifier, "client_id", h.public.id.String()), "", "")
	if tok.IDToken == "" {
		t.Fatalf("no id_token: %+v", tok)
	}
	claims := verifyIDToken(t, h.e, h.e.URL+"/api/v10/oauth2/keys", tok.IDToken)
	if claims["iss"] != h.e.URL || claims["sub"] != h.alice.ID.String() || claims["aud"] != h.public.id.String() ||
		claims["nonce"] != "n-0S6_WzA2Mj" {
		t.Errorf("claims %v", claims)
	}
	iat, exp := claims["iat"].(float64), claims["exp"].(float64)
	if exp-iat != 604800 || time.Since(time.Unix(int64(iat), 0)) > time.Minute {
		t.Errorf("iat %v exp %v", iat, exp)
	}
	sum := sha256.Sum256([]byte(tok.AccessToken))
	if claims["at_hash"] != base64.RawURLEncoding.EncodeToString(sum[:16]) {
		t.Errorf("at_hash %v", claims["at_hash"])
	}
	// userinfo agrees on the subject.
	r := h.e.Do("GET", "/api/v10/oauth2/userinfo", "Bearer "+tok.AccessToken, nil)
	var info map[string]any
	r.JSON(t, &info)
	if r.Status != 200 || info["sub"] != h.alice.ID.String() || info["preferred_username"] != "alice" {
		t.Errorf("userinfo %d %v", r.Status, info)
	}

	// Without a nonce there is no nonce claim; the same key signs.
	code = h.approve(t, h.conf.id, h.alice.ID, "openid", confRedirect, "", "")
	tok2 := h.exchange(t, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret)
	claims = verifyIDToken(t, h.e, h.e.URL+"/api/v10/oauth2/keys", tok2.IDToken)
	if _, ok := claims["nonce"]; ok || claims["aud"] != h.conf.id.String() {
		t.Errorf("claims %v", claims)
	}
	h1, _, _, _ := jwtParts(t, tok.IDToken)
	h2, _, _, _ := jwtParts(t, tok2.IDToken)
	if h1["kid"] != h2["kid"] {
		t.Errorf("two keys in one process: %v %v", h1["kid"], h2["kid"])
	}

	// A restarted server on the same store publishes and signs with the
	// same key: old id_tokens still verify.
	restarted := h.e.Restart()
	verifyIDToken(t, restarted, restarted.URL+"/api/oauth2/keys", tok.IDToken)
	code = h.approve(t, h.conf.id, h.alice.ID, "openid", confRedirect, "", "")
	r = restarted.PostForm(tokenPath, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret)
	var tok3 tokens
	r.JSON(t, &tok3)
	if h3, _, _, _ := jwtParts(t, tok3.IDToken); h3["kid"] != h1["kid"] {
		t.Errorf("restarted server signs with %v, want %v", h3["kid"], h1["kid"])
	}
}

// TestRevoke covers POST /oauth2/token/revoke (RFC 7009).
func TestRevoke(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const revokePath = "/api/v10/oauth2/token/revoke"
	id, secret := h.conf.id.String(), h.conf.secret
	grant := func() tokens {
		return h.exchange(t, codeForm(h.approve(t, h.conf.id, h.alice.ID, "identify", confRedirect, "", ""), confRedirect, ""), id, secret)
	}
	revoke := func(form url.Values, user, pass string) testenv.Response {
		t.Helper()
		return h.post(revokePath, form, user, pass)
	}
	ok := func(r testenv.Response) {
		t.Helper()
		if r.Status != 200 || string(r.Body) != "{}" {
			t.Fatalf("revoke: %d %s", r.Status, r.Body)
		}
	}
	gone := func(tok tokens) {
		t.Helper()
		if st, _ := h.me(t, tok.AccessToken); st != 401 {
			t.Errorf("access token alive after revocation: %d", st)
		}
		wantOAuthError(t, h.post(tokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}, id, secret),
			400, "invalid_grant", "")
	}

	t.Run("access token revokes the grant", func(t *testing.T) {
		tok := grant()
		ok(revoke(url.Values{"token": {tok.AccessToken}}, id, secret))
		gone(tok)
	})
	t.Run("refresh token with the hint", func(t *testing.T) {
		tok := grant()
		ok(revoke(url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}}, id, secret))
		gone(tok)
	})
	t.Run("refresh token with a wrong hint", func(t *testing.T) {
		tok := grant()
		ok(revoke(url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"access_token"}}, id, secret))
		gone(tok)
	})
	t.Run("other grants live on", func(t *testing.T) {
		a, b := grant(), grant()
		ok(revoke(url.Values{"token": {a.AccessToken}}, id, secret))
		if st, _ := h.me(t, b.AccessToken); st != 200 {
			t.Errorf("the other grant's token: %d", st)
		}
	})
	t.Run("unknown token is 200", func(t *testing.T) {
		ok(revoke(url.Values{"token": {"nope"}}, id, secret))
		ok(revoke(url.Values{"token": {"nope"}, "token_type_hint": {"something_else"}}, id, secret))
	})
	t.Run("bot token is not revoked", func(t *testing.T) {
		ok(revoke(url.Values{"token": {h.conf.creds.BotToken}}, id, secret))
		if r := h.e.Do("GET", "/api/v10/applications/"+id+"/commands", h.e.Bot(), nil); r.Status != 200 {
			t.Errorf("bot token after revoke: %d", r.Status)
		}
	})
	t.Run("client_credentials token", func(t *testing.T) {
		tok := h.exchange(t, url.Values{"grant_type": {"client_credentials"}, "scope": {"identify"}}, id, secret)
		if tok.RefreshToken != "" {
			t.Fatalf("client_credentials with a refresh token: %+v", tok)
		}
		ok(revoke(url.Values{"token": {tok.AccessToken}}, id, secret))
		if st, _ := h.me(t, tok.AccessToken); st != 401 {
			t.Errorf("client_credentials token after revoke: %d", st)
		}
	})
	t.Run("public client without secret", func(t *testing.T) {
		code := h.approve(t, h.public.id, h.alice.ID, "identify", publicRedirect, rfcChallenge, "")
		pid := h.public.id.String()
		tok := h.exchange(t, codeForm(code, publicRedirect, rfcVerifier, "client_id", pid), "", "")
		ok(revoke(url.Values{"token": {tok.AccessToken}, "client_id": {pid}}, "", ""))
		if st, _ := h.me(t, tok.AccessToken); st != 401 {
			t.Errorf("after revoke: %d", st)
		}
	})
	t.Run("errors", func(t *testing.T) {
		tok := grant()
		wantOAuthError(t, revoke(url.Values{}, id, secret), 400, "invalid_request", `Missing "token"`)
		wantOAuthError(t, revoke(url.Values{"token": {tok.AccessToken}}, id, "nope"), 401, "invalid_client", "")
		wantOAuthError(t, revoke(url.Values{"token": {tok.AccessToken}, "client_id": {id}}, "", ""), 401, "invalid_client", "")
		wantOAuthError(t, revoke(url.Values{"token": {tok.AccessToken}}, h.public.id.String(), h.public.secret),
			400, "unauthorized_client", "")
		if st, _ := h.me(t, tok.AccessToken); st != 200 {
			t.Errorf("a refused revocation revoked: %d", st)
		}
		r := h.e.Do("POST", revokePath, "", `{"token":"x"}`)
		wantOAuthError(t, r, 400, "invalid_request", "")
		if r := h.e.Do("GET", revokePath, "", nil); r.Status != 405 {
			t.Errorf("GET revoke: %d", r.Status)
		}
	})
}

// TestDiscovery checks the OpenID Connect discovery document.
func TestDiscovery(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.e.Do("GET", "/.well-known/openid-configuration", "", nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
	var doc map[string]any
	r.JSON(t, &doc)
	base := h.e.URL
	strs := map[string]string{
		"issuer":                 base,
		"authorization_endpoint": base + "/oauth2/authorize",
		"token_endpoint":         base + "/api/v10/oauth2/token",
		"revocation_endpoint":    base + "/api/v10/oauth2/token/revoke",
		"userinfo_endpoint":      base + "/api/v10/oauth2/userinfo",
		"jwks_uri":               base + "/api/v10/oauth2/keys",
	}
	for k, want := range strs {
		if doc[k] != want {
			t.Errorf("%s = %v, want %s", k, doc[k], want)
		}
	}
	lists := map[string][]string{
		"response_types_supported":              {"code"},
		"code_challenge_methods_supported":      {"S256"},
		"token_endpoint_auth_methods_supported": {"client_secret_basic", "client_secret_post", "none"},
		"id_token_signing_alg_values_supported": {"RS256"},
		"subject_types_supported":               {"public"},
		"grant_types_supported":                 {"authorization_code", "refresh_token", "client_credentials"},
		"prompt_values_supported":               {"none", "login", "consent", "select_account"},
		"claims_supported": {"iss", "sub", "aud", "iat", "exp", "auth_time", "nonce", "at_hash",
			"preferred_username", "nickname", "locale"},
	}
	for k, want := range lists {
		got, _ := doc[k].([]any)
		if len(got) != len(want) {
			t.Errorf("%s = %v, want %v", k, doc[k], want)
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s = %v, want %v", k, doc[k], want)
			}
		}
	}
	// Request forms slashd does not take are said so (request_uri's
	// default would be true, Discovery §3).
	for _, k := range []string{"request_parameter_supported", "request_uri_parameter_supported", "claims_parameter_supported"} {
		if v, ok := doc[k]; !ok || v != false {
			t.Errorf("%s = %v, want false", k, v)
		}
	}
	scopes, _ := doc["scopes_supported"].([]any)
	if len(scopes) != len(oauth.Scopes()) {
		t.Errorf("scopes_supported %v", scopes)
	}
	// Every URL it names answers.
	for _, k := range []string{"jwks_uri"} {
		if r := h.e.Do("GET", strings.TrimPrefix(doc[k].(string), base), "", nil); r.Status != 200 {
			t.Errorf("%s: %d", k, r.Status)
		}
	}
}

// TestUserTokenEditsPermissions is issue item 3: a user token with
// applications.commands.permissions.update, issued through the consent
// flow (IssueCode) and the code exchange, edits a command's permissions
// for the guild owner; after revocation it no longer does.
func TestUserTokenEditsPermissions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := ownerOf(t, h)
	app, guild := h.conf.creds.ApplicationID, h.conf.creds.GuildID
	r := h.e.Do("POST", "/api/v10/applications/"+app+"/guilds/"+guild+"/commands", h.e.Bot(),
		map[string]string{"name": "ban", "description": "Bans someone"})
	if r.Status != 201 {
		t.Fatalf("create command: %d %s", r.Status, r.Body)
	}
	var cmd struct{ ID string }
	r.JSON(t, &cmd)

	code := h.approve(t, h.conf.id, owner, "identify applications.commands.permissions.update", confRedirect, rfcChallenge, "")
	tok := h.exchange(t, codeForm(code, confRedirect, rfcVerifier), h.conf.id.String(), h.conf.secret)
	if tok.Scope != "identify applications.commands.permissions.update" {
		t.Fatalf("scope %q", tok.Scope)
	}
	path := "/api/v10/applications/" + app + "/guilds/" + guild + "/commands/" + cmd.ID + "/permissions"
	body := map[string]any{"permissions": []map[string]any{{"id": guild, "type": 1, "permission": false}}}
	r = h.e.Do("PUT", path, "Bearer "+tok.AccessToken, body)
	if r.Status != 200 {
		t.Fatalf("PUT permissions with the user token: %d %s", r.Status, r.Body)
	}
	if r := h.e.Do("GET", path, h.e.Bot(), nil); r.Status != 200 || !strings.Contains(string(r.Body), `"permission":false`) {
		t.Fatalf("permissions after the edit: %d %s", r.Status, r.Body)
	}
	// alice, who is not in the guild, is refused with her own token.
	code = h.approve(t, h.conf.id, h.alice.ID, "applications.commands.permissions.update", confRedirect, "", "")
	alice := h.exchange(t, codeForm(code, confRedirect, ""), h.conf.id.String(), h.conf.secret)
	if r := h.e.Do("PUT", path, "Bearer "+alice.AccessToken, body); r.Status != 403 {
		t.Errorf("PUT permissions by a non-member: %d %s", r.Status, r.Body)
	}
	// Revoked, the owner's token no longer works.
	if r := h.post("/api/v10/oauth2/token/revoke", url.Values{"token": {tok.RefreshToken}}, h.conf.id.String(), h.conf.secret); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if r := h.e.Do("PUT", path, "Bearer "+tok.AccessToken, body); r.Status != 401 {
		t.Errorf("PUT permissions after revocation: %d %s", r.Status, r.Body)
	}
}

// TestIssueCode covers IssueCode's own checks.
func TestIssueCode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	g := store.Grant{ApplicationID: h.conf.id, UserID: h.alice.ID, Scopes: []string{"identify"}}
	for name, c := range map[string]struct {
		grant             store.Grant
		challenge, method string
		want              string
	}{
		"plain PKCE":                {g, rfcVerifier, "plain", "invalid_request"},
		"client_credentials scope":  {store.Grant{ApplicationID: h.conf.id, UserID: h.alice.ID, Scopes: []string{"applications.commands.update"}}, "", "", "invalid_scope"},
		"no scope":                  {store.Grant{ApplicationID: h.conf.id, UserID: h.alice.ID}, "", "", "invalid_scope"},
		"challenge without method":  {g, rfcChallenge, "", "invalid_request"},
		"method without challenge":  {g, "", "S256", "invalid_request"},
		"challenge of wrong length": {g, rfcChallenge + "A", "S256", "invalid_request"},
	} {
		_, err := h.e.OAuth.IssueCode(ctx, c.grant, "", c.challenge, c.method, "")
		var e *oauth.Error
		if !asError(err, &e) || e.Code != c.want {
			t.Errorf("%s: %v, want %s", name, err, c.want)
		}
	}
	// A grant for an unknown user fails without leaving a grant behind.
	if _, err := h.e.OAuth.IssueCode(ctx, store.Grant{ApplicationID: h.conf.id, UserID: 42, Scopes: []string{"identify"}}, "", "", "", ""); err == nil {
		t.Error("IssueCode for an unknown user succeeded")
	}
	// The code is stored hashed, for 10 minutes, with the grant.
	code, err := h.e.OAuth.IssueCode(ctx, g, confRedirect, rfcChallenge, "S256", "nonce")
	if err != nil {
		t.Fatal(err)
	}
	c, err := h.e.Store.UseCode(ctx, auth.Hash(code))
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(c.ExpiresAt); left < 9*time.Minute || left > 10*time.Minute ||
		c.RedirectURI != confRedirect || c.CodeChallenge != rfcChallenge || c.CodeChallengeMethod != "S256" || c.Nonce != "nonce" {
		t.Errorf("stored code %+v", c)
	}
	if stored, err := h.e.Store.Grant(ctx, c.GrantID); err != nil || stored.UserID != h.alice.ID || stored.CreatedAt.IsZero() {
		t.Errorf("stored grant %+v, %v", stored, err)
	}
}

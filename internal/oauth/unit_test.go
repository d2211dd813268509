package oauth_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
)

// RFC 7636 appendix B.
const (
	rfcVerifier  = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
)

func TestS256ChallengeRFC7636AppendixB(t *testing.T) {
	if got := oauth.S256Challenge(rfcVerifier); got != rfcChallenge {
		t.Fatalf("S256Challenge(%q) = %q, want %q", rfcVerifier, got, rfcChallenge)
	}
	if !oauth.ValidCodeVerifier(rfcVerifier) {
		t.Fatal("the RFC's verifier is not valid")
	}
	if e := oauth.CheckCodeChallenge(rfcChallenge, "S256"); e != nil {
		t.Fatalf("the RFC's challenge: %v", e)
	}
}

func TestValidCodeVerifier(t *testing.T) {
	cases := []struct {
		name string
		v    string
		want bool
	}{
		{"43 characters", strings.Repeat("a", 43), true},
		{"128 characters", strings.Repeat("Z", 128), true},
		{"every allowed character", "ABCXYZabcxyz0189-._~" + strings.Repeat("q", 23), true},
		{"42 characters", strings.Repeat("a", 42), false},
		{"129 characters", strings.Repeat("a", 129), false},
		{"empty", "", false},
		{"plus", strings.Repeat("a", 42) + "+", false},
		{"slash", strings.Repeat("a", 42) + "/", false},
		{"padding", strings.Repeat("a", 42) + "=", false},
		{"space", strings.Repeat("a", 42) + " ", false},
		{"non-ASCII", strings.Repeat("a", 42) + "é", false},
	}
	for _, c := range cases {
		if got := oauth.ValidCodeVerifier(c.v); got != c.want {
			t.Errorf("%s: ValidCodeVerifier(%q) = %v, want %v", c.name, c.v, got, c.want)
		}
	}
}

func TestCheckCodeChallenge(t *testing.T) {
	cases := []struct {
		name, challenge, method string
		want                    string // error_description, "" for none
	}{
		{"no PKCE", "", "", ""},
		{"S256", rfcChallenge, "S256", ""},
		{"plain is not supported", rfcVerifier, "plain", `Unsupported "code_challenge_method"`},
		{"method left out (plain by default)", rfcChallenge, "", `Unsupported "code_challenge_method"`},
		{"lower-case method", rfcChallenge, "s256", `Unsupported "code_challenge_method"`},
		{"method without challenge", "", "S256", `Missing "code_challenge"`},
		{"short challenge", rfcChallenge[:42], "S256", `Invalid "code_challenge"`},
		{"padded challenge", rfcChallenge[:42] + "=", "S256", `Invalid "code_challenge"`},
	}
	for _, c := range cases {
		e := oauth.CheckCodeChallenge(c.challenge, c.method)
		switch {
		case c.want == "" && e != nil:
			t.Errorf("%s: %v, want no error", c.name, e)
		case c.want != "" && (e == nil || e.Code != "invalid_request" || e.Description != c.want):
			t.Errorf("%s: %v, want invalid_request %s", c.name, e, c.want)
		}
	}
}

func TestMatchRedirectURI(t *testing.T) {
	const app snowflake.ID = 1234567890123456789
	registered := []string{
		"https://game.example/callback",
		"http://127.0.0.1/callback",
		"http://[::1]:8000/cb",
		"mygame:/authorize/callback",
		"https://game.example/with?query=1",
	}
	def := "service-1234567890123456789:/authorize/callback"
	cases := []struct {
		name         string
		requested    string
		public, pkce bool
		want         bool
	}{
		{"exact https", "https://game.example/callback", false, false, true},
		{"exact with a query", "https://game.example/with?query=1", false, false, true},
		{"trailing slash differs", "https://game.example/callback/", false, false, false},
		{"http for https", "http://game.example/callback", false, false, false},
		{"case of the path", "https://game.example/Callback", false, false, false},
		{"another query", "https://game.example/callback?x=1", false, false, false},
		{"a fragment", "https://game.example/callback#x", false, false, false},
		{"another host", "https://evil.example/callback", false, false, false},
		{"https on a port", "https://game.example:8443/callback", false, false, false},
		{"loopback, registered without port", "http://127.0.0.1/callback", false, false, true},
		{"loopback, any port", "http://127.0.0.1:49152/callback", false, false, true},
		{"loopback, another path", "http://127.0.0.1:49152/other", false, false, false},
		{"loopback, extra query", "http://127.0.0.1:49152/callback?x=1", false, false, false},
		{"loopback v6, any port", "http://[::1]:5000/cb", false, false, true},
		{"loopback v6 without port", "http://[::1]/cb", false, false, true},
		{"loopback v4 for a v6 registration", "http://127.0.0.1:5000/cb", false, false, false},
		{"localhost is not loopback here", "http://localhost:5000/callback", false, false, false},
		{"https loopback is exact only", "https://127.0.0.1:5000/callback", false, false, false},
		{"loopback with user info", "http://u@127.0.0.1:5000/callback", false, false, false},
		{"custom scheme with PKCE", "mygame:/authorize/callback", false, true, true},
		{"custom scheme without PKCE", "mygame:/authorize/callback", false, false, false},
		{"default scheme, public, PKCE", def, true, true, true},
		{"default scheme, public, no PKCE", def, true, false, false},
		{"default scheme, confidential", def, false, true, false},
		{"default scheme of another app", "service-1:/authorize/callback", true, true, false},
		{"default scheme, another path", "service-1234567890123456789:/other", true, true, false},
		{"empty", "", true, true, false},
		{"relative", "/callback", true, true, false},
		{"not a URI", "http://%zz", true, true, false},
	}
	for _, c := range cases {
		got, ok := oauth.MatchRedirectURI(registered, c.requested, app, c.public, c.pkce)
		if ok != c.want {
			t.Errorf("%s: MatchRedirectURI(%q, public %v, pkce %v) = %v, want %v", c.name, c.requested, c.public, c.pkce, ok, c.want)
		}
		if ok && got != c.requested {
			t.Errorf("%s: redirect to %q, want the requested %q", c.name, got, c.requested)
		}
	}
	if got := oauth.DefaultRedirectURI(app); got != def {
		t.Errorf("DefaultRedirectURI = %q, want %q", got, def)
	}
}

func TestValidateRedirectURI(t *testing.T) {
	cases := []struct {
		uri string
		ok  bool
	}{
		{"https://game.example/callback", true},
		{"http://127.0.0.1/callback", true},
		{"http://[::1]:8000/cb", true},
		{"mygame:/authorize/callback", true},
		{"com.example.game:/oauth", true},
		{"", false},
		{"/relative", false},
		{"game.example/callback", false},
		{"https://game.example/cb#frag", false},
		{"https:///nohost", false},
		{"javascript:alert(1)", false},
		{"data:text/html,hi", false},
		{"file:///etc/passwd", false},
		{"https://game.example/a b", false},
		{"https://game.example/" + strings.Repeat("a", 2048), false},
	}
	for _, c := range cases {
		if err := oauth.ValidateRedirectURI(c.uri); (err == nil) != c.ok {
			t.Errorf("ValidateRedirectURI(%q) = %v, want ok %v", c.uri, err, c.ok)
		}
	}
}

func TestScopeTable(t *testing.T) {
	// Every scope the issue names is known and described.
	for _, name := range []string{"identify", "email", "guilds", "openid", "bot", "applications.commands",
		"applications.commands.update", "applications.commands.permissions.update", "sdk.social_layer",
		"sdk.social_layer_presence", "guilds.members.read", "connections"} {
		if !oauth.KnownScope(name) {
			t.Errorf("%s is not known", name)
		}
	}
	for _, s := range oauth.Scopes() {
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
		for _, inc := range s.Includes {
			if !oauth.KnownScope(inc) {
				t.Errorf("%s includes unknown %s", s.Name, inc)
			}
		}
	}
	if oauth.KnownScope("nonsense") {
		t.Error("nonsense is known")
	}
}

func TestExpand(t *testing.T) {
	presence := []string{"sdk.social_layer_presence", "identify", "relationships.read", "activities.write"}
	cases := []struct {
		in, want []string
	}{
		{nil, []string{}},
		{[]string{"identify", "guilds"}, []string{"identify", "guilds"}},
		{[]string{"openid", "sdk.social_layer_presence"}, append([]string{"openid"}, presence...)},
		{[]string{"openid", "sdk.social_layer"}, append(append([]string{"openid", "sdk.social_layer"}, presence...),
			"relationships.write", "guilds", "dm_channels.read", "dm_channels.messages.read", "dm_channels.messages.write",
			"lobbies.write", "voice")},
		// Repeats and overlaps appear once, in first-seen order.
		{[]string{"identify", "sdk.social_layer_presence", "identify"}, []string{"identify", "sdk.social_layer_presence",
			"relationships.read", "activities.write"}},
		{[]string{"unknown.scope"}, []string{"unknown.scope"}},
	}
	for _, c := range cases {
		if got := oauth.Expand(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// The communication umbrella stands for everything the presence one does.
	layer := oauth.Expand([]string{"sdk.social_layer"})
	for _, s := range oauth.Expand([]string{"sdk.social_layer_presence"}) {
		if !slices.Contains(layer, s) {
			t.Errorf("sdk.social_layer lacks %s", s)
		}
	}
}

func TestDescribeScopes(t *testing.T) {
	got := oauth.DescribeScopes([]string{"openid", "sdk.social_layer_presence"})
	want := len(oauth.Expand([]string{"openid", "sdk.social_layer_presence"})) - 1 // the umbrella itself is not listed
	if len(got) != want {
		t.Fatalf("DescribeScopes = %q, want %d lines", got, want)
	}
	for _, d := range got {
		if strings.Contains(d, "sdk.") || d == "" {
			t.Errorf("line %q is not plain words", d)
		}
	}
}

func TestCheckScopes(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{[]string{"identify", "applications.commands.permissions.update"}, ""},
		{[]string{"openid", "sdk.social_layer"}, ""},
		{oauth.Expand([]string{"openid", "sdk.social_layer"}), ""},
		{nil, "No scope requested"},
		{[]string{"identify", "nonsense"}, `Invalid scope "nonsense"`},
		{[]string{"applications.commands.update"}, `Scope "applications.commands.update" is only for the client_credentials grant`},
	}
	for _, c := range cases {
		e := oauth.CheckScopes(c.in)
		switch {
		case c.want == "" && e != nil:
			t.Errorf("CheckScopes(%q) = %v, want nil", c.in, e)
		case c.want != "" && (e == nil || e.Code != "invalid_scope" || e.Description != c.want):
			t.Errorf("CheckScopes(%q) = %v, want invalid_scope %s", c.in, e, c.want)
		}
	}
}

func TestPasswords(t *testing.T) {
	hash, err := oauth.HashPassword(rand.Reader, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).Match(hash) {
		t.Fatalf("encoding %s", hash)
	}
	again, _ := oauth.HashPassword(rand.Reader, "correct horse")
	if bytes.Equal(hash, again) {
		t.Error("two hashes of one password are equal: no salt")
	}
	checks := []struct {
		name string
		hash []byte
		pw   string
		want bool
	}{
		{"right password", hash, "correct horse", true},
		{"the other hash", again, "correct horse", true},
		{"wrong password", hash, "correct horsf", false},
		{"empty password", hash, "", false},
		{"no hash", nil, "correct horse", false},
		{"not argon2id", []byte("$2a$10$abcdefghijklmnopqrstuv"), "correct horse", false},
		{"another version", bytes.Replace(hash, []byte("v=19"), []byte("v=16"), 1), "correct horse", false},
		{"absurd memory", bytes.Replace(hash, []byte("m=19456"), []byte("m=4000000000"), 1), "correct horse", false},
		{"truncated", hash[:len(hash)-10], "correct horse", false},
	}
	for _, c := range checks {
		if got := oauth.CheckPassword(c.hash, c.pw); got != c.want {
			t.Errorf("%s: CheckPassword = %v, want %v", c.name, got, c.want)
		}
	}
	for _, pw := range []string{"", "short", strings.Repeat("x", 7), strings.Repeat("x", 129)} {
		if _, err := oauth.HashPassword(rand.Reader, pw); !errors.Is(err, oauth.ErrPasswordLength) {
			t.Errorf("HashPassword(%d characters) = %v, want ErrPasswordLength", len(pw), err)
		}
	}
	// Length counts characters: eight two-byte characters are enough.
	if _, err := oauth.HashPassword(rand.Reader, "éééééééé"); err != nil {
		t.Errorf("eight accented characters: %v", err)
	}
}

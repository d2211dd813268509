package authorize

import (
	"fmt"
	"strings"
	"testing"
)

func TestNullObj(t *testing.T) {
	var zero AuthorizationArgs
	if zero.Valid() || Null().Valid() {
		t.Error("the zero value and Null() must be invalid (nullobj)")
	}
	if zero != Null() {
		t.Error("Null() must be the zero value")
	}
	if !NewAuthorizationArgs().Valid() {
		t.Error("NewAuthorizationArgs() must be valid")
	}
	if NewAuthorizationArgs() == Null() {
		t.Error("an initialized instance must differ from nullobj")
	}
	a := Null()
	a.SetScopes("openid")
	if !a.Valid() {
		t.Error("a setter must initialize the null object")
	}
	if n := Null(); n.String() != "AuthorizationArgs(nullobj)" {
		t.Errorf("String() = %q", n.String())
	}
}

func fullArgs() AuthorizationArgs {
	a := NewAuthorizationArgs()
	a.SetClientId(42)
	a.SetScopes("openid sdk.social_layer")
	a.SetState(Some("state-1"))
	a.SetNonce(Some("nonce-1"))
	a.SetCodeChallenge(Some(AuthorizationCodeChallenge{Challenge: "c1", Method: S256}))
	a.SetIntegrationType(Some(UserInstall))
	a.SetCustomSchemeParam(Some("mygame"))
	return a
}

func TestAuthorizationArgsGetters(t *testing.T) {
	a := fullArgs()
	if a.ClientId() != 42 || a.Scopes() != "openid sdk.social_layer" {
		t.Errorf("ClientId/Scopes = %d/%q", a.ClientId(), a.Scopes())
	}
	if s, ok := a.State().Get(); !ok || s != "state-1" {
		t.Errorf("State = %q, %v", s, ok)
	}
	if s, ok := a.Nonce().Get(); !ok || s != "nonce-1" {
		t.Errorf("Nonce = %q, %v", s, ok)
	}
	if c, ok := a.CodeChallenge().Get(); !ok || c != (AuthorizationCodeChallenge{"c1", S256}) {
		t.Errorf("CodeChallenge = %+v, %v", c, ok)
	}
	if it, ok := a.IntegrationType().Get(); !ok || it != UserInstall {
		t.Errorf("IntegrationType = %v, %v", it, ok)
	}
	if s, ok := a.CustomSchemeParam().Get(); !ok || s != "mygame" {
		t.Errorf("CustomSchemeParam = %q, %v", s, ok)
	}
	if s := a.String(); strings.Contains(s, "state-1") || strings.Contains(s, "nonce-1") {
		t.Errorf("String() leaks the state or nonce: %s", s)
	}
}

func TestAuthorizationArgsCopiesAreIndependent(t *testing.T) {
	mutations := []struct {
		name string
		f    func(*AuthorizationArgs)
	}{
		{"ClientId", func(a *AuthorizationArgs) { a.SetClientId(7) }},
		{"Scopes", func(a *AuthorizationArgs) { a.SetScopes("identify") }},
		{"State", func(a *AuthorizationArgs) { a.SetState(Some("other")) }},
		{"State unset", func(a *AuthorizationArgs) { a.SetState(None[string]()) }},
		{"Nonce", func(a *AuthorizationArgs) { a.SetNonce(Some("")) }},
		{"CodeChallenge", func(a *AuthorizationArgs) {
			a.SetCodeChallenge(Some(AuthorizationCodeChallenge{Challenge: "c2"}))
		}},
		{"IntegrationType", func(a *AuthorizationArgs) { a.SetIntegrationType(Some(GuildInstall)) }},
		{"CustomSchemeParam", func(a *AuthorizationArgs) { a.SetCustomSchemeParam(None[string]()) }},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			orig := fullArgs()
			cp := orig
			m.f(&cp)
			if orig != fullArgs() {
				t.Errorf("changing the copy changed the original: %v", orig)
			}
			if cp == orig {
				t.Errorf("the copy did not change")
			}
			// The reverse: changing the original leaves the copy alone.
			orig2 := fullArgs()
			cp2 := orig2
			m.f(&orig2)
			if cp2 != fullArgs() {
				t.Errorf("changing the original changed the copy")
			}
		})
	}
	t.Run("getter results", func(t *testing.T) {
		a := fullArgs()
		st := a.State()
		st.Set("changed")
		ch := a.CodeChallenge()
		ch.Unset()
		if a != fullArgs() {
			t.Error("changing a getter's result changed the args")
		}
	})
}

func TestOptionalUnsetVersusEmpty(t *testing.T) {
	type prop struct {
		name    string
		setSome func(*AuthorizationArgs) // set to the empty value
		isSet   func(AuthorizationArgs) bool
	}
	props := []prop{
		{"State", func(a *AuthorizationArgs) { a.SetState(Some("")) }, func(a AuthorizationArgs) bool { return a.State().IsSet() }},
		{"Nonce", func(a *AuthorizationArgs) { a.SetNonce(Some("")) }, func(a AuthorizationArgs) bool { return a.Nonce().IsSet() }},
		{"CodeChallenge", func(a *AuthorizationArgs) { a.SetCodeChallenge(Some(AuthorizationCodeChallenge{})) },
			func(a AuthorizationArgs) bool { return a.CodeChallenge().IsSet() }},
		{"IntegrationType", func(a *AuthorizationArgs) { a.SetIntegrationType(Some(GuildInstall)) }, // GuildInstall is 0
			func(a AuthorizationArgs) bool { return a.IntegrationType().IsSet() }},
		{"CustomSchemeParam", func(a *AuthorizationArgs) { a.SetCustomSchemeParam(Some("")) },
			func(a AuthorizationArgs) bool { return a.CustomSchemeParam().IsSet() }},
	}
	for _, p := range props {
		t.Run(p.name, func(t *testing.T) {
			unset := NewAuthorizationArgs()
			empty := NewAuthorizationArgs()
			p.setSome(&empty)
			if p.isSet(unset) {
				t.Error("unset reads as set")
			}
			if !p.isSet(empty) {
				t.Error("set to the zero value reads as unset")
			}
			if unset == empty {
				t.Error("unset and set-to-empty compare equal")
			}
		})
	}
}

func TestOptional(t *testing.T) {
	var o Optional[int]
	if o.IsSet() || o.Or(5) != 5 || o.String() != "<unset>" || o != None[int]() {
		t.Errorf("zero Optional: %v", o)
	}
	o.Set(0)
	if v, ok := o.Get(); !ok || v != 0 || o.Or(5) != 0 || o.String() != "0" || o != Some(0) {
		t.Errorf("Some(0): %v", o)
	}
	o.Unset()
	if o.IsSet() {
		t.Error("Unset left it set")
	}
}

func TestRedirectURI(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*AuthorizationArgs)
		appID uint64
		want  string
	}{
		{"default scheme", func(*AuthorizationArgs) {}, 123, "service-123:/authorize/callback"},
		{"default scheme from ClientId", func(a *AuthorizationArgs) { a.SetClientId(456) }, 123, "service-456:/authorize/callback"},
		{"custom scheme", func(a *AuthorizationArgs) { a.SetCustomSchemeParam(Some("mygame")) }, 123, "mygame:/authorize/callback"},
		{"custom scheme wins over ClientId", func(a *AuthorizationArgs) {
			a.SetClientId(456)
			a.SetCustomSchemeParam(Some("com.example.game"))
		}, 123, "com.example.game:/authorize/callback"},
		{"unset again", func(a *AuthorizationArgs) {
			a.SetCustomSchemeParam(Some("mygame"))
			a.SetCustomSchemeParam(None[string]())
		}, 9, "service-9:/authorize/callback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAuthorizationArgs()
			tt.setup(&a)
			if got := a.RedirectURI(tt.appID); got != tt.want {
				t.Errorf("RedirectURI(%d) = %q, want %q", tt.appID, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	challenge := AuthorizationCodeChallenge{Challenge: S256Challenge("v"), Method: S256}
	base := func() AuthorizationArgs {
		a := NewAuthorizationArgs()
		a.SetScopes("openid sdk.social_layer")
		return a
	}
	tests := []struct {
		name       string
		args       func() AuthorizationArgs
		appID      uint64
		customMode bool
		wantErr    string // substring of the validation error; "" for success
		check      func(request) string
	}{
		{name: "null object", args: Null, appID: 1, wantErr: "null object"},
		{name: "no scopes", args: NewAuthorizationArgs, appID: 1, wantErr: "Scopes is required"},
		{name: "blank scopes", args: func() AuthorizationArgs { a := base(); a.SetScopes(" \t "); return a }, appID: 1, wantErr: "Scopes is required"},
		{name: "bad scope character", args: func() AuthorizationArgs { a := base(); a.SetScopes(`openid "x"`); return a }, appID: 1, wantErr: "invalid scope"},
		{name: "no client id", args: base, wantErr: "no ClientId"},
		{name: "ClientId defaults to the application id", args: base, appID: 77,
			check: func(r request) string { return ifNot(r.clientID == 77, "clientID %d", r.clientID) }},
		{name: "ClientId wins", args: func() AuthorizationArgs { a := base(); a.SetClientId(5); return a }, appID: 77,
			check: func(r request) string { return ifNot(r.clientID == 5, "clientID %d", r.clientID) }},
		{name: "scopes normalized", args: func() AuthorizationArgs { a := base(); a.SetScopes("  openid   identify "); return a }, appID: 1,
			check: func(r request) string { return ifNot(r.scopes == "openid identify", "scopes %q", r.scopes) }},
		{name: "state unset is generated later", args: base, appID: 1,
			check: func(r request) string { return ifNot(r.state == "", "state %q", r.state) }},
		{name: "state set is kept", args: func() AuthorizationArgs { a := base(); a.SetState(Some("xyz")); return a }, appID: 1,
			check: func(r request) string { return ifNot(r.state == "xyz", "state %q", r.state) }},
		{name: "state set empty", args: func() AuthorizationArgs { a := base(); a.SetState(Some("")); return a }, appID: 1, wantErr: "State is set but empty"},
		{name: "state with control character", args: func() AuthorizationArgs { a := base(); a.SetState(Some("a\nb")); return a }, appID: 1, wantErr: "State"},
		{name: "nonce set empty", args: func() AuthorizationArgs { a := base(); a.SetNonce(Some("")); return a }, appID: 1, wantErr: "Nonce"},
		{name: "challenge method defaults to S256", args: func() AuthorizationArgs {
			a := base()
			a.SetCodeChallenge(Some(AuthorizationCodeChallenge{Challenge: challenge.Challenge}))
			return a
		}, appID: 1, check: func(r request) string {
			c, _ := r.challenge.Get()
			return ifNot(c.Method == S256, "method %q", c.Method)
		}},
		{name: "plain refused", args: func() AuthorizationArgs {
			a := base()
			a.SetCodeChallenge(Some(AuthorizationCodeChallenge{Challenge: challenge.Challenge, Method: "plain"}))
			return a
		}, appID: 1, wantErr: "only S256"},
		{name: "short challenge", args: func() AuthorizationArgs {
			a := base()
			a.SetCodeChallenge(Some(AuthorizationCodeChallenge{Challenge: "abc"}))
			return a
		}, appID: 1, wantErr: "43 to 128"},
		{name: "integration type out of range", args: func() AuthorizationArgs { a := base(); a.SetIntegrationType(Some(IntegrationType(2))); return a }, appID: 1, wantErr: "IntegrationType"},
		{name: "scheme empty", args: func() AuthorizationArgs { a := base(); a.SetCustomSchemeParam(Some("")); return a }, appID: 1, wantErr: "not a URI scheme"},
		{name: "scheme with a space", args: func() AuthorizationArgs { a := base(); a.SetCustomSchemeParam(Some("my game")); return a }, appID: 1, wantErr: "not a URI scheme"},
		{name: "scheme starting with a digit", args: func() AuthorizationArgs { a := base(); a.SetCustomSchemeParam(Some("1game")); return a }, appID: 1, wantErr: "not a URI scheme"},
		{name: "scheme https", args: func() AuthorizationArgs {
			a := base()
			a.SetCustomSchemeParam(Some("HTTPS"))
			a.SetCodeChallenge(Some(challenge))
			return a
		}, appID: 1, wantErr: "loopback"},
		{name: "custom scheme needs PKCE", args: func() AuthorizationArgs { a := base(); a.SetCustomSchemeParam(Some("mygame")); return a }, appID: 1, wantErr: "require a CodeChallenge"},
		{name: "custom mode needs PKCE", args: base, appID: 1, customMode: true, wantErr: "require a CodeChallenge"},
		{name: "custom scheme", args: func() AuthorizationArgs {
			a := base()
			a.SetCustomSchemeParam(Some("com.example.game"))
			a.SetCodeChallenge(Some(challenge))
			return a
		}, appID: 1, check: func(r request) string {
			return ifNot(r.customScheme && r.scheme == "com.example.game", "custom %v scheme %q", r.customScheme, r.scheme)
		}},
		{name: "custom mode default scheme", args: func() AuthorizationArgs { a := base(); a.SetCodeChallenge(Some(challenge)); return a },
			appID: 31, customMode: true, check: func(r request) string {
				return ifNot(r.customScheme && r.scheme == "service-31", "custom %v scheme %q", r.customScheme, r.scheme)
			}},
		{name: "loopback by default", args: func() AuthorizationArgs { a := base(); a.SetCodeChallenge(Some(challenge)); return a }, appID: 1,
			check: func(r request) string { return ifNot(!r.customScheme, "custom-scheme mode chosen") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.args().validate("Authorize", tt.appID, tt.customMode)
			if tt.wantErr != "" {
				if KindOf(err) != KindValidation || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a validation error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.check != nil {
				if msg := tt.check(r); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// ifNot returns "" when ok and the formatted message otherwise.
func ifNot(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

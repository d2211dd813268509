package oauth

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestParseOIDC: prompt and max_age as OpenID Connect Core §3.1.2.1 reads
// them for requests with openid, and as the real service ignores them
// otherwise.
func TestParseOIDC(t *testing.T) {
	cases := []struct {
		name, scope, prompt, maxAge string
		wantErr                     bool
		wantPrompts                 []string
		wantMaxAge                  int64
	}{
		{"nothing", "openid", "", "", false, nil, -1},
		{"none", "openid", "none", "", false, []string{"none"}, -1},
		{"login and consent", "openid", "login  consent", "", false, []string{"login", "consent"}, -1},
		{"unknown values are kept, not refused", "openid", "bogus", "", false, []string{"bogus"}, -1},
		{"none with login", "openid", "none login", "", true, nil, 0},
		{"none twice is still alone in kind, but not alone", "openid", "none none", "", true, nil, 0},
		{"max_age 0", "openid", "", "0", false, nil, 0},
		{"max_age", "openid identify", "", "3600", false, nil, 3600},
		{"negative max_age", "openid", "", "-1", true, nil, 0},
		{"fractional max_age", "openid", "", "1.5", true, nil, 0},
		{"max_age beyond int64", "openid", "", "99999999999999999999", true, nil, 0},
		{"without openid nothing is refused", "identify", "none login", "abc", false, []string{"none", "login"}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := authRequest{scopes: strings.Fields(c.scope)}
			q := url.Values{}
			if c.prompt != "" {
				q.Set("prompt", c.prompt)
			}
			if c.maxAge != "" {
				q.Set("max_age", c.maxAge)
			}
			e := a.parseOIDC(q)
			if (e != nil) != c.wantErr {
				t.Fatalf("error %v, want error %v", e, c.wantErr)
			}
			if e != nil {
				if e.code != "invalid_request" {
					t.Errorf("error %q, want invalid_request", e.code)
				}
				return
			}
			if !slices.Equal(a.prompts, c.wantPrompts) || a.maxAge != c.wantMaxAge {
				t.Errorf("prompts %q max_age %d, want %q %d", a.prompts, a.maxAge, c.wantPrompts, c.wantMaxAge)
			}
		})
	}
}

func TestAfterLogin(t *testing.T) {
	cases := []struct{ in, want string }{
		{"/oauth2/authorize?prompt=login&max_age=0&scope=openid", "/oauth2/authorize?scope=openid"},
		{"/oauth2/authorize?prompt=login+consent&scope=openid", "/oauth2/authorize?prompt=consent&scope=openid"},
		{"/oauth2/authorize?prompt=select_account&state=a%26b", "/oauth2/authorize?state=a%26b"},
		{"/api/v10/oauth2/authorize?prompt=consent", "/api/v10/oauth2/authorize?prompt=consent"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := afterLogin(u); got != c.want {
			t.Errorf("afterLogin(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzParseOIDC: any prompt and max_age give a request or an
// invalid_request, never a panic; what is accepted keeps the rules.
func FuzzParseOIDC(f *testing.F) {
	for _, s := range [][3]string{{"openid", "none", "0"}, {"openid", "none login", ""}, {"identify", "login", "x"},
		{"openid", "select_account consent", "-5"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, scope, prompt, maxAge string) {
		a := authRequest{scopes: strings.Fields(scope)}
		e := a.parseOIDC(url.Values{"prompt": {prompt}, "max_age": {maxAge}})
		if e != nil {
			if e.code != "invalid_request" || !a.oidc {
				t.Fatalf("error %+v for scope %q", e, scope)
			}
			return
		}
		if a.maxAge < -1 || (!a.oidc && a.maxAge != -1) {
			t.Fatalf("max_age %d (oidc %v)", a.maxAge, a.oidc)
		}
		if a.oidc && a.prompted("none") && len(a.prompts) > 1 {
			t.Fatalf("none with others accepted: %q", a.prompts)
		}
	})
}

// FuzzAfterLogin: the continuation after a login keeps its path and
// every parameter but the ones that asked for the login.
func FuzzAfterLogin(f *testing.F) {
	f.Add("/oauth2/authorize?prompt=login+consent&max_age=0&scope=openid&state=x")
	f.Add("/api/v10/oauth2/authorize?prompt=select_account")
	f.Fuzz(func(t *testing.T, in string) {
		u, err := url.Parse(in)
		if err != nil {
			return
		}
		out, err := url.Parse(afterLogin(u))
		if err != nil {
			t.Fatalf("afterLogin(%q) does not parse: %v", in, err)
		}
		if out.Path != u.Path {
			t.Fatalf("path %q became %q", u.Path, out.Path)
		}
		q, was := out.Query(), u.Query()
		if q.Has("max_age") || slices.ContainsFunc(strings.Fields(q.Get("prompt")), func(p string) bool {
			return p == "login" || p == "select_account"
		}) {
			t.Fatalf("afterLogin(%q) = %q still asks for a login", in, out)
		}
		for k := range was {
			if k != "max_age" && k != "prompt" && q.Get(k) != was.Get(k) {
				t.Fatalf("parameter %s: %q became %q", k, was.Get(k), q.Get(k))
			}
		}
	})
}

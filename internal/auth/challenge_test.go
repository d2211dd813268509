package auth_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/testtool/wwwauth"
)

// TestChallengeString: the exact text of each challenge slashd sends,
// and that an RFC 7235 parser reads every one back to what was meant,
// quotes, backslashes and control characters included.
func TestChallengeString(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		in     auth.Challenge
		text   string            // "" when only the round trip is checked
		params map[string]string // what a client reads
	}{
		{name: "no credential", in: auth.Challenge{}, text: `Bearer realm="slashd"`,
			params: map[string]string{"realm": "slashd"}},
		{name: "invalid token", in: auth.InvalidToken,
			text: `Bearer realm="slashd", error="invalid_token", error_description="The access token is unknown, expired or revoked"`,
			params: map[string]string{"realm": "slashd", "error": "invalid_token",
				"error_description": "The access token is unknown, expired or revoked"}},
		{name: "insufficient scope", in: auth.InsufficientScope("openid"),
			text: `Bearer realm="slashd", error="insufficient_scope", error_description="The access token lacks the scope openid", scope="openid"`,
			params: map[string]string{"realm": "slashd", "error": "insufficient_scope",
				"error_description": "The access token lacks the scope openid", "scope": "openid"}},
		// error_description keeps to RFC 6750's characters.
		{name: "description's quotes and backslashes", in: auth.Challenge{Error: "invalid_request", Description: `Duplicate "a\b"`},
			text:   `Bearer realm="slashd", error="invalid_request", error_description="Duplicate 'a/b'"`,
			params: map[string]string{"realm": "slashd", "error": "invalid_request", "error_description": `Duplicate 'a/b'`}},
		{name: "description's control characters and non-ASCII", in: auth.Challenge{Error: "invalid_request", Description: "line\r\nbreak\x00\x7fé"},
			params: map[string]string{"realm": "slashd", "error": "invalid_request", "error_description": "line  break   "}},
		// Other values are RFC 7230 quoted-strings, escaped.
		{name: "scope's quotes and backslashes", in: auth.Challenge{Error: "insufficient_scope", Scope: `a"b\c`},
			text:   `Bearer realm="slashd", error="insufficient_scope", scope="a\"b\\c"`,
			params: map[string]string{"realm": "slashd", "error": "insufficient_scope", "scope": `a"b\c`}},
		{name: "scope's control characters", in: auth.Challenge{Error: "insufficient_scope", Scope: "a\r\nb\tc"},
			params: map[string]string{"realm": "slashd", "error": "insufficient_scope", "scope": "a  b\tc"}},
		{name: "scopes", in: auth.Challenge{Error: "insufficient_scope", Scope: "openid identify"},
			params: map[string]string{"realm": "slashd", "error": "insufficient_scope", "scope": "openid identify"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.String()
			if c.text != "" && got != c.text {
				t.Errorf("String()\n got  %s\n want %s", got, c.text)
			}
			parsed, err := wwwauth.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(parsed) != 1 || parsed[0].Scheme != "Bearer" || !reflect.DeepEqual(parsed[0].Params, c.params) {
				t.Errorf("%s parses as %#v, want Bearer %v", got, parsed, c.params)
			}
		})
	}
}

// TestChallengeOf: a challenge survives wrapping, and an error without
// one has none.
func TestChallengeOf(t *testing.T) {
	t.Parallel()
	base := errors.New("401: Unauthorized")
	err := fmt.Errorf("handler: %w", auth.WithChallenge(base, auth.InvalidToken))
	if c, ok := auth.ChallengeOf(err); !ok || c != auth.InvalidToken {
		t.Errorf("ChallengeOf = %v, %v", c, ok)
	}
	if !errors.Is(err, base) {
		t.Error("the challenged error does not unwrap to its error")
	}
	if _, ok := auth.ChallengeOf(base); ok {
		t.Error("a plain error has a challenge")
	}
}

func TestSchemeOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": auth.SchemeNone, "Bot abc": auth.SchemeBot, "bot abc": auth.SchemeBot, "Bearer abc": auth.SchemeBearer,
		"BEARER abc": auth.SchemeBearer, "Bearer": auth.SchemeBearer, " Bearer  abc ": auth.SchemeBearer,
		"abc.def.ghi": auth.SchemeNone, "Basic YTpi": auth.SchemeNone, "Bearerx abc": auth.SchemeNone,
	} {
		if got := auth.SchemeOf(in); got != want {
			t.Errorf("SchemeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

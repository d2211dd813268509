package auth

import (
	"errors"
	"strings"
)

// Realm is the realm of slashd's WWW-Authenticate challenges.
const Realm = "slashd"

// RFC 6750 §3.1's error codes.
const (
	ChallengeInvalidRequest    = "invalid_request"
	ChallengeInvalidToken      = "invalid_token"
	ChallengeInsufficientScope = "insufficient_scope"
)

// Challenge is an RFC 6750 §3 Bearer challenge: the WWW-Authenticate
// value of a refusal by a resource that takes Bearer tokens. The zero
// Challenge names no error, which §3.1 asks for a request that sent no
// credential (or one of a scheme the resource does not take).
type Challenge struct {
	Error       string // "" or one of the Challenge* codes
	Description string // error_description, for a developer
	Scope       string // with insufficient_scope: the scope the resource needs
}

// InvalidToken is the challenge to a Bearer token that is unknown,
// expired or revoked (all look alike: only a hash is stored).
var InvalidToken = Challenge{Error: ChallengeInvalidToken, Description: "The access token is unknown, expired or revoked"}

// InsufficientScope is the challenge to a Bearer token that lacks scope.
func InsufficientScope(scope string) Challenge {
	return Challenge{Error: ChallengeInsufficientScope, Description: "The access token lacks the scope " + scope, Scope: scope}
}

// String renders the challenge as a WWW-Authenticate value:
//
//	Bearer realm="slashd", error="insufficient_scope", error_description="…", scope="identify"
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer ")
	param(&b, "realm", Realm)
	for _, p := range [...]struct{ name, value string }{
		{"error", c.Error}, {"error_description", description(c.Description)}, {"scope", c.Scope},
	} {
		if p.value != "" {
			b.WriteString(", ")
			param(&b, p.name, p.value)
		}
	}
	return b.String()
}

// description fits an error_description into RFC 6750 §3's characters
// (%x20-21 / %x23-5B / %x5D-7E: printable ASCII but '"' and '\'), so
// that a client reading it by that grammar rather than RFC 7235's
// quoted-string sees the same text: quotes become apostrophes,
// backslashes slashes, anything else outside the set a space.
func description(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\':
			return '/'
		case r < 0x20 || r > 0x7e:
			return ' '
		}
		return r
	}, s)
}

// param writes name="value" as an RFC 7235 auth-param whose value is an
// RFC 7230 quoted-string: '"' and '\' are backslash-escaped, and control
// characters (which a quoted-string cannot hold, and a header must not)
// become spaces.
func param(b *strings.Builder, name, value string) {
	b.WriteString(name)
	b.WriteString(`="`)
	for _, r := range value {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 && r != '\t' || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// ChallengeError is an error answered with a Bearer challenge in
// WWW-Authenticate; the error it wraps makes the status and body.
type ChallengeError struct {
	Err       error
	Challenge Challenge
}

func (e *ChallengeError) Error() string { return e.Err.Error() + " (" + e.Challenge.String() + ")" }
func (e *ChallengeError) Unwrap() error { return e.Err }

// WithChallenge attaches c to err, for the HTTP layer to send.
func WithChallenge(err error, c Challenge) error { return &ChallengeError{Err: err, Challenge: c} }

// ChallengeOf returns the challenge attached to err, if any.
func ChallengeOf(err error) (Challenge, bool) {
	var ce *ChallengeError
	if errors.As(err, &ce) {
		return ce.Challenge, true
	}
	return Challenge{}, false
}

// Authorization schemes, as SchemeOf reads them.
const (
	SchemeNone   = ""       // no Authorization, a bare value, or a scheme slashd does not take
	SchemeBot    = "bot"    // "Bot <token>"
	SchemeBearer = "bearer" // "Bearer <token>" (or "Bearer" alone: a malformed Bearer credential)
)

// SchemeOf names the scheme of an Authorization value (schemes are
// case-insensitive, RFC 7235 §2.1).
func SchemeOf(header string) string {
	scheme, _, _ := strings.Cut(strings.TrimSpace(header), " ")
	switch s := strings.ToLower(scheme); s {
	case SchemeBot, SchemeBearer:
		return s
	}
	return SchemeNone
}

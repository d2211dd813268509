package api

import (
	"net/http"

	"github.com/slashd/slashd/internal/auth"
)

// refusedCredential is the 401 of an app route (one that takes a bot or
// a Bearer token) whose credential failed, with RFC 6750 §3's challenge
// where it applies: invalid_token for a Bearer token; a challenge naming
// no error for a request without a credential slashd reads (none, a bare
// value, another scheme: §3.1's "lacks any authentication
// information"); nothing for a bot token, Discord's own scheme, which
// keeps the real service's answer (it sends no WWW-Authenticate at all).
func refusedCredential(r *http.Request) error {
	switch auth.SchemeOf(r.Header.Get("Authorization")) {
	case auth.SchemeBearer:
		return auth.WithChallenge(errUnauthorized, auth.InvalidToken)
	case auth.SchemeBot:
		return errUnauthorized
	default:
		return auth.WithChallenge(errUnauthorized, auth.Challenge{})
	}
}

// missingScope is err, the real service's refusal of a Bearer token that
// lacks scope, with RFC 6750's insufficient_scope challenge naming it.
// The status stays the real service's (401 for the commands' scopes,
// where §3.1 suggests 403: a SHOULD, and clients match Discord's codes).
func missingScope(err error, scope string) error {
	return auth.WithChallenge(err, auth.InsufficientScope(scope))
}

// setChallenge sends the Bearer challenge attached to err, if any.
func setChallenge(w http.ResponseWriter, err error) {
	if c, ok := auth.ChallengeOf(err); ok {
		w.Header().Set("WWW-Authenticate", c.String())
	}
}

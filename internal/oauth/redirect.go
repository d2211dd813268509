package oauth

import (
	"errors"
	"net/url"
	"strings"

	"github.com/slashd/slashd/internal/snowflake"
)

// MaxRedirectURIs is how many redirect URIs an app may register (the real
// service's limit), and MaxRedirectURILength the longest one.
const (
	MaxRedirectURIs      = 10
	MaxRedirectURILength = 2048
)

// DefaultRedirectURI is the custom-scheme redirect every public client
// has registered without asking: service-<application_id>:/authorize/callback,
// what the SDK uses when AuthorizationArgs.CustomSchemeParam is unset.
func DefaultRedirectURI(appID snowflake.ID) string {
	return "service-" + appID.String() + ":/authorize/callback"
}

// MatchRedirectURI decides whether requested may receive an app's
// authorization response, and returns the URI to redirect to (requested
// itself). The rules (RFC 6749 §3.1.2.3, RFC 8252 §7):
//   - requested must be an absolute URI without a fragment;
//   - it must equal one of registered exactly (string comparison), except
//     that a loopback redirect (http://127.0.0.1 or http://[::1]) matches a
//     registered one that differs only in its port (RFC 8252 §7.3: native
//     apps listen on an ephemeral port);
//   - public clients also have DefaultRedirectURI registered;
//   - a redirect to a custom (non-http, non-https) scheme needs PKCE
//     (pkce: the request carries a code_challenge).
//
// An empty requested never matches: falling back to the only registered
// URI is the caller's choice.
func MatchRedirectURI(registered []string, requested string, appID snowflake.ID, public bool, pkce bool) (string, bool) {
	u, err := parseRedirectURI(requested)
	if err != nil {
		return "", false
	}
	if !isHTTP(u.Scheme) && !pkce {
		return "", false
	}
	if public && requested == DefaultRedirectURI(appID) {
		return requested, true
	}
	loopback := isLoopback(u)
	for _, r := range registered {
		if r == requested {
			return requested, true
		}
		if !loopback {
			continue
		}
		ru, err := url.Parse(r)
		if err == nil && isLoopback(ru) && withoutPort(ru) == withoutPort(u) {
			return requested, true
		}
	}
	return "", false
}

// ValidateRedirectURI checks a redirect URI an app registers: absolute,
// at most MaxRedirectURILength long, no fragment, http(s) with a host or
// a custom scheme (not one a browser would run or read locally).
func ValidateRedirectURI(s string) error {
	if len(s) > MaxRedirectURILength {
		return errors.New("a redirect URI must be at most 2048 characters long")
	}
	u, err := parseRedirectURI(s)
	if err != nil {
		return err
	}
	switch strings.ToLower(u.Scheme) {
	case "javascript", "data", "vbscript", "file", "blob", "about":
		return errors.New("the " + u.Scheme + " scheme cannot receive an authorization")
	}
	if isHTTP(u.Scheme) && u.Host == "" {
		return errors.New("an http(s) redirect URI needs a host")
	}
	return nil
}

// parseRedirectURI parses an absolute URI without a fragment.
func parseRedirectURI(s string) (*url.URL, error) {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return nil, errors.New("a redirect URI must be a URI without spaces")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("a redirect URI must be a URI")
	}
	if !u.IsAbs() {
		return nil, errors.New("a redirect URI must be absolute (with a scheme)")
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return nil, errors.New("a redirect URI must not have a fragment")
	}
	return u, nil
}

func isHTTP(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// isLoopback reports whether u is an http URI on a loopback IP literal
// (RFC 8252 §7.3 and §8.3: not "localhost").
func isLoopback(u *url.URL) bool {
	if u.Scheme != "http" || u.User != nil || u.Opaque != "" {
		return false
	}
	h := u.Hostname()
	return h == "127.0.0.1" || h == "::1"
}

// withoutPort renders u without its port.
func withoutPort(u *url.URL) string {
	c := *u
	c.Host = u.Hostname()
	if strings.Contains(c.Host, ":") {
		c.Host = "[" + c.Host + "]"
	}
	return c.String()
}

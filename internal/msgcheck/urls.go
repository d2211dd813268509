package msgcheck

import (
	"slices"
	"strings"
	"unicode"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// checkURL checks that s is a well formed URL (URL_TYPE_INVALID_URL: a
// scheme, "//", a host, no white space) whose scheme is one of schemes
// (URL_TYPE_INVALID_SCHEME), as the real service words them. A value
// with no scheme at all is only ill-formed; one whose scheme is wrong
// and that is ill-formed gets both errors, as a real body shows.
func checkURL(at *apierr.Fields, s string, schemes []string) {
	scheme, rest, hasScheme := splitScheme(s)
	if !hasScheme {
		at.Add(CodeURLInvalid, MsgURLInvalid)
		return
	}
	if !slices.Contains(schemes, scheme) {
		at.Add(CodeURLScheme, msgURLScheme(scheme, schemes))
	}
	if !wellFormedURL(s, rest) {
		at.Add(CodeURLInvalid, MsgURLInvalid)
	}
}

// msgURLScheme is the message of CodeURLScheme.
func msgURLScheme(scheme string, schemes []string) string {
	return "Scheme \"" + scheme + "\" is not supported. Scheme must be one of " + form.Tuple(schemes) + "."
}

// splitScheme splits s at its scheme (RFC 3986: a letter, then letters,
// digits, "+", "-" or "."), lowercased as the real service quotes it.
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i < 1 {
		return "", s, false
	}
	for j, r := range s[:i] {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (j == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return "", s, false
		}
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

// wellFormedURL reports whether s (whose part after the scheme is rest)
// has an authority with a host and no white space or control character.
// The rest of it is not parsed: a stray "%" in a path is not what the
// real service is on record refusing.
func wellFormedURL(s, rest string) bool {
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	authority, ok := strings.CutPrefix(rest, "//")
	if !ok {
		return false
	}
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	host := authority
	if strings.HasPrefix(host, "[") { // an IPv6 literal
		end := strings.IndexByte(host, ']')
		return end > 1 && validPort(host[end+1:])
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		if !validPort(host[i:]) {
			return false
		}
		host = host[:i]
	}
	return host != ""
}

// validPort reports whether s is empty or ":" and digits.
func validPort(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != ':' {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

package authorize

import (
	"fmt"
	"strconv"
	"strings"
)

// IntegrationType is the installation context an authorization asks for,
// sent as the integration_type query parameter.
type IntegrationType int

// The integration types.
const (
	GuildInstall IntegrationType = 0 // installed in a guild
	UserInstall  IntegrationType = 1 // installed for the user
)

func (t IntegrationType) String() string {
	switch t {
	case GuildInstall:
		return "GuildInstall"
	case UserInstall:
		return "UserInstall"
	}
	return "IntegrationType(" + strconv.Itoa(int(t)) + ")"
}

// AuthenticationCodeChallengeMethod is a PKCE code challenge method. Only
// S256 exists, as in the reference SDK; the server refuses "plain".
type AuthenticationCodeChallengeMethod string

// S256 is BASE64URL(SHA256(verifier)) (RFC 7636 §4.2).
const S256 AuthenticationCodeChallengeMethod = "S256"

// AuthorizationCodeChallenge is the PKCE challenge sent with an
// authorization. Get one from [Client.CreateAuthorizationCodeVerifier]. An
// empty Method means S256.
type AuthorizationCodeChallenge struct {
	Challenge string
	Method    AuthenticationCodeChallengeMethod
}

// AuthorizationCodeVerifier is a PKCE pair: pass Challenge to
// [AuthorizationArgs.SetCodeChallenge] and Verifier to [Client.GetToken].
type AuthorizationCodeVerifier struct {
	Verifier  string
	Challenge AuthorizationCodeChallenge
}

// Default scopes (see [Client.GetDefaultCommunicationScopes]).
const (
	DefaultCommunicationScopes = "openid sdk.social_layer"
	DefaultPresenceScopes      = "openid sdk.social_layer_presence"
)

// DefaultSchemePrefix starts the default custom scheme,
// "service-<application_id>", that the server registers for every public
// client.
const DefaultSchemePrefix = "service-"

// CustomSchemeCallbackPath is the path of every custom-scheme redirect URI:
// "<scheme>:/authorize/callback".
const CustomSchemeCallbackPath = "/authorize/callback"

// AuthorizationArgs holds the arguments of [Client.Authorize]. It mirrors
// the reference SDK's class of the same name, with one getter and one setter
// per property.
//
// It has value semantics: it holds no pointers, so assigning it copies every
// property, and changing a copy never changes the original. Two instances
// with the same properties are ==.
//
// The zero value (also returned by [Null]) is the spec's nullobj, an
// uninitialized instance: Valid reports false and Authorize refuses it.
// [NewAuthorizationArgs] returns an initialized one. Calling any setter
// initializes the instance, so the zero value is usable once something is
// set.
type AuthorizationArgs struct {
	valid             bool
	clientID          uint64
	scopes            string
	state             Optional[string]
	nonce             Optional[string]
	codeChallenge     Optional[AuthorizationCodeChallenge]
	integrationType   Optional[IntegrationType]
	customSchemeParam Optional[string]
}

// NewAuthorizationArgs returns an initialized AuthorizationArgs with every
// property unset. Scopes must still be set before Authorize.
func NewAuthorizationArgs() AuthorizationArgs { return AuthorizationArgs{valid: true} }

// Null returns the null object (nullobj): an uninitialized instance, the
// same as the zero value.
func Null() AuthorizationArgs { return AuthorizationArgs{} }

// Valid reports whether the instance is initialized; it stands for the
// reference SDK's conversion to bool.
func (a AuthorizationArgs) Valid() bool { return a.valid }

// ClientId is the application ID of the game. 0 (the default) means the
// value given to [Client.SetApplicationID].
func (a AuthorizationArgs) ClientId() uint64 { return a.clientID }

// SetClientId sets ClientId; 0 restores the default.
func (a *AuthorizationArgs) SetClientId(id uint64) { a.valid, a.clientID = true, id }

// Scopes is the space-separated list of OAuth2 scopes requested. Required.
// Most games use [DefaultCommunicationScopes] or [DefaultPresenceScopes].
func (a AuthorizationArgs) Scopes() string { return a.scopes }

// SetScopes sets Scopes.
func (a *AuthorizationArgs) SetScopes(scopes string) { a.valid, a.scopes = true, scopes }

// State is the OAuth2 state. Leave it unset (recommended): Authorize then
// generates 32 random bytes. A state you set must be unguessable too.
func (a AuthorizationArgs) State() Optional[string] { return a.state }

// SetState sets State; None[string]() unsets it.
func (a *AuthorizationArgs) SetState(state Optional[string]) { a.valid, a.state = true, state }

// Nonce is the OpenID Connect nonce, echoed in the id_token. Generally
// useful only to backends that check ID tokens.
func (a AuthorizationArgs) Nonce() Optional[string] { return a.nonce }

// SetNonce sets Nonce.
func (a *AuthorizationArgs) SetNonce(nonce Optional[string]) { a.valid, a.nonce = true, nonce }

// CodeChallenge is the PKCE challenge, needed for the [Client.GetToken]
// flow: pass the Challenge of [Client.CreateAuthorizationCodeVerifier].
func (a AuthorizationArgs) CodeChallenge() Optional[AuthorizationCodeChallenge] {
	return a.codeChallenge
}

// SetCodeChallenge sets CodeChallenge.
func (a *AuthorizationArgs) SetCodeChallenge(c Optional[AuthorizationCodeChallenge]) {
	a.valid, a.codeChallenge = true, c
}

// IntegrationType is the installation context requested (integration_type).
// With the applications.commands scope, UserInstall installs the app to the
// authorizing user's account (the consent page says so: "Add to my apps"),
// GuildInstall (or none) to a server the user picks; the app must support
// the context (its integration_types_config), else the authorization fails
// with invalid_request.
func (a AuthorizationArgs) IntegrationType() Optional[IntegrationType] { return a.integrationType }

// SetIntegrationType sets IntegrationType.
func (a *AuthorizationArgs) SetIntegrationType(t Optional[IntegrationType]) {
	a.valid, a.integrationType = true, t
}

// CustomSchemeParam is the custom URI scheme of the redirect, for apps that
// receive the redirect through the operating system (mobile) rather than
// the loopback listener. See [AuthorizationArgs.RedirectURI]. Setting it
// makes Authorize use the custom-scheme redirect and wait for
// [Client.HandleRedirect].
func (a AuthorizationArgs) CustomSchemeParam() Optional[string] { return a.customSchemeParam }

// SetCustomSchemeParam sets CustomSchemeParam.
func (a *AuthorizationArgs) SetCustomSchemeParam(scheme Optional[string]) {
	a.valid, a.customSchemeParam = true, scheme
}

// RedirectURI returns the custom-scheme redirect URI of these arguments:
// "<CustomSchemeParam>:/authorize/callback", or, when CustomSchemeParam is
// unset, "service-<application_id>:/authorize/callback". The application id
// is ClientId when set (non-zero), appID otherwise.
//
// This is the redirect URI of the custom-scheme mode only. By default
// Authorize uses a loopback listener, http://127.0.0.1:<port>/callback, and
// returns the exact URI in [AuthorizeResult.RedirectURI].
func (a AuthorizationArgs) RedirectURI(appID uint64) string {
	if s, ok := a.customSchemeParam.Get(); ok {
		return s + ":" + CustomSchemeCallbackPath
	}
	if a.clientID != 0 {
		appID = a.clientID
	}
	return DefaultSchemePrefix + strconv.FormatUint(appID, 10) + ":" + CustomSchemeCallbackPath
}

// request is validated AuthorizationArgs, ready to be sent.
type request struct {
	clientID        uint64
	scopes          string // normalized: single spaces
	state           string // "" when it must be generated
	nonce           Optional[string]
	challenge       Optional[AuthorizationCodeChallenge]
	integrationType Optional[IntegrationType]
	customScheme    bool   // redirect through a custom scheme and HandleRedirect
	scheme          string // the custom scheme, when customScheme
}

// validate checks the arguments against the spec's rules and the server's.
// appID is the client's application id; customMode is the client's
// WithCustomSchemeRedirects option.
func (a AuthorizationArgs) validate(op string, appID uint64, customMode bool) (request, error) {
	if !a.valid {
		return request{}, validationError(op, "AuthorizationArgs is the null object; use NewAuthorizationArgs")
	}
	r := request{clientID: a.clientID, nonce: a.nonce, integrationType: a.integrationType}
	if r.clientID == 0 {
		r.clientID = appID
	}
	if r.clientID == 0 {
		return request{}, validationError(op, "no ClientId: set it or call Client.SetApplicationID")
	}
	fields := strings.Fields(a.scopes)
	if len(fields) == 0 {
		return request{}, validationError(op, "Scopes is required")
	}
	for _, s := range fields {
		if !isScopeToken(s) {
			return request{}, validationError(op, "invalid scope %q", s)
		}
	}
	r.scopes = strings.Join(fields, " ")
	if s, ok := a.state.Get(); ok {
		if s == "" || !isVSChars(s) {
			return request{}, validationError(op, "State is set but empty or not printable ASCII")
		}
		r.state = s
	}
	if n, ok := a.nonce.Get(); ok && (n == "" || !isVSChars(n)) {
		return request{}, validationError(op, "Nonce is set but empty or not printable ASCII")
	}
	if c, ok := a.codeChallenge.Get(); ok {
		if c.Method == "" {
			c.Method = S256
		}
		if c.Method != S256 {
			return request{}, validationError(op, "unsupported code challenge method %q: only S256", c.Method)
		}
		if !isPKCEString(c.Challenge) {
			return request{}, validationError(op, "CodeChallenge.Challenge must be 43 to 128 characters of [A-Za-z0-9-._~]")
		}
		r.challenge = Some(c)
	}
	if t, ok := a.integrationType.Get(); ok && t != GuildInstall && t != UserInstall {
		return request{}, validationError(op, "invalid IntegrationType %d", int(t))
	}
	scheme, set := a.customSchemeParam.Get()
	if set {
		if !isScheme(scheme) {
			return request{}, validationError(op, "CustomSchemeParam %q is not a URI scheme", scheme)
		}
		if l := strings.ToLower(scheme); l == "http" || l == "https" {
			return request{}, validationError(op, "CustomSchemeParam cannot be %q: loopback redirects are the default", scheme)
		}
	}
	if set || customMode {
		if !r.challenge.IsSet() {
			return request{}, validationError(op, "custom-scheme redirects require a CodeChallenge (PKCE)")
		}
		r.customScheme = true
		r.scheme = strings.TrimSuffix(a.RedirectURI(r.clientID), ":"+CustomSchemeCallbackPath)
	}
	return r, nil
}

// isScopeToken: RFC 6749 §3.3 scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
func isScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// isVSChars: RFC 6749 Appendix A.5 state = 1*VSCHAR (%x20-7E).
func isVSChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// isScheme: RFC 3986 §3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String describes the arguments without the state and nonce values.
func (a AuthorizationArgs) String() string {
	if !a.valid {
		return "AuthorizationArgs(nullobj)"
	}
	return fmt.Sprintf("AuthorizationArgs{ClientId: %d, Scopes: %q, State set: %t, Nonce set: %t, CodeChallenge set: %t, IntegrationType: %v, CustomSchemeParam: %v}",
		a.clientID, a.scopes, a.state.IsSet(), a.nonce.IsSet(), a.codeChallenge.IsSet(), a.integrationType, a.customSchemeParam)
}

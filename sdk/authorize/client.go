package authorize

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Option configures a [Client]. The set is sealed: use the With functions.
type Option interface{ apply(*Client) }

type optionFunc func(*Client)

func (f optionFunc) apply(c *Client) { f(c) }

// WithHTTPClient sets the HTTP client of the token endpoint calls. The
// default is an http.Client with a 30-second timeout.
func WithHTTPClient(hc *http.Client) Option {
	return optionFunc(func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	})
}

// WithBrowserOpener replaces how Authorize shows the authorization URL. The
// default is [OpenBrowser], the system browser. The opener is called once
// per Authorize, after the redirect receiver is ready; an error from it
// fails the Authorize (KindAuthorizationFailed).
func WithBrowserOpener(open func(url string) error) Option {
	return optionFunc(func(c *Client) {
		if open != nil {
			c.open = open
		}
	})
}

// WithLogger makes the client log the steps of Authorize at debug level
// (the listener's port, the URL opened). The default discards logs.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *Client) {
		if l != nil {
			c.log = l
		}
	})
}

// WithClientSecret makes the client a confidential one: the token endpoint
// calls authenticate with HTTP Basic (RFC 6749 §2.3.1). Without it the
// client is public and sends only client_id, which the server accepts for
// apps marked public that used PKCE. Never ship a secret in a game client.
func WithClientSecret(secret string) Option {
	return optionFunc(func(c *Client) { c.secret = secret })
}

// WithCustomSchemeRedirects makes every Authorize use the custom-scheme
// redirect ([AuthorizationArgs.RedirectURI], by default
// "service-<application_id>:/authorize/callback") and wait for
// [Client.HandleRedirect], as if each AuthorizationArgs had
// CustomSchemeParam set. For apps whose platform delivers deep links
// (mobile) instead of running a loopback listener.
func WithCustomSchemeRedirects() Option {
	return optionFunc(func(c *Client) { c.customScheme = true })
}

// Client talks to a slashd OAuth2 server on behalf of a game. It is safe
// for concurrent use. At most one Authorize is pending at a time per Client:
// a new one aborts the previous (KindAborted, ErrAuthorizeSuperseded), as
// when a player starts over after closing the browser.
type Client struct {
	base    *url.URL
	baseErr error

	http         *http.Client
	open         func(string) error
	log          *slog.Logger
	secret       string
	customScheme bool
	now          func() time.Time

	mu      sync.Mutex
	appID   uint64
	pending *pending
}

// NewClient returns a client of the server at baseURL, the server's root
// (for example "http://127.0.0.1:8080", not ".../api/v10"). The consent
// page is {baseURL}/oauth2/authorize and the token endpoint
// {baseURL}/api/v10/oauth2/token. A malformed baseURL makes every call fail
// with KindValidation.
func NewClient(baseURL string, opts ...Option) *Client {
	c := &Client{
		http: &http.Client{Timeout: 30 * time.Second},
		open: OpenBrowser,
		log:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		now:  time.Now,
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	switch {
	case err != nil:
		c.baseErr = err
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		c.baseErr = &url.Error{Op: "parse", URL: baseURL, Err: errNotHTTPURL}
	case u.RawQuery != "" || u.Fragment != "":
		c.baseErr = &url.Error{Op: "parse", URL: baseURL, Err: errNotHTTPURL}
	default:
		c.base = u
	}
	for _, o := range opts {
		if o != nil {
			o.apply(c)
		}
	}
	return c
}

type stringError string

func (e stringError) Error() string { return string(e) }

const errNotHTTPURL = stringError("base URL must be an http(s) URL with a host and no query")

// SetApplicationID sets the application id that AuthorizationArgs.ClientId
// defaults to (the reference SDK's SetApplicationId).
func (c *Client) SetApplicationID(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.appID = id
}

// ApplicationID returns the id given to SetApplicationID.
func (c *Client) ApplicationID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.appID
}

// GetDefaultCommunicationScopes returns "openid sdk.social_layer", the
// scopes most games request.
func (*Client) GetDefaultCommunicationScopes() string { return DefaultCommunicationScopes }

// GetDefaultPresenceScopes returns "openid sdk.social_layer_presence", for
// games that only need rich presence.
func (*Client) GetDefaultPresenceScopes() string { return DefaultPresenceScopes }

// CreateAuthorizationCodeVerifier returns a new PKCE pair: a verifier of 32
// random bytes from crypto/rand, base64url-encoded (43 characters), and its
// S256 challenge. The error is non-nil only if the system's random source
// fails.
func (c *Client) CreateAuthorizationCodeVerifier() (AuthorizationCodeVerifier, error) {
	v, err := randomToken()
	if err != nil {
		return AuthorizationCodeVerifier{}, &Error{Kind: KindValidation, Op: "CreateAuthorizationCodeVerifier", Err: err}
	}
	return AuthorizationCodeVerifier{
		Verifier:  v,
		Challenge: AuthorizationCodeChallenge{Challenge: S256Challenge(v), Method: S256},
	}, nil
}

// endpoint returns base + path, or a validation error for a bad base URL.
func (c *Client) endpoint(op, path string) (string, error) {
	if c.base == nil {
		return "", &Error{Kind: KindValidation, Op: op, Err: c.baseErr}
	}
	return c.base.String() + path, nil
}

package authorize

import (
	"context"
	"crypto/subtle"
	"errors"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LoopbackCallbackPath is the path of the loopback redirect URI,
// http://127.0.0.1:<port>/callback. Register http://127.0.0.1/callback for
// the app: the server accepts any port on loopback (RFC 8252 §7.3).
const LoopbackCallbackPath = "/callback"

// AuthorizeResult is the outcome of a successful [Client.Authorize].
type AuthorizeResult struct {
	// Code is the authorization code, for GetToken.
	Code string
	// RedirectURI is the exact redirect URI sent to the server (the
	// loopback port is ephemeral); pass it unchanged to GetToken.
	RedirectURI string
	// State is the state that was sent and checked.
	State string
}

// Authorize starts an OAuth2 authorization (authorization code grant) and
// waits for its redirect.
//
// It validates args (Scopes is required; ClientId defaults to the
// application id), generates the state when args has none, opens
// {base}/oauth2/authorize with the browser opener, and waits until the
// server redirects back, ctx ends, or AbortAuthorize is called. The
// redirect's state is compared with the one sent in constant time.
//
// Where the redirect arrives:
//   - By default, on a loopback listener that Authorize starts on an
//     ephemeral port: the redirect URI is http://127.0.0.1:<port>/callback.
//     The listener answers the browser with a page saying the window can be
//     closed, and stops when Authorize returns.
//   - When args.CustomSchemeParam is set, or the client was made with
//     [WithCustomSchemeRedirects], the redirect URI is
//     args.RedirectURI(clientID) ("<scheme>:/authorize/callback", by default
//     "service-<application_id>:/authorize/callback") and the app must pass
//     the URL the operating system delivers to [Client.HandleRedirect].
//     This mode requires a CodeChallenge (PKCE), as the server does.
//
// Errors, all *Error: KindValidation (bad args), KindAborted (ctx ended,
// AbortAuthorize, a newer Authorize, or the user refused: OAuthError
// "access_denied"), KindAuthorizationFailed (state mismatch, another error
// on the redirect, no code, the browser could not be opened), KindNetwork
// (the loopback listener could not start).
func (c *Client) Authorize(ctx context.Context, args AuthorizationArgs) (AuthorizeResult, error) {
	const op = "Authorize"
	authURL, err := c.endpoint(op, "/oauth2/authorize")
	if err != nil {
		return AuthorizeResult{}, err
	}
	req, err := args.validate(op, c.ApplicationID(), c.customScheme)
	if err != nil {
		return AuthorizeResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return AuthorizeResult{}, &Error{Kind: KindAborted, Op: op, Err: err}
	}
	if req.state == "" {
		if req.state, err = randomToken(); err != nil {
			return AuthorizeResult{}, &Error{Kind: KindAuthorizationFailed, Op: op, Err: err}
		}
	}

	p := &pending{state: req.state, done: make(chan outcome, 1)}
	if req.customScheme {
		p.scheme = req.scheme
		p.redirectURI = req.scheme + ":" + CustomSchemeCallbackPath
	} else {
		stop, err := c.listenLoopback(p)
		if err != nil {
			return AuthorizeResult{}, &Error{Kind: KindNetwork, Op: op, Err: err}
		}
		defer stop()
	}
	c.begin(p)
	defer c.end(p)

	u := authURL + "?" + req.query(p.redirectURI, p.state)
	c.log.DebugContext(ctx, "authorize: opening the browser", "url", u, "redirect_uri", p.redirectURI)
	if err := c.open(u); err != nil {
		p.deliver(outcome{err: &Error{Kind: KindAuthorizationFailed, Op: op, Err: err}})
	}

	var out outcome
	select {
	case out = <-p.done:
	case <-ctx.Done():
		p.deliver(outcome{err: &Error{Kind: KindAborted, Op: op, Err: ctx.Err()}})
		out = <-p.done // ours, or a redirect that won the race
	}
	return out.res, out.err
}

// AbortAuthorize ends the pending Authorize, if any, with KindAborted and
// ErrAuthorizeAborted. It does not close a browser window already open.
func (c *Client) AbortAuthorize() {
	c.mu.Lock()
	p := c.pending
	c.mu.Unlock()
	if p != nil {
		p.deliver(outcome{err: &Error{Kind: KindAborted, Op: "Authorize", Err: ErrAuthorizeAborted}})
	}
}

// HandleRedirect completes a pending custom-scheme Authorize with the
// redirect URL the operating system delivered, for example
// "service-123:/authorize/callback?code=...&state=...". The URL's scheme and
// path must be those of the pending authorization's redirect URI.
//
// It returns nil when the URL was handed to the pending Authorize, which
// then returns its outcome (a code, or an error such as a state mismatch).
// It returns a KindValidation error, and leaves any pending Authorize
// waiting, when no custom-scheme Authorize is pending or the URL is not its
// redirect URI.
func (c *Client) HandleRedirect(rawURL string) error {
	const op = "HandleRedirect"
	c.mu.Lock()
	p := c.pending
	c.mu.Unlock()
	if p == nil || p.scheme == "" {
		return validationError(op, "no custom-scheme authorization is pending")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return &Error{Kind: KindValidation, Op: op, Err: err}
	}
	if !strings.EqualFold(u.Scheme, p.scheme) || u.Host != "" || u.Opaque != "" || u.Path != CustomSchemeCallbackPath {
		return validationError(op, "%q is not the redirect URI %s", rawURL, p.redirectURI)
	}
	if !p.deliver(p.evaluate(u.Query())) {
		return validationError(op, "the authorization already finished")
	}
	return nil
}

// query builds the authorize query, in the order the reference SDK sends
// it, with spaces as %20.
func (r request) query(redirectURI, state string) string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(v), "+", "%20"))
	}
	add("client_id", strconv.FormatUint(r.clientID, 10))
	add("response_type", "code")
	add("redirect_uri", redirectURI)
	add("scope", r.scopes)
	add("state", state)
	if n, ok := r.nonce.Get(); ok {
		add("nonce", n)
	}
	if ch, ok := r.challenge.Get(); ok {
		add("code_challenge", ch.Challenge)
		add("code_challenge_method", string(ch.Method))
	}
	if t, ok := r.integrationType.Get(); ok {
		add("integration_type", strconv.Itoa(int(t)))
	}
	return b.String()
}

// pending is one Authorize waiting for its redirect.
type pending struct {
	state       string
	redirectURI string
	scheme      string // set in custom-scheme mode

	mu       sync.Mutex
	finished bool
	done     chan outcome // capacity 1, written once
}

type outcome struct {
	res AuthorizeResult
	err error
}

// deliver finishes the authorization with o unless it already finished, and
// reports whether o was the one taken.
func (p *pending) deliver(o outcome) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return false
	}
	p.finished = true
	p.done <- o
	return true
}

// evaluate turns the redirect's query into an outcome. The state is checked
// first, so a forged redirect cannot pass an error or a code.
func (p *pending) evaluate(q url.Values) outcome {
	const op = "Authorize"
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.state)) != 1 {
		return outcome{err: &Error{Kind: KindAuthorizationFailed, Op: op, Err: ErrStateMismatch}}
	}
	if e := q.Get("error"); e != "" {
		kind := KindAuthorizationFailed
		if e == "access_denied" {
			kind = KindAborted
		}
		return outcome{err: &Error{Kind: kind, Op: op, OAuthError: e,
			Description: q.Get("error_description"), URI: q.Get("error_uri")}}
	}
	code := q.Get("code")
	if code == "" {
		return outcome{err: &Error{Kind: KindAuthorizationFailed, Op: op, Err: errors.New("redirect without a code")}}
	}
	return outcome{res: AuthorizeResult{Code: code, RedirectURI: p.redirectURI, State: p.state}}
}

// begin makes p the pending authorization, aborting the previous one.
func (c *Client) begin(p *pending) {
	c.mu.Lock()
	prev := c.pending
	c.pending = p
	c.mu.Unlock()
	if prev != nil {
		prev.deliver(outcome{err: &Error{Kind: KindAborted, Op: "Authorize", Err: ErrAuthorizeSuperseded}})
	}
}

func (c *Client) end(p *pending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == p {
		c.pending = nil
	}
}

// listenLoopback starts the redirect receiver on 127.0.0.1 with an
// ephemeral port and sets p.redirectURI. stop shuts it down, letting an
// answer in progress finish.
func (c *Client) listenLoopback(p *pending) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	host := ln.Addr().String() // 127.0.0.1:<port>
	p.redirectURI = "http://" + host + LoopbackCallbackPath
	c.log.Debug("authorize: loopback listener started", "addr", host)

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+LoopbackCallbackPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Host != host { // a DNS-rebound page, not our redirect
			http.Error(w, "unexpected host", http.StatusBadRequest)
			return
		}
		o := p.evaluate(r.URL.Query())
		if !p.deliver(o) {
			writePage(w, http.StatusConflict, pageFinished)
			return
		}
		switch KindOf(o.err) {
		case KindNone:
			writePage(w, http.StatusOK, pageOK)
		case KindAborted:
			writePage(w, http.StatusOK, pageDenied)
		default:
			writePage(w, http.StatusBadRequest, pageFailed)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
		<-served
	}, nil
}

type page struct{ Title, Text string }

var (
	pageOK       = page{"Authorization complete", "You can close this window and return to the app."}
	pageDenied   = page{"Authorization cancelled", "Nothing was shared. You can close this window and return to the app."}
	pageFailed   = page{"Authorization failed", "The app could not verify this authorization. You can close this window and try again from the app."}
	pageFinished = page{"Already finished", "This authorization already finished. You can close this window."}
)

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Text}}</p></body></html>
`))

func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, p)
}

package authorize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Token is a token endpoint response.
type Token struct {
	AccessToken  string
	TokenType    string // "Bearer"
	ExpiresIn    int    // seconds, as sent
	RefreshToken string // empty for grants without one
	Scope        string // space-separated scopes granted
	IDToken      string // OpenID Connect ID token, when openid was granted
	// Expiry is the local time the access token expires: the time the
	// response arrived plus ExpiresIn (zero when ExpiresIn is 0).
	Expiry time.Time
}

// maxBody caps how much of a response is read.
const maxBody = 1 << 20

// GetToken exchanges an authorization code for a token
// (grant_type=authorization_code, RFC 6749 §4.1.3 with RFC 7636 §4.5).
// redirectURI must be the AuthorizeResult.RedirectURI of the authorization
// and codeVerifier the Verifier whose challenge it sent (empty if it sent
// none). applicationID 0 means the client's application id.
func (c *Client) GetToken(ctx context.Context, applicationID uint64, code, codeVerifier, redirectURI string) (Token, error) {
	const op = "GetToken"
	id, err := c.appIDFor(op, applicationID)
	if err != nil {
		return Token{}, err
	}
	switch {
	case code == "":
		return Token{}, validationError(op, "code is required")
	case redirectURI == "":
		return Token{}, validationError(op, "redirectURI is required: pass AuthorizeResult.RedirectURI")
	case codeVerifier != "" && !isPKCEString(codeVerifier):
		return Token{}, validationError(op, "codeVerifier must be 43 to 128 characters of [A-Za-z0-9-._~]")
	}
	form := url.Values{
		"grant_type":   {"authorization_code"},
		"client_id":    {id},
		"code":         {code},
		"redirect_uri": {redirectURI},
	}
	if codeVerifier != "" {
		form.Set("code_verifier", codeVerifier)
	}
	return c.token(ctx, op, form)
}

// RefreshToken exchanges a refresh token for a new token
// (grant_type=refresh_token). The server rotates refresh tokens: keep the
// returned one. applicationID 0 means the client's application id.
func (c *Client) RefreshToken(ctx context.Context, applicationID uint64, refreshToken string) (Token, error) {
	const op = "RefreshToken"
	id, err := c.appIDFor(op, applicationID)
	if err != nil {
		return Token{}, err
	}
	if refreshToken == "" {
		return Token{}, validationError(op, "refreshToken is required")
	}
	return c.token(ctx, op, url.Values{
		"grant_type":    {"refresh_token"},
		"client_id":     {id},
		"refresh_token": {refreshToken},
	})
}

// RevokeToken revokes an access or refresh token (RFC 7009). The server
// revokes the whole authorization: every token of that user and app.
// applicationID 0 means the client's application id.
func (c *Client) RevokeToken(ctx context.Context, applicationID uint64, token string) error {
	const op = "RevokeToken"
	id, err := c.appIDFor(op, applicationID)
	if err != nil {
		return err
	}
	if token == "" {
		return validationError(op, "token is required")
	}
	_, err = c.postForm(ctx, op, "/api/v10/oauth2/token/revoke", url.Values{"client_id": {id}, "token": {token}})
	return err
}

func (c *Client) appIDFor(op string, id uint64) (string, error) {
	if id == 0 {
		id = c.ApplicationID()
	}
	if id == 0 {
		return "", validationError(op, "applicationID is required (or call SetApplicationID)")
	}
	return strconv.FormatUint(id, 10), nil
}

type tokenJSON struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type"`
	ExpiresIn    expiresIn `json:"expires_in"`
	RefreshToken string    `json:"refresh_token"`
	Scope        string    `json:"scope"`
	IDToken      string    `json:"id_token"`
}

// expiresIn accepts a number or a numeric string, as some servers send.
type expiresIn int

func (e *expiresIn) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return fmt.Errorf("expires_in: %w", err)
	}
	*e = expiresIn(n)
	return nil
}

func (c *Client) token(ctx context.Context, op string, form url.Values) (Token, error) {
	resp, err := c.postForm(ctx, op, "/api/v10/oauth2/token", form)
	if err != nil {
		return Token{}, err
	}
	bad := func(err error) (Token, error) {
		return Token{}, &Error{Kind: KindHTTP, Op: op, Status: resp.status, Body: resp.body, Err: err}
	}
	if mt, _, _ := mime.ParseMediaType(resp.contentType); mt != "application/json" {
		return bad(fmt.Errorf("token response has content type %q, not JSON", resp.contentType))
	}
	var tj tokenJSON
	if err := json.Unmarshal(resp.body, &tj); err != nil {
		return bad(fmt.Errorf("token response: %w", err))
	}
	if tj.AccessToken == "" {
		return bad(errors.New("token response without access_token"))
	}
	t := Token{AccessToken: tj.AccessToken, TokenType: tj.TokenType, ExpiresIn: int(tj.ExpiresIn),
		RefreshToken: tj.RefreshToken, Scope: tj.Scope, IDToken: tj.IDToken}
	if t.ExpiresIn > 0 {
		t.Expiry = resp.received.Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	return t, nil
}

type response struct {
	status      int
	contentType string
	body        []byte
	received    time.Time
}

// postForm POSTs a form-encoded body to base+path and returns a 2xx
// response, or an *Error.
func (c *Client) postForm(ctx context.Context, op, path string, form url.Values) (response, error) {
	u, err := c.endpoint(op, path)
	if err != nil {
		return response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return response{}, &Error{Kind: KindValidation, Op: op, Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.secret != "" {
		req.SetBasicAuth(url.QueryEscape(form.Get("client_id")), url.QueryEscape(c.secret))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return response{}, c.transportError(ctx, op, err)
	}
	r := response{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body, received: c.now()}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return response{}, httpError(op, resp, body)
	}
	return r, nil
}

// transportError is KindAborted when ctx ended, KindNetwork otherwise.
func (c *Client) transportError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return &Error{Kind: KindAborted, Op: op, Err: err}
	}
	return &Error{Kind: KindNetwork, Op: op, Err: err}
}

// httpError builds a KindHTTP error, parsing an RFC 6749 error body
// ({"error", "error_description", "error_uri"}) or the REST API's
// ({"code", "message"}).
func httpError(op string, resp *http.Response, body []byte) *Error {
	e := &Error{Kind: KindHTTP, Op: op, Status: resp.StatusCode, Body: body}
	var eb struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		URI         string `json:"error_uri"`
		Code        int    `json:"code"`
		Message     string `json:"message"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &eb) == nil {
		e.OAuthError, e.Description, e.URI = eb.Error, eb.Description, eb.URI
		e.Code, e.Message = eb.Code, eb.Message
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil && s >= 0 {
			e.RetryAfter = time.Duration(s * float64(time.Second))
		}
	}
	return e
}

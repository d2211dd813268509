package webhook

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/slashd/slashd/internal/interaction"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/jsonenc"
)

// MaxEndpointURLLength is the longest accepted Interactions Endpoint URL.
const MaxEndpointURLLength = 2048

// ErrInvalidEndpointURL is wrapped by every ValidateEndpointURL error.
var ErrInvalidEndpointURL = errors.New("invalid interactions endpoint url")

// ValidateEndpointURL checks the form of an Interactions Endpoint URL: an
// absolute http or https URL with a host, no fragment, at most 2048 chars.
func ValidateEndpointURL(s string) error {
	fail := func(why string) error { return fmt.Errorf("%w: %s", ErrInvalidEndpointURL, why) }
	if s == "" {
		return fail("empty")
	}
	if len(s) > MaxEndpointURLLength {
		return fail(fmt.Sprintf("longer than %d characters", MaxEndpointURLLength))
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return fail("contains whitespace")
	}
	if strings.Contains(s, "#") {
		return fail("must not have a fragment")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail("scheme must be http or https")
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return fail("must be absolute with a host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fail("bad port")
		}
	}
	return nil
}

// VerificationFailedMessage is the form error the admin API shows on
// interactions_endpoint_url when VerifyEndpoint fails.
const VerificationFailedMessage = "The specified interactions endpoint url could not be verified."

// Verification check names, used in VerificationError.Check.
const (
	CheckURL          = "url"
	CheckPing         = "ping"
	CheckBadSignature = "bad signature"
)

// VerificationError says which endpoint check failed and why.
type VerificationError struct {
	// Check is CheckURL, CheckPing or CheckBadSignature.
	Check string
	// Reason explains the failure (for admins and logs).
	Reason string
	// Err is the underlying error (a *DeliveryError for transport failures).
	Err error
}

func (e *VerificationError) Error() string {
	return "interactions endpoint verification failed: " + e.Check + ": " + e.Reason
}

// Unwrap returns the underlying error.
func (e *VerificationError) Unwrap() error { return e.Err }

// Ping is the identity of the PING sent by VerifyEndpointPing. Empty fields
// are generated (snowflake-shaped ids, a random token).
type Ping struct {
	ID            string
	ApplicationID string
	Token         string
}

// VerifyEndpoint runs the checks made when an Interactions Endpoint URL is
// set, with a generated PING identity; see VerifyEndpointPing, which callers
// that know the application id should prefer.
func (d *Deliverer) VerifyEndpoint(ctx context.Context, endpoint string, priv ed25519.PrivateKey) error {
	return d.VerifyEndpointPing(ctx, endpoint, priv, Ping{})
}

// VerifyEndpointPing runs the checks made when an Interactions Endpoint URL
// is set: the URL must pass ValidateEndpointURL; (1) a correctly signed PING
// ({"type":1} with id, application_id, token, version 1) must be answered
// 200, Content-Type application/json, body {"type":1}; (2) the same kind of
// request with a well-formed but invalid signature must be answered 401.
// The result is nil or a *VerificationError naming the failed check.
func (d *Deliverer) VerifyEndpointPing(ctx context.Context, endpoint string, priv ed25519.PrivateKey, ping Ping) error {
	if err := ValidateEndpointURL(endpoint); err != nil {
		return &VerificationError{Check: CheckURL, Reason: err.Error(), Err: err}
	}
	if err := checkKey(priv); err != nil {
		return err
	}

	// (1) Signed PING.
	body, err := d.pingBody(ping)
	if err != nil {
		return err
	}
	ts := d.timestamp()
	a, err := d.post(ctx, endpoint, body, Sign(priv, ts, body), ts)
	if err != nil {
		return &VerificationError{Check: CheckPing, Reason: diagnostic(err), Err: err}
	}
	pingFail := func(why string) error { return &VerificationError{Check: CheckPing, Reason: why} }
	if a.status != http.StatusOK {
		return pingFail(fmt.Sprintf("signed PING answered HTTP %d, want 200", a.status))
	}
	if a.tooBig {
		return pingFail("PONG body too large")
	}
	if !isJSON(a.header) {
		return pingFail(fmt.Sprintf("PONG Content-Type %q, want application/json", a.header.Get("Content-Type")))
	}
	var pong struct {
		Type *int `json:"type"`
	}
	if err := json.Unmarshal(a.body, &pong); err != nil || pong.Type == nil || *pong.Type != interaction.CallbackPong {
		return pingFail(fmt.Sprintf(`PONG body %q, want {"type":1}`, truncate(a.body)))
	}

	// (2) Invalid signature: a well-formed signature by another key.
	_, other, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	body, err = d.pingBody(Ping{})
	if err != nil {
		return err
	}
	ts = d.timestamp()
	a, err = d.post(ctx, endpoint, body, Sign(other, ts, body), ts)
	if err != nil {
		return &VerificationError{Check: CheckBadSignature, Reason: diagnostic(err), Err: err}
	}
	if a.status != http.StatusUnauthorized {
		return &VerificationError{Check: CheckBadSignature,
			Reason: fmt.Sprintf("request with an invalid signature answered HTTP %d, want 401", a.status)}
	}
	return nil
}

// pingBody builds a PING interaction like the real one.
func (d *Deliverer) pingBody(p Ping) ([]byte, error) {
	var err error
	if p.ID == "" {
		if p.ID, err = d.snowflake(); err != nil {
			return nil, err
		}
	}
	if p.ApplicationID == "" {
		if p.ApplicationID, err = d.snowflake(); err != nil {
			return nil, err
		}
	}
	if p.Token == "" {
		var b [48]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		p.Token = "aW50ZXJhY3Rpb246" + base64.RawURLEncoding.EncodeToString(b[:])
	}
	return jsonenc.Marshal(struct {
		ID            string   `json:"id"`
		ApplicationID string   `json:"application_id"`
		Type          int      `json:"type"`
		Token         string   `json:"token"`
		Version       int      `json:"version"`
		Entitlements  []string `json:"entitlements"`
	}{p.ID, p.ApplicationID, 1, p.Token, 1, []string{}})
}

// snowflake returns a snowflake-shaped id for now with random low bits.
func (d *Deliverer) snowflake() (string, error) {
	const epoch = 1420070400000
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	ms := d.now().UnixMilli() - epoch
	if ms < 0 {
		ms = 0
	}
	id := uint64(ms)<<22 | binary.BigEndian.Uint64(b[:])&(1<<22-1)
	return strconv.FormatUint(id, 10), nil
}

func diagnostic(err error) string {
	var de *DeliveryError
	if errors.As(err, &de) {
		return de.Diagnostic()
	}
	return err.Error()
}

// EndpointForLog is an Interactions Endpoint URL without what may be
// secret in it (credentials, the query), for logs.
func EndpointForLog(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not a URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

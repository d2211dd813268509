package webhook

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/slashd/slashd/internal/interaction"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Defaults applied by New for zero Config fields.
const (
	// DefaultTimeout is how long the app has to answer inline (api-facts §4.3).
	DefaultTimeout = 3 * time.Second
	// DefaultMaxResponseBytes caps the inline answer read from the app.
	DefaultMaxResponseBytes int64 = 1 << 20
	// UserAgent is sent on every request.
	UserAgent = "slashd (https://github.com/slashd/slashd, 1)"
	// maxErrorBody caps the response bytes kept in a DeliveryError.
	maxErrorBody = 1024
	// MaxIdleConnsPerHost is how many idle connections to one app the
	// default client keeps: http.DefaultTransport's 2 would make every
	// third concurrent delivery to an app open (and a later one close) a
	// connection, a TCP (and TLS) handshake on the invocation's path.
	MaxIdleConnsPerHost = 64
	// maxIdleConns bounds the idle connections to all apps together.
	maxIdleConns = 1024
)

// Config configures a Deliverer. Zero fields take defaults.
type Config struct {
	// Client sends the requests. Default: a client that does not follow
	// redirects (a 3xx answer is a Status failure) and whose transport is a
	// clone of http.DefaultTransport keeping up to MaxIdleConnsPerHost
	// connections to each app alive between deliveries.
	Client *http.Client
	// Now is the clock used for X-Signature-Timestamp and PING ids.
	// Default: time.Now.
	Now func() time.Time
	// Timeout bounds a whole delivery, including reading the answer.
	// Default: DefaultTimeout (3 s).
	Timeout time.Duration
	// MaxResponseBytes caps the answer body; a larger body is a BadResponse.
	// Default: DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxMultipartBytes caps a multipart/form-data answer (a message with
	// its files) instead; default: MaxResponseBytes.
	MaxMultipartBytes int64
	// Reserve, when set, is asked for the memory a multipart answer may
	// take (its Content-Length, else MaxMultipartBytes) before it is
	// read; the release it returns is the Response's Release (called by
	// the Deliverer itself when the answer is not handed over). An error
	// fails the delivery.
	Reserve func(ctx context.Context, n int64) (release func(), err error)
}

// Deliverer POSTs signed interactions to applications. It is safe for
// concurrent use.
type Deliverer struct {
	client       *http.Client
	now          func() time.Time
	timeout      time.Duration
	maxBody      int64
	maxMultipart int64
	reserve      func(ctx context.Context, n int64) (func(), error)
}

// New builds a Deliverer from cfg, filling defaults.
func New(cfg Config) *Deliverer {
	d := &Deliverer{
		client:       cfg.Client,
		now:          cfg.Now,
		timeout:      cfg.Timeout,
		maxBody:      cfg.MaxResponseBytes,
		maxMultipart: cfg.MaxMultipartBytes,
		reserve:      cfg.Reserve,
	}
	if d.client == nil {
		var rt http.RoundTripper = http.DefaultTransport
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			t = t.Clone()
			t.MaxIdleConnsPerHost, t.MaxIdleConns = MaxIdleConnsPerHost, maxIdleConns
			rt = t
		}
		d.client = &http.Client{
			Transport: rt,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if d.maxBody <= 0 {
		d.maxBody = DefaultMaxResponseBytes
	}
	d.maxMultipart = max(d.maxMultipart, d.maxBody)
	return d
}

// Response is an application's answer to a delivery.
type Response struct {
	// Status is the HTTP status the app answered with (200, 202 or 204).
	Status int
	// ViaCallback is true for 202/204: the app answers (or answered) through
	// POST /interactions/{id}/{token}/callback instead of inline. Type and
	// Data are then zero.
	ViaCallback bool
	// Type is the inline interaction callback type (interaction.ValidCallbackType).
	Type int
	// Data is the raw "data" member of the inline answer; nil when absent
	// or null. Validating it against Type is the caller's job.
	Data json.RawMessage
	// Body is the raw answer body.
	Body []byte
	// Multipart is the answer's Content-Type when the app answered inline
	// with multipart/form-data (payload_json and files[n], as libraries
	// answer with a file): Body is that form, which the caller reads as
	// it reads a callback's; Type and Data are then zero.
	Multipart string
	// Signed is the signature headers the delivery carried.
	Signed Signed
	// release gives back what Config.Reserve reserved for a multipart
	// answer (nil: nothing).
	release func()
}

// Release gives back the memory reserved for a multipart answer once
// the caller is done with Body (a no-op otherwise).
func (r Response) Release() {
	if r.release != nil {
		r.release()
	}
}

// ErrorKind classifies a failed delivery.
type ErrorKind int

// Delivery failure kinds.
const (
	// KindTimeout: no complete answer within the timeout.
	KindTimeout ErrorKind = iota + 1
	// KindNetwork: connection refused, DNS, TLS, reset, cancelled context, ...
	KindNetwork
	// KindStatus: an HTTP status other than 200, 202 or 204.
	KindStatus
	// KindBadResponse: a 200 whose body is not a valid interaction response
	// (content type, JSON, type, size).
	KindBadResponse
)

func (k ErrorKind) String() string {
	switch k {
	case KindTimeout:
		return "timeout"
	case KindNetwork:
		return "network"
	case KindStatus:
		return "status"
	case KindBadResponse:
		return "bad response"
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// Messages shown to the invoking user, as the real client words them.
const (
	MessageNoResponse = "The application did not respond"
	MessageFailed     = "This interaction failed"
)

// DeliveryError is returned by Deliver for every failure.
type DeliveryError struct {
	Kind ErrorKind
	// Status is the HTTP status, 0 when no response was received.
	Status int
	// Body is the beginning (at most 1 KiB) of the answer body, for logs.
	Body []byte
	// Detail explains the failure for logs and admins (not for end users).
	Detail string
	// Err is the underlying error, if any.
	Err error
	// Signed is the signature headers the delivery carried (zero when
	// it was not sent).
	Signed Signed
}

// Error returns the message to show the invoking user: MessageNoResponse for
// timeouts, MessageFailed otherwise. Use Detail/Err/Kind for diagnostics.
func (e *DeliveryError) Error() string { return e.UserMessage() }

// UserMessage is the text to show the invoking user.
func (e *DeliveryError) UserMessage() string {
	if e.Kind == KindTimeout {
		return MessageNoResponse
	}
	return MessageFailed
}

// Diagnostic is a one-line description for logs.
func (e *DeliveryError) Diagnostic() string {
	s := "interaction delivery failed (" + e.Kind.String() + ")"
	if e.Status != 0 {
		s += ": HTTP " + strconv.Itoa(e.Status)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the underlying error.
func (e *DeliveryError) Unwrap() error { return e.Err }

func truncate(b []byte) []byte {
	if len(b) > maxErrorBody {
		b = b[:maxErrorBody]
	}
	return bytes.Clone(b)
}

// answer is what came back from one POST.
type answer struct {
	status  int
	header  http.Header
	body    []byte
	tooBig  bool
	limit   int64  // the cap the body was read with
	release func() // what reserve reserved for it (nil: nothing)
}

// post sends body to endpoint with the given signature headers, bounded by
// d.timeout, and reads at most d.maxBody bytes of the answer. Errors are
// *DeliveryError of kind Timeout or Network.
func (d *Deliverer) post(ctx context.Context, endpoint string, body []byte, sig, ts string) (*answer, error) {
	tctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &DeliveryError{Kind: KindNetwork, Detail: "bad endpoint: " + err.Error(), Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(HeaderSignature, sig)
	req.Header.Set(HeaderTimestamp, ts)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, d.transportError(ctx, tctx, err)
	}
	// Read to the end (the body is capped: a larger one is refused and
	// its connection closed), so that the connection goes back to the
	// pool for the next delivery.
	defer resp.Body.Close()
	a := &answer{status: resp.StatusCode, header: resp.Header, limit: d.maxBody}
	if isMultipart(resp.Header.Get("Content-Type")) && resp.StatusCode == http.StatusOK {
		a.limit = d.maxMultipart
		if d.reserve != nil {
			n := resp.ContentLength
			if n < 0 || n > a.limit {
				n = a.limit
			}
			if a.release, err = d.reserve(tctx, n); err != nil {
				return nil, d.transportError(ctx, tctx, err)
			}
		}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, a.limit+1))
	if err != nil {
		a.done()
		return nil, d.transportError(ctx, tctx, err)
	}
	a.body = b
	if int64(len(b)) > a.limit {
		a.tooBig = true
		a.body = b[:a.limit]
	}
	return a, nil
}

// done releases what was reserved for the answer, if anything.
func (a *answer) done() {
	if a.release != nil {
		a.release()
		a.release = nil
	}
}

// transportError classifies a failure to send or read.
func (d *Deliverer) transportError(parent, tctx context.Context, err error) error {
	if errors.Is(parent.Err(), context.Canceled) {
		// The caller gave up; that is not the app's fault, but it is still a
		// failed delivery. errors.Is(err, context.Canceled) works via Unwrap.
		// (A caller deadline that expires first counts as a timeout below.)
		return &DeliveryError{Kind: KindNetwork, Detail: "delivery cancelled: " + err.Error(), Err: err}
	}
	var ne net.Error
	if errors.Is(tctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		return &DeliveryError{Kind: KindTimeout, Detail: fmt.Sprintf("no answer within %v", d.timeout), Err: err}
	}
	return &DeliveryError{Kind: KindNetwork, Detail: err.Error(), Err: err}
}

func (d *Deliverer) timestamp() string {
	return strconv.FormatInt(d.now().Unix(), 10)
}

func checkKey(priv ed25519.PrivateKey) error {
	if len(priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("webhook: private key has %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	return nil
}

// isJSON reports whether the Content-Type header names application/json.
func isJSON(h http.Header) bool {
	return mediaType(h.Get("Content-Type")) == "application/json"
}

// isMultipart reports whether a Content-Type names multipart/form-data.
func isMultipart(contentType string) bool {
	return mediaType(contentType) == "multipart/form-data"
}

// mediaType is a Content-Type's media type, lower case ("" when it does
// not parse). An app's answer is all but always exactly
// application/json, which needs no parsing (mime.ParseMediaType
// allocates its parameters' map, three times per delivery).
func mediaType(contentType string) string {
	if contentType == "application/json" {
		return contentType
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

// Deliver POSTs body (a JSON interaction) to endpoint signed with priv and
// returns the app's answer: an inline 200 interaction response (JSON, or a
// multipart form left to the caller to read), or a 202/204
// meaning the app answers through the callback endpoint. Every failure is a
// *DeliveryError, whose Error() is fit to show the invoking user. There are
// no retries. A private key of the wrong size is a plain (non-delivery) error.
func (d *Deliverer) Deliver(ctx context.Context, endpoint string, priv ed25519.PrivateKey, body []byte) (Response, error) {
	if err := checkKey(priv); err != nil {
		return Response{}, err
	}
	ts := d.timestamp()
	signed := Signed{Signature: Sign(priv, ts, body), Timestamp: ts}
	resp, err := d.deliver(ctx, endpoint, body, signed)
	resp.Signed = signed
	var de *DeliveryError
	if errors.As(err, &de) {
		de.Signed = signed
	}
	return resp, err
}

// Signed is the signature headers a delivery was sent with
// (HeaderSignature, HeaderTimestamp), for logs that show them.
type Signed struct {
	Signature string
	Timestamp string
}

func (d *Deliverer) deliver(ctx context.Context, endpoint string, body []byte, signed Signed) (Response, error) {
	ts := signed.Timestamp
	a, err := d.post(ctx, endpoint, body, signed.Signature, ts)
	if err != nil {
		return Response{}, err
	}
	defer a.done() // unless handed over with a multipart answer
	bad := func(detail string, err error) (Response, error) {
		return Response{}, &DeliveryError{Kind: KindBadResponse, Status: a.status, Body: truncate(a.body), Detail: detail, Err: err}
	}
	switch a.status {
	case http.StatusAccepted, http.StatusNoContent:
		return Response{Status: a.status, ViaCallback: true, Body: a.body}, nil
	case http.StatusOK:
	default:
		return Response{}, &DeliveryError{Kind: KindStatus, Status: a.status, Body: truncate(a.body),
			Detail: "unexpected status " + strconv.Itoa(a.status)}
	}
	if a.tooBig {
		return bad(fmt.Sprintf("answer larger than %d bytes", a.limit), nil)
	}
	if ct := a.header.Get("Content-Type"); isMultipart(ct) {
		r := Response{Status: a.status, Body: a.body, Multipart: ct, release: a.release}
		a.release = nil // the caller's now
		return r, nil
	}
	if !isJSON(a.header) {
		return bad(fmt.Sprintf("Content-Type %q is not application/json", a.header.Get("Content-Type")), nil)
	}
	var r struct {
		Type *int            `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.body, &r); err != nil {
		return bad("answer is not a JSON interaction response: "+err.Error(), err)
	}
	if r.Type == nil {
		return bad(`answer has no "type"`, nil)
	}
	if !interaction.ValidCallbackType(*r.Type) {
		return bad(fmt.Sprintf("unknown interaction callback type %d", *r.Type), nil)
	}
	data := r.Data
	switch {
	case len(data) == 0 || string(data) == "null":
		data = nil
	case data[0] != '{':
		return bad(`answer "data" is not an object`, nil)
	}
	return Response{Status: a.status, Type: *r.Type, Data: data, Body: a.body}, nil
}

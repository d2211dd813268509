package authorize

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrorKind classifies an [*Error], like the reference SDK's ErrorType. The
// numeric values are the reference SDK's.
type ErrorKind int

// The kinds of error the package returns.
const (
	// KindNone is what [KindOf] reports for nil and for errors that are
	// not an [*Error].
	KindNone ErrorKind = 0
	// KindNetwork: the request did not get an HTTP response (connection
	// refused, timeout, TLS failure, unreadable body) or the loopback
	// listener could not be started.
	KindNetwork ErrorKind = 1
	// KindHTTP: the server answered with a non-2xx status, or with a 2xx
	// response that is not a valid token response. Status and Body are set,
	// and OAuthError/Description when the body is an RFC 6749 error.
	KindHTTP ErrorKind = 2
	// KindValidation: bad local input (missing scopes, no client id,
	// malformed code verifier, a redirect URL that is not ours, ...).
	// Nothing was sent.
	KindValidation ErrorKind = 6
	// KindAborted: the authorization was cancelled: the context ended,
	// AbortAuthorize was called, a newer Authorize replaced it, or the user
	// refused consent (OAuthError "access_denied").
	KindAborted ErrorKind = 7
	// KindAuthorizationFailed: the authorization failed without an HTTP
	// error: state mismatch, an error other than access_denied on the
	// redirect, a redirect without a code, or the browser could not be
	// opened.
	KindAuthorizationFailed ErrorKind = 8
)

func (k ErrorKind) String() string {
	switch k {
	case KindNone:
		return "None"
	case KindNetwork:
		return "NetworkError"
	case KindHTTP:
		return "HTTPError"
	case KindValidation:
		return "ValidationError"
	case KindAborted:
		return "Aborted"
	case KindAuthorizationFailed:
		return "AuthorizationFailed"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Sentinel causes, found with errors.Is through an [*Error].
var (
	// ErrStateMismatch: the redirect's state is not the one sent
	// (KindAuthorizationFailed).
	ErrStateMismatch = errors.New("state mismatch")
	// ErrAuthorizeAborted: AbortAuthorize was called (KindAborted).
	ErrAuthorizeAborted = errors.New("authorization aborted by AbortAuthorize")
	// ErrAuthorizeSuperseded: a newer Authorize call replaced this one
	// (KindAborted).
	ErrAuthorizeSuperseded = errors.New("authorization replaced by a newer Authorize call")
)

// Error is every error the package returns. Read it with errors.As:
//
//	var e *authorize.Error
//	if errors.As(err, &e) && e.Kind == authorize.KindHTTP { ... e.Status, e.OAuthError ... }
type Error struct {
	Kind ErrorKind
	// Op is the Client method that failed ("Authorize", "GetToken", ...).
	Op string
	// Status and Body: the HTTP response of a KindHTTP error.
	Status int
	Body   []byte
	// OAuthError, Description and URI: RFC 6749 error, error_description
	// and error_uri, from a token endpoint body (KindHTTP) or from the
	// authorization redirect (KindAborted, KindAuthorizationFailed).
	OAuthError  string
	Description string
	URI         string
	// Code and Message: the REST API's error envelope
	// ({"code": 50035, "message": "..."}), when the body has that shape.
	Code    int
	Message string
	// RetryAfter is the Retry-After of a 429 or 503 response.
	RetryAfter time.Duration
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("authorize: ")
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.OAuthError != "" {
		b.WriteString(": " + e.OAuthError)
		if e.Description != "" {
			b.WriteString(" (" + e.Description + ")")
		}
	} else if e.Message != "" {
		fmt.Fprintf(&b, ": %s (code %d)", e.Message, e.Code)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying again may succeed: network errors, 429
// and 5xx responses.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindNetwork:
		return true
	case KindHTTP:
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	return false
}

// KindOf returns the Kind of the first [*Error] in err's chain, or KindNone.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindNone
}

func validationError(op, format string, args ...any) *Error {
	return &Error{Kind: KindValidation, Op: op, Err: fmt.Errorf(format, args...)}
}

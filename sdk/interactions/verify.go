package interactions

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The headers of a signed delivery.
const (
	HeaderSignature = "X-Signature-Ed25519"
	HeaderTimestamp = "X-Signature-Timestamp"
)

// MaxBodyBytes is the largest request body VerifyRequest reads.
const MaxBodyBytes = 8 << 20

// ParsePublicKey decodes an application's public key given as 64 hex
// characters. The error matches ErrInvalidPublicKey.
func ParsePublicKey(publicKeyHex string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(publicKeyHex))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: want %d hex characters", ErrInvalidPublicKey, 2*ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// VerifySignature checks a hex Ed25519 signature over timestamp+body with
// key. It returns nil or an error matching ErrInvalidSignature (and
// ErrMissingSignature or ErrMalformedSignature when that is the cause).
func VerifySignature(key ed25519.PublicKey, signatureHex, timestamp string, body []byte) error {
	if len(key) != ed25519.PublicKeySize {
		return ErrInvalidPublicKey
	}
	if signatureHex == "" || timestamp == "" {
		return fmt.Errorf("%w: %w", ErrInvalidSignature, ErrMissingSignature)
	}
	sig, err := hex.DecodeString(signatureHex)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: %w", ErrInvalidSignature, ErrMalformedSignature)
	}
	msg := make([]byte, 0, len(timestamp)+len(body))
	msg = append(append(msg, timestamp...), body...)
	if !ed25519.Verify(key, msg, sig) {
		return ErrInvalidSignature
	}
	return nil
}

// VerifyRequest reads r's body (at most MaxBodyBytes) and checks its
// signature headers with key. On success it returns the body, and r.Body
// is replaced by a reader over it so the request can be read again.
// Errors match ErrInvalidSignature (bad or missing signature),
// ErrBodyTooLarge, or are the body's read error.
func VerifyRequest(key ed25519.PublicKey, r *http.Request) ([]byte, error) {
	sig, ts := r.Header.Get(HeaderSignature), r.Header.Get(HeaderTimestamp)
	if sig == "" || ts == "" {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSignature, ErrMissingSignature)
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("interactions: reading body: %w", err)
		}
		if len(body) > MaxBodyBytes {
			return nil, ErrBodyTooLarge
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if err := VerifySignature(key, sig, ts, body); err != nil {
		return nil, err
	}
	return body, nil
}

// Verify reports whether r is signed by the application whose public key
// is publicKeyHex (64 hex characters): X-Signature-Ed25519 must be a valid
// hex Ed25519 signature of X-Signature-Timestamp followed by the body. It
// returns the body when it is. A malformed key verifies nothing. Use
// VerifyRequest to learn why a request was refused.
func Verify(publicKeyHex string, r *http.Request) ([]byte, bool) {
	key, err := ParsePublicKey(publicKeyHex)
	if err != nil {
		return nil, false
	}
	body, err := VerifyRequest(key, r)
	return body, err == nil
}

// isSignatureError reports whether err means "answer 401".
func isSignatureError(err error) bool { return errors.Is(err, ErrInvalidSignature) }

// Sign returns the hex X-Signature-Ed25519 value for timestamp and body,
// as the service computes it: for tests that drive a Handler with signed
// requests.
func Sign(key ed25519.PrivateKey, timestamp string, body []byte) string {
	msg := make([]byte, 0, len(timestamp)+len(body))
	msg = append(append(msg, timestamp...), body...)
	return hex.EncodeToString(ed25519.Sign(key, msg))
}

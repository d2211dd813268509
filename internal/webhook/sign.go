// Package webhook delivers interactions to an application's Interactions
// Endpoint URL the way the real service does: a JSON POST signed with the
// application's Ed25519 key (X-Signature-Ed25519 over timestamp+body,
// X-Signature-Timestamp in unix seconds), answered inline within 3 seconds.
// It also implements the checks run when an endpoint URL is set (a signed
// PING that must be PONGed and a badly signed probe that must get 401).
//
// The package holds no mutable package-level state; everything configurable
// lives in a Deliverer built with New.
package webhook

import (
	"crypto/ed25519"
	"encoding/hex"
)

// Header names used on every delivery.
const (
	HeaderSignature = "X-Signature-Ed25519"
	HeaderTimestamp = "X-Signature-Timestamp"
)

// signedMessage is timestamp bytes followed by the raw body bytes.
func signedMessage(timestamp string, body []byte) []byte {
	msg := make([]byte, 0, len(timestamp)+len(body))
	msg = append(msg, timestamp...)
	return append(msg, body...)
}

// Sign returns the lowercase hex Ed25519 signature of timestamp+body, the
// value of the X-Signature-Ed25519 header. priv must be a 64-byte
// ed25519.PrivateKey (ed25519.Sign panics otherwise); Deliver checks this
// before signing.
func Sign(priv ed25519.PrivateKey, timestamp string, body []byte) string {
	return hex.EncodeToString(ed25519.Sign(priv, signedMessage(timestamp, body)))
}

// Verify reports whether sigHex is a valid signature of timestamp+body by the
// hex-encoded public key pubHex. Malformed hex or wrong lengths yield false.
// It is what an application does with an incoming request.
func Verify(pubHex, sigHex, timestamp string, body []byte) bool {
	if len(pubHex) != 2*ed25519.PublicKeySize || len(sigHex) != 2*ed25519.SignatureSize {
		return false
	}
	pub, err := hex.DecodeString(pubHex)
	if err != nil {
		return false
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil {
		return false
	}
	return ed25519.Verify(ed25519.PublicKey(pub), signedMessage(timestamp, body), sig)
}

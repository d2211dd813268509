package interactions

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidSignature: the request is not signed by the application's
	// key. Every verification failure matches it, together with a more
	// precise cause when there is one.
	ErrInvalidSignature = errors.New("interactions: invalid request signature")
	// ErrMissingSignature: X-Signature-Ed25519 or X-Signature-Timestamp is
	// absent or empty (also matches ErrInvalidSignature).
	ErrMissingSignature = errors.New("interactions: missing signature headers")
	// ErrMalformedSignature: X-Signature-Ed25519 is not 128 hex characters
	// (also matches ErrInvalidSignature).
	ErrMalformedSignature = errors.New("interactions: malformed signature")
	// ErrInvalidPublicKey: the public key is not 64 hex characters
	// (32 bytes).
	ErrInvalidPublicKey = errors.New("interactions: invalid public key")
	// ErrBodyTooLarge: the request body is larger than MaxBodyBytes.
	ErrBodyTooLarge = errors.New("interactions: request body too large")
	// ErrTooManyChoices: more than MaxAutocompleteChoices autocomplete
	// choices.
	ErrTooManyChoices = errors.New("interactions: too many autocomplete choices")
	// ErrInvalidChoice: an autocomplete choice with a bad name or value.
	ErrInvalidChoice = errors.New("interactions: invalid autocomplete choice")
)

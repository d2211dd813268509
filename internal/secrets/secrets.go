// Package secrets seals the secrets slashd must keep readable at rest
// (each app's Ed25519 private key, the keys that sign id_tokens) with
// AES-256-GCM, under a key derived from the operator's secret
// (SLASHD_SECRET_KEY or --secret-key-file).
//
// The AES key is HKDF-SHA256 of the secret, which may be any text of at
// least MinSecretLen bytes (`openssl rand -base64 32` makes one): no
// encoding to get wrong, and the derivation separates the key that
// encrypts from the key id stored with each value. A sealed value is
//
//	"sdsec:v1:" | key id (8 bytes) | nonce (12) | ciphertext and tag
//
// where the key id is a second HKDF output of the secret (it reveals
// nothing of it) and the additional data binds the value to the row and
// column it belongs to, so that sealed values cannot be swapped between
// rows. A value without the prefix is in clear: stores written before a
// key was set hold those, and sealing them is the store's start-up work.
package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Prefix starts every sealed value (and no clear one of the kinds
// stored: raw Ed25519 keys and PKCS #8 DER, which starts with 0x30).
const Prefix = "sdsec:v1:"

// MinSecretLen is the shortest secret accepted: 32 bytes of text.
const MinSecretLen = 32

const (
	idLen    = 8
	nonceLen = 12
	salt     = "slashd secrets at rest"
)

var (
	// ErrNoKey: a sealed value was read, and no secret key is set.
	ErrNoKey = errors.New("the value is encrypted and no secret key is set (SLASHD_SECRET_KEY or --secret-key-file)")
	// ErrUnknownKey: a value was sealed with a key the keyring lacks.
	ErrUnknownKey = errors.New("the value was encrypted with another secret key")
	// ErrCorrupt: a sealed value does not open (tampered with, or moved
	// to another row).
	ErrCorrupt = errors.New("the encrypted value is corrupt")
)

// key is one secret's AES-256-GCM key and id.
type key struct {
	id   [idLen]byte
	aead cipher.AEAD
}

func newKey(secret []byte) (*key, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("the secret key has %d bytes, want at least %d (make one with: openssl rand -base64 32)",
			len(secret), MinSecretLen)
	}
	raw, err := hkdf.Key(sha256.New, secret, []byte(salt), "slashd aes-256-gcm v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive the encryption key: %w", err)
	}
	id, err := hkdf.Key(sha256.New, secret, []byte(salt), "slashd key id v1", idLen)
	if err != nil {
		return nil, fmt.Errorf("derive the key id: %w", err)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	k := &key{aead: aead}
	copy(k.id[:], id)
	return k, nil
}

// Keyring seals with its current key and opens with that one or any of
// its old ones (during a rotation). A nil *Keyring is "no key": Seal
// returns values as they are, Open passes clear values and refuses sealed ones.
type Keyring struct {
	current *key
	old     []*key
}

// NewKeyring makes a keyring from the current secret and, while
// rotating, the secrets values may still be sealed with.
func NewKeyring(current []byte, old ...[]byte) (*Keyring, error) {
	cur, err := newKey(current)
	if err != nil {
		return nil, err
	}
	k := &Keyring{current: cur}
	for _, o := range old {
		ok, err := newKey(o)
		if err != nil {
			return nil, fmt.Errorf("old key: %w", err)
		}
		if ok.id == cur.id {
			continue // the same secret given twice
		}
		k.old = append(k.old, ok)
	}
	return k, nil
}

// ID is the current key's id (hex), as stored in the values it seals:
// safe to log, it tells keys apart and reveals nothing of them.
func (k *Keyring) ID() string {
	if k == nil {
		return ""
	}
	return hex.EncodeToString(k.current.id[:])
}

// IsSealed reports whether a stored value is sealed.
func IsSealed(stored []byte) bool { return bytes.HasPrefix(stored, []byte(Prefix)) }

// Seal encrypts plain for the row and column context names. Without a
// key (nil k) it returns plain as it is, to be stored in clear.
func (k *Keyring) Seal(plain []byte, context string) ([]byte, error) {
	if k == nil {
		return plain, nil
	}
	out := make([]byte, 0, len(Prefix)+idLen+nonceLen+len(plain)+k.current.aead.Overhead())
	out = append(out, Prefix...)
	out = append(out, k.current.id[:]...)
	nonce := make([]byte, nonceLen)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	out = append(out, nonce...)
	return k.current.aead.Seal(out, nonce, plain, additional(k.current.id, context)), nil
}

// Open returns the clear value of stored (sealed for context, or clear),
// and whether it is as it should be stored now: sealed with the current
// key (with a key), in clear (without).
func (k *Keyring) Open(stored []byte, context string) (plain []byte, current bool, err error) {
	if !IsSealed(stored) {
		return stored, k == nil, nil
	}
	if k == nil {
		return nil, false, ErrNoKey
	}
	rest := stored[len(Prefix):]
	if len(rest) < idLen+nonceLen+k.current.aead.Overhead() {
		return nil, false, ErrCorrupt
	}
	var id [idLen]byte
	copy(id[:], rest)
	kk := k.find(id)
	if kk == nil {
		return nil, false, fmt.Errorf("%w (key id %x; the secret key's is %s)", ErrUnknownKey, id, k.ID())
	}
	nonce, sealed := rest[idLen:idLen+nonceLen], rest[idLen+nonceLen:]
	plain, err = kk.aead.Open(nil, nonce, sealed, additional(id, context))
	if err != nil {
		return nil, false, ErrCorrupt
	}
	return plain, kk == k.current, nil
}

func (k *Keyring) find(id [idLen]byte) *key {
	if k.current.id == id {
		return k.current
	}
	for _, o := range k.old {
		if o.id == id {
			return o
		}
	}
	return nil
}

// additional is the data each value is authenticated with: its header
// and where it belongs.
func additional(id [idLen]byte, context string) []byte {
	return append(append([]byte(Prefix), id[:]...), context...)
}

// Config is where the secret keys come from: the value itself (from the
// environment) or a file holding it, for the current key and, while
// rotating, the old one.
type Config struct {
	Key, KeyFile       string
	OldKey, OldKeyFile string
}

// Load reads c's secrets into a keyring; nil, nil when no key is set.
// Surrounding whitespace (a file's final newline) is not part of a
// secret.
func Load(c Config) (*Keyring, error) {
	cur, err := secret("secret key", c.Key, c.KeyFile)
	if err != nil {
		return nil, err
	}
	old, err := secret("old secret key", c.OldKey, c.OldKeyFile)
	if err != nil {
		return nil, err
	}
	switch {
	case cur == nil && old != nil:
		return nil, errors.New("an old secret key is set without a secret key: rotating needs the new key too")
	case cur == nil:
		return nil, nil
	case old == nil:
		return NewKeyring(cur)
	}
	return NewKeyring(cur, old)
}

func secret(what, value, file string) ([]byte, error) {
	switch {
	case value != "" && file != "":
		return nil, fmt.Errorf("the %s is set both as a value and as a file (%s): set one", what, file)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read the %s: %w", what, err)
		}
		value = string(b)
		if strings.TrimSpace(value) == "" {
			return nil, fmt.Errorf("the %s file %s is empty", what, file)
		}
	case value == "":
		return nil, nil
	}
	return []byte(strings.TrimSpace(value)), nil
}

package oauth

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password rules: 8 to 128 characters. The length is counted in
// characters (runes); argon2id itself takes any length, unlike bcrypt's
// 72 bytes.
const (
	MinPasswordLength = 8
	MaxPasswordLength = 128
)

// ErrPasswordLength is a password outside the length rules.
var ErrPasswordLength = fmt.Errorf("a password must be %d to %d characters long", MinPasswordLength, MaxPasswordLength)

// argon2id parameters: OWASP's Password Storage Cheat Sheet first
// recommendation (m = 19 MiB, t = 2, p = 1), a 16-byte salt and a 32-byte
// key. A hash records its own parameters, so raising them later keeps
// old hashes checkable.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonSaltLen = 16
	argonKeyLen  = 32
)

// argonParams are the parameters a hash was made with.
type argonParams struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

var b64 = base64.RawStdEncoding // the PHC string format's encoding

// CheckPasswordLength applies the length rules.
func CheckPasswordLength(pw string) error {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength || n > MaxPasswordLength {
		return ErrPasswordLength
	}
	return nil
}

// HashPassword hashes a password with argon2id and a random salt read
// from rand (crypto/rand when nil), encoded in the PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded base64).
func HashPassword(rand io.Reader, pw string) ([]byte, error) {
	if err := CheckPasswordLength(pw); err != nil {
		return nil, err
	}
	if rand == nil {
		rand = cryptoRand
	}
	salt := make([]byte, argonSaltLen)
	if _, err := io.ReadFull(rand, salt); err != nil {
		return nil, fmt.Errorf("read salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Appendf(nil, "$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var cryptoRand = rand.Reader

// dummyHash is checked when there is no real hash (an unknown login
// name), so that the answer takes as long as for a known one.
var dummyHash = []byte("$argon2id$v=19$m=19456,t=2,p=1$c2xhc2hkLWR1bW15LXNhbHQ$" +
	"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")

// CheckPassword reports whether pw matches hash (HashPassword's output),
// comparing keys in constant time. A missing or malformed hash never
// matches, but still costs one key derivation, so that callers may check
// a password for a login that does not exist without revealing it.
func CheckPassword(hash []byte, pw string) bool {
	p, err := parseArgon2id(hash)
	valid := err == nil
	if !valid {
		p, _ = parseArgon2id(dummyHash)
	}
	key := argon2.IDKey([]byte(pw), p.salt, p.time, p.memory, p.threads, uint32(len(p.key)))
	return subtle.ConstantTimeCompare(key, p.key) == 1 && valid
}

// parseArgon2id decodes a PHC argon2id string, refusing parameters this
// package would never write and that could make a check too costly.
func parseArgon2id(hash []byte) (argonParams, error) {
	var p argonParams
	bad := errors.New("not an argon2id hash")
	parts := bytes.Split(hash, []byte("$"))
	if len(parts) != 6 || len(parts[0]) != 0 || string(parts[1]) != "argon2id" ||
		string(parts[2]) != "v="+strconv.Itoa(argon2.Version) {
		return p, bad
	}
	for _, kv := range strings.Split(string(parts[3]), ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return p, bad
		}
		switch k {
		case "m":
			p.memory = uint32(n)
		case "t":
			p.time = uint32(n)
		case "p":
			p.threads = uint8(min(n, 255))
		default:
			return p, bad
		}
	}
	var err error
	if p.salt, err = b64.DecodeString(string(parts[4])); err != nil {
		return p, bad
	}
	if p.key, err = b64.DecodeString(string(parts[5])); err != nil {
		return p, bad
	}
	if p.memory < 8*uint32(max(p.threads, 1)) || p.memory > 1<<20 || p.time < 1 || p.time > 16 ||
		p.threads < 1 || p.threads > 16 || len(p.salt) < 8 || len(p.key) < 16 || len(p.key) > 64 {
		return p, bad
	}
	return p, nil
}

// Package auth mints, hashes and checks slashd's credentials: bot tokens,
// Bearer access tokens and client secrets.
//
// Secrets are random (crypto/rand by default, injectable for tests), only
// their SHA-256 is stored, and a presented secret is checked by hashing it,
// looking the hash up and comparing in constant time.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Scopes slashd knows for the commands API.
const (
	ScopeIdentify                    = "identify"
	ScopeApplicationsCommands        = "applications.commands"
	ScopeBot                         = "bot"
	ScopeCommandsUpdate              = "applications.commands.update"
	ScopeCommandsPermissionsUpdate   = "applications.commands.permissions.update"
	AccessTokenLifetime              = 7 * 24 * time.Hour // 604800 s, as the real service
	clientCredentialsScopesAllowList = ScopeIdentify + " " + ScopeCommandsUpdate
)

// ErrInvalidToken is returned for a missing, malformed, unknown or expired credential.
var ErrInvalidToken = errors.New("invalid token")

// Hash is the stored form of a secret.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// randomString returns n random bytes, base64url-encoded without padding.
func randomString(rand io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewBotToken mints a bot token shaped like the real service's:
// base64(bot user id) "." 6 random bytes "." 27 random bytes. Libraries such
// as disgo read the application id from the first segment.
func NewBotToken(rand io.Reader, botUserID snowflake.ID) (string, error) {
	mid, err := randomString(rand, 6)
	if err != nil {
		return "", err
	}
	tail, err := randomString(rand, 27)
	if err != nil {
		return "", err
	}
	head := base64.RawStdEncoding.EncodeToString([]byte(botUserID.String()))
	return head + "." + mid + "." + tail, nil
}

// NewAccessToken mints an opaque Bearer access token (30 characters, as the
// real service's).
func NewAccessToken(rand io.Reader) (string, error) {
	s, err := randomString(rand, 24)
	if err != nil {
		return "", err
	}
	return s[:30], nil
}

// NewAdminToken mints an admin API token (43 characters).
func NewAdminToken(rand io.Reader) (string, error) { return randomString(rand, 32) }

// NewClientToken mints a user's client token (the bare Authorization a
// chat client sends), 59 characters.
func NewClientToken(rand io.Reader) (string, error) { return randomString(rand, 44) }

// NewClientSecret mints a client secret (32 characters).
func NewClientSecret(rand io.Reader) (string, error) { return randomString(rand, 24) }

// Principal is who made a request.
type Principal struct {
	Token store.Token
}

// Bot reports whether the request carries a bot token.
func (p Principal) Bot() bool { return p.Token.Kind == store.TokenBot }

// Authenticate checks an Authorization header value ("Bot <token>" or
// "Bearer <token>") against the store.
func Authenticate(ctx context.Context, st store.Store, header string, now time.Time) (Principal, error) {
	kind, secret, ok := strings.Cut(strings.TrimSpace(header), " ")
	secret = strings.TrimSpace(secret)
	if !ok || secret == "" {
		return Principal{}, ErrInvalidToken
	}
	var want string
	switch strings.ToLower(kind) {
	case "bot":
		want = store.TokenBot
	case "bearer":
		want = store.TokenBearer
	default:
		return Principal{}, ErrInvalidToken
	}
	hash := Hash(secret)
	tok, err := st.TokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, fmt.Errorf("look up token: %w", err)
	}
	// The lookup is by hash; the constant-time comparison keeps the final
	// check free of timing differences whatever the backend's index does.
	if subtle.ConstantTimeCompare(tok.Hash, hash) != 1 || tok.Kind != want {
		return Principal{}, ErrInvalidToken
	}
	if !tok.ExpiresAt.IsZero() && !now.Before(tok.ExpiresAt) {
		return Principal{}, ErrInvalidToken
	}
	return Principal{Token: tok}, nil
}

// CheckClientSecret compares a presented secret with an app's stored hash
// in constant time.
func CheckClientSecret(app store.Application, secret string) bool {
	return subtle.ConstantTimeCompare(app.ClientSecretHash, Hash(secret)) == 1
}

// ClientCredentialsScopeAllowed reports whether a client_credentials grant
// may carry scope.
func ClientCredentialsScopeAllowed(scope string) bool {
	for _, s := range strings.Fields(clientCredentialsScopesAllowList) {
		if s == scope {
			return true
		}
	}
	return false
}

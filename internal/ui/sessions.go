package ui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/store"
)

// Sessions live in the store (store.PlaygroundSessions), so that a
// restart logs nobody out and every node of a cluster knows them. A row
// lets nobody in who reads it (a backup, a copied database file):
//
//   - the cookie's value (32 random bytes, hex) is only in the browser;
//     the row is found by its SHA-256;
//   - the admin token the session acts with is sealed (AES-256-GCM,
//     internal/secrets' format) under a key derived from the cookie's
//     value, bound to the row, so it opens only for a request carrying
//     the cookie, with no operator key needed;
//   - the row also names the token by its SHA-256 (its admin_tokens
//     row): revoking the token deletes the sessions made with it, and
//     the API, which checks the token on every call, refuses it anyway.
//
// The one-time login links stay in memory: the start banner prints a new
// one at every start.

// session is a live session, opened for the request that carries its
// cookie.
type session struct {
	hash       []byte // the cookie's SHA-256: the store's key
	key        string // hash in hex: names the session in memory (tickets)
	csrf       string
	adminToken string
	expires    time.Time
}

// cookieLen is the length of a session cookie's value: 32 bytes in hex.
const cookieLen = 64

// sessionHash is the store's key for a cookie value.
func sessionHash(cookie string) []byte {
	h := sha256.Sum256([]byte(cookie))
	return h[:]
}

// sealContext binds a sealed admin token to its session's row.
func sealContext(hash []byte) string {
	return "playground_sessions.admin_token:" + hex.EncodeToString(hash)
}

// cookieKeyring seals and opens one session's admin token: its key is
// derived (HKDF-SHA256, internal/secrets) from the cookie's value.
func cookieKeyring(cookie string) (*secrets.Keyring, error) {
	return secrets.NewKeyring([]byte(cookie))
}

func validCookie(v string) bool {
	if len(v) != cookieLen {
		return false
	}
	_, err := hex.DecodeString(v)
	return err == nil
}

func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, adminToken string) {
	s, cookie, err := h.newSession(r.Context(), adminToken)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The token was revoked between its check and the session.
		h.renderLogin(w, http.StatusUnauthorized, "That is not an admin token of this server.")
		return
	case err != nil:
		h.cfg.Logger.Error("ui: start a session", "err", err)
		h.renderLogin(w, http.StatusInternalServerError, "The session could not be stored: see the server's log.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, Expires: s.expires})
	h.cfg.Logger.Info("ui: logged in", "remote", r.RemoteAddr)
	securityHeaders(w)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// newSession stores a session of adminToken and returns it with its
// cookie's value.
func (h *Handler) newSession(ctx context.Context, adminToken string) (*session, string, error) {
	cookie, err := h.random()
	if err != nil {
		return nil, "", err
	}
	csrf, err := h.random()
	if err != nil {
		return nil, "", err
	}
	keys, err := cookieKeyring(cookie)
	if err != nil {
		return nil, "", fmt.Errorf("ui: session key: %w", err)
	}
	hash := sessionHash(cookie)
	sealed, err := keys.Seal([]byte(adminToken), sealContext(hash))
	if err != nil {
		return nil, "", fmt.Errorf("ui: seal the session's admin token: %w", err)
	}
	now := h.cfg.Now()
	s := &session{hash: hash, key: hex.EncodeToString(hash), csrf: csrf, adminToken: adminToken,
		expires: now.Add(h.cfg.SessionTTL)}
	err = h.cfg.Sessions.CreatePlaygroundSession(ctx, store.PlaygroundSession{Hash: hash,
		AdminTokenHash: auth.Hash(adminToken), SealedAdminToken: sealed, CSRF: csrf,
		ExpiresAt: s.expires, CreatedAt: now}, h.cfg.MaxSessions)
	if err != nil {
		return nil, "", fmt.Errorf("ui: store the session: %w", err)
	}
	return s, cookie, nil
}

// session is the request's live session, nil when it has none (no
// cookie, an unknown or expired one); an error when the store failed.
func (h *Handler) session(r *http.Request) (*session, error) {
	c, err := r.Cookie(CookieName)
	if err != nil || !validCookie(c.Value) {
		return nil, nil
	}
	ctx := r.Context()
	hash := sessionHash(c.Value)
	ps, err := h.cfg.Sessions.PlaygroundSession(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !h.cfg.Now().Before(ps.ExpiresAt) {
		// Expired: forget it now (the next login would purge it anyway).
		if err := h.cfg.Sessions.DeletePlaygroundSession(ctx, hash); err != nil {
			h.cfg.Logger.Warn("ui: delete an expired session", "err", err)
		}
		return nil, nil
	}
	keys, err := cookieKeyring(c.Value)
	if err != nil {
		return nil, err
	}
	// A row whose token is in clear, or does not open with this
	// cookie's key, was not written by this code: no session.
	if !secrets.IsSealed(ps.SealedAdminToken) {
		h.cfg.Logger.Warn("ui: a session's admin token is not sealed: refused")
		return nil, nil
	}
	token, _, err := keys.Open(ps.SealedAdminToken, sealContext(hash))
	if err != nil {
		h.cfg.Logger.Warn("ui: a session's admin token does not open: refused", "err", err)
		return nil, nil
	}
	return &session{hash: hash, key: hex.EncodeToString(hash), csrf: ps.CSRF, adminToken: string(token),
		expires: ps.ExpiresAt}, nil
}

// Package ui is slashd's playground: a web UI served at / on the API's
// address (see docs/design.md, "Playground UI"). Its assets are embedded
// (plain JavaScript modules, no build step).
//
// The UI is a client of the admin API (/admin/v1) and of /api/v10, with
// no private back door. A person logs in with an admin token (a form, or
// the one-time link the start banner prints); the token stays on the
// server, in a session named by an HttpOnly, SameSite=Strict cookie and
// kept in the store (sessions.go), so that it outlives a restart. The
// page's scripts reach the admin API through /ui/admin/v1/…, which this
// handler forwards, in process, to the API's own /admin/v1/… with the
// session's "Authorization: Admin …": the API checks the token on every
// call, as for any client. State-changing requests must carry the
// session's CSRF token (X-CSRF-Token) and, when the browser sends one, a
// same-origin Origin. The chat view calls /api/v10 directly with client
// tokens it mints through the admin API, as a chat client would.
package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/store"
)

//go:embed static
var staticFiles embed.FS

//go:embed templates/*.html
var templateFiles embed.FS

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// CookieName is the session cookie's name.
const CookieName = "slashd_ui"

// csrfHeader carries the session's CSRF token on state-changing requests.
const csrfHeader = "X-CSRF-Token"

// Config is what the UI needs.
type Config struct {
	// API is slashd's API handler: the UI forwards admin calls to it and
	// serves everything that is not the UI's from it.
	API http.Handler
	// Sessions keeps the logins (the API's store: api.Server.Store).
	Sessions store.PlaygroundSessions
	// Logger logs logins; nil discards.
	Logger *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Rand makes session ids, CSRF tokens and login codes (crypto/rand
	// when nil).
	Rand io.Reader
	// SessionTTL is how long a session lasts after its login (12 h when
	// 0); MaxSessions caps the sessions kept, those that expire first
	// going first (256 when 0). LoginCodeTTL is how long a one-time login link
	// works (24 h when 0).
	SessionTTL   time.Duration
	MaxSessions  int
	LoginCodeTTL time.Duration
	// Events is the bus the API publishes message events on
	// (api.Server.Events): the live chat listens to it. Nil: the chat
	// streams carry no messages (the log's stream still works).
	Events event.Bus
	// Heartbeat is how often an idle live stream gets a comment line
	// (15 s when 0).
	Heartbeat time.Duration
}

// Handler serves the UI and passes every other request to the API.
type Handler struct {
	cfg Config
	mux *http.ServeMux

	mu    sync.Mutex
	codes map[string]loginCode // the one-time login links' (in memory)

	log interactionLog

	// Live streams (live.go): ctx ends them (Close).
	ctx     context.Context
	stop    context.CancelFunc
	liveMu  sync.Mutex
	streams map[*stream]struct{}
	tickets map[string]chatTicket
}

type loginCode struct {
	adminToken string
	expires    time.Time
}

// New builds the UI in front of cfg.API, its sessions in cfg.Sessions.
func New(cfg Config) *Handler {
	if cfg.API == nil || cfg.Sessions == nil {
		panic("ui: New needs the API and a session store")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 256
	}
	if cfg.LoginCodeTTL == 0 {
		cfg.LoginCodeTTL = 24 * time.Hour
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = defaultHeartbeat
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), codes: map[string]loginCode{},
		streams: map[*stream]struct{}{}, tickets: map[string]chatTicket{}, log: newInteractionLog()}
	h.ctx, h.stop = context.WithCancel(context.Background())
	if cfg.Events != nil {
		go h.listen(cfg.Events.Subscribe(h.ctx, 4096))
	}
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	h.mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(sub)))
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /ui/login", h.loginLink)
	h.mux.HandleFunc("POST /ui/login", h.loginForm)
	h.mux.HandleFunc("POST /ui/logout", h.logout)
	h.mux.HandleFunc("GET /ui/session", h.sessionInfo)
	h.mux.HandleFunc("/ui/admin/v1/", h.adminProxy)
	h.mux.HandleFunc("GET /ui/interactions", h.interactions)
	h.mux.HandleFunc("POST /ui/live/chat", h.liveTicket)
	h.mux.HandleFunc("GET /ui/live/chat", h.liveChat)
	h.mux.HandleFunc("GET /ui/live/log", h.liveLog)
	h.mux.Handle("/", cfg.API)
	return h
}

// ServeHTTP routes the UI's paths and passes the rest to the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// LoginLink makes a one-time login link for adminToken at baseURL: the
// first visit opens a session and the link stops working.
func (h *Handler) LoginLink(baseURL, adminToken string) (string, error) {
	code, err := h.random()
	if err != nil {
		return "", err
	}
	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for c, lc := range h.codes {
		if now.After(lc.expires) {
			delete(h.codes, c)
		}
	}
	h.codes[code] = loginCode{adminToken: adminToken, expires: now.Add(h.cfg.LoginCodeTTL)}
	return strings.TrimSuffix(baseURL, "/") + "/ui/login?code=" + code, nil
}

func (h *Handler) random() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(h.cfg.Rand, b); err != nil {
		return "", fmt.Errorf("ui: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// securityHeaders are on every page and asset of the UI: no inline
// scripts, no framing, no referrer to other sites.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; "+
		"frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// index is the app for a session, the login form otherwise.
func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	s, err := h.session(r)
	if err != nil {
		h.cfg.Logger.Error("ui: read the session", "err", err)
		h.renderLogin(w, http.StatusInternalServerError, "The session could not be read: see the server's log.")
		return
	}
	if s == nil {
		h.renderLogin(w, http.StatusOK, "")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	b, _ := staticFiles.ReadFile("static/app.html")
	_, _ = w.Write(b)
}

func (h *Handler) renderLogin(w http.ResponseWriter, status int, msg string) {
	securityHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := templates.ExecuteTemplate(w, "login.html", map[string]string{"Error": msg}); err != nil {
		h.cfg.Logger.Warn("ui: render the login page", "err", err)
	}
}

// loginLink is GET /ui/login?code=…: the banner's one-time link.
func (h *Handler) loginLink(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	h.mu.Lock()
	lc, ok := h.codes[code]
	delete(h.codes, code)
	h.mu.Unlock()
	if !ok || code == "" || h.cfg.Now().After(lc.expires) {
		h.renderLogin(w, http.StatusUnauthorized, "This login link has been used or has expired: log in with the admin token.")
		return
	}
	// The API checks the token again on every call; this only says
	// early that it was revoked.
	if status := h.checkAdminToken(r, lc.adminToken); status != http.StatusOK {
		h.renderLogin(w, http.StatusUnauthorized, "The admin token of this link is no longer valid.")
		return
	}
	h.startSession(w, r, lc.adminToken)
}

// loginForm is POST /ui/login: the form's admin token.
func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		h.renderLogin(w, http.StatusForbidden, "Cross-site login refused.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	token := strings.TrimSpace(r.PostFormValue("token"))
	token = strings.TrimSpace(strings.TrimPrefix(token, "Admin "))
	if token == "" {
		h.renderLogin(w, http.StatusBadRequest, "Enter the admin token (admin_token in bootstrap.json).")
		return
	}
	switch status := h.checkAdminToken(r, token); status {
	case http.StatusOK:
		h.startSession(w, r, token)
	case http.StatusTooManyRequests:
		h.renderLogin(w, http.StatusTooManyRequests, "Too many failed attempts from this address: wait, then try again.")
	default:
		h.renderLogin(w, http.StatusUnauthorized, "That is not an admin token of this server.")
	}
}

// checkAdminToken asks the admin API, in process, whether token is an
// admin token, from the client's address (whose failures the API
// counts). It returns the API's status.
func (h *Handler) checkAdminToken(r *http.Request, token string) int {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/admin/v1/applications", nil)
	if err != nil {
		return http.StatusInternalServerError
	}
	req.RemoteAddr = r.RemoteAddr
	req.Host = r.Host
	req.Header.Set("Authorization", "Admin "+token)
	rec := &statusOnly{header: http.Header{}}
	h.cfg.API.ServeHTTP(rec, req)
	return rec.status
}

// statusOnly is a ResponseWriter that keeps the status and drops the
// body.
type statusOnly struct {
	header http.Header
	status int
}

func (s *statusOnly) Header() http.Header { return s.header }
func (s *statusOnly) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return len(b), nil
}
func (s *statusOnly) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

// sameOrigin reports whether the request's Origin, when the browser
// sent one, is this server.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// csrfOK checks a state-changing request of s: the CSRF token and the
// origin.
func csrfOK(r *http.Request, s *session) bool {
	got := r.Header.Get(csrfHeader)
	return sameOrigin(r) && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// authorized returns the request's session, or answers 401 (no
// session) or 403 (a method that changes something, without the
// session's CSRF token) and returns nil.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) *session {
	s, err := h.session(r)
	if err != nil {
		h.cfg.Logger.Error("ui: read the session", "err", err)
		uiError(w, http.StatusInternalServerError, "500: the session could not be read")
		return nil
	}
	if s == nil {
		uiError(w, http.StatusUnauthorized, "401: Unauthorized")
		return nil
	}
	if !safeMethod(r.Method) && !csrfOK(r, s) {
		uiError(w, http.StatusForbidden, "Invalid CSRF token")
		return nil
	}
	return s
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// uiError answers in the API's JSON error format.
func uiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = jsonenc.NewEncoder(w).Encode(map[string]any{"code": 0, "message": msg})
}

// logout is POST /ui/logout (with the CSRF header).
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	s := h.authorized(w, r)
	if s == nil {
		return
	}
	if err := h.cfg.Sessions.DeletePlaygroundSession(r.Context(), s.hash); err != nil {
		h.cfg.Logger.Error("ui: log out", "err", err)
		uiError(w, http.StatusInternalServerError, "500: the session could not be ended")
		return
	}
	h.dropTickets(s.key)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

// sessionInfo is GET /ui/session: the CSRF token the page's scripts send
// back (a same-origin read: other sites cannot see it).
func (h *Handler) sessionInfo(w http.ResponseWriter, r *http.Request) {
	s := h.authorized(w, r)
	if s == nil {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = jsonenc.NewEncoder(w).Encode(map[string]any{"csrf_token": s.csrf})
}

// adminProxy is /ui/admin/v1/…: the admin API's /admin/v1/…, called in
// process with the session's admin token.
func (h *Handler) adminProxy(w http.ResponseWriter, r *http.Request) {
	s := h.authorized(w, r)
	if s == nil {
		return
	}
	req := r.Clone(r.Context())
	req.URL.Path = strings.TrimPrefix(r.URL.Path, "/ui")
	if r.URL.RawPath != "" {
		req.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, "/ui")
	}
	req.RequestURI = req.URL.RequestURI()
	req.Header.Del("Cookie")
	req.Header.Del(csrfHeader)
	req.Header.Set("Authorization", "Admin "+s.adminToken)
	h.cfg.API.ServeHTTP(w, req)
}

package oauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pages are parsed once at start; templates are immutable afterwards.
var pages = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

const (
	sessionCookie   = "slashd_session"
	loginCSRFCookie = "slashd_login_csrf"
	sessionLifetime = 12 * time.Hour
)

// authorizeRoutes registers the consent page: GET shows login or consent,
// POST decides, POST …/login logs in. The real service serves the page
// without the API prefix too.
func (s *Server) authorizeRoutes(mux Mux, prefix string) {
	paths := []string{prefix + "/oauth2/authorize"}
	if prefix == "/api/v10" {
		paths = append(paths, "/oauth2/authorize")
	}
	for _, p := range paths {
		base := p
		s.handle(mux, "GET", "", base, func(w http.ResponseWriter, r *http.Request) { s.showAuthorize(w, r, base) })
		s.handle(mux, "POST", "", base, func(w http.ResponseWriter, r *http.Request) { s.decideAuthorize(w, r, base) })
		s.handle(mux, "POST", "", base+"/login", func(w http.ResponseWriter, r *http.Request) { s.login(w, r, base) })
	}
}

// authRequest is a validated authorization request.
type authRequest struct {
	app             store.Application
	redirectURI     string // where to send the browser
	sentRedirectURI string // as the client sent it ("" if it sent none): the token request must repeat it
	scopes          []string
	state, nonce    string
	challenge       string
	method          string
	integrationType int // -1 when not given
	permissions     guild.Permissions
	guildID         snowflake.ID
	lockGuild       bool
	raw             url.Values // the parameters, carried through the consent form
	// oidc: the request asks for openid, so OpenID Connect's rules for
	// prompt and max_age apply (docs/compat.md, "OpenID Connect
	// requests"); without it they keep the real service's looser ones.
	oidc    bool
	prompts []string // prompt's space-separated values
	maxAge  int64    // max_age in seconds; -1 when not given (or not an OpenID Connect request)
}

// prompted reports whether the request's prompt holds value.
func (a authRequest) prompted(value string) bool { return slices.Contains(a.prompts, value) }

// loginTooOld reports whether an OpenID Connect request's max_age asks for
// a login more recent than the session's (OIDC Core §3.1.2.1).
func (a authRequest) loginTooOld(sess store.Session, now time.Time) bool {
	return a.maxAge >= 0 && now.Sub(sess.CreatedAt) > time.Duration(a.maxAge)*time.Second
}

// codeRequest is what the code sent back for this request keeps of it;
// authTime is when the user last logged in.
func (a authRequest) codeRequest(authTime time.Time) codeRequest {
	return codeRequest{redirectURI: a.sentRedirectURI, challenge: a.challenge, method: a.method, nonce: a.nonce,
		authTime: authTime}
}

// install reports whether the request adds the app to a guild.
func (a authRequest) install() bool {
	return a.integrationType != userInstallType && (slices.Contains(a.scopes, auth.ScopeApplicationsCommands) ||
		slices.Contains(a.scopes, auth.ScopeBot))
}

// userInstall reports whether the request installs the app to the user's
// account: integration_type 1 with applications.commands (oauth2.mdx,
// "Installation context").
func (a authRequest) userInstall() bool {
	return a.integrationType == userInstallType && slices.Contains(a.scopes, auth.ScopeApplicationsCommands)
}

// Installation contexts (integration_type).
const (
	guildInstallType = 0
	userInstallType  = 1
)

// supports reports whether app may be installed in the installation
// context t: those of its integration_types_config (none listed: guild
// install only, the real service's default for a new app).
func supports(app store.Application, t int) bool {
	if len(app.IntegrationTypes) == 0 {
		return t == guildInstallType
	}
	return slices.Contains(app.IntegrationTypes, t)
}

// authError is a failed request: shown as a page when the client or
// redirect URI cannot be trusted, else sent back to the client.
type authError struct {
	page        string // message of an error page (no redirect)
	code, descr string // RFC 6749 error for the redirect
}

func pageError(msg string) *authError { return &authError{page: msg} }

func redirectError(code, descr string) *authError { return &authError{code: code, descr: descr} }

// authParams are the parameters the consent form carries through.
var authParams = []string{"client_id", "response_type", "redirect_uri", "scope", "state", "prompt", "nonce", "max_age",
	"code_challenge", "code_challenge_method", "integration_type", "permissions", "disable_guild_select"}

// requestedGuildField carries the request's guild_id through the consent
// form, whose own guild_id field is the guild the user picks: the two
// must not be confused, or a posted choice would pass for the guild the
// client locked the request to (disable_guild_select).
const requestedGuildField = "requested_guild_id"

// consentParams are the authorization parameters of a posted consent form.
func consentParams(form url.Values) url.Values {
	q := url.Values{}
	for _, k := range authParams {
		if v := form.Get(k); v != "" {
			q.Set(k, v)
		}
	}
	if g := form.Get(requestedGuildField); g != "" {
		q.Set("guild_id", g)
	}
	return q
}

// parseAuthRequest validates the parameters of /oauth2/authorize in the
// order RFC 6749 §4.1.2.1 asks: the client and redirect URI first (an
// error page, never a redirect), then everything else (an error sent to
// the client).
func (s *Server) parseAuthRequest(ctx context.Context, q url.Values) (authRequest, *authError, error) {
	a := authRequest{raw: url.Values{}, integrationType: -1}
	for _, k := range authParams {
		if v := q.Get(k); v != "" {
			a.raw.Set(k, v)
		}
	}
	appID, err := snowflake.Parse(q.Get("client_id"))
	if err != nil {
		return a, pageError("Invalid client_id"), nil
	}
	app, err := s.store.Application(ctx, appID)
	if errors.Is(err, store.ErrNotFound) {
		return a, pageError("Unknown application"), nil
	}
	if err != nil {
		return a, nil, err
	}
	a.app = app
	settings, err := s.store.OAuthSettings(ctx, appID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return a, nil, err
	}
	a.challenge, a.method = q.Get("code_challenge"), q.Get("code_challenge_method")
	a.sentRedirectURI = q.Get("redirect_uri")
	requested := a.sentRedirectURI
	if requested == "" && len(settings.RedirectURIs) == 1 {
		requested = settings.RedirectURIs[0] // the real service falls back to the only registered URI
	}
	uri, ok := MatchRedirectURI(settings.RedirectURIs, requested, appID, settings.PublicClient, a.challenge != "")
	if !ok {
		return a, pageError("Invalid OAuth2 redirect_uri"), nil
	}
	a.redirectURI = uri
	a.state, a.nonce = q.Get("state"), q.Get("nonce")

	if rt := q.Get("response_type"); rt != "code" {
		return a, redirectError("unsupported_response_type", `Unsupported "response_type"`), nil
	}
	if e := CheckCodeChallenge(a.challenge, a.method); e != nil {
		return a, redirectError(e.Code, e.Description), nil
	}
	a.scopes = strings.Fields(q.Get("scope"))
	if e := CheckScopes(a.scopes); e != nil {
		return a, redirectError(e.Code, e.Description), nil
	}
	if e := a.parseOIDC(q); e != nil {
		return a, e, nil
	}
	switch it := q.Get("integration_type"); it {
	case "":
	case "0", "1":
		a.integrationType, _ = strconv.Atoi(it)
	default:
		return a, redirectError("invalid_request", `Invalid "integration_type"`), nil
	}
	// A user install carries applications.commands only (the bot scope
	// adds a bot to a guild), and the app must support the installation
	// context asked for (oauth2.mdx: "The application must be configured
	// in the Developer Portal to support the provided integration_type").
	if a.integrationType == userInstallType && slices.Contains(a.scopes, auth.ScopeBot) {
		return a, redirectError("invalid_scope", `Scope "bot" cannot be used with "integration_type" 1`), nil
	}
	if (a.userInstall() && !supports(app, userInstallType)) || (a.install() && !supports(app, guildInstallType)) {
		return a, redirectError("invalid_request", `Unsupported "integration_type"`), nil
	}
	if p := q.Get("permissions"); p != "" {
		bits, ok := guild.ParsePermissions(p)
		if !ok {
			return a, redirectError("invalid_request", `Invalid "permissions"`), nil
		}
		a.permissions = bits
	}
	if g := q.Get("guild_id"); g != "" {
		id, err := snowflake.Parse(g)
		if err != nil {
			return a, redirectError("invalid_request", `Invalid "guild_id"`), nil
		}
		a.guildID = id
	}
	a.lockGuild = a.guildID != 0 && q.Get("disable_guild_select") == "true"
	return a, nil, nil
}

// parseOIDC reads prompt and max_age. For an OpenID Connect request,
// "none" must stand alone and max_age must be a whole number of seconds
// (OIDC Core §3.1.2.1); other requests ignore max_age and, as the real
// service, only look for prompt=none.
func (a *authRequest) parseOIDC(q url.Values) *authError {
	a.oidc = slices.Contains(a.scopes, "openid")
	a.prompts = strings.Fields(q.Get("prompt"))
	a.maxAge = -1
	if !a.oidc {
		return nil
	}
	if a.prompted("none") && len(a.prompts) > 1 {
		return redirectError("invalid_request", `Invalid "prompt": "none" cannot be combined with other values`)
	}
	if v := q.Get("max_age"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return redirectError("invalid_request", `Invalid "max_age"`)
		}
		a.maxAge = n
	}
	return nil
}

// sendBack redirects the browser to the client with params (and state).
func sendBack(w http.ResponseWriter, r *http.Request, a authRequest, params url.Values) {
	u, err := url.Parse(a.redirectURI)
	if err != nil { // matched URIs always parse; be safe anyway
		renderPage(w, http.StatusBadRequest, "error", pageData{Title: "Error", Error: "Invalid OAuth2 redirect_uri"})
		return
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	if a.state != "" {
		q.Set("state", a.state)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// fail renders or redirects an authError.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, a authRequest, e *authError) {
	if e.page != "" {
		renderPage(w, http.StatusBadRequest, "error", pageData{Title: "Error", Error: e.page})
		return
	}
	p := url.Values{"error": {e.code}}
	if e.descr != "" {
		p.Set("error_description", e.descr)
	}
	sendBack(w, r, a, p)
}

// showAuthorize is GET /oauth2/authorize: the login form, or the consent
// page for a logged-in user.
func (s *Server) showAuthorize(w http.ResponseWriter, r *http.Request, action string) {
	s.answerRequest(w, r, action, r.URL.Query(), r.URL.RequestURI())
}

// answerRequest answers an authorization request, sent by GET or as a
// POSTed form (q its parameters, cont the URL the login form comes back
// to): the login form, the consent page, or, for prompt=none, a code or
// an error sent straight back.
func (s *Server) answerRequest(w http.ResponseWriter, r *http.Request, action string, q url.Values, cont string) {
	ctx := r.Context()
	a, aerr, err := s.parseAuthRequest(ctx, q)
	if err != nil {
		s.internalError(w, err)
		return
	}
	if aerr != nil {
		s.fail(w, r, a, aerr)
		return
	}
	sess, ok, err := s.currentSession(r)
	if err != nil {
		s.internalError(w, err)
		return
	}
	if a.oidc && a.prompted("none") {
		s.answerWithoutPages(w, r, a, sess, ok)
		return
	}
	if !ok {
		s.showLogin(w, r, a, action, cont, loginPage{}, http.StatusOK)
		return
	}
	if other, err := s.ofAnotherWorld(ctx, a, sess.UserID); err != nil || other {
		s.refuseOtherWorld(w, r, a, err)
		return
	}
	if a.oidc {
		if a.prompted("login") || a.loginTooOld(sess, s.now()) {
			s.showReauthentication(w, r, a, action, cont, sess)
			return
		}
		if a.prompted("select_account") {
			s.showAccountChoice(w, r, a, action, cont, sess)
			return
		}
	}
	if a.prompted("none") && !a.install() && !a.userInstall() {
		// The real service's prompt=none, for requests without openid:
		// skip the page when a grant covers the request, else show it.
		granted, err := s.coveringGrant(ctx, a, sess.UserID)
		if err != nil {
			s.internalError(w, err)
			return
		}
		if granted {
			s.grantAgain(w, r, a, sess)
			return
		}
	}
	s.showConsent(w, r, a, sess, action, "", http.StatusOK)
}

// answerWithoutPages answers an OpenID Connect prompt=none request: the
// code when the user is logged in (recently enough for max_age) and a
// grant covers the request, else the error OIDC Core §3.1.2.6 names,
// sent back to the client; never a page.
func (s *Server) answerWithoutPages(w http.ResponseWriter, r *http.Request, a authRequest, sess store.Session, loggedIn bool) {
	ctx := r.Context()
	if !loggedIn || a.loginTooOld(sess, s.now()) {
		s.fail(w, r, a, redirectError("login_required", "The user must log in"))
		return
	}
	if other, err := s.ofAnotherWorld(ctx, a, sess.UserID); err != nil || other {
		s.refuseOtherWorld(w, r, a, err)
		return
	}
	if a.install() || a.userInstall() {
		s.fail(w, r, a, redirectError("interaction_required", "Installing the app needs the user on the consent page"))
		return
	}
	granted, err := s.coveringGrant(ctx, a, sess.UserID)
	if err != nil {
		s.internalError(w, err)
		return
	}
	if !granted {
		s.fail(w, r, a, redirectError("consent_required", "The user has not authorized the app for these scopes"))
		return
	}
	s.grantAgain(w, r, a, sess)
}

// grantAgain sends a code for a request an existing grant covers, without
// a page: a new grant of the same scopes, as consenting again would give.
func (s *Server) grantAgain(w http.ResponseWriter, r *http.Request, a authRequest, sess store.Session) {
	s.issueAndSendBack(w, r, a, store.Grant{ID: s.ids.Next(), ApplicationID: a.app.ID, UserID: sess.UserID,
		Scopes: Expand(a.scopes), CreatedAt: s.now().UTC()}, sess.CreatedAt, url.Values{}, nil)
}

// showReauthentication is the login page for a logged-in user whom
// prompt=login or max_age asks to log in again, their login name filled
// in.
func (s *Server) showReauthentication(w http.ResponseWriter, r *http.Request, a authRequest, action, cont string, sess store.Session) {
	l, err := s.store.LoginOfUser(r.Context(), sess.UserID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.internalError(w, err)
		return
	}
	s.showLogin(w, r, a, action, cont, loginPage{name: l.Name, note: "Log in again to continue."}, http.StatusOK)
}

// showAccountChoice is the login page for prompt=select_account: continue
// as the logged-in user, or log in as another.
func (s *Server) showAccountChoice(w http.ResponseWriter, r *http.Request, a authRequest, action, cont string, sess store.Session) {
	user, err := s.store.User(r.Context(), sess.UserID)
	if err != nil {
		s.internalError(w, fmt.Errorf("user %d of the session: %w", sess.UserID, err))
		return
	}
	target, err := url.Parse(cont)
	if err != nil {
		s.internalError(w, fmt.Errorf("continuation %q: %w", cont, err))
		return
	}
	s.showLogin(w, r, a, action, cont, loginPage{continueAs: afterLogin(target), accountName: displayName(user),
		note: "Choose an account."}, http.StatusOK)
}

// afterLogin is the continuation of a request whose login just happened:
// without what asked for it (prompt's login and select_account, and
// max_age), so that the page that follows does not ask again.
func afterLogin(target *url.URL) string {
	q := target.Query()
	var kept []string
	for _, p := range strings.Fields(q.Get("prompt")) {
		if p != "login" && p != "select_account" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		q.Del("prompt")
	} else {
		q.Set("prompt", strings.Join(kept, " "))
	}
	q.Del("max_age")
	u := *target
	u.RawQuery = q.Encode()
	return u.String()
}

// loginPage is what the login form shows beside its fields.
type loginPage struct {
	name, error string // the name typed, the failure to show
	note        string // why the page shows to a logged-in user
	// continueAs (for select_account) keeps the logged-in account,
	// accountName.
	continueAs, accountName string
}

func (s *Server) showLogin(w http.ResponseWriter, r *http.Request, a authRequest, action, cont string, p loginPage, status int) {
	token, err := randomToken(s.rand)
	if err != nil {
		s.internalError(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 3600})
	renderPage(w, status, "login", pageData{Title: "Log in", AppName: a.app.Name, Action: action + "/login",
		CSRF: token, Continue: cont, Name: p.name, Error: p.error, Note: p.note, ContinueAs: p.continueAs,
		UserName: p.accountName})
}

// guildChoice is a guild in the picker.
type guildChoice struct {
	ID       snowflake.ID
	Name     string
	Selected bool
}

// manageableGuilds are the guilds where the user has MANAGE_GUILD.
func (s *Server) manageableGuilds(ctx context.Context, userID snowflake.ID) ([]store.Guild, error) {
	gs, err := s.store.MemberGuilds(ctx, userID)
	if err != nil {
		return nil, err
	}
	var out []store.Guild
	for _, g := range gs {
		ok, err := s.canManageGuild(ctx, g, userID)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, g)
		}
	}
	return out, nil
}

func (s *Server) canManageGuild(ctx context.Context, g store.Guild, userID snowflake.ID) (bool, error) {
	p, err := s.guildPermissions(ctx, g, userID)
	return p.Has(guild.ManageGuild), err
}

// guildPermissions are the user's base permissions in g (none when they
// are not a member).
func (s *Server) guildPermissions(ctx context.Context, g store.Guild, userID snowflake.ID) (guild.Permissions, error) {
	m, err := s.store.Member(ctx, g.ID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	roles, err := s.store.Roles(ctx, g.ID)
	if err != nil {
		return 0, err
	}
	byID := make(guild.Roles, len(roles))
	for _, r := range roles {
		byID[r.ID] = r
	}
	return guild.BasePermissions(g, byID, m), nil
}

func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, a authRequest, sess store.Session, action, msg string, status int) {
	ctx := r.Context()
	user, err := s.store.User(ctx, sess.UserID)
	if err != nil {
		s.internalError(w, err)
		return
	}
	d := pageData{Title: "Authorize " + a.app.Name, AppName: a.app.Name, UserName: displayName(user), Action: action,
		CSRF: sess.CSRF, Error: msg, Scopes: DescribeScopes(a.scopes), RedirectHost: redirectHost(a.redirectURI)}
	if a.userInstall() {
		d.Title, d.UserInstall, d.Scopes = "Add "+a.app.Name+" to my apps", true, DescribeUserInstallScopes(a.scopes)
	}
	for _, k := range authParams {
		if v := a.raw.Get(k); v != "" {
			d.Hidden = append(d.Hidden, hiddenField{Name: k, Value: v})
		}
	}
	if a.guildID != 0 {
		d.Hidden = append(d.Hidden, hiddenField{Name: requestedGuildField, Value: a.guildID.String()})
	}
	if a.install() {
		d.PickGuild = true
		gs, err := s.manageableGuilds(ctx, user.ID)
		if err != nil {
			s.internalError(w, err)
			return
		}
		for _, g := range gs {
			if a.lockGuild && g.ID != a.guildID {
				continue
			}
			d.Guilds = append(d.Guilds, guildChoice{ID: g.ID, Name: g.Name, Selected: g.ID == a.guildID})
		}
		if a.lockGuild && len(d.Guilds) == 1 {
			d.GuildLocked, d.LockedGuild = true, a.guildID
		}
		d.Blocked = len(d.Guilds) == 0
	}
	renderPage(w, status, "consent", d)
}

// decideAuthorize is POST /oauth2/authorize: the consent page's form
// (Cancel sends access_denied back; Authorize installs the app when
// asked, records the grant and sends a code back), or an authorization
// request sent as a form, which OpenID Connect Core §3.1.2.1 requires
// servers to accept. Only the consent form carries the session's csrf.
func (s *Server) decideAuthorize(w http.ResponseWriter, r *http.Request, action string) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		renderPage(w, http.StatusBadRequest, "error", pageData{Title: "Error", Error: "Malformed form"})
		return
	}
	if !r.PostForm.Has("csrf") {
		s.answerRequest(w, r, action, r.PostForm, action+"?"+r.PostForm.Encode())
		return
	}
	sess, ok, err := s.currentSession(r)
	if err != nil {
		s.internalError(w, err)
		return
	}
	if !ok {
		renderPage(w, http.StatusUnauthorized, "error", pageData{Title: "Error", Error: "Your session has expired; start again from the application."})
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(sess.CSRF)) != 1 {
		renderPage(w, http.StatusForbidden, "error", pageData{Title: "Error", Error: "This form has expired; start again from the application."})
		return
	}
	a, aerr, err := s.parseAuthRequest(ctx, consentParams(r.PostForm))
	if err != nil {
		s.internalError(w, err)
		return
	}
	if aerr != nil {
		s.fail(w, r, a, aerr)
		return
	}
	if other, err := s.ofAnotherWorld(ctx, a, sess.UserID); err != nil || other {
		s.refuseOtherWorld(w, r, a, err)
		return
	}
	if r.PostForm.Get("action") != "approve" {
		sendBack(w, r, a, url.Values{"error": {"access_denied"}, "error_description": {"The resource owner denied the request"}})
		return
	}
	if a.loginTooOld(sess, s.now()) {
		// The page stayed open past max_age: the code's auth_time would
		// fail the client's check, so the user logs in again first.
		q := consentParams(r.PostForm)
		s.showReauthentication(w, r, a, action, action+"?"+q.Encode(), sess)
		return
	}
	grant := store.Grant{ID: s.ids.Next(), ApplicationID: a.app.ID, UserID: sess.UserID, Scopes: Expand(a.scopes),
		CreatedAt: s.now().UTC()}
	extra := url.Values{}
	if a.install() {
		guildID, err := snowflake.Parse(r.PostForm.Get("guild_id"))
		if err != nil || (a.lockGuild && guildID != a.guildID) {
			s.showConsent(w, r, a, sess, action, "Choose a server to add the app to.", http.StatusBadRequest)
			return
		}
		if msg, err := s.installFromConsent(ctx, a, sess.UserID, guildID); err != nil {
			s.internalError(w, err)
			return
		} else if msg != "" {
			s.showConsent(w, r, a, sess, action, msg, http.StatusForbidden)
			return
		}
		grant.GuildID = guildID
		if slices.Contains(a.scopes, auth.ScopeBot) {
			extra.Set("guild_id", guildID.String())
			extra.Set("permissions", a.permissions.String())
		}
	}
	var then func(context.Context, store.Grant) error
	if a.userInstall() {
		then = s.installForUser
	}
	s.issueAndSendBack(w, r, a, grant, sess.CreatedAt, extra, then)
}

// installForUser installs the app to the account of the user who granted
// it, as the grant's installation: revoking the grant uninstalls it.
func (s *Server) installForUser(ctx context.Context, grant store.Grant) error {
	err := s.store.InstallForUser(ctx, store.UserInstallation{UserID: grant.UserID, ApplicationID: grant.ApplicationID,
		Scopes: []string{auth.ScopeApplicationsCommands}, GrantID: grant.ID, CreatedAt: grant.CreatedAt})
	if err != nil {
		return fmt.Errorf("install app %d for user %d: %w", grant.ApplicationID, grant.UserID, err)
	}
	s.log.Info("app installed to a user's account", "application_id", grant.ApplicationID, "user_id", grant.UserID,
		"grant_id", grant.ID)
	return nil
}

// issueAndSendBack records the grant and, once then (when set) has done
// what the grant stands for, sends its code to the client. If then fails
// no code goes back, and the grant, which has no token, is revoked.
func (s *Server) issueAndSendBack(w http.ResponseWriter, r *http.Request, a authRequest, grant store.Grant, authTime time.Time,
	extra url.Values, then func(context.Context, store.Grant) error) {
	code, err := s.issueCode(r.Context(), grant, a.codeRequest(authTime))
	var oe *Error
	if errors.As(err, &oe) {
		s.fail(w, r, a, redirectError(oe.Code, oe.Description))
		return
	}
	if err != nil {
		s.internalError(w, err)
		return
	}
	if then != nil {
		if err := then(r.Context(), grant); err != nil {
			s.revokeGrant(r.Context(), grant.ID, "what it granted could not be done")
			s.internalError(w, err)
			return
		}
	}
	extra.Set("code", code)
	sendBack(w, r, a, extra)
}

// coveringGrant reports whether the user has a live grant to the app
// covering every scope asked for: prompt=none then skips the page, as the
// real service does (never for installs, which need a guild picked or, for
// a user install, the user to see what is added to their account: the
// callers check that).
func (s *Server) coveringGrant(ctx context.Context, a authRequest, userID snowflake.ID) (bool, error) {
	grants, err := s.store.Grants(ctx, a.app.ID, userID)
	if err != nil {
		return false, err
	}
	want := Expand(a.scopes)
	for _, g := range grants {
		if !slices.ContainsFunc(want, func(sc string) bool { return !slices.Contains(g.Scopes, sc) }) {
			return true, nil
		}
	}
	return false, nil
}

// installFromConsent adds the app to the guild the user picked, where
// they must hold MANAGE_GUILD and, for a bot, every permission the bot's
// role would get (else a user could hand their own app's bot more than
// they have, ADMINISTRATOR included). It returns a message for the user
// when that is refused.
func (s *Server) installFromConsent(ctx context.Context, a authRequest, userID, guildID snowflake.ID) (string, error) {
	g, err := s.store.Guild(ctx, guildID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && g.WorldID != a.app.WorldID) {
		return "That server does not exist.", nil // another test world's is unknown
	}
	if err != nil {
		return "", err
	}
	perms, err := s.guildPermissions(ctx, g, userID)
	if err != nil {
		return "", err
	}
	if !perms.Has(guild.ManageGuild) {
		return "You need the Manage Server permission there.", nil
	}
	if slices.Contains(a.scopes, auth.ScopeBot) && !perms.Has(a.permissions) {
		return "You cannot give the bot permissions you do not have in that server.", nil
	}
	scopes := []string{}
	if prev, err := s.store.Installation(ctx, guildID, a.app.ID); err == nil {
		scopes = append(scopes, prev.Scopes...)
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	for _, sc := range []string{auth.ScopeApplicationsCommands, auth.ScopeBot} {
		// bot includes applications.commands (spec §5)
		if (slices.Contains(a.scopes, sc) || slices.Contains(a.scopes, auth.ScopeBot)) && !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if err := s.store.Install(ctx, store.Installation{GuildID: guildID, ApplicationID: a.app.ID, Scopes: scopes,
		CreatedAt: s.now().UTC()}); err != nil {
		return "", err
	}
	if slices.Contains(a.scopes, auth.ScopeBot) {
		env := bootstrap.Env{Store: s.store, IDs: s.ids, Rand: s.rand, Now: s.now}
		if err := bootstrap.SyncBot(ctx, env, guildID, a.app, true, a.permissions); err != nil {
			return "", err
		}
	}
	return "", nil
}

// login is POST /oauth2/authorize/login.
func (s *Server) login(w http.ResponseWriter, r *http.Request, action string) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		renderPage(w, http.StatusBadRequest, "error", pageData{Title: "Error", Error: "Malformed form"})
		return
	}
	cookie, err := r.Cookie(loginCSRFCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(r.PostForm.Get("csrf"))) != 1 {
		renderPage(w, http.StatusForbidden, "error", pageData{Title: "Error", Error: "This form has expired; start again from the application."})
		return
	}
	cont := r.PostForm.Get("continue")
	target, err := url.Parse(cont)
	if err != nil || target.IsAbs() || target.Host != "" || target.Path != action {
		renderPage(w, http.StatusBadRequest, "error", pageData{Title: "Error", Error: "Invalid continuation"})
		return
	}
	a, aerr, err := s.parseAuthRequest(ctx, target.Query())
	if err != nil {
		s.internalError(w, err)
		return
	}
	if aerr != nil {
		s.fail(w, r, a, aerr)
		return
	}
	name := r.PostForm.Get("name")
	wait, err := s.loginRefused(ctx, r, name)
	if err != nil {
		s.internalError(w, err)
		return
	}
	if wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		s.showLogin(w, r, a, action, cont, loginPage{name: name, error: tooManyLogins(wait)}, http.StatusTooManyRequests)
		return
	}
	l, err := s.store.LoginByName(ctx, name)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.internalError(w, err)
		return
	}
	// A password check runs even for unknown names, so timing does not
	// tell which names exist.
	valid := CheckPassword(l.PasswordHash, r.PostForm.Get("password")) && err == nil
	if !valid {
		s.showLogin(w, r, a, action, cont, loginPage{name: name, error: "Login or password is invalid."}, http.StatusUnauthorized)
		return
	}
	token, err := randomToken(s.rand)
	if err != nil {
		s.internalError(w, err)
		return
	}
	csrf, err := randomToken(s.rand)
	if err != nil {
		s.internalError(w, err)
		return
	}
	now := s.now().UTC()
	if err := s.store.CreateSession(ctx, store.Session{Hash: auth.Hash(token), UserID: l.UserID, CSRF: csrf,
		ExpiresAt: now.Add(sessionLifetime), CreatedAt: now}); err != nil {
		s.internalError(w, err)
		return
	}
	s.endPreviousSession(r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil, Expires: now.Add(sessionLifetime)})
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: "", Path: "/", MaxAge: -1})
	http.Redirect(w, r, afterLogin(target), http.StatusSeeOther)
}

// endPreviousSession deletes the session a new login replaces (prompt=login,
// max_age or select_account log in over a live one), so that its cookie
// value, should it have leaked, opens nothing any more. A failure is
// logged: the new login stands either way.
func (s *Server) endPreviousSession(r *http.Request) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return
	}
	if err := s.store.DeleteSession(r.Context(), auth.Hash(c.Value)); err != nil {
		s.log.Error("delete the session a login replaced", "err", err)
	}
}

// currentSession reads the session cookie.
func (s *Server) currentSession(r *http.Request) (store.Session, bool, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return store.Session{}, false, nil
	}
	sess, err := s.store.SessionByHash(r.Context(), auth.Hash(c.Value))
	if errors.Is(err, store.ErrNotFound) {
		return sess, false, nil
	}
	if err != nil {
		return sess, false, err
	}
	if !s.now().Before(sess.ExpiresAt) {
		return sess, false, nil
	}
	return sess, true, nil
}

func randomToken(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, 32)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func displayName(u store.User) string {
	if u.GlobalName != "" {
		return u.GlobalName
	}
	return u.Username
}

func redirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

// pageData feeds the templates.
type pageData struct {
	Title, AppName, UserName, Action, CSRF, Continue, Name, Error, RedirectHost string
	Note, ContinueAs                                                            string // the login page's, for a logged-in user
	Scopes                                                                      []string
	Hidden                                                                      []hiddenField
	PickGuild, GuildLocked, Blocked                                             bool
	UserInstall                                                                 bool // installs the app to the user's account
	Guilds                                                                      []guildChoice
	LockedGuild                                                                 snowflake.ID
}

type hiddenField struct{ Name, Value string }

func renderPage(w http.ResponseWriter, status int, name string, d pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = pages.ExecuteTemplate(w, name+".html", d)
}

func (s *Server) internalError(w http.ResponseWriter, err error) {
	s.log.Error("oauth2 authorize", "err", err)
	renderPage(w, http.StatusInternalServerError, "error", pageData{Title: "Error", Error: "Internal error; try again."})
}

// ofAnotherWorld reports whether the signed-in user is of another test
// world than the app asked for. Objects of two worlds never see each
// other (docs/design.md, "Test worlds: isolation"): to such a user the
// app is unknown, so the consent page answers as for an unknown client_id
// and nothing is granted or installed.
func (s *Server) ofAnotherWorld(ctx context.Context, a authRequest, userID snowflake.ID) (bool, error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return false, fmt.Errorf("user %d of the session: %w", userID, err)
	}
	return u.WorldID != a.app.WorldID, nil
}

// refuseOtherWorld answers ofAnotherWorld's refusal (or its error).
func (s *Server) refuseOtherWorld(w http.ResponseWriter, r *http.Request, a authRequest, err error) {
	if err != nil {
		s.internalError(w, err)
		return
	}
	s.fail(w, r, a, pageError("Unknown application"))
}

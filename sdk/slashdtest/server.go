package slashdtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// Server is an in-process slashd: one application installed (with its
// bot) in one guild that has a #general text channel. Its fields are what
// a bot needs to be configured against it. Start makes one; it is shut
// down when the test ends.
//
// The methods that build the world (ServeApp, NewMember, NewChannel,
// NewRole) fail the test given to Start on error, so they must be called
// from that test's goroutine, not from its subtests or other goroutines:
// build the world first, then run subtests. The other methods, and
// Member's, return their errors and may be called from any goroutine.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port; the HTTP API
	// is under URL+"/api/v10" (also /api/v9 and /api).
	URL string
	// ApplicationID is the application's id, also its client id and the
	// id of its bot user.
	ApplicationID string
	// GuildID is the guild the application is installed in.
	GuildID string
	// ChannelID is the guild's #general text channel, where members act
	// unless told otherwise (Member.In).
	ChannelID string
	// BotToken is the bot's token, sent as "Authorization: Bot <token>".
	BotToken string
	// PublicKey is the application's Ed25519 public key (hex): the key an
	// Interactions Endpoint verifies deliveries with.
	PublicKey string
	// ClientSecret is the application's OAuth2 client secret.
	ClientSecret string
	// AdminToken authorizes slashd's admin API under URL+"/admin/v1"
	// ("Authorization: Admin <token>"), for what this package does not
	// wrap.
	AdminToken string
	// Owner is the guild's owner (and the application's): an adult member
	// who may use every command.
	Owner *Member

	t      testing.TB
	client *http.Client
}

// Option configures Start.
type Option func(*config)

type config struct {
	appName    string
	activities bool
	logger     *slog.Logger
}

// WithAppName names the application (and its bot user); the default is
// "testapp".
func WithAppName(name string) Option {
	return func(c *config) { c.appName = name }
}

// WithActivities gives the application Activities: the EMBEDDED flag and
// the global "Launch" entry point command (type 4), which slashd answers
// itself with a LAUNCH_ACTIVITY reply.
func WithActivities() Option {
	return func(c *config) { c.activities = true }
}

// WithLogger sends the server's log to l: among others, why a delivery
// to the Interactions Endpoint failed. By default the log is discarded.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// Start starts a slashd server on a fresh SQLite database in a temporary
// directory, with rate limiting off, and creates its world: an
// application, its owner, a guild owned by them with the application
// installed, and a #general text channel. Everything is closed and
// removed when the test ends (t.Cleanup). Start fails the test on error.
//
// The application has no Interactions Endpoint yet: set one with
// ServeApp or SetInteractionsEndpoint before invoking commands.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config{appName: "testapp"}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatalf("slashdtest: open the database: %v", err)
	}
	apiCfg := api.DefaultConfig()
	apiCfg.RateLimit = false
	ids := snowflake.NewGenerator(0, nil)
	handler := api.New(apiCfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader, Logger: cfg.logger})
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		handler.Shutdown(ctx)
		srv.Close()
		st.Close()
	})
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{
		Name: cfg.appName, BaseURL: srv.URL, Embedded: cfg.activities,
	})
	if err != nil {
		t.Fatalf("slashdtest: create the application: %v", err)
	}
	admin, err := bootstrap.CreateAdminToken(ctx, env)
	if err != nil {
		t.Fatalf("slashdtest: create an admin token: %v", err)
	}
	s := &Server{
		URL: srv.URL, ApplicationID: creds.ApplicationID, GuildID: creds.GuildID, BotToken: creds.BotToken,
		PublicKey: creds.PublicKey, ClientSecret: creds.ClientSecret, AdminToken: admin,
		t: t, client: srv.Client(),
	}
	s.ChannelID = s.NewChannel("general")
	s.Owner = &Member{ID: creds.OwnerUserID, Name: "owner", ChannelID: s.ChannelID, s: s}
	s.Owner.Token = s.clientToken(creds.OwnerUserID)
	return s
}

// SetInteractionsEndpoint sets the application's Interactions Endpoint
// URL, as the developer portal does: slashd first sends the URL a signed
// PING, which must be answered with {"type":1}, and a badly signed one,
// which must be refused with 401 (sdk/interactions.Handler does both).
// A refused URL is an *APIError (400, code 50035). An empty url removes
// the endpoint.
func (s *Server) SetInteractionsEndpoint(ctx context.Context, url string) error {
	return s.do(ctx, "PUT", "/admin/v1/applications/"+s.ApplicationID+"/interactions-endpoint", s.adminAuth(),
		map[string]string{"interactions_endpoint_url": url}, nil)
}

// ServeApp serves h, the application under test, on a loopback listener
// that closes when the test ends, and makes it the Interactions
// Endpoint. It fails the test when slashd refuses the endpoint.
func (s *Server) ServeApp(h http.Handler) {
	s.t.Helper()
	app := httptest.NewServer(h)
	s.t.Cleanup(app.Close)
	if err := s.SetInteractionsEndpoint(context.Background(), app.URL); err != nil {
		s.t.Fatalf("slashdtest: set the Interactions Endpoint URL: %v", err)
	}
}

// RegisterGuildCommands replaces the application's commands in the guild
// with commands, as a bot does at start-up (PUT
// /applications/{app}/guilds/{guild}/commands with the bot token).
// commands is the JSON array of command objects: a slice of maps, of the
// bot's own command structs, or encoded JSON ([]byte, json.RawMessage or
// string). Invalid commands give an *APIError (400, code 50035, Errors
// saying which field).
func (s *Server) RegisterGuildCommands(ctx context.Context, commands any) error {
	return s.do(ctx, "PUT", "/api/v10/applications/"+s.ApplicationID+"/guilds/"+s.GuildID+"/commands",
		s.botAuth(), commands, nil)
}

// RegisterGlobalCommands is RegisterGuildCommands for the application's
// global commands. A guild command of the same type and name does not
// hide one: both are listed and both run, as on the real service, and a
// Member's Invoke by name takes the guild command. With WithActivities,
// leave the "Launch" entry point in commands, or it is deleted.
func (s *Server) RegisterGlobalCommands(ctx context.Context, commands any) error {
	return s.do(ctx, "PUT", "/api/v10/applications/"+s.ApplicationID+"/commands", s.botAuth(), commands, nil)
}

// NewRole creates a role in the guild with permissions, a decimal
// permission bit set ("8" is ADMINISTRATOR, "32" MANAGE_GUILD), and
// returns its id. It fails the test on error.
func (s *Server) NewRole(name, permissions string) string {
	s.t.Helper()
	var role struct {
		ID string `json:"id"`
	}
	body := map[string]any{"name": name, "permissions": permissions}
	if err := s.do(context.Background(), "POST", "/admin/v1/guilds/"+s.GuildID+"/roles", s.adminAuth(), body, &role); err != nil {
		s.t.Fatalf("slashdtest: create role %q: %v", name, err)
	}
	return role.ID
}

// ChannelOption configures NewChannel.
type ChannelOption func(*channelConfig)

type channelConfig struct {
	body map[string]any // the admin API's channel object
}

// NSFW marks the channel age-restricted: commands with "nsfw": true may be
// used only there, and only by adult members.
func NSFW() ChannelOption {
	return func(c *channelConfig) { c.body["nsfw"] = true }
}

// NewChannel creates a text channel in the guild, everyone may see and
// write in, and returns its id. It fails the test on error.
func (s *Server) NewChannel(name string, opts ...ChannelOption) string {
	s.t.Helper()
	c := channelConfig{body: map[string]any{"name": name, "type": 0}}
	for _, o := range opts {
		o(&c)
	}
	var ch struct {
		ID string `json:"id"`
	}
	if err := s.do(context.Background(), "POST", "/admin/v1/guilds/"+s.GuildID+"/channels", s.adminAuth(), c.body, &ch); err != nil {
		s.t.Fatalf("slashdtest: create channel %q: %v", name, err)
	}
	return ch.ID
}

// MemberOption configures NewMember.
type MemberOption func(*memberConfig)

type memberConfig struct {
	roles []string
	perms []string
	user  map[string]any
}

// WithRoles gives the member roles (ids from NewRole).
func WithRoles(roleIDs ...string) MemberOption {
	return func(c *memberConfig) { c.roles = append(c.roles, roleIDs...) }
}

// WithPermissions gives the member a new role of their own carrying
// permissions, a decimal permission bit set ("8" is ADMINISTRATOR).
// Everyone already has the guild's default @everyone permissions (view
// channels, send messages, use application commands…).
func WithPermissions(permissions string) MemberOption {
	return func(c *memberConfig) { c.perms = append(c.perms, permissions) }
}

// Adult marks the member's user as an adult, who may use age-restricted
// commands (in NSFW channels).
func Adult() MemberOption {
	return func(c *memberConfig) { c.user["adult"] = true }
}

// WithLocale sets the member's locale ("fr", "pt-BR"…; "en-US" by
// default): the locale of the interactions they make.
func WithLocale(locale string) MemberOption {
	return func(c *memberConfig) { c.user["locale"] = locale }
}

// NewMember creates a user named name (their username, at most 32
// characters), makes them a member of the guild and
// mints the client token they act with. The member acts in #general. It
// fails the test on error.
func (s *Server) NewMember(name string, opts ...MemberOption) *Member {
	s.t.Helper()
	c := memberConfig{user: map[string]any{"username": name}}
	for _, o := range opts {
		o(&c)
	}
	ctx := context.Background()
	var user struct {
		ID string `json:"id"`
	}
	if err := s.do(ctx, "POST", "/admin/v1/users", s.adminAuth(), c.user, &user); err != nil {
		s.t.Fatalf("slashdtest: create user %q: %v", name, err)
	}
	roles := append([]string{}, c.roles...)
	for i, p := range c.perms {
		roles = append(roles, s.NewRole(fmt.Sprintf("%s %d", name, i+1), p))
	}
	err := s.do(ctx, "PUT", "/admin/v1/guilds/"+s.GuildID+"/members/"+user.ID, s.adminAuth(),
		map[string]any{"roles": roles}, nil)
	if err != nil {
		s.t.Fatalf("slashdtest: make %q a member: %v", name, err)
	}
	return &Member{ID: user.ID, Name: name, Token: s.clientToken(user.ID), ChannelID: s.ChannelID, s: s}
}

// clientToken mints a user's client token; it fails the test on error.
func (s *Server) clientToken(userID string) string {
	s.t.Helper()
	var tok struct {
		Token string `json:"token"`
	}
	err := s.do(context.Background(), "POST", "/admin/v1/users/"+userID+"/tokens", s.adminAuth(),
		map[string]string{"type": "client"}, &tok)
	if err != nil {
		s.t.Fatalf("slashdtest: mint a client token for user %s: %v", userID, err)
	}
	return tok.Token
}

func (s *Server) botAuth() string   { return "Bot " + s.BotToken }
func (s *Server) adminAuth() string { return "Admin " + s.AdminToken }

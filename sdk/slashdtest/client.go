package slashdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// ErrNoServer is returned (wrapped) by Connect when the environment names
// no slashd server: the test does not run under `slashd test`.
var ErrNoServer = errors.New("slashdtest: no slashd server in the environment (SLASHD_URL and SLASHD_ADMIN_TOKEN; run the tests under `slashd test`)")

// Client is a slashd server reached over HTTP with its admin token: one
// started by `slashd test` (Connect), any running server (ConnectTo), or
// an in-process one (Server.Client). It makes test worlds (World) and
// opens existing ones (OpenWorld). It holds no state beyond its fields:
// its methods may be called from any goroutine.
type Client struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	// AdminToken authorizes the admin API ("Authorization: Admin …").
	AdminToken string
	// HTTP sends the requests (nil: http.DefaultClient). Acting waits for
	// the bot (up to an action's wait, 10 s by default, 30 s at most) and
	// the journal long-polls up to 10 s: a timeout, if any, must be longer.
	HTTP *http.Client
}

// Connect returns the server `slashd test` started for this test run,
// from its environment (SLASHD_URL, SLASHD_ADMIN_TOKEN), once it answers
// /healthz. Without them it returns an error wrapping ErrNoServer, so a
// test can skip:
//
//	c, err := slashdtest.Connect(ctx)
//	if errors.Is(err, slashdtest.ErrNoServer) {
//		t.Skip("run under slashd test")
//	}
func Connect(ctx context.Context) (*Client, error) {
	base, admin := os.Getenv("SLASHD_URL"), os.Getenv("SLASHD_ADMIN_TOKEN")
	if base == "" || admin == "" {
		return nil, ErrNoServer
	}
	c := ConnectTo(base, admin)
	if err := c.Healthy(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// ConnectOrStart returns the server `slashd test` started (Connect) or,
// when the test does not run under it, a new in-process one (Start(t) and
// its Client): the same test runs either way. It fails the test when the
// environment names a server that does not answer.
func ConnectOrStart(t testing.TB, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx)
	if errors.Is(err, ErrNoServer) {
		return Start(t, opts...).Client()
	}
	if err != nil {
		t.Fatalf("slashdtest: %v", err)
	}
	return c
}

// ConnectTo returns the server at baseURL with its admin token. It sends
// nothing: the first call says whether the server is there.
func ConnectTo(baseURL, adminToken string) *Client {
	return &Client{URL: strings.TrimRight(baseURL, "/"), AdminToken: adminToken}
}

// Client returns the in-process server as a Client, to make test worlds
// in it as in a remote one.
func (s *Server) Client() *Client {
	return &Client{URL: s.URL, AdminToken: s.AdminToken, HTTP: s.client}
}

// World makes a test world from spec in the in-process server: see
// Client.World.
func (s *Server) World(ctx context.Context, spec any) (*World, error) {
	return s.Client().World(ctx, spec)
}

// Healthy asks the server's /healthz; nil when it is ready.
func (c *Client) Healthy(ctx context.Context) error {
	return c.do(ctx, "GET", "/healthz", "", nil, nil)
}

// World makes a test world from spec (docs/worlds.md): a JSON document
// ([]byte, json.RawMessage or string; YAML when it does not start with
// "{"), or any value encoding to one (a map, your own struct). The
// spec's name must be free: a test making a world per test gives each its
// own name. Refusals are *APIError (400 50035, with the path of each
// error in Errors).
func (c *Client) World(ctx context.Context, spec any) (*World, error) {
	contentType := ""
	switch s := spec.(type) {
	case string:
		contentType = specType([]byte(s))
	case []byte:
		contentType = specType(s)
	case json.RawMessage:
		contentType = specType(s)
	}
	w := &World{c: c}
	if err := c.send(ctx, "POST", "/admin/v1/worlds", contentType, spec, w); err != nil {
		return nil, err
	}
	return w, nil
}

// OpenWorld returns an existing world by name or id: one of `slashd
// test --world`'s, say. An unknown world is *APIError 404 10000.
func (c *Client) OpenWorld(ctx context.Context, nameOrID string) (*World, error) {
	w := &World{c: c}
	if err := c.do(ctx, "GET", "/admin/v1/worlds/"+url.PathEscape(nameOrID), "", nil, w); err != nil {
		return nil, err
	}
	return w, nil
}

// specType is a spec's Content-Type: JSON when it starts with "{".
func specType(spec []byte) string {
	if bytes.HasPrefix(bytes.TrimSpace(spec), []byte("{")) {
		return "application/json"
	}
	return "application/yaml"
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Do sends a request of the test's own to the server, for what this
// package does not wrap: path is from the server's root
// ("/api/v10/…", "/admin/v1/…"), auth the Authorization header ("": the
// admin token; "Bot …", "Bearer …", a client token), body and out as
// Server.RegisterGuildCommands takes and json.Unmarshal fills them (nil:
// none). A status other than 2xx is an *APIError.
func (c *Client) Do(ctx context.Context, method, path, auth string, body, out any) error {
	return c.do(ctx, method, path, auth, body, out)
}

// Client returns the client the world was made or opened through.
func (w *World) Client() *Client { return w.c }

// do sends an admin request (auth "") or one with auth.
func (c *Client) do(ctx context.Context, method, path, auth string, body, out any) error {
	if auth == "" {
		auth = "Admin " + c.AdminToken
	}
	return send(ctx, c.httpClient(), c.URL, method, path, auth, "", body, out)
}

func (c *Client) send(ctx context.Context, method, path, contentType string, body, out any) error {
	return send(ctx, c.httpClient(), c.URL, method, path, "Admin "+c.AdminToken, contentType, body, out)
}

// withDefaultTimeout gives ctx a deadline d away when it has none, so
// that a wait on a bot that never answers ends.
func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// errorf wraps err with what was being done.
func errorf(err error, format string, args ...any) error {
	return fmt.Errorf("slashdtest: "+format+": %w", append(args, err)...)
}

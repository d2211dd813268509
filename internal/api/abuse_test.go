package api_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// The authentication failure budget (abuse.go): a client address whose
// requests fail authentication too often is refused with a global 429,
// without its credentials being looked up, until the window ends.

// lookupCounter is a store that counts the lookups a credential costs.
type lookupCounter struct {
	store.Store
	n atomic.Int64
}

func (c *lookupCounter) TokenByHash(ctx context.Context, hash []byte) (store.Token, error) {
	c.n.Add(1)
	return c.Store.TokenByHash(ctx, hash)
}

func (c *lookupCounter) ClientTokenUser(ctx context.Context, hash []byte) (snowflake.ID, error) {
	c.n.Add(1)
	return c.Store.ClientTokenUser(ctx, hash)
}

func (c *lookupCounter) AdminTokenExists(ctx context.Context, hash []byte) (bool, error) {
	c.n.Add(1)
	return c.Store.AdminTokenExists(ctx, hash)
}

// Application is how the token endpoint finds the client.
func (c *lookupCounter) Application(ctx context.Context, id snowflake.ID) (store.Application, error) {
	c.n.Add(1)
	return c.Store.Application(ctx, id)
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip: on Linux all of 127.0.0.0/8 is loopback, so a test can be
// several client addresses.
func clientFrom(t testing.TB, ip string) *http.Client {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("this system has no loopback address %s: %v", ip, err)
	}
	ln.Close()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// credentialed is a request to a route that checks a credential.
type credentialed struct {
	name, method, path, auth string
	form                     url.Values // a form body (the OAuth2 endpoints)
}

func (c credentialed) send(t testing.TB, client *http.Client, base string) testenv.Response {
	t.Helper()
	var body io.Reader
	if c.form != nil {
		body = strings.NewReader(c.form.Encode())
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// failing are requests that fail authentication on every kind of route
// that takes a credential.
func failing(t *testing.T, e *testenv.Env) []credentialed {
	t.Helper()
	p := v10(e)
	expired := "expired-" + randomHex(t)
	if err := e.Store.CreateToken(context.Background(), store.Token{Hash: auth.Hash(expired), Kind: store.TokenBearer,
		ApplicationID: mustID(t, e.App.ApplicationID), UserID: mustID(t, e.App.OwnerUserID),
		Scopes:    []string{auth.ScopeCommandsUpdate, auth.ScopeIdentify},
		ExpiresAt: e.Clock.Now().Add(-time.Minute), CreatedAt: e.Clock.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	wrongSecret := "Basic " + base64.StdEncoding.EncodeToString([]byte(e.App.ClientID+":wrong-secret"))
	return []credentialed{
		{name: "API, no token", method: "GET", path: p.global()},
		{name: "API, malformed", method: "GET", path: p.global(), auth: "Bot"},
		{name: "API, unknown bot token", method: "GET", path: p.global(), auth: "Bot " + randomHex(t)},
		{name: "API, unknown Bearer token", method: "PUT", path: p.allPerms(), auth: "Bearer " + randomHex(t)},
		{name: "API, expired Bearer token", method: "GET", path: "/api/v10/users/@me", auth: "Bearer " + expired},
		{name: "client route, unknown client token", method: "GET",
			path: "/api/v10/channels/" + e.App.GuildID + "/application-command-index", auth: randomHex(t)},
		{name: "chat route, unknown bot token", method: "GET", path: "/api/v9/channels/" + e.App.GuildID + "/messages",
			auth: "Bot " + randomHex(t)},
		{name: "admin API, unknown admin token", method: "GET", path: "/admin/v1/users", auth: "Admin " + randomHex(t)},
		{name: "OAuth2 @me, unknown Bearer token", method: "GET", path: "/api/v10/oauth2/@me", auth: "Bearer " + randomHex(t)},
		{name: "OAuth2 userinfo, no token", method: "GET", path: "/api/oauth2/userinfo"},
		{name: "OAuth2 token, wrong client secret", method: "POST", path: "/api/v10/oauth2/token", auth: wrongSecret,
			form: url.Values{"grant_type": {"client_credentials"}, "scope": {"identify"}}},
		{name: "OAuth2 revocation, wrong client secret", method: "POST", path: "/api/v10/oauth2/token/revoke",
			auth: wrongSecret, form: url.Values{"token": {"x"}}},
	}
}

func randomHex(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// wantAddressRefused checks the 429 of an address over its budget.
func wantAddressRefused(t *testing.T, r testenv.Response, budget int) {
	t.Helper()
	want429(t, r, true)
	if h := r.Header; h.Get("X-RateLimit-Limit") != strconv.Itoa(budget) || h.Get("X-RateLimit-Remaining") != "0" ||
		h.Get("X-RateLimit-Reset") == "" || h.Get("X-RateLimit-Reset-After") == "" {
		t.Errorf("X-RateLimit-* headers %v, want the budget of %d, none remaining", h, budget)
	}
}

// Each kind of route counts its authentication failures, and once the
// address's budget is used up, refuses it without a store lookup, valid
// credentials included. Each kind runs from an address of its own.
func TestAuthFailureBudgetOnEveryCredentialedRoute(t *testing.T) {
	t.Parallel()
	const budget = 3
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	counter := &lookupCounter{Store: e.Store}
	node := e.NodeOn(counter)
	valid := credentialed{name: "valid bot token", method: "GET", path: v10(e).global(), auth: e.Bot()}
	for i, req := range failing(t, e) {
		t.Run(req.name, func(t *testing.T) {
			client := clientFrom(t, "127.0.0."+strconv.Itoa(10+i))
			for n := range budget {
				if r := req.send(t, client, node.URL); r.Status != http.StatusUnauthorized {
					t.Fatalf("failure %d: %s, want 401", n+1, describe(r))
				}
			}
			before := counter.n.Load()
			for range 3 {
				wantAddressRefused(t, req.send(t, client, node.URL), budget)
			}
			wantAddressRefused(t, valid.send(t, client, node.URL), budget)
			if n := counter.n.Load() - before; n != 0 {
				t.Errorf("%d credential lookups for refused requests, want none", n)
			}
		})
	}
}

// A flood of garbage tokens from one address gets the budget's 401s,
// then 429s that cost no store lookup; another address is unaffected;
// when the window ends the address is served again.
func TestAuthFailureFlood(t *testing.T) {
	t.Parallel()
	e := testenv.New(t) // the default budget
	budget := api.DefaultConfig().AuthFailureLimit
	counter := &lookupCounter{Store: e.Store}
	node := e.NodeOn(counter)
	flooder, neighbour := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")
	path := v10(e).global()
	garbage := func() credentialed {
		return credentialed{name: "garbage", method: "GET", path: path, auth: "Bot " + randomHex(t)}
	}
	valid := credentialed{name: "valid", method: "GET", path: path, auth: e.Bot()}

	const flood = 3000
	statuses := map[int]int{}
	for range flood {
		statuses[garbage().send(t, flooder, node.URL).Status]++
	}
	if statuses[401] != budget.Count || statuses[429] != flood-budget.Count || len(statuses) != 2 {
		t.Fatalf("statuses of %d garbage requests %v, want %d 401s and the rest 429", flood, statuses, budget.Count)
	}
	if n := counter.n.Load(); n != int64(budget.Count) {
		t.Errorf("%d token lookups for %d requests, want %d (the budget)", n, flood, budget.Count)
	}
	wantAddressRefused(t, valid.send(t, flooder, node.URL), budget.Count)

	// Another address: its own budget, and its valid token works.
	wantStatus(t, valid.send(t, neighbour, node.URL), 200)
	wantStatus(t, garbage().send(t, neighbour, node.URL), 401)

	// The window ends: the flooder is served, and counted afresh.
	e.Clock.Advance(budget.Window)
	wantStatus(t, valid.send(t, flooder, node.URL), 200)
	wantStatus(t, garbage().send(t, flooder, node.URL), 401)
}

// The budget is one per address, whatever the route: failures on the
// admin API and on the OAuth2 endpoints add up with the API's.
func TestAuthFailureBudgetIsPerAddress(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: 12, Window: time.Minute} })
	reqs := failing(t, e)
	if len(reqs) != 12 {
		t.Fatalf("%d kinds of failure, the budget is 12", len(reqs))
	}
	client := clientFrom(t, "127.0.0.4")
	for _, req := range reqs {
		wantStatus(t, req.send(t, client, e.URL), 401)
	}
	for _, req := range reqs {
		wantAddressRefused(t, req.send(t, client, e.URL), 12)
	}
}

// Turned off, no address is ever refused.
func TestAuthFailureBudgetOff(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{} })
	req := credentialed{name: "garbage", method: "GET", path: v10(e).global(), auth: "Bot garbage"}
	client := clientFrom(t, "127.0.0.5")
	for range api.DefaultConfig().AuthFailureLimit.Count + 10 {
		wantStatus(t, req.send(t, client, e.URL), 401)
	}
}

// The gateway is under the same budget: an IDENTIFY or RESUME with an
// unknown token is closed 4004 and counts against its address; an
// address over its budget is refused (429) before the websocket upgrade,
// and on the API too.
func TestAuthFailureBudgetOnTheGateway(t *testing.T) {
	t.Parallel()
	const budget = 2
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	client := clientFrom(t, "127.0.0.30")
	ws := strings.Replace(e.URL, "http", "ws", 1) + "/gateway?v=10&encoding=json"
	attempts := []struct{ op, d string }{
		{"2", `{"token":"Bot nope","intents":1,"properties":{"os":"linux","browser":"t","device":"t"}}`},
		{"6", `{"token":"nope","session_id":"s","seq":1}`},
	}
	for i, a := range attempts {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPClient: client})
		if err != nil {
			cancel()
			t.Fatalf("attempt %d: dial: %v", i+1, err)
		}
		if _, _, err := c.Read(ctx); err != nil { // HELLO
			t.Fatalf("attempt %d: HELLO: %v", i+1, err)
		}
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"op":`+a.op+`,"d":`+a.d+`}`)); err != nil {
			t.Fatal(err)
		}
		_, _, err = c.Read(ctx)
		if got := websocket.CloseStatus(err); got != 4004 {
			t.Fatalf("attempt %d (op %s) with an unknown token: %v (close %d), want close 4004", i+1, a.op, err, got)
		}
		c.CloseNow()
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPClient: client})
	if err == nil {
		c.CloseNow()
		t.Fatal("an address over its budget was upgraded")
	}
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-RateLimit-Global") != "true" {
		t.Fatalf("dial over the budget: %v (response %+v), want a global 429", err, resp)
	}
	valid := credentialed{name: "valid bot token", method: "GET", path: v10(e).global(), auth: e.Bot()}
	wantAddressRefused(t, valid.send(t, client, e.URL), budget)
}

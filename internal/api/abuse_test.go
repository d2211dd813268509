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
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// The authentication failure budget (abuse.go): a client address whose
// requests fail authentication too often gets a global 429 for each
// further failure until the window ends, and credentials not known to be
// valid are refused without a lookup (but for a trickle); a credential
// known to be valid is served as ever.

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

// Each kind of route counts its authentication failures; once the
// address's budget is used up, its failures get the 429 (costing at most
// the over-budget trickle of lookups), and a valid bot token the server
// has seen before is still served. Each kind runs from an address of its
// own. The clock is frozen: the trickle does not refill.
func TestAuthFailureBudgetOnEveryCredentialedRoute(t *testing.T) {
	t.Parallel()
	const budget = 3
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	e.Clock.Freeze()
	counter := &lookupCounter{Store: e.Store}
	node := e.NodeOn(counter)
	valid := credentialed{name: "valid bot token", method: "GET", path: v10(e).global(), auth: e.Bot()}
	wantStatus(t, valid.send(t, clientFrom(t, "127.0.0.9"), node.URL), 200) // the bot at work
	for i, req := range failing(t, e) {
		t.Run(req.name, func(t *testing.T) {
			client := clientFrom(t, "127.0.0."+strconv.Itoa(10+i))
			for n := range budget {
				if r := req.send(t, client, node.URL); r.Status != http.StatusUnauthorized {
					t.Fatalf("failure %d: %s, want 401", n+1, describe(r))
				}
			}
			before := counter.n.Load()
			for range 5 {
				wantAddressRefused(t, req.send(t, client, node.URL), budget)
			}
			if n := counter.n.Load() - before; n > int64(overBudgetLookups) {
				t.Errorf("%d credential lookups for 5 refused requests, want at most %d", n, overBudgetLookups)
			}
			wantStatus(t, valid.send(t, client, node.URL), 200)
		})
	}
}

// overBudgetLookups is abuse.go's trickle: lookups per second of an
// address over its budget.
const overBudgetLookups = 1

// The default budget is the real service's invalid request limit.
func TestAuthFailureBudgetDefault(t *testing.T) {
	t.Parallel()
	if got, want := api.DefaultConfig().AuthFailureLimit, (ratelimit.Limit{Count: 10_000, Window: 10 * time.Minute}); got != want {
		t.Errorf("default AuthFailureLimit %v, want %v", got, want)
	}
}

// A flood of garbage tokens from one address gets the budget's 401s,
// then 429s that cost no store lookup beyond the trickle; the bot working
// from the same address all along is still served, and so, within a
// second, is a bot token never seen before; another address is
// unaffected; when the window ends the address is counted afresh.
func TestAuthFailureFlood(t *testing.T) {
	t.Parallel()
	budget := ratelimit.Limit{Count: 50, Window: time.Minute}
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = budget })
	e.Clock.Freeze()
	counter := &lookupCounter{Store: e.Store}
	node := e.NodeOn(counter)
	flooder, neighbour := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")
	path := v10(e).global()
	garbage := func() credentialed {
		return credentialed{name: "garbage", method: "GET", path: path, auth: "Bot " + randomHex(t)}
	}
	valid := credentialed{name: "valid", method: "GET", path: path, auth: e.Bot()}
	wantStatus(t, valid.send(t, flooder, node.URL), 200)

	const flood = 500
	before := counter.n.Load()
	statuses := map[int]int{}
	for range flood {
		r := garbage().send(t, flooder, node.URL)
		statuses[r.Status]++
		if r.Status == 429 {
			wantAddressRefused(t, r, budget.Count)
		}
	}
	if statuses[401] != budget.Count || statuses[429] != flood-budget.Count || len(statuses) != 2 {
		t.Fatalf("statuses of %d garbage requests %v, want %d 401s and the rest 429", flood, statuses, budget.Count)
	}
	if n := counter.n.Load() - before; n > int64(budget.Count+overBudgetLookups) {
		t.Errorf("%d token lookups for %d requests, want at most %d (the budget and the trickle)", n, flood,
			budget.Count+overBudgetLookups)
	}
	// The bot on the same address is not locked out.
	for range 3 {
		wantStatus(t, valid.send(t, flooder, node.URL), 200)
	}
	wantAddressRefused(t, garbage().send(t, flooder, node.URL), budget.Count)

	// A bot token the server never saw gets its lookup once the trickle
	// refills.
	second := e.NewApp(bootstrap.AppOptions{Name: "second"})
	fresh := credentialed{name: "fresh", method: "GET", path: "/api/v10/applications/" + second.ApplicationID + "/commands",
		auth: "Bot " + second.BotToken}
	e.Clock.Advance(time.Second)
	wantStatus(t, fresh.send(t, flooder, node.URL), 200)
	wantStatus(t, fresh.send(t, flooder, node.URL), 200) // known now: no trickle needed
	wantAddressRefused(t, garbage().send(t, flooder, node.URL), budget.Count)

	// Another address: its own budget.
	wantStatus(t, valid.send(t, neighbour, node.URL), 200)
	wantStatus(t, garbage().send(t, neighbour, node.URL), 401)

	// The window ends: the flooder's failures are 401s again.
	e.Clock.Advance(budget.Window)
	wantStatus(t, garbage().send(t, flooder, node.URL), 401)
	wantStatus(t, valid.send(t, flooder, node.URL), 200)
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

// Over the budget, a valid admin token and a valid OAuth2 client
// secret the server accepted before are still served.
func TestAuthFailureBudgetServesKnownAdminAndClientCredentials(t *testing.T) {
	t.Parallel()
	const budget = 2
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	e.Clock.Freeze()
	client := clientFrom(t, "127.0.0.6")
	admin := credentialed{name: "admin", method: "GET", path: "/admin/v1/users", auth: e.AdminAuth()}
	secret := "Basic " + base64.StdEncoding.EncodeToString([]byte(e.App.ClientID+":"+e.App.ClientSecret))
	token := credentialed{name: "client credentials", method: "POST", path: "/api/v10/oauth2/token", auth: secret,
		form: url.Values{"grant_type": {"client_credentials"}, "scope": {"identify"}}}
	wantStatus(t, admin.send(t, client, e.URL), 200)
	wantStatus(t, token.send(t, client, e.URL), 200)
	garbage := credentialed{name: "garbage", method: "GET", path: "/admin/v1/users", auth: "Admin " + randomHex(t)}
	for range budget {
		wantStatus(t, garbage.send(t, client, e.URL), 401)
	}
	for range 3 {
		wantAddressRefused(t, garbage.send(t, client, e.URL), budget)
	}
	wantStatus(t, admin.send(t, client, e.URL), 200)
	wantStatus(t, token.send(t, client, e.URL), 200)
}

// Turned off, no address is ever refused.
func TestAuthFailureBudgetOff(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{} })
	req := credentialed{name: "garbage", method: "GET", path: v10(e).global(), auth: "Bot garbage"}
	client := clientFrom(t, "127.0.0.5")
	for range 500 {
		wantStatus(t, req.send(t, client, e.URL), 401)
	}
}

// The gateway is under the same budget: an IDENTIFY or RESUME with an
// unknown token is closed 4004 and counts against its address. Over the
// budget the upgrade is still served (it carries no credential), a bad
// token is still closed 4004, and the bot's own token still gets READY;
// on the API the address's failures get the 429 and the bot is served.
func TestAuthFailureBudgetOnTheGateway(t *testing.T) {
	t.Parallel()
	const budget = 2
	e := testenv.New(t, func(c *api.Config) { c.AuthFailureLimit = ratelimit.Limit{Count: budget, Window: time.Minute} })
	e.Clock.Freeze()
	client := clientFrom(t, "127.0.0.30")
	ws := strings.Replace(e.URL, "http", "ws", 1) + "/gateway?v=10&encoding=json"
	properties := `"properties":{"os":"linux","browser":"t","device":"t"}`
	// identifyAs sends op with d and returns the close status it got
	// (-1: it got READY).
	identifyAs := func(op, d string) websocket.StatusCode {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPClient: client})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.CloseNow()
		if _, _, err := c.Read(ctx); err != nil { // HELLO
			t.Fatalf("HELLO: %v", err)
		}
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"op":`+op+`,"d":`+d+`}`)); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err == nil && strings.Contains(string(data), `"t":"READY"`) {
			return -1
		}
		return websocket.CloseStatus(err)
	}
	bot := `{"token":"` + e.Bot() + `","intents":0,` + properties + `}`
	if got := identifyAs("2", bot); got != -1 {
		t.Fatalf("the bot's IDENTIFY: close %d, want READY", got)
	}
	attempts := []struct{ op, d string }{
		{"2", `{"token":"Bot nope","intents":1,` + properties + `}`},
		{"6", `{"token":"nope","session_id":"s","seq":1}`},
		{"2", `{"token":"Bot nope-again","intents":1,` + properties + `}`}, // over the budget
	}
	for i, a := range attempts {
		if got := identifyAs(a.op, a.d); got != 4004 {
			t.Fatalf("attempt %d (op %s) with an unknown token: close %d, want 4004", i+1, a.op, got)
		}
	}
	if got := identifyAs("2", bot); got != -1 {
		t.Fatalf("the bot's IDENTIFY over the budget: close %d, want READY", got)
	}
	wantAddressRefused(t, credentialed{name: "garbage", method: "GET", path: v10(e).global(), auth: "Bot nope"}.
		send(t, client, e.URL), budget)
	valid := credentialed{name: "valid bot token", method: "GET", path: v10(e).global(), auth: e.Bot()}
	wantStatus(t, valid.send(t, client, e.URL), 200)
}

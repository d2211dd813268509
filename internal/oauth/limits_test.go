package oauth_test

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// The consent page's login limits: password checks (argon2id, the
// costliest thing a request can ask for) per login name and per client
// address.

// loginCounter counts the logins looked up: a refused attempt never gets
// that far (nor to the password check after it).
type loginCounter struct {
	store.Store
	n atomic.Int64
}

func (c *loginCounter) LoginByName(ctx context.Context, name string) (store.Login, error) {
	c.n.Add(1)
	return c.Store.LoginByName(ctx, name)
}

// agentFrom is newAgent whose connections come from the loopback
// address ip (all of 127.0.0.0/8 on Linux).
func agentFrom(t *testing.T, base, ip string) *agent {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("this system has no loopback address %s: %v", ip, err)
	}
	ln.Close()
	a := newAgent(t, base)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	a.c.Transport = tr
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	a.c.Jar = jar
	return a
}

// loginWorld is a server with limits on logins, its confidential client
// and two users with passwords.
type loginWorld struct {
	e       *testenv.Env
	node    *testenv.Env // e's server on a store counting login lookups
	lookups *loginCounter
	authURL string
}

func newLoginWorld(t *testing.T, adjust func(*api.Config)) *loginWorld {
	t.Helper()
	e := testenv.New(t, adjust)
	e.SetOAuth(clientOf(t, e.App).id, false, confRedirect)
	e.NewUser("alice", alicePassword)
	e.NewUser("bob", alicePassword)
	w := &loginWorld{e: e, lookups: &loginCounter{Store: e.Store}}
	w.node = e.NodeOn(w.lookups)
	conf := (&consentWorld{conf: clientOf(t, e.App)}).confParams("identify")
	w.authURL = authPath("/api/v10", conf)
	return w
}

// attempt fills in and posts the login form.
func (w *loginWorld) attempt(a *agent, name, password string) page {
	a.t.Helper()
	form := a.get(w.authURL)
	if form.status != http.StatusOK || !form.isLogin() {
		a.t.Fatalf("GET %s: %d, want the login form:\n%s", w.authURL, form.status, form.body)
	}
	f := form.hidden()
	f.Set("name", name)
	f.Set("password", password)
	return a.post(form.action(a.t), f)
}

func wantLoggedIn(t *testing.T, p page) {
	t.Helper()
	if p.status != http.StatusSeeOther || p.cookie["slashd_session"] == nil {
		t.Fatalf("login: %d, want 303 with a session:\n%s", p.status, p.body)
	}
}

// wantTooMany checks the refusal: the login form again, with a 429,
// Retry-After between lo and hi seconds, and saying how long that is.
func wantTooMany(t *testing.T, p page, lo, hi int) {
	t.Helper()
	ra, err := strconv.Atoi(p.header.Get("Retry-After"))
	if err != nil || ra < lo || ra > hi {
		t.Fatalf("Retry-After %q, want %d to %d", p.header.Get("Retry-After"), lo, hi)
	}
	words := strconv.Itoa(ra) + " seconds"
	if ra == 1 {
		words = "1 second"
	}
	if ra > 60 {
		words = strconv.Itoa((ra+59)/60) + " minutes"
	}
	wantPage(t, p, http.StatusTooManyRequests, "Too many login attempts. Try again in "+words+".")
	if !p.isLogin() {
		t.Errorf("not the login form:\n%s", p.body)
	}
}

func TestLoginLimitPerAccount(t *testing.T) {
	t.Parallel()
	w := newLoginWorld(t, func(c *api.Config) {
		c.LoginAccountLimit = ratelimit.Limit{Count: 3, Window: 15 * time.Minute}
		c.LoginAddressLimit = ratelimit.Limit{Count: 100, Window: 15 * time.Minute}
	})
	a, b := agentFrom(t, w.node.URL, "127.0.0.21"), agentFrom(t, w.node.URL, "127.0.0.22")
	wantPage(t, w.attempt(a, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	wantPage(t, w.attempt(b, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	wantPage(t, w.attempt(a, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")

	// alice's budget is used up, from every address, even with her
	// password; nothing is looked up or checked.
	before := w.lookups.n.Load()
	wantTooMany(t, w.attempt(a, "alice", alicePassword), 850, 900)
	wantTooMany(t, w.attempt(b, "alice", alicePassword), 850, 900)
	if n := w.lookups.n.Load() - before; n != 0 {
		t.Errorf("%d logins looked up for refused attempts", n)
	}
	// bob is another account.
	wantLoggedIn(t, w.attempt(a, "bob", alicePassword))

	// Time tells in minutes, then seconds; the window's end lets alice in.
	w.e.Clock.Advance(14*time.Minute + 15*time.Second)
	wantTooMany(t, w.attempt(b, "alice", alicePassword), 1, 45)
	w.e.Clock.Advance(45 * time.Second)
	wantLoggedIn(t, w.attempt(b, "alice", alicePassword))
}

func TestLoginLimitPerAddress(t *testing.T) {
	t.Parallel()
	w := newLoginWorld(t, func(c *api.Config) {
		c.LoginAccountLimit = ratelimit.Limit{Count: 100, Window: time.Hour}
		c.LoginAddressLimit = ratelimit.Limit{Count: 3, Window: time.Hour}
	})
	a, b := agentFrom(t, w.node.URL, "127.0.0.23"), agentFrom(t, w.node.URL, "127.0.0.24")
	// One address guessing at several accounts, known or not.
	for _, name := range []string{"alice", "mallory", "bob"} {
		wantPage(t, w.attempt(a, name, "guess-"+name), http.StatusUnauthorized, "Login or password is invalid.")
	}
	before := w.lookups.n.Load()
	wantTooMany(t, w.attempt(a, "alice", alicePassword), 3550, 3600)
	wantTooMany(t, w.attempt(a, strings.Repeat("x", 4000), "p"), 3550, 3600)
	if n := w.lookups.n.Load() - before; n != 0 {
		t.Errorf("%d logins looked up for refused attempts", n)
	}
	// Another address is not concerned.
	wantLoggedIn(t, w.attempt(b, "alice", alicePassword))
	w.e.Clock.Advance(time.Hour)
	wantLoggedIn(t, w.attempt(a, "bob", alicePassword))
}

// With SharedRateLimits the attempts are counted in the store: the
// nodes of a cluster share one budget per account.
func TestLoginLimitAcrossNodes(t *testing.T) {
	t.Parallel()
	w := newLoginWorld(t, func(c *api.Config) {
		c.SharedRateLimits = true
		c.LoginAccountLimit = ratelimit.Limit{Count: 3, Window: 15 * time.Minute}
	})
	other := w.e.Node()
	a, b := agentFrom(t, w.node.URL, "127.0.0.25"), agentFrom(t, other.URL, "127.0.0.26")
	wantPage(t, w.attempt(a, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	wantPage(t, w.attempt(b, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	wantPage(t, w.attempt(a, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	wantTooMany(t, w.attempt(b, "alice", alicePassword), 850, 900)
}

// Turned off, attempts are not counted.
func TestLoginLimitsOff(t *testing.T) {
	t.Parallel()
	w := newLoginWorld(t, func(c *api.Config) { c.LoginAccountLimit, c.LoginAddressLimit = ratelimit.Limit{}, ratelimit.Limit{} })
	a := agentFrom(t, w.node.URL, "127.0.0.27")
	for range api.DefaultConfig().LoginAccountLimit.Count + 1 {
		wantPage(t, w.attempt(a, "alice", "wrong horse"), http.StatusUnauthorized, "Login or password is invalid.")
	}
	wantLoggedIn(t, w.attempt(a, "alice", alicePassword))
}

// Attempts are counted before the password check: a burst of concurrent
// attempts gets exactly the budget's checks, not one per request in
// flight.
func TestLoginLimitHoldsUnderABurst(t *testing.T) {
	t.Parallel()
	const budget, burst = 3, 12
	w := newLoginWorld(t, func(c *api.Config) { c.LoginAccountLimit = ratelimit.Limit{Count: budget, Window: time.Hour} })
	// Each request carries a form of its own (the CSRF double submit).
	reqs := make([]*http.Request, burst)
	agents := make([]*agent, burst)
	for i := range reqs {
		agents[i] = agentFrom(t, w.node.URL, "127.0.0.28")
		form := agents[i].get(w.authURL)
		f := form.hidden()
		f.Set("name", "alice")
		f.Set("password", "wrong horse")
		req, err := http.NewRequest("POST", w.node.URL+form.action(t), strings.NewReader(f.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		reqs[i] = req
	}
	statuses := make([]int, burst)
	errs := make([]error, burst)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Go(func() {
			<-start
			resp, err := agents[i].c.Do(reqs[i])
			if err != nil {
				errs[i] = err
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		})
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for i, st := range statuses {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		count[st]++
	}
	if count[http.StatusUnauthorized] != budget || count[http.StatusTooManyRequests] != burst-budget {
		t.Errorf("statuses %v, want %d × 401 and %d × 429", count, budget, burst-budget)
	}
	if n := w.lookups.n.Load(); n != budget {
		t.Errorf("%d logins looked up, want %d", n, budget)
	}
}

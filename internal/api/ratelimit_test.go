package api_test

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/testenv"
)

func limits(global, read, write int) testenv.Option {
	return testenv.WithRateLimit(func(c *api.Config) {
		c.GlobalLimit = ratelimit.Limit{Count: global, Window: time.Minute}
		c.ReadLimit = ratelimit.Limit{Count: read, Window: time.Minute}
		c.WriteLimit = ratelimit.Limit{Count: write, Window: time.Minute}
	})
}

var bucketRe = regexp.MustCompile(`^[0-9a-f]{16}$`)

// wantBucketHeaders checks the X-RateLimit-* headers of an allowed request.
func wantBucketHeaders(t *testing.T, r testenv.Response, limit, remaining int) string {
	t.Helper()
	h := r.Header
	if got := h.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
		t.Errorf("X-RateLimit-Limit %q, want %d", got, limit)
	}
	if got := h.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
		t.Errorf("X-RateLimit-Remaining %q, want %d", got, remaining)
	}
	after, err := strconv.ParseFloat(h.Get("X-RateLimit-Reset-After"), 64)
	if err != nil || after <= 0 || after > 60 {
		t.Errorf("X-RateLimit-Reset-After %q", h.Get("X-RateLimit-Reset-After"))
	}
	reset, err := strconv.ParseFloat(h.Get("X-RateLimit-Reset"), 64)
	now := float64(time.Now().UnixMilli()) / 1000
	if err != nil || reset < now-1 || reset > now+61 {
		t.Errorf("X-RateLimit-Reset %q (now %.3f)", h.Get("X-RateLimit-Reset"), now)
	}
	if math.Abs(reset-now-after) > 2 {
		t.Errorf("Reset %.3f and Reset-After %.3f disagree (now %.3f)", reset, after, now)
	}
	b := h.Get("X-RateLimit-Bucket")
	if !bucketRe.MatchString(b) {
		t.Errorf("X-RateLimit-Bucket %q", b)
	}
	if h.Get("X-RateLimit-Global") != "" {
		t.Errorf("X-RateLimit-Global on an allowed request")
	}
	return b
}

// want429 checks a rate-limited response.
func want429(t *testing.T, r testenv.Response, global bool) {
	t.Helper()
	wantStatus(t, r, 429)
	m := decodeObj(t, r)
	if m["message"] != "You are being rate limited." || m["global"] != global || len(m) != 3 {
		t.Fatalf("429 body %s", r.Body)
	}
	retry, ok := m["retry_after"].(float64)
	if !ok || retry <= 0 || retry > 60 {
		t.Fatalf("retry_after %v", m["retry_after"])
	}
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra != int(math.Ceil(retry)) {
		t.Fatalf("Retry-After %q for retry_after %v", r.Header.Get("Retry-After"), retry)
	}
	if g := r.Header.Get("X-RateLimit-Global"); (g == "true") != global {
		t.Fatalf("X-RateLimit-Global %q", g)
	}
	scope := "user"
	if global {
		scope = "global"
	}
	if s := r.Header.Get("X-RateLimit-Scope"); s != scope {
		t.Fatalf("X-RateLimit-Scope %q, want %s", s, scope)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" || r.Header.Get("Date") == "" {
		t.Fatalf("headers %v", r.Header)
	}
}

func TestRouteRateLimit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, limits(100, 100, 2))
	p := v10(e)

	r := mustDo(t, e, "POST", p.global(), e.Bot(), chat("a"), 201)
	bucket := wantBucketHeaders(t, r, 2, 1)
	r = mustDo(t, e, "POST", p.global(), e.Bot(), chat("b"), 201)
	if wantBucketHeaders(t, r, 2, 0) != bucket {
		t.Errorf("bucket changed")
	}
	// The third is refused and not applied.
	r = mustDo(t, e, "POST", p.global(), e.Bot(), chat("c"), 429)
	want429(t, r, false)
	if got := r.Header.Get("X-RateLimit-Remaining"); got != "0" {
		t.Errorf("Remaining on 429: %q", got)
	}
	if got := r.Header.Get("X-RateLimit-Bucket"); got != bucket {
		t.Errorf("Bucket on 429: %q", got)
	}
	// The same route under another prefix is the same bucket.
	want429(t, mustDo(t, e, "POST", pathsFor("/api/v9", e.App).global(), e.Bot(), chat("c"), 429), false)
	want429(t, mustDo(t, e, "POST", pathsFor("/api", e.App).global(), e.Bot(), chat("c"), 429), false)

	// Reads are another bucket, counting down on their own.
	r = mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200)
	readBucket := wantBucketHeaders(t, r, 100, 99)
	if readBucket == bucket {
		t.Errorf("read and write share bucket %s", bucket)
	}
	if got := names(decodeList(t, r)); fmt.Sprint(got) != "[a b]" {
		t.Errorf("stored %v", got)
	}
	// Another write route (bulk overwrite) has its own bucket.
	r = mustDo(t, e, "PUT", p.global(), e.Bot(), []jsonObj{chat("a")}, 200)
	if wantBucketHeaders(t, r, 2, 1) == bucket {
		t.Errorf("PUT shares the POST bucket")
	}
}

func TestRateLimitPerGuild(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, limits(100, 100, 2))
	p := v10(e)
	g2 := newGuild(t, e, mustID(t, e.App.OwnerUserID), mustID(t, e.App.ApplicationID))
	mustDo(t, e, "POST", p.guildCmds(), e.Bot(), chat("a"), 201)
	mustDo(t, e, "POST", p.guildCmds(), e.Bot(), chat("b"), 201)
	want429(t, mustDo(t, e, "POST", p.guildCmds(), e.Bot(), chat("c"), 429), false)

	// Another guild: a fresh counter, same bucket id.
	r1 := mustDo(t, e, "POST", p.withGuild(g2).guildCmds(), e.Bot(), chat("c"), 201)
	wantBucketHeaders(t, r1, 2, 1)
	// The global scope too.
	wantBucketHeaders(t, mustDo(t, e, "POST", p.global(), e.Bot(), chat("c"), 201), 2, 1)
	// And the first guild is still limited.
	want429(t, mustDo(t, e, "POST", p.guildCmds(), e.Bot(), chat("d"), 429), false)
}

func TestRateLimitPerToken(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, limits(100, 100, 2))
	p := v10(e)
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	op := pathsFor("/api/v10", other)
	mustDo(t, e, "POST", p.global(), e.Bot(), chat("a"), 201)
	mustDo(t, e, "POST", p.global(), e.Bot(), chat("b"), 201)
	want429(t, mustDo(t, e, "POST", p.global(), e.Bot(), chat("c"), 429), false)
	// Another app is unaffected.
	wantBucketHeaders(t, mustDo(t, e, "POST", op.global(), "Bot "+other.BotToken, chat("a"), 201), 2, 1)
	// So is another token of the same app.
	tok := clientCredentials(t, e, e.App, "applications.commands.update")
	wantBucketHeaders(t, mustDo(t, e, "POST", p.global(), tok, chat("c"), 201), 2, 1)
}

func TestGlobalRateLimit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, limits(5, 100, 100))
	p := v10(e)
	for i := range 5 {
		path := p.global()
		if i%2 == 1 {
			path = p.guildCmds()
		}
		mustDo(t, e, "GET", path, e.Bot(), nil, 200)
	}
	// The sixth request of the token, on any route, hits the global limit.
	for _, path := range []string{p.global(), p.guildCmds(), p.allPerms()} {
		r := mustDo(t, e, "GET", path, e.Bot(), nil, 429)
		want429(t, r, true)
	}
	want429(t, mustDo(t, e, "POST", p.global(), e.Bot(), chat("x"), 429), true)
	// Nothing was created.
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	mustDo(t, e, "GET", pathsFor("/api/v10", other).global(), "Bot "+other.BotToken, nil, 200)
	if r := mustDo(t, e, "GET", p.global(), e.Owner(), nil, 200); string(r.Body) != "[]" {
		t.Fatalf("created under the limit: %s", r.Body)
	}
	// Unauthenticated requests are limited per client address.
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"identify"}}
	for range 5 {
		wantStatus(t, postForm(t, e, "/api/v10/oauth2/token", form, e.App.ClientID, e.App.ClientSecret), 200)
	}
	want429(t, postForm(t, e, "/api/v10/oauth2/token", form, e.App.ClientID, e.App.ClientSecret), true)
}

// TestRateLimitNotCountingUnauthorized: requests refused for lack of a
// valid token never consume the token's buckets.
func TestRateLimitNotCountingUnauthorized(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, limits(3, 3, 3))
	p := v10(e)
	for range 10 {
		wantError(t, mustDo(t, e, "GET", p.global(), "Bot nope", nil, 401), 401, bodyUnauthorized)
	}
	wantBucketHeaders(t, mustDo(t, e, "GET", p.global(), e.Bot(), nil, 200), 3, 2)
}

// With SharedRateLimits the nodes of a cluster count in the store: a bot
// spreading its requests over two nodes gets the limit of one.
func TestSharedRateLimitsHoldAcrossNodes(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, testenv.WithRateLimit(func(c *api.Config) {
		c.SharedRateLimits = true
		c.ReadLimit = ratelimit.Limit{Count: 4, Window: time.Minute}
	}))
	other := e.Node()
	path := v10(e).global()
	for i, node := range []*testenv.Env{e, other, e, other} {
		r := node.Do("GET", path, e.Bot(), nil)
		if r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(3-i) {
			t.Fatalf("request %d: %d, remaining %q", i, r.Status, r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	for _, node := range []*testenv.Env{e, other} {
		if r := node.Do("GET", path, e.Bot(), nil); r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("over the limit: %d %s", r.Status, r.Body)
		}
	}
}

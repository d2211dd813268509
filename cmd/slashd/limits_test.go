package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
)

func defaultAbuseLimits() abuseLimits {
	c := api.DefaultConfig()
	return abuseLimits{authFailures: c.AuthFailureLimit, loginAccount: c.LoginAccountLimit, loginAddress: c.LoginAddressLimit,
		identifyTimeout: c.Gateway.IdentifyTimeout, gatewayConns: c.Gateway.MaxConnsPerAddress}
}

// withGateway is l with the gateway's bounds set.
func (l abuseLimits) withGateway(identifyTimeout time.Duration, conns int) abuseLimits {
	l.identifyTimeout, l.gatewayConns = identifyTimeout, conns
	return l
}

func TestAbuseLimitFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SLASHD_AUTH_FAILURE_LIMIT": "50/30s", "SLASHD_LOGIN_ACCOUNT_LIMIT": "off",
		"SLASHD_LOGIN_ADDRESS_LIMIT": "7/1h", "SLASHD_GATEWAY_IDENTIFY_TIMEOUT": "2m",
		"SLASHD_GATEWAY_CONNECTIONS_PER_ADDRESS": "50"}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want abuseLimits // with wantErr, ignored
		bad  bool
	}{
		{name: "defaults", want: defaultAbuseLimits()},
		{name: "environment", env: env, want: abuseLimits{authFailures: ratelimit.Limit{Count: 50, Window: 30 * time.Second},
			loginAddress: ratelimit.Limit{Count: 7, Window: time.Hour}}.withGateway(2*time.Minute, 50)},
		{name: "flags beat environment", env: env,
			args: []string{"--auth-failure-limit", "0", "--login-account-limit", "3/10m", "--login-address-limit=9/2m",
				"--gateway-identify-timeout", "10s", "--gateway-connections-per-address", "0"},
			want: abuseLimits{loginAccount: ratelimit.Limit{Count: 3, Window: 10 * time.Minute},
				loginAddress: ratelimit.Limit{Count: 9, Window: 2 * time.Minute}}.withGateway(10*time.Second, 0)},
		{name: "bad environment", env: map[string]string{"SLASHD_AUTH_FAILURE_LIMIT": "lots"}, bad: true},
		{name: "bad flag", args: []string{"--login-account-limit", "5/0s"}, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseServeFlags(tc.args, envMap(tc.env))
			if tc.bad {
				if err == nil {
					t.Fatalf("got %+v, want an error", cfg.limits)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.limits != tc.want {
				t.Errorf("limits %+v, want %+v", cfg.limits, tc.want)
			}
			var c api.Config
			cfg.limits.apply(&c)
			if c.AuthFailureLimit != tc.want.authFailures || c.LoginAccountLimit != tc.want.loginAccount ||
				c.LoginAddressLimit != tc.want.loginAddress {
				t.Errorf("applied %+v %+v %+v", c.AuthFailureLimit, c.LoginAccountLimit, c.LoginAddressLimit)
			}
			wantConns := tc.want.gatewayConns
			if wantConns == 0 {
				wantConns = -1 // no cap
			}
			if c.Gateway.IdentifyTimeout != tc.want.identifyTimeout || c.Gateway.MaxConnsPerAddress != wantConns {
				t.Errorf("applied gateway identify timeout %v, connections per address %d; want %v, %d",
					c.Gateway.IdentifyTimeout, c.Gateway.MaxConnsPerAddress, tc.want.identifyTimeout, wantConns)
			}
		})
	}
}

// serve takes the budgets from its flags: with --auth-failure-limit 3/1m
// the fourth request with a bad token is a 429, and the log says why.
func TestServeAuthFailureLimit(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeFlags([]string{"--addr", "127.0.0.1:0", "--data", t.TempDir(), "--auth-failure-limit", "3/1m",
		"--log-level", "warn"}, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := startServeConfig(t, cfg)
	for i := range 3 {
		if status, body := call(t, "GET", s.base+"/api/v10/users/@me", "Bot nope", ""); status != 401 {
			t.Fatalf("request %d: %d %s, want 401", i+1, status, body)
		}
	}
	for _, path := range []string{"/api/v10/users/@me", "/admin/v1/users"} {
		status, body := call(t, "GET", s.base+path, "Bot nope", "")
		if status != 429 || !strings.Contains(string(body), `"global":true`) {
			t.Fatalf("%s over the budget: %d %s, want a global 429", path, status, body)
		}
	}
	if !strings.Contains(s.out.String(), "authentication failure budget") {
		t.Errorf("the log does not say an address used up its budget:\n%s", s.out)
	}
}

// Behind a trusted proxy (--trusted-proxies), the authentication failure
// budget is the client's that X-Forwarded-For names, so one client using
// up its budget does not lock out the others behind the same proxy;
// without the flag the header is not believed (a client cannot escape
// its budget by writing one).
func TestServeTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{true, false} {
		t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
			t.Parallel()
			args := []string{"--addr", "127.0.0.1:0", "--data", t.TempDir(), "--auth-failure-limit", "2/1m", "--log-level", "warn"}
			if trusted {
				args = append(args, "--trusted-proxies", "127.0.0.0/8, ::1")
			}
			cfg, err := parseServeFlags(args, envMap(nil))
			if err != nil {
				t.Fatal(err)
			}
			s := startServeConfig(t, cfg)
			from := func(client string) int {
				req, err := http.NewRequest("GET", s.base+"/api/v10/users/@me", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bot nope")
				req.Header.Set("X-Forwarded-For", "6.6.6.6, "+client)
				resp, err := httpClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			for i := range 2 {
				if got := from("198.51.100.1"); got != 401 {
					t.Fatalf("bad token %d from the first client: %d, want 401", i+1, got)
				}
			}
			if got := from("198.51.100.1"); got != 429 {
				t.Fatalf("the first client over its budget: %d, want 429", got)
			}
			want := 401 // another client behind the proxy has its own budget
			if !trusted {
				want = 429 // the header is not believed: the same address
			}
			if got := from("198.51.100.2"); got != want {
				t.Fatalf("a second client behind the proxy: %d, want %d", got, want)
			}
		})
	}
}

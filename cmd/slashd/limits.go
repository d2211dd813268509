package main

import (
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
)

// abuseLimits are serve's budgets for failed authentication and login
// attempts (api.Config says what each counts; docs/compat.md why), and
// the gateway's bounds on what one client holds.
type abuseLimits struct {
	authFailures, loginAccount, loginAddress ratelimit.Limit
	// identifyTimeout: how long a gateway connection may go without
	// IDENTIFY or RESUME; gatewayConns: the gateway connections one
	// client address may hold open (0: no cap).
	identifyTimeout time.Duration
	gatewayConns    int
}

// abuseLimitFlags registers the abuse limits' flags on fs, defaulting to
// api.DefaultConfig's budgets.
func abuseLimitFlags(fs *flagSet, l *abuseLimits) {
	def := api.DefaultConfig()
	fs.envText(&l.authFailures, "auth-failure-limit", def.AuthFailureLimit,
		"requests with a missing or bad token (401) a client address may make per window, as `COUNT/WINDOW` "+
			"(the real service's invalid request limit); then its failures get 429s until the window ends, "+
			"while valid tokens are still served; 0: no limit")
	fs.envText(&l.loginAccount, "login-account-limit", def.LoginAccountLimit,
		"login attempts on the consent page per login name, as `COUNT/WINDOW`; 0: no limit")
	fs.envText(&l.loginAddress, "login-address-limit", def.LoginAddressLimit,
		"login attempts on the consent page per client address, as `COUNT/WINDOW`; 0: no limit")
	fs.envDuration(&l.identifyTimeout, "gateway-identify-timeout", def.Gateway.IdentifyTimeout,
		"how long a gateway connection may go without IDENTIFY or RESUME before it is closed 4009 (Session timed out)")
	fs.envInt(&l.gatewayConns, "gateway-connections-per-address", def.Gateway.MaxConnsPerAddress,
		"gateway connections one client address may hold open; more are refused (429) before the upgrade; 0: no cap")
}

// apply sets the limits in an API configuration.
func (l abuseLimits) apply(c *api.Config) {
	c.AuthFailureLimit, c.LoginAccountLimit, c.LoginAddressLimit = l.authFailures, l.loginAccount, l.loginAddress
	c.Gateway.IdentifyTimeout = l.identifyTimeout
	c.Gateway.MaxConnsPerAddress = l.gatewayConns
	if l.gatewayConns <= 0 {
		c.Gateway.MaxConnsPerAddress = -1 // the gateway's "no cap" (its 0 is the default)
	}
}

package main

import (
	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
)

// abuseLimits are serve's budgets for failed authentication and login
// attempts (api.Config says what each counts; docs/compat.md why).
type abuseLimits struct {
	authFailures, loginAccount, loginAddress ratelimit.Limit
}

// abuseLimitFlags registers the abuse limits' flags on fs, defaulting to
// api.DefaultConfig's budgets.
func abuseLimitFlags(fs *flagSet, l *abuseLimits) {
	def := api.DefaultConfig()
	fs.envText(&l.authFailures, "auth-failure-limit", def.AuthFailureLimit,
		"requests with a missing or bad token (401) a client address may make per window, as `COUNT/WINDOW`; "+
			"then it gets 429s until the window ends; 0: no limit")
	fs.envText(&l.loginAccount, "login-account-limit", def.LoginAccountLimit,
		"login attempts on the consent page per login name, as `COUNT/WINDOW`; 0: no limit")
	fs.envText(&l.loginAddress, "login-address-limit", def.LoginAddressLimit,
		"login attempts on the consent page per client address, as `COUNT/WINDOW`; 0: no limit")
}

// apply sets the limits in an API configuration.
func (l abuseLimits) apply(c *api.Config) {
	c.AuthFailureLimit, c.LoginAccountLimit, c.LoginAddressLimit = l.authFailures, l.loginAccount, l.loginAddress
}

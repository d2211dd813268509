package main

import (
	"flag"
	"fmt"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
)

// abuseLimits are serve's budgets for failed authentication and login
// attempts (api.Config says what each counts).
type abuseLimits struct {
	authFailures, loginAccount, loginAddress ratelimit.Limit
}

// abuseLimitFlags registers the abuse limits' flags on fs, each
// defaulting to its environment variable, else to api.DefaultConfig's.
func abuseLimitFlags(fs *flag.FlagSet, getenv func(string) string, l *abuseLimits) error {
	def := api.DefaultConfig()
	for _, f := range []struct {
		p           *ratelimit.Limit
		name, env   string
		def         ratelimit.Limit
		description string
	}{
		{&l.authFailures, "auth-failure-limit", "SLASHD_AUTH_FAILURE_LIMIT", def.AuthFailureLimit,
			"requests with a missing or bad token (401) a client address may make per window, COUNT/WINDOW; then it gets 429s until the window ends; 0: no limit"},
		{&l.loginAccount, "login-account-limit", "SLASHD_LOGIN_ACCOUNT_LIMIT", def.LoginAccountLimit,
			"login attempts on the consent page per login name, COUNT/WINDOW; 0: no limit"},
		{&l.loginAddress, "login-address-limit", "SLASHD_LOGIN_ADDRESS_LIMIT", def.LoginAddressLimit,
			"login attempts on the consent page per client address, COUNT/WINDOW; 0: no limit"},
	} {
		*f.p = f.def
		if v := getenv(f.env); v != "" {
			if err := f.p.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("%s: %w", f.env, err)
			}
		}
		fs.TextVar(f.p, f.name, *f.p, f.description)
	}
	return nil
}

// apply sets the limits in an API configuration.
func (l abuseLimits) apply(c *api.Config) {
	c.AuthFailureLimit, c.LoginAccountLimit, c.LoginAddressLimit = l.authFailures, l.loginAccount, l.loginAddress
}

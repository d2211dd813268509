package main

import (
	"io"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/ratelimit"
)

func defaultAbuseLimits() abuseLimits {
	c := api.DefaultConfig()
	return abuseLimits{authFailures: c.AuthFailureLimit, loginAccount: c.LoginAccountLimit, loginAddress: c.LoginAddressLimit}
}

func TestAbuseLimitFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SLASHD_AUTH_FAILURE_LIMIT": "50/30s", "SLASHD_LOGIN_ACCOUNT_LIMIT": "off",
		"SLASHD_LOGIN_ADDRESS_LIMIT": "7/1h"}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want abuseLimits // with wantErr, ignored
		bad  bool
	}{
		{name: "defaults", want: defaultAbuseLimits()},
		{name: "environment", env: env, want: abuseLimits{authFailures: ratelimit.Limit{Count: 50, Window: 30 * time.Second},
			loginAddress: ratelimit.Limit{Count: 7, Window: time.Hour}}},
		{name: "flags beat environment", env: env,
			args: []string{"--auth-failure-limit", "0", "--login-account-limit", "3/10m", "--login-address-limit=9/2m"},
			want: abuseLimits{loginAccount: ratelimit.Limit{Count: 3, Window: 10 * time.Minute},
				loginAddress: ratelimit.Limit{Count: 9, Window: 2 * time.Minute}}},
		{name: "bad environment", env: map[string]string{"SLASHD_AUTH_FAILURE_LIMIT": "lots"}, bad: true},
		{name: "bad flag", args: []string{"--login-account-limit", "5/0s"}, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseServeFlags(tc.args, envMap(tc.env), io.Discard)
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
		})
	}
}

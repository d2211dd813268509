package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDidYouMean: a mistyped command, verb or flag exits 2 with the
// usage on stderr and the names it may be a typo of.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args  []string
		err   string // the whole error
		usage string // on stderr
	}{
		{[]string{"serv"}, `unknown command "serv"; did you mean "serve"?`, "commands:"},
		{[]string{"sreve"}, `unknown command "sreve"; did you mean "serve"?`, "commands:"},
		{[]string{"invok", "/ping"}, `unknown command "invok"; did you mean "invoke"?`, "commands:"},
		{[]string{"helathcheck"}, `unknown command "helathcheck"; did you mean "healthcheck"?`, "commands:"},
		{[]string{"health"}, `unknown command "health"; did you mean "healthcheck"?`, "commands:"},
		{[]string{"verison"}, `unknown command "verison"; did you mean "version"?`, "commands:"},
		{[]string{"admin-tokens"}, `unknown command "admin-tokens"; did you mean "admin-token"?`, "commands:"},
		{[]string{"hepl"}, `unknown command "hepl"; did you mean "help"?`, "commands:"},
		{[]string{"gulid", "create"}, `unknown command "gulid"; did you mean "guild"?`, "commands:"},
		{[]string{"ap", "create"}, `unknown command "ap"; did you mean "app"?`, "commands:"},
		{[]string{"create"}, `unknown command "create"; did you mean "app create", "guild create", "user create", "role create" or "channel create"?`, "commands:"},
		{[]string{"mint"}, `unknown command "mint"; did you mean "token mint"?`, "commands:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, "commands:"},
		{[]string{"guild", "craete"}, `guild: unknown verb "craete" (one of create); did you mean "create"?`, "verbs:"},
		{[]string{"member", "ad"}, `member: unknown verb "ad" (one of add); did you mean "add"?`, "verbs:"},
		{[]string{"guild", "list"}, `guild: unknown verb "list" (one of create)`, "verbs:"},
		{[]string{"help", "serv"}, `help: unknown command "serv"; did you mean "serve"?`, "commands:"},
		{[]string{"help", "guild", "craete"}, `help: unknown command "guild craete"; did you mean "guild create"?`, "commands:"},
		{[]string{"serve", "--adr", "x"}, `serve: flag provided but not defined: -adr; did you mean --addr? (see slashd serve --help)`, ""},
		{[]string{"serve", "--rate-limit=false"}, `serve: flag provided but not defined: -rate-limit; did you mean --ratelimit? (see slashd serve --help)`, ""},
		{[]string{"app", "create", "--nmae", "x"}, `app create: flag provided but not defined: -nmae; did you mean --name? (see slashd app create --help)`, ""},
		{[]string{"serve", "--nope"}, `serve: flag provided but not defined: -nope (see slashd serve --help)`, ""},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, envMap(nil), &stdout, &stderr)
		if err == nil || err.Error() != tc.err || exitCode(err) != 2 {
			t.Errorf("slashd %q: %v (exit %d)\nwant %s (exit 2)", tc.args, err, exitCode(err), tc.err)
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.usage) {
			t.Errorf("slashd %q: stdout %q, stderr %q; want the usage (%q) on stderr alone", tc.args, stdout.String(), stderr.String(), tc.usage)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"serve", "serve", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"serv", "serve", 1}, {"sreve", "serve", 1}, {"serev", "serve", 1}, {"xerve", "serve", 1},
		{"ca", "abc", 3}, {"guild", "build", 1}, {"kitten", "sitting", 3}, {"ünïcode", "unicode", 2},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// FuzzEditDistance: a distance — zero only between equal strings,
// symmetric, never above the longer length, at least the difference of
// the lengths.
func FuzzEditDistance(f *testing.F) {
	f.Add("serve", "sreve")
	f.Add("", "invoke")
	f.Add("ünï", "uni")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 64 || len(b) > 64 {
			return
		}
		d := editDistance(a, b)
		la, lb := len([]rune(a)), len([]rune(b))
		if (d == 0) != (a == b) || d != editDistance(b, a) || d > max(la, lb) || d < max(la-lb, lb-la) {
			t.Errorf("editDistance(%q, %q) = %d (reversed %d)", a, b, d, editDistance(b, a))
		}
	})
}

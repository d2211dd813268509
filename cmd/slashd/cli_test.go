package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runCLI runs a command line in process and returns its outputs and the
// exit status main would end with.
func runCLI(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, envMap(env), &out, &errOut)
	return out.String(), errOut.String(), exitCode(err), err
}

// TestHelpEveryCommand: --help, -h and `slashd help COMMAND` succeed for
// every command, print to stdout only, and list every flag of the
// command with its environment variable and its built-in default, even
// when the environment sets the variable.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SLASHD_ADDR": "0.0.0.0:9999", "SLASHD_DATA": "/elsewhere", "SLASHD_RATELIMIT": "not a bool"}
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			words := strings.Fields(c.name)
			var first string
			for _, args := range [][]string{append(words, "--help"), append(words, "-h"), append([]string{"help"}, words...)} {
				stdout, stderr, code, err := runCLI(t, env, args...)
				if code != 0 || err != nil || stderr != "" {
					t.Fatalf("%q: exit %d, err %v, stderr %q", args, code, err, stderr)
				}
				if first == "" {
					first = stdout
				} else if stdout != first {
					t.Errorf("%q printed another help:\n%s\nthan\n%s", args, stdout, first)
				}
			}
			usage := "usage: slashd " + c.name + " [flags]"
			if c.args != "" {
				usage += " " + c.args
			}
			if !strings.HasPrefix(first, usage+"\n") {
				t.Errorf("help does not start with the usage line:\n%s", first)
			}
			fs := newFlagSet(c.name, envMap(nil))
			c.define(fs)
			fs.VisitAll(func(f *flag.Flag) {
				entry := helpEntry(first, f.Name)
				if entry == "" {
					t.Errorf("--%s is not in the help:\n%s", f.Name, first)
					return
				}
				if _, ok := f.Value.(envValue); ok && !strings.Contains(entry, "environment "+envName(f.Name)) {
					t.Errorf("--%s: the help does not name %s:\n%s", f.Name, envName(f.Name), entry)
				}
				if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(entry, "default "+f.DefValue) {
					t.Errorf("--%s: the help does not give the default %q:\n%s", f.Name, f.DefValue, entry)
				}
			})
			if !strings.Contains(first, "  -h, --help\n") {
				t.Errorf("help does not list --help:\n%s", first)
			}
		})
	}
}

// helpEntry is the lines a help text gives the flag name ("" if none).
func helpEntry(help, name string) string {
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if l != "  --"+name && !strings.HasPrefix(l, "  --"+name+" ") {
			continue
		}
		entry := []string{l}
		for _, more := range lines[i+1:] {
			if !strings.HasPrefix(more, "      ") {
				break
			}
			entry = append(entry, more)
		}
		return strings.Join(entry, "\n")
	}
	return ""
}

// TestServeHelp pins what serve's help says about each flag: the
// environment variables and defaults of docs/configuration.md's table.
func TestServeHelp(t *testing.T) {
	t.Parallel()
	stdout, _, code, _ := runCLI(t, nil, "serve", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []struct{ flag, env, def string }{
		{"addr", "SLASHD_ADDR", "127.0.0.1:8080"},
		{"data", "SLASHD_DATA", "./slashd-data"},
		{"store", "SLASHD_STORE", ""},
		{"nats", "SLASHD_NATS", ""},
		{"nats-prefix", "SLASHD_NATS_PREFIX", "slashd.events"},
		{"node-id", "SLASHD_NODE_ID", "-1"},
		{"ratelimit", "SLASHD_RATELIMIT", "true"},
		{"log-level", "SLASHD_LOG_LEVEL", "info"},
	} {
		entry := helpEntry(stdout, want.flag)
		note := "(environment " + want.env
		if want.def != "" {
			note += "; default " + want.def + ")"
		} else {
			note += ")"
		}
		if !strings.Contains(entry, note) {
			t.Errorf("--%s: want %q in\n%s", want.flag, note, entry)
		}
	}
}

// TestServeHelpSections: serve's help lists its flags in sections,
// essentials first, each flag in its section, --help among the
// essentials; every flag is in one.
func TestServeHelpSections(t *testing.T) {
	t.Parallel()
	stdout, _, code, _ := runCLI(t, nil, "serve", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := []struct {
		heading string
		flags   []string // the first ones, in order, then some of the others
		others  []string
	}{
		{"essentials:", []string{"addr", "data"}, []string{"ui", "ratelimit", "log-level", "help"}},
		{"production (", []string{"log-format"}, []string{"store", "metrics-addr", "pprof-addr"}},
		{"cluster (", []string{"nats"}, []string{"nats-prefix", "node-id"}},
		{"security (", []string{"auth-failure-limit"}, []string{"secret-key-file", "old-secret-key-file", "trusted-proxies",
			"login-account-limit", "login-address-limit"}},
	}
	// The help, as headings and the flags under each.
	type section struct {
		heading string
		flags   []string
	}
	var got []section
	for _, line := range strings.Split(stdout, "\n") {
		switch {
		case line != "" && !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "usage:"):
			got = append(got, section{heading: line})
		case len(got) > 0 && strings.HasPrefix(line, "  -"):
			name := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(line, "  -h, "), "  "))[0]
			got[len(got)-1].flags = append(got[len(got)-1].flags, strings.TrimPrefix(name, "--"))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d sections, want %d:\n%s", len(got), len(want), stdout)
	}
	listed := 0
	for i, w := range want {
		g := got[i]
		listed += len(g.flags)
		if !strings.HasPrefix(g.heading, w.heading) {
			t.Errorf("section %d is %q, want %q", i+1, g.heading, w.heading)
		}
		if len(g.flags) < len(w.flags) || strings.Join(g.flags[:len(w.flags)], " ") != strings.Join(w.flags, " ") {
			t.Errorf("%s lists %v, want it to begin with %v", g.heading, g.flags, w.flags)
		}
		for _, f := range w.others {
			if !slices.Contains(g.flags, f) {
				t.Errorf("%s lists %v, want --%s among them", g.heading, g.flags, f)
			}
		}
	}
	fs := newFlagSet("serve", envMap(nil))
	defineServe(fs)
	if n := len(fs.helpSections()); n != len(want) {
		t.Errorf("serve has %d sections", n)
	}
	total := 1 // --help
	fs.VisitAll(func(*flag.Flag) { total++ })
	if listed != total {
		t.Errorf("the sections list %d flags, serve has %d and --help", listed, total-1)
	}
}

// TestServeFlagsReadTheEnvironment: every flag of serve has an
// environment variable (a container or a unit file sets them), so that
// --help lists it: a flag added with plain flag.FlagSet methods fails
// here.
func TestServeFlagsReadTheEnvironment(t *testing.T) {
	t.Parallel()
	fs := newFlagSet("serve", envMap(nil))
	defineServe(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(envValue); !ok {
			t.Errorf("--%s has no environment variable: register it with fs.envString/envBool/envInt", f.Name)
		}
	})
}

// TestMainUsage: help, -h and --help list every command and exit 0;
// no command, or an unknown one, lists them on stderr and exits 2.
func TestMainUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "--help"}} {
		stdout, stderr, code, err := runCLI(t, nil, args...)
		if code != 0 || err != nil || stderr != "" {
			t.Errorf("%q: exit %d, err %v, stderr %q", args, code, err, stderr)
		}
		checkCommandList(t, stdout)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "no command given"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--frobnicate"}, `unknown command "--frobnicate"`},
		{[]string{"help", "frobnicate"}, `help: unknown command "frobnicate"`},
	} {
		stdout, stderr, code, err := runCLI(t, nil, tc.args...)
		if code != 2 || err == nil || err.Error() != tc.err || stdout != "" {
			t.Errorf("%q: exit %d, err %v, stdout %q; want exit 2 and %q", tc.args, code, err, stdout, tc.err)
		}
		checkCommandList(t, stderr)
	}
}

func checkCommandList(t *testing.T, text string) {
	t.Helper()
	for _, c := range commands() {
		if !strings.Contains(text, "\n  "+c.name+" ") {
			t.Errorf("the command list lacks %q:\n%s", c.name, text)
		}
	}
}

// TestGroupsListTheirVerbs: `slashd app` (and every group) without a
// verb, or with an unknown one, lists the group's verbs on stderr and
// exits 2; with --help, on stdout with exit 0.
func TestGroupsListTheirVerbs(t *testing.T) {
	t.Parallel()
	groups := map[string][]string{}
	for _, c := range commands() {
		if group, verb, ok := strings.Cut(c.name, " "); ok {
			groups[group] = append(groups[group], verb)
		}
	}
	for _, group := range []string{"app", "guild", "user", "role", "member", "channel", "token"} {
		if len(groups[group]) == 0 {
			t.Errorf("no verbs for %q", group)
		}
	}
	for group, verbs := range groups {
		wantList := func(where, text string) {
			if !strings.HasPrefix(text, "usage: slashd "+group+" VERB [flags]\n") {
				t.Errorf("%s %s: no usage line:\n%s", group, where, text)
			}
			for _, v := range verbs {
				if !strings.Contains(text, "\n  "+v+" ") {
					t.Errorf("%s %s: verb %q not listed:\n%s", group, where, v, text)
				}
			}
		}
		for _, help := range []string{"--help", "-h"} {
			stdout, stderr, code, err := runCLI(t, nil, group, help)
			if code != 0 || err != nil || stderr != "" {
				t.Errorf("%s %s: exit %d, err %v, stderr %q", group, help, code, err, stderr)
			}
			wantList(help, stdout)
		}
		stdout, _, code, _ := runCLI(t, nil, "help", group)
		if code != 0 {
			t.Errorf("help %s: exit %d", group, code)
		}
		wantList("(help)", stdout)
		for _, tc := range []struct {
			args []string
			err  string
		}{
			{[]string{group}, group + ": missing verb (one of " + strings.Join(verbs, ", ") + ")"},
			{[]string{group, "--data", "x"}, group + ": missing verb"},
			{[]string{group, "frob"}, group + `: unknown verb "frob"`},
		} {
			stdout, stderr, code, err := runCLI(t, nil, tc.args...)
			if code != 2 || err == nil || !strings.HasPrefix(err.Error(), tc.err) || stdout != "" {
				t.Errorf("%q: exit %d, err %v, stdout %q; want exit 2 and %q", tc.args, code, err, stdout, tc.err)
			}
			wantList(strings.Join(tc.args[1:], " "), stderr)
		}
	}
}

// TestUsageErrors: bad flags and stray arguments exit 2 and point at
// --help; errors of the work itself exit 1.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"serve", "--nope"}, 2, "serve: flag provided but not defined: -nope (see slashd serve --help)"},
		{[]string{"serve", "--node-id", "x"}, 2, `serve: invalid value "x" for flag -node-id`},
		{[]string{"serve", "extra"}, 2, `serve: unexpected argument "extra"`},
		{[]string{"app", "create", "--name"}, 2, "app create: flag needs an argument: -name"},
		{[]string{"version", "now"}, 2, `version: unexpected argument "now"`},
		{[]string{"healthcheck", "--timeout", "soon"}, 2, `healthcheck: invalid value "soon" for flag -timeout`},
		{[]string{"serve", "--node-id", "1024"}, 1, "--node-id 1024: must be 0-1023"},
		{[]string{"app", "create", "--data", empty, "--name", "ab"}, 1, "no slashd store in " + empty},
	}
	for _, tc := range cases {
		stdout, _, code, err := runCLI(t, nil, tc.args...)
		if code != tc.code || err == nil || !strings.Contains(err.Error(), tc.err) || stdout != "" {
			t.Errorf("%q: exit %d, err %v, stdout %q; want exit %d and %q", tc.args, code, err, stdout, tc.code, tc.err)
		}
	}
}

// TestEnvironment: a variable sets its flag's value unless the flag is
// given; a bad value is an error only when it is used.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{"SLASHD_ADDR": "0.0.0.0:9999", "SLASHD_NODE_ID": "3"})
	cfg, err := parseServeFlags([]string{"--node-id", "4"}, env)
	if err != nil || cfg.addr != "0.0.0.0:9999" || cfg.nodeID != 4 {
		t.Errorf("got %+v, %v; want addr from SLASHD_ADDR and node-id from the flag", cfg, err)
	}
	bad := envMap(map[string]string{"SLASHD_RATELIMIT": "maybe"})
	if _, err := parseServeFlags(nil, bad); err == nil || !strings.Contains(err.Error(), `SLASHD_RATELIMIT="maybe"`) {
		t.Errorf("bad SLASHD_RATELIMIT: %v, want an error naming it", err)
	}
	if cfg, err := parseServeFlags([]string{"--ratelimit=false"}, bad); err != nil || cfg.rateLimit {
		t.Errorf("bad SLASHD_RATELIMIT beside --ratelimit=false: %+v, %v; want the flag's value", cfg, err)
	}
	var ue *usageError
	if _, err := parseServeFlags(nil, bad); !errors.As(err, &ue) {
		t.Errorf("bad environment: %T, want a usage error", err)
	}
}

// TestAdminVerbsNeedAStore: every verb that writes to a store refuses a
// data directory that has none, creating nothing, unless --init is given.
func TestAdminVerbsNeedAStore(t *testing.T) {
	t.Parallel()
	verbs := [][]string{
		{"app", "create", "--name", "ab"},
		{"guild", "create", "--name", "gg"},
		{"user", "create", "--name", "u"},
		{"role", "create", "--guild", "1", "--name", "r"},
		{"member", "add", "--guild", "1", "--user", "2"},
		{"channel", "create", "--guild", "1", "--name", "c"},
		{"token", "mint", "--user", "1"},
	}
	for _, args := range verbs {
		name := args[0] + " " + args[1]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			_, _, code, err := runCLI(t, nil, append(args, "--data", dir)...)
			want := "no slashd store in " + dir + " (no slashd.db there)"
			if code != 1 || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--init") {
				t.Fatalf("exit %d, %v; want exit 1 and %q, mentioning --init", code, err, want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused verb made %s: %v", dir, err)
			}
			// --init creates the store; the verb then goes as far as the
			// store allows (ids 1 and 2 name nothing).
			_, _, _, err = runCLI(t, nil, append(args, "--data", dir, "--init")...)
			if err != nil && strings.Contains(err.Error(), "no slashd store") {
				t.Fatalf("with --init: %v", err)
			}
			if ok, err := hasSQLiteStore(dir); !ok || err != nil {
				t.Errorf("--init made no store: %v", err)
			}
		})
	}
}

func TestBaseURLOf(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://127.0.0.1:8080",
		"[::]:8080":      "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"[::1]:9":        "http://[::1]:9",
		"slashd.lan:80":  "http://slashd.lan:80",
		"no port":        "http://no port",
	} {
		if got := baseURLOf(addr); got != want {
			t.Errorf("baseURLOf(%q) = %q, want %q", addr, got, want)
		}
	}
}

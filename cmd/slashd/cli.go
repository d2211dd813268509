package main

// The command line: the commands, their flags with the environment
// variables behind them, help, and the usage errors that exit 2.

import (
	"context"
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A cliCommand is one thing slashd does: `serve`, or a verb of a group such
// as `app create`.
type cliCommand struct {
	name    string // as typed after "slashd": "serve", "app create"
	summary string // one line, for the command list
	about   string // what --help says beyond the summary (may be empty)
	// args names the arguments the command takes after its flags, for
	// the usage line ("" for none: an argument is then a usage error).
	// Flags may come before and after them; the run function reads them
	// with fs.Args().
	args string
	// define registers the command's flags on fs and returns what runs
	// the command once they are parsed.
	define func(fs *flagSet) runFunc
}

// runFunc runs a command whose flags are parsed; it writes its results
// to out.
type runFunc func(ctx context.Context, out io.Writer) error

// commands is the command line, in the order the help lists it.
func commands() []cliCommand {
	return []cliCommand{
		{name: "serve", summary: "run the service: the API, the gateway, the admin API and OAuth2",
			about: "On an empty store it creates a demo application and writes its credentials to\n" +
				"bootstrap.json in the data directory (base_url follows --addr on every start).\n" +
				"The demo is the test world \"demo\", the default world: what the admin API and the\n" +
				"CLI create without a world_id joins it.\n" +
				"One server runs on a data directory at a time: it locks the directory's serve.lock\n" +
				"while it runs, and a second serve there exits at once. The other commands work\n" +
				"beside it.",
			define: defineServe},
		{name: "app create", summary: "create an application, its owner and a guild where it is installed",
			define: worldCommand(defineAppCreate)},
		{name: "guild create", summary: "create a guild (owned by a new user, or by --install's app owner)",
			define: worldCommand(defineGuildCreate)},
		{name: "user create", summary: "create a user (with --password, a login for the OAuth2 consent page)",
			define: worldCommand(defineUserCreate)},
		{name: "role create", summary: "create a role in a guild", define: worldCommand(defineRoleCreate)},
		{name: "member add", summary: "add a user to a guild, or replace their roles and nick",
			define: worldCommand(defineMemberAdd)},
		{name: "channel create", summary: "create a channel in a guild",
			define: worldCommand(defineChannelCreate)},
		{name: "token mint", summary: "mint a user's client token, or a Bearer token they granted an app",
			define: worldCommand(defineTokenMint)},
		{name: "world export", summary: "write a test world as it is now to a spec file (no credentials)",
			args: "WORLD", about: worldExportAbout, define: defineWorldExport},
		{name: "world import", summary: "make a test world from a spec file, in one transaction",
			args: "FILE", about: worldImportAbout, define: defineWorldImport},
		{name: "invoke", summary: "run a command as a member of a guild, as the chat client does, and print the answer",
			args: "'/COMMAND [SUBCOMMAND] [NAME:VALUE …]'", about: invokeAbout, define: defineInvoke},
		{name: "admin-token", summary: "mint a new admin token, revoking the others (a lost bootstrap.json, a leaked token)",
			about: adminTokenAbout, define: defineAdminToken},
		{name: "test", summary: "run a command (a bot's tests) against a throw-away server with test worlds, then stop it",
			args: "-- COMMAND [ARGS…]", about: testAbout, define: defineTest},
		{name: "version", summary: "print the version and the revision slashd was built from", define: defineVersion},
		{name: "healthcheck", summary: "check that a server answers GET /healthz (exit 0 healthy, 1 not)",
			about:  "For container health checks: the image has no curl.",
			define: defineHealthcheck},
	}
}

// usageError is a command line slashd cannot run (an unknown command or
// flag, a missing verb): it exits 2, as flag parsing errors
// conventionally do.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// interrupted is the cause of a command's context once a signal
// (Ctrl-C, SIGTERM) asked the command to stop. It is a context.Canceled.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted" }

func (e *interrupted) Is(target error) bool { return target == context.Canceled }

// exitCode is 128 and the signal's number, as a shell reports a process
// the signal ended (130 for Ctrl-C).
func (e *interrupted) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// interruptedOr is err, the error of a command whose context is ctx,
// marked as interrupted when a signal stopped the command (its exit
// status then follows the signal). An error that does not say so
// already (as one from a request the signal cut short) is told so.
func interruptedOr(ctx context.Context, err error) error {
	var sig *interrupted
	if err == nil || !errors.As(context.Cause(ctx), &sig) {
		return err
	}
	if errors.As(err, new(*interrupted)) {
		return err
	}
	return &interruptedError{err: err, sig: sig}
}

// interruptedError is a command's error once a signal stopped it.
type interruptedError struct {
	err error
	sig *interrupted
}

func (e *interruptedError) Error() string   { return e.err.Error() + " (interrupted)" }
func (e *interruptedError) Unwrap() []error { return []error{e.err, e.sig} }

// exitCode is the process's exit status after err: 0 without error, 2
// for a usage error, 128 and the signal's number for a command a signal
// stopped, 1 for anything else.
func exitCode(err error) int {
	var ue *usageError
	var sig *interrupted
	var status *exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &status):
		return status.code
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &sig):
		return sig.exitCode()
	}
	return 1
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// run dispatches a command line; getenv supplies the environment. Help
// goes to stdout; a command line that cannot run prints what can to
// stderr and returns a usage error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmds := commands()
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage(cmds))
		return usageErrorf("no command given")
	}
	if args[0] == "help" || isHelp(args[0]) {
		return runHelp(cmds, args[1:], getenv, stdout, stderr)
	}
	cmd, rest, err := findCommand(cmds, args, stdout, stderr)
	if cmd == nil {
		return err
	}
	fs := newFlagSet(cmd.name, getenv)
	fs.takesArgs = cmd.args != ""
	runCmd := cmd.define(fs)
	switch err := fs.parse(rest); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, commandHelp(*cmd, fs))
		return nil
	case err != nil:
		return err
	}
	return runCmd(ctx, stdout)
}

// findCommand finds the command args name and returns it with its
// arguments. When there is none it prints what there is (to stdout when
// that was asked for with --help, to stderr otherwise) and returns a nil
// command with the error to return, nil after help.
func findCommand(cmds []cliCommand, args []string, stdout, stderr io.Writer) (*cliCommand, []string, error) {
	for i := range cmds {
		if cmds[i].name == args[0] {
			return &cmds[i], args[1:], nil
		}
	}
	group := args[0]
	verbs := groupVerbs(cmds, group)
	if len(verbs) == 0 {
		fmt.Fprint(stderr, mainUsage(cmds))
		return nil, nil, usageErrorf("unknown command %q%s", group, commandSuggestion(cmds, group))
	}
	switch {
	case len(args) > 1 && isHelp(args[1]):
		fmt.Fprint(stdout, groupUsage(group, verbs))
		return nil, nil, nil
	case len(args) == 1 || strings.HasPrefix(args[1], "-"):
		fmt.Fprint(stderr, groupUsage(group, verbs))
		return nil, nil, usageErrorf("%s: missing verb (one of %s)", group, verbNames(group, verbs))
	}
	for _, c := range verbs {
		if c.name == group+" "+args[1] {
			return c, args[2:], nil
		}
	}
	fmt.Fprint(stderr, groupUsage(group, verbs))
	return nil, nil, usageErrorf("%s: unknown verb %q (one of %s)%s", group, args[1], verbNames(group, verbs),
		didYouMean(args[1], strings.Split(verbNames(group, verbs), ", "), quoted))
}

// commandSuggestion is the "did you mean" of an unknown command: the
// commands and groups it is a typo of or, when it is a verb without
// its group (slashd create), the commands with that verb.
func commandSuggestion(cmds []cliCommand, typed string) string {
	var names, withVerb []string
	for _, c := range cmds {
		first, verb, _ := strings.Cut(c.name, " ")
		if !slices.Contains(names, first) {
			names = append(names, first)
		}
		if verb == typed {
			withVerb = append(withVerb, c.name)
		}
	}
	if len(withVerb) > 0 {
		return meanList(withVerb, quoted)
	}
	return didYouMean(typed, append(names, "help"), quoted)
}

// runHelp is `slashd help [COMMAND …]`.
func runHelp(cmds []cliCommand, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, mainUsage(cmds))
		return nil
	}
	name := strings.Join(args, " ")
	for _, c := range cmds {
		if c.name == name {
			fs := newFlagSet(c.name, getenv)
			c.define(fs)
			fmt.Fprint(stdout, commandHelp(c, fs))
			return nil
		}
	}
	if verbs := groupVerbs(cmds, name); len(verbs) > 0 {
		fmt.Fprint(stdout, groupUsage(name, verbs))
		return nil
	}
	fmt.Fprint(stderr, mainUsage(cmds))
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
		if group, _, ok := strings.Cut(c.name, " "); ok && !slices.Contains(names, group) {
			names = append(names, group)
		}
	}
	return usageErrorf("help: unknown command %q%s", name, didYouMean(name, names, quoted))
}

// groupVerbs are the commands named "group …".
func groupVerbs(cmds []cliCommand, group string) []*cliCommand {
	var out []*cliCommand
	for i := range cmds {
		if strings.HasPrefix(cmds[i].name, group+" ") {
			out = append(out, &cmds[i])
		}
	}
	return out
}

func verbNames(group string, verbs []*cliCommand) string {
	names := make([]string, len(verbs))
	for i, c := range verbs {
		names[i] = strings.TrimPrefix(c.name, group+" ")
	}
	return strings.Join(names, ", ")
}

// mainUsage is the command list.
func mainUsage(cmds []cliCommand) string {
	var b strings.Builder
	b.WriteString("slashd: a self-hosted, wire-compatible application-commands service.\n\n")
	b.WriteString("usage: slashd COMMAND [flags]\n\ncommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(&b, "  %-16s %s\n", "help [COMMAND]", "this list, or a command's flags")
	b.WriteString("\nRun 'slashd COMMAND --help' for a command's flags, their environment variables and defaults.\n")
	return b.String()
}

// groupUsage lists a group's verbs.
func groupUsage(group string, verbs []*cliCommand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: slashd %s VERB [flags]\n\nverbs:\n", group)
	for _, c := range verbs {
		fmt.Fprintf(&b, "  %-10s %s\n", strings.TrimPrefix(c.name, group+" "), c.summary)
	}
	fmt.Fprintf(&b, "\nRun 'slashd %s VERB --help' for a verb's flags.\n", group)
	return b.String()
}

// commandHelp is a command's --help: every flag, with its environment
// variable and default.
func commandHelp(c cliCommand, fs *flagSet) string {
	var b strings.Builder
	args := ""
	if c.args != "" {
		args = " " + c.args
	}
	fmt.Fprintf(&b, "usage: slashd %s [flags]%s\n\n%s.\n", c.name, args, upperFirst(c.summary))
	if c.about != "" {
		fmt.Fprintf(&b, "%s\n", c.about)
	}
	for i, sec := range fs.helpSections() {
		heading := "flags"
		if sec.heading != "" {
			heading = sec.heading
		}
		fmt.Fprintf(&b, "\n%s:\n", heading)
		for _, f := range sec.flags {
			writeFlagHelp(&b, f)
		}
		if i == 0 {
			b.WriteString("  -h, --help\n      this help\n")
		}
	}
	if fs.hasEnv() {
		b.WriteString("\nA flag given on the command line wins over its environment variable.\n")
	}
	return b.String()
}

// writeFlagHelp writes a flag's entry in a command's help: its name and
// argument, what it does, its environment variable and default.
func writeFlagHelp(b *strings.Builder, f *flag.Flag) {
	name, usage := flag.UnquoteUsage(f)
	arg := " " + name
	if isBoolFlag(f.Value) {
		arg = ""
	} else if !strings.Contains(f.Usage, "`") {
		arg = " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
	}
	fmt.Fprintf(b, "  --%s%s\n      %s\n", f.Name, arg, usage)
	var notes []string
	if ev, ok := f.Value.(envValue); ok {
		notes = append(notes, "environment "+ev.env)
	}
	if f.DefValue != "" && !(isBoolFlag(f.Value) && f.DefValue == "false") {
		notes = append(notes, "default "+f.DefValue)
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "      (%s)\n", strings.Join(notes, "; "))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// flagSet is a command's flags. Flags registered with its env* methods
// take their default from an environment variable (SLASHD_ and the
// flag's name in upper snake case), which --help shows.
type flagSet struct {
	*flag.FlagSet
	getenv  func(string) string
	envErrs map[string]error // flag name → its environment variable's bad value
	// takesArgs lets the command line hold arguments among the flags;
	// parse gathers them into args.
	takesArgs bool
	args      []string
	// sectionOf is the help section of each flag registered before the
	// current section began (see section); heading is the current one.
	sectionOf map[string]string
	headings  []string
}

func newFlagSet(name string, getenv func(string) string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Errors and help are printed by run, in its own format.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, getenv: getenv, envErrs: map[string]error{}, sectionOf: map[string]string{}}
}

// section starts a section of the help: the flags registered from now
// on, until the next section, are listed under heading. Flags
// registered before any section come first, under "flags".
func (fs *flagSet) section(heading string) {
	fs.closeSection()
	fs.headings = append(fs.headings, heading)
}

// closeSection files the flags registered since the last section under
// it.
func (fs *flagSet) closeSection() {
	current := ""
	if len(fs.headings) > 0 {
		current = fs.headings[len(fs.headings)-1]
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := fs.sectionOf[f.Name]; !ok {
			fs.sectionOf[f.Name] = current
		}
	})
}

// helpSection is a heading of a command's help ("" for the flags
// before any section) and its flags, by name.
type helpSection struct {
	heading string
	flags   []*flag.Flag
}

// helpSections are the help's sections in the order they began, those
// with flags (the first lists --help too).
func (fs *flagSet) helpSections() []helpSection {
	fs.closeSection()
	secs := []helpSection{{heading: ""}}
	for _, h := range fs.headings {
		secs = append(secs, helpSection{heading: h})
	}
	fs.VisitAll(func(f *flag.Flag) {
		for i := range secs {
			if secs[i].heading == fs.sectionOf[f.Name] {
				secs[i].flags = append(secs[i].flags, f)
				return
			}
		}
	})
	var out []helpSection
	for _, sec := range secs {
		if len(sec.flags) > 0 {
			out = append(out, sec)
		}
	}
	if len(out) == 0 {
		out = secs[:1]
	}
	return out
}

// envValue is the flag.Value of a flag backed by an environment variable.
type envValue struct {
	flag.Value
	env string
}

// IsBoolFlag keeps `--flag` without a value working for boolean flags.
func (v envValue) IsBoolFlag() bool { return isBoolFlag(v.Value) }

func isBoolFlag(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// envName is the environment variable of the flag name.
func envName(name string) string {
	return "SLASHD_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// bindEnv makes the flag name read its environment variable: the
// variable's value replaces the default (the default --help shows stays
// the built-in one).
func (fs *flagSet) bindEnv(name string) {
	f := fs.Lookup(name)
	env := envName(name)
	f.Value = envValue{Value: f.Value, env: env}
	if v := fs.getenv(env); v != "" {
		if err := f.Value.Set(v); err != nil {
			fs.envErrs[name] = fmt.Errorf("%s=%q: %w", env, v, err)
		}
	}
}

func (fs *flagSet) envString(p *string, name, def, usage string) {
	fs.StringVar(p, name, def, usage)
	fs.bindEnv(name)
}

func (fs *flagSet) envBool(p *bool, name string, def bool, usage string) {
	fs.BoolVar(p, name, def, usage)
	fs.bindEnv(name)
}

func (fs *flagSet) envInt(p *int, name string, def int, usage string) {
	fs.IntVar(p, name, def, usage)
	fs.bindEnv(name)
}

func (fs *flagSet) envDuration(p *time.Duration, name string, def time.Duration, usage string) {
	fs.DurationVar(p, name, def, usage)
	fs.bindEnv(name)
}

func (fs *flagSet) envText(p encoding.TextUnmarshaler, name string, def encoding.TextMarshaler, usage string) {
	fs.TextVar(p, name, def, usage)
	fs.bindEnv(name)
}

// hasEnv reports whether a flag reads the environment.
func (fs *flagSet) hasEnv() bool {
	found := false
	fs.VisitAll(func(f *flag.Flag) {
		_, ok := f.Value.(envValue)
		found = found || ok
	})
	return found
}

// commandArgs are the arguments among the flags (see takesArgs).
func (fs *flagSet) commandArgs() []string { return fs.args }

// flagSuggestion is the "did you mean" of an unknown flag's parse
// error ("" for any other error).
func (fs *flagSet) flagSuggestion(err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return didYouMean(name, names, func(s string) string { return "--" + s })
}

// isSet reports whether the flag name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parse parses args. It returns flag.ErrHelp for -h or --help, and a
// usage error for an unknown or malformed flag, a stray argument, or a
// bad environment value of a flag the command line leaves unset.
func (fs *flagSet) parse(args []string) error {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageErrorf("%s: %v%s (see slashd %s --help)", fs.Name(), err, fs.flagSuggestion(err), fs.Name())
		}
		if fs.NArg() == 0 {
			break
		}
		if !fs.takesArgs {
			return usageErrorf("%s: unexpected argument %q (see slashd %s --help)", fs.Name(), fs.Arg(0), fs.Name())
		}
		// An argument: flags may follow it (after "--", only
		// arguments do).
		rest := fs.Args()
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			fs.args = append(fs.args, rest...)
			break
		}
		fs.args = append(fs.args, rest[0])
		args = rest[1:]
	}
	names := make([]string, 0, len(fs.envErrs))
	for name := range fs.envErrs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !fs.isSet(name) {
			return usageErrorf("%s: %v", fs.Name(), fs.envErrs[name])
		}
	}
	return nil
}

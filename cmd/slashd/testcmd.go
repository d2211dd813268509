package main

// slashd test: a throw-away server for one run of a bot's tests. It
// starts slashd in this process on a free loopback port with a store in a
// temporary directory, applies the world files, runs the command with the
// server's address and credentials in its environment, prints what the
// bots got wrong (the worlds' journals), stops the server and exits with
// the command's status.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/journal"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

const testAbout = `It starts a slashd server in this process on a free loopback port, with its store
in a new temporary directory, applies every --world file (as serve --world does),
and runs COMMAND once the server is ready. COMMAND's environment gets:

  SLASHD_URL           the server's base URL (http://127.0.0.1:PORT)
  SLASHD_ADMIN_TOKEN   its admin token (Authorization: Admin …)
  SLASHD_WORLDS        a JSON file: each world, by name, with its ids and credentials
                       (what GET /admin/v1/worlds/{world} answers)
  SLASHD_BOT_TOKEN, SLASHD_APPLICATION_ID, SLASHD_PUBLIC_KEY
                       when there is exactly one application (without --world: the
                       demo application, of the test world "demo" a first start makes)
  SLASHD_DATA          the temporary data directory (its bootstrap.json)

When COMMAND ends, it prints to stderr what the bots got wrong, from the worlds'
journals: refused REST calls, failed interactions, refused answers. Then it stops
the server, deletes the directory (--keep keeps it) and exits with COMMAND's status;
with --strict, a command that passed exits 1 when the bots had failures. The
server's log goes to slashd.log in the data directory (--log FILE: there instead).

  slashd test --world testdata/world.json -- go test ./...
  slashd test --world world.yaml --strict -- npm test`

// testOptions are test's flags.
type testOptions struct {
	worlds  stringList
	strict  bool
	keep    bool
	logPath string
	ready   time.Duration
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// defineTest is `slashd test`.
func defineTest(fs *flagSet) runFunc {
	o := &testOptions{}
	fs.Var(&o.worlds, "world", "a world spec `FILE` (JSON or YAML) to apply before COMMAND runs (repeatable)")
	fs.BoolVar(&o.strict, "strict", false, "exit 1 when the bots had failures, even if COMMAND passed")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary data directory (its store and log) and print where it is")
	fs.StringVar(&o.logPath, "log", "", "write the server's log to `FILE` (default: slashd.log in the data directory)")
	fs.DurationVar(&o.ready, "ready-timeout", 60*time.Second, "how long to wait for the server to be ready (a `DURATION`)")
	return func(ctx context.Context, out io.Writer) error {
		args := fs.commandArgs()
		if len(args) == 0 {
			return usageErrorf("test: no command given: slashd test [--world FILE]... -- COMMAND [ARGS…]")
		}
		return runTest(ctx, o, args, out, os.Stderr)
	}
}

// exitStatus is the error of a command that succeeded in running
// something else that failed: slashd exits with that status.
type exitStatus struct {
	code int
	why  string
}

func (e *exitStatus) Error() string { return e.why }

// runTest is slashd test once its flags are read.
func runTest(ctx context.Context, o *testOptions, argv []string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "slashd-test-")
	if err != nil {
		return fmt.Errorf("test: temporary data directory: %w", err)
	}
	if o.keep {
		defer fmt.Fprintf(stderr, "slashd test: kept the data directory %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	logPath := o.logPath
	if logPath == "" {
		logPath = filepath.Join(dir, "slashd.log")
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("test: --log: %w", err)
	}
	defer logFile.Close()

	srv, err := startTestServer(ctx, o, dir, logFile)
	if err != nil {
		return fmt.Errorf("%w (the server's log: %s)", err, logPath)
	}
	defer srv.stop()

	env, worlds, err := srv.environment(ctx)
	if err != nil {
		return err
	}
	status, runErr := runCommand(ctx, argv, env, stdout, stderr)
	// The journal is read once the server stopped: every request the
	// command made has then ended and been recorded, and the journal's
	// queue was written out.
	srv.stop()
	failures := readFailures(context.WithoutCancel(ctx), dir, worlds)
	printFailures(stderr, failures)
	if runErr != nil {
		return runErr
	}
	switch {
	case status != 0:
		return &exitStatus{code: status, why: fmt.Sprintf("test: %s exited with status %d", argv[0], status)}
	case o.strict && len(failures) > 0:
		return fmt.Errorf("test: --strict: the bots had %d failures", len(failures))
	}
	return nil
}

// testServer is the server of one slashd test run.
type testServer struct {
	dir     string
	baseURL string
	cancel  context.CancelFunc
	done    chan struct{} // closed when serve returned, with err set
	err     error
	client  *http.Client
	admin   string
}

// startTestServer starts serve in this process and waits until
// /healthz says it is ready (every world applied) or serve fails.
func startTestServer(ctx context.Context, o *testOptions, dir string, log io.Writer) (*testServer, error) {
	args := []string{"--addr", "127.0.0.1:0", "--data", dir}
	for _, w := range o.worlds {
		args = append(args, "--world", w)
	}
	// The environment does not configure the throw-away server: a
	// SLASHD_STORE meant for production must not receive test worlds.
	cfg, err := parseServeFlags(args, func(string) string { return "" })
	if err != nil {
		return nil, usageErrorf("test: %v", err)
	}
	// The test's worlds are its own: no demo beside them (whose world
	// would take the name "demo" and a place in SLASHD_WORLDS). Without
	// --world, the demo world is the one world.
	cfg.noDemo = len(o.worlds) > 0
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &testServer{dir: dir, cancel: cancel, done: make(chan struct{}), client: &http.Client{Timeout: 30 * time.Second}}
	addrc := make(chan string, 1)
	go func() {
		defer close(s.done)
		s.err = serve(serveCtx, cfg, log, func(addr string) { addrc <- addr })
	}()
	select {
	case addr := <-addrc:
		s.baseURL = baseURLOf(addr)
	case <-s.done:
		cancel()
		return nil, fmt.Errorf("test: the server did not start: %w", s.err)
	case <-ctx.Done():
		s.stop()
		return nil, context.Cause(ctx)
	}
	if err := s.waitReady(ctx, o.ready); err != nil {
		s.stop()
		return nil, err
	}
	// With --world the first start made no demo: bootstrap.json holds
	// the admin token alone.
	raw, err := os.ReadFile(filepath.Join(dir, bootstrap.FileName))
	var creds bootstrap.Credentials
	if err == nil {
		err = json.Unmarshal(raw, &creds)
	}
	if err == nil && creds.AdminToken == "" {
		err = errors.New("no admin_token in it")
	}
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("test: the server's %s: %w", bootstrap.FileName, err)
	}
	s.admin = creds.AdminToken
	return s, nil
}

// waitReady polls /healthz until it answers 200: the server applies its
// worlds after it listens, and says ready only once they are all there.
func (s *testServer) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		if s.healthy(ctx) {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("test: the server stopped before it was ready: %w", s.err)
		case <-deadline.C:
			return fmt.Errorf("test: the server was not ready within %s (--ready-timeout)", limit)
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(pause):
		}
	}
}

func (s *testServer) healthy(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.baseURL+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends the server and waits for it to finish.
func (s *testServer) stop() {
	s.cancel()
	<-s.done
}

// adminGet reads an admin API path into v.
func (s *testServer) adminGet(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.baseURL+"/admin/v1"+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Admin "+s.admin)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET /admin/v1%s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("GET /admin/v1%s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /admin/v1%s: %s: %s", path, resp.Status, bytes.TrimSpace(body))
	}
	return json.Unmarshal(body, v)
}

// testWorld is what the environment needs of a world object.
type testWorld struct {
	ID   string                     `json:"id"`
	Name string                     `json:"name"`
	Apps map[string]testWorldApp    `json:"apps"`
	Raw  map[string]json.RawMessage `json:"-"`
}

type testWorldApp struct {
	ID        string `json:"id"`
	BotToken  string `json:"bot_token"`
	PublicKey string `json:"public_key"`
}

// environment is COMMAND's environment: this process's, the server's
// address and credentials, and the worlds file.
func (s *testServer) environment(ctx context.Context) ([]string, []testWorld, error) {
	var raw []json.RawMessage
	if err := s.adminGet(ctx, "/worlds", &raw); err != nil {
		return nil, nil, fmt.Errorf("test: list the worlds: %w", err)
	}
	byName := map[string]json.RawMessage{}
	worlds := make([]testWorld, 0, len(raw))
	for _, r := range raw {
		var w testWorld
		if err := json.Unmarshal(r, &w); err != nil {
			return nil, nil, fmt.Errorf("test: a world object: %w", err)
		}
		byName[w.Name] = r
		worlds = append(worlds, w)
	}
	file := filepath.Join(s.dir, "worlds.json")
	data, err := json.MarshalIndent(byName, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(file, append(data, '\n'), 0o600); err != nil {
		return nil, nil, fmt.Errorf("test: write %s: %w", file, err)
	}
	env := append(os.Environ(),
		"SLASHD_URL="+s.baseURL, "SLASHD_ADMIN_TOKEN="+s.admin, "SLASHD_WORLDS="+file, "SLASHD_DATA="+s.dir)
	app, ok := onlyApp(worlds)
	if !ok && len(worlds) == 0 {
		creds, err := readBootstrap(s.dir)
		if err != nil {
			return nil, nil, fmt.Errorf("test: %w", err)
		}
		app, ok = testWorldApp{ID: creds.ApplicationID, BotToken: creds.BotToken, PublicKey: creds.PublicKey}, true
	}
	if ok {
		env = append(env, "SLASHD_BOT_TOKEN="+app.BotToken, "SLASHD_APPLICATION_ID="+app.ID, "SLASHD_PUBLIC_KEY="+app.PublicKey)
	}
	return env, worlds, nil
}

// onlyApp is the one application of the worlds, if there is exactly one.
func onlyApp(worlds []testWorld) (testWorldApp, bool) {
	var found []testWorldApp
	for _, w := range worlds {
		for _, a := range w.Apps {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		return testWorldApp{}, false
	}
	return found[0], true
}

// runCommand runs argv with env, its standard streams this process's
// (stdout: out), and returns its exit status. A signal that stops slashd
// is passed on to the command, which gets 10 s to finish.
func runCommand(ctx context.Context, argv, env []string, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && ctx.Err() == nil:
		if code := exit.ExitCode(); code >= 0 {
			return code, nil
		}
		return 128 + signalOf(exit), nil
	case errors.Is(err, exec.ErrNotFound):
		return 0, &exitStatus{code: 127, why: fmt.Sprintf("test: %s: command not found", argv[0])}
	}
	return 0, fmt.Errorf("test: run %s: %w", argv[0], err)
}

// signalOf is the number of the signal that ended a process.
func signalOf(exit *exec.ExitError) int {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 1
}

// failure is one thing a bot got wrong, from a world's journal.
type failure struct {
	World string
	Text  string
}

// readFailures reads what the bots got wrong in every world, from the
// journals in the stopped server's store.
func readFailures(ctx context.Context, dir string, worlds []testWorld) []failure {
	if len(worlds) == 0 {
		return nil
	}
	st, err := openStore(ctx, "", dir, secrets.Config{}, nil)
	if err != nil {
		return []failure{{Text: "could not read the journals: " + err.Error()}}
	}
	defer st.Close()
	var all []failure
	for _, w := range worlds {
		id, err := snowflake.Parse(w.ID)
		if err != nil {
			continue
		}
		var after int64
		for {
			page, err := st.JournalEntries(ctx, store.JournalQuery{WorldID: id, After: after, Limit: 1000})
			if err != nil {
				all = append(all, failure{World: w.Name, Text: "could not read the journal: " + err.Error()})
				break
			}
			for _, e := range page {
				after = e.Seq
				if journal.IsFailure(e) {
					all = append(all, failure{World: w.Name, Text: describeFailure(journal.AppendJSON(nil, e))})
				}
			}
			if len(page) < 1000 {
				break
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].World < all[j].World })
	return all
}

// describeFailure is one line for a failure of the journal
// (docs/journal.md): a refused REST call with its error, a 429, a failed
// interaction with its reason, lost entries.
func describeFailure(raw json.RawMessage) string {
	var e struct {
		Type       string          `json:"type"`
		Method     string          `json:"method"`
		Route      string          `json:"route"`
		Status     int             `json:"status"`
		Error      json.RawMessage `json:"error"`
		RetryAfter float64         `json:"retry_after"`
		Outcome    string          `json:"outcome"`
		Reason     string          `json:"reason"`
		Command    string          `json:"interaction_id"`
		Count      int             `json:"count"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return string(raw)
	}
	switch e.Type {
	case "rest.request":
		line := fmt.Sprintf("%s → %d", e.Route, e.Status)
		if len(e.Error) > 0 {
			line += " " + clipLine(string(e.Error), 300)
		}
		return line
	case "rate_limit.hit":
		// The route pattern names its method ("POST /api/v10/…").
		route := e.Route
		if !strings.HasPrefix(route, e.Method+" ") {
			route = strings.TrimSpace(e.Method + " " + route)
		}
		return fmt.Sprintf("%s → 429 (retry after %gs)", route, e.RetryAfter)
	case "interaction.failed":
		return fmt.Sprintf("interaction %s failed: %s (%s)", e.Command, e.Outcome, e.Reason)
	case "journal.dropped":
		return fmt.Sprintf("%d journal entries were lost (the journal was busy)", e.Count)
	}
	return clipLine(string(raw), 300)
}

// clipLine is s on one line, at most n bytes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// printFailures is the summary after the command.
func printFailures(w io.Writer, fs []failure) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "slashd test: the bots had no failures")
		return
	}
	fmt.Fprintf(w, "slashd test: the bots had %d failures:\n", len(fs))
	const shown = 50
	for i, f := range fs {
		if i == shown {
			fmt.Fprintf(w, "  … and %d more (GET /admin/v1/worlds/{world}/events?type=failures)\n", len(fs)-shown)
			break
		}
		fmt.Fprintf(w, "  [%s] %s\n", f.World, f.Text)
	}
}

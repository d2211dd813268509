package main

// Tests of the built binary: exit statuses as a shell sees them, the
// linker's version stamp, and the binary the Dockerfile builds doing
// what the container asks of it.

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/buildinfo"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// TestMain builds the binaries the tests run before any test starts, so
// that no test's deadline (nor go test's -timeout) includes compiling:
// with empty caches on a loaded machine a build has taken minutes. A
// build that fails fails the tests that need its binary.
func TestMain(m *testing.M) {
	_ = gobuild.BuildAll(&testBinary, &exampleBot, &staticBinary)
	code := m.Run()
	for _, b := range []*gobuild.Binary{&testBinary, &exampleBot, &staticBinary} {
		b.Remove()
	}
	os.Exit(code)
}

// testStamp is what the tests' binary is stamped with, the way
// tools/release and the Dockerfile stamp theirs.
var testStamp = buildinfo.Info{Version: "v0.0.0-clitest", Revision: "0123456789abcdef0123456789abcdef01234567",
	Time: "2026-01-02T03:04:05Z", Modified: true}

var (
	// testBinary is cmd/slashd stamped with testStamp, built like the
	// test binary (which has compiled all it needs).
	testBinary = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd", LDFlags: testStampFlags()}
	// staticBinary is cmd/slashd built as the Dockerfile builds it
	// (CGO_ENABLED=0, a static binary).
	staticBinary = gobuild.Binary{Pkg: testBinary.Pkg, LDFlags: testBinary.LDFlags, Static: true}
)

func testStampFlags() string {
	return fmt.Sprintf("-X main.version=%s -X main.revision=%s -X main.revisionTime=%s -X main.modified=%t",
		testStamp.Version, testStamp.Revision, testStamp.Time, testStamp.Modified)
}

// slashdBinary is the path of testBinary.
func slashdBinary(t *testing.T) string {
	t.Helper()
	return testBinary.Path(t)
}

// runBinary runs the binary to its end and returns its outputs and exit
// status.
func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := slashdBinary(t) // built by TestMain, outside the run's minute
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(cleanEnv(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run slashd %q: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// cleanEnv is the test's environment without SLASHD_ variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLASHD_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestBinaryExitStatus: what a shell sees. Help exits 0 on stdout, a
// command line that cannot run exits 2 with what can on stderr, a
// failure exits 1.
func TestBinaryExitStatus(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string // substrings; "" checks the stream is empty
	}{
		{[]string{"--help"}, 0, "\n  serve ", ""},
		{[]string{"-h"}, 0, "\n  app create ", ""},
		{[]string{"help"}, 0, "\n  healthcheck ", ""},
		{[]string{"help", "member", "add"}, 0, "usage: slashd member add [flags]", ""},
		{nil, 2, "", "slashd: no command given"},
		{[]string{"frobnicate"}, 2, "", "\n  serve "},
		{[]string{"app"}, 2, "", "verbs:\n  create "},
		{[]string{"app", "--help"}, 0, "verbs:\n  create ", ""},
		{[]string{"guild", "list"}, 2, "", `slashd: guild: unknown verb "list" (one of create)`},
		{[]string{"serve", "--nope"}, 2, "", "slashd: serve: flag provided but not defined: -nope (see slashd serve --help)"},
		{[]string{"serve", "-h"}, 0, "environment SLASHD_ADDR; default 127.0.0.1:8080", ""},
		{[]string{"app", "create", "--help"}, 0, "  --init\n", ""},
		{[]string{"app", "create", "--name", "ab", "--data", empty}, 1, "", "slashd: no slashd store in " + empty},
		{[]string{"app", "create", "--name", "x", "--data", empty}, 1, "", "slashd: app create: --name: Must be between 2 and 32 in length. (BASE_TYPE_BAD_LENGTH)"},
		{[]string{"version"}, 0, "slashd v0.0.0-clitest\n", ""},
		{[]string{"healthcheck", "--addr", "127.0.0.1:1"}, 1, "", "slashd: healthcheck: http://127.0.0.1:1/healthz: "},
	}
	for _, tc := range cases {
		stdout, stderr, code := runBinary(t, nil, tc.args...)
		if code != tc.code {
			t.Errorf("slashd %q: exit %d, want %d (stdout %q, stderr %q)", tc.args, code, tc.code, stdout, stderr)
		}
		for _, s := range []struct{ name, got, want string }{{"stdout", stdout, tc.stdout}, {"stderr", stderr, tc.stderr}} {
			if (s.want == "" && s.got != "") || !strings.Contains(s.got, s.want) {
				t.Errorf("slashd %q: %s %q, want %q", tc.args, s.name, s.got, s.want)
			}
		}
	}
	// Every command's help exits 0 from the binary too.
	for _, c := range commands() {
		args := append(strings.Fields(c.name), "--help")
		if stdout, stderr, code := runBinary(t, nil, args...); code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: slashd "+c.name) {
			t.Errorf("slashd %q: exit %d, stdout %.60q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestBinaryVersionStamp: the linker's stamp (as tools/release and the
// Dockerfile set it) is what version prints.
func TestBinaryVersionStamp(t *testing.T) {
	t.Parallel()
	stdout, _, code := runBinary(t, nil, "version")
	want := fmt.Sprintf("slashd %s\n  built with %s for %s/%s\n  revision %s with uncommitted changes (%s)\n",
		testStamp.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, testStamp.Revision, testStamp.Time)
	if code != 0 || stdout != want {
		t.Errorf("version: exit %d\n%q\nwant\n%q", code, stdout, want)
	}
	stdout, _, _ = runBinary(t, nil, "version", "--json")
	var got buildinfo.Info
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Version != testStamp.Version ||
		got.Revision != testStamp.Revision || got.Time != testStamp.Time || !got.Modified {
		t.Errorf("version --json: %s (%v)", stdout, err)
	}
}

// TestBinaryIsStatic: the binary built like the Dockerfile's needs no
// libc or loader, so it runs on distroless/static or scratch.
func TestBinaryIsStatic(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("an ELF check")
	}
	f, err := elf.Open(staticBinary.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is not static", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v", libs)
	}
}

// TestBinaryInAContainer runs the binary as the Dockerfile's image does:
// `serve` with SLASHD_ADDR=0.0.0.0:PORT and SLASHD_DATA, checked by its
// HEALTHCHECK, `slashd healthcheck` with the same environment, then
// stopped with SIGTERM, as docker stop does.
func TestBinaryInAContainer(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil { // the image makes its /data
		t.Fatal(err)
	}
	var (
		cmd  *exec.Cmd
		out  *syncBuffer
		done chan error
		env  []string
		port string
	)
	// A port free a moment ago may be taken before serve listens: try
	// another.
	for attempt := 0; ; attempt++ {
		port = freePort(t)
		env = []string{"SLASHD_ADDR=0.0.0.0:" + port, "SLASHD_DATA=" + dir}
		cmd = exec.Command(slashdBinary(t), "serve")
		cmd.Env = append(cleanEnv(), env...)
		out = &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done = make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if waitHealthy(t, env, done) {
			break
		}
		if attempt == 4 || !strings.Contains(out.String(), "address already in use") {
			t.Fatalf("serve never became healthy:\n%s", out.String())
		}
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			<-done
		}
	})

	// The first thing serve says is that it starts.
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.Contains(first, `msg="slashd starting" version=v0.0.0-clitest`) {
		t.Errorf("first line %q, want the start line with the version", first)
	}
	stdout, stderr, code := runBinary(t, env, "healthcheck")
	if want := "ok: http://127.0.0.1:" + port + "/healthz (slashd v0.0.0-clitest)\n"; code != 0 || stdout != want {
		t.Errorf("healthcheck: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	var health map[string]any
	status, body := call(t, "GET", "http://127.0.0.1:"+port+"/healthz", "", "")
	if err := json.Unmarshal(body, &health); status != http.StatusOK || err != nil || health["status"] != "ok" ||
		health["version"] != testStamp.Version || health["revision"] != testStamp.Revision ||
		health["time"] != testStamp.Time || health["modified"] != true {
		t.Errorf("healthz: %d %s", status, body)
	}
	if ip := nonLoopbackIPv4(t); ip != "" {
		if status, body := call(t, "GET", "http://"+net.JoinHostPort(ip, port)+"/healthz", "", ""); status != http.StatusOK {
			t.Errorf("from %s: %d %s", ip, status, body)
		}
	}
	if got := readCredentials(t, filepath.Join(dir, "bootstrap.json"))["base_url"]; got != "http://127.0.0.1:"+port {
		t.Errorf("base_url %q, want http://127.0.0.1:%s", got, port)
	}
	// docker exec … slashd app create: the CLI on the server's volume.
	stdout, stderr, code = runBinary(t, env, "app", "create", "--name", "in-container", "--json")
	if code != 0 || !strings.Contains(stdout, `"base_url": "http://127.0.0.1:`+port+`"`) {
		t.Errorf("app create: exit %d, %s %s", code, stdout, stderr)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Errorf("serve after SIGTERM: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after SIGTERM")
	}
	// The stop is said, last.
	if log := strings.TrimSpace(out.String()); !strings.Contains(log, `msg="slashd shutting down"`) ||
		!strings.HasSuffix(log, `msg="slashd stopped"`) {
		t.Errorf("the log after SIGTERM does not end with the shutdown lines:\n%s", log)
	}
	if _, stderr, code := runBinary(t, env, "healthcheck", "--timeout", "1s"); code != 1 || !strings.Contains(stderr, "healthcheck: ") {
		t.Errorf("healthcheck of a stopped server: exit %d, stderr %q", code, stderr)
	}
}

// waitHealthy runs `slashd healthcheck` until it succeeds (true) or
// serve exits (false).
func waitHealthy(t *testing.T, env []string, done chan error) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err // for the caller's wait
			return false
		default:
		}
		if _, _, code := runBinary(t, env, "healthcheck", "--timeout", "1s"); code == 0 {
			return true
		}
		time.Sleep(50 * time.Millisecond) // a poll interval, not a wait for an event
	}
	t.Fatal("serve neither became healthy nor exited within a minute")
	return false
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// TestDockerfile: docker cannot run here, so the Dockerfile is read:
// the Go of go.mod, a static build stamped like a release, a non-root
// distroless image listening on every interface, the data directory a
// volume, and a HEALTHCHECK through the healthcheck verb.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(string(gomod))
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	var instructions []string
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(df, "\\\n", " ")))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			instructions = append(instructions, strings.Join(strings.Fields(line), " "))
		}
	}
	has := func(re string) bool {
		for _, in := range instructions {
			if regexp.MustCompile(re).MatchString(in) {
				return true
			}
		}
		return false
	}
	for _, want := range []struct{ what, re string }{
		{"go.mod's Go", `^ARG GO_VERSION=` + regexp.QuoteMeta(goLine[1]) + `$`},
		{"a golang build stage", `^FROM golang:\$\{GO_VERSION\} AS build$`},
		{"a static build", `^ENV CGO_ENABLED=0\b`},
		{"modules from the proxy alone", `^RUN go mod download$`},
		{"the version stamped as tools/release does", `-X main\.version=\$\{VERSION\} -X main\.revision=\$\{REVISION\}`},
		{"cmd/slashd built", `go build .* -o /out/slashd \./cmd/slashd`},
		{"a distroless static final stage", `^FROM gcr\.io/distroless/static\S*:nonroot$`},
		{"a non-root user", `^USER 65532:65532$`},
		{"every interface", `^ENV SLASHD_ADDR=0\.0\.0\.0:8080 SLASHD_DATA=/data$`},
		{"the port", `^EXPOSE 8080$`},
		{"the data directory a volume", `^VOLUME \["/data"\]$`},
		{"the data directory the user's", `^COPY --from=build --chown=65532:65532 /out/data /data$`},
		{"a health check without curl", `^HEALTHCHECK .*CMD \["/slashd", "healthcheck"\]$`},
		{"the binary as entry point", `^ENTRYPOINT \["/slashd"\]$`},
		{"serve by default", `^CMD \["serve"\]$`},
	} {
		if !has(want.re) {
			t.Errorf("Dockerfile: no %s (want an instruction matching %s)", want.what, want.re)
		}
	}
	// The build context leaves out what is not source.
	ignore, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"slashd-data", "dist", "**/node_modules"} {
		if !strings.Contains("\n"+string(ignore)+"\n", "\n"+p+"\n") {
			t.Errorf(".dockerignore lacks %s", p)
		}
	}
}

package readmetest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testtool"
	"github.com/slashd/slashd/internal/testtool/examplebot"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// tools are the programs the README's examples use.
var tools = []string{"bash", "curl", "jq"}

// The README's `go run ./cmd/slashd` and `go run ./examples/bot`, built by
// TestMain before any test (and its deadlines) starts.
var (
	slashdBin = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}
	botBin    = gobuild.Binary{Pkg: examplebot.Package}
)

// TestMain runs the tests where bash, curl and jq are installed (.ci/run
// installs them). Elsewhere it runs none, and `go test` says "[no tests
// to run]" for the package; under CI it fails. A failed build fails the
// tests that run its binary.
func TestMain(m *testing.M) {
	_ = gobuild.BuildAll(&slashdBin, &botBin)
	code := testtool.Main(m, "TestToolsInstalled", findTools, "apt-get install bash curl jq")
	slashdBin.Remove()
	botBin.Remove()
	os.Exit(code)
}

func findTools() error {
	for _, name := range tools {
		if _, err := testtool.LookPath(name); err != nil {
			return err
		}
	}
	return nil
}

// TestToolsInstalled is the check TestMain relies on, made where go
// test's cache sees it.
func TestToolsInstalled(t *testing.T) { testtool.Probe(t, findTools) }

// markedBlocks returns the shell blocks of a Markdown file of the
// repository (README.md, docs/interactions.md) marked for this test, by
// name: the block after each "<!-- README test: NAME -->" line.
func markedBlocks(t *testing.T, file string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile(`^<!-- README test: (.+) -->$`)
	blocks := map[string]string{}
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		m := marker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "```sh" {
			t.Fatalf("%s line %d: the marker %q is not followed by a sh block", file, i+1, m[1])
		}
		var block []string
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		blocks[m[1]] = strings.Join(block, "\n") + "\n"
	}
	return blocks
}

// markedBlock is the block of file marked name; the test fails without it.
func markedBlock(t *testing.T, file, name string) string {
	t.Helper()
	block := markedBlocks(t, file)[name]
	if block == "" {
		t.Fatalf("%s lacks the sh block marked <!-- README test: %s -->", file, name)
	}
	return block
}

// shim makes the blocks' `go run ./examples/bot` and `go run
// ./cmd/slashd` run the binaries this test built from the same sources
// (a go run each time would compile them again); any other go command
// is an error. Errors stop a block.
const shim = `go() {
  case "$1 $2" in
  "run ./examples/bot") shift 2; "$README_BOT" "$@" ;;
  "run ./cmd/slashd") shift 2; "$README_SLASHD" "$@" ;;
  *) echo "the README test runs go run ./examples/bot and ./cmd/slashd only, not: go $*" >&2; return 127 ;;
  esac
}
set -eo pipefail
`

// process is a program the test started, with its output as it comes.
type process struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out strings.Builder
}

// start starts cmd in its own process group and returns once a line of
// its output matches ready, with the line's submatches.
func start(t *testing.T, cmd *exec.Cmd, ready *regexp.Regexp) (*process, []string) {
	t.Helper()
	p := &process{cmd: cmd}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		// The group: a shell and what it started.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		r.Close()
	})
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case m, ok := <-found:
		if !ok {
			t.Fatalf("%s ended before it was ready:\n%s", cmd.Args, p.output())
		}
		return p, m
	case <-time.After(time.Minute):
		t.Fatalf("%s was not ready within a minute:\n%s", cmd.Args, p.output())
		return nil, nil
	}
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// env is the test's environment without SLASHD_ variables, plus add.
func env(add ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLASHD_") {
			out = append(out, kv)
		}
	}
	return append(out, add...)
}

// TestFirstBot runs the README's walkthrough as written: slashd serve
// on its first start (in a fresh directory, as slashd-data there),
// examples/bot started from the README's block, then the README's block
// registering its commands, setting the endpoint and running them with
// slashd invoke, each of which must print what its comment says. Then
// docs/interactions.md's block invokes /echo by hand with curl, on the
// same server and bot, and the README's block setting the endpoint back
// to "" sends /echo to the gateway, where no bot answers it. The only change: the bot listens on a free port
// rather than 8090 (other tests run at once), which the blocks'
// 127.0.0.1:8090 is replaced by.
func TestFirstBot(t *testing.T) {
	botBlock := markedBlock(t, "README.md", "the bot")
	firstBot := markedBlock(t, "README.md", "the first bot")
	byHand := markedBlock(t, "docs/interactions.md", "the interaction by hand")
	slashd, bot := slashdBin.Path(t), botBin.Path(t)
	work := t.TempDir()

	// go run ./cmd/slashd serve, on another port than 8080 for the same
	// reason; the blocks read base_url from bootstrap.json.
	serve := exec.Command(slashd, "serve", "--addr", "127.0.0.1:0", "--ratelimit=false")
	serve.Dir, serve.Env = work, env()
	srv, _ := start(t, serve, regexp.MustCompile(`slashd listening`))

	const readmeAddr = "127.0.0.1:8090"
	if !strings.Contains(botBlock, "-addr "+readmeAddr) || !strings.Contains(firstBot, readmeAddr) {
		t.Fatalf("the blocks do not use the bot address %s:\n%s\n%s", readmeAddr, botBlock, firstBot)
	}
	shellEnv := env("README_BOT="+bot, "README_SLASHD="+slashd)
	runBot := exec.Command("bash", "-c", shim+strings.Replace(botBlock, "-addr "+readmeAddr, "-addr 127.0.0.1:0", 1))
	runBot.Dir, runBot.Env = work, shellEnv
	botProc, m := start(t, runBot, regexp.MustCompile(`bot: receiving interactions on http://(\S+)/interactions`))
	botAddr := m[1]

	// run runs a block in the work directory and returns its stdout.
	run := func(name, block string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		script := exec.CommandContext(ctx, "bash", "-c", shim+strings.ReplaceAll(block, readmeAddr, botAddr))
		script.Dir, script.Env = work, shellEnv
		var stdout, stderr bytes.Buffer
		script.Stdout, script.Stderr = &stdout, &stderr
		if err := script.Run(); err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s\nserver:\n%s\nbot:\n%s", name, err, &stdout, &stderr, srv.output(), botProc.output())
		}
		if stderr.Len() > 0 {
			t.Errorf("%s: stderr: %s", name, &stderr)
		}
		return stdout.String()
	}

	// Each slashd invoke line prints what its comment says.
	out := run("the first bot", firstBot)
	var want []string
	for _, line := range strings.Split(firstBot, "\n") {
		if cmd, comment, ok := strings.Cut(line, "# "); ok && strings.HasPrefix(cmd, "go run ./cmd/slashd invoke ") {
			want = append(want, comment)
		}
	}
	if len(want) == 0 {
		t.Fatal("the first bot's block has no slashd invoke line with the answer in a comment")
	}
	if out != strings.Join(want, "\n")+"\n" {
		t.Errorf("the slashd invoke lines printed\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}

	// The curl invocation's answer, as the comment under it shows it.
	out = run("the interaction by hand", byHand)
	for _, want := range []string{`{"interaction":{"id":"`, `"type":2,"response_message_id":"`, `"resource":{"type":4,"message":{`, `"content":"hi"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the curl invocation printed %s\nwant %s in it", out, want)
		}
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("the block by hand printed more than the answer's line:\n%s", out)
	}

	// The README's way back to the gateway clears the endpoint: the app
	// it prints has none, and the bot no longer answers /echo.
	out = run("back to the gateway", markedBlock(t, "README.md", "back to the gateway"))
	if !strings.Contains(out, `"interactions_endpoint_url":""`) {
		t.Errorf("back to the gateway printed %s\nwant the app with \"interactions_endpoint_url\":\"\"", out)
	}
	invoke := exec.Command(slashd, "invoke", "--wait", "1s", "/echo text:hi")
	invoke.Dir, invoke.Env = work, env()
	if got, err := invoke.CombinedOutput(); err == nil || !strings.Contains(string(got), "The application did not respond") {
		t.Errorf("/echo after the endpoint was cleared: %v\n%s\nwant it unanswered (no bot on the gateway)", err, got)
	}
}

// Package examplebot runs examples/bot as a process for tests that drive
// it from outside (slashd invoke's, the playground's browser tests):
// built once per test binary (internal/testtool/gobuild), started on a
// free port, and found where its start line says it listens.
package examplebot

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// Package is examples/bot's import path. A test package keeps a
// gobuild.Binary of it, built in its TestMain:
//
//	var exampleBot = gobuild.Binary{Pkg: examplebot.Package}
const Package = "github.com/slashd/slashd/examples/bot"

// Process is examples/bot running.
type Process struct {
	Cmd *exec.Cmd
	URL string // where it receives interactions
	mu  sync.Mutex
	log strings.Builder
}

// startLine is the bot's line saying where it listens.
var startLine = regexp.MustCompile(`receiving interactions on (http://\S+),`)

// Start runs the bot on a free loopback port for the app whose API and
// public key env names (SLASHD_URL, SLASHD_PUBLIC_KEY, with the rest of
// the environment the caller wants), and waits up to a minute (a loaded
// machine's ceiling) for its start line. The process is killed when the
// test ends, resumed first if the test stopped it.
func Start(t testing.TB, bin *gobuild.Binary, env []string) *Process {
	t.Helper()
	p := &Process{Cmd: exec.Command(bin.Path(t), "-addr", "127.0.0.1:0")}
	p.Cmd.Env = env
	stderr, err := p.Cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Cmd.Process.Signal(syscall.SIGCONT) // if the test froze it
		_ = p.Cmd.Process.Kill()
		_ = p.Cmd.Wait()
	})
	started := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := startLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case started <- m[1]:
				default:
				}
			}
		}
		close(started)
	}()
	select {
	case url, ok := <-started:
		if !ok {
			t.Fatalf("examples/bot ended before listening:\n%s", p.Log())
		}
		p.URL = url
	case <-time.After(time.Minute):
		t.Fatalf("examples/bot did not say where it listens within a minute:\n%s", p.Log())
	}
	return p
}

// Log is what the bot has written to stderr so far.
func (p *Process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

package browsertest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// botBinary is examples/bot built once per test binary, on first use.
var botBinary struct {
	once      sync.Once
	dir, path string
	err       error
}

func exampleBot(t *testing.T) string {
	t.Helper()
	botBinary.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			botBinary.err = fmt.Errorf("find the go command: %w", err)
			return
		}
		if botBinary.dir, err = os.MkdirTemp("", "slashd-ui-bot-"); err != nil {
			botBinary.err = err
			return
		}
		path := filepath.Join(botBinary.dir, "bot")
		out, err := exec.Command(goBin, "build", "-o", path, "github.com/slashd/slashd/examples/bot").CombinedOutput()
		if err != nil {
			botBinary.err = fmt.Errorf("go build ./examples/bot: %v\n%s", err, out)
			return
		}
		botBinary.path = path
	})
	if botBinary.err != nil {
		t.Fatal(botBinary.err)
	}
	return botBinary.path
}

// startBot runs examples/bot for the demo app and makes it the app's
// Interactions Endpoint URL.
func (w *world) startBot(t *testing.T) {
	t.Helper()
	w.admin(t, "PUT", "/applications/"+w.creds.ApplicationID+"/interactions-endpoint",
		map[string]any{"interactions_endpoint_url": w.runBot(t)}, nil)
}

// runBot runs examples/bot for the demo app on a free port, waits for
// its start line and returns where it receives interactions.
func (w *world) runBot(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(exampleBot(t), "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SLASHD_URL="+w.url, "SLASHD_PUBLIC_KEY="+w.creds.PublicKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "receiving interactions on "); ok {
				u, _, _ = strings.Cut(u, ",")
				select {
				case urls <- strings.TrimSpace(u):
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("examples/bot never said where it listens")
	}
	return ""
}

package killtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to read the store directly

	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// slashd is cmd/slashd, built by TestMain before any test (and its
// deadlines) starts; the nodes run it.
var slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}

func TestMain(m *testing.M) {
	_ = slashd.Build() // a failed build fails the tests that run it
	code := m.Run()
	slashd.Remove()
	os.Exit(code)
}

// slashdBinary is the path of the built cmd/slashd.
func slashdBinary(t testing.TB) string {
	t.Helper()
	return slashd.Path(t)
}

// syncBuffer collects a process's output; it is read while the process
// writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// node is one `slashd serve` process of the cluster, over its
// incarnations (a killed node can be started again).
type node struct {
	index   int
	bin     string
	dataDir string
	args    []string // the serve flags but --addr

	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{} // closed when the current process has exited
	url   string        // http://127.0.0.1:PORT of the current process
	lives []*syncBuffer // the output of each incarnation
}

func newNode(bin string, index int, dataDir string, args ...string) *node {
	return &node{index: index, bin: bin, dataDir: dataDir, args: args}
}

// URL is the current incarnation's base URL.
func (n *node) URL() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.url
}

// freePort returns a port nothing listened on a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs a new incarnation on a fresh port and waits until it answers
// GET /healthz. A port taken between freePort and the listen is retried.
func (n *node) start() error {
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			return err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		out := &syncBuffer{}
		cmd := exec.Command(n.bin, append([]string{"serve", "--addr", addr, "--data", n.dataDir}, n.args...)...)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start node %d: %w", n.index, err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		n.mu.Lock()
		n.cmd, n.done, n.url = cmd, done, "http://"+addr
		n.lives = append(n.lives, out)
		n.mu.Unlock()
		if lastErr = waitHealthy("http://"+addr, done, 30*time.Second); lastErr == nil {
			return nil
		}
		_ = cmd.Process.Kill()
		<-done
		if !strings.Contains(out.String(), "address already in use") {
			break
		}
	}
	return fmt.Errorf("node %d: %w", n.index, lastErr)
}

// kill sends SIGKILL to the current incarnation and waits for it to end.
func (n *node) kill() {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill() // SIGKILL: kill -9
	<-done
}

// logs is the output of every incarnation, for failure reports.
func (n *node) logs() string {
	n.mu.Lock()
	lives := append([]*syncBuffer(nil), n.lives...)
	n.mu.Unlock()
	var b strings.Builder
	for i, out := range lives {
		s := out.String()
		const max = 16 << 10
		if len(s) > max {
			s = "…" + s[len(s)-max:]
		}
		fmt.Fprintf(&b, "--- node %d, incarnation %d ---\n%s\n", n.index, i+1, s)
	}
	return b.String()
}

// waitHealthy polls url/healthz until it answers 200, the process ends
// (done closes) or the timeout passes.
func waitHealthy(url string, done <-chan struct{}, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-done:
			return errors.New("exited before answering /healthz")
		default:
		}
		resp, err := client.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no healthy answer from %s/healthz within %v (last: %v)", url, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runCLI runs a slashd verb to completion and returns its stdout.
func runCLI(bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("slashd %s: %v\n%s", strings.Join(args[:2], " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// credentials are the keys of bootstrap.json the tests use.
type credentials struct {
	ApplicationID    string `json:"application_id"`
	BotToken         string `json:"bot_token"`
	GuildID          string `json:"guild_id"`
	OwnerBearerToken string `json:"owner_bearer_token"`
	AdminToken       string `json:"admin_token"`
}

func readCredentials(dataDir string) (credentials, error) {
	var c credentials
	b, err := os.ReadFile(filepath.Join(dataDir, "bootstrap.json"))
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("bootstrap.json: %w", err)
	}
	if c.ApplicationID == "" || c.BotToken == "" || c.GuildID == "" || c.AdminToken == "" {
		return c, fmt.Errorf("bootstrap.json lacks credentials: %s", b)
	}
	return c, nil
}

// newCluster prepares count nodes (not started) with the serve flags
// args, each with its own data directory (made first when mkdir) and
// snowflake node id; they are killed when t ends, and their output is
// logged if it failed. Call it after pgtest.DSN, so the processes are
// gone before the schema is dropped.
func newCluster(t *testing.T, bin string, count int, mkdir bool, args ...string) []*node {
	t.Helper()
	root := t.TempDir()
	nodes := make([]*node, count)
	for i := range nodes {
		dir := filepath.Join(root, fmt.Sprintf("node%d", i))
		if mkdir {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		nodes[i] = newNode(bin, i, dir, append(slices.Clone(args), "--node-id", strconv.Itoa(10+i))...)
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.kill()
		}
		if t.Failed() || os.Getenv("KILLTEST_LOGS") != "" {
			for _, n := range nodes {
				t.Logf("%s", n.logs())
			}
		}
	})
	return nodes
}

// countApplications reads the store directly.
func countApplications(t *testing.T, dsn string) int {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var apps int
	if err := db.QueryRow(`SELECT count(*) FROM applications`).Scan(&apps); err != nil {
		t.Fatal(err)
	}
	return apps
}

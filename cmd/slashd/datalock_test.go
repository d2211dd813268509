package main

// One server per data directory, with real processes: a second serve
// is refused at once and names the first, the CLI verbs work beside the
// first, and the lock dies with its process.

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
)

// serveProcess is `slashd serve` running as its own process.
type serveProcess struct {
	cmd  *exec.Cmd
	url  string // from its "slashd listening" line
	done chan error
}

// startServeProcess runs the binary's serve on dir at 127.0.0.1:0 and
// waits for the line that says where it listens.
func startServeProcess(t *testing.T, dir string) *serveProcess {
	t.Helper()
	cmd := exec.Command(slashdBinary(t), "serve", "--addr", "127.0.0.1:0", "--data", dir, "--ratelimit=false", "--ui=false")
	cmd.Env = cleanEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, done: make(chan error, 1)}
	listening := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg="slashd listening" url=(\S+)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				listening <- m[1]
			}
		}
		io.Copy(io.Discard, stdout)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() { p.kill() })
	select {
	case p.url = <-listening:
	case err := <-p.done:
		p.done <- err
		t.Fatalf("serve exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("serve did not listen within two minutes")
	}
	return p
}

// kill ends the process with SIGKILL, leaving it no chance to clean up.
func (p *serveProcess) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.done <- <-p.done // waited for, and left for a later kill
	}
}

// TestServeOneServerPerDataDir: the split data directory cannot
// happen. A second serve on a directory a server runs on exits at once
// with status 1, having written nothing, and names the running server
// and what to do; the CLI verbs keep working beside that server; killed,
// the server leaves the directory free.
func TestServeOneServerPerDataDir(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	dir := dataDirWithStore(t)
	first := startServeProcess(t, dir)
	credsPath := filepath.Join(dir, bootstrap.FileName)
	before := readCredentials(t, credsPath)
	if before["base_url"] != first.url {
		t.Fatalf("bootstrap.json's base_url %q, want the server's %s", before["base_url"], first.url)
	}

	stdout, stderr, code := runBinary(t, nil, "serve", "--addr", "127.0.0.1:0", "--data", dir)
	want := "slashd: data directory " + dir + " is in use by another slashd serve (pid " + strconv.Itoa(first.cmd.Process.Pid) +
		", listening on " + first.url + "); one server runs on a data directory at a time: stop that one, " +
		"or give this one its own directory with --data DIR\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("a second serve: exit %d, stdout %q, stderr %q\nwant exit 1 and %q", code, stdout, stderr, want)
	}
	if after := readCredentials(t, credsPath); after["base_url"] != first.url {
		t.Errorf("the refused serve moved base_url to %q", after["base_url"])
	}

	// The verbs beside it, each as its own process; the server sees
	// what they write.
	guild := runJSON(t, dir, "guild", "create", "--name", "beside", "--install", before["application_id"])
	status, body := call(t, "GET", first.url+"/api/v10/applications/"+before["application_id"]+"/guilds/"+strOf(guild, "guild_id")+"/commands",
		"Bot "+before["bot_token"], "")
	if status != 200 {
		t.Errorf("the running server does not know the guild the CLI made: %d %s", status, body)
	}
	user := runJSON(t, dir, "user", "create", "--name", "beside")
	runJSON(t, dir, "member", "add", "--guild", before["guild_id"], "--user", strOf(user, "id"))
	minted := runJSON(t, dir, "token", "mint", "--user", strOf(user, "id"))
	if status, body := call(t, "GET", first.url+"/api/v10/channels/"+before["channel_id"]+"/application-command-index",
		strOf(minted, "token"), ""); status != 200 {
		t.Errorf("the new member's client token on the running server: %d %s", status, body)
	}
	app := runJSON(t, dir, "app", "create", "--name", "beside")
	if status, body := call(t, "GET", first.url+"/api/v10/applications/@me", "Bot "+strOf(app, "bot_token"), ""); status != 200 {
		t.Errorf("the new app's bot token on the running server: %d %s", status, body)
	}
	if stdout, stderr, code := runBinary(t, nil, "invoke", "--data", dir, "/nope"); code != 1 ||
		!strings.HasPrefix(stderr, "slashd: invoke: no command /nope here") {
		t.Errorf("invoke beside the server: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Killed, it leaves the directory to the next server.
	first.kill()
	second := startServeProcess(t, dir)
	if got := readCredentials(t, credsPath)["base_url"]; got != second.url {
		t.Errorf("after the restart base_url is %q, want %s", got, second.url)
	}
	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-second.done:
		second.done <- err
		if err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("serve did not stop after SIGTERM")
	}
}

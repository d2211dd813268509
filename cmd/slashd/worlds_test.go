package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
)

const worldJSON = `{"name": "ban-tests",
 "users": {"alice": {}, "bob": {"locale": "fr"}},
 "apps": {"modbot": {"commands": [{"name": "ban", "description": "Ban someone",
           "options": [{"type": 6, "name": "user", "description": "Who", "required": true}]}]}},
 "guilds": {"club": {"owner": "alice", "roles": {"mods": {"permissions": ["BAN_MEMBERS"]}},
   "channels": {"general": {}}, "members": {"bob": {}},
   "install": {"modbot": {"scopes": ["bot", "applications.commands"]}}}}}`

const worldYAML = "name: second\nusers:\n  carol: {}\n"

// serveWith runs the binary's serve with extra arguments and environment
// and waits for it to listen; its log is returned by the func.
func serveWith(t *testing.T, dir string, env []string, args ...string) (*serveProcess, func() string) {
	t.Helper()
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--ratelimit=false", "--ui=false"}, args...)
	cmd := exec.Command(slashdBinary(t), args...)
	cmd.Env = append(cleanEnv(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr, log syncBuffer
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
			log.Write([]byte(sc.Text() + "\n"))
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
	return p, func() string { return log.String() }
}

// TestServeWorlds: --world and SLASHD_WORLD apply their worlds before
// /healthz answers; a restart keeps them (not duplicated, a changed file
// said in the log); a bad file stops the start naming the spec's path.
func TestServeWorlds(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	dir := dataDirWithStore(t)
	files := t.TempDir()
	jsonPath, yamlPath := filepath.Join(files, "ban.json"), filepath.Join(files, "second.yaml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(jsonPath, []byte(worldJSON), 0o600))
	must(os.WriteFile(yamlPath, []byte(worldYAML), 0o600))

	list := func(url, admin string) []map[string]any {
		t.Helper()
		status, body := call(t, "GET", url+"/admin/v1/worlds", "Admin "+admin, "")
		if status != 200 {
			t.Fatalf("list worlds: %d %s", status, body)
		}
		var out []map[string]any
		must(json.Unmarshal(body, &out))
		return out
	}

	p, _ := serveWith(t, dir, []string{"SLASHD_WORLD=" + yamlPath}, "--world", jsonPath)
	// Command-line paths replace the environment's.
	admin := readCredentials(t, filepath.Join(dir, bootstrap.FileName))["admin_token"]
	if status, _ := call(t, "GET", p.url+"/healthz", "", ""); status != 200 {
		t.Fatalf("healthz %d", status)
	}
	// The first start's demo world comes first, then the file's.
	ws := list(p.url, admin)
	if len(ws) != 2 || ws[0]["name"] != "demo" || ws[0]["default"] != true || ws[1]["name"] != "ban-tests" ||
		ws[1]["default"] != false {
		t.Fatalf("worlds after the first start: %v", ws)
	}
	first := ws[1]["id"]
	apps := ws[1]["apps"].(map[string]any)
	token := apps["modbot"].(map[string]any)["bot_token"].(string)
	if status, body := call(t, "GET", p.url+"/api/v10/users/@me", "Bot "+token, ""); status != 200 {
		t.Fatalf("the world's bot: %d %s", status, body)
	}
	p.kill()

	// Again, with the environment's file too and the first one changed.
	must(os.WriteFile(jsonPath, []byte(strings.Replace(worldJSON, `"fr"`, `"de"`, 1)), 0o600))
	p, log := serveWith(t, dir, []string{"SLASHD_WORLD=" + jsonPath + string(os.PathListSeparator) + yamlPath})
	ws = list(p.url, admin)
	if len(ws) != 3 || ws[0]["name"] != "demo" || ws[1]["id"] != first || ws[2]["name"] != "second" {
		t.Fatalf("worlds after the restart: %v", ws)
	}
	if !strings.Contains(log(), `msg="world kept: its file changed`) || !strings.Contains(log(), `msg="world created" world=second`) {
		t.Errorf("the restart's log:\n%s", log())
	}
	p.kill()

	// A bad file: exit 1, the file and the spec's path named.
	bad := filepath.Join(files, "bad.json")
	must(os.WriteFile(bad, []byte(strings.Replace(worldJSON, `"owner": "alice"`, `"owner": "zed"`, 1)), 0o600))
	_, stderr, code := runBinary(t, nil, "serve", "--addr", "127.0.0.1:0", "--data", dir, "--world", bad)
	if code != 1 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "guilds.club.owner: UNKNOWN_USER") {
		t.Fatalf("a bad world file: exit %d, stderr %s", code, stderr)
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlashdTestRunsTheCommandAgainstAThrowAwayServer: the command runs
// while the server answers, with its address and credentials in the
// environment; slashd test exits with the command's status and leaves
// nothing behind.
func TestSlashdTestRunsTheCommandAgainstAThrowAwayServer(t *testing.T) {
	bin := slashdBinary(t)
	tmp := t.TempDir()
	script := `"$0" healthcheck --addr "${SLASHD_URL#http://}" >/dev/null || exit 9
printf '%s\n' "$SLASHD_DATA" "$SLASHD_APPLICATION_ID" "$SLASHD_BOT_TOKEN" "$SLASHD_PUBLIC_KEY" "$SLASHD_ADMIN_TOKEN"
cat "$SLASHD_WORLDS"
exit 3`
	stdout, stderr, code := runBinary(t, []string{"TMPDIR=" + tmp}, "test", "--", "sh", "-c", script, bin)
	if code != 3 {
		t.Fatalf("exit status %d, want the command's 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lines := strings.SplitN(stdout, "\n", 6)
	if len(lines) < 6 {
		t.Fatalf("stdout:\n%s", stdout)
	}
	dataDir, appID, bot, key, admin := lines[0], lines[1], lines[2], lines[3], lines[4]
	for name, v := range map[string]string{"SLASHD_APPLICATION_ID": appID, "SLASHD_BOT_TOKEN": bot,
		"SLASHD_PUBLIC_KEY": key, "SLASHD_ADMIN_TOKEN": admin} {
		if v == "" {
			t.Errorf("%s is empty: without --world it is the demo application's", name)
		}
	}
	// Without --world, the one world is the first start's demo, whose
	// app is SLASHD_APPLICATION_ID's.
	var worlds map[string]struct {
		Default bool                      `json:"default"`
		Apps    map[string]map[string]any `json:"apps"`
	}
	if err := json.Unmarshal([]byte(lines[5]), &worlds); err != nil || len(worlds) != 1 || !worlds["demo"].Default ||
		worlds["demo"].Apps["demo"]["id"] != appID || worlds["demo"].Apps["demo"]["bot_token"] != bot {
		t.Errorf("SLASHD_WORLDS = %q (%v); want the demo world alone without --world, with the demo app", lines[5], err)
	}
	if !strings.HasPrefix(dataDir, tmp) {
		t.Errorf("SLASHD_DATA %q is not under TMPDIR %q", dataDir, tmp)
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("the data directory %s is still there after the run (%v)", dataDir, err)
	}
	if !strings.Contains(stderr, "slashd test: the bots had no failures") {
		t.Errorf("stderr lacks the journal's summary:\n%s", stderr)
	}
}

// TestSlashdTestStatuses: a command that passes exits 0, one that is not
// found 127, no command at all is a usage error (2), and --keep keeps
// the data directory with the server's log.
func TestSlashdTestStatuses(t *testing.T) {
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	if _, stderr, code := runBinary(t, env, "test", "--", "true"); code != 0 {
		t.Errorf("slashd test -- true: exit %d, want 0\n%s", code, stderr)
	}
	if _, stderr, code := runBinary(t, env, "test", "--", "no-such-command-slashd"); code != 127 ||
		!strings.Contains(stderr, "no-such-command-slashd: command not found") {
		t.Errorf("slashd test -- no-such-command: exit %d, want 127 and a message\n%s", code, stderr)
	}
	if _, stderr, code := runBinary(t, env, "test"); code != 2 || !strings.Contains(stderr, "no command given") {
		t.Errorf("slashd test: exit %d, want 2 (usage)\n%s", code, stderr)
	}
	if _, stderr, code := runBinary(t, env, "test", "--keep", "--", "true"); code != 0 {
		t.Errorf("slashd test --keep -- true: exit %d\n%s", code, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "slashd-test-*", "slashd.log"))
	if len(kept) != 1 {
		t.Fatalf("--keep left %d logs under TMPDIR, want 1: %v", len(kept), kept)
	}
	if log, err := os.ReadFile(kept[0]); err != nil || !strings.Contains(string(log), "slashd listening") {
		t.Errorf("the kept log lacks the server's start (%v):\n%s", err, log)
	}
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "slashd-test-*")); len(dirs) != 1 {
		t.Errorf("the runs without --keep left directories: %v", dirs)
	}
}

// TestSlashdTestWithAWorld: --world applies the file before the command
// runs; SLASHD_WORLDS holds it by name, alone (no demo world), and, with
// one app, SLASHD_BOT_TOKEN is that app's (and works on the API).
func TestSlashdTestWithAWorld(t *testing.T) {
	bin := slashdBinary(t)
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "world.yaml")
	if err := os.WriteFile(spec, []byte("name: ci\nusers:\n  alice: {}\napps:\n  modbot: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `"$0" healthcheck --addr "${SLASHD_URL#http://}" >/dev/null || exit 9
printf '%s\n' "$SLASHD_BOT_TOKEN" "$SLASHD_APPLICATION_ID"
cat "$SLASHD_WORLDS"`
	stdout, stderr, code := runBinary(t, []string{"TMPDIR=" + tmp}, "test", "--world", spec, "--", "sh", "-c", script, bin)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.SplitN(stdout, "\n", 3)
	var worlds map[string]struct {
		Apps map[string]struct {
			ID       string `json:"id"`
			BotToken string `json:"bot_token"`
		} `json:"apps"`
	}
	if len(lines) < 3 || json.Unmarshal([]byte(lines[2]), &worlds) != nil {
		t.Fatalf("stdout:\n%s", stdout)
	}
	// The test's worlds are its own: no demo world beside them.
	if len(worlds) != 1 {
		t.Errorf("SLASHD_WORLDS holds %d worlds, want the file's alone (no demo with --world): %s", len(worlds), lines[2])
	}
	app := worlds["ci"].Apps["modbot"]
	if app.BotToken == "" || lines[0] != app.BotToken || lines[1] != app.ID {
		t.Errorf("SLASHD_BOT_TOKEN %q, SLASHD_APPLICATION_ID %q; the world's app: %+v", lines[0], lines[1], app)
	}
}

// TestSlashdTestReportsTheBotsFailures: a refused call of the world's bot
// is printed after the command, from the world's journal; --strict then
// fails a command that passed.
func TestSlashdTestReportsTheBotsFailures(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl to make the bot's refused call with")
	}
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "world.json")
	if err := os.WriteFile(spec, []byte(`{"name": "ci", "apps": {"modbot": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `curl -s -o /dev/null -H "Authorization: Bot $SLASHD_BOT_TOKEN" "$SLASHD_URL/api/v10/users/1"`
	_, stderr, code := runBinary(t, []string{"TMPDIR=" + tmp}, "test", "--world", spec, "--", "sh", "-c", script)
	if code != 0 || !strings.Contains(stderr, "the bots had 1 failures") ||
		!strings.Contains(stderr, "[ci] GET /api/v10/users/{user_id} → 404") || !strings.Contains(stderr, "10013") {
		t.Errorf("without --strict: exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = runBinary(t, []string{"TMPDIR=" + tmp}, "test", "--strict", "--world", spec, "--", "sh", "-c", script)
	if code != 1 || !strings.Contains(stderr, "--strict: the bots had 1 failures") {
		t.Errorf("with --strict: exit %d, stderr:\n%s", code, stderr)
	}
}

// describeFailure writes one line per failure; a 429's route pattern
// already names its method.
func TestDescribeFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ entry, want string }{
		{`{"type":"rate_limit.hit","method":"POST","route":"POST /api/v10/channels/{channel_id}/messages","retry_after":0.5}`,
			"POST /api/v10/channels/{channel_id}/messages → 429 (retry after 0.5s)"},
		{`{"type":"rate_limit.hit","method":"GET","route":"/x","retry_after":2}`, "GET /x → 429 (retry after 2s)"},
		{`{"type":"rest.request","route":"GET /api/v10/channels/{channel_id}","status":404,"error":{"code":10003}}`,
			`GET /api/v10/channels/{channel_id} → 404 {"code":10003}`},
		{`{"type":"interaction.failed","interaction_id":"12","outcome":"timeout","reason":"no answer"}`,
			"interaction 12 failed: timeout (no answer)"},
		{`{"type":"journal.dropped","count":3}`, "3 journal entries were lost (the journal was busy)"},
	} {
		if got := describeFailure(json.RawMessage(tc.entry)); got != tc.want {
			t.Errorf("describeFailure(%s) = %q, want %q", tc.entry, got, tc.want)
		}
	}
}

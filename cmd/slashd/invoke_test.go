package main

// slashd invoke end to end: a server (serve, in process) on a data
// directory, examples/bot built and run as the demo app's Interactions
// Endpoint URL, and the built slashd binary invoking its commands as a
// shell would.

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/testtool/examplebot"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

// exampleBot is examples/bot, built by TestMain.
var exampleBot = gobuild.Binary{Pkg: examplebot.Package}

// startBot runs examples/bot for the app of creds on a free port and
// waits for its start line, which says where it listens.
func startBot(t *testing.T, creds map[string]string) *examplebot.Process {
	t.Helper()
	return examplebot.Start(t, &exampleBot, append(cleanEnv(), "SLASHD_URL="+creds["base_url"], "SLASHD_PUBLIC_KEY="+creds["public_key"]))
}

// setUpBot registers examples/bot's guild commands in the demo guild of
// creds and makes the running bot the demo app's Interactions Endpoint
// URL, as its documentation says.
func setUpBot(t *testing.T, creds map[string]string, bot *examplebot.Process) {
	t.Helper()
	defs, err := exec.Command(exampleBot.Path(t), "-commands").Output()
	if err != nil {
		t.Fatalf("bot -commands: %v", err)
	}
	base, app := creds["base_url"], creds["application_id"]
	if status, body := call(t, "PUT", base+"/api/v10/applications/"+app+"/guilds/"+creds["guild_id"]+"/commands",
		"Bot "+creds["bot_token"], string(defs)); status != http.StatusOK {
		t.Fatalf("register the bot's commands: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/admin/v1/applications/"+app+"/interactions-endpoint", "Admin "+creds["admin_token"],
		`{"interactions_endpoint_url":"`+bot.URL+`"}`); status != http.StatusOK {
		t.Fatalf("set the endpoint: %d %s", status, body)
	}
}

// TestInvokeEndToEnd: slashd invoke runs examples/bot's commands as the
// demo guild's owner in #general, or as another member with --as, and
// prints the answers; refusals and unanswered commands print the
// service's error and exit 1.
func TestInvokeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	srv := startServe(t, dir)
	creds := readCredentials(t, filepath.Join(dir, "bootstrap.json"))
	bot := startBot(t, creds)
	setUpBot(t, creds, bot)

	invoke := func(t *testing.T, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		return runBinary(t, nil, append([]string{"invoke", "--data", dir}, args...)...)
	}
	ok := func(t *testing.T, want string, args ...string) {
		t.Helper()
		stdout, stderr, code := invoke(t, args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("invoke %q: exit %d, stdout %q, stderr %q; want exit 0 and %q", args, code, stdout, stderr, want)
		}
	}
	refused := func(t *testing.T, code int, want string, args ...string) {
		t.Helper()
		stdout, stderr, got := invoke(t, args...)
		if got != code || stdout != "" || stderr != "slashd: "+want+"\n" {
			t.Errorf("invoke %q: exit %d, stdout %q, stderr %q\nwant exit %d and slashd: %s", args, got, stdout, stderr, code, want)
		}
	}

	t.Run("answers", func(t *testing.T) {
		ok(t, "hi\n", "/echo text:hi")
		ok(t, "two words\n", `/echo text:"two words"`)
		ok(t, "You picked 3 × mango.\n", "/pick fruit:mango amount:3")
		ok(t, "pong\n(only you can see this)\n", "/ping")
		ok(t, "This is the answer.\n", "/multi")
		ok(t, "Count: 0\ncomponents:\n  row:\n    - primary button \"+1\" (custom_id counter:0)\n", "/counter")
		// Deferred: printed once the bot has filled it in.
		ok(t, "Thought about it: the answer is 42.\n", "/slow")
		ok(t, "The app opened a form (modal \"feedback\"): Feedback\n  row:\n    - paragraph input \"What do you think?\" (custom_id text)\n", "/feedback")
		// Flags after the command line, and from the environment.
		ok(t, "hi\n", "/echo text:hi", "--channel", creds["channel_id"])
		stdout, stderr, code := runBinary(t, []string{"SLASHD_DATA=" + dir, "SLASHD_APP=" + creds["application_id"]}, "invoke", "/echo text:env")
		if code != 0 || stdout != "env\n" {
			t.Errorf("with SLASHD_DATA and SLASHD_APP: exit %d, %q, %q", code, stdout, stderr)
		}
	})

	// answer decodes what --json prints.
	type answer struct {
		Interaction struct {
			ID                string `json:"id"`
			ResponseMessageID string `json:"response_message_id"`
		} `json:"interaction"`
		Resource struct {
			Type    int `json:"type"`
			Message struct {
				ID                  string `json:"id"`
				Content             string `json:"content"`
				ChannelID           string `json:"channel_id"`
				InteractionMetadata struct {
					Name string `json:"name"`
					User struct {
						ID string `json:"id"`
					} `json:"user"`
				} `json:"interaction_metadata"`
			} `json:"message"`
		} `json:"resource"`
	}
	jsonAnswer := func(t *testing.T, args ...string) answer {
		t.Helper()
		stdout, stderr, code := invoke(t, args...)
		var a answer
		if code != 0 || stderr != "" || json.Unmarshal([]byte(stdout), &a) != nil || strings.Count(stdout, "\n") != 1 {
			t.Fatalf("invoke %q: exit %d, stdout %q, stderr %q; want one JSON line", args, code, stdout, stderr)
		}
		return a
	}

	t.Run("json", func(t *testing.T) {
		a := jsonAnswer(t, "--json", "/echo text:hi")
		m := a.Resource.Message
		if a.Resource.Type != 4 || m.Content != "hi" || m.ChannelID != creds["channel_id"] || m.ID != a.Interaction.ResponseMessageID ||
			m.InteractionMetadata.Name != "echo" || m.InteractionMetadata.User.ID != creds["owner_user_id"] {
			t.Fatalf("--json: %+v", a)
		}
		// The answer is in #general, as the owner sees it.
		status, body := call(t, "GET", srv.base+"/api/v10/channels/"+creds["channel_id"]+"/messages?limit=1", creds["owner_client_token"], "")
		if status != http.StatusOK || !strings.Contains(string(body), `"id":"`+m.ID+`"`) {
			t.Errorf("#general: %d %s; want the answer %s", status, body, m.ID)
		}
	})

	t.Run("as another member", func(t *testing.T) {
		admin := "Admin " + creds["admin_token"]
		status, body := call(t, "POST", srv.base+"/admin/v1/users", admin, `{"username":"alice"}`)
		var alice struct {
			ID string `json:"id"`
		}
		if status != http.StatusCreated || json.Unmarshal(body, &alice) != nil {
			t.Fatalf("create alice: %d %s", status, body)
		}
		// Not a member yet: the service refuses her the channel.
		refused(t, 1, "invoke: the commands in channel "+creds["channel_id"]+": Missing Access", "--as", alice.ID, "/echo text:hi")
		if status, body := call(t, "PUT", srv.base+"/admin/v1/guilds/"+creds["guild_id"]+"/members/"+alice.ID, admin, ""); status != http.StatusCreated {
			t.Fatalf("alice joins: %d %s", status, body)
		}
		a := jsonAnswer(t, "/echo text:hi", "--as", alice.ID, "--json")
		if a.Resource.Message.Content != "hi" || a.Resource.Message.InteractionMetadata.User.ID != alice.ID {
			t.Fatalf("--as alice: %+v", a)
		}
		refused(t, 1, "invoke: --as 1: a client token: Unknown User", "--as", "1", "/echo text:hi")
		// A command alice may not use is not in her picker: none to run.
		var cmds []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		path := srv.base + "/api/v10/applications/" + creds["application_id"] + "/guilds/" + creds["guild_id"] + "/commands"
		status, body = call(t, "GET", path, "Bot "+creds["bot_token"], "")
		if status != http.StatusOK || json.Unmarshal(body, &cmds) != nil {
			t.Fatalf("the bot's commands: %d %s", status, body)
		}
		for _, c := range cmds {
			if c.Name == "ping" {
				if status, body := call(t, "PATCH", path+"/"+c.ID, "Bot "+creds["bot_token"], `{"default_member_permissions":"0"}`); status != http.StatusOK {
					t.Fatalf("restrict /ping: %d %s", status, body)
				}
			}
		}
		refused(t, 1, "invoke: no command /ping here (there are /counter, /echo, /feedback, /multi, /pick, /slow)", "--as", alice.ID, "/ping")
		ok(t, "pong\n(only you can see this)\n", "/ping") // the owner may
	})

	t.Run("refused", func(t *testing.T) {
		// By the service, in its words.
		refused(t, 1, `invoke: /echo: Invalid Form Body: Option "text" is required (INTERACTION_APPLICATION_COMMAND_OPTION_REQUIRED)`, "/echo")
		refused(t, 1, "invoke: /pick fruit:mango amount:20: Invalid Form Body: amount: int value should be less than or equal to 12. (NUMBER_TYPE_MAX)",
			"/pick fruit:mango amount:20")
		refused(t, 1, "invoke: the commands in channel 1: Unknown Channel", "--channel", "1", "/ping")
		refused(t, 1, "invoke: /slow: the application did not fill in its deferred answer in 1ms", "--wait", "1ms", "/slow")
		// Before anything is sent.
		refused(t, 1, "invoke: no command /nope here (there are /counter, /echo, /feedback, /multi, /pick, /ping, /slow)", "/nope")
		refused(t, 1, "invoke: /echo has no option words (it has text)", "/echo words:hi")
		refused(t, 1, `invoke: option amount: "many" is not an integer`, "/pick fruit:mango amount:many")
		refused(t, 1, "invoke: Wave is a user command (from a member's menu), not a slash command", "/Wave")
		elsewhere := t.TempDir()
		refused(t, 1, "invoke: no bootstrap.json in "+elsewhere+": point --data (or SLASHD_DATA) at the data directory of the server's first start",
			"--data", elsewhere, "/ping") // the last --data wins
		// Command lines slashd cannot run: exit 2.
		refused(t, 2, `invoke: /echo text:"open: at character 12: option text: the quote is never closed`, `/echo text:"open`)
		refused(t, 2, "invoke: no command given: slashd invoke '/COMMAND [NAME:VALUE …]' (see slashd invoke --help)")
		refused(t, 2, `invoke: 2 arguments: put the command line in quotes, as in slashd invoke '/echo text:"two words"'`, "/echo", "text:hi")
		refused(t, 2, `invoke: --as "alice": not a snowflake`, "--as", "alice", "/ping")
	})

	t.Run("a guild and a global command of one name", func(t *testing.T) {
		// A global /echo beside the bot's guild /echo, told apart by its
		// text's minimum length: the picker lists both, a line runs the
		// guild command, --global the global one, each by its id.
		global := `{"name":"echo","description":"Echo, globally","options":[{"type":3,"name":"text","description":"d","required":true,"min_length":5}]}`
		if status, body := call(t, "POST", creds["base_url"]+"/api/v10/applications/"+creds["application_id"]+"/commands",
			"Bot "+creds["bot_token"], global); status != http.StatusCreated {
			t.Fatalf("register a global /echo: %d %s", status, body)
		}
		ok(t, "hi\n", "/echo text:hi")
		refused(t, 1, "invoke: /echo text:hi: Invalid Form Body: text: Must be 5 or more in length. (BASE_TYPE_MIN_LENGTH)",
			"--global", "/echo text:hi")
		ok(t, "hello\n", "--global", "/echo text:hello")
		refused(t, 1, "invoke: /pick is a guild command only here: leave out --global", "--global", "/pick fruit:mango")
	})

	t.Run("unanswered", func(t *testing.T) {
		// The bot hangs (stopped): slashd gives up after 3 s.
		if err := bot.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		refused(t, 1, "invoke: /echo text:hi: The application did not respond", "/echo text:hi")
		if err := bot.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		ok(t, "back\n", "/echo text:back")
		// The bot is gone: the delivery fails at once.
		bot.Cmd.Process.Kill()
		bot.Cmd.Wait()
		refused(t, 1, "invoke: /echo text:hi: This interaction failed", "/echo text:hi")
	})
}

// TestInvokeReadme: docs/interactions.md's table of invoke's flags is the
// help's.
func TestInvokeReadme(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "interactions.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## `slashd invoke`\n")
	if !ok {
		t.Fatal("docs/interactions.md has no slashd invoke section")
	}
	rows := map[string]string{} // flag → environment variable
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `([A-Z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		rows[m[1]] = m[2]
	}
	fs := newFlagSet("invoke", envMap(nil))
	defineInvoke(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if env := rows[f.Name]; env != envName(f.Name) {
			t.Errorf("docs/interactions.md: --%s has environment %q, want %s", f.Name, env, envName(f.Name))
		}
	})
	if len(rows) != n {
		t.Errorf("docs/interactions.md lists %d flags (%v), invoke has %d", len(rows), rows, n)
	}
}

// TestInvokeText: how answers are printed.
func TestInvokeText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, answer, want string
	}{
		{"content", `{"resource":{"type":4,"message":{"content":"hi\nthere","flags":0}}}`, "hi\nthere\n"},
		{"ephemeral", `{"resource":{"type":4,"message":{"content":"pong","flags":64}}}`, "pong\n(only you can see this)\n"},
		{"embeds", `{"resource":{"type":4,"message":{"content":"","embeds":[
			{"title":"Weather","url":"https://w.example","description":"Sunny\nwarm","author":{"name":"Bot"},
			 "fields":[{"name":"High","value":"25°"},{"name":"Low","value":"12°"}],"image":{"url":"https://i.example/a.png"},
			 "thumbnail":{"url":"https://i.example/t.png"},"footer":{"text":"today"}},
			{"title":"Only a title"},{}]}}}`,
			"| Bot\n| Weather <https://w.example>\n| Sunny\n| warm\n| High: 25°\n| Low: 12°\n| image: https://i.example/a.png\n" +
				"| thumbnail: https://i.example/t.png\n| today\n| Only a title\n| (an embed)\n"},
		{"components", `{"resource":{"type":4,"message":{"content":"Choose","components":[
			{"type":1,"components":[{"type":2,"style":1,"label":"Yes","custom_id":"y"},{"type":2,"style":4,"label":"No","custom_id":"n","disabled":true},
			  {"type":2,"style":5,"label":"Docs","url":"https://d.example"}]},
			{"type":1,"components":[{"type":3,"custom_id":"fruit","placeholder":"A fruit","options":[{"label":"Apple","value":"a"},{"label":"Pear","value":"p"}]}]},
			{"type":1,"components":[{"type":5,"custom_id":"who"},{"type":8,"custom_id":"where"}]}]}}}`,
			"Choose\ncomponents:\n  row:\n    - primary button \"Yes\" (custom_id y)\n    - danger button \"No\" (custom_id n) (disabled)\n" +
				"    - link button \"Docs\" → https://d.example\n  row:\n    - select menu \"A fruit\": Apple, Pear (custom_id fruit)\n" +
				"  row:\n    - user select (custom_id who)\n    - channel select (custom_id where)\n"},
		{"components v2", `{"resource":{"type":4,"message":{"flags":32768,"components":[
			{"type":17,"components":[{"type":10,"content":"# Title"},{"type":14},
			  {"type":9,"components":[{"type":10,"content":"with a button"}],"accessory":{"type":2,"style":2,"label":"Go","custom_id":"go"}},
			  {"type":12,"items":[{"media":{"url":"https://m.example/1.png"}}]},{"type":13,"file":{"url":"attachment://a.txt"}},{"type":99}]}]}}}`,
			"components:\n  container:\n    - text \"# Title\"\n    - separator\n    section:\n      - text \"with a button\"\n" +
				"      - secondary button \"Go\" (custom_id go)\n    - media gallery: https://m.example/1.png\n    - file attachment://a.txt\n" +
				"    - component of type 99\n"},
		{"attachments", `{"resource":{"type":4,"message":{"content":"see","attachments":[{"filename":"a.png","size":1234}]}}}`,
			"see\n[attachment: a.png, 1234 bytes]\n"},
		{"modal", `{"resource":{"type":9,"modal":{"custom_id":"f","title":"Feedback","components":[
			{"type":18,"label":"Your name","component":{"type":4,"custom_id":"name","style":1}},
			{"type":1,"components":[{"type":4,"custom_id":"text","style":2,"label":"Text"}]}]}}}`,
			"The app opened a form (modal \"f\"): Feedback\n  label \"Your name\":\n    - text input \"\" (custom_id name)\n" +
				"  row:\n    - paragraph input \"Text\" (custom_id text)\n"},
		{"activity", `{"resource":{"type":12,"activity_instance":{"id":"i-1-gc-2-3"}}}`, "The app launched its activity (instance i-1-gc-2-3)\n"},
		{"other", `{"resource":{"type":6}}`, "The app answered with an interaction callback of type 6\n"},
	}
	for _, tc := range cases {
		var a invokeAnswer
		if err := json.Unmarshal([]byte(tc.answer), &a); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := a.text(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestInvokeErrorText: the service's errors, field errors told by
// option name.
func TestInvokeErrorText(t *testing.T) {
	t.Parallel()
	opts := []slashline.OptionValue{{Name: "user", Type: 2, Options: []slashline.OptionValue{
		{Name: "set", Type: 1, Options: []slashline.OptionValue{{Name: "who", Type: 6, Value: "1"}, {Name: "on", Type: 5, Value: true}}}}}}
	cases := []struct{ body, want string }{
		{`{"message":"The application did not respond","code":0}`, "The application did not respond"},
		{`{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"0":{"options":{"0":{"options":{"1":{"value":{"_errors":[{"code":"C","message":"bad"}]}}}}}}}}}}`,
			"Invalid Form Body: user set on: bad (C)"},
		{`{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"0":{"options":{"0":{"options":{"_errors":[{"code":"R","message":"Option \"who\" is required"}]}}}}}}}}`,
			`Invalid Form Body: user set: Option "who" is required (R)`},
		{`{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"_errors":[{"code":"R","message":"req"}]},"version":{"_errors":[{"code":"V","message":"old"}]}}}}`,
			"Invalid Form Body: req (R); data.version: old (V)"},
		{`{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"7":{"name":{"_errors":[{"code":"U","message":"unknown"}]}}}}}}`,
			"Invalid Form Body: data.options.7.name: unknown (U)"},
		{`{"message":"Invalid Form Body","code":50035,"errors":{"data":{"options":{"0":{"name":{"_errors":[{"code":"U","message":"unknown"}]}}}}}}`,
			"Invalid Form Body: user name: unknown (U)"},
	}
	for _, tc := range cases {
		e := &apiError{Status: 400, options: opts}
		if err := json.Unmarshal([]byte(tc.body), e); err != nil {
			t.Fatal(err)
		}
		if got := e.Error(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
}

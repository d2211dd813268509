package slashdtest_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/slashd/slashd/sdk/interactions"
	"github.com/slashd/slashd/sdk/slashdtest"
)

// echo is the bot of the package documentation's example: /echo text:…
// answers with the text.
func echo(ctx context.Context, i *interactions.Interaction) (interactions.Response, error) {
	opt, _ := i.Data.Option("text")
	text, _ := opt.String()
	return interactions.Message(text), nil
}

var echoCommands = []map[string]any{{
	"name": "echo", "description": "Say it back",
	"options": []map[string]any{{"type": 3, "name": "text", "description": "What to say", "required": true}},
}}

// TestEcho is the example of the package documentation, which
// TestDocExampleIsTestEcho keeps identical to it.
func TestEcho(t *testing.T) {
	s := slashdtest.Start(t)
	s.ServeApp(interactions.Handler(s.PublicKey, echo))
	ctx := context.Background()
	if err := s.RegisterGuildCommands(ctx, echoCommands); err != nil {
		t.Fatal(err)
	}
	alice := s.NewMember("alice")
	reply, err := alice.Invoke(ctx, "echo", slashdtest.String("text", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Message.Content != "hello" {
		t.Errorf("echo answered %q, want %q", reply.Message.Content, "hello")
	}
}

// echoWorld is the world of the package documentation's world example.
const echoWorld = `{"name": "echo",
 "users": {"alice": {}},
 "apps": {"echo": {"commands": [{"name": "echo", "description": "Say it back",
   "options": [{"type": 3, "name": "text", "description": "What to say", "required": true}]}]}},
 "guilds": {"club": {"owner": "alice", "channels": {"general": {}},
   "install": {"echo": {"scopes": ["bot", "applications.commands"]}}}}}`

// TestEchoWorld is the world example of the package documentation.
func TestEchoWorld(t *testing.T) {
	ctx := t.Context()
	c := slashdtest.ConnectOrStart(t) // slashd test's server, else one in-process
	w, err := c.World(ctx, echoWorld) // or c.OpenWorld(ctx, name): a --world of slashd test
	if err != nil {
		t.Fatal(err)
	}
	defer w.Delete(ctx)
	bot := httptest.NewServer(interactions.Handler(w.Apps["echo"].PublicKey, echo))
	defer bot.Close()
	if err := w.SetInteractionsEndpoint(ctx, "echo", bot.URL); err != nil {
		t.Fatal(err)
	}
	r, err := w.As("alice").In("general").Run(ctx, "/echo text:hello")
	if err != nil || r.Content != "hello" {
		t.Fatalf("/echo: %v %s", err, r)
	}
}

// The code blocks of doc.go that are tests are those of this file, so
// they compile and run.
func TestDocExampleIsTestEcho(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var code []string
	for line := range strings.Lines(string(doc)) {
		if rest, ok := strings.CutPrefix(line, "//\t"); ok {
			code = append(code, rest)
			continue
		}
		if len(code) > 0 {
			blocks = append(blocks, strings.Join(code, ""))
			code = nil
		}
	}
	var tests []string
	for _, block := range blocks {
		if strings.HasPrefix(block, "func Test") {
			tests = append(tests, block)
			if !strings.Contains(string(src), "\n"+block) {
				t.Errorf("the example in doc.go is not a test of example_test.go:\n%s", block)
			}
		}
	}
	if len(tests) != 2 || !strings.HasPrefix(tests[0], "func TestEchoWorld(") || !strings.HasPrefix(tests[1], "func TestEcho(") {
		t.Errorf("doc.go's test examples are not TestEchoWorld and TestEcho: %q", tests)
	}
}

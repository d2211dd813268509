package slashdtest_test

import (
	"context"
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

// The code in doc.go is TestEcho, so it compiles and runs.
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
	var code []string
	for line := range strings.Lines(string(doc)) {
		if rest, ok := strings.CutPrefix(line, "//\t"); ok {
			code = append(code, rest)
		} else if len(code) > 0 {
			break
		}
	}
	block := strings.Join(code, "")
	if !strings.HasPrefix(block, "func TestEcho(") || !strings.Contains(string(src), "\n"+block) {
		t.Errorf("the example in doc.go is not TestEcho of example_test.go:\n%s", block)
	}
}

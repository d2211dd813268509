// Package bottest tests examples/bot the way a bot's CI does with slashd:
//
//	slashd test --world examples/testing/go/world.json -- go test ./examples/testing/go
//
// slashd test starts a throw-away server with the world of world.json
// (alice and bob in a guild "club" with #general, the app "examplebot"
// installed) and runs go test with the server's address and the world's
// credentials in the environment. The test starts the bot with the app's
// public key, registers its commands with the app's bot token, sets the
// app's interactions endpoint, then has alice and bob use the bot through
// POST /admin/v1/worlds/examplebot/act and checks what they see.
//
// A plain `go test ./...` runs this package under slashd test by itself
// (TestMain), so CI needs no extra step.
package bottest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/testtool/examplebot"
	"github.com/slashd/slashd/internal/testtool/gobuild"
)

var (
	slashd = gobuild.Binary{Pkg: "github.com/slashd/slashd/cmd/slashd"}
	bot    = gobuild.Binary{Pkg: examplebot.Package}
)

// TestMain runs the tests under `slashd test --world world.json` unless
// they already run under it (SLASHD_URL set).
func TestMain(m *testing.M) {
	_ = gobuild.BuildAll(&bot)
	if os.Getenv("SLASHD_URL") != "" {
		code := m.Run()
		bot.Remove()
		os.Exit(code)
	}
	bin, err := slashd.File()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := append([]string{"test", "--world", "world.json", "--", os.Args[0]}, os.Args[1:]...)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	slashd.Remove()
	bot.Remove()
	if exit, ok := err.(*exec.ExitError); ok {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// world is the part of $SLASHD_WORLDS the test reads.
type world struct {
	Apps map[string]struct {
		ID        string `json:"id"`
		BotToken  string `json:"bot_token"`
		PublicKey string `json:"public_key"`
	} `json:"apps"`
	Users map[string]struct {
		ID string `json:"id"`
	} `json:"users"`
	Guilds map[string]struct {
		ID       string            `json:"id"`
		Channels map[string]string `json:"channels"`
	} `json:"guilds"`
}

// server is slashd as slashd test announced it.
type server struct {
	t          *testing.T
	url, admin string
	world      world
}

func connect(t *testing.T) *server {
	t.Helper()
	raw, err := os.ReadFile(os.Getenv("SLASHD_WORLDS"))
	if err != nil {
		t.Fatal(err)
	}
	var worlds map[string]world
	if err := json.Unmarshal(raw, &worlds); err != nil {
		t.Fatal(err)
	}
	return &server{t: t, url: os.Getenv("SLASHD_URL"), admin: os.Getenv("SLASHD_ADMIN_TOKEN"), world: worlds["examplebot"]}
}

// call sends a JSON request and decodes the answer into out; it fails the
// test unless the status is want.
func (s *server) call(method, path, auth string, body, out any, want int) {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequestWithContext(s.t.Context(), method, s.url+path, rd)
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: %s: %v", method, path, raw, err)
		}
	}
}

// reply is what act answers.
type reply struct {
	Interaction struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	} `json:"interaction"`
	Message struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"message"`
	Modal *struct {
		Title string `json:"title"`
	} `json:"modal"`
	Choices []struct {
		Name string `json:"name"`
	} `json:"choices"`
}

// act has a member of the world do something and returns what they see.
func (s *server) act(body string) reply {
	s.t.Helper()
	var r reply
	s.call("POST", "/admin/v1/worlds/examplebot/act", "Admin "+s.admin, body, &r, http.StatusOK)
	return r
}

// startBot runs examples/bot for the world's app, registers its guild
// commands and makes it the app's interactions endpoint.
func (s *server) startBot() {
	s.t.Helper()
	app, club := s.world.Apps["examplebot"], s.world.Guilds["club"]
	p := examplebot.Start(s.t, &bot, append(os.Environ(), "SLASHD_URL="+s.url, "SLASHD_PUBLIC_KEY="+app.PublicKey))
	commands, err := exec.Command(bot.Path(s.t), "-commands").Output()
	if err != nil {
		s.t.Fatal(err)
	}
	s.call("PUT", "/api/v10/applications/"+app.ID+"/guilds/"+club.ID+"/commands", "Bot "+app.BotToken,
		string(commands), nil, http.StatusOK)
	s.call("PUT", "/admin/v1/applications/"+app.ID+"/interactions-endpoint", "Admin "+s.admin,
		map[string]string{"interactions_endpoint_url": p.URL}, nil, http.StatusOK)
}

func TestExampleBot(t *testing.T) {
	s := connect(t)
	s.startBot()

	if r := s.act(`{"as": "alice", "in": "general", "run": "/echo text:\"hello there\""}`); r.Message.Content != "hello there" {
		t.Errorf("/echo: %+v", r)
	}
	counter := s.act(`{"as": "alice", "in": "general", "run": "/counter"}`)
	if counter.Message.Content != "Count: 0" {
		t.Fatalf("/counter: %+v", counter)
	}
	if r := s.act(`{"as": "bob", "in": "general", "click": "+1", "message": "` + counter.Message.ID + `"}`); r.Message.Content != "Count: 1" {
		t.Errorf("bob clicks +1: %+v", r)
	}
	if r := s.act(`{"as": "alice", "in": "general", "run": "/slow", "wait": "30s"}`); r.Interaction.Outcome != "deferred-then-filled" {
		t.Errorf("/slow: %+v", r)
	}
	form := s.act(`{"as": "alice", "in": "general", "run": "/feedback"}`)
	if form.Modal == nil {
		t.Fatalf("/feedback opened no modal: %+v", form)
	}
	if r := s.act(`{"as": "alice", "in": "general", "submit": {"text": "lovely"}, "modal": "` +
		form.Interaction.ID + `"}`); r.Message.Content != "Thanks for your feedback: lovely" {
		t.Errorf("the feedback: %+v", r)
	}
	if r := s.act(`{"as": "alice", "in": "general", "user_command": "Wave", "target": "bob"}`); !strings.HasPrefix(r.Message.Content, "alice waves at bob") {
		t.Errorf("Wave: %+v", r)
	}
	if r := s.act(`{"as": "bob", "in": "general", "autocomplete": "/pick fruit:man"}`); len(r.Choices) == 0 {
		t.Errorf("autocomplete: %+v", r)
	}
}

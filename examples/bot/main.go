// Command bot is a small HTTP interactions bot built with slashd's Go SDK
// (github.com/slashd/slashd/sdk/interactions). It answers
//
//	/ping            → "pong", visible only to the user who ran it
//	/echo text:…     → the text, without pinging anyone it mentions
//	/pick fruit:…    → "You picked …"; the fruit option is autocompleted
//
// and answers the PING and the badly signed requests an Interactions
// Endpoint URL must handle, so it works against slashd and the real
// service alike.
//
// slashd delivers interactions to an app's Interactions Endpoint URL once
// interaction delivery lands (the next increment of the interactions
// issue); until then the bot can be driven by signed requests such as the
// ones in main_test.go. To point slashd at it, start slashd and the bot
// with the demo app's public key:
//
//	go run ./cmd/slashd serve   # in another terminal
//	SLASHD_PUBLIC_KEY=$(jq -r .public_key slashd-data/bootstrap.json) go run ./examples/bot -addr 127.0.0.1:8090
//
// register the commands (B, A, G and T as in the README: base URL,
// application id, guild id, bot token from bootstrap.json):
//
//	curl -X PUT "$B/api/v10/applications/$A/guilds/$G/commands" \
//	  -H "Authorization: Bot $T" -H 'Content-Type: application/json' -d '[
//	  {"name":"ping","description":"Replies with pong"},
//	  {"name":"echo","description":"Repeats your text","options":[{"type":3,"name":"text","description":"What to say","required":true}]},
//	  {"name":"pick","description":"Pick a fruit","options":[{"type":3,"name":"fruit","description":"A fruit","required":true,"autocomplete":true}]}]'
//
// and set the app's Interactions Endpoint URL to
// http://127.0.0.1:8090/interactions through slashd's admin API (the route
// arrives with delivery); slashd then sends the signed PING and a badly
// signed request, which the bot answers with {"type":1} and 401.
//
// Flags and environment:
//
//	-addr HOST:PORT     listen address (default 127.0.0.1:8090)
//	SLASHD_PUBLIC_KEY   the application's public key, 64 hex characters (required)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/slashd/slashd/sdk/interactions"
)

// InteractionsPath is where the bot receives interactions.
const InteractionsPath = "/interactions"

// fruits are the values /pick suggests.
var fruits = []string{
	"apple", "apricot", "avocado", "banana", "blackberry", "blueberry", "cherry", "coconut",
	"cranberry", "date", "dragonfruit", "fig", "grape", "grapefruit", "guava", "kiwi", "lemon",
	"lime", "lychee", "mango", "melon", "nectarine", "orange", "papaya", "passionfruit", "peach",
	"pear", "pineapple", "plum", "pomegranate", "raspberry", "strawberry", "watermelon",
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	flag.Parse()
	h, err := newHandler(os.Getenv("SLASHD_PUBLIC_KEY"))
	if err != nil {
		log.Fatalf("bot: SLASHD_PUBLIC_KEY: %v", err)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Printf("bot: receiving interactions on http://%s%s", *addr, InteractionsPath)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("bot: %v", err)
	}
}

// newHandler returns the bot's HTTP handler for the application whose
// public key is publicKeyHex.
func newHandler(publicKeyHex string) (http.Handler, error) {
	if _, err := interactions.ParsePublicKey(publicKeyHex); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(InteractionsPath, interactions.Handler(publicKeyHex, handle))
	return mux, nil
}

// handle answers one interaction.
func handle(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
	if i.Data == nil {
		return interactions.Message("This bot only answers commands.", interactions.Ephemeral()), nil
	}
	if i.Type == interactions.InteractionAutocomplete {
		return autocomplete(i.Data), nil
	}
	switch i.Data.Name {
	case "ping":
		return interactions.Message("pong", interactions.Ephemeral()), nil
	case "echo":
		opt, _ := i.Data.Option("text")
		text, ok := opt.String()
		if !ok || strings.TrimSpace(text) == "" {
			return interactions.Message("Nothing to echo.", interactions.Ephemeral()), nil
		}
		return interactions.Message(clip(text, 2000), interactions.NoMentions()), nil
	case "pick":
		opt, _ := i.Data.Option("fruit")
		fruit, _ := opt.String()
		if !isFruit(fruit) {
			return interactions.Message(fmt.Sprintf("I don't know the fruit %q.", clip(fruit, 100)),
				interactions.Ephemeral(), interactions.NoMentions()), nil
		}
		return interactions.Message("You picked "+fruit+".", interactions.NoMentions()), nil
	}
	return interactions.Message("Unknown command.", interactions.Ephemeral()), nil
}

// autocomplete suggests fruits containing what the user typed so far.
func autocomplete(d *interactions.CommandData) interactions.Response {
	f, ok := d.Focused()
	if !ok || f.Name != "fruit" {
		return interactions.Autocomplete()
	}
	typed, _ := f.String()
	typed = strings.ToLower(strings.TrimSpace(typed))
	var choices []interactions.Choice
	for _, fr := range fruits {
		if strings.Contains(fr, typed) {
			choices = append(choices, interactions.Choice{Name: fr, Value: fr})
		}
	}
	return interactions.Autocomplete(choices...) // at most 25 are sent
}

func isFruit(s string) bool { return slices.Contains(fruits, s) }

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

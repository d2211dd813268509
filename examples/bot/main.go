// Command bot is a small HTTP interactions bot built with slashd's Go SDK
// (github.com/slashd/slashd/sdk/interactions). It has these commands:
//
//	/ping                   → "pong", visible only to the user who ran it
//	/echo text:…            → the text, without pinging anyone it mentions
//	/pick fruit:… amount:…  → "You picked …"; both options are autocompleted
//	/slow                   → a deferred answer (a loading message), filled in a moment later
//	/multi                  → an answer, then a follow-up message
//	/counter                → "Count: 0" with a "+1" button; each press updates the message
//	/feedback               → a form (modal); submitting it gets a thank-you quoting what was typed
//	Wave  (user command)    → "alice waves at bob 👋"
//	Quote (message command) → the message's text, quoted
//	the entry point         → launches the app's Activity (handler 1, APP_HANDLER)
//
// Every interaction is answered in the HTTP response to its delivery.
// /slow and /multi then carry on through the service's REST API
// (interactions.Client, at SLASHD_URL): /slow edits its loading message,
// /multi posts a follow-up; a 429 there is waited out (its retry_after)
// and the call made again, up to 3 times. The bot also answers the PING
// and the badly signed requests an Interactions Endpoint URL must handle,
// so it works against slashd and the real service alike (there,
// SLASHD_URL is https://discord.com).
//
// /counter keeps no state: the button's custom_id carries the count
// ("counter:3"), and a press answers UPDATE_MESSAGE (type 7), which edits
// the message the button is on into the next count and its button.
// Buttons the bot does not know get an ephemeral "Unknown button.".
//
// Try it against slashd: start slashd, then the bot with the demo app's
// public key and slashd's address (from slashd-data/bootstrap.json):
//
//	go run ./cmd/slashd serve   # in another terminal
//	D=slashd-data/bootstrap.json
//	B=$(jq -r .base_url $D) A=$(jq -r .application_id $D) G=$(jq -r .guild_id $D) T=$(jq -r .bot_token $D)
//	SLASHD_URL=$B SLASHD_PUBLIC_KEY=$(jq -r .public_key $D) go run ./examples/bot -addr 127.0.0.1:8090 &
//
// register its commands in the demo guild with the bot token (-commands
// prints their definitions):
//
//	go run ./examples/bot -commands | curl -X PUT "$B/api/v10/applications/$A/guilds/$G/commands" \
//	  -H "Authorization: Bot $T" -H 'Content-Type: application/json' -d @-
//
// and set the app's Interactions Endpoint URL through slashd's admin API;
// slashd first sends the bot a signed PING and a badly signed request,
// which it answers with {"type":1} and 401:
//
//	curl -X PUT "$B/admin/v1/applications/$A/interactions-endpoint" \
//	  -H "Authorization: Admin $(jq -r .admin_token $D)" -H 'Content-Type: application/json' \
//	  -d '{"interactions_endpoint_url":"http://127.0.0.1:8090/interactions"}'
//
// Members of the guild now reach the bot through POST /api/v10/interactions;
// slashd invoke runs a command as the demo guild's owner in its #general:
//
//	go run ./cmd/slashd invoke '/pick fruit:mango amount:3'
//
// The entry point needs Activities. Turning the app's EMBEDDED flag on
// creates the global entry point command "Launch" with handler 2, which
// slashd answers itself without asking the bot:
//
//	curl -X PATCH "$B/admin/v1/applications/$A" \
//	  -H "Authorization: Admin $(jq -r .admin_token $D)" -H 'Content-Type: application/json' -d '{"flags":131072}'
//
// To have the bot answer it instead, give it handler 1:
//
//	curl -X PUT "$B/api/v10/applications/$A/commands" -H "Authorization: Bot $T" -H 'Content-Type: application/json' \
//	  -d '[{"type":4,"name":"launch","description":"Launch the activity","handler":1}]'
//
// Flags and environment:
//
//	-addr HOST:PORT     listen address (default 127.0.0.1:8090; port 0 picks a free one, which the
//	                    start line "bot: receiving interactions on http://…" tells)
//	-commands           print the guild commands' JSON and exit
//	SLASHD_URL          the service's base URL, such as http://127.0.0.1:8080 (required)
//	SLASHD_PUBLIC_KEY   the application's public key, 64 hex characters (required)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/slashd/slashd/sdk/interactions"
)

// InteractionsPath is where the bot receives interactions.
const InteractionsPath = "/interactions"

// guildCommands are the bot's commands, as registered in a guild (PUT
// /applications/{app}/guilds/{guild}/commands). The entry point is a
// global command: see the package documentation.
const guildCommands = `[
  {"name": "ping", "description": "Replies with pong"},
  {"name": "echo", "description": "Repeats your text", "options": [
    {"type": 3, "name": "text", "description": "What to say", "required": true}]},
  {"name": "pick", "description": "Pick a fruit", "options": [
    {"type": 3, "name": "fruit", "description": "A fruit", "required": true, "autocomplete": true},
    {"type": 4, "name": "amount", "description": "How many", "min_value": 1, "max_value": 12, "autocomplete": true}]},
  {"name": "slow", "description": "Thinks for a moment, then answers"},
  {"name": "multi", "description": "Answers, then follows up"},
  {"name": "counter", "description": "A counter with a +1 button"},
  {"name": "feedback", "description": "Tell us what you think"},
  {"name": "Wave", "type": 2},
  {"name": "Quote", "type": 3}
]`

// fruits are the values /pick suggests.
var fruits = []string{
	"apple", "apricot", "avocado", "banana", "blackberry", "blueberry", "cherry", "coconut",
	"cranberry", "date", "dragonfruit", "fig", "grape", "grapefruit", "guava", "kiwi", "lemon",
	"lime", "lychee", "mango", "melon", "nectarine", "orange", "papaya", "passionfruit", "peach",
	"pear", "pineapple", "plum", "pomegranate", "raspberry", "strawberry", "watermelon",
}

// maxAmount is the largest amount /pick takes.
const maxAmount = 12

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	printCommands := flag.Bool("commands", false, "print the guild commands' JSON and exit")
	flag.Parse()
	if *printCommands {
		fmt.Println(guildCommands)
		return
	}
	baseURL := os.Getenv("SLASHD_URL")
	if baseURL == "" {
		log.Fatal("bot: SLASHD_URL is not set (the service's base URL, such as http://127.0.0.1:8080)")
	}
	api := &interactions.Client{BaseURL: baseURL, HTTP: &http.Client{Timeout: 10 * time.Second}}
	b, err := newHandler(os.Getenv("SLASHD_PUBLIC_KEY"), api)
	if err != nil {
		log.Fatalf("bot: SLASHD_PUBLIC_KEY: %v", err)
	}
	srv := &http.Server{Addr: *addr, Handler: b, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("bot: %v", err)
	}
	// Said once it listens (with the port a ":0" address got), so that
	// whoever started it can go on.
	log.Printf("bot: receiving interactions on http://%s%s, answering through %s", ln.Addr(), InteractionsPath, baseURL)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("bot: %v", err)
	}
	b.wait() // let /slow and /multi finish
}

// bot is the bot's HTTP handler.
type bot struct {
	mux *http.ServeMux
	api *interactions.Client
	// thinking is how long /slow thinks.
	thinking time.Duration
	// logf reports the failures of work done after answering.
	logf       func(format string, args ...any)
	background sync.WaitGroup
}

// newHandler returns the bot for the application whose public key is
// publicKeyHex; api is how it reaches the service after answering.
func newHandler(publicKeyHex string, api *interactions.Client) (*bot, error) {
	if _, err := interactions.ParsePublicKey(publicKeyHex); err != nil {
		return nil, err
	}
	b := &bot{mux: http.NewServeMux(), api: api, thinking: 2 * time.Second, logf: log.Printf}
	b.mux.Handle(InteractionsPath, interactions.Handler(publicKeyHex, b.handle))
	return b, nil
}

func (b *bot) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.mux.ServeHTTP(w, r) }

// wait waits for the work started after answering.
func (b *bot) wait() { b.background.Wait() }

// handle answers one interaction.
func (b *bot) handle(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
	switch {
	case i.Data == nil:
		return interactions.Message("This bot only answers commands.", interactions.Ephemeral()), nil
	case i.Type == interactions.InteractionModalSubmit:
		return feedback(i.Data), nil
	case i.Type == interactions.InteractionMessageComponent:
		return press(i.Data), nil
	case i.Type == interactions.InteractionAutocomplete:
		return autocomplete(i.Data), nil
	case i.Data.Type == interactions.CommandPrimaryEntryPoint:
		return interactions.LaunchActivity(), nil
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
		return pick(i.Data), nil
	case "slow":
		b.later(i, "/slow", b.thinking, func(ctx context.Context) error {
			_, err := b.api.EditOriginal(ctx, i.ApplicationID, i.Token,
				interactions.EditData{Content: new("Thought about it: the answer is 42.")})
			return err
		})
		return interactions.Defer(false), nil
	case "multi":
		b.later(i, "/multi", 0, func(ctx context.Context) error {
			_, err := b.api.Followup(ctx, i.ApplicationID, i.Token, interactions.MessageData{Content: "And this is a follow-up."})
			return err
		})
		return interactions.Message("This is the answer."), nil
	case "counter":
		return interactions.Message(counterText(0), counterButton(0)), nil
	case "feedback":
		return interactions.Modal("feedback", "Feedback",
			interactions.TextInputRow("text", "What do you think?", interactions.TextInputParagraph)), nil
	case "Wave":
		target, ok := i.Data.TargetUser()
		who := i.InvokingUser()
		if !ok || who == nil {
			return interactions.Message("I can't tell who is waving at whom.", interactions.Ephemeral()), nil
		}
		return interactions.Message(who.Username+" waves at "+target.Username+" 👋", interactions.NoMentions()), nil
	case "Quote":
		m, ok := i.Data.TargetMessage()
		if !ok || strings.TrimSpace(m.Content) == "" {
			return interactions.Message("That message has no text to quote.", interactions.Ephemeral()), nil
		}
		author := "someone"
		if m.Author != nil {
			author = m.Author.Username
		}
		quote := "> " + strings.ReplaceAll(clip(m.Content, 1800), "\n", "\n> ") + "\n— " + author
		return interactions.Message(clip(quote, 2000), interactions.NoMentions()), nil
	}
	return interactions.Message("Unknown command.", interactions.Ephemeral()), nil
}

// counterPrefix starts the custom_id of /counter's button; the count
// follows.
const counterPrefix = "counter:"

func counterText(n int) string { return fmt.Sprintf("Count: %d", n) }

// counterButton is the "+1" button of a counter at n.
func counterButton(n int) interactions.MessageOption {
	return interactions.WithComponents(interactions.Row(
		interactions.Button(counterPrefix+strconv.Itoa(n), "+1", interactions.ButtonPrimary)))
}

// press answers a button press: /counter's "+1" updates the message it
// is on to the next count.
func press(d *interactions.CommandData) interactions.Response {
	if count, ok := strings.CutPrefix(d.CustomID, counterPrefix); ok && d.ComponentType == interactions.ComponentButton {
		if n, err := strconv.Atoi(count); err == nil && n >= 0 && n < math.MaxInt {
			return interactions.UpdateMessage(counterText(n+1), counterButton(n+1))
		}
	}
	return interactions.Message("Unknown button.", interactions.Ephemeral())
}

// feedback answers the submission of /feedback's modal, quoting what was
// typed (for the user only, pinging nobody).
func feedback(d *interactions.CommandData) interactions.Response {
	text, _ := d.ModalValue("text")
	if d.CustomID != "feedback" || strings.TrimSpace(text) == "" {
		return interactions.Message("Thanks for your feedback!", interactions.Ephemeral())
	}
	return interactions.Message("Thanks for your feedback: "+clip(text, 1900),
		interactions.Ephemeral(), interactions.NoMentions())
}

// pick answers /pick.
func pick(d *interactions.CommandData) interactions.Response {
	opt, _ := d.Option("fruit")
	fruit, _ := opt.String()
	if !slices.Contains(fruits, fruit) {
		return interactions.Message(fmt.Sprintf("I don't know the fruit %q.", clip(fruit, 100)),
			interactions.Ephemeral(), interactions.NoMentions())
	}
	if opt, ok := d.Option("amount"); ok {
		if n, ok := opt.Int(); ok && n > 1 {
			return interactions.Message(fmt.Sprintf("You picked %d × %s.", n, fruit))
		}
	}
	return interactions.Message("You picked " + fruit + ".")
}

// autocomplete suggests fruits containing what the user typed so far, and
// amounts starting with it. An INTEGER option's value is the raw text
// typed, a string, in an autocomplete interaction.
func autocomplete(d *interactions.CommandData) interactions.Response {
	f, ok := d.Focused()
	if !ok {
		return interactions.Autocomplete()
	}
	typed, _ := f.String()
	typed = strings.ToLower(strings.TrimSpace(typed))
	var choices []interactions.Choice
	switch f.Name {
	case "fruit":
		for _, fr := range fruits {
			if strings.Contains(fr, typed) {
				choices = append(choices, interactions.Choice{Name: fr, Value: fr})
			}
		}
	case "amount":
		for n := 1; n <= maxAmount; n++ {
			if strings.HasPrefix(strconv.Itoa(n), typed) {
				choices = append(choices, interactions.Choice{Name: strconv.Itoa(n), Value: n})
			}
		}
	}
	return interactions.Autocomplete(choices...) // at most 25 are sent
}

// later runs work for interaction i, after delay, once the bot has
// answered it. The service takes the answer from the HTTP response, after
// handle has returned; until then the interaction's webhook is unknown
// (10015), so work failing that way is tried again for a few seconds.
// A 429 is waited out (its retry_after) and tried again, a few times, as
// the service asks every client to.
func (b *bot) later(i *interactions.Interaction, what string, delay time.Duration, work func(ctx context.Context) error) {
	b.background.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		time.Sleep(delay)
		wait, limited := 50*time.Millisecond, 0
		for {
			err := work(ctx)
			if err == nil {
				return
			}
			var apiErr *interactions.APIError
			switch {
			case errors.As(err, &apiErr) && apiErr.Status == http.StatusTooManyRequests && limited < maxRateLimited:
				limited++
				time.Sleep(apiErr.RetryAfter)
			case errors.As(err, &apiErr) && apiErr.Code == interactions.CodeUnknownWebhook && wait <= 2*time.Second:
				time.Sleep(wait)
				wait *= 2
			default:
				b.logf("bot: %s (interaction %s): %v", what, i.ID, err)
				return
			}
		}
	})
}

// maxRateLimited is how many 429s in a row a piece of work waits out
// before it gives up.
const maxRateLimited = 3

// clip shortens s to at most n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Command gatewaybot is a discordgo bot on the gateway, written as
// discordgo's README and examples teach: discordgo.New("Bot " + token),
// a handler for InteractionCreate that answers with InteractionRespond,
// Open, then wait for a signal. It answers /hello with "hello from the
// gateway". examples/testing/go's test runs it against slashd and has
// the gateway send it a RECONNECT, which discordgo survives by resuming.
//
// The one change from a bot for discord.com is where it connects:
// discordgo has no option for its base URL, so its http.Client gets a
// transport that sends discord.com's requests to SLASHD_URL (the path,
// /api/v9/…, unchanged), as internal/clienttest aims discordgo at slashd.
// The gateway URL comes from GET /gateway, which slashd answers with its
// own. Without SLASHD_URL it talks to discord.com.
//
//	DISCORD_TOKEN=<the app's bot token> SLASHD_URL=http://127.0.0.1:8080 go run ./examples/testing/go/gatewaybot
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
)

func main() {
	s, err := discordgo.New("Bot " + os.Getenv("DISCORD_TOKEN"))
	if err != nil {
		log.Fatalf("Invalid bot parameters: %v", err)
	}
	if base := os.Getenv("SLASHD_URL"); base != "" {
		target, err := url.Parse(base)
		if err != nil {
			log.Fatalf("SLASHD_URL: %v", err)
		}
		// discordgo's own client is &http.Client{Timeout: 20 * time.Second};
		// only the transport changes.
		s.Client = &http.Client{Transport: toSlashd{target: target, base: http.DefaultTransport}, Timeout: 20 * time.Second}
	}

	s.AddHandler(func(s *discordgo.Session, r *discordgo.Ready) {
		log.Printf("Logged in as: %v#%v", s.State.User.Username, s.State.User.Discriminator)
	})
	s.AddHandler(func(s *discordgo.Session, i *discordgo.InteractionCreate) {
		if i.Type != discordgo.InteractionApplicationCommand || i.ApplicationCommandData().Name != "hello" {
			return
		}
		err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "hello from the gateway"},
		})
		if err != nil {
			log.Printf("Cannot answer /hello: %v", err)
		}
	})

	if err := s.Open(); err != nil {
		log.Fatalf("Cannot open the session: %v", err)
	}
	defer s.Close()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	log.Println("Press Ctrl+C to exit")
	<-stop
	log.Println("Gracefully shutting down.")
}

// toSlashd sends discord.com's requests to target, keeping their path.
type toSlashd struct {
	target *url.URL
	base   http.RoundTripper
}

func (t toSlashd) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != "discord.com" {
		return nil, fmt.Errorf("gatewaybot: unexpected host %q", r.URL.Host)
	}
	out := r.Clone(r.Context())
	out.URL.Scheme = t.target.Scheme
	out.URL.Host = t.target.Host
	out.Host = ""
	return t.base.RoundTrip(out)
}

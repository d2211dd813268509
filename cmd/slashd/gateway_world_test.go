package main

import (
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/slashd/slashd/internal/testenv"
)

// toServer sends discordgo's requests for discord.com to the test server.
type toServer struct{ target *url.URL }

func (rt toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host = rt.target.Scheme, rt.target.Host, ""
	return http.DefaultTransport.RoundTrip(out)
}

// TestCLIWorldWritesReachTheGateway: the CLI writes the data directory
// of a running server from its own store handle (another process's
// writes, to the server), and a connected bot's cache sees each change:
// the guild created with --install appears (GUILD_CREATE), then its new
// role and channel.
func TestCLIWorldWritesReachTheGateway(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	srv := startServe(t, dir)
	creds := readCredentials(t, filepath.Join(dir, "bootstrap.json"))
	target, err := url.Parse(srv.base)
	if err != nil {
		t.Fatal(err)
	}
	s, err := discordgo.New("Bot " + creds["bot_token"])
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: toServer{target}, Timeout: 20 * time.Second}
	if err := s.Open(); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })

	// has reports whether the state's guild g holds what ok looks for.
	has := func(g string, ok func(*discordgo.Guild) bool) func() bool {
		return func() bool {
			s.State.RLock()
			defer s.State.RUnlock()
			for _, sg := range s.State.Guilds {
				if sg.ID == g {
					return ok(sg)
				}
			}
			return false
		}
	}
	testenv.WaitFor(t, "the demo guild", has(creds["guild_id"], func(*discordgo.Guild) bool { return true }))

	g := runJSON(t, dir, "guild", "create", "--name", "from-the-cli", "--install", creds["application_id"])["guild_id"].(string)
	testenv.WaitFor(t, "GUILD_CREATE of the CLI's guild", has(g, func(sg *discordgo.Guild) bool { return sg.Name == "from-the-cli" }))

	role := strOf(runJSON(t, dir, "role", "create", "--guild", g, "--name", "mods"), "id")
	testenv.WaitFor(t, "GUILD_ROLE_CREATE", has(g, func(sg *discordgo.Guild) bool {
		for _, r := range sg.Roles {
			if r.ID == role && r.Name == "mods" {
				return true
			}
		}
		return false
	}))
	ch := strOf(runJSON(t, dir, "channel", "create", "--guild", g, "--name", "cli-news"), "id")
	testenv.WaitFor(t, "CHANNEL_CREATE", has(g, func(sg *discordgo.Guild) bool {
		for _, c := range sg.Channels {
			if c.ID == ch && c.Name == "cli-news" {
				return true
			}
		}
		return false
	}))
}

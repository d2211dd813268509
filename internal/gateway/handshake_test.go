package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/testenv"
)

// TestHello: the first frame is Hello with the configured heartbeat
// interval in milliseconds, whatever the client sends first.
func TestHello(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		interval time.Duration
		want     int64
	}{
		{"default: the real gateway's 41.25 s", 0, 41250},
		{"configured", 1234 * time.Millisecond, 1234},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t, func(c *api.Config) {
				if tc.interval != 0 {
					c.Gateway.HeartbeatInterval = tc.interval
				}
			})
			for _, q := range []string{"v=10&encoding=json", "v=9&encoding=json", "v=10", ""} {
				c := dialQuery(t, e, q)
				if got := c.hello(); got != tc.want {
					t.Fatalf("?%s: heartbeat_interval %d, want %d", q, got, tc.want)
				}
			}
		})
	}
}

// TestHeartbeat: op 1 is answered with op 11, before and after Identify,
// with d null or the last sequence number.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	c := dial(t, e)
	c.hello()
	ack := func(d any) {
		t.Helper()
		c.send(1, d)
		f := c.expect(11)
		if f.S != nil || f.T != nil {
			t.Fatalf("heartbeat ACK with s or t set: %s", f)
		}
	}
	ack(nil)
	ack(nil)
	c.send(2, identifyData(e.Bot(), 0))
	c.ready()
	ack(1)
	ack(nil)
}

// TestIdentify: a bot token with or without "Bot " gets READY (v, the
// bot user, its guilds as unavailable, session, resume URL, shard,
// application), then one GUILD_CREATE per guild only with the GUILDS
// intent; the next dispatch continues the sequence.
func TestIdentify(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ctx := context.Background()
	app, g1 := appID(t, e), guildID(t, e)
	g2, err := bootstrap.CreateGuild(ctx, e.Bootstrap(), "second", mustID(t, e.App.OwnerUserID), app)
	if err != nil {
		t.Fatal(err)
	}
	// A guild of another app only: not the bot's.
	other := e.NewApp(bootstrap.AppOptions{Name: "other"})
	guilds := []string{g1.String(), g2.String()}
	slices.Sort(guilds)
	host := strings.TrimPrefix(e.URL, "http://")

	cases := []struct {
		name    string
		query   string
		token   string
		intents uint64
		v       int
	}{
		{"Bot prefix, GUILDS", "v=10&encoding=json", "Bot " + e.App.BotToken, 1, 10},
		{"bare token, GUILDS", "v=10&encoding=json", e.App.BotToken, 1, 10},
		{"no intents", "v=10&encoding=json", e.Bot(), 0, 10},
		{"unprivileged intents without GUILDS", "v=10&encoding=json", e.Bot(), 1<<9 | 1<<12 | 1<<25, 10},
		{"v9 (discordgo's default)", "v=9&encoding=json", e.Bot(), 1 | 1<<9, 9},
		{"no query: v10", "", e.App.BotToken, 1, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialQuery(t, e, tc.query)
			c.hello()
			c.send(2, identifyData(tc.token, tc.intents))
			r := c.ready()
			if r.V != tc.v {
				t.Errorf("READY v %d, want %d", r.V, tc.v)
			}
			if r.User.ID != app.String() || !r.User.Bot {
				t.Errorf("READY user %+v, want the bot %s with bot true", r.User, app)
			}
			var got []string
			for _, g := range r.Guilds {
				if g.Unavailable == nil || !*g.Unavailable {
					t.Errorf("READY guild %s not unavailable: true", g.ID)
				}
				got = append(got, g.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, guilds) {
				t.Errorf("READY guilds %v, want %v (not %s's)", got, guilds, other.GuildID)
			}
			if len(r.SessionID) < 16 {
				t.Errorf("READY session_id %q", r.SessionID)
			}
			if r.ResumeGatewayURL != "ws://"+host+"/gateway" {
				t.Errorf("READY resume_gateway_url %q, want ws://%s/gateway", r.ResumeGatewayURL, host)
			}
			if !slices.Equal(r.Shard, []int{0, 1}) {
				t.Errorf("READY shard %v, want [0 1]", r.Shard)
			}
			if r.Application == nil || r.Application.ID != app.String() || r.Application.Flags == nil {
				t.Errorf("READY application %+v, want {id: %s, flags}", r.Application, app)
			}
			seq := int64(1)
			if tc.intents&1 != 0 {
				var created []string
				for range guilds {
					f := c.dispatch("GUILD_CREATE")
					seq++
					if f.seq() != seq {
						t.Errorf("GUILD_CREATE s %d, want %d", f.seq(), seq)
					}
					var d struct {
						ID          string            `json:"id"`
						Name        string            `json:"name"`
						Unavailable *bool             `json:"unavailable"`
						Channels    []json.RawMessage `json:"channels"`
						Roles       []json.RawMessage `json:"roles"`
						Members     []struct {
							User struct {
								ID string `json:"id"`
							} `json:"user"`
						} `json:"members"`
					}
					if err := json.Unmarshal(f.D, &d); err != nil {
						t.Fatalf("decode GUILD_CREATE %s: %v", f.D, err)
					}
					// After READY: "unavailable": false, the guild READY
					// listed as unavailable now is.
					if d.Name == "" || d.Unavailable == nil || *d.Unavailable || d.Channels == nil || len(d.Roles) == 0 ||
						len(d.Members) != 1 || d.Members[0].User.ID != app.String() {
						t.Errorf("GUILD_CREATE %s: want a named, available guild with channels, roles and the bot's member", f.D)
					}
					created = append(created, d.ID)
				}
				slices.Sort(created)
				if !slices.Equal(created, guilds) {
					t.Errorf("GUILD_CREATE for %v, want %v", created, guilds)
				}
			}
			// Without GUILDS the next dispatch is the event, not a
			// GUILD_CREATE; with it the sequence goes on after them.
			interaction(e, app, g1, 7)
			n, _, s := c.interactionN()
			if n != 7 || s != seq+1 {
				t.Errorf("INTERACTION_CREATE %d with s %d, want 7 with s %d", n, s, seq+1)
			}
		})
	}
}

// TestPrivilegedIntents: an app whose flags allow a privileged intent
// may ask for it (the flag or its _LIMITED twin).
func TestPrivilegedIntents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		flags   uint64
		intents uint64
	}{
		{"GUILD_MEMBERS with GATEWAY_GUILD_MEMBERS", 1 << 14, 1 << 1},
		{"GUILD_MEMBERS with GATEWAY_GUILD_MEMBERS_LIMITED", 1 << 15, 1 << 1},
		{"GUILD_PRESENCES with GATEWAY_PRESENCE", 1 << 12, 1 << 8},
		{"GUILD_PRESENCES with GATEWAY_PRESENCE_LIMITED", 1 << 13, 1 << 8},
		{"MESSAGE_CONTENT with GATEWAY_MESSAGE_CONTENT", 1 << 18, 1 << 15},
		{"MESSAGE_CONTENT with GATEWAY_MESSAGE_CONTENT_LIMITED", 1 << 19, 1 << 15},
		{"all three", 1<<12 | 1<<14 | 1<<18, 1<<1 | 1<<8 | 1<<15 | 1},
	}
	e := testenv.New(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cr := e.NewApp(bootstrap.AppOptions{Name: "priv"})
			id := mustID(t, cr.ApplicationID)
			if err := e.API.Store().SetApplicationFlags(context.Background(), id, tc.flags); err != nil {
				t.Fatal(err)
			}
			c := dial(t, e)
			c.hello()
			c.send(2, identifyData(cr.BotToken, tc.intents))
			r := c.ready()
			if r.Application == nil || r.Application.Flags == nil || *r.Application.Flags != tc.flags {
				t.Fatalf("READY application %+v, want flags %d", r.Application, tc.flags)
			}
		})
	}
}

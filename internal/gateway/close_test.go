package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/gateway"
	"github.com/slashd/slashd/internal/testenv"
)

// padded is a heartbeat payload of exactly n bytes (padded with a field
// the gateway ignores).
func padded(n int) []byte {
	head, tail := `{"op":1,"d":null,"pad":"`, `"}`
	return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

// TestCloseCodes: what the client does wrong and the close code (and the
// real gateway's reason) it gets.
func TestCloseCodes(t *testing.T) {
	t.Parallel()
	shared := testenv.New(t)
	cases := []struct {
		name   string
		opt    testenv.Option // a server of its own when set
		query  string         // default v=10&encoding=json
		noHi   bool           // the server closes before Hello
		run    func(t *testing.T, e *testenv.Env, c *client)
		code   websocket.StatusCode
		reason string // empty: not checked
	}{
		// 4001
		{name: "unknown op 5", run: sendRaw(`{"op":5,"d":null}`), code: 4001, reason: "Unknown opcode."},
		{name: "unknown op 99", run: sendRaw(`{"op":99,"d":{}}`), code: 4001, reason: "Unknown opcode."},
		{name: "op 10 from the client", run: sendRaw(`{"op":10,"d":null}`), code: 4001, reason: "Unknown opcode."},
		{name: "unknown op after identify", run: identified(`{"op":12,"d":null}`), code: 4001, reason: "Unknown opcode."},

		// 4002
		{name: "invalid JSON", run: sendRaw(`{"op":1,`), code: 4002, reason: "Error while decoding payload."},
		{name: "not JSON", run: sendRaw(`hello`), code: 4002, reason: "Error while decoding payload."},
		{name: "missing op", run: sendRaw(`{"d":null}`), code: 4002, reason: "Error while decoding payload."},
		{name: "op null", run: sendRaw(`{"op":null,"d":null}`), code: 4002, reason: "Error while decoding payload."},
		{name: "op a string", run: sendRaw(`{"op":"1","d":null}`), code: 4002, reason: "Error while decoding payload."},
		{name: "identify d not an object", run: sendRaw(`{"op":2,"d":"token"}`), code: 4002, reason: "Error while decoding payload."},
		{name: "resume d not an object", run: sendRaw(`{"op":6,"d":[1]}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d an object", run: sendRaw(`{"op":1,"d":{"seq":1}}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d a string", run: sendRaw(`{"op":1,"d":"1"}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d a fraction", run: sendRaw(`{"op":1,"d":1.5}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d an exponent", run: sendRaw(`{"op":1,"d":1e3}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d true", run: sendRaw(`{"op":1,"d":true}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d an array", run: sendRaw(`{"op":1,"d":[]}`), code: 4002, reason: "Error while decoding payload."},
		{name: "heartbeat d beyond int64", run: sendRaw(`{"op":1,"d":9223372036854775808}`), code: 4002,
			reason: "Error while decoding payload."},
		{name: "heartbeat d an object after identify", run: identified(`{"op":1,"d":{}}`), code: 4002,
			reason: "Error while decoding payload."},
		{name: "payload of 4097 bytes", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.sendRaw(padded(4096)) // the limit itself is fine
			c.expect(11)
			c.sendRaw(padded(4097))
		}, code: 4002, reason: "Error while decoding payload."},
		{name: "payload of 20000 bytes", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.sendRaw(padded(20000))
		}, code: 4002, reason: "Error while decoding payload."},
		{name: "payload over a configured MaxPayload", opt: func(c *api.Config) { c.Gateway.MaxPayload = 100 },
			run: func(t *testing.T, e *testenv.Env, c *client) {
				c.sendRaw(padded(100))
				c.expect(11)
				c.sendRaw(padded(101))
			}, code: 4002},

		// 4003
		{name: "op 3 before identify", run: sendRaw(`{"op":3,"d":{"since":null,"activities":[],"status":"online","afk":false}}`), code: 4003, reason: "Not authenticated."},
		{name: "op 4 before identify", run: sendRaw(`{"op":4,"d":{"guild_id":"1","channel_id":null,"self_mute":false,"self_deaf":false}}`), code: 4003, reason: "Not authenticated."},
		{name: "op 8 before identify", run: sendRaw(`{"op":8,"d":{"guild_id":"1","query":"","limit":0}}`), code: 4003, reason: "Not authenticated."},

		// 4004
		{name: "unknown token", run: identify("Bot MTIz.abc.def", 0), code: 4004, reason: "Authentication failed."},
		{name: "empty token", run: sendRaw(`{"op":2,"d":{"token":"","intents":0,"properties":{}}}`), code: 4004, reason: "Authentication failed."},
		{name: "owner's Bearer token", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.App.OwnerBearerToken, 0))
		}, code: 4004, reason: "Authentication failed."},
		{name: "resume with an unknown token", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(6, map[string]any{"token": "Bot nope", "session_id": "x", "seq": 0})
		}, code: 4004, reason: "Authentication failed."},

		// 4005
		{name: "second identify", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.Bot(), 0))
			c.ready()
			c.send(2, identifyData(e.Bot(), 0))
		}, code: 4005, reason: "Already authenticated."},
		{name: "resume after identify", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.Bot(), 0))
			r := c.ready()
			c.send(6, map[string]any{"token": e.Bot(), "session_id": r.SessionID, "seq": 1})
		}, code: 4005, reason: "Already authenticated."},

		// 4007
		{name: "resume with a seq beyond the session's", run: func(t *testing.T, e *testenv.Env, c *client) {
			old := dial(t, e)
			r := old.login(e, 1) // READY and one GUILD_CREATE: seq 2
			old.dispatch("GUILD_CREATE")
			_ = old.ws.CloseNow()
			c.send(6, map[string]any{"token": e.Bot(), "session_id": r.SessionID, "seq": 3})
		}, code: 4007, reason: "Invalid seq."},

		// 4008
		{name: "more than SendLimit payloads in SendWindow", opt: func(c *api.Config) {
			c.Gateway.SendLimit, c.Gateway.SendWindow = 3, time.Minute
		}, run: func(t *testing.T, e *testenv.Env, c *client) {
			for range 3 {
				c.send(1, nil)
				c.expect(11)
			}
			c.send(1, nil)
		}, code: 4008, reason: "Rate limited."},
		{name: "identify counts against SendLimit", opt: func(c *api.Config) {
			c.Gateway.SendLimit, c.Gateway.SendWindow = 2, time.Minute
		}, run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.Bot(), 0))
			c.ready()
			c.send(1, 1)
			c.expect(11)
			c.send(1, 1)
		}, code: 4008, reason: "Rate limited."},

		// 4009: by the server's clock (the test clock, moved by the test;
		// the default interval is far beyond the test's real time).
		{name: "no heartbeat within 1.5 intervals", opt: ownEnv, run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.Bot(), 0))
			c.ready()
			e.Clock.Advance(heartbeatTimeout)
		}, code: 4009, reason: "Session timed out."},
		{name: "heartbeats stop", opt: func(c *api.Config) { c.Gateway.IdentifyTimeout = time.Hour }, run: func(t *testing.T, e *testenv.Env, c *client) {
			// Each heartbeat keeps it open another 1.5 intervals: three
			// heartbeats half a timeout apart hold it past one timeout.
			// Frozen, only Advance moves the clock, so the real time a
			// loaded machine takes between steps does not count.
			e.Clock.Freeze()
			for range 3 {
				e.Clock.Advance(heartbeatTimeout / 2)
				c.send(1, nil)
				c.expect(11)
			}
			e.Clock.Advance(heartbeatTimeout)
		}, code: 4009, reason: "Session timed out."},

		// 4009: no IDENTIFY or RESUME within IdentifyTimeout, heartbeats
		// or not.
		{name: "no identify within IdentifyTimeout", opt: func(c *api.Config) { c.Gateway.IdentifyTimeout = 30 * time.Second },
			run: func(t *testing.T, e *testenv.Env, c *client) {
				e.Clock.Freeze()
				c.send(1, nil)
				c.expect(11)
				e.Clock.Advance(29 * time.Second)
				c.send(1, nil) // heartbeats do not stand in for IDENTIFY
				c.expect(11)
				e.Clock.Advance(time.Second)
			}, code: 4009, reason: "Session timed out."},
		{name: "no identify after a refused resume", opt: func(c *api.Config) { c.Gateway.IdentifyTimeout = 30 * time.Second },
			run: func(t *testing.T, e *testenv.Env, c *client) {
				e.Clock.Freeze()
				e.Clock.Advance(20 * time.Second)
				c.send(6, map[string]any{"token": e.Bot(), "session_id": "gone", "seq": 1})
				c.expect(9) // a new window to identify starts here
				e.Clock.Advance(20 * time.Second)
				c.send(1, nil)
				c.expect(11)
				e.Clock.Advance(10 * time.Second)
			}, code: 4009, reason: "Session timed out."},

		// 4010
		{name: "shard [1,1]", run: identifyShard(1, 1), code: 4010, reason: "Invalid shard."},
		{name: "shard [0,0]", run: identifyShard(0, 0), code: 4010, reason: "Invalid shard."},
		{name: "shard [2,2]", run: identifyShard(2, 2), code: 4010, reason: "Invalid shard."},
		{name: "shard [-1,2]", run: identifyShard(-1, 2), code: 4010, reason: "Invalid shard."},
		{name: "shard [0]", run: identifyShard(0), code: 4010, reason: "Invalid shard."},

		// 4011
		{name: "more guilds than GuildsPerShard", opt: func(c *api.Config) { c.Gateway.GuildsPerShard = 1 },
			run: func(t *testing.T, e *testenv.Env, c *client) {
				_, err := bootstrap.CreateGuild(context.Background(), e.Bootstrap(), "second",
					mustID(t, e.App.OwnerUserID), appID(t, e))
				if err != nil {
					t.Fatal(err)
				}
				c.send(2, identifyData(e.Bot(), 0))
			}, code: 4011, reason: "Sharding required."},

		// 4012
		{name: "v=5", query: "v=5&encoding=json", noHi: true, code: 4012, reason: "Invalid API version."},
		{name: "v=11", query: "v=11&encoding=json", noHi: true, code: 4012, reason: "Invalid API version."},
		{name: "v=ten", query: "v=ten&encoding=json", noHi: true, code: 4012, reason: "Invalid API version."},
		{name: "encoding=etf", query: "v=10&encoding=etf", noHi: true, code: 4012},

		// 4013
		{name: "missing intents", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.send(2, identifyData(e.Bot(), nil))
		}, code: 4013, reason: "Invalid intent(s)."},
		{name: "intents null", run: func(t *testing.T, e *testenv.Env, c *client) {
			c.sendRaw([]byte(`{"op":2,"d":{"token":"` + e.Bot() + `","intents":null,"properties":{}}}`))
		}, code: 4013, reason: "Invalid intent(s)."},
		{name: "unknown intent 1<<17", run: identify("", 1<<17), code: 4013, reason: "Invalid intent(s)."},
		{name: "unknown intent 1<<22 with known ones", run: identify("", 1|1<<9|1<<22), code: 4013, reason: "Invalid intent(s)."},
		{name: "unknown intent 1<<40", run: identify("", 1<<40), code: 4013, reason: "Invalid intent(s)."},

		// 4014
		{name: "GUILD_MEMBERS without the flag", run: identify("", 1<<1), code: 4014, reason: "Disallowed intent(s)."},
		{name: "GUILD_PRESENCES without the flag", run: identify("", 1<<8), code: 4014, reason: "Disallowed intent(s)."},
		{name: "MESSAGE_CONTENT without the flag", run: identify("", 1<<15), code: 4014, reason: "Disallowed intent(s)."},
		{name: "MESSAGE_CONTENT among others", run: identify("", 1|1<<9|1<<15), code: 4014, reason: "Disallowed intent(s)."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := shared
			if tc.opt != nil {
				e = testenv.New(t, tc.opt)
			}
			q := tc.query
			if q == "" {
				q = "v=10&encoding=json"
			}
			c := dialQuery(t, e, q)
			if !tc.noHi {
				c.hello()
			}
			if tc.run != nil {
				tc.run(t, e, c)
			}
			c.closed(tc.code, tc.reason)
		})
	}
}

// heartbeatTimeout is how long the gateway waits for a heartbeat: 1.5
// of the default interval.
var heartbeatTimeout = gateway.DefaultConfig().HeartbeatInterval * 3 / 2

// ownEnv gives a case a server of its own (its clock is moved).
func ownEnv(*api.Config) {}

func sendRaw(s string) func(*testing.T, *testenv.Env, *client) {
	return func(_ *testing.T, _ *testenv.Env, c *client) { c.sendRaw([]byte(s)) }
}

// identified identifies with the env's bot, then sends s.
func identified(s string) func(*testing.T, *testenv.Env, *client) {
	return func(_ *testing.T, e *testenv.Env, c *client) {
		c.send(2, identifyData(e.Bot(), 0))
		c.ready()
		c.sendRaw([]byte(s))
	}
}

// identify sends Identify with token ("": the env's bot) and intents.
func identify(token string, intents uint64) func(*testing.T, *testenv.Env, *client) {
	return func(_ *testing.T, e *testenv.Env, c *client) {
		if token == "" {
			token = e.Bot()
		}
		c.send(2, identifyData(token, intents))
	}
}

func identifyShard(shard ...int) func(*testing.T, *testenv.Env, *client) {
	return func(_ *testing.T, e *testenv.Env, c *client) {
		d := identifyData(e.Bot(), 0)
		d["shard"] = shard
		c.send(2, d)
	}
}

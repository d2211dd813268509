// Package slashdtest tests a bot against slashd from Go: in a test world
// on the server `slashd test` started, or on one running in the test's
// own process, through the same API.
//
// # Test worlds
//
// A test world (docs/worlds.md) is made from a spec of users, apps,
// guilds, channels and members; the test acts as its users and checks
// what they see:
//
//	func TestEchoWorld(t *testing.T) {
//		ctx := t.Context()
//		c := slashdtest.ConnectOrStart(t) // slashd test's server, else one in-process
//		w, err := c.World(ctx, echoWorld) // or c.OpenWorld(ctx, name): a --world of slashd test
//		if err != nil {
//			t.Fatal(err)
//		}
//		defer w.Delete(ctx)
//		bot := httptest.NewServer(interactions.Handler(w.Apps["echo"].PublicKey, echo))
//		defer bot.Close()
//		if err := w.SetInteractionsEndpoint(ctx, "echo", bot.URL); err != nil {
//			t.Fatal(err)
//		}
//		r, err := w.As("alice").In("general").Run(ctx, "/echo text:hello")
//		if err != nil || r.Content != "hello" {
//			t.Fatalf("/echo: %v %s", err, r)
//		}
//	}
//
// where echoWorld is the spec (JSON, YAML, or a value encoding to JSON:
// alice in a guild with #general, the app "echo" installed with its
// command) and echo the bot's sdk/interactions handler function (a bot
// running as its own process is started the same way, with the app's
// credentials, and registers its own commands: RegisterGuildCommands).
//
// [Connect] reads the environment `slashd test` gives the command it runs
// (SLASHD_URL, SLASHD_ADMIN_TOKEN) and fails with [ErrNoServer] outside
// it; [ConnectTo] takes any server's URL and admin token;
// [Server.Client] is an in-process server (Start) as a [Client];
// [ConnectOrStart] picks the first or the last. Everything goes over
// slashd's admin API (/admin/v1/worlds…), the standard library's HTTP
// client only.
//
// [Client.World] answers with the world's handles: [World].Users, Apps
// (ids, bot token, public key, client secret, command ids), Guilds (role
// and channel ids), DMs and the Bearer tokens of its grants, all by the
// spec's handles. In it:
//
//   - w.As(user).In(channel) is an [Actor]: Run a command line ("/pick
//     fruit:mango amount:3", handles where ids go: user:@bob), Autocomplete
//     one, UserCommand, MessageCommand, Say, Click, Select, Submit. Each
//     answers with an [Answer]: Content, Embeds, Components, Attachments,
//     Ephemeral, Modal, Choices and Outcome (OutcomeAnswered,
//     OutcomeDeferredThenFilled, OutcomeDeferredNotFilled, OutcomeFailed
//     with Failure). Waiting sets how long a deferred answer is waited for
//     (10 s by default).
//   - answer.Click(ctx, "+1") and answer.Select(ctx, "menu", "a") act on
//     the answer's message; answer.Modal.Submit(ctx, map[string]string{…})
//     fills in the modal it opened.
//   - w.Events() is its journal (docs/journal.md): WaitFor(ctx, match)
//     waits for an entry ("the follow-up was posted"), Failures(ctx) lists
//     what the bots got wrong (a good run ends with none), List reads it.
//   - w.Fault(ctx, Fault{Kind: "rest.429", App: "modbot", …}) makes the
//     service misbehave (docs/faults.md); Faults, ClearFaults.
//   - w.Clock().Advance(ctx, "15m") moves the world's clock; w.Reset(ctx)
//     puts the world back as its spec made it; w.Delete(ctx) removes it.
//   - w.SetInteractionsEndpoint and w.RegisterGuildCommands do what a
//     bot's deployment does; [Client.Do] sends any other request.
//
// Refusals are [*APIError] with slashd's status, code and message: a
// command the member may not use is 403 50013, an unknown one 404 10063, a
// bad spec 400 50035 with the path of each error.
//
// examples/testing/go is a whole suite written this way: examples/bot,
// run as its own process, tested under `slashd test`.
//
// # An in-process server and its members
//
// [Start] runs slashd inside a Go test, so a bot author can invoke their
// application's commands as a guild member and check the replies, with no
// Discord account, no running service and no network beyond loopback.
// It also serves test worlds ([Server.World]).
//
// [Start] starts an in-process slashd on a temporary SQLite database with
// a small world: one application installed (with its bot) in one guild
// that has a #general text channel, all shut down and removed when the
// test ends. [Server.ServeApp] serves the application under test (any
// http.Handler that answers an Interactions Endpoint, such as one built
// with sdk/interactions) and makes it the application's Interactions
// Endpoint; [Server.RegisterGuildCommands] registers its commands with
// the bot token, as the bot does at start-up; [Server.NewMember] adds a
// member who invokes them with [Member.Invoke], [Member.InvokeUser],
// [Member.InvokeMessage] and [Member.Autocomplete]:
//
//	func TestEcho(t *testing.T) {
//		s := slashdtest.Start(t)
//		s.ServeApp(interactions.Handler(s.PublicKey, echo))
//		ctx := context.Background()
//		if err := s.RegisterGuildCommands(ctx, echoCommands); err != nil {
//			t.Fatal(err)
//		}
//		alice := s.NewMember("alice")
//		reply, err := alice.Invoke(ctx, "echo", slashdtest.String("text", "hello"))
//		if err != nil {
//			t.Fatal(err)
//		}
//		if reply.Message.Content != "hello" {
//			t.Errorf("echo answered %q, want %q", reply.Message.Content, "hello")
//		}
//	}
//
// where echo is the bot's sdk/interactions handler function and
// echoCommands its command definitions (a []map[string]any here; the
// bot's own command structs or JSON work as well).
//
// Everything goes through slashd's HTTP API as a real client and a real
// bot would use it, so what the test sees is what users would: the
// deliveries are signed, the options are validated against the command's
// definition, permissions (default_member_permissions, permission
// overwrites, age restriction) decide who may use a command, and the app
// has 3 seconds to answer. Slashd's refusals come back as an [*APIError]
// with the real service's status, code and message.
//
// The bot's own REST calls (follow-up messages, edits of the reply,
// command registration at start-up) can go to the same server: its API is
// under [Server].URL+"/api/v10", with [Server].BotToken.
package slashdtest

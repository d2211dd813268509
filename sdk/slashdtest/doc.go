// Package slashdtest runs slashd inside a Go test, so a bot author can
// invoke their application's commands as a guild member and check the
// replies, with no Discord account, no running service and no network
// beyond loopback.
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

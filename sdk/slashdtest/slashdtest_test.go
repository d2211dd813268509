package slashdtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/sdk/interactions"
	"github.com/slashd/slashd/sdk/slashdtest"
)

// commands are the definitions of the bot under test, botHandler.
var commands = []map[string]any{
	{"name": "echo", "description": "Say it back", "options": []map[string]any{
		{"type": 3, "name": "text", "description": "What to say", "required": true},
	}},
	{"name": "add", "description": "Add numbers", "options": []map[string]any{
		{"type": 4, "name": "a", "description": "A", "required": true},
		{"type": 10, "name": "b", "description": "B", "required": true},
		{"type": 5, "name": "negate", "description": "Negate the sum"},
	}},
	{"name": "whois", "description": "Who is it", "options": []map[string]any{
		{"type": 6, "name": "user", "description": "A user", "required": true},
		{"type": 7, "name": "where", "description": "A channel"},
		{"type": 8, "name": "role", "description": "A role"},
	}},
	{"name": "config", "description": "Settings", "options": []map[string]any{
		{"type": 2, "name": "greeting", "description": "The greeting", "options": []map[string]any{
			{"type": 1, "name": "set", "description": "Set it", "options": []map[string]any{
				{"type": 3, "name": "text", "description": "The greeting", "required": true},
			}},
			{"type": 1, "name": "reset", "description": "Reset it"},
		}},
	}},
	{"name": "secret", "description": "Whisper"},
	{"name": "feedback", "description": "Tell us"},
	{"name": "fruit", "description": "Pick a fruit", "options": []map[string]any{
		{"type": 3, "name": "name", "description": "The fruit", "required": true, "autocomplete": true},
		{"type": 4, "name": "count", "description": "How many", "autocomplete": true},
	}},
	{"name": "ban", "description": "Ban someone", "default_member_permissions": "8"},
	{"name": "spicy", "description": "Age-restricted", "nsfw": true},
	{"type": 2, "name": "High five"},
	{"type": 3, "name": "Quote"},
}

var fruits = []string{"apple", "apricot", "banana", "cherry"}

// botHandler is the bot under test.
func botHandler(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
	d := i.Data
	str := func(name string) string {
		o, _ := d.Option(name)
		s, _ := o.String()
		return s
	}
	if i.Type == interactions.InteractionAutocomplete {
		focused, _ := d.Focused()
		var choices []interactions.Choice
		switch focused.Name {
		case "name":
			typed, _ := focused.String()
			for _, f := range fruits {
				if strings.HasPrefix(f, typed) {
					choices = append(choices, interactions.Choice{Name: strings.ToUpper(f[:1]) + f[1:], Value: f})
				}
			}
		case "count":
			n, _ := focused.Int()
			for _, k := range []int64{1, 10, 100} {
				choices = append(choices, interactions.Choice{Name: fmt.Sprint(n * k), Value: n * k})
			}
		}
		return interactions.Autocomplete(choices...), nil
	}
	switch d.Name {
	case "echo":
		return interactions.Message("you said " + str("text")), nil
	case "add":
		ao, _ := d.Option("a")
		a, _ := ao.Int()
		bo, _ := d.Option("b")
		b, _ := bo.Float()
		sum := float64(a) + b
		if no, ok := d.Option("negate"); ok {
			if neg, _ := no.Bool(); neg {
				sum = -sum
			}
		}
		return interactions.Message(fmt.Sprint(sum)), nil
	case "whois":
		uo, _ := d.Option("user")
		id, _ := uo.Snowflake()
		out := d.Resolved.Users[id].Username
		if co, ok := d.Option("where"); ok {
			cid, _ := co.Snowflake()
			out += " in #" + d.Resolved.Channels[cid].Name
		}
		if ro, ok := d.Option("role"); ok {
			rid, _ := ro.Snowflake()
			out += " as " + d.Resolved.Roles[rid].Name
		}
		return interactions.Message(out), nil
	case "config":
		return interactions.Message(strings.Join(d.SubcommandPath(), " ") + ": " + str("text")), nil
	case "secret":
		return interactions.Message("psst", interactions.Ephemeral()), nil
	case "feedback":
		return interactions.Modal("feedback-form", "Feedback",
			interactions.TextInputRow("text", "Your feedback", interactions.TextInputParagraph)), nil
	case "ban", "spicy":
		return interactions.Message(d.Name + " done"), nil
	case "High five":
		target, _ := d.TargetUser()
		return interactions.Message(i.InvokingUser().Username + " high-fives " + target.Username), nil
	case "Quote":
		msg, _ := d.TargetMessage()
		return interactions.Message("> " + msg.Content), nil
	}
	return interactions.Message("unknown command " + d.Name), nil
}

// start is a server running botHandler with its commands registered.
func start(t *testing.T, opts ...slashdtest.Option) *slashdtest.Server {
	t.Helper()
	s := slashdtest.Start(t, opts...)
	s.ServeApp(interactions.Handler(s.PublicKey, botHandler))
	if err := s.RegisterGuildCommands(context.Background(), commands); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStartWorld(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t)
	for name, v := range map[string]string{"URL": s.URL, "ApplicationID": s.ApplicationID, "GuildID": s.GuildID,
		"ChannelID": s.ChannelID, "BotToken": s.BotToken, "PublicKey": s.PublicKey, "AdminToken": s.AdminToken} {
		if v == "" {
			t.Errorf("Server.%s is empty", name)
		}
	}
	if s.Owner == nil || s.Owner.ID == "" || s.Owner.Token == "" || s.Owner.ChannelID != s.ChannelID {
		t.Errorf("Owner: %+v", s.Owner)
	}
	// The bot token works: the app has no commands yet.
	req, _ := http.NewRequest("GET", s.URL+"/api/v10/applications/"+s.ApplicationID+"/commands", nil)
	req.Header.Set("Authorization", "Bot "+s.BotToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("list commands with the bot token: %d", resp.StatusCode)
	}
}

func TestInvokeChatInput(t *testing.T) {
	t.Parallel()
	s := start(t)
	alice := s.NewMember("alice")
	bob := s.NewMember("bob")
	role := s.NewRole("gardener", "0")
	offTopic := s.NewChannel("off-topic")
	tests := []struct {
		name    string
		command string
		options []slashdtest.CommandOption
		want    string
	}{
		{"string", "echo", []slashdtest.CommandOption{slashdtest.String("text", "hello")}, "you said hello"},
		{"int and number", "add", []slashdtest.CommandOption{slashdtest.Int("a", 40), slashdtest.Number("b", 2.5)}, "42.5"},
		{"bool", "add", []slashdtest.CommandOption{
			slashdtest.Int("a", 1), slashdtest.Number("b", 1), slashdtest.Bool("negate", true)}, "-2"},
		{"user", "whois", []slashdtest.CommandOption{slashdtest.User("user", bob.ID)}, "bob"},
		{"user, channel and role", "whois", []slashdtest.CommandOption{
			slashdtest.User("user", bob.ID), slashdtest.Channel("where", offTopic), slashdtest.Role("role", role)},
			"bob in #off-topic as gardener"},
		{"group and subcommand", "config", []slashdtest.CommandOption{
			slashdtest.Group("greeting", slashdtest.Subcommand("set", slashdtest.String("text", "hi")))},
			"greeting set: hi"},
		{"subcommand without options", "config", []slashdtest.CommandOption{
			slashdtest.Group("greeting", slashdtest.Subcommand("reset"))}, "greeting reset: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := alice.Invoke(context.Background(), tt.command, tt.options...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Type != slashdtest.ReplyMessage || r.Message == nil {
				t.Fatalf("reply %s, want a message", r.Raw)
			}
			if r.Message.Content != tt.want || r.Message.AuthorID != s.ApplicationID || r.Message.ChannelID != s.ChannelID ||
				r.Message.Ephemeral || r.InteractionID == "" {
				t.Errorf("reply %s, want %q by the app", r.Message, tt.want)
			}
		})
	}
}

func TestModalReply(t *testing.T) {
	t.Parallel()
	s := start(t)
	r, err := s.NewMember("alice").Invoke(context.Background(), "feedback")
	if err != nil {
		t.Fatal(err)
	}
	var modal struct {
		CustomID string `json:"custom_id"`
		Title    string `json:"title"`
	}
	if r.Type != slashdtest.ReplyModal || r.Message != nil || json.Unmarshal(r.Modal, &modal) != nil ||
		modal.CustomID != "feedback-form" || modal.Title != "Feedback" {
		t.Errorf("reply %s, want the feedback modal", r)
	}
}

func TestInvokeContextMenuCommands(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	alice, bob := s.NewMember("alice"), s.NewMember("bob")
	said, err := bob.Say(ctx, "to be or not to be")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		invoke func() (*slashdtest.Reply, error)
		want   string
	}{
		{"user", func() (*slashdtest.Reply, error) { return alice.InvokeUser(ctx, "High five", bob.ID) }, "alice high-fives bob"},
		{"message", func() (*slashdtest.Reply, error) { return alice.InvokeMessage(ctx, "Quote", said) }, "> to be or not to be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.invoke()
			if err != nil {
				t.Fatal(err)
			}
			if r.Message == nil || r.Message.Content != tt.want {
				t.Errorf("reply %s, want %q", r.Raw, tt.want)
			}
		})
	}
	// A context menu command is not a chat input command.
	if _, err := alice.Invoke(ctx, "High five"); !errors.Is(err, slashdtest.ErrUnknownCommand) {
		t.Errorf("Invoke of a user command: %v, want ErrUnknownCommand", err)
	}
}

func TestAutocomplete(t *testing.T) {
	t.Parallel()
	s := start(t)
	alice := s.NewMember("alice")
	tests := []struct {
		name    string
		options []slashdtest.CommandOption
		want    []slashdtest.Choice
	}{
		{"prefix", []slashdtest.CommandOption{slashdtest.Focused(slashdtest.String("name", "ap"))},
			[]slashdtest.Choice{{Name: "Apple", Value: "apple"}, {Name: "Apricot", Value: "apricot"}}},
		{"no match", []slashdtest.CommandOption{slashdtest.Focused(slashdtest.String("name", "kiwi"))}, nil},
		{"integer typed, with another option", []slashdtest.CommandOption{
			slashdtest.String("name", "apple"), slashdtest.Focused(slashdtest.Int("count", 3))},
			[]slashdtest.Choice{{Name: "3", Value: "3"}, {Name: "30", Value: "30"}, {Name: "300", Value: "300"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := alice.Autocomplete(context.Background(), "fruit", tt.options...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("choices %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("needs one focused option", func(t *testing.T) {
		t.Parallel()
		_, err := alice.Autocomplete(context.Background(), "fruit", slashdtest.String("name", "ap"))
		if err == nil || !strings.Contains(err.Error(), "exactly one Focused") {
			t.Errorf("err %v, want one about the focused option", err)
		}
	})
}

func TestEphemeralReplySeenOnlyByInvoker(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx := context.Background()
	alice, bob := s.NewMember("alice"), s.NewMember("bob")
	r, err := alice.Invoke(ctx, "secret")
	if err != nil {
		t.Fatal(err)
	}
	if r.Message == nil || !r.Message.Ephemeral || r.Message.Flags&64 == 0 || r.Message.Content != "psst" {
		t.Fatalf("reply %s, want the ephemeral psst", r.Raw)
	}
	if _, err := alice.Invoke(ctx, "echo", slashdtest.String("text", "loud")); err != nil {
		t.Fatal(err)
	}
	contents := func(m *slashdtest.Member) []string {
		t.Helper()
		msgs, err := m.Messages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, msg := range msgs {
			out = append(out, msg.Content)
		}
		return out
	}
	tests := []struct {
		who    *slashdtest.Member
		want   []string
		reason string
	}{
		{alice, []string{"you said loud", "psst"}, "the invoker sees their ephemeral reply"},
		{bob, []string{"you said loud"}, "another member does not"},
	}
	for _, tt := range tests {
		if got := contents(tt.who); !slices.Equal(got, tt.want) {
			t.Errorf("%s sees %q, want %q: %s", tt.who.Name, got, tt.want, tt.reason)
		}
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	s := start(t)
	admins := s.NewRole("admins", "8")
	adultsOnly := s.NewChannel("adults-only", slashdtest.NSFW())
	tests := []struct {
		name    string
		member  *slashdtest.Member
		command string
		allowed bool
	}{
		{"plain member, admin command", s.NewMember("plain"), "ban", false},
		{"member with ADMINISTRATOR", s.NewMember("boss", slashdtest.WithPermissions("8")), "ban", true},
		{"member with an admin role", s.NewMember("mod", slashdtest.WithRoles(admins)), "ban", true},
		{"guild owner", s.Owner, "ban", true},
		{"adult in an NSFW channel", s.NewMember("grown", slashdtest.Adult()).In(adultsOnly), "spicy", true},
		{"minor in an NSFW channel", s.NewMember("kid").In(adultsOnly), "spicy", false},
		{"adult outside NSFW channels", s.NewMember("grown2", slashdtest.Adult()), "spicy", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			shown, err := tt.member.Commands(ctx)
			if err != nil {
				t.Fatal(err)
			}
			inPicker := slices.ContainsFunc(shown, func(c slashdtest.Command) bool { return c.Name == tt.command })
			if inPicker != tt.allowed {
				t.Errorf("the picker shows %s: %v, want %v", tt.command, inPicker, tt.allowed)
			}
			r, err := tt.member.Invoke(ctx, tt.command)
			if tt.allowed {
				if err != nil || r.Message == nil || r.Message.Content != tt.command+" done" {
					t.Errorf("Invoke: %v, %v; want the app's reply", r, err)
				}
				return
			}
			var apiErr *slashdtest.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Code != 50013 {
				t.Errorf("Invoke: %v, %v; want an *APIError 403, code 50013", r, err)
			}
		})
	}
}

// An app that does not answer within 3 seconds: the member is told so.
func TestAppThatNeverAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		app  func(publicKey string) http.Handler
	}{
		{"handler too slow", func(key string) http.Handler {
			return interactions.Handler(key, func(ctx context.Context, i *interactions.Interaction) (interactions.Response, error) {
				select {
				case <-ctx.Done(): // slashd hung up
				case <-time.After(10 * time.Second):
				}
				return interactions.Message("too late"), nil
			})
		}},
		{"202 without a callback", func(key string) http.Handler {
			inner := interactions.Handler(key, func(context.Context, *interactions.Interaction) (interactions.Response, error) {
				return interactions.Response{}, errors.New("unreachable")
			})
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get(interactions.HeaderSignature) != "" && isCommand(t, r) {
					w.WriteHeader(http.StatusAccepted) // "I'll call back", and never does
					return
				}
				inner.ServeHTTP(w, r) // endpoint verification
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := slashdtest.Start(t)
			s.ServeApp(tt.app(s.PublicKey))
			if err := s.RegisterGuildCommands(context.Background(), commands); err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			r, err := s.NewMember("alice").Invoke(context.Background(), "echo", slashdtest.String("text", "hi"))
			var apiErr *slashdtest.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != 504 || apiErr.Message != "The application did not respond" {
				t.Fatalf("Invoke: %v, %v; want an *APIError 504 The application did not respond", r, err)
			}
			// Not before the 3 s deadline, and well before the handler's
			// 10 s: the upper bound leaves room for a loaded machine,
			// while still telling a cut at the deadline from waiting.
			if d := time.Since(begin); d < 2900*time.Millisecond || d > 8*time.Second {
				t.Errorf("answered after %v, want the 3 s deadline (not the handler's 10 s)", d)
			}
		})
	}
}

// isCommand reports whether the (signed) request is an application
// command, restoring its body for the next reader.
func isCommand(t *testing.T, r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Error(err)
	}
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	var head struct {
		Type int `json:"type"`
	}
	return json.Unmarshal(body, &head) == nil && head.Type == int(interactions.InteractionApplicationCommand)
}

// An app that answers with an error status fails the interaction.
func TestAppThatFails(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t)
	s.ServeApp(interactions.Handler(s.PublicKey, func(context.Context, *interactions.Interaction) (interactions.Response, error) {
		return interactions.Response{}, errors.New("boom") // Handler answers 500
	}))
	if err := s.RegisterGuildCommands(context.Background(), commands); err != nil {
		t.Fatal(err)
	}
	_, err := s.NewMember("alice").Invoke(context.Background(), "secret")
	var apiErr *slashdtest.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Message != "This interaction failed" {
		t.Fatalf("Invoke: %v; want an *APIError 502 This interaction failed", err)
	}
}

func TestInvalidInvocations(t *testing.T) {
	t.Parallel()
	s := start(t)
	alice := s.NewMember("alice")
	tests := []struct {
		name    string
		command string
		options []slashdtest.CommandOption
		check   func(error) bool
	}{
		{"unknown command", "nope", nil, func(err error) bool { return errors.Is(err, slashdtest.ErrUnknownCommand) }},
		{"missing required option", "echo", nil, isAPIError(400, 50035)},
		{"option of the wrong type", "echo", []slashdtest.CommandOption{slashdtest.Int("text", 1)}, isAPIError(400, 50035)},
		{"unknown user", "whois", []slashdtest.CommandOption{slashdtest.User("user", "1")}, isAPIError(400, 50035)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := alice.Invoke(context.Background(), tt.command, tt.options...)
			if !tt.check(err) {
				t.Errorf("Invoke: %v, %v", r, err)
			}
		})
	}
}

func isAPIError(status, code int) func(error) bool {
	return func(err error) bool {
		var apiErr *slashdtest.APIError
		return errors.As(err, &apiErr) && apiErr.Status == status && apiErr.Code == code
	}
}

func TestRegisterCommands(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		commands any
		ok       bool
	}{
		{"maps", []map[string]any{{"name": "a", "description": "A"}}, true},
		{"JSON", json.RawMessage(`[{"name":"b","description":"B"}]`), true},
		{"structs", []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}{{"c", "C"}}, true},
		{"invalid name", []map[string]any{{"name": "Not Valid", "description": "X"}}, false},
		{"not an array", map[string]any{"name": "d"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.RegisterGuildCommands(ctx, tt.commands)
			if tt.ok && err != nil {
				t.Errorf("RegisterGuildCommands: %v", err)
			}
			if !tt.ok && !isAPIError(400, 50035)(err) {
				t.Errorf("RegisterGuildCommands: %v, want an *APIError 400, code 50035", err)
			}
		})
	}
	// A global command, and a global "c" beside the guild's "c": both
	// are listed, as on the real service.
	if err := s.RegisterGlobalCommands(ctx, []map[string]any{{"name": "global", "description": "G"}, {"name": "c", "description": "C"}}); err != nil {
		t.Fatal(err)
	}
	shown, err := s.Owner.Commands(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range shown {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	if want := []string{"c", "c", "global"}; !slices.Equal(names, want) {
		t.Errorf("the picker shows %q, want %q (the last valid overwrite and the global commands)", names, want)
	}
}

func TestInteractionsEndpointVerification(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t)
	ctx := context.Background()
	// An app that answers PING without checking signatures is refused.
	careless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"type":1}`))
	})
	app := httptestServer(t, careless)
	if err := s.SetInteractionsEndpoint(ctx, app); !isAPIError(400, 50035)(err) {
		t.Errorf("an endpoint that accepts bad signatures: %v, want an *APIError 400, code 50035", err)
	}
	if err := s.SetInteractionsEndpoint(ctx, ""); err != nil {
		t.Errorf("removing the endpoint: %v", err)
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestActivities(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t, slashdtest.WithActivities(), slashdtest.WithAppName("games"))
	r, err := s.NewMember("alice").Invoke(context.Background(), "Launch")
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != slashdtest.ReplyLaunchActivity || r.ActivityInstanceID == "" || r.Message != nil {
		t.Errorf("reply %s, want an Activity launched", r.Raw)
	}
	if _, err := slashdtest.Start(t).Owner.Invoke(context.Background(), "Launch"); !errors.Is(err, slashdtest.ErrUnknownCommand) {
		t.Errorf("Launch without Activities: %v, want ErrUnknownCommand", err)
	}
}

// A bot that defers and edits its reply later, through the server's REST
// API, as bots doing slow work do.
func TestDeferredReplyEditedLater(t *testing.T) {
	t.Parallel()
	s := slashdtest.Start(t)
	tokens := make(chan string, 1)
	s.ServeApp(interactions.Handler(s.PublicKey, func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
		tokens <- i.Token // for the bot's work once it has answered
		return interactions.Defer(false), nil
	}))
	ctx := context.Background()
	if err := s.RegisterGuildCommands(ctx, commands); err != nil {
		t.Fatal(err)
	}
	alice := s.NewMember("alice")
	r, err := alice.Invoke(ctx, "secret")
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != slashdtest.ReplyDeferred || r.Message == nil {
		t.Fatalf("reply %s, want a deferred message", r.Raw)
	}
	// The work is done: the bot edits its reply.
	edit := s.URL + "/api/v10/webhooks/" + s.ApplicationID + "/" + <-tokens + "/messages/@original"
	req, _ := http.NewRequest("PATCH", edit, strings.NewReader(`{"content":"done"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("edit the reply: %s", resp.Status)
	}
	msgs, err := alice.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].ID != r.Message.ID || msgs[0].Content != "done" {
		t.Errorf("messages %+v, want the reply edited to done", msgs)
	}
}

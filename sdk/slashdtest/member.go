package slashdtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// ErrUnknownCommand is returned (wrapped) when the application has no
// command of the name and type invoked.
var ErrUnknownCommand = errors.New("slashdtest: unknown command")

// Command types.
const (
	commandChatInput    = 1
	commandUser         = 2
	commandMessage      = 3
	commandEntryPoint   = 4
	interactionCommand  = 2
	interactionComplete = 4
)

// Member is a member of the guild acting through a chat client: they
// invoke commands, write messages and read them, with their own client
// token. Its methods may be called from any goroutine.
type Member struct {
	// ID is the member's user id.
	ID string
	// Name is their username.
	Name string
	// Token is their client token, sent bare as Authorization.
	Token string
	// ChannelID is the channel they act in: the server's #general unless
	// the Member came from In.
	ChannelID string

	s *Server
}

// In returns the member acting in another channel of the guild.
func (m *Member) In(channelID string) *Member {
	c := *m
	c.ChannelID = channelID
	return &c
}

// Invoke runs the chat input command name (or, with WithActivities, the
// "Launch" entry point) with options, and returns the application's
// answer. The command is looked up by name in the member's command picker
// or, when the picker does not show it to them, among the application's
// guild and global commands, so that slashd itself refuses a command the
// member may not use (*APIError, 403, code 50013).
//
// Invoke returns once the application has answered, or with an
// *APIError: 504 "The application did not respond" after 3 seconds
// without an answer, 502 "This interaction failed" for an error status or
// an invalid answer.
func (m *Member) Invoke(ctx context.Context, name string, options ...CommandOption) (*Reply, error) {
	cmd, err := m.command(ctx, name, commandChatInput, commandEntryPoint)
	if err != nil {
		return nil, err
	}
	data := map[string]any{}
	if len(options) > 0 {
		data["options"] = wireOptions(options, false)
	}
	return m.invoke(ctx, interactionCommand, cmd, data)
}

// InvokeUser runs the user command name on the user targetUserID (a
// Member's ID), as from the user's context menu.
func (m *Member) InvokeUser(ctx context.Context, name, targetUserID string) (*Reply, error) {
	cmd, err := m.command(ctx, name, commandUser)
	if err != nil {
		return nil, err
	}
	return m.invoke(ctx, interactionCommand, cmd, map[string]any{"target_id": targetUserID})
}

// InvokeMessage runs the message command name on the message messageID
// (from Say, or a Reply), which must be in the member's channel.
func (m *Member) InvokeMessage(ctx context.Context, name, messageID string) (*Reply, error) {
	cmd, err := m.command(ctx, name, commandMessage)
	if err != nil {
		return nil, err
	}
	return m.invoke(ctx, interactionCommand, cmd, map[string]any{"target_id": messageID})
}

// Autocomplete asks for the choices of the chat input command name's
// option being typed in: exactly one of options (at any depth) must be
// Focused. INTEGER and NUMBER values are sent as the text typed, as the
// real client does.
func (m *Member) Autocomplete(ctx context.Context, name string, options ...CommandOption) ([]Choice, error) {
	if n := countFocused(options); n != 1 {
		return nil, fmt.Errorf("slashdtest: Autocomplete of %q needs exactly one Focused option, got %d", name, n)
	}
	cmd, err := m.command(ctx, name, commandChatInput)
	if err != nil {
		return nil, err
	}
	r, err := m.invoke(ctx, interactionComplete, cmd, map[string]any{"options": wireOptions(options, true)})
	if err != nil {
		return nil, err
	}
	if r.Type != ReplyAutocomplete {
		return nil, fmt.Errorf("slashdtest: autocomplete of %q answered with callback type %d: %s", name, r.Type, r.Raw)
	}
	return r.Choices, nil
}

func (m *Member) invoke(ctx context.Context, typ int, cmd Command, data map[string]any) (*Reply, error) {
	data["id"], data["name"], data["type"], data["version"] = cmd.ID, cmd.Name, cmd.Type, cmd.Version
	body := map[string]any{
		"type": typ, "application_id": cmd.ApplicationID, "guild_id": m.s.GuildID, "channel_id": m.ChannelID,
		"data": data,
	}
	var raw json.RawMessage
	if err := m.s.do(ctx, "POST", "/api/v10/interactions", m.Token, body, &raw); err != nil {
		return nil, err
	}
	return decodeReply(raw)
}

// Commands lists the application's commands the member's command picker
// shows in their channel: those they may use there.
func (m *Member) Commands(ctx context.Context) ([]Command, error) {
	var index struct {
		Commands []wireCommand `json:"application_commands"`
	}
	path := "/api/v10/channels/" + url.PathEscape(m.ChannelID) + "/application-command-index"
	if err := m.s.do(ctx, "GET", path, m.Token, nil, &index); err != nil {
		return nil, err
	}
	var out []Command
	for _, c := range index.Commands {
		if c.ApplicationID == m.s.ApplicationID {
			out = append(out, c.command())
		}
	}
	return out, nil
}

// command finds the application's command named name, of the first of
// types that has one: in the picker, else among the guild's then the
// global commands. Where the app has a guild command and a global one of
// the name, both are in the picker and the guild command is taken (the
// picker lists guild commands first), as slashd invoke does.
func (m *Member) command(ctx context.Context, name string, types ...int) (Command, error) {
	shown, err := m.Commands(ctx)
	var apiErr *APIError
	if err != nil && !errors.As(err, &apiErr) {
		return Command{}, err
	}
	if c, ok := pick(shown, name, types); ok {
		return c, nil
	}
	var all []Command
	for _, path := range []string{
		"/api/v10/applications/" + m.s.ApplicationID + "/guilds/" + m.s.GuildID + "/commands",
		"/api/v10/applications/" + m.s.ApplicationID + "/commands",
	} {
		var list []wireCommand
		if err := m.s.do(ctx, "GET", path, m.s.botAuth(), nil, &list); err != nil {
			return Command{}, err
		}
		for _, c := range list {
			all = append(all, c.command())
		}
	}
	if c, ok := pick(all, name, types); ok {
		return c, nil
	}
	return Command{}, fmt.Errorf("%w %q of type %v (register it first)", ErrUnknownCommand, name, types)
}

// pick is the first command named name, by order of types.
func pick(cmds []Command, name string, types []int) (Command, bool) {
	for _, t := range types {
		for _, c := range cmds {
			if c.Name == name && c.Type == t {
				return c, true
			}
		}
	}
	return Command{}, false
}

// Say posts a message as the member in their channel and returns its id.
func (m *Member) Say(ctx context.Context, content string) (string, error) {
	var msg struct {
		ID string `json:"id"`
	}
	path := "/api/v10/channels/" + url.PathEscape(m.ChannelID) + "/messages"
	if err := m.s.do(ctx, "POST", path, m.Token, map[string]string{"content": content}, &msg); err != nil {
		return "", err
	}
	return msg.ID, nil
}

// Messages lists the last 100 messages of the member's channel that they
// see, newest first: everyone's messages and the application's replies,
// and among the ephemeral replies only those made to them.
func (m *Member) Messages(ctx context.Context) ([]Message, error) {
	var raw []json.RawMessage
	path := "/api/v10/channels/" + url.PathEscape(m.ChannelID) + "/messages?limit=100"
	if err := m.s.do(ctx, "GET", path, m.Token, nil, &raw); err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(raw))
	for _, r := range raw {
		msg, err := decodeMessage(r)
		if err != nil {
			return nil, err
		}
		out = append(out, msg)
	}
	return out, nil
}

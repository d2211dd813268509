package gateway

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// World and message dispatches: the bus carries each with the apps whose
// bots get it (decided where it was made), and every node hands it to
// those apps' sessions whose shard holds the guild and whose intents ask
// for it, the same way, so that every copy of a session numbers it
// alike and a resume anywhere replays it.

// Intents that gate the world and message dispatches (api-facts §6.4).
const (
	intentGuildMessages  = 1 << 9
	intentDirectMessages = 1 << 12
)

// worldIntents says which intent each world dispatch needs.
var worldIntents = map[string]uint64{
	event.GuildCreate:       IntentGuilds,
	event.GuildUpdate:       IntentGuilds,
	event.GuildDelete:       IntentGuilds,
	event.GuildRoleCreate:   IntentGuilds,
	event.GuildRoleUpdate:   IntentGuilds,
	event.GuildRoleDelete:   IntentGuilds,
	event.ChannelCreate:     IntentGuilds,
	event.ChannelUpdate:     IntentGuilds,
	event.ChannelDelete:     IntentGuilds,
	event.ThreadCreate:      IntentGuilds,
	event.ThreadUpdate:      IntentGuilds,
	event.ThreadDelete:      IntentGuilds,
	event.GuildMemberAdd:    intentGuildMembers,
	event.GuildMemberUpdate: intentGuildMembers,
	event.GuildMemberRemove: intentGuildMembers,
}

// isMessageEvent says which bus events are messages.
func isMessageEvent(t string) bool {
	return t == event.MessageCreate || t == event.MessageUpdate || t == event.MessageDelete
}

// targets returns the sessions of apps whose shard holds guildID and
// whose intents include one of want's bits (want 0: any session).
func (g *Gateway) targets(apps []snowflake.ID, guildID snowflake.ID, want uint64) []*session {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*session
	for _, app := range apps {
		for s := range g.byApp[app] {
			if s.holds(guildID) && !s.isPending() && (want == 0 || s.intents&want != 0) {
				out = append(out, s)
			}
		}
	}
	return out
}

// dispatchWorld hands a world event to its apps' sessions.
func (g *Gateway) dispatchWorld(e event.Event) {
	var w event.World
	if err := event.DecodeData(e.Data, &w); err != nil || len(w.Body) == 0 {
		g.log.Error("gateway: decode world event", "type", e.Type, "err", err)
		return
	}
	for _, s := range g.targets(w.Apps, e.GuildID, worldIntents[e.Type]) {
		s.dispatch(e.Type, w.Body)
	}
}

// dispatchMessage hands a message event to the sessions of the bots that
// see it (GUILD_MESSAGES in a guild, DIRECT_MESSAGES in a DM), each with
// the message's content or without it (messageContent).
func (g *Gateway) dispatchMessage(e event.Event) {
	// On the in-process bus the event is still a Go value: most messages
	// reach no session (an HTTP-only app's answers, bots not connected),
	// and those need not pay DecodeData's JSON round trip (about a twentieth
	// of an invocation's CPU). The sessions are found again after it, from
	// the decoded value, so that what is dispatched is unchanged.
	if m, ok := e.Data.(event.Message); ok && len(g.messageTargets(m)) == 0 {
		return
	}
	var m event.Message
	if err := event.DecodeData(e.Data, &m); err != nil {
		g.log.Error("gateway: decode message event", "type", e.Type, "err", err)
		return
	}
	sessions := g.messageTargets(m)
	if len(sessions) == 0 {
		return
	}
	if e.Type == event.MessageDelete {
		data, err := jsonenc.Marshal(messageDelete{ID: m.ID, ChannelID: m.ChannelID, GuildID: optionalID(m.GuildID)})
		if err != nil {
			return
		}
		for _, s := range sessions {
			s.dispatch(e.Type, data)
		}
		return
	}
	full := withGuildID(m.Body, m.GuildID)
	var (
		mentions []snowflake.ID
		stripped []byte
	)
	mentions = mentionedUsers(m.Body)
	for _, s := range sessions {
		if messageContent(s.intents, m, s.appID, mentions) {
			s.dispatch(e.Type, full)
			continue
		}
		if stripped == nil {
			stripped = withoutContent(full)
		}
		s.dispatch(e.Type, stripped)
	}
}

// messageTargets are the sessions that get message m: those of the bots
// that see it, with GUILD_MESSAGES in a guild and DIRECT_MESSAGES in a
// DM; none for an ephemeral message.
func (g *Gateway) messageTargets(m event.Message) []*session {
	if m.VisibleTo != 0 || len(m.Bots) == 0 {
		return nil // ephemeral messages are never dispatched
	}
	want := uint64(intentGuildMessages)
	if m.GuildID == 0 {
		want = intentDirectMessages
	}
	return g.targets(m.Bots, m.GuildID, want)
}

// messageDelete is MESSAGE_DELETE's data.
type messageDelete struct {
	ID        snowflake.ID  `json:"id"`
	ChannelID snowflake.ID  `json:"channel_id"`
	GuildID   *snowflake.ID `json:"guild_id,omitempty"`
}

func optionalID(id snowflake.ID) *snowflake.ID {
	if id == 0 {
		return nil
	}
	return &id
}

// messageContent reports whether an app's session gets a message's
// content: with the MESSAGE_CONTENT intent, and without it for DMs, the
// bot's own messages and messages mentioning the bot (docs/compat.md,
// "Message content").
func messageContent(intents uint64, m event.Message, app snowflake.ID, mentions []snowflake.ID) bool {
	return intents&intentMessageContent != 0 || m.GuildID == 0 || m.AuthorID == app || slices.Contains(mentions, app)
}

// withGuildID adds "guild_id" to a message object of a guild (the
// gateway's messages carry it; the stored body, as the API renders it,
// does not).
func withGuildID(body []byte, guildID snowflake.ID) []byte {
	body = bytes.TrimSpace(body)
	if guildID == 0 || len(body) < 2 || body[0] != '{' {
		return body
	}
	var probe struct {
		GuildID json.RawMessage `json:"guild_id"`
	}
	if json.Unmarshal(body, &probe) == nil && probe.GuildID != nil {
		return body
	}
	out := make([]byte, 0, len(body)+40)
	out = append(out, `{"guild_id":"`...)
	out = append(out, guildID.String()...)
	out = append(out, '"')
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, body[1:]...)
}

// mentionedUsers reads the users a message mentions: its "mentions",
// and the user mentions (<@id>, <@!id>) in its content, which slashd's
// stored messages do not list in "mentions".
func mentionedUsers(body []byte) []snowflake.ID {
	var m struct {
		Content  json.RawMessage `json:"content"`
		Mentions json.RawMessage `json:"mentions"`
	}
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	// Each read on its own: a malformed one does not hide the other.
	var (
		content  string
		mentions []struct {
			ID snowflake.ID `json:"id"`
		}
		out []snowflake.ID
	)
	if json.Unmarshal(m.Mentions, &mentions) == nil {
		for _, u := range mentions {
			out = append(out, u.ID)
		}
	}
	if json.Unmarshal(m.Content, &content) != nil {
		return out
	}
	for rest := content; ; {
		i := strings.Index(rest, "<@")
		if i < 0 {
			return out
		}
		rest = rest[i+2:]
		// A mention is "<@" "!"? id ">"; anything else is text, and the
		// next "<@" may start in it.
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return out
		}
		if id, err := snowflake.Parse(strings.TrimPrefix(rest[:end], "!")); err == nil {
			out = append(out, id)
			rest = rest[end+1:]
		}
	}
}

// withoutContent empties what the MESSAGE_CONTENT intent guards: content,
// embeds, attachments, components and poll.
func withoutContent(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	m["content"] = json.RawMessage(`""`)
	for _, k := range []string{"embeds", "attachments", "components"} {
		m[k] = json.RawMessage(`[]`)
	}
	delete(m, "poll")
	out, err := jsonenc.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

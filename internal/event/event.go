// Package event is slashd's internal event bus: the API publishes what
// happened (a command's permissions changed, an interaction was created)
// and consumers (the gateway, webhook delivery) subscribe. The in-memory
// Bus serves one process; natsbus carries events between the nodes of a
// cluster. Package eventtest is the contract both keep.
package event

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/slashd/slashd/internal/snowflake"
)

// Event types, named as the real gateway's dispatch events.
const (
	ApplicationCommandPermissionsUpdate = "APPLICATION_COMMAND_PERMISSIONS_UPDATE"
	// InteractionCreate carries an invocation to an app that has no
	// Interactions Endpoint URL (its gateway sessions deliver it).
	InteractionCreate = "INTERACTION_CREATE"
	// MessageCreate, MessageUpdate and MessageDelete say a channel's
	// message changed (Data: a Message). The gateway dispatches them to
	// the bots the Message names; the playground streams them to the
	// chat it shows.
	MessageCreate = "MESSAGE_CREATE"
	MessageUpdate = "MESSAGE_UPDATE"
	MessageDelete = "MESSAGE_DELETE"
)

// ApplicationDeleted says an application is gone with its tokens (a
// test world's deletion): every node closes its bot's gateway
// connections with 4004 Authentication failed and ends its sessions
// (ApplicationID names the app; no Data).
const ApplicationDeleted = "SLASHD_APPLICATION_DELETED"

// RequestRefused says an app's request that writes a message (an
// interaction's callback, follow-up or edit, an endpoint's inline
// answer, a bot's channel post or edit) was refused (Data: a Refusal):
// the playground shows the bot developer why, beside the interaction.
// It goes to no bot.
const RequestRefused = "SLASHD_REQUEST_REFUSED"

// Refusal is the Data of RequestRefused.
type Refusal struct {
	// ID is a snowflake made when the refusal happened: its time, and
	// its place among the channel's messages.
	ID            snowflake.ID `json:"id"`
	ApplicationID snowflake.ID `json:"application_id"`
	// InteractionID is the interaction whose token made the request, or
	// whose inline answer was refused (0: a bot's channel post or edit).
	InteractionID snowflake.ID `json:"interaction_id,omitempty"`
	ChannelID     snowflake.ID `json:"channel_id"`
	GuildID       snowflake.ID `json:"guild_id,omitempty"`
	// UserID is the member who invoked the interaction (0: none);
	// InteractionType, Name and CommandType what they invoked (the
	// interaction's type; the command's name and type, when a command).
	UserID          snowflake.ID `json:"user_id,omitempty"`
	InteractionType int          `json:"interaction_type,omitempty"`
	Name            string       `json:"name,omitempty"`
	CommandType     int          `json:"command_type,omitempty"`
	// Method and Route are the request's ("POST", the route's pattern);
	// Path its path with tokens redacted. An inline answer has no
	// method: its Route is "inline answer" and its Path the endpoint.
	Method string `json:"method,omitempty"`
	Route  string `json:"route"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Error is the error body the app got (JSON), capped by the sender.
	Error json.RawMessage `json:"error,omitempty"`
}

// World events: a guild, its channels, threads, roles or members
// changed (Data: a World), named as the gateway dispatches them.
const (
	GuildCreate       = "GUILD_CREATE"
	GuildUpdate       = "GUILD_UPDATE"
	GuildDelete       = "GUILD_DELETE"
	ChannelCreate     = "CHANNEL_CREATE"
	ChannelUpdate     = "CHANNEL_UPDATE"
	ChannelDelete     = "CHANNEL_DELETE"
	ThreadCreate      = "THREAD_CREATE"
	ThreadUpdate      = "THREAD_UPDATE"
	ThreadDelete      = "THREAD_DELETE"
	GuildRoleCreate   = "GUILD_ROLE_CREATE"
	GuildRoleUpdate   = "GUILD_ROLE_UPDATE"
	GuildRoleDelete   = "GUILD_ROLE_DELETE"
	GuildMemberAdd    = "GUILD_MEMBER_ADD"
	GuildMemberUpdate = "GUILD_MEMBER_UPDATE"
	GuildMemberRemove = "GUILD_MEMBER_REMOVE"
)

// World is the Data of a world event: the applications whose bots get
// it (decided once, where the event is made, so that every node
// dispatches it alike) and the dispatch's data as JSON.
type World struct {
	Apps []snowflake.ID  `json:"apps"`
	Body json.RawMessage `json:"body"`
}

// Message is the Data of the message events: where the message is, who
// may see it, and (create and update) its wire JSON.
type Message struct {
	ID        snowflake.ID `json:"id"`
	ChannelID snowflake.ID `json:"channel_id"`
	GuildID   snowflake.ID `json:"guild_id,omitempty"`
	// InteractionID is the interaction the message answers (0: none):
	// the answer, a follow-up, or a message a component was used on.
	InteractionID snowflake.ID `json:"interaction_id,omitempty"`
	// VisibleTo is the only user who sees an ephemeral message (0:
	// everyone who sees the channel).
	VisibleTo snowflake.ID    `json:"visible_to,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`
	// AuthorID is who wrote it; Bots, the applications whose bot users
	// see it (guild members, DM participants), to which the gateway
	// dispatches it: decided where the event is made, so that every
	// node dispatches it alike. An ephemeral message has none.
	AuthorID snowflake.ID   `json:"author_id,omitempty"`
	Bots     []snowflake.ID `json:"bots,omitempty"`
}

// Event is one thing that happened to an application.
type Event struct {
	Type          string
	ApplicationID snowflake.ID
	GuildID       snowflake.ID
	// Data is the dispatch payload, as it goes on the wire: it must
	// marshal to JSON, and consumers use only that JSON. A networked bus
	// carries the JSON, so what its subscribers receive is a
	// json.RawMessage (nil for null), not the publisher's value.
	Data any
	// AfterGap is set by the bus on the first event a subscriber
	// receives after it lost events (its buffer was full), so that a
	// consumer that must not act on a partial stream (the read cache's
	// invalidations) knows to resynchronise. It never travels.
	AfterGap bool `json:"-"`
}

// Bus publishes events to subscribers.
type Bus interface {
	// Publish delivers e to every current subscriber; it never blocks on
	// a slow one (see Subscribe).
	Publish(ctx context.Context, e Event)
	// Subscribe returns a channel of events until ctx ends, when it is
	// closed. It receives every event published after Subscribe returns
	// (on any node), once, and none published before (on a networked
	// bus: before the publisher flushed it to the network); those of one
	// publisher in the order they were published. A subscriber that
	// falls more than its buffer behind loses events rather than
	// stalling publishers, and the next event it receives is marked
	// AfterGap; consumers that must not lose any (gateway resume) keep
	// their own replay buffer.
	Subscribe(ctx context.Context, buffer int) <-chan Event
}

// Memory is the in-process Bus.
type Memory struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch     chan Event
	closed bool
	gap    GapTracker
}

// NewMemory returns an empty in-process bus.
func NewMemory() *Memory { return &Memory{subs: map[*subscriber]struct{}{}} }

// Publish implements Bus.
func (b *Memory) Publish(_ context.Context, e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.gap.Offer(s.ch, e)
	}
}

// Subscribe implements Bus.
func (b *Memory) Subscribe(ctx context.Context, buffer int) <-chan Event {
	if buffer < 1 {
		buffer = 1
	}
	s := &subscriber{ch: make(chan Event, buffer)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		b.mu.Lock()
		delete(b.subs, s)
		close(s.ch)
		b.mu.Unlock()
	}()
	return s.ch
}

// DecodeData reads an event's Data into v, whether it travelled as a Go
// value (the in-process bus) or as JSON (a networked one).
func DecodeData(data any, v any) error {
	b, err := json.Marshal(data) // only decoded: no need to undo HTML escapes
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// GapTracker remembers that a subscriber lost events, so that the next
// event it receives is marked AfterGap. Its zero value is ready; callers
// serialise Offer (buses hold the subscriber's lock).
type GapTracker struct{ lost bool }

// Offer sends e on ch without blocking; a full channel drops e and
// marks the gap on the next event sent.
func (g *GapTracker) Offer(ch chan<- Event, e Event) {
	e.AfterGap = g.lost
	select {
	case ch <- e:
		g.lost = false
	default: // full: drop for this subscriber
		g.lost = true
	}
}

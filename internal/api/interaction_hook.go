package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// Delivery is one interaction handed to its app, as an observer (the
// playground's interaction log) sees it: what was delivered, where, how
// long it took, and what the invoking client was answered.
type Delivery struct {
	InteractionID snowflake.ID
	Type          int // 2 command, 3 component, 4 autocomplete, 5 modal submit
	ApplicationID snowflake.ID
	GuildID       snowflake.ID // 0 outside guilds
	ChannelID     snowflake.ID
	UserID        snowflake.ID
	// CommandVersion is the version of the command invoked (0 for a
	// component or a modal submission), which a client sends back in
	// data.version to invoke it again.
	CommandVersion snowflake.ID
	At             time.Time
	// Route is "endpoint" (the app's Interactions Endpoint URL, in
	// Endpoint), "gateway" or "service" (slashd answered itself).
	Route    string
	Endpoint string
	// Signature and Timestamp are the X-Signature-Ed25519 and
	// X-Signature-Timestamp headers sent to the endpoint ("": none).
	Signature, Timestamp string
	Status               int // the endpoint's HTTP status; 0: none
	Outcome              string
	Reason               string // why it failed
	Latency              time.Duration
	// Payload is the interaction's JSON as delivered; Answer what POST
	// /interactions answered the client (nil when it failed: see Reason).
	Payload json.RawMessage
	Answer  json.RawMessage
}

// OnDelivery sets f to be told of every delivered interaction (nil:
// nobody). f runs on the request's goroutine: it must be quick, and
// must copy what it keeps of the Delivery's slices. It may be set while
// serving.
func (s *Server) OnDelivery(f func(Delivery)) {
	if f == nil {
		s.deliveryHook.Store(nil)
		return
	}
	s.deliveryHook.Store(&f)
}

// noteDelivery tells the OnDelivery observer about a dispatch.
func (s *Server) noteDelivery(ctx context.Context, in invocation, d delivery, took time.Duration, rec answered, err error) {
	hook := s.deliveryHook.Load()
	if hook == nil {
		return
	}
	f := *hook
	out := Delivery{InteractionID: in.record.ID, Type: in.record.Type, ApplicationID: in.app.ID,
		GuildID: in.record.GuildID, ChannelID: in.record.ChannelID, UserID: in.record.UserID, At: in.record.CreatedAt,
		CommandVersion: in.cmd.Version,
		Route:          d.target, Endpoint: d.endpoint, Signature: d.signed.Signature, Timestamp: d.signed.Timestamp, Status: d.status, Outcome: d.outcome, Reason: d.reason, Latency: took,
		Payload: json.RawMessage(in.body)}
	if err == nil {
		if res, rerr := s.callbackResponse(ctx, rec); rerr == nil {
			out.Answer, _ = jsonenc.Marshal(res)
		}
	} else if out.Reason == "" {
		out.Reason = err.Error()
	}
	f(out)
}

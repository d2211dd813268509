// Package journal keeps the test worlds' journal (docs/journal.md): an
// ordered, typed record of what happened in each world, written to the
// store asynchronously in batches by one writer per node, and read (and
// long-polled) by GET /admin/v1/worlds/{world}/events.
//
// The server records at its edges (HTTP middleware, the delivery of an
// interaction, a store wrapper for messages, the gateway's observer), so
// that no handler has a journal branch. Only objects of a world (WorldID
// ≠ 0) are recorded.
package journal

// Entry types: docs/journal.md lists each one's fields.
const (
	InteractionDelivered = "interaction.delivered"
	InteractionAnswered  = "interaction.answered"
	InteractionFailed    = "interaction.failed"
	MessageCreated       = "message.created"
	MessageEdited        = "message.edited"
	MessageDeleted       = "message.deleted"
	RESTRequest          = "rest.request"
	GatewayIdentify      = "gateway.identify"
	GatewayResume        = "gateway.resume"
	GatewayClose         = "gateway.close"
	GatewayDispatch      = "gateway.dispatch"
	RateLimitHit         = "rate_limit.hit"
	// FaultFired: a fault of the world (docs/faults.md) fired.
	FaultFired = "fault.fired"
	// Dropped says entries were lost because the node's queue was full
	// (body: {"count": n}).
	Dropped = "journal.dropped"
)

// Types lists every entry type.
var Types = []string{InteractionDelivered, InteractionAnswered, InteractionFailed, MessageCreated, MessageEdited,
	MessageDeleted, RESTRequest, GatewayIdentify, GatewayResume, GatewayClose, GatewayDispatch, RateLimitHit, FaultFired,
	Dropped}

// Failures is the pseudo-type that selects what went wrong (a test's
// summary): refused REST requests (status ≥ 400), failed interactions,
// 429s given and dropped entries. See IsFailure.
const Failures = "failures"

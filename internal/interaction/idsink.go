package interaction

import (
	"context"
	"sync/atomic"

	"github.com/slashd/slashd/internal/snowflake"
)

type idSinkKey struct{}

// WithIDSink returns ctx carrying a place where the interaction an
// invocation under it records reports its id, and the func that reads
// it (0: none was recorded). slashd's own act uses it: the member's
// answer to an interaction that failed (502, 504) names no interaction
// on the wire, but the test that acted wants to know which it was.
func WithIDSink(ctx context.Context) (context.Context, func() snowflake.ID) {
	var id atomic.Uint64
	return context.WithValue(ctx, idSinkKey{}, &id), func() snowflake.ID { return snowflake.ID(id.Load()) }
}

// ReportID tells ctx's sink, if it has one, the id of the interaction
// just recorded.
func ReportID(ctx context.Context, id snowflake.ID) {
	if sink, ok := ctx.Value(idSinkKey{}).(*atomic.Uint64); ok {
		sink.Store(uint64(id))
	}
}

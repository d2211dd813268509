package clustertest

import (
	"context"
	"time"

	"github.com/slashd/slashd/internal/event"
)

// latencyBus hands each event to a node's subscribers late, in order, as
// a slow network would between the bus's server and the node; what the
// node publishes (and Flush) go straight to the inner bus.
type latencyBus struct {
	event.Bus
	delay time.Duration
}

func (b latencyBus) Flush(ctx context.Context) error {
	if f, ok := b.Bus.(interface{ Flush(context.Context) error }); ok {
		return f.Flush(ctx)
	}
	return nil
}

func (b latencyBus) Subscribe(ctx context.Context, buffer int) <-chan event.Event {
	in := b.Bus.Subscribe(ctx, buffer)
	out := make(chan event.Event, buffer)
	go func() {
		defer close(out)
		for e := range in {
			t := time.NewTimer(b.delay) // the network's latency, not a wait for an outcome
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			select {
			case out <- e:
			default: // a full subscriber loses events, as on the inner bus
			}
		}
	}()
	return out
}

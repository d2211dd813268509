package event_test

import (
	"testing"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/event/eventtest"
)

// TestMemoryContract: every node of an in-process bus is the one Memory.
func TestMemoryContract(t *testing.T) {
	eventtest.Run(t, func(t *testing.T) func() event.Bus {
		m := event.NewMemory()
		return func() event.Bus { return m }
	})
}

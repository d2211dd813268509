package ui

import "testing"

// TestStreamOverflow: a stream whose buffer is full loses the event and
// is due a resync (the page then reads everything again) rather than
// blocking the bus's reader.
func TestStreamOverflow(t *testing.T) {
	s := &stream{ch: make(chan sse, 2), kick: make(chan struct{}, 1)}
	for i := 0; i < 5; i++ {
		s.offer(sse{name: "message_create"})
	}
	if len(s.ch) != 2 || !s.resync.Load() || len(s.kick) != 1 {
		t.Fatalf("buffered %d, resync %v, kick %d", len(s.ch), s.resync.Load(), len(s.kick))
	}
}

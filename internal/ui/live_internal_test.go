package ui

import (
	"testing"

	"github.com/slashd/slashd/internal/event"
)

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

// TestBusGapResyncsEveryStream: when the bus marks an event AfterGap
// (the UI's subscription lost events), every stream is due a resync,
// whatever the event is, since any of them may have missed a message.
func TestBusGapResyncsEveryStream(t *testing.T) {
	chat := &stream{ch: make(chan sse, 2), kick: make(chan struct{}, 1), chat: true, channel: 1}
	log := &stream{ch: make(chan sse, 2), kick: make(chan struct{}, 1)}
	h := &Handler{streams: map[*stream]struct{}{chat: {}, log: {}}}
	events := make(chan event.Event, 2)
	events <- event.Event{Type: "SOMETHING_ELSE"}
	events <- event.Event{Type: "SOMETHING_ELSE", AfterGap: true}
	close(events)
	h.listen(events)
	for name, s := range map[string]*stream{"chat": chat, "log": log} {
		if !s.resync.Load() || len(s.kick) != 1 {
			t.Errorf("%s stream after a gap: resync %v, kick %d; want a resync due", name, s.resync.Load(), len(s.kick))
		}
	}
}

package gateway

import "testing"

// TestSessionBufferBounded: a session whose connection writes nothing
// (a client that stopped reading) keeps at most hardCap times what it
// keeps for resume, however much is dispatched, and always the last
// limit dispatches.
func TestSessionBufferBounded(t *testing.T) {
	for _, limit := range []int{1, 3, 10, 100} {
		s := newSession("s", 1, 0, 1, 0, limit)
		// Attached, its flusher stuck in a write: nothing is written.
		s.attach(&conn{flushing: true}, 0)
		most := 0
		for n := 1; n <= 4*hardCap*(limit+1); n++ {
			s.dispatch("INTERACTION_CREATE", []byte(`{}`))
			most = max(most, len(s.buf))
			if _, ok := s.since(int64(n - min(n, limit))); !ok {
				t.Fatalf("limit %d: after %d dispatches the last %d are not all kept", limit, n, limit)
			}
		}
		if most > hardCap*(limit+1) {
			t.Fatalf("limit %d: the buffer held %d dispatches, want at most %d", limit, most, hardCap*(limit+1))
		}
		if _, ok := s.since(0); ok {
			t.Fatalf("limit %d: the first dispatches are still kept", limit)
		}
	}
}

// TestSessionsShareDispatchData: sessions keep a dispatch's data, not a
// frame each (one copy for a fan-out), and the frame written out from an
// entry, into a buffer reused from one before, is dispatchFrame's.
func TestSessionsShareDispatchData(t *testing.T) {
	a, b := newSession("a", 1, 0, 1, 0, 10), newSession("b", 1, 0, 1, 0, 10)
	long := []byte(`{"name":"a channel with a long name"}`)
	short := []byte(`{}`)
	a.dispatch("CHANNEL_UPDATE", long)
	for _, s := range []*session{a, b} {
		s.dispatch("CHANNEL_DELETE", short)
	}
	ea, _ := a.since(0)
	eb, _ := b.since(0)
	if len(ea) != 2 || len(eb) != 1 || &ea[1].data[0] != &eb[0].data[0] {
		t.Fatalf("the sessions keep %d and %d entries, their data shared: want 2 and 1, shared", len(ea), len(eb))
	}
	var buf []byte
	for _, c := range []struct {
		e    entry
		want []byte
	}{
		{ea[0], dispatchFrame("CHANNEL_UPDATE", 1, long)},
		{ea[1], dispatchFrame("CHANNEL_DELETE", 2, short)},
		{eb[0], dispatchFrame("CHANNEL_DELETE", 1, short)},
	} {
		buf = c.e.appendFrame(buf[:0])
		if string(buf) != string(c.want) {
			t.Errorf("frame %s, want %s", buf, c.want)
		}
	}
}

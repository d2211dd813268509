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

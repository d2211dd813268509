package gateway

import (
	"bytes"
	"runtime"
	"testing"
)

// BenchmarkSessionReplayMemory is what a fan-out leaves in the sessions'
// replay buffers: events dispatched to many sessions whose connection
// wrote nothing yet (each keeps up to ReplayLimit of them for resume).
// It reports the heap kept per session per dispatch, beside the size of
// one dispatch's data, which a buffer holding its own frame per session
// would keep each time.
func BenchmarkSessionReplayMemory(b *testing.B) {
	const sessions, events = 2000, 200
	data := append([]byte(`{"id":"1576409754238877696","name":"`), bytes.Repeat([]byte("x"), 900)...)
	data = append(data, `"}`...)
	for range b.N {
		all := make([]*session, sessions)
		for i := range all {
			all[i] = newSession("s", 1, 0, 1, 0, events)
			all[i].attach(&conn{flushing: true}, 0) // a flusher stuck: nothing written
		}
		before := heapInUse()
		for range events {
			d := bytes.Clone(data) // each event's own data, shared by its sessions
			for _, s := range all {
				s.dispatch("CHANNEL_UPDATE", d)
			}
		}
		kept := heapInUse() - before
		b.ReportMetric(float64(kept)/sessions/events, "B/session/dispatch")
		b.ReportMetric(float64(len(data)), "B/dispatch-data")
		runtime.KeepAlive(all)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

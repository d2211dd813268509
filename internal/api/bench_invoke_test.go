package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// The latency benchmark: a member invokes a command, slashd
// delivers the signed interaction to an HTTP app on loopback, the app
// answers inline and slashd stores the reply message; beside it, a bare
// loopback POST of the same size. Run with a fixed count for stable
// percentiles:
//
//	go test -run '^$' -bench 'Invoke|LoopbackPost' -benchtime 10000x ./internal/api/
//
// Each reports p50-µs and p99-µs over its b.N requests.

func BenchmarkInvoke(b *testing.B) {
	e := testenv.New(b)
	w, body := echoInvocation(b, e)
	b.Logf("invocation body: %d bytes", len(body))
	measure(b, e.URL+"/api/v10/interactions", w.client, body)
	msgs := decodeList(b, mustDo(b, e, "GET", "/api/v10/channels/"+w.channel+"/messages?limit=1", w.client, nil, 200))
	if len(msgs) != 1 || str(msgs[0], "content") != "hello" {
		b.Fatalf("last stored message: %v", msgs)
	}
}

// BenchmarkLoopbackPost is the floor: one POST of the invocation's size to
// a handler that reads it and answers a small JSON body.
func BenchmarkLoopbackPost(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":4,"data":{"content":"hello"}}`))
	}))
	defer srv.Close()
	body := bytes.Repeat([]byte("x"), 261) // an invocation's size, as BenchmarkInvoke logs it
	measure(b, srv.URL, "", body)
}

// measure POSTs body b.N times over one keep-alive client and reports the
// median and 99th percentile latency.
func measure(b *testing.B, url, auth string, body []byte) {
	b.Helper()
	b.ReportAllocs()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	created := goroutinesCreated()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		lat = append(lat, postTimed(b, client, url, auth, body))
	}
	b.StopTimer()
	// Each goroutine started may wake an idle CPU, which on a small
	// virtual machine costs more than the goroutine itself.
	b.ReportMetric(float64(goroutinesCreated()-created)/float64(b.N), "goroutines/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkInvokeFloor is BenchmarkRatioInvoke's floor alone, to profile
// beside BenchmarkInvoke: the same payload, signed, delivered to the same
// SDK app, its answer committed with the interaction in one transaction.
func BenchmarkInvokeFloor(b *testing.B) {
	e := testenv.New(b)
	w, body := echoInvocation(b, e)
	mustDo(b, e, "POST", "/api/v10/interactions", w.client, body, 200)
	floorURL := invokeFloor(b, w.last().Raw, []byte(`{"type":4,"data":{"content":"hello"}}`))
	measure(b, floorURL, "", body)
}

// echoInvocation is the invocation benchmarks' world: an app whose echo
// command the SDK answers inline with its text, and the body of a
// member's invocation of it.
func echoInvocation(b *testing.B, e *testenv.Env) (*invokeWorld, []byte) {
	b.Helper()
	w := newInvokeWorld(b, e)
	cmd := w.command(jsonObj{"name": "echo", "description": "Echo", "options": []jsonObj{
		{"type": 3, "name": "text", "description": "Text", "required": true},
	}})
	w.answerWith(func(i *interactions.Interaction) (interactions.Response, error) {
		opt, _ := i.Data.Option("text")
		s, _ := opt.String()
		return interactions.Message(s), nil
	})
	return w, mustJSON(b, w.invocation(2, cmd, "options", []jsonObj{{"type": 3, "name": "text", "value": "hello"}}))
}

// goroutinesCreated is how many goroutines this process has started.
func goroutinesCreated() uint64 {
	sample := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

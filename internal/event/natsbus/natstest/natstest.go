// Package natstest gives tests a NATS server and isolated buses on it:
// the server at $SLASHD_TEST_NATS, or nats://127.0.0.1:4222. When none
// answers, tests that need it are skipped, except under CI (CI set),
// where they fail.
package natstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/slashd/slashd/internal/event/natsbus"
)

// DefaultURL is the server tried when SLASHD_TEST_NATS is unset.
const DefaultURL = "nats://127.0.0.1:4222"

var (
	probeOnce sync.Once
	probeURL  string
	probeErr  error

	run = randomHex(6) // this process's part of every prefix
	seq atomic.Uint64
)

// URL returns the test NATS server's URL, or skips the test (fails it
// under CI) when the server does not answer.
func URL(t testing.TB) string {
	t.Helper()
	probeOnce.Do(func() {
		probeURL = os.Getenv("SLASHD_TEST_NATS")
		if probeURL == "" {
			probeURL = DefaultURL
		}
		nc, err := nats.Connect(probeURL, nats.Timeout(3*time.Second), nats.NoReconnect())
		if err != nil {
			probeErr = err
			return
		}
		nc.Close()
	})
	if probeErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no NATS server at %s (%v): CI must run one (nats-server), or set SLASHD_TEST_NATS", probeURL, probeErr)
		}
		t.Skipf("no NATS server at %s (%v): run nats-server, or set SLASHD_TEST_NATS", probeURL, probeErr)
	}
	return probeURL
}

// Prefix returns a subject prefix no other call returns, in this
// process or another: buses on it see only each other's events.
func Prefix(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	return "slashdtest." + run + "." + strconv.FormatUint(seq.Add(1), 10) + "." + name
}

// Bus connects a new node to the test server with the given prefix
// (from Prefix); it is closed when the test ends. It skips or fails as
// URL does.
func Bus(t testing.TB, prefix string, opts ...nats.Option) *natsbus.Bus {
	t.Helper()
	nc, err := natsbus.Connect(URL(t), "slashd test "+t.Name(), opts...)
	if err != nil {
		t.Fatalf("connect to NATS: %v", err)
	}
	b, err := natsbus.New(nc, natsbus.Options{Prefix: prefix})
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// OrderedBus is Bus with Options.Ordered: the prefix's JetStream stream
// is deleted when the test ends.
func OrderedBus(t testing.TB, prefix string) *natsbus.Bus {
	t.Helper()
	nc, err := natsbus.Connect(URL(t), "slashd test "+t.Name())
	if err != nil {
		t.Fatalf("connect to NATS: %v", err)
	}
	b, err := natsbus.New(nc, natsbus.Options{Prefix: prefix, Ordered: true})
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.DeleteStream(context.Background())
		b.Close()
	})
	return b
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

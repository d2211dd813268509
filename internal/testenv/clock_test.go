package testenv_test

import (
	"testing"
	"time"

	"github.com/slashd/slashd/internal/testenv"
)

func wantFired(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testenv.WaitTimeout):
		t.Fatalf("%s: the timer did not fire", what)
	}
}

// TestClockTimers: a timer fires when Advance moves the clock past its
// deadline, not before (Reset and Stop report it still pending); Reset
// postpones it, Stop cancels it; in real time it fires too.
func TestClockTimers(t *testing.T) {
	t.Parallel()
	var c testenv.Clock
	ch := make(chan struct{}, 4)
	f := func() { ch <- struct{}{} }

	timer := c.AfterFunc(time.Hour, f)
	c.Advance(59 * time.Minute)
	if !timer.Reset(time.Hour) {
		t.Fatal("59 of 60 minutes: the timer is no longer pending")
	}
	c.Advance(59 * time.Minute)
	if !timer.Reset(time.Minute) {
		t.Fatal("59 minutes after Reset: the timer is no longer pending")
	}
	c.Advance(time.Minute)
	wantFired(t, ch, "a minute after Reset")
	if timer.Stop() {
		t.Fatal("Stop of a fired timer says it was pending")
	}

	stopped := c.AfterFunc(time.Minute, f)
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer says it was not pending")
	}
	c.Advance(time.Hour)
	if stopped.Stop() {
		t.Fatal("a stopped timer is pending again")
	}

	c.AfterFunc(time.Millisecond, f)
	wantFired(t, ch, "in real time")
	if n := len(ch); n != 0 {
		t.Fatalf("%d more firings", n)
	}
}

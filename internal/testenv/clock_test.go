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

// TestClockFrozen: a frozen clock stands still and fires its timers only
// when Advance passes them, those set before the freeze too.
func TestClockFrozen(t *testing.T) {
	t.Parallel()
	var c testenv.Clock
	ch := make(chan struct{}, 4)
	f := func() { ch <- struct{}{} }
	before := c.AfterFunc(20*time.Millisecond, f)
	c.Freeze()
	now := c.Now()
	after := c.AfterFunc(10*time.Millisecond, f)
	// Real time passes the timers' deadlines (the sleep can only make the
	// check pass wrongly on a loaded machine, never fail it).
	time.Sleep(50 * time.Millisecond)
	if !c.Now().Equal(now) {
		t.Fatalf("the frozen clock moved from %v to %v", now, c.Now())
	}
	if !before.Reset(20*time.Millisecond) || !after.Reset(10*time.Millisecond) {
		t.Fatal("a timer of the frozen clock fired in real time")
	}
	c.Advance(10 * time.Millisecond)
	wantFired(t, ch, "the 10 ms timer, advanced 10 ms")
	if !before.Stop() {
		t.Fatal("the 20 ms timer fired 10 ms in")
	}
	if got := c.Now().Sub(now); got != 10*time.Millisecond {
		t.Fatalf("the clock moved %v, want 10ms", got)
	}
	c.AfterFunc(0, f)
	wantFired(t, ch, "a timer due at once")
}

package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// testFaults: faults read back as written, listed by world and by
// liveness; a counted fault fires exactly count times however many
// match it concurrently; a probable one asks its sequence with the match
// numbers 1, 2, …; deleting one, or a world's, leaves the others.
func testFaults(t *testing.T, open func(t *testing.T) store.Store) {
	const worldA, worldB snowflake.ID = 5001, 5002
	fault := func(id, world snowflake.ID, count int64, p float64) store.Fault {
		return store.Fault{ID: id, WorldID: world, Kind: "rest.429", AppID: appID, Route: "GET /api/v10/x",
			Session: "s1", Params: []byte(`{"retry_after":1.5}`), Count: count, Remaining: count,
			Probability: p, Seed: 42, CreatedAt: ms(1_700_000_000_000 + int64(id))}
	}
	t.Run("round trip and lists", func(t *testing.T) {
		f := newFixture(t, open)
		a2, a1, b1 := fault(12, worldA, 2, 0), fault(11, worldA, 0, 0.5), fault(13, worldB, 1, 0)
		for _, x := range []store.Fault{a2, a1, b1} {
			must(t, f.s.CreateFault(f.ctx, x, 0))
		}
		if err := f.s.CreateFault(f.ctx, a1, 0); !errors.Is(err, store.ErrConflict) {
			t.Errorf("CreateFault of a taken id = %v, want ErrConflict", err)
		}
		got, err := f.s.WorldFaults(f.ctx, worldA)
		must(t, err)
		if len(got) != 2 || !equalFault(got[0], a1) || !equalFault(got[1], a2) {
			t.Errorf("WorldFaults = %+v, want %+v, %+v", got, a1, a2)
		}
		if got, err := f.s.WorldFaults(f.ctx, 999); err != nil || got == nil || len(got) != 0 {
			t.Errorf("WorldFaults(unknown) = %v, %v; want an empty list", got, err)
		}
		// b1 fires once and is spent: no longer live.
		if _, fired, err := f.s.MatchFault(f.ctx, b1.ID, nil); err != nil || !fired {
			t.Fatalf("MatchFault(b1) fired %v, %v", fired, err)
		}
		spent, fired, err := f.s.MatchFault(f.ctx, b1.ID, nil)
		if err != nil || fired || spent.Remaining != 0 || spent.Fired != 1 {
			t.Errorf("MatchFault(spent b1) = %+v, %v, %v; want not fired, 0 left, fired 1", spent, fired, err)
		}
		live, err := f.s.LiveFaults(f.ctx)
		must(t, err)
		if len(live) != 2 || live[0].ID != a1.ID || live[1].ID != a2.ID {
			t.Errorf("LiveFaults = %+v, want a1, a2", live)
		}
	})
	t.Run("counted faults fire exactly count times", func(t *testing.T) {
		f := newFixture(t, open)
		x := fault(21, worldA, 5, 0)
		must(t, f.s.CreateFault(f.ctx, x, 0))
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			fires int
		)
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, fired, err := f.s.MatchFault(f.ctx, x.ID, nil)
				if err != nil {
					t.Error(err)
				}
				if fired {
					mu.Lock()
					fires++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		got, err := f.s.WorldFaults(f.ctx, worldA)
		must(t, err)
		if fires != 5 || got[0].Remaining != 0 || got[0].Fired != 5 {
			t.Errorf("fired %d times, stored %+v; want 5, none left", fires, got[0])
		}
	})
	t.Run("probable faults follow their sequence", func(t *testing.T) {
		f := newFixture(t, open)
		unbounded, bounded := fault(31, worldA, 0, 0.5), fault(32, worldA, 1, 0.5)
		must(t, f.s.CreateFault(f.ctx, unbounded, 0))
		must(t, f.s.CreateFault(f.ctx, bounded, 0))
		even := func(n int64) bool { return n%2 == 0 }
		var seq []bool
		for range 4 {
			got, fired, err := f.s.MatchFault(f.ctx, unbounded.ID, even)
			must(t, err)
			seq = append(seq, fired)
			if !got.Live() {
				t.Errorf("a probable fault without a count was spent: %+v", got)
			}
		}
		if want := []bool{false, true, false, true}; !equalBools(seq, want) {
			t.Errorf("fired %v, want %v", seq, want)
		}
		seq = nil
		for range 4 {
			_, fired, err := f.s.MatchFault(f.ctx, bounded.ID, even)
			must(t, err)
			seq = append(seq, fired)
		}
		if want := []bool{false, true, false, false}; !equalBools(seq, want) {
			t.Errorf("count 1: fired %v, want %v", seq, want)
		}
	})
	t.Run("a world's faults are capped, however many race for the last places", func(t *testing.T) {
		f := newFixture(t, open)
		const capped = 5
		must(t, f.s.CreateFault(f.ctx, fault(51, worldA, 1, 0), capped))
		spent := fault(52, worldA, 1, 0)
		must(t, f.s.CreateFault(f.ctx, spent, capped))
		if _, fired, err := f.s.MatchFault(f.ctx, spent.ID, nil); err != nil || !fired {
			t.Fatalf("MatchFault = %v, %v", fired, err)
		}
		// Three places are left (a spent fault keeps its place); eight
		// creations race for them.
		var (
			wg            sync.WaitGroup
			mu            sync.Mutex
			made, refused int
		)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := f.s.CreateFault(f.ctx, fault(snowflake.ID(60+i), worldA, 1, 0), capped)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					made++
				case errors.Is(err, store.ErrLimit):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if made != 3 || refused != 5 {
			t.Errorf("%d made and %d refused, want 3 and 5", made, refused)
		}
		if got, err := f.s.WorldFaults(f.ctx, worldA); err != nil || len(got) != capped {
			t.Errorf("WorldFaults = %d faults (%v), want %d", len(got), err, capped)
		}
		// Another world's count is its own; no cap is no cap.
		must(t, f.s.CreateFault(f.ctx, fault(71, worldB, 1, 0), capped))
		must(t, f.s.CreateFault(f.ctx, fault(72, worldA, 1, 0), 0))
		// A deleted fault frees its place.
		must(t, f.s.DeleteFault(f.ctx, worldA, 72))
		must(t, f.s.DeleteFault(f.ctx, worldA, 51))
		must(t, f.s.CreateFault(f.ctx, fault(73, worldA, 1, 0), capped))
	})
	t.Run("delete", func(t *testing.T) {
		f := newFixture(t, open)
		for _, x := range []store.Fault{fault(41, worldA, 1, 0), fault(42, worldA, 1, 0), fault(43, worldB, 1, 0)} {
			must(t, f.s.CreateFault(f.ctx, x, 0))
		}
		if err := f.s.DeleteFault(f.ctx, worldB, 41); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("DeleteFault of another world's = %v, want ErrNotFound", err)
		}
		must(t, f.s.DeleteFault(f.ctx, worldA, 41))
		if _, _, err := f.s.MatchFault(f.ctx, 41, nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("MatchFault of a deleted fault = %v, want ErrNotFound", err)
		}
		if n, err := f.s.DeleteWorldFaults(f.ctx, worldA); err != nil || n != 1 {
			t.Errorf("DeleteWorldFaults = %d, %v; want 1", n, err)
		}
		live, err := f.s.LiveFaults(f.ctx)
		must(t, err)
		if len(live) != 1 || live[0].ID != 43 {
			t.Errorf("LiveFaults = %+v, want world B's only", live)
		}
	})
}

// equalFault compares faults field by field (Params as text).
func equalFault(a, b store.Fault) bool {
	return string(a.Params) == string(b.Params) && reflect.DeepEqual(withoutParams(a), withoutParams(b))
}

func withoutParams(f store.Fault) store.Fault {
	f.Params = nil
	return f
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

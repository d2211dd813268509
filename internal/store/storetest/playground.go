package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// playgroundSession is a session of the admin token named admin, made
// at ms(created) and lasting ttl milliseconds.
func playgroundSession(name, admin string, created, ttl int64) store.PlaygroundSession {
	return store.PlaygroundSession{Hash: hash("cookie " + name), AdminTokenHash: hash(admin),
		SealedAdminToken: []byte("sealed " + admin + " for " + name), CSRF: "csrf " + name,
		ExpiresAt: ms(created + ttl), CreatedAt: ms(created)}
}

// testPlaygroundSessions: a session reads back as written, expired or
// not; hashes are unique and must name an admin token; a login purges
// the expired sessions and, past keep, the ones that expire first;
// deleting one leaves the others.
func testPlaygroundSessions(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("round trip", func(t *testing.T) {
		f := newFixture(t, open)
		must(t, f.s.CreateAdminToken(f.ctx, hash("admin"), ms(1_000)))
		live := playgroundSession("live", "admin", 1_700_000_000_000, 3_600_000)
		expired := playgroundSession("expired", "admin", 1_000, 1_000)
		// expired first: live's upkeep would purge it.
		must(t, f.s.CreatePlaygroundSession(f.ctx, expired, 0))
		must(t, f.s.CreatePlaygroundSession(f.ctx, live, 0))
		if got, err := f.s.PlaygroundSession(f.ctx, live.Hash); err != nil || !reflect.DeepEqual(got, live) {
			t.Errorf("PlaygroundSession = %+v, %v; want %+v", got, err, live)
		}
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"duplicate hash", f.s.CreatePlaygroundSession(f.ctx, live, 0), store.ErrConflict},
			{"unknown admin token", f.s.CreatePlaygroundSession(f.ctx,
				playgroundSession("orphan", "not an admin token", 1_700_000_000_000, 1_000), 0), store.ErrNotFound},
			{"unknown hash", func() error { _, err := f.s.PlaygroundSession(f.ctx, hash("nope")); return err }(), store.ErrNotFound},
			{"expired one purged by the next login", func() error { _, err := f.s.PlaygroundSession(f.ctx, expired.Hash); return err }(), store.ErrNotFound},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) {
				t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
			}
		}
		must(t, f.s.DeletePlaygroundSession(f.ctx, live.Hash))
		must(t, f.s.DeletePlaygroundSession(f.ctx, live.Hash)) // again: no error
		if _, err := f.s.PlaygroundSession(f.ctx, live.Hash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted session: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("expired sessions are read until purged", func(t *testing.T) {
		f := newFixture(t, open)
		must(t, f.s.CreateAdminToken(f.ctx, hash("admin"), ms(1_000)))
		old := playgroundSession("old", "admin", 1_000, 1_000)
		must(t, f.s.CreatePlaygroundSession(f.ctx, old, 0))
		if got, err := f.s.PlaygroundSession(f.ctx, old.Hash); err != nil || !reflect.DeepEqual(got, old) {
			t.Errorf("expired session = %+v, %v; want it as written", got, err)
		}
		// A login at its very expiry purges it (a session is live
		// strictly before ExpiresAt).
		must(t, f.s.CreatePlaygroundSession(f.ctx, playgroundSession("next", "admin", 2_000, 1_000), 0))
		if _, err := f.s.PlaygroundSession(f.ctx, old.Hash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a session expired at the next login: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("keep", func(t *testing.T) {
		f := newFixture(t, open)
		must(t, f.s.CreateAdminToken(f.ctx, hash("admin"), ms(1_000)))
		present := func(s store.PlaygroundSession) bool {
			t.Helper()
			_, err := f.s.PlaygroundSession(f.ctx, s.Hash)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
			return err == nil
		}
		// Sessions made in turn, each lasting less than the one before:
		// the cap goes by expiry, not by creation. Logins 3, 4 and 5 each
		// find keep sessions and evict the one expiring first: s2, then
		// s3, then s4.
		const keep = 3
		var made []store.PlaygroundSession
		for i := range 6 {
			s := playgroundSession(fmt.Sprint("s", i), "admin", 1_700_000_000_000+int64(i), 10_000-int64(i)*1_000)
			must(t, f.s.CreatePlaygroundSession(f.ctx, s, keep))
			made = append(made, s)
		}
		var got []bool
		for _, s := range made {
			got = append(got, present(s))
		}
		if want := []bool{true, true, false, false, false, true}; !reflect.DeepEqual(got, want) {
			t.Errorf("sessions present after 6 logins with keep %d: %v, want %v", keep, got, want)
		}
		// keep 0: no cap.
		for i := range 4 {
			s := playgroundSession(fmt.Sprint("u", i), "admin", 1_700_000_000_100, 10_000)
			must(t, f.s.CreatePlaygroundSession(f.ctx, s, 0))
			made = append(made, s)
		}
		n := 0
		for _, s := range made {
			if present(s) {
				n++
			}
		}
		if n != keep+4 {
			t.Errorf("%d sessions after 4 uncapped logins, want %d", n, keep+4)
		}
	})
}

// RunPlaygroundRevocation checks, in a SQL store's tables, that deleting
// an admin token's row (revoking it) deletes the playground sessions
// made with it, and only those.
func RunPlaygroundRevocation(t *testing.T, open func(t *testing.T) *sqlstore.Store) {
	s := open(t)
	ctx := t.Context()
	must(t, s.CreateAdminToken(ctx, hash("old admin"), ms(1_000)))
	must(t, s.CreateAdminToken(ctx, hash("new admin"), ms(2_000)))
	fromOld := playgroundSession("a", "old admin", 1_700_000_000_000, 3_600_000)
	fromNew := playgroundSession("b", "new admin", 1_700_000_000_000, 3_600_000)
	must(t, s.CreatePlaygroundSession(ctx, fromOld, 0))
	must(t, s.CreatePlaygroundSession(ctx, fromNew, 0))
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM admin_tokens WHERE hash = $1`, hash("old admin")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PlaygroundSession(ctx, fromOld.Hash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a session of a revoked admin token: err = %v, want ErrNotFound", err)
	}
	if _, err := s.PlaygroundSession(ctx, fromNew.Hash); err != nil {
		t.Errorf("another admin token's session went too: %v", err)
	}
}

package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// issued is an access token of grant g and its refresh token, named by
// label.
func issued(g snowflake.ID, label string) (store.Token, store.RefreshToken) {
	access := store.Token{Hash: hash(label + " access"), Kind: store.TokenBearer, ApplicationID: appID, UserID: aliceID,
		Scopes: []string{"identify", "openid"}, ExpiresAt: ms(1_700_604_800_000), CreatedAt: ms(1_700_000_000_000), GrantID: g}
	refresh := store.RefreshToken{Hash: hash(label + " refresh"), GrantID: g, CreatedAt: ms(1_700_000_000_000)}
	return access, refresh
}

// stored reports whether the access and refresh tokens are stored; the
// refresh token is spent by the look.
func (f *fixture) stored(t *testing.T, access store.Token, refresh store.RefreshToken) (bool, bool) {
	t.Helper()
	gotAccess, err := f.s.TokenByHash(f.ctx, access.Hash)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("TokenByHash: %v", err)
	}
	if err == nil && !reflect.DeepEqual(gotAccess, access) {
		t.Errorf("access token = %+v, want %+v", gotAccess, access)
	}
	gotRefresh, rerr := f.s.UseRefreshToken(f.ctx, refresh.Hash)
	if rerr != nil && !errors.Is(rerr, store.ErrNotFound) {
		t.Fatalf("UseRefreshToken: %v", rerr)
	}
	if rerr == nil && !reflect.DeepEqual(gotRefresh, refresh) {
		t.Errorf("refresh token = %+v, want %+v", gotRefresh, refresh)
	}
	return err == nil, rerr == nil
}

// testIssueTokens: IssueTokens stores both tokens or neither, and never
// stores one for a grant that is gone, however RevokeGrant interleaves.
func testIssueTokens(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.grant(t, grantID, appID, aliceID, "identify", "openid")
	f.grant(t, grant2ID, appID, aliceID, "identify")

	t.Run("both", func(t *testing.T) {
		access, refresh := issued(grantID, "both")
		must(t, f.s.IssueTokens(f.ctx, access, &refresh))
		if a, r := f.stored(t, access, refresh); !a || !r {
			t.Errorf("stored: access %v, refresh %v; want both", a, r)
		}
	})
	t.Run("access only", func(t *testing.T) {
		access, refresh := issued(grantID, "access only")
		must(t, f.s.IssueTokens(f.ctx, access, nil))
		if a, r := f.stored(t, access, refresh); !a || r {
			t.Errorf("stored: access %v, refresh %v; want the access token alone", a, r)
		}
	})

	taken, _ := issued(grantID, "both")
	_, takenRefresh := issued(grantID, "both")
	refused := []struct {
		name    string
		grant   snowflake.ID
		access  func(store.Token) store.Token
		refresh func(store.RefreshToken) *store.RefreshToken
		want    error // nil: any error
	}{
		{name: "unknown grant", grant: 999, want: store.ErrNotFound},
		{name: "unknown grant, access only", grant: 999, want: store.ErrNotFound,
			refresh: func(store.RefreshToken) *store.RefreshToken { return nil }},
		{name: "grant 0", grant: 0, want: store.ErrNotFound},
		// The access token goes in first: the refresh token's failure
		// must take it back out.
		{name: "refresh hash taken", grant: grantID, want: store.ErrConflict,
			refresh: func(r store.RefreshToken) *store.RefreshToken { r.Hash = takenRefresh.Hash; return &r }},
		{name: "access hash taken", grant: grantID, want: store.ErrConflict,
			access: func(a store.Token) store.Token { a.Hash = taken.Hash; return a }},
		{name: "grants differ", grant: grantID,
			refresh: func(r store.RefreshToken) *store.RefreshToken { r.GrantID = grant2ID; return &r }},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			access, refresh := issued(c.grant, c.name)
			sentAccess, sentRefresh := access, &refresh
			if c.access != nil {
				sentAccess = c.access(access)
			}
			if c.refresh != nil {
				sentRefresh = c.refresh(refresh)
			}
			err := f.s.IssueTokens(f.ctx, sentAccess, sentRefresh)
			if err == nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("IssueTokens: err = %v, want %v", err, c.want)
			}
			if a, r := f.stored(t, access, refresh); a || r {
				t.Errorf("after a refused issue: access %v, refresh %v stored; want neither", a, r)
			}
		})
	}

	t.Run("revoked grant", func(t *testing.T) {
		g := f.grant(t, f.ids(), appID, aliceID, "identify")
		must(t, f.s.RevokeGrant(f.ctx, g.ID))
		access, refresh := issued(g.ID, "revoked")
		if err := f.s.IssueTokens(f.ctx, access, &refresh); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("IssueTokens for a revoked grant: err = %v, want ErrNotFound", err)
		}
		if a, r := f.stored(t, access, refresh); a || r {
			t.Errorf("for a revoked grant: access %v, refresh %v stored; want neither", a, r)
		}
	})

	// However an issue and a revocation of the same grant interleave,
	// nothing of the grant is left: the issue either came first (and
	// the revocation deleted its tokens) or found the grant gone.
	t.Run("concurrent revocation", func(t *testing.T) {
		const rounds = 20
		var before, after int
		for round := range rounds {
			for _, withRefresh := range []bool{true, false} {
				g := f.grant(t, f.ids(), appID, aliceID, "identify")
				access, refresh := issued(g.ID, fmt.Sprintf("race %d %v", round, withRefresh))
				var sent *store.RefreshToken
				if withRefresh {
					sent = &refresh
				}
				var (
					wg                  sync.WaitGroup
					issueErr, revokeErr error
					start               = make(chan struct{})
				)
				wg.Go(func() { <-start; issueErr = f.s.IssueTokens(f.ctx, access, sent) })
				wg.Go(func() { <-start; revokeErr = f.s.RevokeGrant(f.ctx, g.ID) })
				close(start)
				wg.Wait()
				switch {
				case issueErr == nil:
					before++
				case errors.Is(issueErr, store.ErrNotFound):
					after++
				default:
					t.Fatalf("round %d: IssueTokens: %v", round, issueErr)
				}
				if revokeErr != nil {
					t.Fatalf("round %d: RevokeGrant: %v", round, revokeErr)
				}
				if a, r := f.stored(t, access, refresh); a || r {
					t.Errorf("round %d (refresh %v): access %v, refresh %v left of a revoked grant", round, withRefresh, a, r)
				}
			}
		}
		t.Logf("issued before the revocation %d times, refused after it %d times", before, after)
	})
}

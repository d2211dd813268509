package fault_test

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/fault"
	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/postgres/pgtest"
	"github.com/slashd/slashd/internal/testenv"
)

// TestFaultsPerWorldAreCapped: a world holds at most its cap of faults,
// spent ones included (the default cap, 100, unless configured); one
// more is refused with the admin API's 50035 at the body's root, and
// nothing is stored. Another world's faults are its own, and a deleted
// fault frees its place.
func TestFaultsPerWorldAreCapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		configured int
		want       int
		postgres   bool
	}{
		{"default", 0, fault.DefaultMaxPerWorld, false},
		{"configured", 3, 3, false},
		{"configured on PostgreSQL", 3, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t, func(c *api.Config) { c.FaultsPerWorld = tc.configured })
			if tc.postgres {
				pg, err := postgres.Open(t.Context(), pgtest.DSN(t))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = pg.Close() })
				n := e.NodeOn(pg)
				if n.Admin, err = bootstrap.CreateAdminToken(t.Context(), bootstrap.Env{Store: pg, IDs: e.IDs,
					Rand: rand.Reader, Now: e.Clock.Now}); err != nil {
					t.Fatal(err)
				}
				e = n
			}
			full, other := newWorld(t, e, "full"), newWorld(t, e, "other")
			spent := addFault(t, e, full, map[string]any{"kind": "rest.500", "app": "modbot", "route": "GET /users/@me"})
			if r := e.Do("GET", "/api/v10/users/@me", full.Bot(), nil); r.Status != 500 {
				t.Fatalf("the fault did not fire: %d %s", r.Status, r.Body)
			}
			var first faultView
			for i := 1; i < tc.want; i++ {
				f := addFault(t, e, full, map[string]any{"kind": "rest.delay", "route": "GET /gateway", "count": 1})
				if i == 1 {
					first = f
				}
			}
			over := map[string]any{"kind": "rest.429", "app": "modbot"}
			r := e.Do("POST", "/admin/v1/worlds/full/faults", e.AdminAuth(), over)
			var body struct {
				Code   int `json:"code"`
				Errors struct {
					Errors []struct {
						Code string `json:"code"`
					} `json:"_errors"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != http.StatusBadRequest || body.Code != 50035 ||
				len(body.Errors.Errors) != 1 || body.Errors.Errors[0].Code != fault.CodeTooMany {
				t.Fatalf("fault %d of %d: %d %s, want 400 50035 %s at the root", tc.want+1, tc.want, r.Status, r.Body,
					fault.CodeTooMany)
			}
			if got := listFaults(t, e, full); len(got) != tc.want || got[0].ID != spent.ID {
				t.Fatalf("%d faults listed (the spent one first: %v), want %d", len(got), got[0].ID == spent.ID, tc.want)
			}
			addFault(t, e, other, over) // another world's count is its own
			if r := e.Do("DELETE", "/admin/v1/worlds/full/faults/"+first.ID, e.AdminAuth(), nil); r.Status != 204 {
				t.Fatalf("delete: %d %s", r.Status, r.Body)
			}
			addFault(t, e, full, over)
		})
	}
}

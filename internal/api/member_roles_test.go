package api_test

// HTTP tests of Add and Remove Guild Member Role (PUT and DELETE
// /guilds/{g}/members/{u}/roles/{r}): who may hand out which role, and
// what the member then has.

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/slashd/slashd/internal/testenv"
)

func TestGuildMemberRoles(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newWorld(t, e)
	const manageRoles = 1 << 28
	// The bot's managed role may manage roles and sits at 5; alice's
	// "managers" role too, at 3.
	botRole := memberRoles(t, e, w.guild, w.app)[0]
	adminDo(t, e, "PATCH", "/guilds/"+w.guild+"/roles/"+botRole,
		jsonObj{"permissions": fmt.Sprint(manageRoles), "position": 5}, http.StatusOK)
	low := w.role("painters", "0", 1)
	high := w.role("admins", "8", 9)
	managers := w.role("managers", fmt.Sprint(manageRoles), 3)
	alice := w.memberNamed("alice", managers)
	bob := w.memberNamed("bob")
	stranger := w.user("stranger")
	aliceTok, bobTok, ownerTok := w.client(alice), w.client(bob), w.client(w.owner)

	missingPerms := apiError(50013, "Missing Permissions")
	for _, c := range []struct {
		name         string
		auth, method string
		user, role   string
		status       int
		err          string   // the error body, when status is not 204
		bobHas       []string // bob's roles afterwards
	}{
		{"the bot adds a role below its own", e.Bot(), "PUT", bob, low, 204, "", []string{low}},
		{"adding it again changes nothing", e.Bot(), "PUT", bob, low, 204, "", []string{low}},
		{"the bot removes it", e.Bot(), "DELETE", bob, low, 204, "", []string{}},
		{"removing it again changes nothing", e.Bot(), "DELETE", bob, low, 204, "", []string{}},
		{"a role above the bot's", e.Bot(), "PUT", bob, high, 403, missingPerms, []string{}},
		{"the bot's own managed role", e.Bot(), "PUT", bob, botRole, 403, missingPerms, []string{}},
		{"@everyone", e.Bot(), "PUT", bob, w.guild, 403, missingPerms, []string{}},
		{"an unknown role", e.Bot(), "PUT", bob, "42", 404, apiError(10011, "Unknown Role"), []string{}},
		{"a user who is no member", e.Bot(), "PUT", stranger, low, 404, apiError(10007, "Unknown Member"), []string{}},
		{"no such user", e.Bot(), "PUT", "42", low, 404, apiError(10013, "Unknown User"), []string{}},
		{"a manager with a client token", aliceTok, "PUT", bob, low, 204, "", []string{low}},
		{"a manager, a role at her own position", aliceTok, "PUT", bob, managers, 403, missingPerms, []string{low}},
		{"a member without MANAGE_ROLES, for himself", bobTok, "DELETE", bob, low, 403, missingPerms, []string{low}},
		{"the owner, any role", ownerTok, "PUT", bob, high, 204, "", []string{low, high}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustDo(t, e, c.method, "/api/v10/guilds/"+w.guild+"/members/"+c.user+"/roles/"+c.role,
				c.auth, nil, -1)
			if c.status == 204 {
				if r.Status != 204 || len(r.Body) != 0 {
					t.Fatalf("got %s, want an empty 204", describe(r))
				}
			} else {
				wantError(t, r, c.status, c.err)
			}
			got := memberRoles(t, e, w.guild, bob)
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.bobHas))
			if !slices.Equal(got, want) {
				t.Errorf("bob has %v, want %v", got, want)
			}
		})
	}
}

// memberRoles are a member's roles, as the admin API has them.
func memberRoles(t *testing.T, e *testenv.Env, guild, user string) []string {
	t.Helper()
	m := adminObj(t, e, "GET", "/guilds/"+guild+"/members/"+user, nil, http.StatusOK)
	var ids []string
	for _, id := range m["roles"].([]any) {
		ids = append(ids, id.(string))
	}
	if ids == nil {
		ids = []string{}
	}
	return ids
}

package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// testInstallContexts: an app's installation contexts with their install
// params, its discovery flag, and the apps users installed to their
// accounts.
func testInstallContexts(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("integration types", func(t *testing.T) { testSetIntegrationTypes(t, open) })
	t.Run("discoverable", func(t *testing.T) { testSetDiscoverable(t, open) })
	t.Run("user installations", func(t *testing.T) { testUserInstallations(t, open) })
	t.Run("revoking the installing grant", func(t *testing.T) { testRevokeUninstalls(t, open) })
}

func (f *fixture) app(t *testing.T, id snowflake.ID) store.Application {
	t.Helper()
	a, err := f.s.Application(f.ctx, id)
	must(t, err)
	return a
}

func testSetIntegrationTypes(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	cases := []struct {
		name       string
		types      []int
		params     map[int]store.InstallParams
		wantTypes  []int
		wantParams map[int]store.InstallParams
	}{
		{"user install only, no params", []int{1}, nil, []int{1}, nil},
		{"both, sorted, each with params", []int{1, 0}, map[int]store.InstallParams{
			0: {Scopes: []string{"applications.commands", "bot"}, Permissions: 2048},
			1: {Scopes: []string{"applications.commands"}},
		}, []int{0, 1}, map[int]store.InstallParams{
			0: {Scopes: []string{"applications.commands", "bot"}, Permissions: 2048},
			1: {Scopes: []string{"applications.commands"}},
		}},
		{"params of a type not supported are dropped", []int{0}, map[int]store.InstallParams{
			0: {Scopes: []string{"bot"}, Permissions: 8},
			1: {Scopes: []string{"applications.commands"}},
		}, []int{0}, map[int]store.InstallParams{0: {Scopes: []string{"bot"}, Permissions: 8}}},
	}
	for _, c := range cases {
		must(t, f.s.SetIntegrationTypes(f.ctx, appID, c.types, c.params))
		got := f.app(t, appID)
		if !reflect.DeepEqual(got.IntegrationTypes, c.wantTypes) || !reflect.DeepEqual(got.InstallParams, c.wantParams) {
			t.Errorf("%s: types %v params %+v; want %v %+v", c.name, got.IntegrationTypes, got.InstallParams,
				c.wantTypes, c.wantParams)
		}
		// Applications reads the same.
		apps, err := f.s.Applications(f.ctx)
		must(t, err)
		if !reflect.DeepEqual(apps[0], got) {
			t.Errorf("%s: Applications()[0] = %+v, want %+v", c.name, apps[0], got)
		}
	}
	// The other app is untouched.
	want, _ := newApp(otherAppID)
	checkApplication(t, f.app(t, otherAppID), want)
	checkErrs(t, []errCase{
		{"SetIntegrationTypes of an unknown app", func() error { return f.s.SetIntegrationTypes(f.ctx, unknown, []int{0}, nil) },
			store.ErrNotFound},
	})
}

func testSetDiscoverable(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	if f.app(t, appID).Discoverable {
		t.Fatal("a new app is discoverable")
	}
	must(t, f.s.SetDiscoverable(f.ctx, appID, true))
	if !f.app(t, appID).Discoverable || f.app(t, otherAppID).Discoverable {
		t.Fatal("SetDiscoverable(true) did not take, or took on the other app")
	}
	must(t, f.s.SetDiscoverable(f.ctx, appID, false))
	if f.app(t, appID).Discoverable {
		t.Fatal("SetDiscoverable(false) did not take")
	}

	// An age-restricted guild command blocks discovery; its app's other
	// commands and the other app's nsfw command do not matter.
	f.upsert(t, globalScope, "safe", "Safe for work")
	f.write(t, guild2Scope, `{"name":"spicy","description":"Age-restricted","nsfw":true}`)
	f.write(t, otherGlobalScope, `{"name":"other","description":"Other app's","nsfw":true}`)
	checkErrs(t, []errCase{
		{"SetDiscoverable(true) with an nsfw command", func() error { return f.s.SetDiscoverable(f.ctx, appID, true) },
			store.ErrConflict},
		{"SetDiscoverable of an unknown app", func() error { return f.s.SetDiscoverable(f.ctx, unknown, false) },
			store.ErrNotFound},
	})
	if f.app(t, appID).Discoverable {
		t.Fatal("a refused SetDiscoverable changed the flag")
	}
	// Turning it off is always allowed; once the command is no longer
	// age-restricted, discovery can be turned on.
	must(t, f.s.SetDiscoverable(f.ctx, appID, false))
	f.write(t, guild2Scope, `{"name":"spicy","description":"Not any more","nsfw":false}`)
	must(t, f.s.SetDiscoverable(f.ctx, appID, true))
	if !f.app(t, appID).Discoverable {
		t.Fatal("SetDiscoverable(true) after the nsfw command went did not take")
	}
}

// write upserts one command from a JSON body.
func (f *fixture) write(t *testing.T, scope command.Scope, body string) command.Command {
	t.Helper()
	p, err := f.s.WriteCommands(f.ctx, scope, 0, upsertPlan(parse(t, scope, command.ModeCreate, body), f.ids))
	must(t, err)
	return p.Result[0]
}

func userInstall(user, app, grant snowflake.ID, at int64) store.UserInstallation {
	return store.UserInstallation{UserID: user, ApplicationID: app, Scopes: []string{"applications.commands"},
		GrantID: grant, CreatedAt: ms(at)}
}

func checkUserInstallation(t *testing.T, what string, got, want store.UserInstallation) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v", what, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt, want.CreatedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func (f *fixture) userInstalls(t *testing.T, user snowflake.ID) []store.UserInstallation {
	t.Helper()
	l, err := f.s.UserInstallations(f.ctx, user)
	must(t, err)
	return l
}

func testUserInstallations(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.user(t, bobID, "bob")
	if l := f.userInstalls(t, aliceID); l == nil || len(l) != 0 {
		t.Errorf("UserInstallations of a user without any = %#v, want an empty non-nil list", l)
	}
	if l := f.userInstalls(t, unknown); len(l) != 0 {
		t.Errorf("UserInstallations of an unknown user = %+v", l)
	}
	// Installed in reverse id order; listed by app id.
	other := userInstall(aliceID, otherAppID, 0, 1_700_000_000_001)
	mine := userInstall(aliceID, appID, 0, 1_700_000_000_002)
	must(t, f.s.InstallForUser(f.ctx, other))
	must(t, f.s.InstallForUser(f.ctx, mine))
	must(t, f.s.InstallForUser(f.ctx, userInstall(bobID, appID, 0, 1_700_000_000_003)))
	l := f.userInstalls(t, aliceID)
	if len(l) != 2 {
		t.Fatalf("UserInstallations = %+v, want two", l)
	}
	checkUserInstallation(t, "UserInstallations[0]", l[0], mine)
	checkUserInstallation(t, "UserInstallations[1]", l[1], other)
	got, err := f.s.UserInstallation(f.ctx, aliceID, otherAppID)
	must(t, err)
	checkUserInstallation(t, "UserInstallation", got, other)

	// Replacing keeps one installation, with the new grant and time.
	again := userInstall(aliceID, appID, grantID, 1_700_000_000_009)
	must(t, f.s.InstallForUser(f.ctx, again))
	got, err = f.s.UserInstallation(f.ctx, aliceID, appID)
	must(t, err)
	checkUserInstallation(t, "UserInstallation after a replace", got, again)
	if l := f.userInstalls(t, aliceID); len(l) != 2 {
		t.Errorf("UserInstallations after a replace = %+v", l)
	}
	counts, err := f.s.ApplicationCounts(f.ctx, appID)
	must(t, err)
	if counts.UserInstalls != 2 {
		t.Errorf("ApplicationCounts.UserInstalls = %d, want 2 (alice and bob)", counts.UserInstalls)
	}

	checkErrs(t, []errCase{
		{"InstallForUser of an unknown user", func() error {
			return f.s.InstallForUser(f.ctx, userInstall(unknown, appID, 0, 1))
		}, store.ErrNotFound},
		{"InstallForUser of an unknown app", func() error {
			return f.s.InstallForUser(f.ctx, userInstall(aliceID, unknown, 0, 1))
		}, store.ErrNotFound},
		{"UserInstallation not installed", func() error { _, err := f.s.UserInstallation(f.ctx, carolID, appID); return err },
			store.ErrNotFound},
	})

	must(t, f.s.UninstallForUser(f.ctx, aliceID, otherAppID))
	checkErrs(t, []errCase{
		{"UserInstallation after UninstallForUser", func() error {
			_, err := f.s.UserInstallation(f.ctx, aliceID, otherAppID)
			return err
		}, store.ErrNotFound},
		{"UninstallForUser again", func() error { return f.s.UninstallForUser(f.ctx, aliceID, otherAppID) }, store.ErrNotFound},
		{"UninstallForUser of an unknown user", func() error { return f.s.UninstallForUser(f.ctx, unknown, appID) },
			store.ErrNotFound},
	})
	if l := f.userInstalls(t, aliceID); len(l) != 1 || l[0].ApplicationID != appID {
		t.Errorf("UserInstallations after UninstallForUser = %+v", l)
	}

	// Deleting a user deletes their installations, no one else's.
	must(t, f.s.DeleteUser(f.ctx, aliceID))
	if l := f.userInstalls(t, aliceID); len(l) != 0 {
		t.Errorf("UserInstallations of a deleted user = %+v", l)
	}
	if l := f.userInstalls(t, bobID); len(l) != 1 {
		t.Errorf("bob's installations after alice's deletion = %+v", l)
	}
	counts, err = f.s.ApplicationCounts(f.ctx, appID)
	must(t, err)
	if counts.UserInstalls != 1 {
		t.Errorf("ApplicationCounts.UserInstalls after a deletion = %d, want 1", counts.UserInstalls)
	}
}

// testRevokeUninstalls: revoking the grant that installed an app for a
// user uninstalls it, unless another live grant of theirs installed it
// too; revoking other grants, and installations the admin API made
// (GrantID 0), are left alone.
func testRevokeUninstalls(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.user(t, bobID, "bob")
	installing := func(id, user snowflake.ID) {
		f.grant(t, id, appID, user, "identify", "applications.commands")
		must(t, f.s.InstallForUser(f.ctx, userInstall(user, appID, id, 1_700_000_000_000+int64(id))))
	}
	installing(grantID, aliceID) // alice installs…
	f.grant(t, 510, appID, aliceID, "identify")
	guildGrant := store.Grant{ID: 511, ApplicationID: appID, UserID: aliceID, Scopes: []string{"applications.commands"},
		GuildID: guildID, CreatedAt: ms(1_700_000_000_000)}
	must(t, f.s.CreateGrant(f.ctx, guildGrant))
	installing(grant2ID, aliceID) // …and installs again: the installation is grant2's
	installing(520, bobID)
	must(t, f.s.InstallForUser(f.ctx, userInstall(aliceID, otherAppID, 0, 1)))
	f.grant(t, 521, otherAppID, aliceID, "applications.commands")

	installedBy := func(user, app snowflake.ID) (snowflake.ID, bool) {
		t.Helper()
		in, err := f.s.UserInstallation(f.ctx, user, app)
		if err != nil {
			return 0, false
		}
		return in.GrantID, true
	}
	steps := []struct {
		revoke    snowflake.ID
		wantAlice snowflake.ID // the grant alice's installation is on (0: none)
	}{
		{510, grant2ID},     // a grant without applications.commands installed nothing
		{511, grant2ID},     // nor did a guild install's grant
		{grant2ID, grantID}, // the installing grant goes: grant still installs it
		{grantID, 0},        // the last one: uninstalled
	}
	for _, s := range steps {
		must(t, f.s.RevokeGrant(f.ctx, s.revoke))
		g, ok := installedBy(aliceID, appID)
		if s.wantAlice == 0 && ok {
			t.Errorf("after revoking %d: alice's installation is on grant %d, want none", s.revoke, g)
		}
		if s.wantAlice != 0 && (!ok || g != s.wantAlice) {
			t.Errorf("after revoking %d: alice's installation on grant %d (%v), want %d", s.revoke, g, ok, s.wantAlice)
		}
		if g, ok := installedBy(bobID, appID); !ok || g != 520 {
			t.Errorf("after revoking %d: bob's installation %d, %v; want grant 520", s.revoke, g, ok)
		}
	}
	// The admin API's installation of the other app survives revoking
	// alice's grant to it.
	must(t, f.s.RevokeGrant(f.ctx, 521))
	if g, ok := installedBy(aliceID, otherAppID); !ok || g != 0 {
		t.Errorf("admin installation after a revoke: %d, %v", g, ok)
	}
	counts, err := f.s.ApplicationCounts(f.ctx, appID)
	must(t, err)
	if counts.UserInstalls != 1 {
		t.Errorf("ApplicationCounts.UserInstalls = %d, want 1 (bob)", counts.UserInstalls)
	}
}

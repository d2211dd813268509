package storetest

import (
	"bytes"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Ids of the OAuth fixture's grants (its users are the fixture's owner
// and aliceID).
const (
	grantID  snowflake.ID = 500
	grant2ID snowflake.ID = 501
)

func testOAuth(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("logins", func(t *testing.T) { testLogins(t, open) })
	t.Run("sessions", func(t *testing.T) { testSessions(t, open) })
	t.Run("settings", func(t *testing.T) { testOAuthSettings(t, open) })
	t.Run("grants", func(t *testing.T) { testGrants(t, open) })
	t.Run("codes", func(t *testing.T) { testCodes(t, open) })
	t.Run("refresh tokens", func(t *testing.T) { testRefreshTokens(t, open) })
	t.Run("revoke", func(t *testing.T) { testRevokeGrant(t, open) })
	t.Run("issue tokens", func(t *testing.T) { testIssueTokens(t, open) })
	t.Run("signing keys", func(t *testing.T) { testSigningKeys(t, open) })
	t.Run("application counts", func(t *testing.T) { testApplicationCounts(t, open) })
}

// testApplicationCounts: guilds count installations; users count live
// grants, once per user; user installs count user installations;
// revoking a grant takes its user out.
func testApplicationCounts(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.grant(t, grantID, appID, aliceID, "identify", "applications.commands")
	must(t, f.s.InstallForUser(f.ctx, store.UserInstallation{UserID: aliceID, ApplicationID: appID,
		Scopes: []string{"applications.commands"}, GrantID: grantID, CreatedAt: ms(1_700_000_000_000)}))
	f.grant(t, grant2ID, appID, aliceID, "identify")
	guildGrant := store.Grant{ID: 502, ApplicationID: appID, UserID: ownerID, Scopes: []string{"bot", "applications.commands"},
		GuildID: guildID, CreatedAt: ms(1_700_000_000_000)}
	must(t, f.s.CreateGrant(f.ctx, guildGrant))
	// The admin API installs without a grant.
	must(t, f.s.InstallForUser(f.ctx, store.UserInstallation{UserID: ownerID, ApplicationID: otherAppID,
		Scopes: []string{"applications.commands"}, CreatedAt: ms(1_700_000_000_000)}))
	check := func(when string, app snowflake.ID, want store.AppCounts) {
		t.Helper()
		got, err := f.s.ApplicationCounts(f.ctx, app)
		if err != nil || got != want {
			t.Errorf("%s: ApplicationCounts(%d) = %+v, %v; want %+v", when, app, got, err, want)
		}
	}
	check("fixture", appID, store.AppCounts{Guilds: 2, UserInstalls: 1, UserAuthorizations: 2})
	check("fixture", otherAppID, store.AppCounts{Guilds: 2, UserInstalls: 1, UserAuthorizations: 0})
	check("unknown app", 999, store.AppCounts{})
	must(t, f.s.RevokeGrant(f.ctx, grantID))
	must(t, f.s.Uninstall(f.ctx, guild2ID, appID))
	check("after a revoke and an uninstall", appID, store.AppCounts{Guilds: 1, UserInstalls: 0, UserAuthorizations: 2})
}

// oauthFixture is the world fixture plus a user alice.
func oauthFixture(t *testing.T, open func(t *testing.T) store.Store) *fixture {
	t.Helper()
	f := newFixture(t, open)
	must(t, f.s.CreateUser(f.ctx, store.User{ID: aliceID, Username: "alice", CreatedAt: ms(1_600_000_000_000)}))
	return f
}

func (f *fixture) grant(t *testing.T, id, app, user snowflake.ID, scopes ...string) store.Grant {
	t.Helper()
	g := store.Grant{ID: id, ApplicationID: app, UserID: user, Scopes: scopes, CreatedAt: ms(1_700_000_000_000)}
	must(t, f.s.CreateGrant(f.ctx, g))
	return g
}

func testLogins(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	alice := store.Login{UserID: aliceID, Name: "alice", PasswordHash: []byte("$argon2id$alice")}
	must(t, f.s.SetLogin(f.ctx, alice))
	must(t, f.s.SetLogin(f.ctx, store.Login{UserID: ownerID, Name: "boss", PasswordHash: []byte("$argon2id$boss")}))

	reads := []struct {
		name string
		read func() (store.Login, error)
		want store.Login
	}{
		{"LoginByName", func() (store.Login, error) { return f.s.LoginByName(f.ctx, "alice") }, alice},
		{"LoginOfUser", func() (store.Login, error) { return f.s.LoginOfUser(f.ctx, aliceID) }, alice},
	}
	for _, c := range reads {
		got, err := c.read()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}

	errs := []struct {
		name string
		err  func() error
		want error
	}{
		{"LoginByName of an unknown name", func() error { _, err := f.s.LoginByName(f.ctx, "nobody"); return err }, store.ErrNotFound},
		{"LoginByName is case-sensitive", func() error { _, err := f.s.LoginByName(f.ctx, "Alice"); return err }, store.ErrNotFound},
		{"LoginOfUser without a login", func() error { _, err := f.s.LoginOfUser(f.ctx, appID); return err }, store.ErrNotFound},
		{"SetLogin for an unknown user", func() error {
			return f.s.SetLogin(f.ctx, store.Login{UserID: 999, Name: "ghost", PasswordHash: []byte("x")})
		}, store.ErrNotFound},
		{"SetLogin with another user's name", func() error {
			return f.s.SetLogin(f.ctx, store.Login{UserID: ownerID, Name: "alice", PasswordHash: []byte("x")})
		}, store.ErrConflict},
	}
	for _, c := range errs {
		if err := c.err(); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// The failed claim on "alice" left the owner's login as it was.
	if l, err := f.s.LoginOfUser(f.ctx, ownerID); err != nil || l.Name != "boss" {
		t.Errorf("owner's login after a failed rename = %+v, %v", l, err)
	}

	// Replacing renames and frees the old name.
	renamed := store.Login{UserID: aliceID, Name: "alice2", PasswordHash: []byte("$argon2id$new")}
	must(t, f.s.SetLogin(f.ctx, renamed))
	if got, err := f.s.LoginByName(f.ctx, "alice2"); err != nil || !reflect.DeepEqual(got, renamed) {
		t.Errorf("after rename: %+v, %v", got, err)
	}
	if _, err := f.s.LoginByName(f.ctx, "alice"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("old name after rename: err = %v, want ErrNotFound", err)
	}
	must(t, f.s.SetLogin(f.ctx, store.Login{UserID: ownerID, Name: "alice", PasswordHash: []byte("x")}))

	// Deleting the user deletes the login.
	must(t, f.s.DeleteUser(f.ctx, aliceID))
	if _, err := f.s.LoginByName(f.ctx, "alice2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("login of a deleted user: err = %v, want ErrNotFound", err)
	}
}

func testSessions(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	live := store.Session{Hash: hash("live"), UserID: aliceID, CSRF: "csrf-1", ExpiresAt: ms(1_800_000_000_000),
		CreatedAt: ms(1_700_000_000_000)}
	expired := store.Session{Hash: hash("expired"), UserID: aliceID, CSRF: "csrf-2", ExpiresAt: ms(1_000),
		CreatedAt: ms(500)}
	for _, se := range []store.Session{live, expired} {
		must(t, f.s.CreateSession(f.ctx, se))
		got, err := f.s.SessionByHash(f.ctx, se.Hash)
		if err != nil || !reflect.DeepEqual(got, se) {
			t.Errorf("SessionByHash = %+v, %v; want %+v (expired ones are returned too)", got, err, se)
		}
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate hash", f.s.CreateSession(f.ctx, live), store.ErrConflict},
		{"unknown user", f.s.CreateSession(f.ctx, store.Session{Hash: hash("x"), UserID: 999, ExpiresAt: ms(1)}), store.ErrNotFound},
		{"unknown hash", func() error { _, err := f.s.SessionByHash(f.ctx, hash("nope")); return err }(), store.ErrNotFound},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
		}
	}
	must(t, f.s.DeleteSession(f.ctx, live.Hash))
	must(t, f.s.DeleteSession(f.ctx, live.Hash)) // again: no error
	if _, err := f.s.SessionByHash(f.ctx, live.Hash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted session: err = %v, want ErrNotFound", err)
	}
	if _, err := f.s.SessionByHash(f.ctx, expired.Hash); err != nil {
		t.Errorf("the other session went too: %v", err)
	}
	must(t, f.s.DeleteUser(f.ctx, aliceID))
	if _, err := f.s.SessionByHash(f.ctx, expired.Hash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session of a deleted user: err = %v, want ErrNotFound", err)
	}
}

func testOAuthSettings(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	defaults := store.OAuthSettings{ApplicationID: appID, RedirectURIs: []string{}}
	set := store.OAuthSettings{ApplicationID: appID, PublicClient: true,
		RedirectURIs: []string{"http://127.0.0.1/callback", "mygame:/authorize/callback"}}
	steps := []struct {
		name  string
		write *store.OAuthSettings
		want  store.OAuthSettings
	}{
		{"never set: defaults", nil, defaults},
		{"set", &set, set},
		{"replaced", &store.OAuthSettings{ApplicationID: appID, RedirectURIs: []string{"https://example.com/cb"}},
			store.OAuthSettings{ApplicationID: appID, RedirectURIs: []string{"https://example.com/cb"}}},
		{"nil list stored as empty", &store.OAuthSettings{ApplicationID: appID}, defaults},
	}
	for _, st := range steps {
		if st.write != nil {
			must(t, f.s.SetOAuthSettings(f.ctx, *st.write))
		}
		got, err := f.s.OAuthSettings(f.ctx, appID)
		if err != nil || !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: OAuthSettings = %#v, %v; want %#v", st.name, got, err, st.want)
		}
	}
	// The other app keeps its defaults.
	if got, err := f.s.OAuthSettings(f.ctx, otherAppID); err != nil ||
		!reflect.DeepEqual(got, store.OAuthSettings{ApplicationID: otherAppID, RedirectURIs: []string{}}) {
		t.Errorf("other app: %#v, %v", got, err)
	}
	for name, err := range map[string]error{
		"OAuthSettings of an unknown app":    func() error { _, err := f.s.OAuthSettings(f.ctx, 999); return err }(),
		"OAuthSettings of a plain user":      func() error { _, err := f.s.OAuthSettings(f.ctx, ownerID); return err }(),
		"SetOAuthSettings of an unknown app": f.s.SetOAuthSettings(f.ctx, store.OAuthSettings{ApplicationID: 999}),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
}

func testGrants(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	g := store.Grant{ID: grantID, ApplicationID: appID, UserID: aliceID, GuildID: guildID,
		Scopes: []string{"identify", "applications.commands"}, CreatedAt: ms(1_700_000_000_000)}
	must(t, f.s.CreateGrant(f.ctx, g))
	if got, err := f.s.Grant(f.ctx, grantID); err != nil || !reflect.DeepEqual(got, g) {
		t.Errorf("Grant = %+v, %v; want %+v", got, err, g)
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate id", f.s.CreateGrant(f.ctx, g), store.ErrConflict},
		{"unknown app", f.s.CreateGrant(f.ctx, store.Grant{ID: 600, ApplicationID: 999, UserID: aliceID}), store.ErrNotFound},
		{"unknown user", f.s.CreateGrant(f.ctx, store.Grant{ID: 601, ApplicationID: appID, UserID: 999}), store.ErrNotFound},
		{"unknown grant", func() error { _, err := f.s.Grant(f.ctx, 999); return err }(), store.ErrNotFound},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
		}
	}
	// Grants lists one user's grants to one app, oldest first.
	later := store.Grant{ID: grantID + 1, ApplicationID: appID, UserID: aliceID, Scopes: []string{"identify"},
		CreatedAt: ms(1_700_000_000_001)}
	must(t, f.s.CreateGrant(f.ctx, later))
	if got, err := f.s.Grants(f.ctx, appID, aliceID); err != nil || !reflect.DeepEqual(got, []store.Grant{g, later}) {
		t.Errorf("Grants = %+v, %v; want both, oldest first", got, err)
	}
	if got, err := f.s.Grants(f.ctx, appID, 999); err != nil || len(got) != 0 {
		t.Errorf("Grants of another user = %+v, %v; want none", got, err)
	}
	must(t, f.s.RevokeGrant(f.ctx, later.ID))
	if got, _ := f.s.Grants(f.ctx, appID, aliceID); len(got) != 1 {
		t.Errorf("Grants after a revocation = %+v; want one", got)
	}
	// Deleting the user deletes their grants.
	must(t, f.s.DeleteUser(f.ctx, aliceID))
	if _, err := f.s.Grant(f.ctx, grantID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("grant of a deleted user: err = %v, want ErrNotFound", err)
	}
}

func testCodes(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.grant(t, grantID, appID, aliceID, "identify")
	code := store.AuthCode{Hash: hash("code"), GrantID: grantID, RedirectURI: "http://127.0.0.1:5000/callback",
		CodeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", CodeChallengeMethod: "S256", Nonce: "n-0S6_WzA2Mj",
		ExpiresAt: ms(1_700_000_600_000), AuthTime: ms(1_699_999_000_000)}
	must(t, f.s.CreateCode(f.ctx, code))
	// bare has no AuthTime: it comes back zero.
	bare := store.AuthCode{Hash: hash("bare"), GrantID: grantID, ExpiresAt: ms(1_000)} // long expired
	must(t, f.s.CreateCode(f.ctx, bare))

	used := code
	used.Used = true
	uses := []struct {
		name    string
		hash    []byte
		want    store.AuthCode
		wantErr error
	}{
		{"first use", code.Hash, code, nil},
		{"second use", code.Hash, used, store.ErrConflict},
		{"third use", code.Hash, used, store.ErrConflict},
		{"an expired code is returned (the caller checks)", bare.Hash, bare, nil},
		{"unknown code", hash("nope"), store.AuthCode{}, store.ErrNotFound},
	}
	for _, u := range uses {
		got, err := f.s.UseCode(f.ctx, u.hash)
		if u.wantErr == nil && err != nil || u.wantErr != nil && !errors.Is(err, u.wantErr) {
			t.Errorf("%s: err = %v, want %v", u.name, err, u.wantErr)
			continue
		}
		if u.wantErr != store.ErrNotFound && !reflect.DeepEqual(got, u.want) {
			t.Errorf("%s: code = %+v, want %+v", u.name, got, u.want)
		}
	}
	for name, err := range map[string]error{
		"duplicate hash": f.s.CreateCode(f.ctx, code),
		"unknown grant":  f.s.CreateCode(f.ctx, store.AuthCode{Hash: hash("orphan"), GrantID: 999, ExpiresAt: ms(1)}),
	} {
		want := store.ErrConflict
		if name == "unknown grant" {
			want = store.ErrNotFound
		}
		if !errors.Is(err, want) {
			t.Errorf("CreateCode with %s: err = %v, want %v", name, err, want)
		}
	}

	// Of concurrent uses of one code exactly one succeeds.
	race := store.AuthCode{Hash: hash("race"), GrantID: grantID, ExpiresAt: ms(1_700_000_600_000)}
	must(t, f.s.CreateCode(f.ctx, race))
	var (
		wg        sync.WaitGroup
		ok, again atomic.Int32
	)
	for range 8 {
		wg.Go(func() {
			_, err := f.s.UseCode(f.ctx, race.Hash)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, store.ErrConflict):
				again.Add(1)
			default:
				t.Errorf("concurrent UseCode: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || again.Load() != 7 {
		t.Errorf("concurrent uses: %d succeeded and %d conflicted, want 1 and 7", ok.Load(), again.Load())
	}
}

func testRefreshTokens(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.grant(t, grantID, appID, aliceID, "identify")
	// Rotation: each use of the current token is followed by a new one;
	// the old one never works again.
	current := store.RefreshToken{Hash: hash("r0"), GrantID: grantID, CreatedAt: ms(1_700_000_000_000)}
	must(t, f.issueRefresh(current))
	var spent []store.RefreshToken
	for i := 1; i <= 3; i++ {
		got, err := f.s.UseRefreshToken(f.ctx, current.Hash)
		if err != nil || !reflect.DeepEqual(got, current) {
			t.Fatalf("rotation %d: UseRefreshToken = %+v, %v; want %+v", i, got, err, current)
		}
		current.Used = true
		spent = append(spent, current)
		current = store.RefreshToken{Hash: hash("r" + string(rune('0'+i))), GrantID: grantID, CreatedAt: ms(1_700_000_000_000 + int64(i))}
		must(t, f.issueRefresh(current))
	}
	for i, old := range spent {
		got, err := f.s.UseRefreshToken(f.ctx, old.Hash)
		if !errors.Is(err, store.ErrConflict) || !reflect.DeepEqual(got, old) {
			t.Errorf("reuse of spent token %d: %+v, %v; want %+v and ErrConflict", i, got, err, old)
		}
	}
	if _, err := f.s.UseRefreshToken(f.ctx, hash("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown refresh token: err = %v, want ErrNotFound", err)
	}
	if err := f.s.IssueTokens(f.ctx, store.Token{Hash: hash("another access"), Kind: store.TokenBearer, ApplicationID: appID,
		UserID: aliceID, GrantID: grantID}, &current); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate refresh token: err = %v, want ErrConflict", err)
	}
	if err := f.issueRefresh(store.RefreshToken{Hash: hash("orphan"), GrantID: 999}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refresh token of an unknown grant: err = %v, want ErrNotFound", err)
	}
}

// issueRefresh issues refresh token r with an access token of its grant.
func (f *fixture) issueRefresh(r store.RefreshToken) error {
	access := store.Token{Hash: hash("access beside " + string(r.Hash)), Kind: store.TokenBearer, ApplicationID: appID,
		UserID: aliceID, Scopes: []string{"identify"}, GrantID: r.GrantID, CreatedAt: r.CreatedAt}
	return f.s.IssueTokens(f.ctx, access, &r)
}

func testRevokeGrant(t *testing.T, open func(t *testing.T) store.Store) {
	f := oauthFixture(t, open)
	f.grant(t, grantID, appID, aliceID, "identify", "applications.commands.permissions.update")
	f.grant(t, grant2ID, appID, aliceID, "identify")

	// Each grant gets two codes, two refresh tokens and two access tokens;
	// a token no grant issued sits beside them.
	item := func(g snowflake.ID, kind string, i int) []byte { return hash(g.String() + kind + string(rune('0'+i))) }
	for _, g := range []snowflake.ID{grantID, grant2ID} {
		for i := range 2 {
			must(t, f.s.CreateCode(f.ctx, store.AuthCode{Hash: item(g, "code", i), GrantID: g, ExpiresAt: ms(1_900_000_000_000)}))
			must(t, f.s.IssueTokens(f.ctx, store.Token{Hash: item(g, "access", i), Kind: store.TokenBearer, ApplicationID: appID,
				UserID: aliceID, Scopes: []string{"identify"}, GrantID: g, CreatedAt: ms(1)},
				&store.RefreshToken{Hash: item(g, "refresh", i), GrantID: g, CreatedAt: ms(1)}))
		}
	}
	grantless := store.Token{Hash: hash("grantless"), Kind: store.TokenBearer, ApplicationID: appID, UserID: aliceID,
		Scopes: []string{"identify"}, CreatedAt: ms(1)}
	must(t, f.s.CreateToken(f.ctx, grantless))
	if tok, err := f.s.TokenByHash(f.ctx, item(grantID, "access", 0)); err != nil || tok.GrantID != grantID {
		t.Fatalf("token's GrantID = %+v, %v; want %d", tok, err, grantID)
	}
	if tok, err := f.s.TokenByHash(f.ctx, grantless.Hash); err != nil || tok.GrantID != 0 {
		t.Fatalf("grantless token = %+v, %v; want GrantID 0", tok, err)
	}

	must(t, f.s.RevokeGrant(f.ctx, grantID))

	// present reports whether each kind of item of grant g is still there.
	present := func(g snowflake.ID, i int) map[string]bool {
		_, codeErr := f.s.UseCode(f.ctx, item(g, "code", i))
		_, refreshErr := f.s.UseRefreshToken(f.ctx, item(g, "refresh", i))
		_, accessErr := f.s.TokenByHash(f.ctx, item(g, "access", i))
		return map[string]bool{
			"code":    !errors.Is(codeErr, store.ErrNotFound),
			"refresh": !errors.Is(refreshErr, store.ErrNotFound),
			"access":  !errors.Is(accessErr, store.ErrNotFound),
		}
	}
	for i := range 2 {
		if got, want := present(grantID, i), map[string]bool{"code": false, "refresh": false, "access": false}; !reflect.DeepEqual(got, want) {
			t.Errorf("revoked grant's items %d: %v, want all gone", i, got)
		}
		if got, want := present(grant2ID, i), map[string]bool{"code": true, "refresh": true, "access": true}; !reflect.DeepEqual(got, want) {
			t.Errorf("other grant's items %d: %v, want all kept", i, got)
		}
	}
	if _, err := f.s.Grant(f.ctx, grantID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoked grant: err = %v, want ErrNotFound", err)
	}
	if _, err := f.s.Grant(f.ctx, grant2ID); err != nil {
		t.Errorf("other grant: %v", err)
	}
	for name, id := range map[string]snowflake.ID{"again": grantID, "unknown": 999, "zero": 0} {
		if err := f.s.RevokeGrant(f.ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeGrant %s: err = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := f.s.TokenByHash(f.ctx, grantless.Hash); err != nil {
		t.Errorf("grantless token after revocations: %v", err)
	}
}

func testSigningKeys(t *testing.T, open func(t *testing.T) store.Store) {
	s, ctx := open(t), t.Context()
	keys, err := s.SigningKeys(ctx)
	if err != nil || keys == nil || len(keys) != 0 {
		t.Fatalf("SigningKeys on an empty store = %v, %v; want an empty list", keys, err)
	}
	older := store.SigningKey{ID: "kid-old", PrivateKey: []byte{1, 2, 3}, CreatedAt: ms(1_600_000_000_000)}
	newer := store.SigningKey{ID: "kid-new", PrivateKey: []byte{4, 5, 6}, CreatedAt: ms(1_700_000_000_000)}
	must(t, s.CreateSigningKey(ctx, older))
	must(t, s.CreateSigningKey(ctx, newer))
	keys, err = s.SigningKeys(ctx)
	if err != nil || !reflect.DeepEqual(keys, []store.SigningKey{newer, older}) {
		t.Errorf("SigningKeys = %+v, %v; want newest first", keys, err)
	}
	if err := s.CreateSigningKey(ctx, store.SigningKey{ID: "kid-old", PrivateKey: []byte{9}, CreatedAt: ms(1)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate key id: err = %v, want ErrConflict", err)
	}
	if keys, _ := s.SigningKeys(ctx); len(keys) != 2 || !bytes.Equal(keys[1].PrivateKey, older.PrivateKey) {
		t.Errorf("keys after a failed duplicate: %+v", keys)
	}
}

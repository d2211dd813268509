package oauth_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

const (
	// racers is how many clients present one code or refresh token at
	// once (issue 27: a double-loaded callback page is two of them).
	racers = 16
	// raceRounds: each round races a fresh code or refresh token, so
	// that the replay's revocation lands at a different point of the
	// winner's issuance from round to round.
	raceRounds = 5
)

// raceNode is a server on one store backend with, in that store, a
// confidential app (confRedirect registered) and a user who approves it.
type raceNode struct {
	e    *testenv.Env
	st   store.Store // the server's own store (its cache included)
	app  client
	user snowflake.ID
}

func newRaceNode(t *testing.T, backend string) raceNode {
	t.Helper()
	e := testenv.New(t)
	if backend == "postgres" {
		e = onPostgres(t, e)
	}
	ctx := t.Context()
	st := e.API.Store()
	creds, err := bootstrap.CreateApp(ctx, bootstrap.Env{Store: st, IDs: e.IDs, Rand: rand.Reader, Now: e.Clock.Now},
		bootstrap.AppOptions{Name: "racer", BaseURL: e.URL})
	if err != nil {
		t.Fatal(err)
	}
	n := raceNode{e: e, st: st, app: clientOf(t, creds), user: e.IDs.Next()}
	if err := st.SetOAuthSettings(ctx, store.OAuthSettings{ApplicationID: n.app.id, RedirectURIs: []string{confRedirect}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateUser(ctx, store.User{ID: n.user, Username: "alice", CreatedAt: e.Clock.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	return n
}

// code stands for the consent page: a fresh grant and its code.
func (n raceNode) code(t *testing.T) string {
	t.Helper()
	code, err := n.e.OAuth.IssueCode(t.Context(), store.Grant{ApplicationID: n.app.id, UserID: n.user,
		Scopes: []string{"identify", "openid"}}, confRedirect, "", "", "nonce")
	if err != nil {
		t.Fatalf("IssueCode: %v", err)
	}
	return code
}

// answer is one token-endpoint response.
type answer struct {
	status int
	body   []byte
}

// postToken sends a token request authenticated by HTTP Basic. It
// returns errors rather than failing t: racers run outside the test's
// goroutine.
func (n raceNode) postToken(ctx context.Context, form url.Values) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", n.e.URL+tokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(n.app.id.String(), n.app.secret)
	resp, err := n.e.Server.Client().Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: body}, err
}

// race presents form racers times at once and checks the answers: each
// is a token response or invalid_grant with description, never a 500,
// and at most one is a token. It returns the winner's tokens, if any.
func (n raceNode) race(t *testing.T, form url.Values, description string) (tokens, bool) {
	t.Helper()
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		answers = make([]answer, racers)
		errs    = make([]error, racers)
	)
	for i := range racers {
		wg.Go(func() {
			<-start
			answers[i], errs[i] = n.postToken(t.Context(), form)
		})
	}
	close(start)
	wg.Wait()
	var (
		won    []tokens
		counts = map[string]int{}
	)
	for i, a := range answers {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		switch a.status {
		case http.StatusOK:
			var tok tokens
			if err := json.Unmarshal(a.body, &tok); err != nil || tok.AccessToken == "" || tok.RefreshToken == "" {
				t.Errorf("racer %d: 200 without tokens: %s (%v)", i, a.body, err)
				continue
			}
			won = append(won, tok)
			counts["200"]++
		case http.StatusBadRequest:
			var e oauthError
			if err := json.Unmarshal(a.body, &e); err != nil || e.Error != "invalid_grant" || e.Description != description {
				t.Errorf("racer %d: 400 %s, want invalid_grant %q", i, a.body, description)
			}
			counts["400 "+e.Error]++
		default:
			t.Errorf("racer %d: %d %s, want 200 or 400 invalid_grant", i, a.status, a.body)
			counts[fmt.Sprint(a.status)]++
		}
	}
	t.Logf("answers: %v", counts)
	if len(won) > 1 {
		t.Fatalf("%d racers got tokens, want at most one", len(won))
	}
	if len(won) == 0 {
		return tokens{}, false
	}
	return won[0], true
}

// checkRevoked checks what a replay leaves: no grant of the app to the
// user, and the winner's tokens (if any) dead.
func (n raceNode) checkRevoked(t *testing.T, winner tokens, won bool) {
	t.Helper()
	grants, err := n.st.Grants(t.Context(), n.app.id, n.user)
	if err != nil || len(grants) != 0 {
		t.Errorf("grants after the replay: %+v, %v; want none", grants, err)
	}
	if !won {
		return
	}
	if r := n.e.DoAs(t, "GET", "/api/v10/oauth2/@me", "Bearer "+winner.AccessToken, nil); r.Status != http.StatusUnauthorized {
		t.Errorf("the winner's access token after the replay: GET /oauth2/@me = %d %s, want 401", r.Status, r.Body)
	}
	a, err := n.postToken(t.Context(), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {winner.RefreshToken}})
	if err != nil {
		t.Fatal(err)
	}
	if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), `"invalid_grant"`) {
		t.Errorf("the winner's refresh token after the replay: %d %s, want 400 invalid_grant", a.status, a.body)
	}
}

// Concurrent redemptions of one authorization code, and of one refresh
// token, answer a token to at most one client and invalid_grant to all
// the others, never a 500, on both store backends; the replay revokes
// the grant with whatever the winner got (RFC 6749 §4.1.2, §10.4).
func TestConcurrentRedemption(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			n := newRaceNode(t, backend)
			t.Run("code", func(t *testing.T) {
				for round := range raceRounds {
					t.Logf("round %d", round)
					form := codeForm(n.code(t), confRedirect, "")
					winner, won := n.race(t, form, `Invalid "code" in request.`)
					n.checkRevoked(t, winner, won)
				}
			})
			t.Run("refresh token", func(t *testing.T) {
				for round := range raceRounds {
					t.Logf("round %d", round)
					a, err := n.postToken(t.Context(), codeForm(n.code(t), confRedirect, ""))
					if err != nil || a.status != http.StatusOK {
						t.Fatalf("code exchange: %d %s, %v", a.status, a.body, err)
					}
					var first tokens
					if err := json.Unmarshal(a.body, &first); err != nil || first.RefreshToken == "" {
						t.Fatalf("code exchange: %s (%v)", a.body, err)
					}
					form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}}
					winner, won := n.race(t, form, `Invalid "refresh_token" in request.`)
					n.checkRevoked(t, winner, won)
					if r := n.e.DoAs(t, "GET", "/api/v10/oauth2/@me", "Bearer "+first.AccessToken, nil); r.Status != http.StatusUnauthorized {
						t.Errorf("the first access token after the replay: GET /oauth2/@me = %d, want 401", r.Status)
					}
				}
			})
		})
	}
}

// revokingStore revokes a grant just before its tokens are stored, while
// armed: the race's worst interleaving, every time. Everything else goes
// to the real store.
type revokingStore struct {
	store.Store
	armed atomic.Bool
}

func (s *revokingStore) IssueTokens(ctx context.Context, access store.Token, refresh *store.RefreshToken) error {
	if s.armed.Load() {
		if err := s.Store.RevokeGrant(ctx, access.GrantID); err != nil {
			return fmt.Errorf("revoking store: %w", err)
		}
	}
	return s.Store.IssueTokens(ctx, access, refresh)
}

// A grant revoked after the grant type found it but before its tokens
// are stored (what a replay racing the request does) gets each grant
// type's own refusal, not a 500; no token is issued.
func TestGrantRevokedWhileIssuing(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	conf := clientOf(t, e.App)
	e.SetOAuth(conf.id, false, confRedirect)
	alice := e.NewUser("alice", "")
	revoking := &revokingStore{Store: e.Store}
	node := e.NodeOn(revoking)
	code := func() string {
		c, err := node.OAuth.IssueCode(t.Context(), store.Grant{ApplicationID: conf.id, UserID: alice.ID,
			Scopes: []string{"identify", "openid"}}, confRedirect, "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	refreshToken := func() string {
		revoking.armed.Store(false)
		defer revoking.armed.Store(true)
		r := node.PostForm(tokenPath, codeForm(code(), confRedirect, ""), conf.id.String(), conf.secret)
		var tok tokens
		r.JSON(t, &tok)
		if r.Status != http.StatusOK || tok.RefreshToken == "" {
			t.Fatalf("code exchange: %d %s", r.Status, r.Body)
		}
		return tok.RefreshToken
	}
	for _, c := range []struct {
		name        string
		form        func() url.Values
		status      int
		code, descr string
	}{
		{"authorization_code", func() url.Values { return codeForm(code(), confRedirect, "") },
			http.StatusBadRequest, "invalid_grant", `Invalid "code" in request.`},
		{"refresh_token", func() url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken()}}
		}, http.StatusBadRequest, "invalid_grant", `Invalid "refresh_token" in request.`},
		{"client_credentials", func() url.Values {
			return url.Values{"grant_type": {"client_credentials"}, "scope": {"identify"}}
		}, http.StatusUnauthorized, "invalid_client", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			form := c.form()
			revoking.armed.Store(true)
			defer revoking.armed.Store(false)
			r := node.PostForm(tokenPath, form, conf.id.String(), conf.secret)
			wantOAuthError(t, r, c.status, c.code, c.descr)
			if c.name == "client_credentials" {
				return // its grant is the owner's, made by the request
			}
			if grants, err := e.Store.Grants(t.Context(), conf.id, alice.ID); err != nil || len(grants) != 0 {
				t.Errorf("grants left: %+v, %v", grants, err)
			}
		})
	}
}

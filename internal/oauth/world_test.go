package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/store"
)

// TestConsentOtherWorld: to a signed-in user, an app of another test
// world is unknown: the authorize page (GET, and the consent form's
// POST) answers exactly as for an unknown client_id, and nothing is
// granted or installed.
func TestConsentOtherWorld(t *testing.T) {
	t.Parallel()
	w := newConsentWorld(t) // alice is of no world
	worldly := clientOf(t, w.e.NewApp(bootstrap.AppOptions{Name: "Worldly", WorldID: w.e.IDs.Next()}))
	w.e.SetOAuth(worldly.id, true, "http://127.0.0.1/callback")
	a := newAgent(t, w.e.URL)
	consent := a.login(authPath("/api/v10", w.pubParams("identify applications.commands")), "alice", alicePassword)

	params := func(clientID string) string {
		p := w.pubParams("identify applications.commands")
		p.Set("client_id", clientID)
		p.Set("integration_type", "1")
		return authPath("/api/v10", p)
	}
	unknown := a.get(params("123456789012345678"))
	if unknown.status != http.StatusBadRequest {
		t.Fatalf("unknown client_id: %d\n%s", unknown.status, unknown.body)
	}
	if got := a.get(params(worldly.id.String())); got.status != unknown.status || got.body != unknown.body {
		t.Errorf("GET for another world's app: %d\n%s\nwant as for an unknown one: %d\n%s", got.status, got.body,
			unknown.status, unknown.body)
	}
	approve := func(clientID string) page {
		return a.submit(consent, "approve", "client_id", clientID, "integration_type", "1")
	}
	unknownPost := approve("123456789012345678")
	if got := approve(worldly.id.String()); got.status != unknownPost.status || got.body != unknownPost.body {
		t.Errorf("POST for another world's app: %d\n%s\nwant as for an unknown one: %d\n%s", got.status, got.body,
			unknownPost.status, unknownPost.body)
	}
	ctx := context.Background()
	if _, err := w.e.Store.UserInstallation(ctx, w.alice.ID, worldly.id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("alice's installation of another world's app: %v, want none", err)
	}
	if grants, err := w.e.Store.Grants(ctx, worldly.id, w.alice.ID); err != nil || len(grants) != 0 {
		t.Errorf("alice's grants to another world's app: %+v (%v), want none", grants, err)
	}
}

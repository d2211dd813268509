package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// TestTokenMintOnWorldClock: `token mint` gives a test world's user a
// Bearer token that lives its 7 days on the world's clock, as POST
// /admin/v1/users/{id}/tokens does: minted after the clock moved a week,
// it is not born expired.
func TestTokenMintOnWorldClock(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	spec := filepath.Join(t.TempDir(), "w.json")
	if err := os.WriteFile(spec, []byte(worldJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"world", "import", "--data", dir, "--json", spec}, envMap(nil), &out, &errOut); err != nil {
		t.Fatalf("import: %v (stderr %s)", err, errOut.String())
	}
	var w struct {
		ID    snowflake.ID                   `json:"id,string"`
		Users map[string]struct{ ID string } `json:"users"`
		Apps  map[string]struct{ ID string } `json:"apps"`
	}
	if err := json.Unmarshal(out.Bytes(), &w); err != nil || w.Users["alice"].ID == "" || w.Apps["modbot"].ID == "" {
		t.Fatalf("import answered %s (%v)", out.String(), err)
	}
	const week = 7 * 24 * time.Hour
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, sqliteFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetWorldClock(t.Context(), w.ID, week+time.Hour); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	tok := runJSON(t, dir, "token", "mint", "--user", w.Users["alice"].ID, "--app", w.Apps["modbot"].ID)
	stored, err := st.TokenByHash(t.Context(), auth.Hash(strOf(tok, "access_token")))
	if err != nil {
		t.Fatal(err)
	}
	if want := before.Add(week + time.Hour + auth.AccessTokenLifetime); stored.ExpiresAt.Before(want) {
		t.Fatalf("token expires at %v; want on the world's clock, at or after %v", stored.ExpiresAt, want)
	}
}

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// TestWorldVerbsRefuseWorldMismatch: the CLI verbs that link objects
// refuse, as the admin API does, to link objects of two test worlds
// (member add, token mint --app, guild create --install); the objects of
// a world are made in the store, as POST /admin/v1/worlds makes them.
func TestWorldVerbsRefuseWorldMismatch(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	creds := runJSON(t, dir, "app", "create", "--name", "plain")
	guild := strOf(creds, "guild_id")
	person := strOf(runJSON(t, dir, "user", "create", "--name", "p"), "id")

	// A world's user and app, written to the data directory's store.
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, sqliteFile))
	if err != nil {
		t.Fatal(err)
	}
	ids := snowflake.NewGenerator(1, time.Now)
	world := ids.Next()
	worldCreds, err := bootstrap.CreateApp(t.Context(), bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now},
		bootstrap.AppOptions{Name: "worldly", WorldID: world})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	in := func(w snowflake.ID) string { return "(" + admin.WorldName(w) + ")" }

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"member of another world's guild", []string{"member", "add", "--guild", worldCreds.GuildID, "--user", person},
			"--user: The user belongs to another world " + in(0) + " than the guild " + in(world) + " (WORLD_MISMATCH)"},
		{"world's user in a plain guild", []string{"member", "add", "--guild", guild, "--user", worldCreds.OwnerUserID},
			"--user: The user belongs to another world " + in(world) + " than the guild " + in(0) + " (WORLD_MISMATCH)"},
		{"Bearer token for another world's app", []string{"token", "mint", "--user", person, "--app", worldCreds.ApplicationID},
			"--app: The application belongs to another world " + in(world) + " than the user " + in(0) + " (WORLD_MISMATCH)"},
		{"guild of no world with a world's app", []string{"guild", "create", "--name", "mixed", "--install", worldCreds.ApplicationID},
			"The application belongs to another world " + in(world) + " than the guild " + in(0) + " (WORLD_MISMATCH)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append(tc.args, "--data", dir), envMap(nil), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run %q: %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
	// Within one world the links are made.
	runJSON(t, dir, "member", "add", "--guild", worldCreds.GuildID, "--user", worldCreds.OwnerUserID)
	runJSON(t, dir, "token", "mint", "--user", worldCreds.OwnerUserID, "--app", worldCreds.ApplicationID)
}

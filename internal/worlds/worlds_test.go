package worlds

import (
	"context"
	"crypto/rand"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// Create, Load and Reset against a real store: a name is taken once
// (IsNameTaken), a reset keeps the world object's ids and credentials,
// and ObjectOf moves the clock by the world's offset.
func TestCreateResetObject(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids := snowflake.NewGenerator(0, nil)
	now := time.Unix(1_800_000_000, 0).UTC()
	env := Env{Store: st, IDs: ids.Next, Rand: rand.Reader, Now: func() time.Time { return now }}
	body, _ := form.DecodeJSON([]byte(`{"name": "w", "users": {"alice": {}}, "apps": {"bot": {}},
		"guilds": {"club": {"owner": "alice", "install": {"bot": {}}}}}`))
	w, err := Create(ctx, env, body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, env, body); !IsNameTaken(err) {
		t.Fatalf("second create: %v, want the name taken", err)
	}
	if IsNameTaken(errors.New("other")) {
		t.Fatal("IsNameTaken of a plain error")
	}
	before, err := ObjectOf(w, now)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	reset, err := Reset(ctx, env, w)
	if err != nil {
		t.Fatal(err)
	}
	after, err := ObjectOf(reset, now)
	if err != nil {
		t.Fatal(err)
	}
	if after.Apps["bot"].BotToken != before.Apps["bot"].BotToken || after.Guilds["club"].ID != before.Guilds["club"].ID ||
		after.Users["alice"] != before.Users["alice"] || !after.UpdatedAt.Equal(now) || !after.CreatedAt.Equal(before.CreatedAt) {
		t.Fatalf("reset changed the world:\n%+v\n%+v", before, after)
	}
	if err := st.SetWorldClock(ctx, w.ID, 15*time.Minute); err != nil {
		t.Fatal(err)
	}
	stored, err := st.TestWorld(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := ObjectOf(stored, now)
	if err != nil || obj.Clock.OffsetMS != 15*60*1000 || !obj.Clock.Now.Equal(now.Add(15*time.Minute)) {
		t.Fatalf("clock = %+v, %v", obj.Clock, err)
	}
}

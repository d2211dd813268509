package api_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// The janitor forgets interactions a day old, not younger ones.
func TestForgetOldInteractions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(t.TempDir(), "slashd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv := api.New(api.DefaultConfig(), api.Deps{Store: st, IDs: snowflake.NewGenerator(0, nil),
		Now: func() time.Time { return now }})
	for i, age := range []time.Duration{25 * time.Hour, 23 * time.Hour} {
		in := store.Interaction{ID: snowflake.ID(100 + i), ApplicationID: 1, Type: 2, TokenHash: []byte{byte(i)},
			CreatedAt: now.Add(-age)}
		if err := st.CreateInteraction(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	n, err := srv.ForgetOldInteractions(ctx)
	if err != nil || n != 1 {
		t.Fatalf("ForgetOldInteractions = %d, %v; want 1", n, err)
	}
	if _, err := st.Interaction(ctx, 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the 25-hour-old interaction: %v", err)
	}
	if _, err := st.Interaction(ctx, 101); err != nil {
		t.Errorf("the 23-hour-old interaction: %v", err)
	}
}

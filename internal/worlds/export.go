package worlds

import (
	"context"
	"fmt"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
)

// ExportOptions say what an export holds beyond the world's objects.
type ExportOptions struct {
	// Messages: the messages of its channels, DMs and group DMs (the
	// newest world.MaxMessages of each).
	Messages bool
}

// Export reads a world as it is now, in one consistent read
// (store.TestWorlds.WorldRows), and writes it as a spec (world.Export):
// what its spec made and everything made in it since.
func Export(ctx context.Context, st store.Store, w store.TestWorld, o ExportOptions) (world.Document, error) {
	spec, state, err := Load(w)
	if err != nil {
		return world.Document{}, err
	}
	messages := 0
	if o.Messages {
		messages = world.MaxMessages
	}
	rows, err := st.WorldRows(ctx, w.ID, messages)
	if err != nil {
		return world.Document{}, fmt.Errorf("export world %q: %w", w.Name, err)
	}
	return world.Export(w.Name, rows, spec, state)
}

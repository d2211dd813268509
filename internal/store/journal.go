package store

import (
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// JournalEntry is one entry of a test world's journal (docs/journal.md):
// something that happened in world WorldID, of a dotted Type
// ("rest.request", "interaction.answered"…), at At, described by Body
// (a JSON object). Seq is its place in the journal, given by the store
// when it is appended: one order for the whole store, whichever node
// wrote it.
type JournalEntry struct {
	Seq     int64
	WorldID snowflake.ID
	ID      snowflake.ID
	Type    string
	At      time.Time
	Body    []byte
}

// JournalQuery selects a world's entries after a cursor.
type JournalQuery struct {
	WorldID snowflake.ID
	// After: only entries with a larger Seq (0: from the oldest kept).
	After int64
	// Types: only entries of these types (none: every type).
	Types []string
	// Limit: at most this many, the oldest first (at least 1).
	Limit int
}

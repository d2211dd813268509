package store

import (
	"context"

	"github.com/slashd/slashd/internal/snowflake"
)

// Files are the bytes of the files uploaded with messages (their
// attachments), kept so that slashd serves them. They are written with
// their message (Message.Files, in the message's own transaction) and
// deleted with it, whichever way it goes (its channel's, guild's or test
// world's deletion, a reset); the quota a write names evicts the oldest.
type Files interface {
	// File reads a stored file; ErrNotFound if unknown: never stored,
	// gone with its message, dropped by an edit, or evicted.
	File(ctx context.Context, id snowflake.ID) (File, error)
	// FileSigningKey is the key file URLs are signed with: the stored
	// one, or candidate, stored first when the store has none (so that
	// every node of a cluster signs and checks with the same key).
	FileSigningKey(ctx context.Context, candidate []byte) ([]byte, error)
}

// File is one uploaded file. ID is its attachment's id (a snowflake:
// the oldest files have the smallest).
type File struct {
	ID          snowflake.ID
	MessageID   snowflake.ID // written by the store from the message
	ChannelID   snowflake.ID // written by the store from the message
	Filename    string
	ContentType string
	Data        []byte
}

// FileWrite says what a message write does to the message's files.
type FileWrite struct {
	// Add are the files uploaded with this write.
	Add []File
	// Keep, when a message is replaced or edited, are the ids of its
	// stored files that stay (its attachments after the edit); the
	// others are deleted. A new message has none to keep.
	Keep []snowflake.ID
	// Quota bounds the bytes of all the files stored once Add is: the
	// oldest files are deleted (evicted) until the rest fit, in the same
	// transaction (0: no bound). Concurrent writes may each miss what
	// the others add, so the store may exceed it by what is being
	// written until the next write with files.
	Quota int64

	// Evicted and EvictedBytes are set by the store: the files the quota
	// evicted, and their bytes.
	Evicted      int
	EvictedBytes int64
}

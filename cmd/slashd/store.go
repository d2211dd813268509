package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// storeFlag registers --store (env SLASHD_STORE) on fs: serve and every
// CLI verb open the same store.
func storeFlag(fs *flag.FlagSet, p *string, getenv func(string) string) {
	fs.StringVar(p, "store", getenv("SLASHD_STORE"),
		"where the data lives: a postgres:// URL (PostgreSQL, CockroachDB, YugabyteDB); unset: the SQLite database in the data directory")
}

// openStore opens the store storeURL names (a postgres:// or
// postgresql:// URL) or, when storeURL is empty, the SQLite store in the
// data directory, creating the directory. The data directory holds
// bootstrap.json either way.
func openStore(ctx context.Context, storeURL, dataDir string) (*sqlstore.Store, error) {
	switch {
	case storeURL == "":
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
		return sqlite.Open(ctx, filepath.Join(dataDir, "slashd.db"))
	case postgres.IsDSN(storeURL):
		return postgres.Open(ctx, storeURL)
	}
	return nil, fmt.Errorf("--store %s: unsupported; want a postgres:// URL, or none for SQLite in the data directory",
		describeStore(storeURL))
}

// describeStore is storeURL without its password, for logs and errors.
func describeStore(storeURL string) string {
	if storeURL == "" {
		return "sqlite"
	}
	u, err := url.Parse(storeURL)
	if err != nil || u.Scheme == "" {
		return "(not a URL)"
	}
	return u.Redacted()
}

package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/slashd/slashd/internal/store/postgres"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/sqlstore"
)

// sqliteFile is the SQLite store's file in the data directory.
const sqliteFile = "slashd.db"

// storeFlag registers --store (SLASHD_STORE) on fs: serve and every CLI
// verb open the same store.
func storeFlag(fs *flagSet, p *string) {
	fs.envString(p, "store", "",
		"where the data lives: a PostgreSQL `URL` (postgres://user:password@host:5432/db?sslmode=…; CockroachDB and YugabyteDB too); unset: the SQLite database "+sqliteFile+" in the data directory")
}

// dataFlag registers --data (SLASHD_DATA).
func dataFlag(fs *flagSet, p *string) {
	fs.envString(p, "data", "./slashd-data", "data directory `DIR`: bootstrap.json, and the SQLite store when --store is unset")
}

// hasSQLiteStore reports whether dataDir holds a SQLite store.
func hasSQLiteStore(dataDir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dataDir, sqliteFile))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
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
		return sqlite.Open(ctx, filepath.Join(dataDir, sqliteFile))
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

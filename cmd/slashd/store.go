package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/secrets"
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

// secretKeyFlags registers --secret-key-file (SLASHD_SECRET_KEY_FILE)
// and --old-secret-key-file (SLASHD_OLD_SECRET_KEY_FILE) on fs, and
// reads the secrets themselves from SLASHD_SECRET_KEY and
// SLASHD_OLD_SECRET_KEY: the secret that encrypts private keys at rest,
// and while rotating the previous one (see internal/secrets).
func secretKeyFlags(fs *flagSet, c *secrets.Config) {
	c.Key, c.OldKey = fs.getenv("SLASHD_SECRET_KEY"), fs.getenv("SLASHD_OLD_SECRET_KEY")
	fs.envString(&c.KeyFile, "secret-key-file", "",
		"`FILE` holding the secret (32 bytes or more: openssl rand -base64 32) that encrypts private keys in the store; or the secret itself in SLASHD_SECRET_KEY")
	fs.envString(&c.OldKeyFile, "old-secret-key-file", "",
		"rotating: the previous secret's `FILE` (or the secret in SLASHD_OLD_SECRET_KEY); what it encrypted is encrypted again with the new one at start")
}

// openStore opens the store storeURL names (a postgres:// or
// postgresql:// URL) or, when storeURL is empty, the SQLite store in the
// data directory, creating the directory. The data directory holds
// bootstrap.json either way; it and its files are made private to their
// owner (secureDataDir). Secrets at rest are sealed with the keys keys
// names, those stored otherwise brought in line (sqlstore.SealSecrets).
// log may be nil.
func openStore(ctx context.Context, storeURL, dataDir string, keys secrets.Config, log *slog.Logger) (*sqlstore.Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kr, err := secrets.Load(keys)
	if err != nil {
		return nil, err
	}
	var st *sqlstore.Store
	switch {
	case storeURL == "":
		if err := secureDataDir(dataDir, true, log); err != nil {
			return nil, err
		}
		st, err = sqlite.Open(ctx, filepath.Join(dataDir, sqliteFile), sqlite.WithLogger(log))
	case postgres.IsDSN(storeURL):
		if err := secureDataDir(dataDir, false, log); err != nil {
			return nil, err
		}
		st, err = postgres.Open(ctx, storeURL)
	default:
		return nil, fmt.Errorf("--store %s: unsupported; want a postgres:// URL, or none for SQLite in the data directory",
			describeStore(storeURL))
	}
	if err != nil {
		return nil, err
	}
	report, err := st.SealSecrets(ctx, kr)
	if err != nil {
		st.Close()
		return nil, err
	}
	if kr == nil {
		log.Info("private keys are stored in clear; set SLASHD_SECRET_KEY or --secret-key-file to encrypt them")
	} else {
		log.Info("private keys are stored encrypted", "key_id", kr.ID(), "encrypted_now", report.Sealed,
			"encrypted_again", report.Resealed)
	}
	return st, nil
}

// secureDataDir makes the data directory (when create says so: the
// SQLite store lives there) and takes from it, and from the files slashd
// keeps there, every permission beyond their owner's: a data directory
// made by an older slashd, or by hand, may be readable by all. Each
// change is logged.
func secureDataDir(dir string, create bool, log *slog.Logger) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create data dir: %w", err)
		}
	}
	if err := restrict(dir, 0o700, log); err != nil {
		return err
	}
	for _, name := range []string{sqliteFile, sqliteFile + "-wal", sqliteFile + "-shm", sqliteFile + "-journal", bootstrap.FileName} {
		if err := restrict(filepath.Join(dir, name), 0o600, log); err != nil {
			return err
		}
	}
	return nil
}

// restrict removes from path's mode the permission bits outside allowed;
// a missing path is left alone.
func restrict(path string, allowed fs.FileMode, log *slog.Logger) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if perm&^allowed == 0 {
		return nil
	}
	if err := os.Chmod(path, perm&allowed); err != nil {
		return fmt.Errorf("make %s private: %w", path, err)
	}
	log.Info("made a data directory entry private to its owner", "path", path, "was", fmt.Sprintf("%#o", perm),
		"now", fmt.Sprintf("%#o", perm&allowed))
	return nil
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

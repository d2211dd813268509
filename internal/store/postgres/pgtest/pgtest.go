// Package pgtest gives tests an empty PostgreSQL schema of their own.
//
// The server is the one SLASHD_TEST_POSTGRES names (default
// DefaultDSN, a local server with trust authentication). When it cannot
// be reached, a test is skipped with the reason, except under CI (the
// environment variable CI is set, as .ci/run sets it), where it fails:
// CI runs the store contract suite against PostgreSQL too.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// DefaultDSN is the server tests use when SLASHD_TEST_POSTGRES is unset.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerDSN is the DSN of the test server.
func ServerDSN() string {
	if dsn := os.Getenv("SLASHD_TEST_POSTGRES"); dsn != "" {
		return dsn
	}
	return DefaultDSN
}

var (
	once    sync.Once
	admin   *sql.DB
	openErr error
)

// server connects once per test binary.
func server() (*sql.DB, error) {
	once.Do(func() {
		db, err := sql.Open("pgx", ServerDSN())
		if err != nil {
			openErr = err
			return
		}
		db.SetMaxOpenConns(2)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			openErr = err
			return
		}
		admin = db
	})
	return admin, openErr
}

// Server returns a connection to the test server's database, or skips
// (fails under CI) t when there is none.
func Server(t testing.TB) *sql.DB {
	t.Helper()
	db, err := server()
	if err != nil {
		msg := fmt.Sprintf("PostgreSQL unreachable at %s (set SLASHD_TEST_POSTGRES to a server's URL): %v",
			redacted(ServerDSN()), err)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI runs the store tests against a local PostgreSQL", msg)
		}
		t.Skip(msg)
	}
	return db
}

// DSN creates an empty schema, dropped when t ends, and returns a DSN
// whose connections work in it (search_path). It skips (fails under CI)
// t when the server is unreachable.
func DSN(t testing.TB) string {
	t.Helper()
	db := Server(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "slashd_test_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	// Registered before the test opens stores, so it runs after they
	// close.
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return WithParam(t, ServerDSN(), "search_path", schema)
}

// WithParam adds a parameter to a URL or key=value DSN.
func WithParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	if !strings.Contains(dsn, "://") {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("SLASHD_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

func redacted(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && strings.Contains(dsn, "://") {
		return u.Redacted()
	}
	return "the server SLASHD_TEST_POSTGRES names"
}

// Package postgrestest gives tests an isolated, migrated Postgres review
// store: a schema of its own in the database named by TEST_DATABASE_URL,
// dropped when the test ends.
//
// Without TEST_DATABASE_URL it uses the local PostgreSQL at
// 127.0.0.1:5432 (database test) when one answers; with neither, the tests
// that use it skip, logging "SKIPPING: ...", and when
// CASEFILE_REQUIRE_SERVICES=1 (set by CI) they fail instead.
//
//	func TestWorker(t *testing.T) {
//		st := postgrestest.MustOpen(t) // *postgres.Store in schema t_<random>
//		...
//	}
package postgrestest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile/store/postgres"
)

// The environment variables the helpers read.
const (
	// EnvDatabaseURL names the database the tests may create schemas in,
	// e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
	EnvDatabaseURL = "TEST_DATABASE_URL"
	// EnvRequireServices set to 1 turns a missing database into a failure.
	EnvRequireServices = "CASEFILE_REQUIRE_SERVICES"
)

// DefaultDatabaseURL is the database tried when TEST_DATABASE_URL is unset:
// the local PostgreSQL of a development machine (trust auth, database test).
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable&connect_timeout=2"

// MustBaseURL returns TEST_DATABASE_URL or, when it is unset, the local
// DefaultDatabaseURL if a server answers there. With neither the test is
// skipped, or failed when CASEFILE_REQUIRE_SERVICES=1.
func MustBaseURL(tb testing.TB) string {
	tb.Helper()
	if u := os.Getenv(EnvDatabaseURL); u != "" {
		return u
	}
	if localReachable() {
		return DefaultDatabaseURL
	}
	if os.Getenv(EnvRequireServices) == "1" {
		tb.Fatalf("%s not set, nothing answers at %s, and %s=1", EnvDatabaseURL, DefaultDatabaseURL, EnvRequireServices)
	}
	tb.Skipf("SKIPPING: %s not set and no PostgreSQL answers at 127.0.0.1:5432", EnvDatabaseURL)
	return ""
}

var (
	localOnce sync.Once
	localOK   bool
)

// localReachable reports, once per test binary, whether the default
// database accepts a connection.
func localReachable() bool {
	localOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, DefaultDatabaseURL)
		if err == nil {
			localOK = true
			conn.Close(ctx)
		}
	})
	return localOK
}

// MustDatabaseURL creates an empty schema t_<random> in the test database
// and returns a URL whose search_path is that schema, for code that opens
// the store itself (a command's configuration, postgres.Open). The schema
// is dropped with everything in it when the test ends. It skips or fails
// as MustBaseURL does.
func MustDatabaseURL(tb testing.TB) string {
	tb.Helper()
	base := MustBaseURL(tb)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatalf("postgrestest: random schema name: %v", err)
	}
	schema := "t_" + hex.EncodeToString(b[:])

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("postgrestest: connect to %s: %v", EnvDatabaseURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("postgrestest: create schema %s: %v", schema, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Errorf("postgrestest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("postgrestest: drop schema %s: %v", schema, err)
		}
	})
	u, err := WithSearchPath(base, schema)
	if err != nil {
		tb.Fatalf("postgrestest: %v", err)
	}
	return u
}

// MustOpen opens a migrated store in a fresh schema (see MustDatabaseURL)
// and closes it when the test ends, before the schema is dropped.
func MustOpen(tb testing.TB) *postgres.Store {
	tb.Helper()
	u := MustDatabaseURL(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := postgres.Open(ctx, u)
	if err != nil {
		tb.Fatalf("postgrestest: open store: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// WithSearchPath returns the connection string with search_path set to
// schema, for URLs (postgres://...) and key=value strings alike.
func WithSearchPath(connString, schema string) (string, error) {
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err != nil {
			return "", err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return strings.TrimSpace(connString) + " search_path=" + schema, nil
}

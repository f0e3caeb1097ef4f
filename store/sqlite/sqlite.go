// Package sqlite is the embedded review store for one machine: SQLite
// through modernc.org/sqlite (pure Go, driver name "sqlite"), passing the
// same contract tests (store/storetest) as the Postgres store.
//
// The database runs in WAL mode with a busy timeout and foreign keys on.
// The store uses a single connection, so its own calls never contend;
// every write transaction starts with BEGIN IMMEDIATE, so another process
// on the same file waits for the lock instead of failing midway. A lock
// held for longer than the busy timeout is reported as
// [casefile.ErrTransient].
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

var _ casefile.Store = (*Store)(nil)

// BusyTimeout is how long a statement waits for another process's lock on
// the database file before it fails.
const BusyTimeout = 10 * time.Second

const maxAttempts = 4

// Store is the SQLite review store. It is safe for concurrent use; calls
// are served one at a time.
type Store struct {
	db *sql.DB
	// Now is the clock for the times the store writes; nil means time.Now.
	// Set it before the store is used.
	Now func() time.Time
}

// Open opens (creating it when missing) the database file at path, applies
// the pending migrations and returns the store. ":memory:" gives a private
// in-memory database. Errors: ErrInvalid for an empty path, one holding
// '?', or a file that cannot be opened; ErrTransient when another process
// holds the database locked for longer than BusyTimeout.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, casefile.Errorf(casefile.ErrInvalid, "open review store: bad database path %q", path)
	}
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	if path != ":memory:" {
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
	}
	db := sql.OpenDB(cachingConnector{dsn: path + "?" + q.Encode(), drv: &sqlite.Driver{}})
	// One connection: SQLite has one writer anyway, and an in-memory
	// database lives in its connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN {
			return nil, casefile.Errorf(casefile.ErrInvalid, "open review store %s: %w", path, err)
		}
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close review store: %w", err)
	}
	return nil
}

func (s *Store) now() time.Time { return store.Now(s.Now) }

// ts formats a time as the store writes it.
func ts(t time.Time) string { return t.UTC().Format(store.TimeFormat) }

// parseTS reads a time the store wrote.
func parseTS(s string) (time.Time, error) {
	t, err := time.Parse(store.TimeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("read stored time %q: %w", s, err)
	}
	return t, nil
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := store.Migrations(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return s.inTx(ctx, "open review store", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL
		) STRICT`); err != nil {
			return err
		}
		done := map[int64]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			done[v] = true
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, m := range ms {
			if done[m.Version] {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %06d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, ts(s.now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE), retrying it while
// the database is locked by another process, and classifies the final error
// under the operation name op.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	return s.retry(ctx, op, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // no-op after commit
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

func (s *Store) read(ctx context.Context, op string, fn func(q querier) error) error {
	return s.retry(ctx, op, func() error { return fn(s.db) })
}

func (s *Store) retry(ctx context.Context, op string, f func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = f()
		if err == nil {
			return nil
		}
		if attempt == maxAttempts || !busy(err) || ctx.Err() != nil {
			break
		}
		d := time.Duration(attempt*attempt)*20*time.Millisecond + rand.N(20*time.Millisecond)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return classify(op, err)
		case <-t.C:
		}
	}
	return classify(op, err)
}

// busy reports whether err says the database is locked by someone else.
func busy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

var kinds = []error{casefile.ErrInvalid, casefile.ErrNotPostmortem, casefile.ErrTransient, casefile.ErrPermanent, casefile.ErrNotFound, casefile.ErrConflict}

// classify names the operation in err and gives it its kind: errors the
// store made itself keep theirs, a locked database becomes ErrTransient,
// anything else stays unclassified.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, k := range kinds {
		if errors.Is(err, k) {
			return err
		}
	}
	if busy(err) {
		return casefile.Errorf(casefile.ErrTransient, "review store unavailable: %s: the database is locked by another process: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// notFound returns an ErrNotFound error for sql.ErrNoRows and err otherwise.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return casefile.Errorf(casefile.ErrNotFound, format, args...)
	}
	return err
}

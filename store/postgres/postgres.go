// Package postgres is the review store on PostgreSQL through pgx v5, the
// production implementation of [casefile.Store].
//
// [Open] connects a pool and applies the embedded migrations
// (migrations/NNNNNN_name.up.sql) under an advisory lock, so several
// processes may start at once. Every write is one transaction; serialization
// failures, deadlocks and connections lost before a commit are retried a few
// times, and an unreachable database is reported as [casefile.ErrTransient]
// ("review store unavailable: ...").
//
// The schema is created in the first schema of the connection's search_path,
// so a URL with ?search_path=name keeps a store in its own schema (the tests
// do; see package postgrestest).
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

var _ casefile.Store = (*Store)(nil)

// DefaultConnectTimeout bounds one connection attempt when the URL sets no
// connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// maxAttempts is how often one operation is tried when it fails in a way a
// retry can fix (a serialization failure, a deadlock, a dropped connection
// before commit).
const maxAttempts = 4

// Store is the Postgres review store. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// Now is the clock for the times the store writes; nil means time.Now.
	// Set it before the store is used.
	Now func() time.Time
}

// Open connects to the database at databaseURL (a postgres:// URL or a
// key=value string as pgx reads them), applies the pending migrations and
// returns the store. It returns an ErrInvalid error for a URL it cannot
// parse and an ErrTransient error when the database cannot be reached.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	if strings.TrimSpace(databaseURL) == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "open review store: the database url is empty")
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "open review store: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, classify("open review store", err)
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the pool, waiting for connections in use to be returned.
// It always returns nil.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping checks that the database answers; it returns an ErrTransient error
// when it does not.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return classify("ping review store", err)
	}
	return nil
}

func (s *Store) now() time.Time { return store.Now(s.Now) }

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, in one transaction under an advisory lock keyed on the
// schema, so that concurrent starts apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := store.Migrations(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return s.inTx(ctx, "open review store", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('casefile.migrate.' || coalesce(current_schema(), '')))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    bigint PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		done := map[int64]bool{}
		for _, v := range applied {
			done[v] = true
		}
		for _, m := range ms {
			if done[m.Version] {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %06d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return err
			}
		}
		return nil
	})
}

// querier is what pgxpool.Pool and pgx.Tx have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// errRetry is returned inside a transaction that lost a race it cannot
// resolve itself; the transaction is rolled back and tried again.
var errRetry = errors.New("lost a race with a concurrent writer")

// commitError marks an error of COMMIT: the outcome is unknown, so the
// transaction is retried only when the server reported a rollback.
type commitError struct{ err error }

func (e *commitError) Error() string { return e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// inTx runs fn in a transaction, retrying it as retryable says, and
// classifies the final error under the operation name op.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	return s.retry(ctx, op, func() error {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
		if err := fn(tx); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return &commitError{err}
		}
		return nil
	})
}

// read runs a read-only fn on the pool, retrying it as retryable says.
func (s *Store) read(ctx context.Context, op string, fn func(q querier) error) error {
	return s.retry(ctx, op, func() error { return fn(s.pool) })
}

func (s *Store) retry(ctx context.Context, op string, f func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = f()
		if err == nil {
			return nil
		}
		if attempt == maxAttempts || !retryable(err) || ctx.Err() != nil {
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

// retryable reports whether trying again may succeed without a risk of
// doing the work twice.
func retryable(err error) bool {
	if errors.Is(err, errRetry) {
		return true
	}
	if code := sqlState(err); code == "40001" || code == "40P01" {
		return true // the server rolled back
	}
	var ce *commitError
	if errors.As(err, &ce) {
		return false // the commit may have happened
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return false // a fresh connection failed: the server is down
	}
	// A pooled connection died before the commit: nothing was committed.
	return transient(err) && !errors.Is(err, context.DeadlineExceeded)
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// transient reports whether err says the database is unreachable, going
// away or too busy: something that waiting fixes.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		c := pgErr.Code
		return strings.HasPrefix(c, "08") || // connection exception
			strings.HasPrefix(c, "53") || // insufficient resources (too many connections, disk full)
			c == "57P01" || c == "57P02" || c == "57P03" || // shutdown, crash, cannot connect now
			c == "57014" || // statement timeout
			c == "40001" || c == "40P01" || // serialization failure, deadlock (after the retries)
			c == "55P03" // lock not available
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) ||
		errors.As(err, &netErr) ||
		pgconn.Timeout(err) ||
		pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, errRetry)
}

var kinds = []error{casefile.ErrInvalid, casefile.ErrNotPostmortem, casefile.ErrTransient, casefile.ErrPermanent, casefile.ErrNotFound, casefile.ErrConflict}

// classify names the operation in err and gives it its kind: errors the
// store made itself keep theirs, unreachable-database errors become
// ErrTransient, and anything else stays unclassified (a bug or a schema
// problem).
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, k := range kinds {
		if errors.Is(err, k) {
			return err
		}
	}
	if transient(err) {
		return casefile.Errorf(casefile.ErrTransient, "review store unavailable: %s: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// notFound returns an ErrNotFound error for pgx.ErrNoRows and err otherwise.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return casefile.Errorf(casefile.ErrNotFound, format, args...)
	}
	return err
}

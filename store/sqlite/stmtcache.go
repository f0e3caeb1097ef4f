package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"modernc.org/sqlite"
)

// The driver parses a statement's text on every call made through
// database/sql (it prepares, runs and finalizes each time); on the
// pipeline's write path that parsing was about a third of the store's CPU.
// cachingConnector gives database/sql connections that keep each
// statement prepared once, by its text, for the connection's life: the
// store's statements are a fixed set of constants.

// maxCachedStatements bounds the cache of one connection; statements past
// it are prepared and finalized per call as before.
const maxCachedStatements = 256

type cachingConnector struct {
	dsn string
	drv *sqlite.Driver
}

func (c cachingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(interface {
		driver.Conn
		driver.ConnBeginTx
		driver.ConnPrepareContext
	})
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite driver connection %T cannot begin transactions with options", conn)
	}
	return &cachingConn{inner: inner, stmts: map[string]*cachedStmt{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.drv }

// cachingConn is a driver connection whose prepared statements are kept.
// It offers no ExecerContext or QueryerContext, so that database/sql
// prepares through it. database/sql uses a connection from one goroutine
// at a time, so the map needs no lock.
type cachingConn struct {
	inner interface {
		driver.Conn
		driver.ConnBeginTx
		driver.ConnPrepareContext
	}
	stmts map[string]*cachedStmt
}

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if s, ok := c.stmts[query]; ok && !s.inUse {
		s.inUse = true
		return s, nil
	}
	st, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if _, ok := c.stmts[query]; ok || len(c.stmts) >= maxCachedStatements {
		return st, nil // in use (a query inside its own rows) or cache full
	}
	s := &cachedStmt{Stmt: st, inUse: true}
	c.stmts[query] = s
	return s, nil
}

func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}

func (c *cachingConn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Stmt.Close())
	}
	clear(c.stmts)
	return errors.Join(append(errs, c.inner.Close())...)
}

func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *cachingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// cachedStmt is a kept statement: Close only returns it to the cache (the
// driver resets a statement after each run).
type cachedStmt struct {
	driver.Stmt
	inUse bool
}

func (s *cachedStmt) Close() error {
	s.inUse = false
	return nil
}

func (s *cachedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *cachedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/incidentlib/casefile"
)

var _ casefile.CrawlStore = (*Store)(nil)

// nullTS is ts(t), or NULL for the zero time.
func nullTS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

func parseNullTS(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTS(s.String)
}

const crawlStateColumns = `c.name, c.etag, c.last_modified, c.last_run, c.next_run, c.found, c.last_error,
	(SELECT count(*) FROM crawl_seen s WHERE s.source = c.name)`

func scanCrawlState(row scanner) (casefile.CrawlState, error) {
	var (
		st            casefile.CrawlState
		last, nextRun sql.NullString
		err           error
	)
	if err := row.Scan(&st.Source, &st.ETag, &st.LastModified, &last, &nextRun, &st.Found, &st.LastError, &st.Seen); err != nil {
		return st, err
	}
	if st.LastRun, err = parseNullTS(last); err != nil {
		return st, err
	}
	st.NextRun, err = parseNullTS(nextRun)
	return st, err
}

// CrawlStates returns the state of every source that has one, by name.
func (s *Store) CrawlStates(ctx context.Context) ([]casefile.CrawlState, error) {
	var out []casefile.CrawlState
	err := s.read(ctx, "read crawl states", func(q querier) error {
		out = nil
		rows, err := q.QueryContext(ctx, `SELECT `+crawlStateColumns+` FROM crawl_sources c ORDER BY c.name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			st, err := scanCrawlState(rows)
			if err != nil {
				return err
			}
			out = append(out, st)
		}
		return rows.Err()
	})
	return out, err
}

// CrawlState returns a source's state; a zero state with its name when it
// has none.
func (s *Store) CrawlState(ctx context.Context, source string) (casefile.CrawlState, error) {
	st := casefile.CrawlState{Source: source}
	err := s.read(ctx, fmt.Sprintf("read crawl state of %s", source), func(q querier) error {
		got, err := scanCrawlState(q.QueryRowContext(ctx, `SELECT `+crawlStateColumns+` FROM crawl_sources c WHERE c.name = ?1`, source))
		if err == sql.ErrNoRows {
			return nil
		}
		if err == nil {
			st = got
		}
		return err
	})
	return st, err
}

// SaveCrawlState records a source's state (every field but Seen); the
// lease is left as it is.
func (s *Store) SaveCrawlState(ctx context.Context, st casefile.CrawlState) error {
	if st.Source == "" {
		return casefile.Errorf(casefile.ErrInvalid, "save crawl state: no source name")
	}
	return s.inTx(ctx, "save crawl state of "+st.Source, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO crawl_sources (name, etag, last_modified, last_run, next_run, found, last_error, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
			ON CONFLICT (name) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
				last_run = excluded.last_run, next_run = excluded.next_run, found = excluded.found,
				last_error = excluded.last_error, updated_at = excluded.updated_at`,
			st.Source, st.ETag, st.LastModified, nullTS(st.LastRun), nullTS(st.NextRun), st.Found, st.LastError, ts(s.now()))
		return err
	})
}

// Unseen returns, in order, the URLs the source has not given with the
// same mark.
func (s *Store) Unseen(ctx context.Context, source string, urls []casefile.SeenURL) ([]casefile.SeenURL, error) {
	var out []casefile.SeenURL
	err := s.read(ctx, "read seen urls of "+source, func(q querier) error {
		out = nil
		for _, u := range urls {
			var mark string
			err := q.QueryRowContext(ctx, `SELECT mark FROM crawl_seen WHERE source = ?1 AND url = ?2`, source, u.URL).Scan(&mark)
			switch {
			case err == sql.ErrNoRows:
				out = append(out, u)
			case err != nil:
				return err
			case mark != u.Mark:
				out = append(out, u)
			}
		}
		return nil
	})
	return out, err
}

// MarkSeen records the URLs as given by the source with their marks.
func (s *Store) MarkSeen(ctx context.Context, source string, urls []casefile.SeenURL) error {
	if len(urls) == 0 {
		return nil
	}
	return s.inTx(ctx, "record seen urls of "+source, func(tx *sql.Tx) error {
		now := ts(s.now())
		for _, u := range urls {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO crawl_seen (source, url, mark, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?4)
				ON CONFLICT (source, url) DO UPDATE SET mark = excluded.mark, last_seen = excluded.last_seen`,
				source, u.URL, u.Mark, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClaimCrawl takes the source's lease for owner until the given time when
// it is free, expired or owner's already.
func (s *Store) ClaimCrawl(ctx context.Context, source, owner string, until time.Time) (bool, error) {
	if source == "" || owner == "" {
		return false, casefile.Errorf(casefile.ErrInvalid, "claim crawl: empty source or owner")
	}
	claimed := false
	err := s.inTx(ctx, "claim crawl of "+source, func(tx *sql.Tx) error {
		now := ts(s.now())
		res, err := tx.ExecContext(ctx, `
			INSERT INTO crawl_sources (name, lease_owner, lease_until, updated_at) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (name) DO UPDATE SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
			WHERE crawl_sources.lease_owner = '' OR crawl_sources.lease_owner = excluded.lease_owner
				OR crawl_sources.lease_until IS NULL OR crawl_sources.lease_until <= ?4`,
			source, owner, ts(until), now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		claimed = n > 0
		return err
	})
	return claimed, err
}

// ReleaseCrawl gives the lease back when owner holds it.
func (s *Store) ReleaseCrawl(ctx context.Context, source, owner string) error {
	return s.inTx(ctx, "release crawl of "+source, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE crawl_sources SET lease_owner = '', lease_until = NULL WHERE name = ?1 AND lease_owner = ?2`, source, owner)
		return err
	})
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
)

var _ casefile.CrawlStore = (*Store)(nil)

// nullTime is t, or NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

const crawlStateColumns = `c.name, c.etag, c.last_modified, c.last_run, c.next_run, c.found, c.last_error,
	(SELECT count(*) FROM crawl_seen s WHERE s.source = c.name)`

func scanCrawlState(row pgx.Row) (casefile.CrawlState, error) {
	var (
		st            casefile.CrawlState
		last, nextRun *time.Time
		seen          int64
	)
	if err := row.Scan(&st.Source, &st.ETag, &st.LastModified, &last, &nextRun, &st.Found, &st.LastError, &seen); err != nil {
		return st, err
	}
	if last != nil {
		st.LastRun = last.UTC()
	}
	if nextRun != nil {
		st.NextRun = nextRun.UTC()
	}
	st.Seen = int(seen)
	return st, nil
}

// CrawlStates returns the state of every source that has one, by name.
func (s *Store) CrawlStates(ctx context.Context) ([]casefile.CrawlState, error) {
	var out []casefile.CrawlState
	err := s.read(ctx, "read crawl states", func(q querier) error {
		out = nil
		rows, err := q.Query(ctx, `SELECT `+crawlStateColumns+` FROM crawl_sources c ORDER BY c.name`)
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
		got, err := scanCrawlState(q.QueryRow(ctx, `SELECT `+crawlStateColumns+` FROM crawl_sources c WHERE c.name = $1`, source))
		if errors.Is(err, pgx.ErrNoRows) {
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
	return s.inTx(ctx, "save crawl state of "+st.Source, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO crawl_sources (name, etag, last_modified, last_run, next_run, found, last_error, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (name) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
				last_run = excluded.last_run, next_run = excluded.next_run, found = excluded.found,
				last_error = excluded.last_error, updated_at = excluded.updated_at`,
			st.Source, st.ETag, st.LastModified, nullTime(st.LastRun), nullTime(st.NextRun), st.Found, st.LastError, s.now().UTC())
		return err
	})
}

// Unseen returns, in order, the URLs the source has not given with the
// same mark.
func (s *Store) Unseen(ctx context.Context, source string, urls []casefile.SeenURL) ([]casefile.SeenURL, error) {
	var out []casefile.SeenURL
	err := s.read(ctx, "read seen urls of "+source, func(q querier) error {
		out = nil
		list := make([]string, len(urls))
		for i, u := range urls {
			list[i] = u.URL
		}
		rows, err := q.Query(ctx, `SELECT url, mark FROM crawl_seen WHERE source = $1 AND url = ANY($2)`, source, list)
		if err != nil {
			return err
		}
		marks := map[string]string{}
		for rows.Next() {
			var u, m string
			if err := rows.Scan(&u, &m); err != nil {
				rows.Close()
				return err
			}
			marks[u] = m
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, u := range urls {
			if m, ok := marks[u.URL]; !ok || m != u.Mark {
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
	return s.inTx(ctx, "record seen urls of "+source, func(tx pgx.Tx) error {
		now := s.now().UTC()
		for _, u := range urls {
			if _, err := tx.Exec(ctx, `
				INSERT INTO crawl_seen (source, url, mark, first_seen, last_seen) VALUES ($1, $2, $3, $4, $4)
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
	err := s.inTx(ctx, "claim crawl of "+source, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO crawl_sources (name, lease_owner, lease_until, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (name) DO UPDATE SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
			WHERE crawl_sources.lease_owner = '' OR crawl_sources.lease_owner = excluded.lease_owner
				OR crawl_sources.lease_until IS NULL OR crawl_sources.lease_until <= $4`,
			source, owner, until.UTC(), s.now().UTC())
		claimed = err == nil && tag.RowsAffected() > 0
		return err
	})
	return claimed, err
}

// ReleaseCrawl gives the lease back when owner holds it.
func (s *Store) ReleaseCrawl(ctx context.Context, source, owner string) error {
	return s.inTx(ctx, "release crawl of "+source, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE crawl_sources SET lease_owner = '', lease_until = NULL WHERE name = $1 AND lease_owner = $2`, source, owner)
		return err
	})
}

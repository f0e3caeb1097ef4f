package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// requestFromDraftSQL records the archive request of a drafted source
// ($1 source id, $2 submission, $3 now): pending unless the source already
// has its link. An existing request is left as it is.
const requestFromDraftSQL = `
INSERT INTO archive_requests (source_id, url, state, step, archived, origin, next_attempt_at, created_at, updated_at)
SELECT s.id, sub.raw_url,
       CASE WHEN s.archived <> '' THEN 'archived' ELSE 'pending' END,
       CASE WHEN s.archived <> '' THEN '' ELSE 'lookup' END,
       s.archived, CASE WHEN s.archived <> '' THEN 'existing' ELSE '' END, $3, $3, $3
FROM sources s JOIN submissions sub ON sub.id = $2
WHERE s.id = $1
ON CONFLICT (source_id) DO NOTHING`

// requestsFromDraftsSQL is requestFromDraftSQL for several sources at once
// ($1 source ids, $2 the submission of each, $3 now).
const requestsFromDraftsSQL = `
INSERT INTO archive_requests (source_id, url, state, step, archived, origin, next_attempt_at, created_at, updated_at)
SELECT s.id, sub.raw_url,
       CASE WHEN s.archived <> '' THEN 'archived' ELSE 'pending' END,
       CASE WHEN s.archived <> '' THEN '' ELSE 'lookup' END,
       s.archived, CASE WHEN s.archived <> '' THEN 'existing' ELSE '' END, $3, $3, $3
FROM unnest($1::bigint[], $2::bigint[]) AS v(source_id, submission_id)
JOIN sources s ON s.id = v.source_id
JOIN submissions sub ON sub.id = v.submission_id
ON CONFLICT (source_id) DO NOTHING`

// requestFromImportSQL records the archive request of an imported source
// ($1 source id, $2 its url, $3 now).
const requestFromImportSQL = `
INSERT INTO archive_requests (source_id, url, state, step, archived, origin, next_attempt_at, created_at, updated_at)
SELECT s.id, $2::text,
       CASE WHEN s.archived <> '' THEN 'archived' ELSE 'pending' END,
       CASE WHEN s.archived <> '' THEN '' ELSE 'lookup' END,
       s.archived, CASE WHEN s.archived <> '' THEN 'existing' ELSE '' END, $3, $3, $3
FROM sources s WHERE s.id = $1
ON CONFLICT (source_id) DO NOTHING`

// settleRequestSQL marks a source's archive request archived with a link
// recorded by SetArchived ($1 source id, $2 link, $3 now).
const settleRequestSQL = `
UPDATE archive_requests SET state = 'archived', step = '', archived = $2,
    origin = CASE WHEN origin = '' THEN 'existing' ELSE origin END,
    lease_owner = '', lease_until = NULL, updated_at = $3
WHERE source_id = $1`

const archiveColumns = `
SELECT s.url, a.url, a.state, a.step, a.job_id, a.submitted_at, a.archived, a.snapshot_ts, a.origin,
       a.reason, a.attempts, a.next_attempt_at, a.created_at, a.updated_at
FROM archive_requests a JOIN sources s ON s.id = a.source_id`

func scanArchive(row pgx.Row) (casefile.ArchiveRequest, error) {
	var r casefile.ArchiveRequest
	var state, step string
	var submitted *time.Time
	err := row.Scan(&r.SourceURL, &r.URL, &state, &step, &r.JobID, &submitted, &r.Archived, &r.Timestamp, &r.Origin,
		&r.Reason, &r.Attempts, &r.RetryAt, &r.CreatedAt, &r.UpdatedAt)
	if err != nil {
		return r, err
	}
	r.State, r.Step = casefile.ArchiveState(state), casefile.ArchiveStep(step)
	if submitted != nil {
		r.SubmittedAt = submitted.UTC()
	}
	r.RetryAt, r.CreatedAt, r.UpdatedAt = r.RetryAt.UTC(), r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if r.State != casefile.ArchivePending {
		r.RetryAt = time.Time{}
	}
	return r, nil
}

func collectArchive(rows pgx.Rows) ([]casefile.ArchiveRequest, error) {
	defer rows.Close()
	var out []casefile.ArchiveRequest
	for rows.Next() {
		r, err := scanArchive(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RequestArchive records a pending request for the source, as
// casefile.ArchiveStore describes.
func (s *Store) RequestArchive(ctx context.Context, sourceURL, rawURL string) (bool, error) {
	if rawURL == "" {
		rawURL = sourceURL
	}
	var made bool
	err := s.inTx(ctx, "request archive of "+sourceURL, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT id FROM sources WHERE url = $1`, sourceURL).Scan(&id); err != nil {
			return notFound(err, "source %s not found", sourceURL)
		}
		tag, err := tx.Exec(ctx, requestFromImportSQL, id, rawURL, s.now())
		made = err == nil && tag.RowsAffected() > 0
		return err
	})
	return made, err
}

// ClaimArchive leases due requests, as casefile.ArchiveStore describes;
// workers of several processes skip each other's rows (SKIP LOCKED).
func (s *Store) ClaimArchive(ctx context.Context, owner string, n int, now, until time.Time) ([]casefile.ArchiveRequest, error) {
	if owner == "" || n <= 0 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "claim archive requests: an owner and a positive count are required")
	}
	var out []casefile.ArchiveRequest
	err := s.inTx(ctx, "claim archive requests", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			WITH due AS (
				SELECT source_id FROM archive_requests
				WHERE state = 'pending' AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until <= $2)
				ORDER BY next_attempt_at, source_id LIMIT $4
				FOR UPDATE SKIP LOCKED)
			UPDATE archive_requests a SET lease_owner = $1, lease_until = $3
			FROM due WHERE a.source_id = due.source_id
			RETURNING a.source_id`, owner, now, until, n)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(ids) == 0 {
			out = nil
			return err
		}
		rows, err = tx.Query(ctx, archiveColumns+` WHERE a.source_id = ANY($1) ORDER BY a.next_attempt_at, a.source_id`, ids)
		if err != nil {
			return err
		}
		out, err = collectArchive(rows)
		return err
	})
	return out, err
}

// SaveArchive stores a request's progress, as casefile.ArchiveStore
// describes.
func (s *Store) SaveArchive(ctx context.Context, owner string, r casefile.ArchiveRequest, hold bool) error {
	if err := store.CheckArchiveRequest(r); err != nil {
		return err
	}
	return s.inTx(ctx, "save archive request of "+r.SourceURL, func(tx pgx.Tx) error {
		now := s.now()
		var submitted *time.Time
		if !r.SubmittedAt.IsZero() {
			submitted = &r.SubmittedAt
		}
		due := r.RetryAt
		if due.IsZero() {
			due = now
		}
		var sourceID int64
		err := tx.QueryRow(ctx, `
			UPDATE archive_requests SET state = $3, step = $4, job_id = $5, submitted_at = $6, archived = $7,
				snapshot_ts = $8, origin = $9, reason = $10, attempts = $11, next_attempt_at = $12,
				lease_owner = CASE WHEN $13 THEN lease_owner ELSE '' END,
				lease_until = CASE WHEN $13 THEN lease_until ELSE NULL END, updated_at = $14
			WHERE source_id = (SELECT id FROM sources WHERE url = $1) AND lease_owner = $2
			RETURNING source_id`,
			r.SourceURL, owner, string(r.State), store.ArchiveStep(r), r.JobID, submitted, r.Archived,
			r.Timestamp, r.Origin, r.Reason, r.Attempts, due, hold, now).Scan(&sourceID)
		if errors.Is(err, pgx.ErrNoRows) {
			return casefile.Errorf(casefile.ErrConflict, "archive request of %s is not leased to %s", r.SourceURL, owner)
		}
		if err != nil || r.State != casefile.ArchiveArchived {
			return err
		}
		return recordArchived(ctx, tx, sourceID, r, now)
	})
}

// recordArchived makes an archived request's link the source's and writes
// it into the cases that cite the source.
func recordArchived(ctx context.Context, tx pgx.Tx, sourceID int64, r casefile.ArchiveRequest, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE sources SET archived = $2, archive_state = 'archived', updated_at = $3 WHERE id = $1`,
		sourceID, r.Archived, now); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `
		SELECT id, source_id, status, case_json FROM cases
		WHERE source_id = $1
		   OR case_json->'sources' @> jsonb_build_array(jsonb_build_object('url', $2::text))
		   OR case_json->'sources' @> jsonb_build_array(jsonb_build_object('url', $3::text))
		FOR UPDATE`, sourceID, r.SourceURL, r.URL)
	if err != nil {
		return err
	}
	type hit struct {
		id, source int64
		status     string
		body       []byte
	}
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.source, &h.status, &h.body); err != nil {
			rows.Close()
			return err
		}
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, h := range hits {
		p, ok, err := store.PatchCaseArchived(h.body, casefile.CaseStatus(h.status), h.source == sourceID, r.Archived, now, r.SourceURL, r.URL)
		if err != nil || !ok {
			return err
		}
		if err := writeArchivePatch(ctx, tx, h.id, p, now); err != nil {
			return err
		}
	}
	return nil
}

// writeArchivePatch stores a patched case: a new version of a draft, the
// body alone of a reviewed case.
func writeArchivePatch(ctx context.Context, tx pgx.Tx, id int64, p store.ArchivePatch, now time.Time) error {
	if !p.NewVersion {
		_, err := tx.Exec(ctx, `UPDATE cases SET case_json = $2, updated_at = $3 WHERE id = $1`, id, p.Body, now)
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE cases SET case_json = $2, version = version + 1, updated_at = $3 WHERE id = $1`, id, p.Body, now); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
		SELECT id, version, NULL, case_json, evidence_json, timeline_json, $2 FROM cases WHERE id = $1`, id, now)
	return err
}

// ArchiveRequest returns one source's request.
func (s *Store) ArchiveRequest(ctx context.Context, sourceURL string) (casefile.ArchiveRequest, error) {
	var r casefile.ArchiveRequest
	err := s.read(ctx, "read archive request of "+sourceURL, func(q querier) error {
		var err error
		r, err = scanArchive(q.QueryRow(ctx, archiveColumns+` WHERE s.url = $1`, sourceURL))
		return notFound(err, "source %s has no archive request", sourceURL)
	})
	return r, err
}

// ArchiveRequests lists requests, the ones due first.
func (s *Store) ArchiveRequests(ctx context.Context, state casefile.ArchiveState, limit int) ([]casefile.ArchiveRequest, error) {
	var out []casefile.ArchiveRequest
	err := s.read(ctx, "list archive requests", func(q querier) error {
		rows, err := q.Query(ctx, archiveColumns+` WHERE $1 = '' OR a.state = $1 ORDER BY a.next_attempt_at, a.source_id LIMIT $2`,
			string(state), store.Limit(limit))
		if err != nil {
			return err
		}
		out, err = collectArchive(rows)
		return err
	})
	return out, err
}

// ArchiveSummary counts requests by state.
func (s *Store) ArchiveSummary(ctx context.Context) (casefile.ArchiveSummary, error) {
	sum := casefile.ArchiveSummary{Counts: map[casefile.ArchiveState]int{}}
	err := s.read(ctx, "count archive requests", func(q querier) error {
		var none, pending, archived, failed int
		var oldest, due *time.Time
		err := q.QueryRow(ctx, `
			SELECT (SELECT count(*) FROM sources s WHERE NOT EXISTS (SELECT 1 FROM archive_requests a WHERE a.source_id = s.id)),
			       count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'archived'),
			       count(*) FILTER (WHERE state = 'failed'),
			       min(created_at) FILTER (WHERE state = 'pending'), min(next_attempt_at) FILTER (WHERE state = 'pending')
			FROM archive_requests`).Scan(&none, &pending, &archived, &failed, &oldest, &due)
		if err != nil {
			return err
		}
		sum.Counts[casefile.ArchiveNone], sum.Counts[casefile.ArchivePending] = none, pending
		sum.Counts[casefile.ArchiveArchived], sum.Counts[casefile.ArchiveFailed] = archived, failed
		if oldest != nil {
			sum.OldestPending = oldest.UTC()
		}
		if due != nil {
			sum.NextDue = due.UTC()
		}
		return nil
	})
	return sum, err
}

// RetryArchive makes pending requests due now and, with failed, failed
// ones pending again.
func (s *Store) RetryArchive(ctx context.Context, failed bool, now time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, "retry archive requests", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE archive_requests SET next_attempt_at = $1, updated_at = $1,
				attempts = CASE WHEN state = 'failed' THEN 0 ELSE attempts END,
				step = CASE WHEN state = 'failed' THEN 'lookup' ELSE step END,
				reason = CASE WHEN state = 'failed' THEN '' ELSE reason END,
				state = 'pending'
			WHERE (state = 'pending' AND next_attempt_at > $1) OR ($2 AND state = 'failed')`, now, failed)
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

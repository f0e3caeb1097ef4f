package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

const selectSubmission = `
SELECT sub.id, s.url, sub.raw_url, sub.origin, sub.batch, sub.state, sub.error,
       coalesce(c.case_id, ''), coalesce(sub.answered_by, 0), sub.attempts, sub.created_at, sub.updated_at
FROM submissions sub
JOIN sources s ON s.id = sub.source_id
LEFT JOIN cases c ON c.source_id = sub.source_id`

func scanSubmission(row pgx.Row) (casefile.Submission, error) {
	var sub casefile.Submission
	var origin, state string
	err := row.Scan(&sub.ID, &sub.URL, &sub.RawURL, &origin, &sub.Batch, &state, &sub.Error,
		&sub.CaseID, &sub.AnsweredBy, &sub.Attempts, &sub.CreatedAt, &sub.UpdatedAt)
	sub.Origin = casefile.Origin(origin)
	sub.State = casefile.SubmissionState(state)
	sub.CreatedAt = sub.CreatedAt.UTC()
	sub.UpdatedAt = sub.UpdatedAt.UTC()
	return sub, err
}

func collectSubmissions(rows pgx.Rows, err error) ([]casefile.Submission, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (casefile.Submission, error) {
		return scanSubmission(row)
	})
}

// Submit records each URL as a source (upserted by canonical URL) with a
// submission, all in one transaction, and returns the submissions in the
// order given. A source with a fetch queued or running answers the new
// submission (AnsweredBy, state queued until that fetch ends); a source
// read within the submission's FreshFor answers it at once (its state and
// reason copied); any other submission is queued with an outbox entry. The
// source row stays locked until the commit, so a fetch that ends meanwhile
// settles the submissions it answers. A source that already has a case
// reports its id in CaseID. Errors: ErrInvalid for an empty URL or unknown
// origin (nothing is stored), ErrTransient when the database is
// unreachable.
func (s *Store) Submit(ctx context.Context, subs []casefile.NewSubmission) ([]casefile.Submission, error) {
	checked := make([]casefile.NewSubmission, len(subs))
	for i, ns := range subs {
		c, err := store.CheckSubmission(ns)
		if err != nil {
			return nil, err
		}
		checked[i] = c
	}
	if len(checked) == 0 {
		return nil, nil
	}
	var out []casefile.Submission
	err := s.inTx(ctx, "submit", func(tx pgx.Tx) error {
		now := s.now()
		ids := make([]int64, len(checked))
		for i, ns := range checked {
			var sourceID int64
			err := tx.QueryRow(ctx, `
				INSERT INTO sources (url, created_at, updated_at) VALUES ($1, $2, $2)
				ON CONFLICT (url) DO UPDATE SET updated_at = EXCLUDED.updated_at
				RETURNING id`, ns.URL, now).Scan(&sourceID)
			if err != nil {
				return err
			}
			if ids[i], err = insertSubmission(ctx, tx, sourceID, ns, now); err != nil {
				return err
			}
		}
		got, err := collectSubmissions(tx.Query(ctx, selectSubmission+` WHERE sub.id = ANY($1)`, ids))
		if err != nil {
			return err
		}
		byID := make(map[int64]casefile.Submission, len(got))
		for _, sub := range got {
			byID[sub.ID] = sub
		}
		out = make([]casefile.Submission, len(ids))
		for i, id := range ids {
			out[i] = byID[id]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// insertSubmission adds one submission of the source: answered by the
// source's open fetch, or by its read within ns.FreshFor, or else queued
// with an outbox entry. The caller holds the source row's lock.
func insertSubmission(ctx context.Context, tx pgx.Tx, sourceID int64, ns casefile.NewSubmission, now time.Time) (int64, error) {
	var answer int64
	state, reason := string(casefile.StateQueued), ""
	err := tx.QueryRow(ctx, `
		SELECT id FROM submissions
		WHERE source_id = $1 AND answered_by IS NULL AND state IN ('queued', 'running')
		ORDER BY id LIMIT 1`, sourceID).Scan(&answer)
	if errors.Is(err, pgx.ErrNoRows) && ns.FreshFor > 0 {
		err = tx.QueryRow(ctx, `
			SELECT sub.id, sub.state, sub.error
			FROM submissions sub JOIN sources s ON s.id = sub.source_id
			WHERE sub.source_id = $1 AND sub.answered_by IS NULL AND sub.state IN ('drafted', 'not_postmortem')
				AND s.fetch_state = 'fetched' AND s.last_fetched_at >= $2
			ORDER BY sub.id DESC LIMIT 1`, sourceID, now.Add(-ns.FreshFor)).Scan(&answer, &state, &reason)
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, err
	}
	var id int64
	err = tx.QueryRow(ctx, `
		INSERT INTO submissions (source_id, raw_url, origin, batch, state, error, answered_by, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7::bigint, 0), $8, $8)
		RETURNING id`, sourceID, ns.RawURL, string(ns.Origin), ns.Batch, state, reason, answer, now).Scan(&id)
	if err != nil || answer != 0 {
		return id, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO outbox (submission_id, created_at) VALUES ($1, $2)`, id, now)
	return id, err
}

// lockSource locks the row of the submission's source, the first lock of
// every transaction that ends a submission (Submit and SaveDraft take it
// too), so that a submission answered by it is never left open.
func lockSource(ctx context.Context, tx pgx.Tx, submissionID int64) error {
	var id int64
	err := tx.QueryRow(ctx, `
		SELECT s.id FROM sources s JOIN submissions sub ON sub.source_id = s.id
		WHERE sub.id = $1 FOR UPDATE OF s`, submissionID).Scan(&id)
	return notFound(err, "submission %d not found", submissionID)
}

// settleAnswered gives the open submissions the submission answers its
// final state and reason, once it has one.
func settleAnswered(ctx context.Context, tx pgx.Tx, submissionID int64, now time.Time) error {
	_, err := tx.Exec(ctx, settleAnsweredSQL, submissionID, now)
	return err
}

// settleAnsweredSQL is settleAnswered's statement ($1 the submission, $2
// the time).
const settleAnsweredSQL = `
		UPDATE submissions AS f SET state = p.state, error = p.error, updated_at = $2
		FROM submissions AS p
		WHERE p.id = $1 AND f.answered_by = p.id
			AND f.state IN ('queued', 'running') AND p.state NOT IN ('queued', 'running')`

// settleAnsweredAllSQL is settleAnsweredSQL for several submissions ($1
// their ids, $2 the time).
const settleAnsweredAllSQL = `
		UPDATE submissions AS f SET state = p.state, error = p.error, updated_at = $2
		FROM submissions AS p
		WHERE p.id = ANY($1) AND f.answered_by = p.id
			AND f.state IN ('queued', 'running') AND p.state NOT IN ('queued', 'running')`

// Submission returns the submission with the given id, or an ErrNotFound
// error.
func (s *Store) Submission(ctx context.Context, id int64) (casefile.Submission, error) {
	var sub casefile.Submission
	err := s.read(ctx, fmt.Sprintf("read submission %d", id), func(q querier) error {
		var err error
		sub, err = scanSubmission(q.QueryRow(ctx, selectSubmission+` WHERE sub.id = $1`, id))
		return notFound(err, "submission %d not found", id)
	})
	return sub, err
}

// Submissions returns the submissions of a batch, oldest first; an unknown
// batch has none. An empty batch name is an ErrInvalid error.
func (s *Store) Submissions(ctx context.Context, batch string) ([]casefile.Submission, error) {
	if batch == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "list submissions: the batch name is empty")
	}
	var subs []casefile.Submission
	err := s.read(ctx, fmt.Sprintf("list submissions of batch %s", batch), func(q querier) error {
		var err error
		subs, err = collectSubmissions(q.Query(ctx, selectSubmission+` WHERE sub.batch = $1 ORDER BY sub.id`, batch))
		return err
	})
	return subs, err
}

// SubmissionsAfter returns the batch's submissions with ids above
// afterID, oldest first, at most limit (limit ≤ 0 means store.DefaultLimit).
func (s *Store) SubmissionsAfter(ctx context.Context, batch string, afterID int64, limit int) ([]casefile.Submission, error) {
	if batch == "" {
		return nil, casefile.Errorf(casefile.ErrInvalid, "list submissions: the batch name is empty")
	}
	var subs []casefile.Submission
	err := s.read(ctx, fmt.Sprintf("list submissions of batch %s", batch), func(q querier) error {
		var err error
		subs, err = collectSubmissions(q.Query(ctx, selectSubmission+` WHERE sub.batch = $1 AND sub.id > $2 ORDER BY sub.id LIMIT $3`, batch, afterID, store.Limit(limit)))
		return err
	})
	return subs, err
}

// Outbox returns up to limit entries not yet marked sent, oldest first
// (limit ≤ 0 means store.DefaultLimit).
func (s *Store) Outbox(ctx context.Context, limit int) ([]casefile.OutboxEntry, error) {
	var out []casefile.OutboxEntry
	err := s.read(ctx, "read outbox", func(q querier) error {
		rows, err := q.Query(ctx, `
			SELECT o.submission_id, s.url, sub.raw_url
			FROM outbox o
			JOIN submissions sub ON sub.id = o.submission_id
			JOIN sources s ON s.id = sub.source_id
			WHERE o.sent_at IS NULL
			ORDER BY o.submission_id
			LIMIT $1`, store.Limit(limit))
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (casefile.OutboxEntry, error) {
			var e casefile.OutboxEntry
			err := row.Scan(&e.SubmissionID, &e.URL, &e.RawURL)
			return e, err
		})
		return err
	})
	return out, err
}

// MarkSent marks the outbox entries of the submissions as published.
// Entries already sent and unknown ids are ignored.
func (s *Store) MarkSent(ctx context.Context, submissionIDs []int64) error {
	if len(submissionIDs) == 0 {
		return nil
	}
	return s.inTx(ctx, "mark outbox entries sent", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE outbox SET sent_at = $2 WHERE submission_id = ANY($1) AND sent_at IS NULL`,
			submissionIDs, s.now())
		return err
	})
}

// StartAttempt marks the submission running, counts the attempt and clears
// the error of an earlier attempt, and reports true. A submission already
// in a final state is left as it is and StartAttempt reports false: the job
// is a late copy (a redelivery after the outcome was stored). Unknown ids
// are an ErrNotFound error.
func (s *Store) StartAttempt(ctx context.Context, submissionID int64) (bool, error) {
	// One statement, one round trip: the update and whether the
	// submission exists at all. A retry after a reply lost with its
	// connection may count one attempt twice; the state is the same.
	var started, exists bool
	err := s.retry(ctx, fmt.Sprintf("start attempt of submission %d", submissionID), func() error {
		err := s.pool.QueryRow(ctx, `
			WITH started AS (
				UPDATE submissions SET state = 'running', attempts = attempts + 1, error = '', updated_at = $2
				WHERE id = $1 AND state IN ('queued', 'running')
				RETURNING id
			)
			SELECT EXISTS (SELECT 1 FROM started), EXISTS (SELECT 1 FROM submissions WHERE id = $1)`,
			submissionID, s.now()).Scan(&started, &exists)
		if err == nil && !exists {
			return casefile.Errorf(casefile.ErrNotFound, "submission %d not found", submissionID)
		}
		return err
	})
	return started, err
}

// Finish marks the open submission with a final state other than drafted
// (not_postmortem, failed, dead_lettered) and its reason, gives the
// submissions it answers the same, and records on the source whether its
// page was read (not_postmortem) or not (failed). A submission already
// final is left as it is: the first outcome stands. Errors: ErrInvalid for
// another state, ErrNotFound for an unknown id.
func (s *Store) Finish(ctx context.Context, submissionID int64, state casefile.SubmissionState, reason string) error {
	if err := store.CheckFinish(submissionID, state); err != nil {
		return err
	}
	fetch := ""
	switch state {
	case casefile.StateNotPostmortem:
		fetch = "fetched" // the page was read
	case casefile.StateFailed:
		fetch = "failed"
	}
	return s.inTx(ctx, fmt.Sprintf("finish submission %d", submissionID), func(tx pgx.Tx) error {
		now := s.now()
		// The source first: SaveDraft locks source, then submission.
		if err := lockSource(ctx, tx, submissionID); err != nil {
			return err
		}
		var open bool
		err := tx.QueryRow(ctx, `SELECT state IN ('queued', 'running') FROM submissions WHERE id = $1`, submissionID).Scan(&open)
		if err != nil || !open {
			return err
		}
		if fetch != "" {
			_, err := tx.Exec(ctx, `
				UPDATE sources SET fetch_state = $2, last_fetched_at = $3, updated_at = $3
				WHERE id = (SELECT source_id FROM submissions WHERE id = $1)`, submissionID, fetch, now)
			if err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE submissions SET state = $2, error = $3, updated_at = $4 WHERE id = $1`,
			submissionID, string(state), reason, now)
		if err != nil {
			return err
		}
		return settleAnswered(ctx, tx, submissionID, now)
	})
}

// RecordDeadLetter stores the dead letter, once per stream and sequence
// (recording it again changes nothing), and marks its submission
// dead_lettered with the reason, unless the submission already ended
// drafted or not_postmortem (a late copy of a job that succeeded), and
// gives the submissions it answers the same state. A SubmissionID of 0 or
// an unknown one stores the dead letter alone.
// Errors: ErrInvalid without a stream or sequence.
func (s *Store) RecordDeadLetter(ctx context.Context, dl casefile.DeadLetter) error {
	dl, err := store.PrepareDeadLetter(dl)
	if err != nil {
		return err
	}
	reason, payload := dl.Reason, dl.Payload
	return s.inTx(ctx, fmt.Sprintf("record dead letter %s/%d", dl.Stream, dl.StreamSeq), func(tx pgx.Tx) error {
		now := s.now()
		_, err := tx.Exec(ctx, `
			INSERT INTO dead_letters (stream, stream_seq, subject, submission_id, payload, reason, deliveries, created_at)
			VALUES ($1, $2, $3, NULLIF($4::bigint, 0), $5, $6, $7, $8)
			ON CONFLICT (stream, stream_seq) DO NOTHING`,
			dl.Stream, int64(dl.StreamSeq), dl.Subject, dl.SubmissionID, payload, reason, dl.Deliveries, now)
		if err != nil || dl.SubmissionID == 0 {
			return err
		}
		if err := lockSource(ctx, tx, dl.SubmissionID); casefile.KindOf(err) == casefile.KindNotFound {
			return nil
		} else if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			UPDATE submissions SET state = 'dead_lettered', error = $2, updated_at = $3
			WHERE id = $1 AND state NOT IN ('drafted', 'not_postmortem')`, dl.SubmissionID, reason, now)
		if err != nil {
			return err
		}
		return settleAnswered(ctx, tx, dl.SubmissionID, now)
	})
}

// DeadLetters lists up to limit dead letters, newest first.
func (s *Store) DeadLetters(ctx context.Context, limit int) ([]casefile.DeadLetter, error) {
	var out []casefile.DeadLetter
	err := s.read(ctx, "list dead letters", func(q querier) error {
		rows, err := q.Query(ctx, `
			SELECT stream, stream_seq, subject, COALESCE(submission_id, 0), payload, reason, deliveries, created_at
			FROM dead_letters ORDER BY id DESC LIMIT $1`, store.Limit(limit))
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (casefile.DeadLetter, error) {
			var dl casefile.DeadLetter
			var seq int64
			err := row.Scan(&dl.Stream, &seq, &dl.Subject, &dl.SubmissionID, &dl.Payload, &dl.Reason, &dl.Deliveries, &dl.RecordedAt)
			dl.StreamSeq = uint64(seq)
			dl.RecordedAt = dl.RecordedAt.UTC()
			return dl, err
		})
		return err
	})
	return out, err
}

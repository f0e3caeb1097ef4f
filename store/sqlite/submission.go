package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

const selectSubmission = `
SELECT sub.id, s.url, sub.raw_url, sub.origin, sub.batch, sub.state, sub.error,
       coalesce(c.case_id, ''), sub.attempts, sub.created_at, sub.updated_at
FROM submissions sub
JOIN sources s ON s.id = sub.source_id
LEFT JOIN cases c ON c.source_id = sub.source_id`

type scanner interface{ Scan(dest ...any) error }

func scanSubmission(row scanner) (casefile.Submission, error) {
	var sub casefile.Submission
	var origin, state, created, updated string
	err := row.Scan(&sub.ID, &sub.URL, &sub.RawURL, &origin, &sub.Batch, &state, &sub.Error,
		&sub.CaseID, &sub.Attempts, &created, &updated)
	if err != nil {
		return sub, err
	}
	sub.Origin = casefile.Origin(origin)
	sub.State = casefile.SubmissionState(state)
	if sub.CreatedAt, err = parseTS(created); err != nil {
		return sub, err
	}
	sub.UpdatedAt, err = parseTS(updated)
	return sub, err
}

func collectSubmissions(rows *sql.Rows, err error) ([]casefile.Submission, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []casefile.Submission
	for rows.Next() {
		sub, err := scanSubmission(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, rows.Err()
}

// Submit records each URL as a source (upserted by canonical URL) with a
// submission in state queued and an outbox entry, all in one transaction,
// and returns the submissions in the order given. A submission whose
// Archived is set stores it as the source's archive link (and in the
// source's case, if any); an empty one never clears a link. A source that
// already has a case reports its id in CaseID. Errors: ErrInvalid for an
// empty URL or unknown origin (nothing is stored).
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
	err := s.inTx(ctx, "submit", func(tx *sql.Tx) error {
		now := s.now()
		ids := make([]int64, len(checked))
		for i, ns := range checked {
			var sourceID int64
			err := tx.QueryRowContext(ctx, `
				INSERT INTO sources (url, archived, archive_state, created_at, updated_at)
				VALUES (?1, ?2, CASE WHEN ?2 = '' THEN 'none' ELSE 'archived' END, ?3, ?3)
				ON CONFLICT (url) DO UPDATE SET
					updated_at = excluded.updated_at,
					archived = CASE WHEN excluded.archived <> '' THEN excluded.archived ELSE sources.archived END,
					archive_state = CASE WHEN excluded.archived <> '' THEN 'archived' ELSE sources.archive_state END
				RETURNING id`, ns.URL, ns.Archived, ts(now)).Scan(&sourceID)
			if err != nil {
				return err
			}
			if ns.Archived != "" {
				if err := patchCaseArchived(ctx, tx, sourceID, ns.URL, ns.Archived, now); err != nil {
					return err
				}
			}
			err = tx.QueryRowContext(ctx, `
				INSERT INTO submissions (source_id, raw_url, origin, batch, state, created_at, updated_at)
				VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5)
				RETURNING id`, sourceID, ns.RawURL, string(ns.Origin), ns.Batch, ts(now)).Scan(&ids[i])
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (submission_id, created_at) VALUES (?1, ?2)`, ids[i], ts(now)); err != nil {
				return err
			}
		}
		out = make([]casefile.Submission, len(ids))
		for i, id := range ids {
			sub, err := scanSubmission(tx.QueryRowContext(ctx, selectSubmission+` WHERE sub.id = ?1`, id))
			if err != nil {
				return err
			}
			out[i] = sub
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Submission returns the submission with the given id, or an ErrNotFound
// error.
func (s *Store) Submission(ctx context.Context, id int64) (casefile.Submission, error) {
	var sub casefile.Submission
	err := s.read(ctx, fmt.Sprintf("read submission %d", id), func(q querier) error {
		var err error
		sub, err = scanSubmission(q.QueryRowContext(ctx, selectSubmission+` WHERE sub.id = ?1`, id))
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
		subs, err = collectSubmissions(q.QueryContext(ctx, selectSubmission+` WHERE sub.batch = ?1 ORDER BY sub.id`, batch))
		return err
	})
	return subs, err
}

// Outbox returns up to limit entries not yet marked sent, oldest first
// (limit ≤ 0 means store.DefaultLimit).
func (s *Store) Outbox(ctx context.Context, limit int) ([]casefile.OutboxEntry, error) {
	var out []casefile.OutboxEntry
	err := s.read(ctx, "read outbox", func(q querier) error {
		out = nil
		rows, err := q.QueryContext(ctx, `
			SELECT o.submission_id, s.url, sub.raw_url
			FROM outbox o
			JOIN submissions sub ON sub.id = o.submission_id
			JOIN sources s ON s.id = sub.source_id
			WHERE o.sent_at IS NULL
			ORDER BY o.submission_id
			LIMIT ?1`, store.Limit(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e casefile.OutboxEntry
			if err := rows.Scan(&e.SubmissionID, &e.URL, &e.RawURL); err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, err
}

// MarkSent marks the outbox entries of the submissions as published.
// Entries already sent and unknown ids are ignored.
func (s *Store) MarkSent(ctx context.Context, submissionIDs []int64) error {
	if len(submissionIDs) == 0 {
		return nil
	}
	return s.inTx(ctx, "mark outbox entries sent", func(tx *sql.Tx) error {
		now := ts(s.now())
		for _, id := range submissionIDs {
			if _, err := tx.ExecContext(ctx, `UPDATE outbox SET sent_at = ?2 WHERE submission_id = ?1 AND sent_at IS NULL`, id, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// StartAttempt marks the submission running, counts the attempt and clears
// the error of an earlier attempt; a finished submission that runs again
// (a redelivered or redriven job) is reopened so. Unknown ids are an
// ErrNotFound error.
func (s *Store) StartAttempt(ctx context.Context, submissionID int64) error {
	return s.inTx(ctx, fmt.Sprintf("start attempt of submission %d", submissionID), func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE submissions SET state = 'running', attempts = attempts + 1, error = '', updated_at = ?2
			WHERE id = ?1`, submissionID, ts(s.now()))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return casefile.Errorf(casefile.ErrNotFound, "submission %d not found", submissionID)
		}
		return nil
	})
}

// Finish marks the submission with a final state other than drafted
// (not_postmortem, failed, dead_lettered) and its reason, and records on
// the source whether its page was read (not_postmortem) or not (failed).
// Errors: ErrInvalid for another state, ErrNotFound for an unknown id.
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
	return s.inTx(ctx, fmt.Sprintf("finish submission %d", submissionID), func(tx *sql.Tx) error {
		now := ts(s.now())
		if fetch != "" {
			_, err := tx.ExecContext(ctx, `
				UPDATE sources SET fetch_state = ?2, last_fetched_at = ?3, updated_at = ?3
				WHERE id = (SELECT source_id FROM submissions WHERE id = ?1)`, submissionID, fetch, now)
			if err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE submissions SET state = ?2, error = ?3, updated_at = ?4 WHERE id = ?1`,
			submissionID, string(state), reason, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return casefile.Errorf(casefile.ErrNotFound, "submission %d not found", submissionID)
		}
		return nil
	})
}

// RecordDeadLetter stores the dead letter, once per stream and sequence
// (recording it again changes nothing), and marks its submission
// dead_lettered with the reason, unless the submission already ended
// drafted or not_postmortem (a late copy of a job that succeeded). A
// SubmissionID of 0 or an unknown one stores the dead letter alone.
// Errors: ErrInvalid without a stream or sequence.
func (s *Store) RecordDeadLetter(ctx context.Context, dl casefile.DeadLetter) error {
	dl, err := store.PrepareDeadLetter(dl)
	if err != nil {
		return err
	}
	reason, payload := dl.Reason, dl.Payload
	var subID any
	if dl.SubmissionID != 0 {
		subID = dl.SubmissionID
	}
	return s.inTx(ctx, fmt.Sprintf("record dead letter %s/%d", dl.Stream, dl.StreamSeq), func(tx *sql.Tx) error {
		now := ts(s.now())
		_, err := tx.ExecContext(ctx, `
			INSERT INTO dead_letters (stream, stream_seq, subject, submission_id, payload, reason, deliveries, created_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
			ON CONFLICT (stream, stream_seq) DO NOTHING`,
			dl.Stream, int64(dl.StreamSeq), dl.Subject, subID, payload, reason, dl.Deliveries, now)
		if err != nil || dl.SubmissionID == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE submissions SET state = 'dead_lettered', error = ?2, updated_at = ?3
			WHERE id = ?1 AND state NOT IN ('drafted', 'not_postmortem')`, dl.SubmissionID, reason, now)
		return err
	})
}

// DeadLetters lists up to limit dead letters, newest first.
func (s *Store) DeadLetters(ctx context.Context, limit int) ([]casefile.DeadLetter, error) {
	var out []casefile.DeadLetter
	err := s.read(ctx, "list dead letters", func(q querier) error {
		rows, err := q.QueryContext(ctx, `
			SELECT stream, stream_seq, subject, COALESCE(submission_id, 0), payload, reason, deliveries, created_at
			FROM dead_letters ORDER BY id DESC LIMIT ?1`, store.Limit(limit))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var dl casefile.DeadLetter
			var seq int64
			var created string
			if err := rows.Scan(&dl.Stream, &seq, &dl.Subject, &dl.SubmissionID, &dl.Payload, &dl.Reason, &dl.Deliveries, &created); err != nil {
				return err
			}
			dl.StreamSeq = uint64(seq)
			if dl.RecordedAt, err = parseTS(created); err != nil {
				return err
			}
			out = append(out, dl)
		}
		return rows.Err()
	})
	return out, err
}

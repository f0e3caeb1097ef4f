package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// SaveDraft stores the draft for the submission's source in one
// transaction: a new case with the next IL id (Inserted), or a new version
// of the source's case while it is a draft and the draft says something
// new, or nothing when the draft equals the current version (Unchanged) or
// the case was already approved or rejected (Kept, the case left as it
// was). The stored case gets its IL id, the update time and the source's
// archive link where the draft has none; the submission and the ones it
// answers are marked drafted. Errors: ErrNotFound for an unknown
// submission.
func (s *Store) SaveDraft(ctx context.Context, submissionID int64, d casefile.Draft) (casefile.SaveResult, error) {
	evidence, timeline, err := store.EncodeDraft(d)
	if err != nil {
		return casefile.SaveResult{}, fmt.Errorf("save draft of submission %d: %w", submissionID, err)
	}
	var res casefile.SaveResult
	err = s.inTx(ctx, fmt.Sprintf("save draft of submission %d", submissionID), func(tx *sql.Tx) error {
		res = casefile.SaveResult{}
		return saveDraft(ctx, tx, submissionID, d, false, evidence, timeline, s.now(), &res)
	})
	if err != nil {
		return casefile.SaveResult{}, err
	}
	return res, nil
}

// SaveDrafts stores the drafts as SaveDraft does, all in one transaction
// (one commit for the batch), and returns a result per draft in order. A
// draft whose submission is unknown gets an ErrNotFound error in its result
// and changes nothing; any other error rolls the whole batch back and is
// returned.
func (s *Store) SaveDrafts(ctx context.Context, drafts []casefile.DraftToSave) ([]casefile.DraftSaved, error) {
	if len(drafts) == 0 {
		return nil, nil
	}
	evidence, timeline := make([][]byte, len(drafts)), make([][]byte, len(drafts))
	encoded := make([]bool, len(drafts))
	for i, d := range drafts {
		var err error
		if evidence[i], timeline[i], encoded[i], err = store.EncodeToSave(d); err != nil {
			return nil, fmt.Errorf("save draft of submission %d: %w", d.SubmissionID, err)
		}
	}
	var out []casefile.DraftSaved
	err := s.inTx(ctx, fmt.Sprintf("save %d drafts", len(drafts)), func(tx *sql.Tx) error {
		out = make([]casefile.DraftSaved, len(drafts))
		now := s.now()
		for i, d := range drafts {
			err := saveDraft(ctx, tx, d.SubmissionID, d.Draft, encoded[i], evidence[i], timeline[i], now, &out[i].SaveResult)
			if casefile.KindOf(err) == casefile.KindNotFound {
				out[i] = casefile.DraftSaved{Err: fmt.Errorf("save draft of submission %d: %w", d.SubmissionID, err)}
				continue
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// saveDraft is SaveDraft's work inside the caller's transaction; its
// results are in res.
func saveDraft(ctx context.Context, tx *sql.Tx, submissionID int64, d casefile.Draft, encoded bool, evidence, timeline []byte, now time.Time, res *casefile.SaveResult) error {
	var sourceID int64
	var sourceURL, archived string
	err := tx.QueryRowContext(ctx, `
		SELECT s.id, s.url, s.archived
		FROM submissions sub JOIN sources s ON s.id = sub.source_id
		WHERE sub.id = ?1`, submissionID).Scan(&sourceID, &sourceURL, &archived)
	if err != nil {
		return notFound(err, "submission %d not found", submissionID)
	}

	var id int64
	var status string
	var version int
	var edited bool
	var curBody, curEvidence, curTimeline string
	err = tx.QueryRowContext(ctx, `SELECT id, case_id, status, version, case_json, evidence_json, timeline_json, edited_at IS NOT NULL FROM cases WHERE source_id = ?1`,
		sourceID).Scan(&id, &res.CaseID, &status, &version, &curBody, &curEvidence, &curTimeline, &edited)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}

	// A reviewed case, and a draft a reviewer edited, stay as the
	// reviewer left them.
	if found && (casefile.CaseStatus(status) != casefile.CaseDraft || edited) {
		res.Kept = true
		return noteDrafted(ctx, tx, submissionID, sourceID, d.Case, sourceURL, now)
	}

	if archived == "" {
		if a := store.DraftArchived(d.Case, sourceURL); a != "" {
			archived = a
			if _, err := tx.ExecContext(ctx, `UPDATE sources SET archived = ?2, archive_state = 'archived' WHERE id = ?1`, sourceID, a); err != nil {
				return err
			}
		}
	}

	if !found {
		// The counter row is written in this transaction, so a
		// rollback gives the number back: ids have no gaps.
		var n int64
		err := tx.QueryRowContext(ctx, `UPDATE counters SET value = value + 1 WHERE name = 'case_number' RETURNING value`).Scan(&n)
		if err != nil {
			return fmt.Errorf("next case number: %w", err)
		}
		res.CaseID = store.CaseID(n)
		res.Inserted = true
		body, err := json.Marshal(store.PrepareDraft(d.Case, res.CaseID, sourceURL, archived, now))
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		version = 1
		// Each document converted once for both rows.
		bodyS, evidenceS, timelineS := string(body), string(evidence), string(timeline)
		err = tx.QueryRowContext(ctx, `
			INSERT INTO cases (case_id, source_id, status, case_json, evidence_json, timeline_json, version, created_at, updated_at)
			VALUES (?1, ?2, 'draft', ?3, ?4, ?6, 1, ?5, ?5)
			RETURNING id`, res.CaseID, sourceID, bodyS, evidenceS, ts(now), timelineS).Scan(&id)
		if err != nil {
			return err
		}
		return saveVersion(ctx, tx, id, version, submissionID, bodyS, evidenceS, timelineS, sourceID, d.Case, sourceURL, now)
	}

	next := store.PrepareDraft(d.Case, res.CaseID, sourceURL, archived, now)
	if encoded {
		// Queued bytes: decoded only here, to compare with the current version.
		if err := store.DecodeEncoded(&d, evidence, timeline); err != nil {
			return casefile.Errorf(casefile.ErrInvalid, "save draft of submission %d: %w", submissionID, err)
		}
	}
	var cur casefile.Draft
	if json.Unmarshal([]byte(curBody), &cur.Case) == nil && json.Unmarshal([]byte(curEvidence), &cur.Evidence) == nil &&
		json.Unmarshal([]byte(curTimeline), &cur.Timeline) == nil &&
		store.SameDraft(cur, casefile.Draft{Case: next, Evidence: d.Evidence, Timeline: d.Timeline}) {
		res.Unchanged = true
		return noteDrafted(ctx, tx, submissionID, sourceID, d.Case, sourceURL, now)
	}
	body, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("encode case: %w", err)
	}
	bodyS, evidenceS, timelineS := string(body), string(evidence), string(timeline)
	err = tx.QueryRowContext(ctx, `
		UPDATE cases SET case_json = ?2, evidence_json = ?3, timeline_json = ?5, version = version + 1, updated_at = ?4
		WHERE id = ?1 RETURNING version`, id, bodyS, evidenceS, ts(now), timelineS).Scan(&version)
	if err != nil {
		return err
	}
	return saveVersion(ctx, tx, id, version, submissionID, bodyS, evidenceS, timelineS, sourceID, d.Case, sourceURL, now)
}

// saveVersion records a stored draft as a version of its case, notes the
// fetch on the source and marks the submission drafted.
func saveVersion(ctx context.Context, tx *sql.Tx, caseRowID int64, version int, submissionID int64, body, evidence, timeline string,
	sourceID int64, c casefile.Case, sourceURL string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?7, ?6)`, caseRowID, version, submissionID, body, evidence, ts(now), timeline)
	if err != nil {
		return err
	}
	return noteDrafted(ctx, tx, submissionID, sourceID, c, sourceURL, now)
}

// noteDrafted records that the source's page was read and marks the
// submission, and the open ones it answers, drafted.
func noteDrafted(ctx context.Context, tx *sql.Tx, submissionID, sourceID int64, c casefile.Case, sourceURL string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `
		UPDATE sources SET kind = CASE WHEN ?2 <> '' THEN ?2 ELSE kind END,
			fetch_state = 'fetched', last_fetched_at = ?3, updated_at = ?3
		WHERE id = ?1`, sourceID, store.SourceKind(c, sourceURL), ts(now))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE submissions SET state = 'drafted', error = '', updated_at = ?2 WHERE id = ?1`,
		submissionID, ts(now))
	if err != nil {
		return err
	}
	// The source's archive request, in the transaction that stores its
	// draft: recorded before any call to the archive, never lost.
	if _, err := tx.ExecContext(ctx, requestFromDraftSQL, sourceID, submissionID, ts(now)); err != nil {
		return err
	}
	return settleAnswered(ctx, tx, submissionID, now)
}

// SetArchived records archived, a capture the archive stage found, as the
// archive link of the source with the canonical URL sourceURL and writes it
// into the source's case JSON (sources[].archived of the entry with that
// URL, else the first entry), replacing an older link, while the case is a
// draft: an approved or rejected case is left as it was reviewed. Errors:
// ErrInvalid for an empty argument, ErrNotFound for an unknown source.
func (s *Store) SetArchived(ctx context.Context, sourceURL, archived string) error {
	if sourceURL == "" || archived == "" {
		return casefile.Errorf(casefile.ErrInvalid, "set archive link: source url and archive link are required")
	}
	return s.inTx(ctx, fmt.Sprintf("set archive link of %s", sourceURL), func(tx *sql.Tx) error {
		now := s.now()
		var sourceID int64
		err := tx.QueryRowContext(ctx, `
			UPDATE sources SET archived = ?2, archive_state = 'archived', updated_at = ?3
			WHERE url = ?1 RETURNING id`, sourceURL, archived, ts(now)).Scan(&sourceID)
		if err != nil {
			return notFound(err, "source %s not found", sourceURL)
		}
		if _, err := tx.ExecContext(ctx, settleRequestSQL, sourceID, archived, ts(now)); err != nil {
			return err
		}
		return patchCaseArchived(ctx, tx, sourceID, sourceURL, archived, now)
	})
}

// patchCaseArchived writes the archive link into the source's case, if it
// has one and it is a draft.
func patchCaseArchived(ctx context.Context, tx *sql.Tx, sourceID int64, sourceURL, archived string, now time.Time) error {
	var id int64
	var body string
	err := tx.QueryRowContext(ctx, `SELECT id, case_json FROM cases WHERE source_id = ?1 AND status = 'draft'`, sourceID).Scan(&id, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var c casefile.Case
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return fmt.Errorf("decode case: %w", err)
	}
	if !store.PatchArchived(&c, sourceURL, archived, true) {
		return nil
	}
	c.UpdatedAt = now.Format(store.TimeFormat)
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode case: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE cases SET case_json = ?2, updated_at = ?3 WHERE id = ?1`, id, string(b), ts(now))
	return err
}

// selectCase reads a case with its timeline, selectCases without (see
// casefile.StoredCase.Timeline).
const (
	caseColumns = `
SELECT c.case_id, s.url, c.status, c.version, c.case_json, c.evidence_json, c.reject_reason,
       c.created_at, c.updated_at, c.imported_at IS NOT NULL`
	selectCase  = caseColumns + `, c.timeline_json FROM cases c JOIN sources s ON s.id = c.source_id`
	selectCases = caseColumns + `, NULL FROM cases c JOIN sources s ON s.id = c.source_id`
)

func scanCase(row scanner) (casefile.StoredCase, error) {
	var sc casefile.StoredCase
	var status, body, evidence, created, updated string
	var timeline []byte
	err := row.Scan(&sc.ID, &sc.SourceURL, &status, &sc.Version, &body, &evidence, &sc.RejectReason,
		&created, &updated, &sc.Imported, &timeline)
	if err != nil {
		return sc, err
	}
	sc.Status = casefile.CaseStatus(status)
	if sc.CreatedAt, err = parseTS(created); err != nil {
		return sc, err
	}
	if sc.UpdatedAt, err = parseTS(updated); err != nil {
		return sc, err
	}
	if err := json.Unmarshal([]byte(body), &sc.Case); err != nil {
		return sc, fmt.Errorf("decode case %s: %w", sc.ID, err)
	}
	if err := json.Unmarshal([]byte(evidence), &sc.Evidence); err != nil {
		return sc, fmt.Errorf("decode evidence of case %s: %w", sc.ID, err)
	}
	if timeline != nil {
		if sc.Timeline, err = store.DecodeTimeline(timeline, sc.ID); err != nil {
			return sc, err
		}
	}
	return sc, nil
}

// Case returns the case with the IL id, or an ErrNotFound error.
func (s *Store) Case(ctx context.Context, id string) (casefile.StoredCase, error) {
	var sc casefile.StoredCase
	err := s.read(ctx, fmt.Sprintf("read case %s", id), func(q querier) error {
		var err error
		sc, err = scanCase(q.QueryRowContext(ctx, selectCase+` WHERE c.case_id = ?1`, id))
		return notFound(err, "case %s not found", id)
	})
	return sc, err
}

// SetStatus records a review decision on version of the case with the IL
// id: approved and rejected set review.reviewed_by (reviewer, null when
// empty) and review.reviewed_at in the case JSON, draft reopens the case and
// clears them. reason is kept as the reject reason when rejecting and
// ignored otherwise. Errors: ErrInvalid for an unknown status or no
// version, ErrNotFound for an unknown case, ErrConflict when version is not
// the case's current version (a newer draft arrived since it was read).
func (s *Store) SetStatus(ctx context.Context, id string, version int, status casefile.CaseStatus, reviewer, reason string) error {
	if err := store.CheckStatus(status); err != nil {
		return err
	}
	if status != casefile.CaseRejected {
		reason = ""
	}
	return s.inTx(ctx, fmt.Sprintf("set status of case %s", id), func(tx *sql.Tx) error {
		now := s.now()
		var rowID int64
		var body, oldStatus, oldReason string
		var current int
		err := tx.QueryRowContext(ctx, `SELECT id, case_json, version, status, reject_reason FROM cases WHERE case_id = ?1`, id).
			Scan(&rowID, &body, &current, &oldStatus, &oldReason)
		if err != nil {
			return notFound(err, "case %s not found", id)
		}
		if err := store.CheckVersion(id, current, version); err != nil {
			return err
		}
		var c casefile.Case
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			return fmt.Errorf("decode case: %w", err)
		}
		store.PatchReview(&c, status, reviewer, now)
		c.UpdatedAt = now.Format(store.TimeFormat)
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		changes := store.StatusChanges(casefile.CaseStatus(oldStatus), status, oldReason, reason)
		if err := recordChanges(ctx, tx, rowID, current, reviewer, changes, now); err != nil {
			return err
		}
		var reviewedAt any
		if status != casefile.CaseDraft {
			reviewedAt = ts(now)
		} else {
			reviewer = ""
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE cases SET status = ?2, case_json = ?3, reviewed_by = ?4, reviewed_at = ?5,
				reject_reason = ?6, updated_at = ?7
			WHERE id = ?1`, rowID, string(status), string(b), reviewer, reviewedAt, reason, ts(now))
		return err
	})
}

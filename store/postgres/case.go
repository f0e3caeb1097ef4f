package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

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
// answers are marked drafted. Concurrent calls
// for one source make one case: the source row is locked first. Errors:
// ErrNotFound for an unknown submission, ErrTransient when the database is
// unreachable.
func (s *Store) SaveDraft(ctx context.Context, submissionID int64, d casefile.Draft) (casefile.SaveResult, error) {
	evidence, timeline, err := store.EncodeDraft(d)
	if err != nil {
		return casefile.SaveResult{}, fmt.Errorf("save draft of submission %d: %w", submissionID, err)
	}
	var res casefile.SaveResult
	err = s.inTx(ctx, fmt.Sprintf("save draft of submission %d", submissionID), func(tx pgx.Tx) error {
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
	err := s.inTx(ctx, fmt.Sprintf("save %d drafts", len(drafts)), func(tx pgx.Tx) error {
		out = make([]casefile.DraftSaved, len(drafts))
		return saveDrafts(ctx, tx, drafts, encoded, evidence, timeline, s.now(), out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// draftSource is what saveDrafts knows of a draft's source and its case,
// kept up to date as the batch's drafts are applied in order.
type draftSource struct {
	id                                int64
	url, archived                     string
	caseRow                           int64 // 0: no case yet
	caseID, status                    string
	version                           int
	edited                            bool
	curBody, curEvidence, curTimeline []byte
}

// saveDrafts is SaveDrafts' work inside the caller's transaction, in a
// fixed number of round trips whatever the batch's size: one batch locks
// the drafts' sources (in id order) and reads their cases, one reads the
// case numbers the new cases need, one writes everything (each case with
// its version in one statement, then the notes of saveVersion). The
// drafts are applied in order, so a second draft of a source in the batch
// sees the first.
func saveDrafts(ctx context.Context, tx pgx.Tx, drafts []casefile.DraftToSave, encoded []bool, evidence, timeline [][]byte, now time.Time, out []casefile.DraftSaved) error {
	bySub, err := lockDraftSources(ctx, tx, drafts)
	if err != nil {
		return err
	}
	numbers, err := newCaseNumbers(ctx, tx, drafts, bySub)
	if err != nil {
		return err
	}
	w := &draftWrites{batch: &pgx.Batch{}, numbers: numbers}
	for i, d := range drafts {
		if err := w.add(d, bySub[d.SubmissionID], encoded[i], evidence[i], timeline[i], now, &out[i]); err != nil {
			return err
		}
	}
	return w.send(ctx, tx, now)
}

// lockDraftSources locks the sources of the drafts' submissions (in id
// order) and reads their cases, in one batch: the sources by submission.
func lockDraftSources(ctx context.Context, tx pgx.Tx, drafts []casefile.DraftToSave) (map[int64]*draftSource, error) {
	ids := make([]int64, len(drafts))
	for i, d := range drafts {
		ids[i] = d.SubmissionID
	}
	read := &pgx.Batch{}
	read.Queue(`
		SELECT sub.id, s.id, s.url, s.archived
		FROM submissions sub JOIN sources s ON s.id = sub.source_id
		WHERE sub.id = ANY($1)
		ORDER BY s.id
		FOR UPDATE OF s`, ids)
	read.Queue(`
		SELECT source_id, id, case_id, status, version, case_json, evidence_json, timeline_json, edited_at IS NOT NULL
		FROM cases WHERE source_id IN (SELECT source_id FROM submissions WHERE id = ANY($1))
		ORDER BY source_id
		FOR UPDATE`, ids)
	br := tx.SendBatch(ctx, read)
	bySub := map[int64]*draftSource{}
	bySource := map[int64]*draftSource{}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	for rows.Next() {
		var sub int64
		src := &draftSource{}
		if err := rows.Scan(&sub, &src.id, &src.url, &src.archived); err != nil {
			rows.Close()
			br.Close()
			return nil, err
		}
		if have := bySource[src.id]; have != nil {
			src = have
		}
		bySub[sub], bySource[src.id] = src, src
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		br.Close()
		return nil, err
	}
	rows, err = br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	for rows.Next() {
		var sourceID int64
		var c draftSource
		if err := rows.Scan(&sourceID, &c.caseRow, &c.caseID, &c.status, &c.version, &c.curBody, &c.curEvidence, &c.curTimeline, &c.edited); err != nil {
			rows.Close()
			br.Close()
			return nil, err
		}
		if src := bySource[sourceID]; src != nil {
			src.caseRow, src.caseID, src.status, src.version, src.edited = c.caseRow, c.caseID, c.status, c.version, c.edited
			src.curBody, src.curEvidence, src.curTimeline = c.curBody, c.curEvidence, c.curTimeline
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		br.Close()
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	return bySub, nil

}

// newCaseNumbers reads, in one query, the case numbers of the sources
// that get their first case in this batch, in ascending order.
func newCaseNumbers(ctx context.Context, tx pgx.Tx, drafts []casefile.DraftToSave, bySub map[int64]*draftSource) ([]int64, error) {
	newCases := 0
	counted := map[int64]bool{}
	for _, d := range drafts {
		if src := bySub[d.SubmissionID]; src != nil && src.caseRow == 0 && !counted[src.id] {
			counted[src.id] = true
			newCases++
		}
	}
	if newCases == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT nextval('case_number_seq') FROM generate_series(1, $1)`, newCases)
	if err != nil {
		return nil, err
	}
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	slices.Sort(numbers)
	return numbers, nil

}

// draftWrites is the write batch of saveDrafts: its statements, which of
// them are inserts that must touch a row, the drafted notes still to queue,
// and the case numbers left for new cases.
type draftWrites struct {
	batch   *pgx.Batch
	queued  int
	inserts []int // queued statement index of each insert that must touch a row
	notes   []draftNote
	numbers []int64
}

// add queues the statements of one draft of the source src (nil: the
// submission is unknown) and fills saved.
func (w *draftWrites) add(d casefile.DraftToSave, src *draftSource, encoded bool, evidence, timeline []byte, now time.Time, saved *casefile.DraftSaved) error {
	if src == nil {
		*saved = casefile.DraftSaved{Err: fmt.Errorf("save draft of submission %d: %w", d.SubmissionID,
			casefile.Errorf(casefile.ErrNotFound, "submission %d not found", d.SubmissionID))}
		return nil
	}
	res := &saved.SaveResult
	res.CaseID = src.caseID
	c := d.Draft.Case
	queueNotes := func() { w.notes = append(w.notes, draftNote{d.SubmissionID, src.id, store.SourceKind(c, src.url)}) }
	// A reviewed case, and a draft a reviewer edited, stay as the
	// reviewer left them.
	if src.caseRow != 0 && (casefile.CaseStatus(src.status) != casefile.CaseDraft || src.edited) {
		res.Kept = true
		queueNotes()
		return nil
	}
	if src.archived == "" {
		if a := store.DraftArchived(c, src.url); a != "" {
			src.archived = a
			w.batch.Queue(`UPDATE sources SET archived = $2, archive_state = 'archived' WHERE id = $1`, src.id, a)
			w.queued++
		}
	}
	if src.caseRow == 0 {
		n := w.numbers[0]
		w.numbers = w.numbers[1:]
		res.CaseID, res.Inserted = store.CaseID(n), true
		body, err := json.Marshal(store.PrepareDraft(c, res.CaseID, src.url, src.archived, now))
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		// The case and its first version in one statement.
		w.batch.Queue(`
			WITH c AS (
				INSERT INTO cases (case_id, source_id, status, case_json, evidence_json, timeline_json, version, created_at, updated_at)
				VALUES ($1, $2, 'draft', $3, $4, $6, 1, $5, $5)
				ON CONFLICT (source_id) DO NOTHING
				RETURNING id
			)
			INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
			SELECT id, 1, $7, $3, $4, $6, $5 FROM c`, res.CaseID, src.id, body, evidence, now, timeline, d.SubmissionID)
		w.inserts = append(w.inserts, w.queued)
		w.queued++
		src.caseRow = -1 // stored in this batch; its row id is not needed
		src.caseID, src.status, src.version = res.CaseID, string(casefile.CaseDraft), 1
		src.curBody, src.curEvidence, src.curTimeline = body, evidence, timeline
		queueNotes()
		return nil
	}
	next := store.PrepareDraft(c, res.CaseID, src.url, src.archived, now)
	full := d.Draft
	if encoded {
		// Queued bytes: decoded only here, to compare with the current version.
		if err := store.DecodeEncoded(&full, evidence, timeline); err != nil {
			return casefile.Errorf(casefile.ErrInvalid, "save draft of submission %d: %w", d.SubmissionID, err)
		}
	}
	var cur casefile.Draft
	if json.Unmarshal(src.curBody, &cur.Case) == nil && json.Unmarshal(src.curEvidence, &cur.Evidence) == nil &&
		json.Unmarshal(src.curTimeline, &cur.Timeline) == nil &&
		store.SameDraft(cur, casefile.Draft{Case: next, Evidence: full.Evidence, Timeline: full.Timeline}) {
		res.Unchanged = true
		queueNotes()
		return nil
	}
	body, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("encode case: %w", err)
	}
	src.version++
	w.batch.Queue(`
		WITH c AS (
			UPDATE cases SET case_json = $2, evidence_json = $3, timeline_json = $5, version = $7, updated_at = $4
			WHERE source_id = $1 RETURNING id
		)
		INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
		SELECT id, $7, $6, $2, $3, $5, $4 FROM c`, src.id, body, evidence, now, timeline, d.SubmissionID, src.version)
	w.inserts = append(w.inserts, w.queued)
	w.queued++
	src.curBody, src.curEvidence, src.curTimeline = body, evidence, timeline
	queueNotes()
	return nil
}

// send queues the drafted notes and runs the batch in one round trip.
func (w *draftWrites) send(ctx context.Context, tx pgx.Tx, now time.Time) error {
	if len(w.notes) > 0 {
		w.queued += queueDraftedAll(w.batch, w.notes, now)
	}
	if w.queued == 0 {
		return nil
	}
	wr := tx.SendBatch(ctx, w.batch)
	defer wr.Close()
	inserts := w.inserts
	for q := 0; q < w.queued; q++ {
		ct, err := wr.Exec()
		if err != nil {
			return err
		}
		if len(inserts) > 0 && inserts[0] == q {
			inserts = inserts[1:]
			if ct.RowsAffected() != 1 {
				return errRetry // cannot happen while the source rows are locked
			}
		}
	}
	return wr.Close()
}

// saveDraft is SaveDraft's work inside the caller's transaction; its
// results are in res.
func saveDraft(ctx context.Context, tx pgx.Tx, submissionID int64, d casefile.Draft, encoded bool, evidence, timeline []byte, now time.Time, res *casefile.SaveResult) error {
	var sourceID int64
	var sourceURL, archived string
	err := tx.QueryRow(ctx, `
		SELECT s.id, s.url, s.archived
		FROM submissions sub JOIN sources s ON s.id = sub.source_id
		WHERE sub.id = $1
		FOR UPDATE OF s`, submissionID).Scan(&sourceID, &sourceURL, &archived)
	if err != nil {
		return notFound(err, "submission %d not found", submissionID)
	}

	var id int64
	var status string
	var version int
	var edited bool
	var curBody, curEvidence, curTimeline []byte
	err = tx.QueryRow(ctx, `SELECT id, case_id, status, version, case_json, evidence_json, timeline_json, edited_at IS NOT NULL FROM cases WHERE source_id = $1 FOR UPDATE`,
		sourceID).Scan(&id, &res.CaseID, &status, &version, &curBody, &curEvidence, &curTimeline, &edited)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
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
			if _, err := tx.Exec(ctx, `UPDATE sources SET archived = $2, archive_state = 'archived' WHERE id = $1`, sourceID, a); err != nil {
				return err
			}
		}
	}

	if !found {
		var n int64
		if err := tx.QueryRow(ctx, `SELECT nextval('case_number_seq')`).Scan(&n); err != nil {
			return err
		}
		res.CaseID = store.CaseID(n)
		res.Inserted = true
		body, err := json.Marshal(store.PrepareDraft(d.Case, res.CaseID, sourceURL, archived, now))
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		version = 1
		err = tx.QueryRow(ctx, `
			INSERT INTO cases (case_id, source_id, status, case_json, evidence_json, timeline_json, version, created_at, updated_at)
			VALUES ($1, $2, 'draft', $3, $4, $6, 1, $5, $5)
			ON CONFLICT (source_id) DO NOTHING
			RETURNING id`, res.CaseID, sourceID, body, evidence, now, timeline).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return errRetry // cannot happen while the source row is locked
		}
		if err != nil {
			return err
		}
		return saveVersion(ctx, tx, id, version, submissionID, body, evidence, timeline, sourceID, d.Case, sourceURL, now)
	}

	next := store.PrepareDraft(d.Case, res.CaseID, sourceURL, archived, now)
	if encoded {
		// Queued bytes: decoded only here, to compare with the current version.
		if err := store.DecodeEncoded(&d, evidence, timeline); err != nil {
			return casefile.Errorf(casefile.ErrInvalid, "save draft of submission %d: %w", submissionID, err)
		}
	}
	var cur casefile.Draft
	if json.Unmarshal(curBody, &cur.Case) == nil && json.Unmarshal(curEvidence, &cur.Evidence) == nil &&
		json.Unmarshal(curTimeline, &cur.Timeline) == nil &&
		store.SameDraft(cur, casefile.Draft{Case: next, Evidence: d.Evidence, Timeline: d.Timeline}) {
		res.Unchanged = true
		return noteDrafted(ctx, tx, submissionID, sourceID, d.Case, sourceURL, now)
	}
	body, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("encode case: %w", err)
	}
	err = tx.QueryRow(ctx, `
		UPDATE cases SET case_json = $2, evidence_json = $3, timeline_json = $5, version = version + 1, updated_at = $4
		WHERE id = $1 RETURNING version`, id, body, evidence, now, timeline).Scan(&version)
	if err != nil {
		return err
	}
	return saveVersion(ctx, tx, id, version, submissionID, body, evidence, timeline, sourceID, d.Case, sourceURL, now)
}

// saveVersion records a stored draft as a version of its case, notes the
// fetch on the source and marks the submission drafted, all in one round
// trip.
func saveVersion(ctx context.Context, tx pgx.Tx, caseRowID int64, version int, submissionID int64, body, evidence, timeline []byte,
	sourceID int64, c casefile.Case, sourceURL string, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`
		INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
		VALUES ($1, $2, $3, $4, $5, $7, $6)`, caseRowID, version, submissionID, body, evidence, now, timeline)
	queueDrafted(b, submissionID, sourceID, c, sourceURL, now)
	return tx.SendBatch(ctx, b).Close()
}

// noteDrafted records that the source's page was read and marks the
// submission, and the open ones it answers, drafted.
func noteDrafted(ctx context.Context, tx pgx.Tx, submissionID, sourceID int64, c casefile.Case, sourceURL string, now time.Time) error {
	b := &pgx.Batch{}
	queueDrafted(b, submissionID, sourceID, c, sourceURL, now)
	return tx.SendBatch(ctx, b).Close()
}

// queueDrafted adds noteDrafted's statements to b, which sends them in one
// round trip (they run in order).
func queueDrafted(b *pgx.Batch, submissionID, sourceID int64, c casefile.Case, sourceURL string, now time.Time) {
	b.Queue(`
		UPDATE sources SET kind = CASE WHEN $2::text <> '' THEN $2::text ELSE kind END,
			fetch_state = 'fetched', last_fetched_at = $3, updated_at = $3
		WHERE id = $1`, sourceID, store.SourceKind(c, sourceURL), now)
	b.Queue(`UPDATE submissions SET state = 'drafted', error = '', updated_at = $2 WHERE id = $1`, submissionID, now)
	// The source's archive request, in the transaction that stores its
	// draft: recorded before any call to the archive, never lost.
	b.Queue(requestFromDraftSQL, sourceID, submissionID, now)
	b.Queue(settleAnsweredSQL, submissionID, now)
}

// draftNote is a stored draft's submission and source, for queueDraftedAll.
type draftNote struct {
	submissionID, sourceID int64
	kind                   string
}

// queueDraftedAll adds queueDrafted's statements for all the notes to b,
// each statement once for all of them (in the notes' order: a source's
// kind from its last draft, its archive request from its first), and
// returns how many it queued.
func queueDraftedAll(b *pgx.Batch, notes []draftNote, now time.Time) int {
	var srcIDs, reqSrc, reqSub, subIDs []int64
	var kinds []string
	kindAt := map[int64]int{}
	requested := map[int64]bool{}
	for _, n := range notes {
		if i, ok := kindAt[n.sourceID]; ok {
			kinds[i] = n.kind
		} else {
			kindAt[n.sourceID] = len(srcIDs)
			srcIDs, kinds = append(srcIDs, n.sourceID), append(kinds, n.kind)
		}
		if !requested[n.sourceID] {
			requested[n.sourceID] = true
			reqSrc, reqSub = append(reqSrc, n.sourceID), append(reqSub, n.submissionID)
		}
		subIDs = append(subIDs, n.submissionID)
	}
	b.Queue(`
		UPDATE sources s SET kind = CASE WHEN v.kind <> '' THEN v.kind ELSE s.kind END,
			fetch_state = 'fetched', last_fetched_at = $3, updated_at = $3
		FROM unnest($1::bigint[], $2::text[]) AS v(id, kind)
		WHERE s.id = v.id`, srcIDs, kinds, now)
	b.Queue(`UPDATE submissions SET state = 'drafted', error = '', updated_at = $2 WHERE id = ANY($1)`, subIDs, now)
	b.Queue(requestsFromDraftsSQL, reqSrc, reqSub, now)
	b.Queue(settleAnsweredAllSQL, subIDs, now)
	return 4
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
	return s.inTx(ctx, fmt.Sprintf("set archive link of %s", sourceURL), func(tx pgx.Tx) error {
		now := s.now()
		var sourceID int64
		err := tx.QueryRow(ctx, `
			UPDATE sources SET archived = $2, archive_state = 'archived', updated_at = $3
			WHERE url = $1 RETURNING id`, sourceURL, archived, now).Scan(&sourceID)
		if err != nil {
			return notFound(err, "source %s not found", sourceURL)
		}
		if _, err := tx.Exec(ctx, settleRequestSQL, sourceID, archived, now); err != nil {
			return err
		}
		return s.patchCaseArchived(ctx, tx, sourceID, sourceURL, archived, now)
	})
}

// patchCaseArchived writes the archive link into the source's case, if it
// has one and it is a draft.
func (s *Store) patchCaseArchived(ctx context.Context, tx pgx.Tx, sourceID int64, sourceURL, archived string, now time.Time) error {
	var id int64
	var body []byte
	err := tx.QueryRow(ctx, `SELECT id, case_json FROM cases WHERE source_id = $1 AND status = 'draft' FOR UPDATE`, sourceID).Scan(&id, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var c casefile.Case
	if err := json.Unmarshal(body, &c); err != nil {
		return fmt.Errorf("decode case: %w", err)
	}
	if !store.PatchArchived(&c, sourceURL, archived, true) {
		return nil
	}
	c.UpdatedAt = now.Format(store.TimeFormat)
	if body, err = json.Marshal(c); err != nil {
		return fmt.Errorf("encode case: %w", err)
	}
	_, err = tx.Exec(ctx, `UPDATE cases SET case_json = $2, updated_at = $3 WHERE id = $1`, id, body, now)
	return err
}

// selectCase reads a case with its timeline, selectCases without (see
// casefile.StoredCase.Timeline).
const (
	caseColumns = `
SELECT c.case_id, s.url, c.status, c.version, c.case_json, c.evidence_json, c.reject_reason,
       c.created_at, c.updated_at, c.imported_at IS NOT NULL`
	selectCase  = caseColumns + `, c.timeline_json FROM cases c JOIN sources s ON s.id = c.source_id`
	selectCases = caseColumns + `, NULL::jsonb FROM cases c JOIN sources s ON s.id = c.source_id`
)

func scanCase(row pgx.Row) (casefile.StoredCase, error) {
	var sc casefile.StoredCase
	var status string
	var body, evidence, timeline []byte
	err := row.Scan(&sc.ID, &sc.SourceURL, &status, &sc.Version, &body, &evidence, &sc.RejectReason,
		&sc.CreatedAt, &sc.UpdatedAt, &sc.Imported, &timeline)
	if err != nil {
		return sc, err
	}
	sc.Status = casefile.CaseStatus(status)
	sc.CreatedAt = sc.CreatedAt.UTC()
	sc.UpdatedAt = sc.UpdatedAt.UTC()
	if err := json.Unmarshal(body, &sc.Case); err != nil {
		return sc, fmt.Errorf("decode case %s: %w", sc.ID, err)
	}
	if err := json.Unmarshal(evidence, &sc.Evidence); err != nil {
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
		sc, err = scanCase(q.QueryRow(ctx, selectCase+` WHERE c.case_id = $1`, id))
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
	return s.inTx(ctx, fmt.Sprintf("set status of case %s", id), func(tx pgx.Tx) error {
		now := s.now()
		var rowID int64
		var body []byte
		var oldStatus, oldReason string
		var current int
		err := tx.QueryRow(ctx, `SELECT id, case_json, version, status, reject_reason FROM cases WHERE case_id = $1 FOR UPDATE`, id).
			Scan(&rowID, &body, &current, &oldStatus, &oldReason)
		if err != nil {
			return notFound(err, "case %s not found", id)
		}
		if err := store.CheckVersion(id, current, version); err != nil {
			return err
		}
		var c casefile.Case
		if err := json.Unmarshal(body, &c); err != nil {
			return fmt.Errorf("decode case: %w", err)
		}
		store.PatchReview(&c, status, reviewer, now)
		c.UpdatedAt = now.Format(store.TimeFormat)
		if body, err = json.Marshal(c); err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		changes := store.StatusChanges(casefile.CaseStatus(oldStatus), status, oldReason, reason)
		if err := recordChanges(ctx, tx, rowID, current, reviewer, changes, now); err != nil {
			return err
		}
		var reviewedAt *time.Time
		if status != casefile.CaseDraft {
			reviewedAt = &now
		} else {
			reviewer = ""
		}
		_, err = tx.Exec(ctx, `
			UPDATE cases SET status = $2, case_json = $3, reviewed_by = $4, reviewed_at = $5,
				reject_reason = $6, updated_at = $7
			WHERE id = $1`, rowID, string(status), body, reviewer, reviewedAt, reason, now)
		return err
	})
}

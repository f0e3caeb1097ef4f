package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

var _ casefile.PageStore = (*Store)(nil)

// SavePage stores p as the latest fetch of the source with the canonical
// URL sourceURL, replacing the one before; its body and related resources
// are stored under their hashes, each once. Errors: ErrInvalid for a page
// without a source URL or fetch time, ErrNotFound for an unknown source.
func (s *Store) SavePage(ctx context.Context, sourceURL string, p casefile.Page, extractor string) (casefile.PageSaved, error) {
	if err := store.CheckPage(sourceURL, p); err != nil {
		return casefile.PageSaved{}, err
	}
	bodies, extra, err := store.PageBodies(p)
	if err != nil {
		return casefile.PageSaved{}, err
	}
	extraJSON, _ := json.Marshal(extra)
	var res casefile.PageSaved
	err = s.inTx(ctx, fmt.Sprintf("save page of %s", sourceURL), func(tx pgx.Tx) error {
		res = casefile.PageSaved{BodyHash: bodies[0].Hash}
		var sourceID int64
		if err := tx.QueryRow(ctx, `SELECT id FROM sources WHERE url = $1`, sourceURL).Scan(&sourceID); err != nil {
			return notFound(err, "source %s not found", sourceURL)
		}
		now := s.now()
		for _, b := range bodies {
			r, err := tx.Exec(ctx, `INSERT INTO page_bodies (hash, body, size, created_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (hash) DO NOTHING`, b.Hash, b.Gzip, b.Size, now)
			if err != nil {
				return err
			}
			if r.RowsAffected() > 0 {
				res.NewBodies++
			}
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO pages (source_id, url, final_url, content_type, charset, status_code, etag, last_modified,
				fetched_at, body_hash, extra_json, extractor)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			ON CONFLICT (source_id) DO UPDATE SET url = excluded.url, final_url = excluded.final_url,
				content_type = excluded.content_type, charset = excluded.charset, status_code = excluded.status_code,
				etag = excluded.etag, last_modified = excluded.last_modified, fetched_at = excluded.fetched_at,
				body_hash = excluded.body_hash, extra_json = excluded.extra_json, extractor = excluded.extractor`,
			sourceID, p.URL, p.FinalURL, p.ContentType, p.Charset, p.StatusCode, p.ETag, p.LastModified,
			p.FetchedAt, bodies[0].Hash, string(extraJSON), extractor)
		return err
	})
	return res, err
}

// Page returns the latest stored fetch of the source, its bodies
// decompressed; ErrNotFound when none is stored.
func (s *Store) Page(ctx context.Context, sourceURL string) (casefile.StoredPage, error) {
	var sp casefile.StoredPage
	err := s.read(ctx, fmt.Sprintf("read page of %s", sourceURL), func(q querier) error {
		sp = casefile.StoredPage{SourceURL: sourceURL}
		var extraJSON string
		var gz []byte
		var size int
		p := &sp.Page
		err := q.QueryRow(ctx, `
			SELECT p.url, p.final_url, p.content_type, p.charset, p.status_code, p.etag, p.last_modified, p.fetched_at,
				p.body_hash, p.extra_json, p.extractor, b.body, b.size
			FROM pages p JOIN sources s ON s.id = p.source_id JOIN page_bodies b ON b.hash = p.body_hash
			WHERE s.url = $1`, sourceURL).Scan(&p.URL, &p.FinalURL, &p.ContentType, &p.Charset, &p.StatusCode, &p.ETag,
			&p.LastModified, &p.FetchedAt, &sp.BodyHash, &extraJSON, &sp.Extractor, &gz, &size)
		if err != nil {
			return notFound(err, "no stored page of %s", sourceURL)
		}
		if p.Body, err = store.DecompressBody(sp.BodyHash, gz, size); err != nil {
			return err
		}
		return readExtras(ctx, q, p, extraJSON)
	})
	return sp, err
}

// readExtras restores a page's related resources from their hashes.
func readExtras(ctx context.Context, q querier, p *casefile.Page, extraJSON string) error {
	var extra map[string]string
	if err := json.Unmarshal([]byte(extraJSON), &extra); err != nil {
		return fmt.Errorf("decode related resources: %w", err)
	}
	for u, hash := range extra {
		var gz []byte
		var size int
		if err := q.QueryRow(ctx, `SELECT body, size FROM page_bodies WHERE hash = $1`, hash).Scan(&gz, &size); err != nil {
			return fmt.Errorf("read related resource %s: %w", u, err)
		}
		b, err := store.DecompressBody(hash, gz, size)
		if err != nil {
			return err
		}
		if p.Extra == nil {
			p.Extra = map[string][]byte{}
		}
		p.Extra[u] = b
	}
	return nil
}

// PageURLs lists the canonical URLs of the stored pages f selects.
func (s *Store) PageURLs(ctx context.Context, f casefile.PageFilter) ([]string, error) {
	var args []any
	where := store.PageQuery(f, func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	})
	var out []string
	err := s.read(ctx, "list stored pages", func(q querier) error {
		out = nil
		rows, err := q.Query(ctx, `SELECT s.url FROM pages p JOIN sources s ON s.id = p.source_id
			LEFT JOIN cases c ON c.source_id = p.source_id`+where+` ORDER BY p.source_id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				return err
			}
			out = append(out, u)
		}
		return rows.Err()
	})
	return out, err
}

// PrunePages drops the pages fetched before fetchedBefore and the bodies
// no remaining page uses.
func (s *Store) PrunePages(ctx context.Context, fetchedBefore time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, "prune stored pages", func(tx pgx.Tx) error {
		r, err := tx.Exec(ctx, `DELETE FROM pages WHERE fetched_at < $1`, fetchedBefore)
		if err != nil {
			return err
		}
		n = r.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM page_bodies WHERE hash NOT IN (SELECT body_hash FROM pages)
			AND hash NOT IN (SELECT e.value FROM pages, jsonb_each_text(pages.extra_json) e)`)
		return err
	})
	return int(n), err
}

// SaveRedraft stores a re-draft of the source's page (see
// casefile.PageStore and store.DecideRedraft).
func (s *Store) SaveRedraft(ctx context.Context, sourceURL string, d casefile.Draft) (casefile.RedraftResult, error) {
	evidence, timeline, err := store.EncodeDraft(d)
	if err != nil {
		return casefile.RedraftResult{}, fmt.Errorf("save re-draft of %s: %w", sourceURL, err)
	}
	var res casefile.RedraftResult
	err = s.inTx(ctx, fmt.Sprintf("save re-draft of %s", sourceURL), func(tx pgx.Tx) error {
		res = casefile.RedraftResult{}
		return saveRedraft(ctx, tx, sourceURL, d, evidence, timeline, s.now(), &res)
	})
	return res, err
}

func saveRedraft(ctx context.Context, tx pgx.Tx, sourceURL string, d casefile.Draft, evidence, timeline []byte, now time.Time, res *casefile.RedraftResult) error {
	var sourceID int64
	var archived string
	if err := tx.QueryRow(ctx, `SELECT id, archived FROM sources WHERE url = $1 FOR UPDATE`, sourceURL).Scan(&sourceID, &archived); err != nil {
		return notFound(err, "source %s not found", sourceURL)
	}
	st, rowID, version, err := redraftState(ctx, tx, sourceID, res)
	if err != nil {
		return err
	}
	if archived == "" {
		archived = store.DraftArchived(d.Case, sourceURL)
	}
	next := d
	next.Case = store.PrepareDraft(d.Case, res.CaseID, sourceURL, archived, now)
	switch store.DecideRedraft(st, next) {
	case store.RedraftNothing:
		return nil
	case store.RedraftInsert:
		var n int64
		if err := tx.QueryRow(ctx, `SELECT nextval('case_number_seq')`).Scan(&n); err != nil {
			return fmt.Errorf("next case number: %w", err)
		}
		res.CaseID, res.Inserted, version = store.CaseID(n), true, 1
		next.Case.ID = res.CaseID
		body, _ := json.Marshal(next.Case)
		err := tx.QueryRow(ctx, `
			INSERT INTO cases (case_id, source_id, status, case_json, evidence_json, timeline_json, version, created_at, updated_at)
			VALUES ($1, $2, 'draft', $3, $4, $6, 1, $5, $5) RETURNING id`,
			res.CaseID, sourceID, string(body), string(evidence), now, string(timeline)).Scan(&rowID)
		if err != nil {
			return err
		}
		res.Changed = true
		return insertRedraftVersion(ctx, tx, rowID, version, body, evidence, timeline, now)
	case store.RedraftNewVersion:
		body, _ := json.Marshal(next.Case)
		err := tx.QueryRow(ctx, `
			UPDATE cases SET case_json = $2, evidence_json = $3, timeline_json = $5, version = version + 1, updated_at = $4
			WHERE id = $1 RETURNING version`, rowID, string(body), string(evidence), now, string(timeline)).Scan(&version)
		if err != nil {
			return err
		}
		res.Changed = true
		return insertRedraftVersion(ctx, tx, rowID, version, body, evidence, timeline, now)
	default:
		body, _ := json.Marshal(next.Case)
		_, err := tx.Exec(ctx, `
			INSERT INTO case_proposals (case_id, state, case_json, evidence_json, timeline_json, base_version, created_at)
			VALUES ($1, 'open', $2, $3, $4, $5, $6)
			ON CONFLICT (case_id) DO UPDATE SET state = 'open', case_json = excluded.case_json,
				evidence_json = excluded.evidence_json, timeline_json = excluded.timeline_json,
				base_version = excluded.base_version, created_at = excluded.created_at`,
			rowID, string(body), string(evidence), string(timeline), version, now)
		res.Changed, res.Proposed = true, true
		return err
	}
}

// insertRedraftVersion records a re-draft as a version of its case (a
// version without a submission: no fetch made it).
func insertRedraftVersion(ctx context.Context, tx pgx.Tx, rowID int64, version int, body, evidence, timeline []byte, now time.Time) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
		VALUES ($1, $2, NULL, $3, $4, $5, $6)`, rowID, version, string(body), string(evidence), string(timeline), now)
	return err
}

// redraftState reads what DecideRedraft needs of the source's case.
func redraftState(ctx context.Context, tx pgx.Tx, sourceID int64, res *casefile.RedraftResult) (st store.RedraftState, rowID int64, version int, err error) {
	var status, body, evidence, timeline string
	err = tx.QueryRow(ctx, `SELECT id, case_id, status, version, case_json, evidence_json, timeline_json, edited_at IS NOT NULL
		FROM cases WHERE source_id = $1 FOR UPDATE`, sourceID).Scan(&rowID, &res.CaseID, &status, &version, &body, &evidence, &timeline, &st.Edited)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, 0, 0, nil
	}
	if err != nil {
		return st, 0, 0, err
	}
	st.Found, st.Status = true, casefile.CaseStatus(status)
	if st.Current, err = store.DecodeDraft(body, evidence, timeline); err != nil {
		return st, 0, 0, err
	}
	if st.Status == casefile.CaseDraft && !st.Edited {
		return st, rowID, version, nil
	}
	err = tx.QueryRow(ctx, `SELECT case_json, evidence_json, timeline_json FROM case_proposals WHERE case_id = $1`, rowID).Scan(&body, &evidence, &timeline)
	if err == nil {
		p, err := store.DecodeDraft(body, evidence, timeline)
		if err != nil {
			return st, 0, 0, err
		}
		st.Proposal = &p
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return st, 0, 0, err
	}
	err = tx.QueryRow(ctx, `SELECT case_json, evidence_json, timeline_json FROM case_versions
		WHERE case_id = $1 AND submission_id IS NOT NULL ORDER BY version DESC LIMIT 1`, rowID).Scan(&body, &evidence, &timeline)
	if err == nil {
		p, err := store.DecodeDraft(body, evidence, timeline)
		if err != nil {
			return st, 0, 0, err
		}
		st.LastDrafted = &p
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return st, 0, 0, err
	}
	return st, rowID, version, nil
}

// Proposal returns the open proposal of the case with the IL id.
func (s *Store) Proposal(ctx context.Context, caseID string) (casefile.Proposal, error) {
	var p casefile.Proposal
	err := s.read(ctx, fmt.Sprintf("read proposal of case %s", caseID), func(q querier) error {
		var body, evidence, timeline string
		err := q.QueryRow(ctx, `SELECT pr.case_json, pr.evidence_json, pr.timeline_json, pr.base_version, pr.created_at
			FROM case_proposals pr JOIN cases c ON c.id = pr.case_id WHERE c.case_id = $1 AND pr.state = 'open'`, caseID).
			Scan(&body, &evidence, &timeline, &p.BaseVersion, &p.CreatedAt)
		if err != nil {
			return notFound(err, "case %s has no open proposal", caseID)
		}
		p.CaseID = caseID
		p.Draft, err = store.DecodeDraft(body, evidence, timeline)
		return err
	})
	return p, err
}

// DismissProposal closes the case's open proposal.
func (s *Store) DismissProposal(ctx context.Context, caseID string) error {
	return s.inTx(ctx, fmt.Sprintf("dismiss proposal of case %s", caseID), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE case_proposals SET state = 'dismissed'
			WHERE case_id = (SELECT id FROM cases WHERE case_id = $1)`, caseID)
		return err
	})
}

// StartRedraft records a re-draft batch, each source queued; sources
// without a row are skipped.
func (s *Store) StartRedraft(ctx context.Context, batch string, sourceURLs []string) error {
	if batch == "" {
		return casefile.Errorf(casefile.ErrInvalid, "start re-draft: the batch has no name")
	}
	return s.inTx(ctx, fmt.Sprintf("start re-draft %s", batch), func(tx pgx.Tx) error {
		now := s.now()
		for _, u := range sourceURLs {
			_, err := tx.Exec(ctx, `INSERT INTO redraft_jobs (batch, source_id, updated_at)
				SELECT $1, id, $3 FROM sources WHERE url = $2 ON CONFLICT (batch, source_id) DO NOTHING`, batch, u, now)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// EndRedraftJob records one page's outcome and notes the extractor on the
// stored page.
func (s *Store) EndRedraftJob(ctx context.Context, batch string, job casefile.RedraftJob, extractor string) error {
	return s.inTx(ctx, fmt.Sprintf("end re-draft of %s", job.SourceURL), func(tx pgx.Tx) error {
		var sourceID int64
		if err := tx.QueryRow(ctx, `SELECT id FROM sources WHERE url = $1`, job.SourceURL).Scan(&sourceID); err != nil {
			return notFound(err, "source %s not found", job.SourceURL)
		}
		if job.Outcome != casefile.RedraftFailed && extractor != "" {
			if _, err := tx.Exec(ctx, `UPDATE pages SET extractor = $2 WHERE source_id = $1`, sourceID, extractor); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO redraft_jobs (batch, source_id, outcome, reason, case_id, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (batch, source_id) DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason,
				case_id = excluded.case_id, updated_at = excluded.updated_at`,
			batch, sourceID, string(job.Outcome), job.Reason, job.CaseID, s.now())
		return err
	})
}

// RedraftReport returns where a batch stands; ErrNotFound for an unknown
// batch.
func (s *Store) RedraftReport(ctx context.Context, batch string) (casefile.RedraftReport, error) {
	var rep casefile.RedraftReport
	err := s.read(ctx, fmt.Sprintf("read re-draft %s", batch), func(q querier) error {
		rep = casefile.RedraftReport{Batch: batch, Counts: map[casefile.RedraftOutcome]int{}}
		rows, err := q.Query(ctx, `SELECT s.url, j.outcome, j.reason, j.case_id FROM redraft_jobs j
			JOIN sources s ON s.id = j.source_id WHERE j.batch = $1 ORDER BY j.source_id`, batch)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j casefile.RedraftJob
			var outcome string
			if err := rows.Scan(&j.SourceURL, &outcome, &j.Reason, &j.CaseID); err != nil {
				return err
			}
			j.Outcome = casefile.RedraftOutcome(outcome)
			rep.Counts[j.Outcome]++
			if j.Outcome == casefile.RedraftRefused || j.Outcome == casefile.RedraftFailed {
				rep.Problems = append(rep.Problems, j)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(rep.Counts) == 0 {
			return casefile.Errorf(casefile.ErrNotFound, "no re-draft batch %s", batch)
		}
		return nil
	})
	return rep, err
}

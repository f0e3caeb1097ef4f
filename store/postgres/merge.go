package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// MergeCase merges the draft from into the case into as another source,
// as casefile.Store describes, and returns into as it is now. Both rows
// are locked in id order, so that two merges never wait on each other.
func (s *Store) MergeCase(ctx context.Context, from string, fromVersion int, into string, intoVersion int, reviewer string) (casefile.StoredCase, error) {
	var out casefile.StoredCase
	err := s.inTx(ctx, fmt.Sprintf("merge case %s into %s", from, into), func(tx pgx.Tx) error {
		now := s.now()
		type row struct {
			id      int64
			body    []byte
			status  string
			version int
			reason  string
		}
		rows := map[string]*row{}
		rs, err := tx.Query(ctx, `SELECT case_id, id, case_json, status, version, reject_reason FROM cases
			WHERE case_id = ANY($1) ORDER BY id FOR UPDATE`, []string{from, into})
		if err != nil {
			return err
		}
		for rs.Next() {
			var id string
			r := &row{}
			if err := rs.Scan(&id, &r.id, &r.body, &r.status, &r.version, &r.reason); err != nil {
				rs.Close()
				return err
			}
			rows[id] = r
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		for _, id := range []string{from, into} {
			if rows[id] == nil {
				return casefile.Errorf(casefile.ErrNotFound, "case %s not found", id)
			}
		}
		f, t := rows[from], rows[into]
		if err := store.CheckVersion(from, f.version, fromVersion); err != nil {
			return err
		}
		if err := store.CheckVersion(into, t.version, intoVersion); err != nil {
			return err
		}
		if err := store.CheckMerge(from, casefile.CaseStatus(f.status), into, casefile.CaseStatus(t.status)); err != nil {
			return err
		}
		var fc, tc casefile.Case
		if err := json.Unmarshal(f.body, &fc); err != nil {
			return fmt.Errorf("decode case %s: %w", from, err)
		}
		if err := json.Unmarshal(t.body, &tc); err != nil {
			return fmt.Errorf("decode case %s: %w", into, err)
		}

		// into: the new sources, as a new version.
		if merged, change, changed := store.MergeSources(tc, fc); changed {
			merged.UpdatedAt = now.Format(store.TimeFormat)
			b, err := json.Marshal(merged)
			if err != nil {
				return fmt.Errorf("encode case: %w", err)
			}
			var version int
			err = tx.QueryRow(ctx, `
				UPDATE cases SET case_json = $2, version = version + 1, edited_at = $3, updated_at = $3
				WHERE id = $1 RETURNING version`, t.id, b, now).Scan(&version)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `
				INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
				SELECT id, version, NULL, case_json, evidence_json, timeline_json, $2 FROM cases WHERE id = $1`, t.id, now)
			if err != nil {
				return err
			}
			if err := recordChanges(ctx, tx, t.id, version, reviewer, []casefile.FieldChange{change}, now); err != nil {
				return err
			}
		}

		// from: rejected as merged.
		reason := store.MergedReason(into)
		store.PatchReview(&fc, casefile.CaseRejected, reviewer, now)
		fc.UpdatedAt = now.Format(store.TimeFormat)
		b, err := json.Marshal(fc)
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		changes := store.StatusChanges(casefile.CaseStatus(f.status), casefile.CaseRejected, f.reason, reason)
		if err := recordChanges(ctx, tx, f.id, f.version, reviewer, changes, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			UPDATE cases SET status = 'rejected', case_json = $2, reviewed_by = $3, reviewed_at = $4, reject_reason = $5, updated_at = $4
			WHERE id = $1`, f.id, b, reviewer, now, reason)
		if err != nil {
			return err
		}
		out, err = scanCase(tx.QueryRow(ctx, selectCase+` WHERE c.id = $1`, t.id))
		return err
	})
	return out, err
}

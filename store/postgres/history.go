package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// EditCase applies a reviewer's edit to version of the draft case with
// the IL id, as casefile.Store describes: a new version (kept in
// case_versions without a submission), one history entry per changed
// field, and edited_at set so that re-drafts leave the case alone.
func (s *Store) EditCase(ctx context.Context, id string, version int, reviewer string,
	edit func(casefile.Draft) (casefile.Draft, []casefile.FieldChange, error)) (casefile.StoredCase, error) {
	var out casefile.StoredCase
	err := s.inTx(ctx, fmt.Sprintf("edit case %s", id), func(tx pgx.Tx) error {
		now := s.now()
		var rowID int64
		var body, timeline []byte
		var status string
		var current int
		err := tx.QueryRow(ctx, `SELECT id, case_json, status, version, timeline_json FROM cases WHERE case_id = $1 FOR UPDATE`, id).
			Scan(&rowID, &body, &status, &current, &timeline)
		if err != nil {
			return notFound(err, "case %s not found", id)
		}
		if err := store.CheckVersion(id, current, version); err != nil {
			return err
		}
		if err := store.CheckEdit(id, casefile.CaseStatus(status)); err != nil {
			return err
		}
		var d casefile.Draft
		if err := json.Unmarshal(body, &d.Case); err != nil {
			return fmt.Errorf("decode case: %w", err)
		}
		if d.Timeline, err = store.DecodeTimeline(timeline, id); err != nil {
			return err
		}
		next, changes, err := store.ApplyEdit(d, edit, now)
		if err != nil {
			return err
		}
		if len(changes) > 0 {
			b, err := json.Marshal(next.Case)
			if err != nil {
				return fmt.Errorf("encode case: %w", err)
			}
			_, tl, err := store.EncodeDraft(next)
			if err != nil {
				return err
			}
			err = tx.QueryRow(ctx, `
				UPDATE cases SET case_json = $2, timeline_json = $4, version = version + 1, edited_at = $3, updated_at = $3
				WHERE id = $1 RETURNING version`, rowID, b, now, tl).Scan(&current)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `
				INSERT INTO case_versions (case_id, version, submission_id, case_json, evidence_json, timeline_json, created_at)
				SELECT id, version, NULL, case_json, evidence_json, timeline_json, $2 FROM cases WHERE id = $1`, rowID, now)
			if err != nil {
				return err
			}
			if err := recordChanges(ctx, tx, rowID, current, reviewer, changes, now); err != nil {
				return err
			}
		}
		out, err = scanCase(tx.QueryRow(ctx, selectCase+` WHERE c.id = $1`, rowID))
		return err
	})
	return out, err
}

// recordChanges writes history entries for one version of a case.
func recordChanges(ctx context.Context, tx pgx.Tx, caseRowID int64, version int, by string, changes []casefile.FieldChange, now time.Time) error {
	for _, ch := range changes {
		_, err := tx.Exec(ctx, `
			INSERT INTO case_history (case_id, version, field, old_value, new_value, changed_by, changed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, caseRowID, version, ch.Field, string(ch.Old), string(ch.New), by, now)
		if err != nil {
			return fmt.Errorf("record history: %w", err)
		}
	}
	return nil
}

// History lists the changes of the case with the IL id, oldest first.
func (s *Store) History(ctx context.Context, id string) ([]casefile.Change, error) {
	var out []casefile.Change
	err := s.read(ctx, fmt.Sprintf("read history of case %s", id), func(q querier) error {
		out = []casefile.Change{}
		var rowID int64
		if err := q.QueryRow(ctx, `SELECT id FROM cases WHERE case_id = $1`, id).Scan(&rowID); err != nil {
			return notFound(err, "case %s not found", id)
		}
		rows, err := q.Query(ctx, `
			SELECT version, field, old_value::text, new_value::text, changed_by, changed_at
			FROM case_history WHERE case_id = $1 ORDER BY id`, rowID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ch casefile.Change
			var oldV, newV string
			if err := rows.Scan(&ch.Version, &ch.Field, &oldV, &newV, &ch.By, &ch.At); err != nil {
				return err
			}
			ch.Old, ch.New = json.RawMessage(oldV), json.RawMessage(newV)
			ch.At = ch.At.UTC()
			out = append(out, ch)
		}
		return rows.Err()
	})
	return out, err
}

// Note records a history entry on the current version of a case.
func (s *Store) Note(ctx context.Context, id string, version int, reviewer string, note casefile.FieldChange) error {
	return s.inTx(ctx, fmt.Sprintf("note on case %s", id), func(tx pgx.Tx) error {
		var rowID int64
		var current int
		if err := tx.QueryRow(ctx, `SELECT id, version FROM cases WHERE case_id = $1 FOR UPDATE`, id).Scan(&rowID, &current); err != nil {
			return notFound(err, "case %s not found", id)
		}
		if err := store.CheckVersion(id, current, version); err != nil {
			return err
		}
		return recordChanges(ctx, tx, rowID, current, reviewer, []casefile.FieldChange{note}, s.now())
	})
}

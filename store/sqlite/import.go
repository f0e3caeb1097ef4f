package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// ImportCase stores a published library case as an approved, imported
// case, as casefile.Store describes.
func (s *Store) ImportCase(ctx context.Context, sourceURL string, c casefile.Case) (casefile.ImportResult, error) {
	n, err := store.CheckImport(sourceURL, c)
	if err != nil {
		return casefile.ImportResult{}, err
	}
	var res casefile.ImportResult
	err = s.inTx(ctx, fmt.Sprintf("import case of %s", sourceURL), func(tx *sql.Tx) error {
		res = casefile.ImportResult{}
		now := s.now()
		archived := store.DraftArchived(c, sourceURL)
		var sourceID int64
		err := tx.QueryRowContext(ctx, `
			INSERT INTO sources (url, kind, archived, archive_state, created_at, updated_at)
			VALUES (?1, ?2, ?3, CASE WHEN ?3 <> '' THEN 'archived' ELSE 'none' END, ?4, ?4)
			ON CONFLICT (url) DO UPDATE SET url = excluded.url
			RETURNING id`, sourceURL, store.SourceKind(c, sourceURL), archived, ts(now)).Scan(&sourceID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, requestFromImportSQL, sourceID, sourceURL, ts(now)); err != nil {
			return err
		}
		var rowID int64
		var have, body string
		var imported bool
		err = tx.QueryRowContext(ctx, `SELECT id, case_id, case_json, imported_at IS NOT NULL FROM cases WHERE source_id = ?1`, sourceID).
			Scan(&rowID, &have, &body, &imported)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if found && (!imported || (c.ID != "" && c.ID != have)) {
			return store.ImportConflict(sourceURL, c.ID, have, imported)
		}
		by, at := store.ImportReviewer(c)
		var reviewedAt any
		if at != nil {
			reviewedAt = ts(*at)
		}
		if found {
			c.ID = have
			next, err := json.Marshal(c)
			if err != nil {
				return fmt.Errorf("encode case: %w", err)
			}
			res.CaseID = have
			if string(next) == body {
				res.Unchanged = true
				return nil
			}
			var version int
			err = tx.QueryRowContext(ctx, `
				UPDATE cases SET case_json = ?2, status = 'approved', reviewed_by = ?3, reviewed_at = ?4, reject_reason = '',
					version = version + 1, updated_at = ?5
				WHERE id = ?1 RETURNING version`, rowID, string(next), by, reviewedAt, ts(now)).Scan(&version)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO case_versions (case_id, version, case_json, created_at) VALUES (?1, ?2, ?3, ?4)`,
				rowID, version, string(next), ts(now))
			return err
		}
		if n == 0 {
			if err := tx.QueryRowContext(ctx, `UPDATE counters SET value = value + 1 WHERE name = 'case_number' RETURNING value`).Scan(&n); err != nil {
				return fmt.Errorf("next case number: %w", err)
			}
		} else {
			var other string
			err := tx.QueryRowContext(ctx, `SELECT s.url FROM cases c JOIN sources s ON s.id = c.source_id WHERE c.case_id = ?1`, store.CaseID(n)).Scan(&other)
			if err == nil {
				return casefile.Errorf(casefile.ErrConflict, "import case %s: the id is already case %s of %s", c.ID, c.ID, other)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			// Drafted cases continue after the highest published number.
			if _, err := tx.ExecContext(ctx, `UPDATE counters SET value = max(value, ?1) WHERE name = 'case_number'`, n); err != nil {
				return fmt.Errorf("move case number past %d: %w", n, err)
			}
		}
		c.ID = store.CaseID(n)
		res.CaseID, res.Inserted = c.ID, true
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		err = tx.QueryRowContext(ctx, `
			INSERT INTO cases (case_id, source_id, status, case_json, version, reviewed_by, reviewed_at, imported_at, created_at, updated_at)
			VALUES (?1, ?2, 'approved', ?3, 1, ?4, ?5, ?6, ?6, ?6)
			RETURNING id`, c.ID, sourceID, string(b), by, reviewedAt, ts(now)).Scan(&rowID)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO case_versions (case_id, version, case_json, created_at) VALUES (?1, 1, ?2, ?3)`,
			rowID, string(b), ts(now))
		return err
	})
	if err != nil {
		return casefile.ImportResult{}, err
	}
	return res, nil
}

package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// ImportCase stores a published library case as an approved, imported
// case, as casefile.Store describes. The case number sequence is moved
// past an imported id with setval, which is not transactional: a drafted
// case that took that very number at the same moment makes one of the two
// fail on the unique case id, never a duplicate.
func (s *Store) ImportCase(ctx context.Context, sourceURL string, c casefile.Case) (casefile.ImportResult, error) {
	n, err := store.CheckImport(sourceURL, c)
	if err != nil {
		return casefile.ImportResult{}, err
	}
	var res casefile.ImportResult
	err = s.inTx(ctx, fmt.Sprintf("import case of %s", sourceURL), func(tx pgx.Tx) error {
		res = casefile.ImportResult{}
		now := s.now()
		archived := store.DraftArchived(c, sourceURL)
		var sourceID int64
		err := tx.QueryRow(ctx, `
			INSERT INTO sources (url, kind, archived, archive_state, created_at, updated_at)
			VALUES ($1, $2, $3, CASE WHEN $3 <> '' THEN 'archived' ELSE 'none' END, $4, $4)
			ON CONFLICT (url) DO UPDATE SET url = excluded.url
			RETURNING id`, sourceURL, store.SourceKind(c, sourceURL), archived, now).Scan(&sourceID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, requestFromImportSQL, sourceID, sourceURL, now); err != nil {
			return err
		}
		var rowID int64
		var have string
		var body []byte
		var imported bool
		err = tx.QueryRow(ctx, `SELECT id, case_id, case_json, imported_at IS NOT NULL FROM cases WHERE source_id = $1 FOR UPDATE`, sourceID).
			Scan(&rowID, &have, &body, &imported)
		found := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if found && (!imported || (c.ID != "" && c.ID != have)) {
			return store.ImportConflict(sourceURL, c.ID, have, imported)
		}
		by, at := store.ImportReviewer(c)
		if found {
			c.ID = have
			next, err := json.Marshal(c)
			if err != nil {
				return fmt.Errorf("encode case: %w", err)
			}
			res.CaseID = have
			// jsonb reorders keys: compare the cases, not the bytes.
			var cur casefile.Case
			if err := json.Unmarshal(body, &cur); err == nil {
				if b, err := json.Marshal(cur); err == nil && string(b) == string(next) {
					res.Unchanged = true
					return nil
				}
			}
			var version int
			err = tx.QueryRow(ctx, `
				UPDATE cases SET case_json = $2, status = 'approved', reviewed_by = $3, reviewed_at = $4, reject_reason = '',
					version = version + 1, updated_at = $5
				WHERE id = $1 RETURNING version`, rowID, next, by, at, now).Scan(&version)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO case_versions (case_id, version, case_json, created_at) VALUES ($1, $2, $3, $4)`,
				rowID, version, next, now)
			return err
		}
		if n == 0 {
			if err := tx.QueryRow(ctx, `SELECT nextval('case_number_seq')`).Scan(&n); err != nil {
				return fmt.Errorf("next case number: %w", err)
			}
		} else {
			var other string
			err := tx.QueryRow(ctx, `SELECT s.url FROM cases c JOIN sources s ON s.id = c.source_id WHERE c.case_id = $1`, store.CaseID(n)).Scan(&other)
			if err == nil {
				return casefile.Errorf(casefile.ErrConflict, "import case %s: the id is already case %s of %s", c.ID, c.ID, other)
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			// Drafted cases continue after the highest published number.
			_, err = tx.Exec(ctx, `
				SELECT setval('case_number_seq', $1)
				FROM case_number_seq WHERE NOT is_called OR last_value < $1`, n)
			if err != nil {
				return fmt.Errorf("move case number past %d: %w", n, err)
			}
		}
		c.ID = store.CaseID(n)
		res.CaseID, res.Inserted = c.ID, true
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode case: %w", err)
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO cases (case_id, source_id, status, case_json, version, reviewed_by, reviewed_at, imported_at, created_at, updated_at)
			VALUES ($1, $2, 'approved', $3, 1, $4, $5, $6, $6, $6)
			RETURNING id`, c.ID, sourceID, b, by, at, now).Scan(&rowID)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO case_versions (case_id, version, case_json, created_at) VALUES ($1, 1, $2, $3)`, rowID, b, now)
		return err
	})
	if err != nil {
		return casefile.ImportResult{}, err
	}
	return res, nil
}

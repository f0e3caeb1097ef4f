package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// SetReviewer adds a reviewer account or sets its password hash.
func (s *Store) SetReviewer(ctx context.Context, name, passwordHash string) (bool, error) {
	if err := store.CheckReviewerName(name); err != nil {
		return false, err
	}
	if passwordHash == "" {
		return false, casefile.Errorf(casefile.ErrInvalid, "set reviewer %s: no password hash", name)
	}
	var created bool
	err := s.inTx(ctx, fmt.Sprintf("set reviewer %s", name), func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			INSERT INTO reviewers (name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at
			RETURNING xmax = 0`, name, passwordHash, s.now()).Scan(&created)
	})
	return created, err
}

// ReviewerHash returns the password hash of a reviewer.
func (s *Store) ReviewerHash(ctx context.Context, name string) (string, error) {
	var hash string
	err := s.read(ctx, fmt.Sprintf("read reviewer %s", name), func(q querier) error {
		err := q.QueryRow(ctx, `SELECT password_hash FROM reviewers WHERE name = $1`, name).Scan(&hash)
		return notFound(err, "no reviewer %s", name)
	})
	return hash, err
}

// Reviewers lists the reviewer accounts by name.
func (s *Store) Reviewers(ctx context.Context) ([]string, error) {
	var out []string
	err := s.read(ctx, "list reviewers", func(q querier) error {
		out = []string{}
		rows, err := q.Query(ctx, `SELECT name FROM reviewers ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			out = append(out, n)
		}
		return rows.Err()
	})
	return out, err
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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
	err := s.inTx(ctx, fmt.Sprintf("set reviewer %s", name), func(tx *sql.Tx) error {
		now := ts(s.now())
		err := tx.QueryRowContext(ctx, `
			INSERT INTO reviewers (name, password_hash, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
			ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at
			RETURNING created_at = ?3`, name, passwordHash, now).Scan(&created)
		if err != nil || created {
			return err
		}
		// A new password signs the reviewer out everywhere.
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE reviewer = ?1`, name)
		return err
	})
	return created, err
}

// ReviewerHash returns the password hash of a reviewer.
func (s *Store) ReviewerHash(ctx context.Context, name string) (string, error) {
	var hash string
	err := s.read(ctx, fmt.Sprintf("read reviewer %s", name), func(q querier) error {
		err := q.QueryRowContext(ctx, `SELECT password_hash FROM reviewers WHERE name = ?1`, name).Scan(&hash)
		return notFound(err, "no reviewer %s", name)
	})
	return hash, err
}

// Reviewers lists the reviewer accounts by name.
func (s *Store) Reviewers(ctx context.Context) ([]string, error) {
	var out []string
	err := s.read(ctx, "list reviewers", func(q querier) error {
		out = []string{}
		rows, err := q.QueryContext(ctx, `SELECT name FROM reviewers ORDER BY name`)
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

// StartSession stores a session and drops the expired ones.
func (s *Store) StartSession(ctx context.Context, sess casefile.Session) error {
	if sess.TokenHash == "" || sess.CSRF == "" {
		return casefile.Errorf(casefile.ErrInvalid, "start session: token hash and form token are required")
	}
	return s.inTx(ctx, fmt.Sprintf("start session of %s", sess.Reviewer), func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?1`, ts(s.now())); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM reviewers WHERE name = ?1`, sess.Reviewer).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return casefile.Errorf(casefile.ErrNotFound, "no reviewer %s", sess.Reviewer)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token_hash, reviewer, csrf, expires_at) VALUES (?1, ?2, ?3, ?4)`,
			sess.TokenHash, sess.Reviewer, sess.CSRF, ts(sess.ExpiresAt))
		return err
	})
}

// Session returns the live session with the token hash.
func (s *Store) Session(ctx context.Context, tokenHash string) (casefile.Session, error) {
	var sess casefile.Session
	err := s.read(ctx, "read session", func(q querier) error {
		var exp string
		err := q.QueryRowContext(ctx, `SELECT token_hash, reviewer, csrf, expires_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2`,
			tokenHash, ts(s.now())).Scan(&sess.TokenHash, &sess.Reviewer, &sess.CSRF, &exp)
		if err != nil {
			return notFound(err, "no such session")
		}
		sess.ExpiresAt, err = parseTS(exp)
		return err
	})
	return sess, err
}

// EndSession removes a session.
func (s *Store) EndSession(ctx context.Context, tokenHash string) error {
	return s.inTx(ctx, "end session", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?1`, tokenHash)
		return err
	})
}

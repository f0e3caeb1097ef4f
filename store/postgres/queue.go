package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/store"
)

// caseWhere builds the WHERE clause of a case filter (status left out when
// withStatus is false) and its arguments.
func caseWhere(f casefile.CaseFilter, withStatus bool) (string, []any) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if withStatus && f.Status != "" {
		conds = append(conds, `c.status = `+arg(string(f.Status)))
	}
	if f.Org != "" {
		p := arg(f.Org)
		conds = append(conds, `(lower(c.case_json->>'org') = lower(`+p+`::text) OR c.case_json->>'org_slug' = lower(`+p+`::text))`)
	}
	if f.SourceKind != "" {
		conds = append(conds, `s.kind = `+arg(f.SourceKind))
	}
	if f.Origin != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM submissions sub WHERE sub.source_id = c.source_id AND sub.origin = `+arg(string(f.Origin))+`)`)
	}
	if f.Batch != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM submissions sub WHERE sub.source_id = c.source_id AND sub.batch = `+arg(f.Batch)+`)`)
	}
	if f.From != "" {
		conds = append(conds, `c.case_json->>'date' >= `+arg(f.From))
	}
	if f.To != "" {
		conds = append(conds, `c.case_json->>'date' <= `+arg(f.To))
	}
	if f.Search != "" {
		p := arg(store.LikePattern(f.Search))
		conds = append(conds, `(coalesce(c.case_json->'title'->>'en', '') ILIKE `+p+` ESCAPE '\' OR coalesce(c.case_json->'title'->>'ko', '') ILIKE `+p+` ESCAPE '\')`)
	}
	if len(conds) == 0 {
		return "", args
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

var caseOrder = map[casefile.CaseSort]string{
	"":                   `c.id DESC`,
	casefile.SortNewest:  `c.id DESC`,
	casefile.SortOldest:  `c.id ASC`,
	casefile.SortDate:    `c.case_json->>'date' DESC, c.id DESC`,
	casefile.SortOrg:     `lower(c.case_json->>'org') ASC, c.id DESC`,
	casefile.SortUpdated: `c.updated_at DESC, c.id DESC`,
}

// Cases lists the cases the filter selects, in its order, at most f.Limit
// of them (≤ 0 means store.DefaultLimit) after f.Offset. An unknown status,
// origin or order is an ErrInvalid error.
func (s *Store) Cases(ctx context.Context, f casefile.CaseFilter) ([]casefile.StoredCase, error) {
	if err := store.CheckCaseFilter(f); err != nil {
		return nil, err
	}
	where, args := caseWhere(f, true)
	args = append(args, store.Limit(f.Limit), f.Offset)
	query := selectCases + where + fmt.Sprintf(` ORDER BY %s LIMIT $%d OFFSET $%d`, caseOrder[f.Sort], len(args)-1, len(args))
	var out []casefile.StoredCase
	err := s.read(ctx, "list cases", func(q querier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (casefile.StoredCase, error) {
			return scanCase(row)
		})
		return err
	})
	return out, err
}

// CaseCounts counts the cases the filter selects by status.
func (s *Store) CaseCounts(ctx context.Context, f casefile.CaseFilter) (map[casefile.CaseStatus]int, error) {
	f.Status = ""
	if err := store.CheckCaseFilter(f); err != nil {
		return nil, err
	}
	where, args := caseWhere(f, false)
	var out map[casefile.CaseStatus]int
	err := s.read(ctx, "count cases", func(q querier) error {
		out = map[casefile.CaseStatus]int{}
		rows, err := q.Query(ctx, `SELECT c.status, count(*) FROM cases c JOIN sources s ON s.id = c.source_id`+where+` GROUP BY c.status`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st string
			var n int
			if err := rows.Scan(&st, &n); err != nil {
				return err
			}
			out[casefile.CaseStatus(st)] = n
		}
		return rows.Err()
	})
	return out, err
}

// Unsuccessful lists the submissions that ended without a draft, newest
// first.
func (s *Store) Unsuccessful(ctx context.Context, limit, offset int) ([]casefile.Submission, error) {
	if offset < 0 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "offset %d is negative", offset)
	}
	var subs []casefile.Submission
	err := s.read(ctx, "list unsuccessful submissions", func(q querier) error {
		var err error
		subs, err = collectSubmissions(q.Query(ctx, selectSubmission+`
			WHERE sub.state IN ('not_postmortem', 'failed', 'dead_lettered')
			ORDER BY sub.id DESC LIMIT $1 OFFSET $2`, store.Limit(limit), offset))
		return err
	})
	return subs, err
}

// LatestSubmissions lists every submission, newest first, one page of them.
func (s *Store) LatestSubmissions(ctx context.Context, limit, offset int) ([]casefile.Submission, error) {
	if offset < 0 {
		return nil, casefile.Errorf(casefile.ErrInvalid, "offset %d is negative", offset)
	}
	var subs []casefile.Submission
	err := s.read(ctx, "list the latest submissions", func(q querier) error {
		var err error
		subs, err = collectSubmissions(q.Query(ctx, selectSubmission+`
			ORDER BY sub.id DESC LIMIT $1 OFFSET $2`, store.Limit(limit), offset))
		return err
	})
	return subs, err
}

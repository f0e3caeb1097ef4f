package main

import (
	"context"
	"net/http"
	"strconv"

	"github.com/incidentlib/casefile"
)

// sourceArchive returns the archive request of a source, or one in state
// none when it has none.
func sourceArchive(ctx context.Context, st casefile.Store, sourceURL string) (casefile.ArchiveRequest, error) {
	r, err := st.ArchiveRequest(ctx, sourceURL)
	if casefile.KindOf(err) == casefile.KindNotFound {
		return casefile.ArchiveRequest{SourceURL: sourceURL, URL: sourceURL, State: casefile.ArchiveNone}, nil
	}
	return r, err
}

// caseArchive answers GET /api/cases/{id}/archive: the archive request of
// the case's source (state none, pending with its step and next time,
// archived with its link, failed with its reason).
func (s *api) caseArchive(w http.ResponseWriter, r *http.Request) {
	c, err := s.store.Case(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	req, err := sourceArchive(r.Context(), s.store, c.SourceURL)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// archiveStatus answers GET /api/archive[?state=pending|archived|failed&limit=N]:
// the counts by state and the requests of the state, the ones due first.
func (s *api) archiveStatus(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := casefile.ArchiveState(q.Get("state"))
	switch state {
	case "", casefile.ArchivePending, casefile.ArchiveArchived, casefile.ArchiveFailed:
	default:
		writeError(w, http.StatusBadRequest, "state must be pending, archived or failed")
		return
	}
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 1000 {
			writeError(w, http.StatusBadRequest, "limit must be 1 to 1000")
			return
		}
		limit = n
	}
	sum, err := s.store.ArchiveSummary(r.Context())
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	reqs, err := s.store.ArchiveRequests(r.Context(), state, limit)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if reqs == nil {
		reqs = []casefile.ArchiveRequest{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"summary": sum, "requests": reqs})
}

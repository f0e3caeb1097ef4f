package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
	"github.com/incidentlib/casefile/store"
)

// reviewRequest is the body of POST /api/cases/{id}/approve and /reject.
type reviewRequest struct {
	// Version is the version of the case the reviewer read.
	Version int `json:"version"`
	// Reason is required when rejecting.
	Reason string `json:"reason,omitempty"`
	// Reviewer names the reviewer when the request carries the API token;
	// a signed-in reviewer is always named by the session.
	Reviewer string `json:"reviewer,omitempty"`
}

// editRequest is the body of PATCH /api/cases/{id}.
type editRequest struct {
	Version  int                        `json:"version"`
	Fields   map[string]json.RawMessage `json:"fields"`
	Reviewer string                     `json:"reviewer,omitempty"`
}

// maxReasonBytes bounds a reject reason.
const maxReasonBytes = 2000

// reviewErrorBody is the body of a refused edit: the message, the first
// field named, and every field with its problem.
type reviewErrorBody struct {
	Error    string                   `json:"error"`
	Field    string                   `json:"field,omitempty"`
	Problems []normalize.FieldProblem `json:"problems,omitempty"`
}

func (s *api) approveCase(w http.ResponseWriter, r *http.Request) {
	s.decide(w, r, casefile.CaseApproved)
}

func (s *api) rejectCase(w http.ResponseWriter, r *http.Request) {
	s.decide(w, r, casefile.CaseRejected)
}

// decide records a review decision and answers with the case as it is now.
func (s *api) decide(w http.ResponseWriter, r *http.Request, status casefile.CaseStatus) {
	var req reviewRequest
	if !decodeBody(w, r, &req, `{"version": 3, "reason": "..."}`) {
		return
	}
	id := r.PathValue("id")
	c, err := s.review(r, id, req.Version, status, req.Reviewer, req.Reason)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// review checks and records a review decision by the request's reviewer
// (the one place for the API and the case page).
func (s *api) review(r *http.Request, id string, version int, status casefile.CaseStatus, named, reason string) (casefile.StoredCase, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case status == casefile.CaseRejected && reason == "":
		return casefile.StoredCase{}, casefile.Errorf(casefile.ErrInvalid, "reject case %s: give the reason for rejecting it", id)
	case len(reason) > maxReasonBytes:
		return casefile.StoredCase{}, casefile.Errorf(casefile.ErrInvalid, "reject case %s: the reason is longer than %d bytes", id, maxReasonBytes)
	case !cleanText(reason):
		return casefile.StoredCase{}, casefile.Errorf(casefile.ErrInvalid, "review case %s: the reason must be valid UTF-8 without NUL bytes", id)
	}
	if named != "" {
		if err := store.CheckReviewerName(named); err != nil {
			return casefile.StoredCase{}, err
		}
	}
	if err := s.store.SetStatus(r.Context(), id, version, status, s.reviewerOf(r, named), reason); err != nil {
		return casefile.StoredCase{}, err
	}
	return s.store.Case(r.Context(), id)
}

func (s *api) patchCase(w http.ResponseWriter, r *http.Request) {
	var req editRequest
	if !decodeBody(w, r, &req, `{"version": 3, "fields": {"severity": "major"}}`) {
		return
	}
	if req.Reviewer != "" {
		if err := store.CheckReviewerName(req.Reviewer); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	c, err := s.edit(r, r.PathValue("id"), req.Version, req.Reviewer, req.Fields)
	if err != nil {
		s.writeEditError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// edit applies a reviewer's field changes, checked by normalize.EditCase,
// to the given version of a case.
func (s *api) edit(r *http.Request, id string, version int, named string, fields map[string]json.RawMessage) (casefile.StoredCase, error) {
	return s.store.EditCase(r.Context(), id, version, s.reviewerOf(r, named), func(d casefile.Draft) (casefile.Draft, []casefile.FieldChange, error) {
		c, changes, err := normalize.EditCase(d.Case, fields)
		d.Case = c
		return d, changes, err
	})
}

// writeEditError answers a refused edit: 400 naming each field and its
// problem, or the status of the error's kind.
func (s *api) writeEditError(w http.ResponseWriter, r *http.Request, err error) {
	var ee *normalize.EditError
	if errors.As(err, &ee) {
		writeJSON(w, http.StatusBadRequest, reviewErrorBody{Error: err.Error(), Field: ee.Problems[0].Field, Problems: ee.Problems})
		return
	}
	s.writeStoreError(w, r, err)
}

func (s *api) caseHistory(w http.ResponseWriter, r *http.Request) {
	h, err := s.store.History(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"history": h})
}

// reviewerOf names who makes a change: the signed-in reviewer, else the
// name the request gives, else "api".
func (s *api) reviewerOf(r *http.Request, named string) string {
	if name := reviewerFrom(r.Context()); name != "" {
		return name
	}
	if named = strings.TrimSpace(named); named != "" {
		return named
	}
	return "api"
}

// mergeRequest is the body of POST /api/cases/{id}/merge.
type mergeRequest struct {
	Version     int    `json:"version"`
	Into        string `json:"into"`
	IntoVersion int    `json:"into_version"`
	Reviewer    string `json:"reviewer,omitempty"`
}

// mergeCase merges a draft into the case of the same incident and answers
// with that case.
func (s *api) mergeCase(w http.ResponseWriter, r *http.Request) {
	var req mergeRequest
	if !decodeBody(w, r, &req, `{"version": 1, "into": "IL-0001", "into_version": 3}`) {
		return
	}
	if req.Reviewer != "" {
		if err := store.CheckReviewerName(req.Reviewer); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	c, err := s.store.MergeCase(r.Context(), r.PathValue("id"), req.Version, req.Into, req.IntoVersion, s.reviewerOf(r, req.Reviewer))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

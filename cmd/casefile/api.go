package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/casefile"
	"github.com/incidentlib/casefile/normalize"
)

// maxURLsPerRequest bounds one submission request.
const maxURLsPerRequest = 1000

// api serves casefile's HTTP API over the review store.
type api struct {
	store casefile.Store
	// token, when set, is the bearer token every write must carry.
	token string
	// kick wakes the outbox relay after a submission (may be nil).
	kick    func()
	log     *slog.Logger
	metrics http.Handler
	// ready gates submissions until the process's streams are set up
	// (nil: always ready).
	ready *readiness
}

func (s *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/submissions", s.requireToken(s.ready.requireStarted(s.postSubmissions)))
	mux.HandleFunc("GET /api/submissions", s.listSubmissions)
	mux.HandleFunc("GET /api/submissions/{id}", s.getSubmission)
	mux.HandleFunc("GET /api/cases", s.listCases)
	mux.HandleFunc("GET /api/cases/{id}", s.getCase)
	s.ready.register(mux)
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.metrics)
	}
	mux.HandleFunc("GET /{$}", s.reviewPage)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return s.logRequests(mux)
}

// submissionRequest is the body of POST /api/submissions.
type submissionRequest struct {
	URLs   []string `json:"urls"`
	Origin string   `json:"origin,omitempty"`
	Batch  string   `json:"batch,omitempty"`
}

type rejectedURL struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

type submissionResponse struct {
	Submissions []casefile.Submission `json:"submissions"`
	Rejected    []rejectedURL         `json:"rejected,omitempty"`
}

func (s *api) postSubmissions(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	var req submissionRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body is larger than 1 MiB; send fewer URLs per request")
			return
		}
		writeError(w, http.StatusBadRequest, `request body must be JSON like {"urls": ["https://..."]}: `+err.Error())
		return
	}
	if len(req.URLs) == 0 {
		writeError(w, http.StatusBadRequest, `no URLs given: send {"urls": ["https://..."]}`)
		return
	}
	if len(req.URLs) > maxURLsPerRequest {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%d URLs in one request; the limit is %d", len(req.URLs), maxURLsPerRequest))
		return
	}
	origin := casefile.Origin(req.Origin)
	switch origin {
	case "":
		origin = casefile.OriginManual
	case casefile.OriginManual, casefile.OriginBackfill, casefile.OriginCrawl:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown origin %q: use manual, backfill or crawl", req.Origin))
		return
	}
	var subs []casefile.NewSubmission
	var resp submissionResponse
	for _, raw := range req.URLs {
		canonical, archived, err := normalize.CanonicalURL(raw)
		if err != nil {
			resp.Rejected = append(resp.Rejected, rejectedURL{URL: raw, Error: err.Error()})
			continue
		}
		subs = append(subs, casefile.NewSubmission{URL: canonical, RawURL: raw, Archived: archived, Origin: origin, Batch: req.Batch})
	}
	if len(subs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "no valid URL in the request", "rejected": resp.Rejected})
		return
	}
	created, err := s.store.Submit(r.Context(), subs)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	resp.Submissions = created
	if s.kick != nil {
		s.kick()
	}
	writeJSON(w, http.StatusAccepted, resp)
}

func (s *api) getSubmission(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("submission id %q is not a number", r.PathValue("id")))
		return
	}
	sub, err := s.store.Submission(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sub)
}

func (s *api) listSubmissions(w http.ResponseWriter, r *http.Request) {
	batch := r.URL.Query().Get("batch")
	if batch == "" {
		writeError(w, http.StatusBadRequest, "give a batch: /api/submissions?batch=NAME")
		return
	}
	subs, err := s.store.Submissions(r.Context(), batch)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"submissions": subs})
}

func (s *api) listCases(w http.ResponseWriter, r *http.Request) {
	f := casefile.CaseFilter{Status: casefile.CaseStatus(r.URL.Query().Get("status"))}
	switch f.Status {
	case "", casefile.CaseDraft, casefile.CaseApproved, casefile.CaseRejected:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown status %q: use draft, approved or rejected", f.Status))
		return
	}
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n <= 0 || n > 1000 {
			writeError(w, http.StatusBadRequest, "limit must be a number from 1 to 1000")
			return
		}
		f.Limit = n
	}
	cases, err := s.store.Cases(r.Context(), f)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"cases": cases})
}

func (s *api) getCase(w http.ResponseWriter, r *http.Request) {
	c, err := s.store.Case(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// writeStoreError maps a store error to its HTTP status once, through the
// error kinds; internal errors are logged in full and shown as such.
func (s *api) writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	kind := casefile.KindOf(err)
	msg := err.Error()
	switch kind {
	case casefile.KindNotFound:
		msg = "not found: " + r.URL.Path
	case casefile.KindTransient:
		w.Header().Set("Retry-After", "5")
	case casefile.KindInternal:
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	}
	writeError(w, kind.HTTPStatus(), msg)
}

func (s *api) requireToken(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="casefile"`)
				writeError(w, http.StatusUnauthorized, "missing or wrong bearer token (set Authorization: Bearer $CASEFILE_API_TOKEN)")
				return
			}
		}
		h(w, r)
	}
}

func (s *api) logRequests(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if r.URL.Path == "/metrics" || r.URL.Path == "/healthz" {
			return
		}
		s.log.Debug("http", "method", r.Method, "path", r.URL.Path, "status", rec.status, "took", time.Since(start).String())
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

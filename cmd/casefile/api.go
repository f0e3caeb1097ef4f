package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	// sess holds the signed-in reviewers (made by routes when nil).
	sess *sessions

	// freshFor is the freshness window of submissions: a source read less
	// than this long ago is answered from that read, not fetched again.
	freshFor time.Duration
	// pages keeps the fetched pages and re-drafts (nil: re-drafts are
	// refused); queueRedraft queues a batch's jobs; extractor names this
	// binary's extractor (redraft --extractor-changed).
	pages        casefile.PageStore
	queueRedraft func(ctx context.Context, batch string, urls []string) error
	extractor    string
	// ready gates submissions until the process's streams are set up
	// (nil: always ready).
	ready *readiness
}

func (s *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/submissions", s.requireWriter(s.ready.requireStarted(s.postSubmissions)))
	mux.HandleFunc("GET /api/submissions", s.listSubmissions)
	mux.HandleFunc("GET /api/submissions/{id}", s.getSubmission)
	mux.HandleFunc("GET /api/cases", s.listCases)
	mux.HandleFunc("GET /api/cases/{id}", s.getCase)
	mux.HandleFunc("PATCH /api/cases/{id}", s.requireWriter(s.patchCase))
	mux.HandleFunc("POST /api/cases/{id}/approve", s.requireWriter(s.approveCase))
	mux.HandleFunc("POST /api/cases/{id}/reject", s.requireWriter(s.rejectCase))
	mux.HandleFunc("POST /api/cases/{id}/merge", s.requireWriter(s.mergeCase))
	mux.HandleFunc("GET /api/cases/{id}/history", s.caseHistory)
	mux.HandleFunc("GET /api/cases/{id}/archive", s.caseArchive)
	mux.HandleFunc("GET /api/archive", s.archiveStatus)
	mux.HandleFunc("GET /api/cases/{id}/proposal", s.getProposal)
	mux.HandleFunc("POST /api/redrafts", s.requireWriter(s.ready.requireStarted(s.postRedraft)))
	mux.HandleFunc("GET /api/redrafts/{batch}", s.getRedraft)
	s.ready.register(mux)
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.metrics)
	}
	mux.HandleFunc("GET /{$}", s.reviewPage)
	s.pageRoutes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", termSafe(r.Method), termSafe(r.URL.Path)))
	})
	return s.logRequests(securityHeaders(checkRequest(s.withSession(mux))))
}

// Limits of the HTTP server: a client that sends its headers or body too
// slowly, or keeps an idle connection, is cut off; no body is larger than
// maxBodyBytes.
const maxBodyBytes = 1 << 20

type serverLimits struct{ readHeader, read, write, idle time.Duration }

var (
	defaultHTTPLimits = serverLimits{readHeader: 10 * time.Second, read: 30 * time.Second, write: 60 * time.Second, idle: 2 * time.Minute}
	// httpLimits are the limits in force (tests shorten them).
	httpLimits = defaultHTTPLimits
)

// newHTTPServer is the one HTTP server configuration every listener uses.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: httpLimits.readHeader,
		ReadTimeout:       httpLimits.read,
		WriteTimeout:      httpLimits.write,
		IdleTimeout:       httpLimits.idle,
		MaxHeaderBytes:    64 << 10,
	}
}

// securityHeaders sets the headers that keep a browser from sniffing
// types, framing the pages, or running scripts from elsewhere.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		// The review pages load their script and style sheet from the
		// server: nothing inline runs.
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		// same-origin, not no-referrer: with no-referrer the browser sends
		// "Origin: null" on the pages' own form posts, which checkRequest
		// refuses as cross-site.
		hd.Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// checkRequest refuses, before any handler runs, what no handler can use:
// a path or query that is not valid UTF-8 or holds a NUL byte (a database
// refuses them), a query with broken escapes, and bodies over
// maxBodyBytes. Writes (any method but GET, HEAD and OPTIONS) must be
// JSON, or a form of the review pages (outside /api/, each checking its
// CSRF token), and when the browser names the page that sent them
// (Origin), that page must be this server's own: a form on another site
// cannot post here.
func checkRequest(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !cleanText(r.URL.Path) {
			writeError(w, http.StatusBadRequest, "the path holds a NUL byte or is not valid UTF-8")
			return
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			writeError(w, http.StatusBadRequest, "the query string is not valid: "+termSafe(err.Error()))
			return
		}
		for k, vs := range q {
			for _, v := range append(vs, k) {
				if !cleanText(v) {
					writeError(w, http.StatusBadRequest, "the query string holds a NUL byte or is not valid UTF-8")
					return
				}
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			pageForm := mt == "application/x-www-form-urlencoded" && !strings.HasPrefix(r.URL.Path, "/api/")
			if err != nil || (mt != "application/json" && !pageForm) {
				writeError(w, http.StatusUnsupportedMediaType, "send the body as JSON with Content-Type: application/json")
				return
			}
			if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r) {
				writeError(w, http.StatusForbidden, fmt.Sprintf("cross-site request refused: origin %s is not this server", termSafe(o)))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a browser's Origin header names the host the
// request was sent to.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // includes the opaque origin "null"
	}
	return strings.EqualFold(u.Host, r.Host)
}

// cleanText reports whether s can be stored and shown: valid UTF-8 with
// no NUL byte.
func cleanText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// decodeBody decodes a request's JSON body into v: one JSON value, no
// unknown fields, nothing after it. On failure it has answered the request
// and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, example string) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, tailErr := dec.Token(); tailErr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
			var tooBig *http.MaxBytesError
			if errors.As(tailErr, &tooBig) {
				err = tailErr
			}
		}
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "request body is larger than 1 MiB; send fewer URLs per request")
		return false
	}
	writeError(w, http.StatusBadRequest, "request body must be JSON like "+example+": "+termSafe(err.Error()))
	return false
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
	Rejected    []rejectedURL         `json:"rejected"`
}

func (s *api) postSubmissions(w http.ResponseWriter, r *http.Request) {
	var req submissionRequest
	if !decodeBody(w, r, &req, `{"urls": ["https://..."]}`) {
		return
	}
	if !cleanText(req.Batch) || !cleanText(req.Origin) {
		writeError(w, http.StatusBadRequest, "batch and origin must be valid UTF-8 without NUL bytes")
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
	resp := submissionResponse{Submissions: []casefile.Submission{}, Rejected: []rejectedURL{}}
	for _, raw := range req.URLs {
		canonical, _, err := normalize.CanonicalURL(raw)
		if err != nil {
			resp.Rejected = append(resp.Rejected, rejectedURL{URL: raw, Error: err.Error()})
			continue
		}
		subs = append(subs, casefile.NewSubmission{URL: canonical, RawURL: raw, Origin: origin, Batch: req.Batch, FreshFor: s.freshFor})
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
	if created != nil {
		resp.Submissions = created
	}
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

// maxBatchPage bounds a page of a batch's submissions.
const maxBatchPage = 1000

func (s *api) listSubmissions(w http.ResponseWriter, r *http.Request) {
	// A batch lists that batch, oldest first; without one, the latest
	// submissions, newest first, a page at a time (limit, offset).
	var subs []casefile.Submission
	var err error
	q := r.URL.Query()
	if batch := q.Get("batch"); batch != "" && (q.Has("after") || q.Has("limit")) {
		// A page of the batch: ids above after, at most limit (up to 1000).
		after, aerr := strconv.ParseInt(q.Get("after"), 10, 64)
		if q.Get("after") == "" {
			after, aerr = 0, nil
		}
		limit, lerr := strconv.Atoi(q.Get("limit"))
		if q.Get("limit") == "" {
			limit, lerr = 0, nil
		}
		if aerr != nil || lerr != nil || after < 0 || limit < 0 || limit > maxBatchPage {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("after must be a submission id and limit a number from 1 to %d", maxBatchPage))
			return
		}
		subs, err = s.store.SubmissionsAfter(r.Context(), batch, after, limit)
	} else if batch != "" {
		subs, err = s.store.Submissions(r.Context(), batch)
	} else {
		limit, offset, perr := pageFrom(r.URL.Query())
		if perr != nil {
			writeError(w, http.StatusBadRequest, perr.Error())
			return
		}
		subs, err = s.store.LatestSubmissions(r.Context(), limit, offset)
	}
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if subs == nil {
		subs = []casefile.Submission{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"submissions": subs})
}

func (s *api) listCases(w http.ResponseWriter, r *http.Request) {
	f, err := caseFilterFrom(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	cases, err := s.store.Cases(r.Context(), f)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if cases == nil {
		cases = []casefile.StoredCase{}
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
		// The cause names the database's host, user and port: it goes to
		// the log, the client learns only what to do.
		s.log.Warn("review store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "5")
		msg = "the review store is unavailable; try again in a few seconds"
	case casefile.KindInternal:
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	}
	writeError(w, kind.HTTPStatus(), msg)
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

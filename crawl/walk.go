package crawl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sync"

	"github.com/gocolly/colly/v2"
	"github.com/incidentlib/casefile"
)

// A walk is one colly collector following links from a start URL: the
// index-like sources (a sitemap index, a blog index page by page, a status
// page's history) are read this way. Each request goes through the same
// egress guard, redirect checks, body cap and charset decoding as Fetch,
// robots.txt is checked by the one robots cache before each request, the
// HostGate paces every request (across processes when shared), and colly's
// own LimitRule keeps to one request at a time per host, HostDelay apart,
// inside the process.

// walkSpec says how far a walk may go and what it does with each page.
type walkSpec struct {
	// maxDepth bounds link following: the start is depth 1 (colly's
	// MaxDepth).
	maxDepth int
	// filters, when set, are the URLs the walk may visit (colly's
	// URLFilters); the walk never leaves the start URL's host
	// (AllowedDomains).
	filters []*regexp.Regexp
	// setup registers the adapter's OnHTML and OnResponse hooks. Hooks see
	// the body decoded to UTF-8 and call r.Request.Visit to follow a link.
	setup func(c *colly.Collector)
}

// walkResult is what a walk met besides what its hooks collected.
type walkResult struct {
	// notModified: the start answered 304 to the conditional GET.
	notModified bool
	validators  Validators
	// pages counts the pages read.
	pages int
	// warnings are failures of pages after the start.
	warnings []string
}

// walk fetches start (conditionally, with v) and what the hooks of spec
// follow from it. A failure of the start is the error, classified as
// Fetch's; failures of later pages are warnings.
func (f *Fetcher) walk(ctx context.Context, start string, v Validators, spec walkSpec) (walkResult, error) {
	su, err := parseTarget(start)
	if err != nil {
		return walkResult{}, casefile.Errorf(casefile.ErrInvalid, "fetch %s: %w", displayRaw(redact(start)), err)
	}
	w := &walkState{f: f, ctx: ctx, start: su, v: v, limit: f.cfg.MaxBodyBytes, verdicts: map[*colly.Request]error{}}
	c := f.collector(ctx, resourceRequest, w.limit)
	c.MaxDepth = spec.maxDepth
	c.AllowedDomains = []string{su.Hostname()}
	c.URLFilters = spec.filters
	c.WithTransport(&gateTransport{f: f, base: &capTransport{base: f.transport, limit: w.limit}})
	// In-process pacing: one request at a time to the start's host, at
	// least HostDelay apart (the gate, when set, does the same across
	// processes and adds Crawl-delay and Retry-After).
	if err := c.Limit(&colly.LimitRule{
		DomainRegexp: "(?i)^" + regexp.QuoteMeta(su.Host) + "$", // colly matches URL.Host, port included
		Parallelism:  1,
		Delay:        f.cfg.HostDelay,
	}); err != nil {
		return walkResult{}, casefile.Errorf(casefile.ErrInvalid, "walk %s: %w", su, err)
	}
	c.OnRequest(w.onRequest)
	c.OnResponseHeaders(w.onResponseHeaders)
	// The first OnResponse hook decodes the body in place, so that the
	// adapter's OnResponse and OnHTML hooks read UTF-8.
	c.OnResponse(w.decode)
	c.OnError(w.onError)
	spec.setup(c)

	if err := c.Visit(su.String()); err != nil && !errors.Is(err, colly.ErrAbortedAfterHeaders) && !errors.Is(err, colly.ErrAbortedBeforeRequest) {
		w.mu.Lock()
		if w.startErr == nil && w.res.pages == 0 {
			w.startErr = f.classify(ctx, su.String(), err, w.limit)
		}
		w.mu.Unlock()
	}
	c.Wait()
	if w.startErr != nil {
		return w.res, w.startErr
	}
	if w.res.notModified {
		w.res.validators = v
	}
	return w.res, nil
}

// walkState is one walk's state, shared by its collector's hooks (which
// colly may run on several goroutines: mu guards the fields below it).
type walkState struct {
	f     *Fetcher
	ctx   context.Context
	start *url.URL
	v     Validators
	limit int64

	mu       sync.Mutex
	res      walkResult
	startErr error
	// verdicts are the requests the header checks already failed, so that
	// colly's error for the abort is not counted again.
	verdicts map[*colly.Request]error
}

func (w *walkState) isStart(r *colly.Request) bool {
	return r.Depth == 1 && r.URL.String() == w.start.String()
}

// fail records a request's failure: the walk's error for the start, a
// warning for a later page.
func (w *walkState) fail(r *colly.Request, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.f.classify(w.ctx, r.URL.String(), err, w.limit)
	if w.isStart(r) {
		if w.startErr == nil {
			w.startErr = e
		}
		return
	}
	w.res.warnings = append(w.res.warnings, e.Error())
}

// onRequest sets the request's headers (conditional for the start) and
// applies the egress guard and robots.txt.
func (w *walkState) onRequest(r *colly.Request) {
	r.Headers.Set("Accept", acceptHeader[resourceRequest])
	r.Headers.Set("Accept-Language", "en,ko;q=0.9,*;q=0.5")
	if w.isStart(r) {
		if w.v.ETag != "" {
			r.Headers.Set("If-None-Match", w.v.ETag)
		}
		if w.v.LastModified != "" {
			r.Headers.Set("If-Modified-Since", w.v.LastModified)
		}
	}
	err := w.f.checkDirect(r.URL)
	if err == nil {
		err = w.f.checkRobots(w.ctx, r.URL)
	}
	if err != nil {
		w.fail(r, err)
		r.Abort()
	}
}

// onResponseHeaders checks status, type and size before the body is read,
// notes a 304 and the start's validators.
func (w *walkState) onResponseHeaders(r *colly.Response) {
	h := *r.Headers
	conditional := w.isStart(r.Request) && w.v.any()
	if err := w.f.checkHeaders(resourceRequest, r.StatusCode, h, w.limit, conditional); err != nil {
		w.mu.Lock()
		w.verdicts[r.Request] = err
		w.mu.Unlock()
		w.fail(r.Request, err)
		r.Request.Abort()
		return
	}
	if r.StatusCode == http.StatusNotModified {
		w.mu.Lock()
		w.res.notModified = true
		w.mu.Unlock()
		r.Request.Abort()
		return
	}
	if w.isStart(r.Request) {
		w.mu.Lock()
		w.res.validators = Validators{ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified")}
		w.mu.Unlock()
	}
	r.Ctx.Put("content-type", h.Get("Content-Type"))
	if mt := mediaTypeOf(h.Get("Content-Type")); mt != "" {
		r.Headers.Set("Content-Type", mt) // keep colly from converting: decodeBody does it once
	}
}

// decode checks the body and decodes it to UTF-8 in place; a body that
// fails is emptied and recorded.
func (w *walkState) decode(r *colly.Response) {
	if err := w.decodeBody(r); err != nil {
		w.fail(r.Request, err)
		r.Body = nil
		return
	}
	w.mu.Lock()
	w.res.pages++
	w.mu.Unlock()
}

func (w *walkState) decodeBody(r *colly.Response) error {
	switch {
	case int64(len(r.Body)) > w.limit:
		return tooLarge(w.limit)
	case bytes.HasPrefix(r.Body, gzipMagic):
		return newFetchError(casefile.ErrPermanent, nil, "the body is gzip-compressed without a Content-Encoding header")
	}
	contentType := r.Ctx.Get("content-type")
	mt := mediaTypeOf(contentType)
	if mt == "" {
		mt = mediaTypeOf(http.DetectContentType(r.Body))
		if err := checkType(resourceRequest, mt); err != nil {
			return err
		}
		r.Headers.Set("Content-Type", mt)
	}
	body, cs, err := decodeBody(r.Body, mt, contentType)
	if err != nil {
		return newFetchError(casefile.ErrPermanent, err, "cannot decode the page as %s", cs)
	}
	r.Body = []byte(body)
	return nil
}

// onError records a failed request, but for aborts the header checks
// already recorded.
func (w *walkState) onError(r *colly.Response, err error) {
	w.mu.Lock()
	_, judged := w.verdicts[r.Request]
	w.mu.Unlock()
	if judged || errors.Is(err, colly.ErrAbortedAfterHeaders) {
		return
	}
	if r.StatusCode != 0 && (r.StatusCode < 200 || r.StatusCode > 299) {
		se := &StatusError{StatusCode: r.StatusCode, RetryAfter: retryAfter(*r.Headers, w.f.now())}
		err = newFetchError(statusKind(r.StatusCode), se, "%s", se.Error())
	}
	w.fail(r.Request, err)
}

// gateTransport holds each request of a walk to the HostGate: the host's
// turn is taken before the request goes out and given back when its body
// is closed, with a Retry-After backoff after a 429 or 503.
type gateTransport struct {
	f    *Fetcher
	base http.RoundTripper
}

func (t *gateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	release, err := t.f.acquire(req.Context(), req.URL)
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		release(0, nil)
		return nil, err
	}
	resp.Body = &releaseOnClose{ReadCloser: resp.Body, release: func() { release(resp.StatusCode, resp.Header) }}
	return resp, nil
}

// releaseOnClose calls release once, when the body is closed.
type releaseOnClose struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (r *releaseOnClose) Close() error {
	err := r.ReadCloser.Close()
	r.once.Do(r.release)
	return err
}

// sameOrigin is a URL filter admitting only u's scheme, host and port.
func sameOrigin(u *url.URL) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(u.Scheme+"://"+u.Host) + "(/|$|\\?)")
}

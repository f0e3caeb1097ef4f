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
	limit := f.cfg.MaxBodyBytes
	c := f.collector(ctx, resourceRequest, limit)
	c.MaxDepth = spec.maxDepth
	c.AllowedDomains = []string{su.Hostname()}
	c.URLFilters = spec.filters
	gt := &gateTransport{f: f, base: &capTransport{base: f.transport, limit: limit}}
	c.WithTransport(gt)
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

	var (
		mu       sync.Mutex
		res      walkResult
		startErr error
		verdicts = map[*colly.Request]error{}
	)
	isStart := func(r *colly.Request) bool { return r.Depth == 1 && r.URL.String() == su.String() }
	fail := func(r *colly.Request, err error) {
		mu.Lock()
		defer mu.Unlock()
		e := f.classify(ctx, r.URL.String(), err, limit)
		if isStart(r) {
			if startErr == nil {
				startErr = e
			}
			return
		}
		res.warnings = append(res.warnings, e.Error())
	}

	c.OnRequest(func(r *colly.Request) {
		r.Headers.Set("Accept", acceptHeader[resourceRequest])
		r.Headers.Set("Accept-Language", "en,ko;q=0.9,*;q=0.5")
		if isStart(r) {
			if v.ETag != "" {
				r.Headers.Set("If-None-Match", v.ETag)
			}
			if v.LastModified != "" {
				r.Headers.Set("If-Modified-Since", v.LastModified)
			}
		}
		if err := f.checkDirect(r.URL); err != nil {
			fail(r, err)
			r.Abort()
			return
		}
		if err := f.checkRobots(ctx, r.URL); err != nil {
			fail(r, err)
			r.Abort()
		}
	})
	c.OnResponseHeaders(func(r *colly.Response) {
		h := *r.Headers
		conditional := isStart(r.Request) && v.any()
		if err := f.checkHeaders(resourceRequest, r.StatusCode, h, limit, conditional); err != nil {
			mu.Lock()
			verdicts[r.Request] = err
			mu.Unlock()
			fail(r.Request, err)
			r.Request.Abort()
			return
		}
		if r.StatusCode == http.StatusNotModified {
			mu.Lock()
			res.notModified = true
			mu.Unlock()
			r.Request.Abort()
			return
		}
		if isStart(r.Request) {
			mu.Lock()
			res.validators = Validators{ETag: h.Get("ETag"), LastModified: h.Get("Last-Modified")}
			mu.Unlock()
		}
		r.Ctx.Put("content-type", h.Get("Content-Type"))
		if mt := mediaTypeOf(h.Get("Content-Type")); mt != "" {
			r.Headers.Set("Content-Type", mt) // keep colly from converting: decodeBody does it once
		}
	})
	// The first OnResponse hook decodes the body in place, so that the
	// adapter's OnResponse and OnHTML hooks read UTF-8.
	c.OnResponse(func(r *colly.Response) {
		switch {
		case int64(len(r.Body)) > limit:
			fail(r.Request, tooLarge(limit))
			r.Body = nil
			return
		case bytes.HasPrefix(r.Body, gzipMagic):
			fail(r.Request, newFetchError(casefile.ErrPermanent, nil, "the body is gzip-compressed without a Content-Encoding header"))
			r.Body = nil
			return
		}
		contentType := r.Ctx.Get("content-type")
		mt := mediaTypeOf(contentType)
		if mt == "" {
			mt = mediaTypeOf(http.DetectContentType(r.Body))
			if err := checkType(resourceRequest, mt); err != nil {
				fail(r.Request, err)
				r.Body = nil
				return
			}
			r.Headers.Set("Content-Type", mt)
		}
		body, cs, err := decodeBody(r.Body, mt, contentType)
		if err != nil {
			fail(r.Request, newFetchError(casefile.ErrPermanent, err, "cannot decode the page as %s", cs))
			r.Body = nil
			return
		}
		r.Body = []byte(body)
		mu.Lock()
		res.pages++
		mu.Unlock()
	})
	c.OnError(func(r *colly.Response, err error) {
		mu.Lock()
		_, judged := verdicts[r.Request]
		mu.Unlock()
		if judged || errors.Is(err, colly.ErrAbortedAfterHeaders) {
			return
		}
		if r.StatusCode != 0 && (r.StatusCode < 200 || r.StatusCode > 299) {
			se := &StatusError{StatusCode: r.StatusCode, RetryAfter: retryAfter(*r.Headers, f.now())}
			err = newFetchError(statusKind(r.StatusCode), se, "%s", se.Error())
		}
		fail(r.Request, err)
	})
	spec.setup(c)

	if err := c.Visit(su.String()); err != nil && startErr == nil && !errors.Is(err, colly.ErrAbortedAfterHeaders) && !errors.Is(err, colly.ErrAbortedBeforeRequest) && res.pages == 0 {
		startErr = f.classify(ctx, su.String(), err, limit)
	}
	c.Wait()
	if startErr != nil {
		return res, startErr
	}
	if res.notModified {
		res.validators = v
	}
	return res, nil
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

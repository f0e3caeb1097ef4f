package crawl

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/incidentlib/casefile"
)

// Defaults of Config.
const (
	DefaultUserAgent    = "casefile/0.1 (+https://github.com/incidentlib/casefile)"
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBodyBytes = 5 << 20
	DefaultMaxRedirects = 5
)

// Transport limits (see Fetch limits in the README).
const (
	dialTimeout           = 10 * time.Second
	keepAlive             = 30 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 20 * time.Second
	maxResponseHeaderSize = 64 << 10
	maxIdleConnsPerHost   = 2
)

// Config configures a Fetcher. The zero value means the defaults: the
// casefile User-Agent, 30 s per request, a 5 MiB body cap, 5 redirects,
// robots.txt honoured, private destinations refused, and the egress proxy
// taken from the environment.
type Config struct {
	// UserAgent is sent with every request; it names casefile and a contact.
	UserAgent string
	// Timeout bounds each request (connect, headers and body). The whole
	// job, robots.txt and redirects included, is bounded by the caller's
	// context.
	Timeout time.Duration
	// MaxBodyBytes caps the decoded (decompressed) body. A larger body is
	// an ErrPermanent error, never truncated.
	MaxBodyBytes int64
	// MaxRedirects is the number of redirect hops followed; more is an
	// ErrPermanent error. Negative follows none.
	MaxRedirects int
	// AllowPrivate lets requests reach loopback, private and link-local
	// addresses (tests, --allow-private). Without it such destinations are
	// refused unless the request goes through an egress proxy.
	AllowPrivate bool
	// Proxy is the egress proxy every request goes through. Nil reads
	// HTTPS_PROXY, HTTP_PROXY and NO_PROXY from the environment once, in
	// New. Either way loopback targets go to the proxy too; only targets
	// NO_PROXY exempts are dialled directly, under the egress guard.
	Proxy *url.URL
	// IgnoreRobots skips the robots.txt check.
	IgnoreRobots bool
	// RootCAs are the certificate authorities trusted for https; nil means
	// the system's. Tests trust a crawltest.Proxy's authority this way.
	RootCAs *x509.CertPool
	// Logger receives warnings (an unreachable robots.txt); nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock for Page.FetchedAt and the robots.txt cache; nil
	// means time.Now.
	Now func() time.Time
	// Gate, when set, paces the requests to each host (robots.txt
	// included): one at a time, at least HostDelay apart, or the host's
	// Crawl-delay when that is longer, and not before a Retry-After of a
	// 429 or 503 has passed. A gate whose state is shared (natsgate) paces
	// all the processes that share it. Nil: no pacing.
	Gate HostGate
	// HostDelay is the least gap between two requests to one host under
	// Gate; 0 means DefaultHostDelay, a negative value no gap (still one
	// request at a time).
	HostDelay time.Duration
}

// DefaultHostDelay is the least gap between two requests to one host
// under a Gate.
const DefaultHostDelay = time.Second

// HostGate paces requests to hosts.
type HostGate interface {
	// Acquire waits until a request to host may start: none to it in
	// flight and at least gap since the last one ended (longer when the
	// host asked to be left alone). The returned release ends the request;
	// a backoff keeps the host idle at least that long (a Retry-After).
	Acquire(ctx context.Context, host string, gap time.Duration) (release func(backoff time.Duration), err error)
}

// Fetcher fetches pages with one colly collector per fetch over one
// shared transport. It is safe for concurrent use.
type Fetcher struct {
	cfg         Config
	proxies     *proxies
	transport   *http.Transport
	robotsCache robotsCache
	exempt      map[netip.AddrPort]bool // tests only; see checkAddrPort
}

// New returns a Fetcher for cfg. It fails with ErrInvalid when the proxy
// settings (cfg.Proxy or the environment) cannot be read.
func New(cfg Config) (*Fetcher, error) {
	return newFetcher(cfg, os.Getenv)
}

// newFetcher is New with the environment read through getenv.
func newFetcher(cfg Config, getenv func(string) string) (*Fetcher, error) {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case cfg.MaxRedirects == 0:
		cfg.MaxRedirects = DefaultMaxRedirects
	case cfg.MaxRedirects < 0:
		cfg.MaxRedirects = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch {
	case cfg.HostDelay == 0:
		cfg.HostDelay = DefaultHostDelay
	case cfg.HostDelay < 0:
		cfg.HostDelay = 0
	}
	px, err := proxiesFromConfig(cfg.Proxy, getenv)
	if err != nil {
		return nil, casefile.Errorf(casefile.ErrInvalid, "configure fetcher: %w", err)
	}
	f := &Fetcher{cfg: cfg, proxies: px}

	direct := &net.Dialer{Timeout: dialTimeout, KeepAlive: keepAlive}
	guarded := &net.Dialer{Timeout: dialTimeout, KeepAlive: keepAlive, Control: f.control}
	if cfg.AllowPrivate {
		guarded = direct
	}
	f.transport = &http.Transport{
		Proxy: px.proxyFunc,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if px.isProxy(addr) {
				return direct.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  min(responseHeaderTimeout, cfg.Timeout),
		MaxResponseHeaderBytes: maxResponseHeaderSize,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    maxIdleConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
	}
	return f, nil
}

// Close releases the fetcher's idle connections. The fetcher stays usable.
func (f *Fetcher) Close() { f.transport.CloseIdleConnections() }

func (f *Fetcher) now() time.Time { return f.cfg.Now() }

// Fetch fetches one page. It validates the URL (ErrInvalid when it is not
// http(s), has no host, carries a user name or password or is longer than
// MaxURLLength), refuses private destinations (ErrInvalid), checks
// robots.txt (ErrPermanent when it disallows), does the request with a
// fresh colly collector and decodes the body to NFC-normalised UTF-8 from
// its declared or sniffed charset.
//
// Outcomes: a 2xx with an HTML, XHTML, plain-text, JSON, RSS, Atom or XML
// body is a page; 404, 410 and other 4xx are ErrPermanent, 408, 429 and 5xx
// ErrTransient (a *StatusError is in the chain); timeouts, refused or reset
// connections and temporary DNS failures are ErrTransient, an unknown host
// ErrPermanent; another content type is ErrInvalid; a body over
// MaxBodyBytes or more than MaxRedirects hops are ErrPermanent; the end of
// ctx is ErrTransient wrapping ctx's error. Every error reads as one line,
// "fetch <url>: <what happened>".
//
// On error the returned page carries what is known (URL, and once a
// response came, FinalURL, StatusCode and FetchedAt), never a body.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (casefile.Page, error) {
	return f.fetch(ctx, rawURL, pageRequest, Validators{})
}

// FetchResource fetches a resource related to a page (a Statuspage
// incident's JSON, a Discourse topic's .json, a robots.txt) with the rules
// of Fetch, accepting any text, JSON or XML type.
func (f *Fetcher) FetchResource(ctx context.Context, rawURL string) (casefile.Page, error) {
	return f.fetch(ctx, rawURL, resourceRequest, Validators{})
}

// FetchIfChanged is Fetch with If-None-Match: etag. When the server answers
// 304 Not Modified it returns a page with StatusCode 304, the ETag and no
// body, and a nil error. An empty etag makes it Fetch. (Fetch itself treats
// a 304 as ErrPermanent, since it asked for no validation.)
func (f *Fetcher) FetchIfChanged(ctx context.Context, rawURL, etag string) (casefile.Page, error) {
	return f.fetch(ctx, rawURL, pageRequest, Validators{ETag: etag})
}

// Validators are what a conditional GET sends back: the ETag and the
// Last-Modified of the previous answer. The zero value asks nothing.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

func (v Validators) any() bool { return v.ETag != "" || v.LastModified != "" }

// FetchSource fetches a source's index (a feed, a status page's JSON, a
// list) with the rules of FetchResource, sending If-None-Match and
// If-Modified-Since from v. A 304 Not Modified is a page with StatusCode
// 304 and no body, and a nil error; otherwise the page's ETag and
// LastModified are the validators to send next time.
func (f *Fetcher) FetchSource(ctx context.Context, rawURL string, v Validators) (casefile.Page, error) {
	return f.fetch(ctx, rawURL, resourceRequest, v)
}

// requestKind says what is fetched: which types are accepted, what Accept
// says, what cap applies and whether robots.txt is checked.
type requestKind int

const (
	pageRequest requestKind = iota
	resourceRequest
	robotsRequest
)

var acceptHeader = map[requestKind]string{
	pageRequest:     "text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,text/plain;q=0.7,*/*;q=0.1",
	resourceRequest: "application/json,application/xml;q=0.9,text/*;q=0.8,*/*;q=0.1",
	robotsRequest:   "text/plain,*/*;q=0.1",
}

// pageTypes are the media types Fetch accepts.
var pageTypes = map[string]bool{
	"text/html":             true,
	"application/xhtml+xml": true,
	"text/plain":            true,
	"application/json":      true,
	"application/rss+xml":   true,
	"application/atom+xml":  true,
	"application/xml":       true,
	"text/xml":              true,
}

// checkType refuses media types the request kind does not accept.
func checkType(kind requestKind, mediaType string) error {
	switch {
	case kind == robotsRequest, pageTypes[mediaType]:
		return nil
	case kind == resourceRequest && (strings.HasPrefix(mediaType, "text/") || isJSON(mediaType) || isXML(mediaType)):
		return nil
	case mediaType == "application/pdf":
		return newFetchError(casefile.ErrInvalid, nil, "pdf is not supported yet")
	}
	return newFetchError(casefile.ErrInvalid, nil, "unsupported content type %s", mediaType)
}

// mediaTypeOf returns the lower-case media type of a Content-Type value
// without parameters, or "" when there is none.
func mediaTypeOf(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// fetch runs one fetch and classifies its outcome.
func (f *Fetcher) fetch(ctx context.Context, rawURL string, kind requestKind, v Validators) (casefile.Page, error) {
	u, err := parseTarget(rawURL)
	if err != nil {
		return casefile.Page{URL: rawURL}, casefile.Errorf(casefile.ErrInvalid, "fetch %s: %w", displayRaw(redact(rawURL)), err)
	}
	display := u.String()
	page := casefile.Page{URL: display}
	limit := f.cfg.MaxBodyBytes
	if err := f.checkDirect(u); err != nil {
		return page, f.classify(ctx, display, err, limit)
	}
	if kind != robotsRequest {
		if err := f.checkRobots(ctx, u); err != nil {
			return page, f.classify(ctx, display, err, limit)
		}
	}
	res, err := f.get(ctx, u, kind, v)
	if res.finalURL != nil {
		page.FinalURL = res.finalURL.String()
		page.StatusCode = res.status
		page.FetchedAt = f.now()
		page.ETag = res.header.Get("ETag")
		page.LastModified = res.header.Get("Last-Modified")
	}
	if err != nil {
		return page, f.classify(ctx, display, err, limit)
	}
	if res.status == http.StatusNotModified {
		return page, nil
	}
	contentType := res.header.Get("Content-Type")
	mt := mediaTypeOf(contentType)
	if mt == "" {
		mt = mediaTypeOf(http.DetectContentType(res.body))
		if err := checkType(kind, mt); err != nil {
			return page, f.classify(ctx, display, err, limit)
		}
	}
	body, cs, err := decodeBody(res.body, mt, contentType)
	if err != nil {
		return page, f.classify(ctx, display, newFetchError(casefile.ErrPermanent, err, "cannot decode the page as %s", cs), limit)
	}
	page.ContentType, page.Charset, page.Body = mt, cs, body
	return page, nil
}

// checkDirect refuses, before any connection, an IP-literal destination
// that is not public when the request would be dialled directly. Host
// names are judged at dial time on the resolved address.
func (f *Fetcher) checkDirect(u *url.URL) error {
	if f.cfg.AllowPrivate || f.proxies.forURL(u) != nil {
		return nil
	}
	a, err := netip.ParseAddr(u.Hostname())
	if err != nil {
		return nil
	}
	port, _ := strconv.ParseUint(u.Port(), 10, 16)
	if port == 0 {
		port = map[string]uint64{"http": 80, "https": 443}[u.Scheme]
	}
	return f.checkAddrPort(netip.AddrPortFrom(a, uint16(port)))
}

var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// response is what one request returned.
type response struct {
	status   int
	header   http.Header
	finalURL *url.URL
	body     []byte // raw bytes, decompressed, not yet decoded
}

// get does one GET of u with a fresh collector. Errors it returns are
// either *fetchError (already classified) or whatever the transport said.
func (f *Fetcher) get(ctx context.Context, u *url.URL, kind requestKind, v Validators) (response, error) {
	limit := f.cfg.MaxBodyBytes
	if kind == robotsRequest {
		limit = robotsMaxBytes
	}
	c := f.collector(ctx, kind, limit)

	var (
		res     response
		verdict error
	)
	c.OnRequest(func(r *colly.Request) {
		r.Headers.Set("Accept", acceptHeader[kind])
		r.Headers.Set("Accept-Language", "en,ko;q=0.9,*;q=0.5")
		if v.ETag != "" {
			r.Headers.Set("If-None-Match", v.ETag)
		}
		if v.LastModified != "" {
			r.Headers.Set("If-Modified-Since", v.LastModified)
		}
	})
	c.OnResponseHeaders(func(r *colly.Response) {
		res.status = r.StatusCode
		res.header = r.Headers.Clone()
		res.finalURL = r.Request.URL
		if err := f.checkHeaders(kind, r.StatusCode, res.header, limit, v.any()); err != nil {
			verdict = err
			r.Request.Abort()
			return
		}
		if r.StatusCode == http.StatusNotModified {
			r.Request.Abort()
			return
		}
		// colly converts bodies whose Content-Type names a charset, and only
		// those; leave the bytes alone so that decodeBody decodes once, by
		// BOM, header and <meta> alike.
		if mt := mediaTypeOf(r.Headers.Get("Content-Type")); mt != "" {
			r.Headers.Set("Content-Type", mt)
		}
	})
	c.OnResponse(func(r *colly.Response) { res.body = r.Body })

	release, err := f.acquire(ctx, u)
	if err != nil {
		return res, err
	}
	defer func() { release(res.status, res.header) }()
	err = c.Visit(u.String())
	switch {
	case verdict != nil:
		return res, verdict
	case err != nil && res.status == http.StatusNotModified && errors.Is(err, colly.ErrAbortedAfterHeaders):
		return res, nil
	case err != nil:
		return res, err
	case int64(len(res.body)) > limit:
		return res, tooLarge(limit)
	case bytes.HasPrefix(res.body, gzipMagic):
		// A gzip file served as text (colly would inflate it, uncapped).
		return res, newFetchError(casefile.ErrPermanent, nil, "the body is gzip-compressed without a Content-Encoding header")
	}
	return res, nil
}

// acquire waits for u's host's turn under the gate (none: at once). The
// returned release ends the request; a 429 or 503 with Retry-After backs
// the host off. Errors are the end of ctx or an ErrTransient fetchError.
func (f *Fetcher) acquire(ctx context.Context, u *url.URL) (release func(status int, h http.Header), err error) {
	if f.cfg.Gate == nil {
		return func(int, http.Header) {}, nil
	}
	gap := max(f.cfg.HostDelay, f.CrawlDelay(u.String()))
	rel, err := f.cfg.Gate.Acquire(ctx, strings.ToLower(u.Host), gap)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, newFetchError(casefile.ErrTransient, err, "wait for the host's turn: %v", err)
	}
	return func(status int, h http.Header) {
		var backoff time.Duration
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			backoff = retryAfter(h, f.now())
		}
		rel(backoff)
	}, nil
}

// collector makes the collector of one fetch. Fields are set after
// NewCollector because colly lets COLLY_* environment variables override
// its options.
func (f *Fetcher) collector(ctx context.Context, kind requestKind, limit int64) *colly.Collector {
	c := colly.NewCollector()
	c.Context = ctx
	c.UserAgent = f.cfg.UserAgent
	c.Headers = nil
	c.MaxDepth = 0
	c.MaxRequests = 0
	c.AllowedDomains, c.DisallowedDomains = nil, nil
	c.URLFilters, c.DisallowedURLFilters = nil, nil
	c.AllowURLRevisit = false
	c.MaxBodySize = int(limit) + 1 // our reader reports the overflow; colly would truncate
	c.CacheDir = ""
	c.IgnoreRobotsTxt = true // our own check: cached with a lifetime, applied to redirects
	c.Async = false
	c.ParseHTTPErrorResponse = true
	c.DetectCharset = false
	c.CheckHead = false
	c.TraceHTTP = false
	c.WithTransport(&capTransport{base: f.transport, limit: limit})
	c.SetRequestTimeout(f.cfg.Timeout)
	c.SetRedirectHandler(f.redirectHandler(kind))
	return c
}

// checkHeaders judges a response by its status and headers, before its
// body is read.
func (f *Fetcher) checkHeaders(kind requestKind, status int, h http.Header, limit int64, conditional bool) error {
	switch {
	case status == http.StatusNotModified && conditional:
		return nil
	case status < 200 || status > 299:
		se := &StatusError{StatusCode: status, RetryAfter: retryAfter(h, f.now())}
		return newFetchError(statusKind(status), se, "%s", se.Error())
	}
	if ce := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))); ce != "" && ce != "identity" {
		// Go decodes gzip itself and removes the header; what is left is an
		// encoding nobody asked for.
		return newFetchError(casefile.ErrPermanent, nil, "unsupported content encoding %s", ce)
	}
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil && n > limit {
		return tooLarge(limit)
	}
	if mt := mediaTypeOf(h.Get("Content-Type")); mt != "" {
		return checkType(kind, mt)
	}
	return nil
}

// redirectHandler counts hops and checks each target: http(s) only, no
// user name or password, no private destination, robots.txt honoured.
func (f *Fetcher) redirectHandler(kind requestKind) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > f.cfg.MaxRedirects {
			return newFetchError(casefile.ErrPermanent, nil, "more than %d redirects", f.cfg.MaxRedirects)
		}
		u := req.URL
		if u.Scheme != "http" && u.Scheme != "https" {
			return newFetchError(casefile.ErrPermanent, nil, "redirected to %s, which is not an http(s) URL", displayRaw(u.Redacted()))
		}
		if u.User != nil {
			return newFetchError(casefile.ErrPermanent, nil, "redirected to a URL with a user name or password")
		}
		if err := f.checkDirect(u); err != nil {
			return err
		}
		if kind != robotsRequest {
			return f.checkRobots(req.Context(), u)
		}
		return nil
	}
}

// capTransport wraps the shared transport for one collector: it caps the
// decoded body and stops colly from decompressing on its own.
type capTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &capReader{rc: resp.Body, limit: t.limit}
	// Go has decoded gzip (and removed Content-Encoding) when it could.
	// colly gunzips again, uncapped, when this is false and the type or
	// path looks gzipped: a decompression bomb.
	resp.Uncompressed = true
	return resp, nil
}

// capReader fails with errBodyTooLarge once more than limit bytes are read.
type capReader struct {
	rc    io.ReadCloser
	n     int64
	limit int64
}

func (r *capReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.n += int64(n)
	if r.n > r.limit {
		return n, errBodyTooLarge
	}
	return n, err
}

func (r *capReader) Close() error { return r.rc.Close() }
